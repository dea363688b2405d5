/**
 * Hostile input, round 3 (issue 36, classes 7-13): each `describe` is one class of input, tested as
 * a class (every path that input takes), not as the one instance that was reported.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/index.js';
import { POD_SECURITY_ENFORCE, enforcedLevel } from '../src/k8s/admission.js';
import { ClusterRoles, roleAllows } from '../src/k8s/rbac.js';
import type { K8sObject } from '../src/util/types.js';
import { REPORTERS } from '../src/report/index.js';
import { runChecks } from '../src/run/run.js';
import { hasControl, printable } from '../src/util/errors.js';
import { fixLineProblem, guardFix, note, shq } from '../src/util/shell.js';
import { ndjsonLine } from '../src/watch/transitions.js';
import { FIXTURES, NOW, baseObjects, overlay, parseObjects, snapshotFrom } from './helpers/fixtures.js';
import { startApiServer } from './apiserver/server.js';
import { runCli } from './helpers/cli.js';
import { APISERVER_SH_FOUND, startKubeApiServerEarly, type KubeApiServer } from './helpers/kube-apiserver.js';
import { expectPastesExactly } from './helpers/paste.js';

const ROOT = join(import.meta.dirname, '..');
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-hostile-input-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
// The real kube-apiserver of class 10 starts while classes 7-12 run (a minute of tests before it).
const kube = APISERVER_SH_FOUND ? startKubeApiServerEarly() : undefined;
afterAll(() => kube?.stop());

/** The real entry point (run(): process.stdin, process.exit codes) in a child process under tsx. */
const ENTRY = join(tmp, 'entry.mjs');
writeFileSync(ENTRY, `import(${JSON.stringify(join(ROOT, 'src/cli.ts'))}).then((c) => c.run());\n`);

interface Spawned {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The CLI with a stdin pipe this test keeps open (as `kubectl get -w |` or an inherited pipe
 * does), after writing `input` to it. `killAfter` only ends a hang: the assertions are on what the
 * CLI did by itself.
 */
function withOpenStdin(args: string[], input: string, killAfter = 20_000): Promise<Spawned> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, ...args], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.on('error', () => {}); // the CLI may close its end first
    child.stdin.write(input);
    const kill = setTimeout(() => child.kill('SIGKILL'), killAfter);
    child.on('close', (code) => {
      clearTimeout(kill);
      child.stdin.destroy();
      resolve({ code, stdout, stderr });
    });
  });
}

describe('class 7: a stdin that stays open ends at --timeout', () => {
  const half = '{"apiVersion":"v1","kind":"List","items":[';
  const cases: [string, string[], string][] = [
    ['check --snapshot - (nothing written)', ['check', '--snapshot', '-'], ''],
    ['check --snapshot - (half a document)', ['check', '--snapshot', '-'], half],
    ['check -f - (nothing written)', ['check', '-f', '-'], ''],
    [
      'check -f - with --snapshot FILE',
      ['check', '-f', '-', '--snapshot', join(FIXTURES, 'healthy/linkerd.yaml')],
      half,
    ],
    ['explain --snapshot -', ['explain', 'deployment/web', '--snapshot', '-'], ''],
  ];
  it.each(cases)('%s: exit 2 and one line at the deadline', async (_, args, input) => {
    const r = await withOpenStdin([...args, '--timeout', '2'], input);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('meshdoctor: reading stdin took longer than the --timeout of 2s\n');
  });
});

/**
 * Invisible characters (Unicode Cf and the separators): the bidi embeddings, overrides and isolates
 * of Trojan Source (CVE-2021-42574), zero-width characters, the BOM, the Arabic letter mark, the
 * Mongolian vowel separator, the soft hyphen, tags, word joiners, U+2028/U+2029.
 */
const INVISIBLE = [
  ...'\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069',
  ...'\u200b\u200c\u200d\u200e\u200f\u2028\u2029\ufeff\u061c\u180e\u00ad\u2060\u2064\u0600\ufff9',
  '\u{e0001}',
  '\u{e0020}',
  '\u{e0041}',
  '\u{e007f}',
];
const RAW_INVISIBLE = /[\p{Cf}\p{Zl}\p{Zp}\p{Cc}]/u;

describe('class 8: invisible and bidi characters in cluster text never reach a pasteable or displayed line', () => {
  it('every one of them is a control character to the fix-line guard, and shows escaped', () => {
    for (const c of INVISIBLE) {
      expect(hasControl(`web${c}x`), JSON.stringify(c)).toBe(true);
      expect(printable(`web${c}x`)).not.toMatch(RAW_INVISIBLE);
      const line = guardFix(`kubectl rollout restart -n shop ${shq(`deployment/web${c}x`)}`);
      expect(line).toMatch(/^# fix withheld: a control character in 'deployment\/web\\[ux]/);
      expect(line).not.toMatch(RAW_INVISIBLE);
      expect(fixLineProblem(`kubectl get ${shq(`web${c}x`)}`)).toBe('control');
      expect(note(`web${c}x`)).not.toMatch(RAW_INVISIBLE);
    }
  });

  /** Pods of shop, an injected namespace, running without a proxy: each finding's fix names them and their controller. */
  const pods = (podName: string, owner: string, kind: string) =>
    parseObjects(`
apiVersion: v1
kind: Pod
metadata:
  name: ${JSON.stringify(podName)}
  namespace: shop
  labels: {app: odd}
  ownerReferences: [{apiVersion: apps/v1, kind: ${JSON.stringify(kind)}, name: ${JSON.stringify(owner)}, uid: u1, controller: true}]
spec: {containers: [{name: app, image: app}]}
status: {phase: Running}
`);
  const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
  const hidden = fc
    .tuple(word, fc.array(fc.constantFrom(...INVISIBLE), { minLength: 1, maxLength: 3 }), word)
    .map(([a, cs, b]) => `${a}${cs.join('')}${b}`);
  const FORMATS = Object.keys(REPORTERS);

  it('property: in every format (table, wide, json, yaml, sarif, junit, markdown) and the watch NDJSON, no output holds one raw', () => {
    expect(FORMATS).toEqual(expect.arrayContaining(['table', 'wide', 'json', 'yaml', 'sarif', 'junit', 'markdown']));
    fc.assert(
      fc.property(
        hidden,
        hidden,
        fc.constantFrom('ReplicaSet', 'Rollout', 'StatefulSet'),
        fc.boolean(),
        (podName, owner, kind, plainPod) => {
          const objects = overlay(baseObjects('linkerd'), pods(plainPod ? 'odd-1' : podName, owner, kind));
          const result = runChecks(snapshotFrom(objects), CHECKS, {
            mesh: 'auto',
            certExpiryWarningDays: 60,
            now: NOW,
          });
          const fix = result.findings.flatMap((f) => f.fix);
          expect(fix.length).toBeGreaterThan(0);
          for (const line of fix) expect(line, JSON.stringify(line)).not.toMatch(RAW_INVISIBLE);
          expectPastesExactly(fix);
          // The value at fault is named, escaped, where a command was withheld.
          if (!plainPod) expect(fix.some((l) => l.startsWith('# fix withheld'))).toBe(true);
          for (const format of FORMATS) {
            const out = REPORTERS[format]!(result, { version: 'test', color: format === 'table' });
            // markdown writes U+200B itself (after @, # and :// so that GitHub links nothing): never inside a fence.
            const shown = format === 'markdown' ? out.replace(/(?<=[@#!:])\u200b/g, '') : out;
            expect(shown, format).not.toMatch(/[\p{Cf}\p{Zl}\p{Zp}]/u);
          }
          for (const f of result.findings) expect(ndjsonLine('opened', f, NOW).slice(0, -1)).not.toMatch(RAW_INVISIBLE);
          // The JSON and YAML reports keep the exact value, escaped.
          const json = JSON.parse(REPORTERS.json!(result, { version: 'test', color: false }));
          expect(JSON.stringify(json)).toContain(JSON.stringify(owner).slice(1, -1));
        },
      ),
      { numRuns: 40, seed: 20261129 },
    );
  });
});

describe('class 8: completion candidates (bash, and zsh through bashcompinit)', () => {
  it('a context name holding an invisible character is never offered, in a UTF-8 or the C locale; other non-ASCII names are', async () => {
    const script = join(tmp, 'completion.bash');
    writeFileSync(script, (await runCli(['completion', 'bash'])).stdout);
    const names = ['prod', 'jos\u00e9', '\u7528\u6237', ...INVISIBLE.map((c) => `web${c}x`)];
    for (const lang of ['C.UTF-8', 'C']) {
      const r = spawnSync(
        'bash',
        [
          '--norc',
          '--noprofile',
          '-c',
          `source "$1"; _meshdoctor_reply "$2" '' ''; printf '%s\\0' "\${COMPREPLY[@]}"`,
          'x',
          script,
          names.join('\n'),
        ],
        { encoding: 'utf8', env: { PATH: process.env.PATH, LANG: lang, LC_ALL: lang } },
      );
      expect(r.stderr).toBe('');
      const got = r.stdout.split('\0').slice(0, -1);
      if (lang === 'C') expect(got[0]).toBe('prod');
      else expect(got).toEqual(['prod', 'jos\u00e9', '\u7528\u6237']);
      expect(got.join('')).not.toMatch(/web/);
    }
  });
});

describe('class 9: ClusterRoles that aggregate each other', () => {
  /** n ClusterRoles, each aggregating every role labelled ring=true (all of them), each with one rule of its own. */
  const ring = (n: number): K8sObject[] =>
    Array.from({ length: n }, (_, i) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: `ring-${String(i).padStart(4, '0')}`, labels: { ring: 'true' } },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { ring: 'true' } }] },
      rules: [{ apiGroups: [''], resources: [`r${i}`], verbs: ['get'] }],
    }));

  it.each([16, 1000])('%i mutually aggregating roles: each gets every rule once, in time', (n) => {
    const roles = new ClusterRoles(ring(n));
    for (const r of ring(n)) {
      const rules = roles.rules(r.metadata!.name!);
      expect(rules).toHaveLength(n);
      expect(new Set(rules.map((x) => JSON.stringify(x))).size).toBe(n);
    }
    expect(roleAllows(roles, 'ring-0000', { verb: 'get', group: '', resource: `r${n - 1}` })).toBe(true);
    expect(roleAllows(roles, 'ring-0000', { verb: 'list', group: '', resource: 'r0' })).toBe(false);
  });

  it('as the controller: a chain and a cycle, rules de-duplicated, a role selecting nothing keeps its own, a missing role grants nothing', () => {
    const role = (name: string, labels: Record<string, string>, rules: unknown[], select?: Record<string, string>) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name, labels },
      ...(select ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: select }] } } : {}),
      rules,
    });
    const get = (resource: string) => ({ apiGroups: [''], resources: [resource], verbs: ['get'] });
    const roles = new ClusterRoles([
      role('view', { tier: 'top' }, [], { 'agg-view': 'true' }),
      role('a', { 'agg-view': 'true' }, [get('pods')], { 'agg-a': 'true' }),
      role('b', { 'agg-a': 'true', 'agg-view': 'true' }, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]),
      role('c', { 'agg-a': 'true' }, [get('services')], { 'agg-view': 'true' }),
      role('plain', {}, [get('nodes')]),
    ]);
    // b's rule is a's (keys in another order): once. a and c select each other: one component.
    expect(roles.rules('a')).toEqual([get('pods'), get('services')]);
    expect(roles.rules('c')).toEqual(roles.rules('a'));
    expect(roles.rules('view')).toEqual([get('pods'), get('services')]);
    expect(roles.rules('plain')).toEqual([get('nodes')]);
    expect(roles.rules('gone')).toEqual([]);
  });

  it.each([16, 1000])(
    'injector-rbac-missing reads through them: %i aggregating roles, the one bound granting all through the last',
    (n) => {
      const binding = {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'ring' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'ring-0000' },
        subjects: [{ kind: 'ServiceAccount', name: 'linkerd-proxy-injector', namespace: 'linkerd' }],
      };
      // Only the last role of the ring grants everything: ring-0000, bound, has it through aggregation.
      const roles = ring(n);
      roles[n - 1]!.rules = [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }];
      const objects = overlay(baseObjects('linkerd'), [...roles, binding]);
      const result = runChecks(snapshotFrom(objects), CHECKS, { mesh: 'auto', certExpiryWarningDays: 60, now: NOW });
      expect(result.errors).toEqual([]);
      expect(result.findings.map((f) => f.id)).toEqual([]);
    },
  );
});

describe('class 12: a Pod Security label that is not a level', () => {
  it.each([
    ['Baseline', 'restricted'],
    ['privilege', 'restricted'],
    ['', 'restricted'],
    ['true', 'restricted'],
    ['restricted', 'restricted'],
    ['baseline', 'baseline'],
    ['privileged', 'privileged'],
  ])('enforce=%j is enforced as %s, as Pod Security admission reads it', (value, level) => {
    const got = enforcedLevel({ [POD_SECURITY_ENFORCE]: value });
    expect(got?.level).toBe(level);
    expect(got?.invalid).toBe(['privileged', 'baseline', 'restricted'].includes(value) ? undefined : value);
  });

  it('no label: the cluster default decides (not read), nothing is claimed', () => {
    expect(enforcedLevel({})).toBeUndefined();
    expect(enforcedLevel(undefined)).toBeUndefined();
  });

  it('the finding names the value and the level it is enforced as', () => {
    const objects = overlay(
      baseObjects('istio'),
      parseObjects(
        readFileSync(join(FIXTURES, 'checks/pod-security-blocks-init/fires-istio-invalid-level.yaml'), 'utf8'),
      ),
    );
    const [f] = runChecks(snapshotFrom(objects), CHECKS, {
      mesh: 'auto',
      certExpiryWarningDays: 60,
      now: NOW,
    }).findings.filter((x) => x.id === 'pod-security-blocks-init');
    expect(f!.message).toContain(
      'Namespace store enforces Pod Security "restricted" (its label pod-security.kubernetes.io/enforce="Baseline" is not a level',
    );
    expect(f!.evidence).toMatchObject({ enforce: 'restricted', enforceLabel: 'Baseline' });
  });
});

describe('class 11: the demo takes over no namespace it did not create', () => {
  /** demo/apply.mjs against a kubectl stand-in whose cluster has these namespaces; what it ran. */
  function applyDemo(namespaces: { name: string; demo?: boolean }[]) {
    const dir = mkdtempSync(join(tmp, 'kubectl-'));
    const list = {
      kind: 'List',
      items: namespaces.map((n) => ({
        metadata: { name: n.name, ...(n.demo ? { annotations: { 'meshdoctor.io/demo': 'true' } } : {}) },
      })),
    };
    writeFileSync(join(dir, 'namespaces.json'), JSON.stringify(list));
    writeFileSync(
      join(dir, 'kubectl'),
      `#!/bin/sh\nprintf '%s\\n' "$*" >> "${dir}/ran"\ncase "$*" in *"get namespaces"*) cat "${dir}/namespaces.json" ;; *"get mutatingwebhookconfigurations"*) echo '{"items":[]}' ;; *apply*) cat > /dev/null; echo '{"kind":"List","items":[]}' ;; esac\n`,
      { mode: 0o755 },
    );
    const r = spawnSync(process.execPath, [join(ROOT, 'demo/apply.mjs'), '--context', 'prod'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${dir}:${process.env.PATH}` },
      timeout: 60_000,
    });
    const ran = (() => {
      try {
        return readFileSync(join(dir, 'ran'), 'utf8').trim().split('\n');
      } catch {
        return [];
      }
    })();
    return { code: r.status, stderr: r.stderr, applied: ran.filter((l) => l.includes('apply')) };
  }
  const SYSTEM = ['default', 'kube-system', 'kube-public', 'kube-node-lease'].map((name) => ({ name }));

  it("a cluster running Rancher's local-path-provisioner (kind's local-path-storage): refused, nothing applied", () => {
    const r = applyDemo([...SYSTEM, { name: 'local-path-storage' }]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      "demo/apply.mjs: namespace local-path-storage exists and is not the demo's: load the demo into a cluster you can throw away (kind create cluster --name meshdoctor-demo; kind's own local-path-storage must be deleted there first)",
    );
    expect(r.applied).toEqual([]);
  });

  it.each(['orders', 'linkerd', 'istio-system', 'canary'])(
    'an existing %s without the demo annotation: refused',
    (ns) => {
      const r = applyDemo([...SYSTEM, { name: ns }]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`namespace ${ns} exists and is not the demo's`);
      expect(r.applied).toEqual([]);
    },
  );

  it("every namespace of the demo is marked as the demo's, so loading it again is not refused; other namespaces do not matter", () => {
    const ours = new Set<string>();
    for (const d of readFileSync(join(ROOT, 'demo/manifests/1-objects.yaml'), 'utf8').split(/^---$/m)) {
      const o = parseObjects(d)[0];
      if (
        o?.kind === 'Namespace' &&
        !['default', 'kube-system', 'kube-public', 'kube-node-lease'].includes(o.metadata!.name!)
      ) {
        expect(o.metadata?.annotations?.['meshdoctor.io/demo'], o.metadata!.name).toBe('true');
        ours.add(o.metadata!.name!);
      }
    }
    expect(ours).toContain('local-path-storage');
    const r = applyDemo([...SYSTEM, { name: 'prod' }, ...[...ours].map((name) => ({ name, demo: true }))]);
    expect(r.stderr).not.toMatch(/is not the demo's/);
    expect(r.applied.length).toBeGreaterThan(0);
  });
});

describe('class 10: --as with a name beyond ASCII is sent as kubectl sends it (UTF-8)', () => {
  const NAMES = ['josé', '用户', 'Zoë Ünal', 'user-😀'];

  it('the stand-in API server receives the UTF-8 bytes of --as, --as-group and --as-uid', async () => {
    const server = await startApiServer({ objects: baseObjects('linkerd') });
    try {
      const kubeconfig = await server.writeKubeconfig(tmp, { namespace: 'shop' });
      for (const name of NAMES) {
        server.requests.length = 0;
        const r = await runCli([
          'check',
          '-A',
          '--kubeconfig',
          kubeconfig,
          '--as',
          name,
          '--as-group',
          `g-${name}`,
          '--as-uid',
          `u-${name}`,
          '-o',
          'json',
        ]);
        expect(r.stderr).toBe('');
        expect(JSON.parse(r.stdout).source.user).toBe(name);
        expect(server.requests.length).toBeGreaterThan(5);
        // Node's server reads header bytes as latin-1: back to bytes, they are the name's UTF-8.
        const utf8 = (v: unknown) => Buffer.from(String(v), 'latin1').toString('utf8');
        for (const q of server.requests) {
          expect(utf8(q.headers['impersonate-user'])).toBe(name);
          expect(utf8(q.headers['impersonate-group'])).toBe(`g-${name}`);
          expect(utf8(q.headers['impersonate-uid'])).toBe(`u-${name}`);
        }
      }
    } finally {
      await server.close();
    }
  });

  it('a control character in --as is refused in one line, as kubectl refuses it', async () => {
    const server = await startApiServer({ objects: baseObjects('linkerd') });
    try {
      const kubeconfig = await server.writeKubeconfig(tmp, { namespace: 'shop' });
      const r = await runCli(['check', '-A', '--kubeconfig', kubeconfig, '--as', 'eve\r\nX-Evil: 1']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--as "eve\\r\\nX-Evil: 1" holds a control character, which no HTTP header can carry');
      expect(r.stderr.split('\n')).toHaveLength(2);
      expect(r.stderr).not.toMatch(/internal error/);
    } finally {
      await server.close();
    }
  });

  describe.skipIf(!APISERVER_SH_FOUND)('against a real kube-apiserver (../shared/k8s/apiserver.sh)', () => {
    let k: KubeApiServer;
    beforeAll(async () => {
      k = await kube!.get();
      // Each user may list namespaces (a ClusterRoleBinding naming it), nothing else.
      await k.admin.create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'list-namespaces' },
        rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list'] }],
      });
      for (const [i, name] of NAMES.entries())
        await k.admin.create({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: `list-namespaces-${i}` },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'list-namespaces' },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name }],
        });
    }, 120_000);
    afterAll(async () => {
      await k?.stop();
    });

    it.each(NAMES)(
      '--as %s: the impersonated user reads what its binding grants, and is refused the rest by its name',
      async (name) => {
        const r = await runCli(['check', '-A', '--kubeconfig', k.kubeconfig, '--as', name, '-o', 'json']);
        expect(r.stderr).toBe('');
        const report = JSON.parse(r.stdout);
        const unavailable: { kind: string; reason: string }[] = report.coverage.unavailable;
        // Namespaces were read (the binding for exactly this name matched) ...
        expect(unavailable.map((u) => u.kind)).not.toContain('namespaces');
        // ... and pods refused to the user the API server decoded: this very name.
        const pods = unavailable.find((u) => u.kind === 'pods');
        expect(pods?.reason).toContain(`User "${name}" cannot list resource "pods"`);
      },
    );
  });
});
