/**
 * The live path end to end: the CLI reads a generated kubeconfig and talks HTTPS to the test API
 * server, exactly as it would to a real cluster. Live and --snapshot runs of the same objects
 * must give the same findings; every request must be a paginated GET.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from './apiserver/server.js';
import { runCli } from './helpers/cli.js';
import { until } from './helpers/until.js';
import { baseObjects, fixtureObjects, overlay, parseObjects } from './helpers/fixtures.js';
import { KINDS } from '../src/k8s/kinds.js';

const OBJECTS = overlay(
  baseObjects('both'),
  fixtureObjects('checks/pod-opted-out/fires-linkerd.yaml'),
  fixtureObjects('checks/pod-opted-out/fires-istio.yaml'),
  fixtureObjects('checks/namespace-not-enabled/mixed-linkerd.yaml'),
)
  .map((o) =>
    // As a real API server returns them: controller-owned pods carry managedFields too.
    o.kind === 'Pod' && o.metadata?.ownerReferences?.length
      ? {
          ...o,
          metadata: {
            ...o.metadata,
            managedFields: [{ manager: 'kube-controller-manager', operation: 'Update', time: '2026-11-01T00:00:00Z' }],
          },
        }
      : o,
  )
  .map(plant);

/** Secrets where real clusters keep them: a ConfigMap key no check reads, env values, args, last-applied. */
function plant(o: any): any {
  const lastApplied = { 'kubectl.kubernetes.io/last-applied-configuration': '{"password":"PLANTED-LAST-APPLIED"}' };
  if (o.kind === 'ConfigMap')
    return {
      ...o,
      data: { ...o.data, 'db-password': 'PLANTED-CONFIGMAP' },
      metadata: { ...o.metadata, annotations: { ...o.metadata?.annotations, ...lastApplied } },
    };
  if (o.kind === 'Pod' && Array.isArray(o.spec?.containers)) {
    const containers = o.spec.containers.map((c: any) => ({
      ...c,
      env: [...(c.env ?? []), { name: 'API_TOKEN', value: 'PLANTED-ENV' }],
      args: [...(c.args ?? []), '--token=PLANTED-ARG'],
    }));
    return { ...o, spec: { ...o.spec, containers } };
  }
  if (o.kind === 'Deployment')
    return { ...o, metadata: { ...o.metadata, annotations: { ...o.metadata?.annotations, ...lastApplied } } };
  return o;
}

let server: ApiServer;
let kubeconfig: string;
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-live-'));
const file = join(tmp, 'cluster.json');

beforeAll(async () => {
  server = await startApiServer({ objects: OBJECTS, maxPageSize: 7 });
  kubeconfig = await server.writeKubeconfig(tmp, { namespace: 'shop' });
  writeFileSync(file, JSON.stringify({ kind: 'List', items: OBJECTS }));
});
afterAll(() => server.close());

/** Findings without the fields that legitimately differ between sources. */
const comparable = (stdout: string) => {
  const r = JSON.parse(stdout);
  return { meshes: r.meshes, summary: r.summary, findings: r.findings, skipped: r.skipped };
};

describe('live check through the test API server', () => {
  it('-A: the same findings live and from a snapshot file of the same objects', async () => {
    const live = await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json']);
    expect(live.stderr).toBe('');
    const offline = await runCli(['check', '-A', '--snapshot', file, '-o', 'json']);
    expect(comparable(live.stdout)).toEqual(comparable(offline.stdout));
    expect(
      comparable(live.stdout)
        .findings.map((f: any) => f.id)
        .sort(),
    ).toEqual(['namespace-not-enabled', 'pod-opted-out', 'pod-opted-out']);
    expect(JSON.parse(live.stdout).source).toMatchObject({ type: 'live', context: 'fake', server: server.url });
  });

  it('-n defaults to the context namespace and lists only it plus the mesh namespaces', async () => {
    server.requests.length = 0;
    const live = await runCli(['check', '--kubeconfig', kubeconfig, '-o', 'json']);
    const r = JSON.parse(live.stdout);
    expect(r.scope).toEqual({ allNamespaces: false, namespace: 'shop' });
    expect(r.findings.map((f: any) => `${f.id} ${f.resource.namespace}/${f.resource.name}`)).toEqual([
      'pod-opted-out shop/cart',
    ]);
    // Of kube-system, only the kube-apiserver pods (their admission flags), by kubeadm's labels.
    const kubeSystem = server.requests.filter((q) => q.path.startsWith('/api/v1/namespaces/kube-system/'));
    expect(kubeSystem.map((q) => [q.path, q.query.labelSelector])).toEqual([
      ['/api/v1/namespaces/kube-system/pods', 'component=kube-apiserver,tier=control-plane'],
    ]);
    const namespaced = server.requests
      .filter((q) => !kubeSystem.includes(q))
      .map((q) => /\/namespaces\/([^/]+)\/[a-z]+$/.exec(q.path)?.[1])
      .filter(Boolean);
    expect(new Set(namespaced)).toEqual(new Set(['shop', 'linkerd', 'istio-system']));
  });

  it('--as and --as-group: every request carries the impersonation headers; the report names the user; --request-timeout takes 5s', async () => {
    server.requests.length = 0;
    const r = await runCli([
      'check',
      '-A',
      '--kubeconfig',
      kubeconfig,
      '--as',
      'alice',
      '--as-group',
      'devs',
      '--as-group',
      'ops',
      '--request-timeout',
      '5s',
      '-o',
      'json',
    ]);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).source.user).toBe('alice');
    expect(server.requests.length).toBeGreaterThan(5);
    for (const q of server.requests) {
      expect(q.headers['impersonate-user']).toBe('alice');
      // One Impersonate-Group line per group (Node joins repeated headers with ", ").
      expect(q.headers['impersonate-group']).toBe('devs, ops');
    }
    server.requests.length = 0;
    await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json']);
    expect(server.requests.some((q) => 'impersonate-user' in q.headers)).toBe(false);
  });

  it('only GETs, one paginated LIST per kind and page, nothing per object', async () => {
    server.requests.length = 0;
    await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json']);
    expect(server.requests.every((q) => q.method === 'GET')).toBe(true);
    const lists = server.requests.filter((q) => q.query.limit);
    const gets = server.requests.filter((q) => !q.query.limit);
    // Single GETs only for the named ConfigMaps/Secrets in the mesh namespaces, and the server's own /version (once) and /metrics.
    expect(gets.filter((q) => q.path === '/version')).toHaveLength(1);
    expect(
      gets.every((q) =>
        /\/namespaces\/(linkerd|istio-system)\/(configmaps|secrets)\/[^/]+$|^\/(version|metrics)$/.test(q.path),
      ),
    ).toBe(true);
    const byPath = new Map<string, number>();
    for (const q of lists) byPath.set(q.path, (byPath.get(q.path) ?? 0) + 1);
    const pods = OBJECTS.filter((o) => o.kind === 'Pod').length;
    expect(byPath.get('/api/v1/pods')).toBe(Math.ceil(pods / 7));
    expect([...byPath.keys()].every((p) => !p.includes('/namespaces/'))).toBe(true);
    expect(byPath.has('/api/v1/configmaps')).toBe(false);
    expect(byPath.has('/api/v1/secrets')).toBe(false);
  });

  it('snapshot saves what check reads (managedFields kept, no Secret data); checking it gives the same findings', async () => {
    const snap = await runCli(['snapshot', '-A', '--kubeconfig', kubeconfig]);
    expect(snap.code).toBe(0);
    const doc = JSON.parse(snap.stdout);
    expect(doc.kind).toBe('MeshdoctorSnapshot');
    const shop = doc.objects.namespaces.find((n: any) => n.metadata.name === 'shop');
    expect(shop.metadata.managedFields.length).toBeGreaterThan(0);
    expect(snap.stdout).not.toMatch(/PRIVATE KEY/);
    expect(snap.stdout).not.toContain('"tls.key"');
    for (const s of doc.objects.secrets) expect(s.data).toBeUndefined();
    // managedFields stay where they date markers (namespaces, controllers, bare pods), and are
    // dropped where nothing reads them (pods with a controller, ReplicaSets, Events).
    const owned = doc.objects.pods.filter((p: any) => p.metadata.ownerReferences?.some((r: any) => r.controller));
    expect(owned.length).toBeGreaterThan(5);
    for (const p of owned) expect(p.metadata.managedFields).toBeUndefined();
    const saved = join(tmp, 'saved.json');
    writeFileSync(saved, snap.stdout);
    const fromSaved = await runCli(['check', '-A', '--snapshot', saved, '-o', 'json']);
    const live = await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json']);
    expect(comparable(fromSaved.stdout)).toEqual(comparable(live.stdout));
  });

  it('a 403 on one kind skips the checks that need it, the rest still run; the run is incomplete (exit 3 unless a finding decides)', async () => {
    server.faults.push({ match: (q) => q.path === '/api/v1/pods', status: 403 });
    try {
      const r = await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json']);
      const report = JSON.parse(r.stdout);
      const skipped = report.skipped.find((s: any) => s.check === 'namespace-not-enabled');
      expect(skipped.reason).toBe('cannot read pods');
      const pods = report.coverage.unavailable.find((u: any) => u.kind === 'pods');
      expect(pods.reason).toMatch(/^forbidden: /);
      expect(pods.checks).toContain('namespace-not-enabled');
      expect(report.coverage.complete).toBe(false);
      expect(report.coverage.rbac[0]).toMatch(
        /^kubectl create clusterrole (meshdoctor-reader-[0-9a-f]{8}) --verb=get,list --resource=pods$/,
      );
      const role = /clusterrole (\S+)/.exec(report.coverage.rbac[0])![1];
      // Bound to the user the 403 names (the test server names it as kube-apiserver does).
      expect(report.coverage.rbac[1]).toBe(
        `kubectl create clusterrolebinding ${role} --clusterrole=${role} --serviceaccount=default:meshdoctor`,
      );
      expect(report.findings.map((f: any) => f.id)).toContain('pod-opted-out');
      // pod-opted-out is a warning: with the default --fail-on error no finding decides, so: incomplete.
      expect(r.code).toBe(3);
      expect((await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json', '--allow-partial'])).code).toBe(0);
      expect(
        (await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json', '--fail-on', 'warning'])).code,
      ).toBe(1);
      expect(
        (await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json', '--fail-on', 'warning', '--strict']))
          .code,
      ).toBe(3);
    } finally {
      server.faults.length = 0;
    }
  });

  it('a live snapshot keeps only what the checks read: no env values, arguments, unread ConfigMap keys or last-applied', async () => {
    const r = await runCli(['snapshot', '-A', '--kubeconfig', kubeconfig]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"configmaps"');
    expect(r.stdout).toContain('API_TOKEN'); // the name stays (nothing secret in it)...
    expect(r.stdout).not.toMatch(/PLANTED-/); // ...no value does
  });

  it('a 403 on Secrets skips only the checks that need them, with the reason', async () => {
    server.faults.push({ match: (q) => q.path.includes('/secrets/'), status: 403 });
    try {
      const r = JSON.parse((await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json'])).stdout);
      expect(r.skipped).toEqual([
        { check: 'component-cert-not-reloaded', reason: 'cannot read secrets' },
        { check: 'webhook-cert-mismatch', reason: 'cannot read secrets' },
      ]);
      expect(r.coverage.unavailable).toEqual([
        {
          kind: 'secrets',
          reason: expect.stringMatching(/^forbidden: /),
          checks: ['component-cert-not-reloaded', 'webhook-cert-mismatch'],
        },
      ]);
      // The trust anchors (a ConfigMap) are still checked; nothing reads a 403 as "absent".
      expect(r.summary.checksRun).toBeGreaterThan(10);
      expect(r.findings.map((f: any) => f.id)).not.toContain('webhook-missing');
    } finally {
      server.faults.length = 0;
    }
  });

  it('a 403 on webhook configurations is not "webhook missing": the checks that need them are skipped', async () => {
    server.faults.push({ match: (q) => q.path.includes('mutatingwebhookconfigurations'), status: 403 });
    try {
      const r = JSON.parse((await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json'])).stdout);
      expect(r.findings.map((f: any) => f.id)).not.toContain('webhook-missing');
      expect(r.skipped.map((s: any) => s.check)).toContain('webhook-missing');
      for (const s of r.skipped) expect(s.reason).toMatch(/^cannot read .*mutatingwebhookconfigurations/);
      // The 300-character forbidden message is said once, for its kind, not once per check.
      expect(r.coverage.unavailable.filter((u: any) => /^forbidden/.test(u.reason)).map((u: any) => u.kind)).toEqual([
        'mutatingwebhookconfigurations',
      ]);
    } finally {
      server.faults.length = 0;
    }
  });

  it("every request a full run makes is allowed by deploy/rbac.yaml (meshdoctor-reader) and, in a mesh's namespace, its Role (deploy/mesh-rbac/)", async () => {
    server.requests.length = 0;
    await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json']);
    await runCli(['check', '-n', 'shop', '--kubeconfig', kubeconfig, '-o', 'json']);
    await runCli(['snapshot', '-A', '--kubeconfig', kubeconfig]);
    type Rule = {
      apiGroups: string[];
      resources: string[];
      verbs: string[];
      resourceNames?: string[];
      nonResourceURLs?: string[];
    };
    const deploy = (f: string) =>
      parseObjects(readFileSync(join(import.meta.dirname, '..', 'deploy', f), 'utf8')) as any[];
    const cluster = deploy('rbac.yaml').find((o) => o.metadata?.name === 'meshdoctor-reader')!.rules as Rule[];
    // In its namespace only: each mesh's Role (ConfigMaps and Secrets by name).
    // The default Roles and the opt-in Secret Roles (deploy/mesh-rbac/secrets/): this run reads Secrets.
    const roles = ['mesh-rbac', 'mesh-rbac/secrets'].flatMap((dir) =>
      readdirSync(join(import.meta.dirname, '..', 'deploy', dir))
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => deploy(`${dir}/${f}`).find((o) => o.kind === 'Role')!),
    );
    const plurals = new Map(Object.values(KINDS).map((k) => [k.plural, k.group]));
    expect(server.requests.length).toBeGreaterThan(20);
    for (const q of server.requests) {
      if (q.path === '/version' || q.path === '/metrics') {
        // URLs that are no resource: /version is open to every user (the built-in role
        // system:public-info-viewer), /metrics is granted by meshdoctor-reader's rule for it.
        const url =
          q.path === '/version' || cluster.some((r) => r.nonResourceURLs?.includes(q.path) && r.verbs.includes('get'));
        expect(url, `${q.method} ${q.path}`).toBe(true);
        continue;
      }
      const m = /^\/(?:api\/v1|apis\/([^/]+)\/v1)(?:\/namespaces\/([^/]+))?\/([a-z-]+)(?:\/([^/]+))?$/.exec(q.path);
      expect(m, q.path).not.toBeNull();
      const [, group = '', ns, resource, name] = m!;
      expect(plurals.get(resource!), q.path).toBe(group);
      const verb = name ? 'get' : 'list';
      const rules = [...cluster, ...roles.filter((r) => r.metadata.namespace === ns).flatMap((r) => r.rules as Rule[])];
      const allowed = rules.some(
        (r) =>
          r.apiGroups?.includes(group) &&
          r.resources.includes(resource!) &&
          r.verbs.includes(verb) &&
          (!r.resourceNames || (name !== undefined && r.resourceNames.includes(name))),
      );
      expect(allowed, `${q.method} ${q.path}`).toBe(true);
    }
  });

  it('Ctrl-C ends a run stuck on a hanging API server at once', async () => {
    const bin = join(import.meta.dirname, '..', 'bin/meshdoctor.js');
    if (!existsSync(join(import.meta.dirname, '..', 'dist/cli.js'))) return; // npm test builds first
    server.faults.push({ match: () => true, delayMs: Infinity });
    try {
      // Timeouts of an hour: only Ctrl-C can end this run (else the test's own timeout fails it).
      const child = spawn(
        process.execPath,
        [bin, 'check', '-A', '--kubeconfig', kubeconfig, '-o', 'json', '--timeout', '1h', '--request-timeout', '1h'],
        { stdio: 'pipe' },
      );
      const exited = new Promise<number | null>((r) => child.on('exit', (c, sig) => r(c ?? (sig ? 130 : null))));
      // Requests in flight (counted by the server, not guessed by a sleep): the run is stuck on them.
      const before = server.requests.length;
      await until(() => server.requests.length > before, 15_000, 'a request in flight');
      child.kill('SIGINT');
      const code = await exited;
      expect(code).not.toBe(0);
    } finally {
      server.faults.length = 0;
    }
  });

  it('a user who may read only one namespace: every check that can run runs, the rest say what was refused', async () => {
    // Everything but the namespaced lists of shop is forbidden, as with a namespaced Role.
    server.faults.push({
      match: (q) =>
        !q.path.startsWith('/api/v1/namespaces/shop/') && !/^\/apis\/[^/]+\/v1\/namespaces\/shop\//.test(q.path),
      status: 403,
    });
    try {
      const r = await runCli(['check', '-n', 'shop', '--kubeconfig', kubeconfig, '-o', 'json']);
      expect(r.stderr).toBe('');
      // Not an all-clear: exit 3 (incomplete), the human report says what was not examined and how to allow it.
      expect(r.code).toBe(3);
      const human = await runCli(['check', '-n', 'shop', '--kubeconfig', kubeconfig, '-o', 'table']);
      expect(human.code).toBe(3);
      expect(human.stdout).not.toContain('No findings');
      expect(human.stdout).toMatch(/INCOMPLETE: \d+ of \d+ checks could not run/);
      expect(human.stdout).toContain('cannot read namespaces: forbidden');
      expect(human.stdout).toMatch(
        /kubectl create clusterrole meshdoctor-reader-[0-9a-f]{8} --verb=get,list --resource=clusterrolebindings.rbac.authorization.k8s.io,clusterroles.rbac.authorization.k8s.io,mutatingwebhookconfigurations.admissionregistration.k8s.io,namespaces,nodes/,
      );
      const report = JSON.parse(r.stdout);
      expect(report.coverage.complete).toBe(false);
      expect(report.skipped.length).toBeGreaterThan(5);
      for (const s of report.skipped)
        expect(s.reason).toMatch(/cannot read (namespaces|mutatingwebhookconfigurations|configmaps|secrets)/);
      // Nothing "missing" is reported from what could not be seen.
      expect(report.findings.map((f: any) => f.id)).not.toContain('webhook-missing');
      expect(report.findings.map((f: any) => f.id)).not.toContain('serviceaccount-missing');
    } finally {
      server.faults.length = 0;
    }
  });

  it('a server certificate for another host (tls-server-name mismatch): one line, exit 2', async () => {
    const wrongHost = join(tmp, 'wrong-host.yaml');
    writeFileSync(
      wrongHost,
      readFileSync(kubeconfig, 'utf8').replace(
        /( +)server: (\S+)/,
        '$1server: $2\n$1tls-server-name: api.other-cluster.example',
      ),
    );
    const r = await runCli(['check', '-A', '--kubeconfig', wrongHost, '-o', 'json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^meshdoctor: cannot reach the API server at .*(altnames|Hostname\/IP does not match)/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('an unreachable server with -n or no scope (the API server pods read too): one "cannot reach" line, exit 2, no internal error', async () => {
    // issue 35 item 7: the reads of /version and /metrics, started beside the kube-system pods, were
    // left unawaited when that list failed; their aborted retry sleep reached unhandledRejection.
    if (!existsSync(join(import.meta.dirname, '..', 'dist/cli.js'))) return; // npm test builds first
    const dead = join(tmp, 'dead-scoped.yaml');
    writeFileSync(
      dead,
      `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
    );
    const bin = join(import.meta.dirname, '..', 'bin/meshdoctor.js');
    for (const scope of [[], ['-n', 'default'], ['-n', 'shop', '-o', 'json']]) {
      const child = spawn(process.execPath, [bin, 'check', '--kubeconfig', dead, ...scope], { stdio: 'pipe' });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
      expect(stderr).toMatch(/^meshdoctor: cannot reach the API server at https:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/);
      expect(stderr).not.toMatch(/internal error/);
      expect(stderr.trim().split('\n'), stderr).toHaveLength(1);
      expect(stdout).toBe('');
      expect(code).toBe(2);
    }
  });

  it('an unreachable server, an unknown context, a broken kubeconfig: one line, exit 2', async () => {
    const dead = join(tmp, 'dead.yaml');
    writeFileSync(
      dead,
      `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
    );
    const broken = join(tmp, 'broken.yaml');
    writeFileSync(broken, 'clusters: [\n');
    for (const [args, msg] of [
      [['--kubeconfig', dead], /cannot reach the API server/],
      [['--kubeconfig', kubeconfig, '--context', 'nope'], /context "nope" not found in kubeconfig \(contexts: fake\)/],
      [['--kubeconfig', broken], /kubeconfig/],
    ] as const) {
      const r = await runCli(['check', '-A', ...args, '-o', 'json', '--request-timeout', '3']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(msg);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
