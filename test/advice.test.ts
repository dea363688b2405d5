/**
 * Advice that is safe to paste (issue 13), four rules:
 * 1. one mesh per namespace and workload: never advise markers that make two meshes inject the
 *    same pods; the mesh comes from evidence (--mesh, the template's markers, the meshes the
 *    namespace's workloads run, the namespace's markers), else the user chooses, in comments;
 * 2. restarts name the workloads whose pods lack the proxy, never a whole kind;
 * 3. proxy resources set requests and limits, and a quota with no room for them is raised by
 *    exactly what is missing;
 * 4. `check -f`: a workload (or Namespace, ResourceQuota) from the manifests is fixed in its file
 *    and document, not patched in the cluster, and never restarted.
 */
import { render } from '../src/fix/render.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recreateAll } from '../src/fix/commands.js';

const renderedRecreateAll = (ws: Parameters<typeof recreateAll>[0]) => render(recreateAll(ws));
import { chooseMesh } from '../src/facts/choice.js';
import { overlayManifests } from '../src/run/manifests.js';
import { Model, type Workload } from '../src/facts/model.js';
import { HOSTILE, hostile as hostileNames, runInBash } from './helpers/bash.js';
import { choiceCommand, commandsOf, expectPastesExactly } from './helpers/paste.js';
import { isComment } from '../src/util/shell.js';
import type { K8sObject } from '../src/util/types.js';
import type { Finding } from '../src/run/result.js';
import type { Snapshot } from '../src/k8s/snapshot.js';
import { runCli } from './helpers/cli.js';
import {
  FIXTURES,
  NOW,
  baseObjects,
  cluster,
  findings,
  fixtureObjects,
  ids,
  overlay,
  parseObjects,
  snapshotFrom,
  type Base,
} from './helpers/fixtures.js';

const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-advice-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const F = (check: string, file: string) => `checks/${check}/${file}`;
const only = (namespace: string) => ({ allNamespaces: false, namespace });
const byName = (fs: Finding[], id: string, name: string) => {
  const f = fs.find((x) => x.id === id && x.resource.name === name);
  if (!f) throw new Error(`no ${id} finding for ${name} in ${ids(fs).join(', ')}`);
  return f;
};
const write = (name: string, text: string) => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};
/** A snapshot file of the base cluster (plus overlays), for `check --snapshot`. */
const snapshotFile = (name: string, base: Base, ...layers: K8sObject[][]) =>
  write(name, JSON.stringify({ kind: 'List', items: overlay(baseObjects(base), ...layers) }));
const json = async (args: string[], stdin?: string) => {
  const r = await runCli([...args, '-o', 'json'], stdin === undefined ? {} : { stdin });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as { findings: Finding[] };
};

// --- running fix lines in bash, every command stubbed (as test/fix-safety.test.ts does) ---------

const runLines = runInBash;

/** The commands of one choice in a choice block, without their `# to mesh it with X: ` prefix. */
const choiceOf = (fix: string[], mesh: 'Linkerd' | 'Istio') =>
  fix
    .filter((l) => l.startsWith(`# to mesh it with ${mesh}: `))
    .map((l) => l.slice(`# to mesh it with ${mesh}: `.length));

describe('1. one mesh per namespace: never advise both', () => {
  const run = (snap: Snapshot, checks: string[], mesh?: 'linkerd' | 'istio') =>
    findings(snap, checks, mesh ? { mesh } : {});

  it('check -n legacy, both meshes installed, nothing to choose by: one finding, the choice as comments only', () => {
    const fs = run(cluster('both', [], only('legacy')), ['namespace-not-enabled']);
    expect(ids(fs)).toEqual(['namespace-not-enabled Namespace legacy']);
    const [f] = fs;
    expect(f!.message).toBe(
      'Namespace legacy has no injection marker, so 1 workload runs without a proxy; Linkerd and Istio are both installed and nothing shows which one it should use: choose one, never both.',
    );
    expect(f!.evidence.meshChoice).toEqual({ mesh: null, chooseFrom: ['linkerd', 'istio'] });
    expect(f!.fix).toEqual([
      '# choose one mesh for namespace legacy, never both, as two proxies in one pod clash: run the commands of one choice below. Pasted as it is, this block runs nothing',
      '# to mesh it with Linkerd: kubectl annotate namespace legacy linkerd.io/inject=enabled --overwrite',
      '# to mesh it with Linkerd: kubectl rollout restart deployment/billing -n legacy',
      '# to mesh it with Istio: kubectl label namespace legacy istio-injection=enabled --overwrite',
      '# to mesh it with Istio: kubectl rollout restart deployment/billing -n legacy',
    ]);
    // Pasting the whole block runs nothing; each choice, copied from behind its prefix, runs exactly its commands.
    expect(runLines(f!.fix).calls).toEqual([]);
    expect(runLines(choiceOf(f!.fix, 'Linkerd')).calls).toEqual([
      ['kubectl', 'annotate', 'namespace', 'legacy', 'linkerd.io/inject=enabled', '--overwrite'],
      ['kubectl', 'rollout', 'restart', 'deployment/billing', '-n', 'legacy'],
    ]);
    expect(runLines(choiceOf(f!.fix, 'Istio')).calls[0]).toEqual([
      'kubectl',
      'label',
      'namespace',
      'legacy',
      'istio-injection=enabled',
      '--overwrite',
    ]);
  });

  it('--mesh decides; with one mesh installed there is nothing to choose (near misses)', () => {
    const linkerd = [
      'kubectl annotate namespace legacy linkerd.io/inject=enabled --overwrite',
      'kubectl rollout restart deployment/billing -n legacy',
    ];
    const [chosen] = run(cluster('both', [], only('legacy')), ['namespace-not-enabled'], 'linkerd');
    expect(chosen).toMatchObject({
      mesh: 'linkerd',
      fix: linkerd,
      message: 'Namespace legacy has no Linkerd injection marker, so 1 workload runs without a proxy.',
    });
    const [alone] = run(cluster('linkerd', [], only('legacy')), ['namespace-not-enabled']);
    expect(alone).toMatchObject({ mesh: 'linkerd', fix: linkerd });
    expect(alone!.evidence.meshChoice).toBeUndefined();
  });

  it("the meshes the namespace runs decide (tools runs Istio), then the templates' markers (a reports template asks Istio)", () => {
    const snap = (scope?: ReturnType<typeof only>) =>
      cluster('both', [F('namespace-not-enabled', 'fires-both-evidence.yaml')], scope);
    const [tools] = run(snap(), ['namespace-not-enabled']);
    expect(tools).toMatchObject({
      mesh: 'istio',
      resource: { kind: 'Namespace', name: 'tools' },
      evidence: {
        meshChoice: { mesh: 'istio', decidedBy: '1 workload in namespace tools runs the Istio proxy' },
        meshedWorkloads: ['Deployment/metrics'],
      },
      fix: [
        'kubectl label namespace tools istio-injection=enabled --overwrite',
        'kubectl rollout restart deployment/exporter -n tools',
      ],
    });
    const [reports] = run(snap(only('reports')), ['namespace-not-enabled']);
    expect(reports).toMatchObject({
      mesh: 'istio',
      evidence: {
        meshChoice: {
          mesh: 'istio',
          decidedBy: 'Deployment reports/render has pod template annotation sidecar.istio.io/inject=true',
        },
      },
      // One restart per kind, naming each workload without a proxy.
      fix: [
        'kubectl label namespace reports istio-injection=enabled --overwrite',
        'kubectl rollout restart deployment/pdf deployment/render -n reports',
        'kubectl rollout restart statefulset/cache -n reports',
      ],
    });
  });

  it('the evidence order: --mesh, then the templates, then the meshed pods, then the namespace markers', () => {
    const yaml = (nsLabels: string, template: string, meshedPod: boolean) => `
apiVersion: v1
kind: Namespace
metadata: {name: ord, labels: {kubernetes.io/metadata.name: ord${nsLabels}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: a, namespace: ord, uid: dep-ord-a}
spec: {selector: {matchLabels: {app: a}}, template: {metadata: {labels: {app: a}${template}}, spec: {containers: [{name: a, image: a}]}}}
${
  meshedPod
    ? `---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: ord}
spec: {containers: [{name: b, image: b}, {name: istio-proxy, image: docker.io/istio/proxyv2:1.22.0}]}
status: {phase: Running}`
    : ''
}`;
    const choose = (y: string, mesh: 'auto' | 'linkerd' | 'istio' = 'auto') => {
      const m = new Model({ snapshot: cluster('both', [y]), now: NOW, options: { certExpiryWarningDays: 60, mesh } });
      const w = m.workloads.find((x) => x.namespace === 'ord' && x.name === 'a')!;
      return chooseMesh(m, 'ord', [w], ['linkerd', 'istio']);
    };
    // Namespace markers (present, even disabled) decide last.
    expect(choose(yaml(', istio-injection: disabled', '', false))).toEqual({
      mesh: 'istio',
      by: 'namespace ord has label istio-injection=disabled',
      candidates: ['linkerd', 'istio'],
    });
    // Meshed pods beat the namespace's markers.
    expect(choose(yaml(', linkerd.io/inject: "x"', '', true)).mesh).toBe('istio');
    // The template's marker (a Linkerd annotation with a wrong value is Linkerd) beats the meshed pods.
    expect(choose(yaml('', ', annotations: {linkerd.io/inject: enable}', true))).toMatchObject({
      mesh: 'linkerd',
      by: 'Deployment ord/a has pod template annotation linkerd.io/inject=enable',
    });
    // An opt-out names no mesh to use.
    expect(choose(yaml('', ', annotations: {linkerd.io/inject: disabled}', false)).mesh).toBeUndefined();
    // --mesh beats everything.
    expect(choose(yaml('', ', annotations: {linkerd.io/inject: enable}', true), 'istio')).toMatchObject({
      mesh: 'istio',
      by: '--mesh istio',
    });
    // Nothing: undecided.
    expect(choose(yaml('', '', false))).toEqual({ candidates: ['linkerd', 'istio'] });
  });

  describe('injection-marker-invalid: correcting a marker never asks a second mesh', () => {
    const snap = (mesh?: 'linkerd') =>
      run(
        cluster('both', [F('injection-marker-invalid', 'fires-both-meshes.yaml')]),
        ['injection-marker-invalid'],
        mesh,
      );

    it('a namespace whose workloads run Istio: its invalid Linkerd marker is removed, not corrected', () => {
      const f = byName(snap(), 'injection-marker-invalid', 'mixedmarks');
      expect(f.message).toMatch(
        /Istio is the mesh here \(1 workload in namespace mixedmarks runs the Istio proxy\), so the fix removes this marker rather than correct it\.$/,
      );
      expect(f.fix).toEqual(['kubectl annotate namespace mixedmarks linkerd.io/inject-']);
    });

    it('--mesh linkerd: the Linkerd marker is corrected and the Istio label removed first (never both at once)', () => {
      expect(byName(snap('linkerd'), 'injection-marker-invalid', 'mixedmarks').fix).toEqual([
        'kubectl label namespace mixedmarks istio-injection-',
        'kubectl annotate namespace mixedmarks linkerd.io/inject=enabled --overwrite',
        'kubectl rollout restart deployment/web -n mixedmarks',
      ]);
    });

    it('a template asking Linkerd with a wrong value in an Istio namespace: corrected, and opted out of Istio first', () => {
      const f = byName(snap(), 'injection-marker-invalid', 'ledger');
      expect(f.evidence.meshChoice).toEqual({
        mesh: 'linkerd',
        decidedBy: 'Deployment vault/ledger has pod template annotation linkerd.io/inject=yes',
      });
      expect(f.fix).toEqual([
        `kubectl patch deployment/ledger -n vault --type=merge -p '{"spec":{"template":{"metadata":{"labels":{"sidecar.istio.io/inject":"false"}}}}}'`,
        `kubectl patch deployment/ledger -n vault --type=merge -p '{"spec":{"template":{"metadata":{"annotations":{"linkerd.io/inject":"enabled"}}}}}'`,
      ]);
    });

    it('a namespace asking both with values neither accepts: each finding is the choice, as comments', () => {
      const fs = snap().filter((f) => f.resource.name === 'dual');
      expect(fs.map((f) => f.mesh).sort()).toEqual(['istio', 'linkerd']);
      const header =
        '# choose one mesh for namespace dual, never both, as two proxies in one pod clash: run the commands of one choice below. Pasted as it is, this block runs nothing';
      expect(fs.find((f) => f.mesh === 'linkerd')!.fix).toEqual([
        header,
        '# to mesh it with Linkerd: kubectl annotate namespace dual linkerd.io/inject=enabled --overwrite',
        '# to mesh it with Linkerd: kubectl rollout restart deployment/worker -n dual',
        '# to mesh it with Istio: kubectl annotate namespace dual linkerd.io/inject-',
      ]);
      expect(fs.find((f) => f.mesh === 'istio')!.fix).toEqual([
        header,
        '# to mesh it with Linkerd: kubectl label namespace dual istio-injection-',
        '# to mesh it with Istio: kubectl label namespace dual istio-injection=enabled --overwrite',
        '# to mesh it with Istio: kubectl rollout restart deployment/worker -n dual',
      ]);
      for (const f of fs) expect(runLines(f.fix).calls).toEqual([]);
    });

    it('one mesh installed: the plain correction (near miss)', () => {
      const [f] = findings(cluster('linkerd', [F('injection-marker-invalid', 'fires-linkerd-namespace.yaml')]), [
        'injection-marker-invalid',
      ]);
      expect(f!.fix.every((l) => !l.startsWith('#'))).toBe(true);
      expect(f!.evidence.meshChoice).toBeUndefined();
    });
  });

  it('webhook-excludes-namespace: a namespace asking both meshes, each excluded', () => {
    const fs = run(cluster('both', [F('webhook-excludes-namespace', 'fires-both-meshes.yaml')]), [
      'webhook-excludes-namespace',
    ]);
    expect(ids(fs).sort()).toEqual([
      'webhook-excludes-namespace Namespace edge',
      'webhook-excludes-namespace Namespace edge',
      'webhook-excludes-namespace Namespace relay',
    ]);
    // relay: a workload runs linkerd-proxy, so Linkerd's finding alone; the restart names the workload without a proxy only.
    expect(byName(fs, 'webhook-excludes-namespace', 'relay')).toMatchObject({
      mesh: 'linkerd',
      fix: [
        'kubectl label namespace relay config.linkerd.io/admission-webhooks-',
        'kubectl rollout restart deployment/sink -n relay',
      ],
    });
    const edge = fs.filter((f) => f.resource.name === 'edge');
    expect(edge.find((f) => f.mesh === 'istio')!.fix.slice(1)).toEqual([
      '# to mesh it with Istio: kubectl label namespace edge istio.io/rev=default --overwrite',
      '# to mesh it with Istio: kubectl rollout restart deployment/gw -n edge',
    ]);
    expect(edge.find((f) => f.mesh === 'linkerd')!.fix.slice(1)).toEqual([
      '# to mesh it with Linkerd: kubectl label namespace edge config.linkerd.io/admission-webhooks-',
      '# to mesh it with Linkerd: kubectl rollout restart deployment/gw -n edge',
    ]);
    for (const f of edge)
      expect(f.fix[0]).toBe(
        '# choose one mesh for namespace edge, never both, as two proxies in one pod clash: run the commands of one choice below. Pasted as it is, this block runs nothing',
      );
  });

  it('pod-opted-out: an opt-out that keeps a pod to one mesh is not reported; opted out of both, the evidence picks one', () => {
    const fs = run(cluster('both', [F('pod-opted-out', 'fires-both-meshes.yaml')]), ['pod-opted-out']);
    expect(ids(fs)).toEqual(['pod-opted-out Deployment twin/batch']);
    expect(fs[0]).toMatchObject({
      mesh: 'linkerd',
      evidence: { meshChoice: { mesh: 'linkerd', decidedBy: '1 workload in namespace twin runs the Linkerd proxy' } },
      fix: [
        `kubectl patch deployment/batch -n twin --type=json -p '[{"op":"remove","path":"/spec/template/metadata/annotations/linkerd.io~1inject"}]'`,
      ],
    });
  });

  it('a namespace whose valid markers ask both meshes: injection-marker-invalid keeps one (the evidence) or asks to choose; restarts are not advised into it', () => {
    const [twin] = run(cluster('both', [F('pod-opted-out', 'fires-both-meshes.yaml')]), ['injection-marker-invalid']);
    expect(twin).toMatchObject({
      mesh: 'linkerd',
      resource: { kind: 'Namespace', name: 'twin' },
      message:
        'Namespace twin asks both Linkerd (annotation linkerd.io/inject=enabled) and Istio (label istio-injection=enabled) to inject its pods, so every new pod in it is sent to both injectors; Linkerd is the mesh here (1 workload in namespace twin runs the Linkerd proxy), so the fix removes the Istio marker (running pods keep their proxy until re-created).',
      fix: ['kubectl label namespace twin istio-injection-'],
    });
    const pair = `
apiVersion: v1
kind: Namespace
metadata: {name: pair, labels: {kubernetes.io/metadata.name: pair, istio-injection: enabled, istio.io/rev: default}, annotations: {linkerd.io/inject: enabled}}
---
apiVersion: v1
kind: Pod
metadata: {name: solo, namespace: pair}
spec: {containers: [{name: solo, image: solo}]}
status: {phase: Running}
`;
    const fs = run(cluster('both', [pair]), ['injection-marker-invalid', 'sidecar-missing', 'pod-predates-enablement']);
    expect(ids(fs)).toEqual(['injection-marker-invalid Namespace pair']);
    expect(fs[0]!.fix).toEqual([
      '# choose one mesh for namespace pair, never both, as two proxies in one pod clash: run the commands of one choice below. Pasted as it is, this block runs nothing',
      // Both Istio labels go: without istio-injection, istio.io/rev would select a webhook.
      '# to mesh it with Linkerd: kubectl label namespace pair istio-injection- istio.io/rev-',
      '# to mesh it with Istio: kubectl annotate namespace pair linkerd.io/inject-',
    ]);
    // Near miss: one mesh installed, its marker alone counts.
    expect(findings(cluster('linkerd', [pair]), ['injection-marker-invalid'])).toEqual([]);
  });

  describe('will-not-be-meshed (check -f --expect-meshed) is about the mesh the template asks for', () => {
    const snap = snapshotFile('both.json', 'both');
    const linkerdSnap = snapshotFile('linkerd.json', 'linkerd');
    const app = (annotations: string) =>
      write(
        `web-${annotations.length}.yaml`,
        `apiVersion: v1
kind: ServiceAccount
metadata: {name: web, namespace: legacy}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: legacy}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {${annotations}}}
    spec: {serviceAccountName: web, containers: [{name: web, image: example/web:1}]}
`,
      );

    it('a Linkerd annotation with a wrong value: the Linkerd finding first, about the invalid value, fixed in the file', async () => {
      const file = app('linkerd.io/inject: enable');
      const r = await json(['check', '--snapshot', snap, '-f', file, '--expect-meshed']);
      // One root cause, one finding (src/run/fold.ts): the invalid value, with the outcome folded in.
      expect(r.findings.map((f) => `${f.id} ${f.mesh}`)).toEqual(['injection-marker-invalid linkerd']);
      const line = `# in ${file}, document 2, Deployment legacy/web: under spec.template.metadata.annotations set linkerd.io/inject: 'enabled'`;
      expect(r.findings[0]).toMatchObject({
        evidence: { marker: 'pod template annotation linkerd.io/inject=enable' },
        source: { file, document: 2 },
        fix: [line],
        also: [
          {
            id: 'will-not-be-meshed',
            message:
              'Deployment legacy/web will not be meshed: its pod template annotation linkerd.io/inject=enable asks Linkerd for injection, but Linkerd ignores it (expected pod template annotation linkerd.io/inject=enabled).',
          },
        ],
      });
    });

    it('a plain template: both meshes installed, nothing to choose by: the choice; one mesh installed: its marker', async () => {
      const file = app('');
      const [both] = (await json(['check', '--snapshot', snap, '-f', file, '--expect-meshed'])).findings;
      expect(both!.fix).toEqual([
        '# choose one mesh for Deployment legacy/web, never both, as two proxies in one pod clash: run the commands of one choice below. Pasted as it is, this block runs nothing',
        '# to mesh it with Linkerd: kubectl annotate namespace legacy linkerd.io/inject=enabled --overwrite',
        '# to mesh it with Istio: kubectl label namespace legacy istio-injection=enabled --overwrite',
      ]);
      const [one] = (await json(['check', '--snapshot', linkerdSnap, '-f', file, '--expect-meshed'])).findings;
      expect(one!.fix).toEqual(['kubectl annotate namespace legacy linkerd.io/inject=enabled --overwrite']);
    });
  });
});

describe('2. restarts name only the workloads whose pods lack the proxy', () => {
  const w = (kind: string, namespace: string, name: string, extra: Partial<Workload> = {}): Workload => ({
    ref: { kind, namespace, name },
    kind,
    namespace,
    name,
    template: {},
    templatePath: '/spec/template',
    pods: [{ metadata: { name: `${name}-1` }, status: { phase: 'Running' } }],
    ...extra,
  });

  it('one rollout restart per kind and namespace, naming each workload; Jobs and pods re-created by name; manifest workloads not at all', () => {
    expect(
      renderedRecreateAll([
        w('Deployment', 'shop', 'a'),
        w('StatefulSet', 'shop', 'db'),
        w('Deployment', 'shop', 'b'),
        w('Deployment', 'shop', 'a'),
        w('Deployment', 'orders', 'c'),
        w('Pod', 'shop', 'debug', { templatePath: '' }),
        w('Deployment', 'shop', 'new', { manifest: { file: 'app.yaml', document: 1 } }),
        w('CronJob', 'shop', 'nightly'),
      ]),
    ).toEqual([
      'kubectl rollout restart deployment/a deployment/b -n shop',
      'kubectl rollout restart statefulset/db -n shop',
      'kubectl rollout restart deployment/c -n orders',
      'kubectl get pod debug -n shop -o yaml > debug.yaml',
      'kubectl replace --force -f debug.yaml',
    ]);
  });

  it('namespace-not-enabled restarts the unmeshed workloads only, not the meshed ones beside them', () => {
    const [f] = findings(cluster('linkerd', [F('namespace-not-enabled', 'mixed-linkerd.yaml')]), [
      'namespace-not-enabled',
    ]);
    expect(f!.fix).toEqual([
      'kubectl annotate namespace orders linkerd.io/inject=enabled --overwrite',
      'kubectl rollout restart deployment/invoices -n orders',
    ]);
  });

  it('no fix of any fixture restarts a whole kind', () => {
    const files = readdirSync(join(FIXTURES, 'checks')).flatMap((c) =>
      readdirSync(join(FIXTURES, 'checks', c)).map((f) => F(c, f)),
    );
    const unnamed: string[] = [];
    for (const file of files) {
      for (const base of ['linkerd', 'istio', 'both'] as const) {
        for (const f of findings(cluster(base, [file]))) {
          // src/mesh/certs.ts (the trust-anchor rotation) restarts the control plane's Deployments: reported, not owned here.
          if (f.id.startsWith('identity-cert-')) continue;
          for (const line of f.fix)
            if (
              /rollout restart (deployments?|deploy|statefulsets?|daemonsets?|sts|ds)( |$)/.test(
                line.replace(/^# to mesh it with \w+: /, ''),
              )
            )
              unnamed.push(`${file} ${f.id}: ${line}`);
        }
      }
    }
    expect(unnamed).toEqual([]);
  }, 900_000); // ends a hang only: every fixture over three bases, 120 s failed it at load 28 (round 11)
});

describe('3. quota fixes that fit', () => {
  const run = (snap: Snapshot) => findings(snap, ['quota-blocks-proxy']);
  const annotate = (ns: string, name: string, a: Record<string, string>) =>
    `kubectl patch deployment/${name} -n ${ns} --type=merge -p '${JSON.stringify({ spec: { template: { metadata: { annotations: a } } } })}'`;
  const LINKERD_DEFAULTS = {
    'config.linkerd.io/proxy-cpu-request': '100m',
    'config.linkerd.io/proxy-memory-request': '20Mi',
    'config.linkerd.io/proxy-cpu-limit': '1',
    'config.linkerd.io/proxy-memory-limit': '250Mi',
  };

  it('requests and limits, sized to the defaults; they fit the room left, so no quota change (near miss)', () => {
    const [f] = run(cluster('linkerd', [F('quota-blocks-proxy', 'fires-linkerd-must-specify.yaml')], only('ledger')));
    expect(f!.fix).toEqual([
      annotate('ledger', 'api', LINKERD_DEFAULTS),
      '# or: set the same annotations on the namespace, for all its workloads, and restart them',
    ]);
    expect(f!.evidence).toMatchObject({
      hard: { 'limits.cpu': '4', 'limits.memory': '8Gi' },
      used: { 'limits.cpu': '0', 'limits.memory': '0' },
      demand: {
        pod: { 'limits.cpu': '1500m', 'limits.memory': '762Mi' },
        proxy: { 'limits.cpu': '1', 'limits.memory': '250Mi' },
      },
      exceeded: [],
    });
  });

  it('when one more pod with those values does not fit, the message says so and the quota is raised by exactly what is missing, first', () => {
    const [f] = run(cluster('linkerd', [F('quota-blocks-proxy', 'fires-linkerd-no-room.yaml')], only('books')));
    expect(f!.message).toBe(
      'Deployment books/shelf cannot create pods: ResourceQuota compute requires limits.cpu, limits.memory on every container, which the injected linkerd-init and linkerd-proxy do not set; with the proxy resources the fix sets, one more pod still does not fit: limits.cpu needs 1500m (1 for the proxy) but 1 is left, so the fix raises the quota too.',
    );
    expect(f!.evidence).toMatchObject({
      hard: { 'limits.cpu': '2', 'limits.memory': '4Gi' },
      used: { 'limits.cpu': '1', 'limits.memory': '1Gi' },
      remaining: { 'limits.cpu': '1', 'limits.memory': '3Gi' },
      demand: { pod: { 'limits.cpu': '1500m', 'limits.memory': '762Mi' } },
      exceeded: ['limits.cpu'],
      proposed: LINKERD_DEFAULTS,
    });
    // hard = used + needed: 1 + 1500m.
    expect(f!.fix).toEqual([
      `kubectl patch resourcequota compute -n books --type=merge -p '{"spec":{"hard":{"limits.cpu":"2500m"}}}'`,
      annotate('books', 'shelf', LINKERD_DEFAULTS),
      '# or: set the same annotations on the namespace, for all its workloads, and restart them',
    ]);
  });

  it('a limit set already is kept, and the request suggested never exceeds it', () => {
    const yaml = readFileSync(
      join(FIXTURES, F('quota-blocks-proxy', 'fires-linkerd-must-specify.yaml')),
      'utf8',
    ).replace(
      'metadata: {labels: {app: api}}',
      'metadata: {labels: {app: api}, annotations: {config.linkerd.io/proxy-cpu-limit: 50m}}',
    );
    const [f] = run(cluster('linkerd', [yaml], only('ledger')));
    expect(f!.fix[0]).toBe(
      annotate('ledger', 'api', {
        'config.linkerd.io/proxy-cpu-request': '50m',
        'config.linkerd.io/proxy-memory-request': '20Mi',
        'config.linkerd.io/proxy-cpu-limit': '50m',
        'config.linkerd.io/proxy-memory-limit': '250Mi',
      }),
    );
  });

  it('Istio: all four annotations, its defaults for the values not set', () => {
    const [f] = run(cluster('istio', [F('quota-blocks-proxy', 'fires-istio-partial-annotation.yaml')]));
    expect(f!.fix).toEqual([
      `kubectl patch deployment/ledger -n payments --type=merge -p '{"spec":{"template":{"metadata":{"annotations":{"sidecar.istio.io/proxyCPU":"250m","sidecar.istio.io/proxyMemory":"128Mi","sidecar.istio.io/proxyCPULimit":"2","sidecar.istio.io/proxyMemoryLimit":"1Gi"}}}}}'`,
    ]);
    expect(f!.evidence).toMatchObject({
      used: { 'limits.memory': '1Gi' },
      demand: { pod: { 'limits.memory': '2Gi' } },
      exceeded: [],
    });
  });

  it("check -f: the workload's annotations go in its file; a quota in the manifests too", async () => {
    const objects = fixtureObjects(F('quota-blocks-proxy', 'fires-linkerd-no-room.yaml'));
    const snap = snapshotFile(
      'books.json',
      'linkerd',
      objects.filter((o) => o.kind !== 'Deployment'),
    );
    const deployment = JSON.stringify(objects.find((o) => o.kind === 'Deployment'));
    const file = write(
      'shelf.yaml',
      `apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: default, namespace: books}\n---\n${deployment}\n`,
    );
    const where = `# in ${file}, document 2, Deployment books/shelf:`;
    const annotations = [
      `${where} under spec.template.metadata.annotations set:`,
      "#   config.linkerd.io/proxy-cpu-request: '100m'",
      "#   config.linkerd.io/proxy-memory-request: '20Mi'",
      "#   config.linkerd.io/proxy-cpu-limit: '1'",
      "#   config.linkerd.io/proxy-memory-limit: '250Mi'",
    ];
    const [f] = (await json(['check', '--snapshot', snap, '-f', file])).findings;
    expect(f!.fix).toEqual([
      `kubectl patch resourcequota compute -n books --type=merge -p '{"spec":{"hard":{"limits.cpu":"2500m"}}}'`,
      ...annotations,
      '# or: set the same annotations on the namespace, for all its workloads, and restart them',
    ]);
    const quota = JSON.stringify(objects.find((o) => o.kind === 'ResourceQuota'));
    const both = write('shelf-quota.yaml', `# the quota too\n${quota}\n---\n${readFileSync(file, 'utf8')}`);
    const [g] = (await json(['check', '--snapshot', snap, '-f', both])).findings;
    expect(g!.fix.slice(0, 2)).toEqual([
      `# in ${both}, document 1, ResourceQuota books/compute: under spec.hard set limits.cpu: '2500m'`,
      `# in ${both}, document 3, Deployment books/shelf: under spec.template.metadata.annotations set:`,
    ]);
  });
});

describe('4. check -f: findings about the manifests fix the manifests', () => {
  const LINKERD = join(FIXTURES, 'healthy/linkerd.yaml');

  it('Helm output on stdin: remove the opt-out from document 4, no kubectl patch', async () => {
    const r = await json(
      ['check', '--snapshot', LINKERD, '-n', 'shop', '-f', '-'],
      readFileSync(join(FIXTURES, 'manifests/helm-shop.yaml'), 'utf8'),
    );
    expect(r.findings.map((f) => [f.id, f.fix])).toEqual([
      [
        'pod-opted-out',
        [
          '# in stdin, document 4, Deployment shop/worker: under spec.template.metadata.annotations remove linkerd.io/inject',
        ],
      ],
    ]);
  });

  it('a Namespace in the manifests is fixed there; the cluster workloads it holds are still restarted by name', async () => {
    const file = write(
      'legacy-ns.yaml',
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: legacy, annotations: {linkerd.io/inject: "yes"}}\n',
    );
    const r = await json(['check', '--snapshot', LINKERD, '-f', file]);
    expect(r.findings.map((f) => [f.id, f.resource.name, f.fix])).toEqual([
      [
        'injection-marker-invalid',
        'legacy',
        [
          `# in ${file}, document 1, Namespace legacy: under metadata.annotations set linkerd.io/inject: 'enabled'`,
          'kubectl rollout restart deployment/billing -n legacy',
        ],
      ],
    ]);
  });

  it('a CronJob, a bare Pod and a Job from the manifests: the paths of their templates, no re-creation', async () => {
    const file = write(
      'kinds.yaml',
      `apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: legacy, annotations: {linkerd.io/inject: enabled}}
spec:
  schedule: "0 1 * * *"
  jobTemplate:
    metadata: {annotations: {linkerd.io/inject: enabled}}
    spec: {template: {metadata: {}, spec: {restartPolicy: Never, containers: [{name: n, image: n}]}}}
---
apiVersion: v1
kind: Pod
metadata: {name: debug, namespace: shop, annotations: {linkerd.io/inject: disabled}}
spec: {containers: [{name: sh, image: busybox}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: once, namespace: legacy}
spec: {template: {metadata: {labels: {linkerd.io/inject: enabled}}, spec: {restartPolicy: Never, containers: [{name: o, image: o}]}}}
`,
    );
    const r = await json(['check', '--snapshot', LINKERD, '-f', file]);
    const fix = (name: string, id: string) => r.findings.find((f) => f.resource.name === name && f.id === id)?.fix;
    const at = (doc: number, what: string) => `# in ${file}, document ${doc}, ${what}:`;
    expect(fix('nightly', 'injection-marker-invalid')).toEqual([
      `${at(1, 'CronJob legacy/nightly')} under spec.jobTemplate.spec.template.metadata.annotations set linkerd.io/inject: 'enabled'`,
      `${at(1, 'CronJob legacy/nightly')} under metadata.annotations remove linkerd.io/inject`,
    ]);
    expect(fix('debug', 'pod-opted-out')).toEqual([
      `${at(2, 'Pod shop/debug')} under metadata.annotations remove linkerd.io/inject`,
    ]);
    expect(fix('once', 'injection-marker-invalid')).toEqual([
      `${at(3, 'Job legacy/once')} under spec.template.metadata.annotations set linkerd.io/inject: 'enabled'`,
      `${at(3, 'Job legacy/once')} under spec.template.metadata.labels remove linkerd.io/inject`,
    ]);
  });

  it('a pod spec field and a pod label: automountServiceAccountToken, an objectSelector label', async () => {
    const token = fixtureObjects(F('serviceaccount-missing', 'fires-linkerd-token.yaml'));
    const snap = snapshotFile(
      'token.json',
      'linkerd',
      token.filter((o) => o.kind !== 'Deployment'),
    );
    const file = write(
      'audit.yaml',
      token
        .filter((o) => o.metadata?.name === 'audit')
        .map((o) => JSON.stringify(o))
        .join('\n---\n'),
    );
    const [audit] = (await json(['check', '--snapshot', snap, '-f', file])).findings;
    expect(audit!.fix).toEqual([
      `# in ${file}, document 1, Deployment shop/audit: under spec.template.spec set automountServiceAccountToken: true`,
    ]);

    const selector = fixtureObjects(F('webhook-excludes-namespace', 'fires-linkerd-object-selector.yaml'));
    const snap2 = snapshotFile(
      'selector.json',
      'linkerd',
      selector.filter((o) => o.kind === 'MutatingWebhookConfiguration'),
    );
    const file2 = write(
      'gateway.yaml',
      JSON.stringify(selector.find((o) => o.kind === 'Deployment' && o.metadata?.name === 'gateway')),
    );
    const [gw] = (await json(['check', '--snapshot', snap2, '-f', file2])).findings;
    expect(gw).toMatchObject({
      id: 'webhook-excludes-namespace',
      fix: [
        `# in ${file2}, document 1, Deployment shop/gateway: under spec.template.metadata.labels remove example.com/no-mesh`,
      ],
    });
  });

  it('every fixture as manifests: no fix patches, annotates, labels or restarts an object that comes from the manifests', () => {
    const files = readdirSync(join(FIXTURES, 'checks')).flatMap((c) =>
      readdirSync(join(FIXTURES, 'checks', c)).map((f) => F(c, f)),
    );
    const bad: string[] = [];
    let manifestLines = 0;
    for (const file of files) {
      const base: Base = file.includes('ambient')
        ? 'istio-ambient'
        : file.includes('istio')
          ? 'istio'
          : file.includes('linkerd')
            ? 'linkerd'
            : 'both';
      // What a manifest holds: not what controllers create (owned pods, ReplicaSets, Jobs) nor Events.
      const objects = fixtureObjects(file)
        .map((obj, i) => ({ obj, source: { file, document: i + 1 } }))
        .filter(
          ({ obj }) =>
            obj.kind !== 'Event' &&
            !(Array.isArray(obj.metadata?.ownerReferences) && obj.metadata.ownerReferences.length),
        );
      let snap: Snapshot;
      try {
        snap = overlayManifests(cluster(base), { files: [file], objects }, 'default');
      } catch {
        continue; // a fixture naming a namespace only the other base has
      }
      // The ways a kubectl fix names an object: kind/name -n ns, pod|job|resourcequota|serviceaccount name -n ns, namespace ns.
      const names = (snap.manifests ?? []).flatMap(({ ref }) =>
        ref.kind === 'Namespace'
          ? [`namespace ${ref.name} `]
          : [
              `${ref.kind.toLowerCase()}/${ref.name} -n ${ref.namespace}`,
              `${ref.kind.toLowerCase()} ${ref.name} -n ${ref.namespace}`,
            ],
      );
      for (const f of findings(snap)) {
        for (const line of f.fix) {
          if (line.startsWith('# in ')) manifestLines++;
          if (line.startsWith('#')) continue;
          // Reading an object changes nothing: only lines that change it count.
          if (/^kubectl (?:describe|logs|get) /.test(line)) continue;
          if (names.some((n) => line.includes(n))) bad.push(`${file} ${f.id}: ${line}`);
        }
      }
    }
    expect(bad).toEqual([]);
    expect(manifestLines).toBeGreaterThan(10);
  });
});

describe('the new fix lines with hostile names stay one line and quote every value', () => {
  /** Hostile variants of the names of the both-mesh fixtures (the first three of helpers/bash.ts). */
  /** Hostile variants of the names of the both-mesh fixtures: shell syntax, a leading-dash word, and one with a newline (its lines are withheld). */
  const hostile = (objects: K8sObject[]) => hostileNames(objects, [HOSTILE[1]!, HOSTILE[5]!, HOSTILE[3]!, HOSTILE[0]!]);
  const PREFIX = /^# to mesh it with \w+: /;

  it.each([
    ['namespace-not-enabled', 'fires-both-evidence.yaml'],
    ['injection-marker-invalid', 'fires-both-meshes.yaml'],
    ['webhook-excludes-namespace', 'fires-both-meshes.yaml'],
    ['pod-opted-out', 'fires-both-meshes.yaml'],
  ])(
    '%s/%s on both meshes: every command, and every choice behind its comment, runs only what it names',
    (check, file) => {
      const { objects, values } = hostile(
        overlay(
          baseObjects('both'),
          fixtureObjects(F(check, file)),
          parseObjects('apiVersion: v1\nkind: Namespace\nmetadata: {name: legacy}\n'),
        ),
      );
      const fs = findings(snapshotFrom(objects));
      const lines = fs.flatMap((f) => f.fix);
      // The block as it is, then each choice copied from behind its prefix (a command quoted whole there, unquoted).
      const choices = lines.map((l) => choiceCommand(l, PREFIX)).filter((c): c is string => c !== undefined);
      expectPastesExactly(lines);
      expectPastesExactly(choices);
      for (const cmd of [...lines, ...choices].filter((l) => !isComment(l)))
        for (const v of values) {
          const start = v.slice(v.indexOf('⟨'), v.indexOf('|') + 1);
          for (const a of commandsOf(cmd)
            .flat()
            .filter((x) => x.includes(start)))
            expect(a, cmd).toContain(v);
        }
      expect(fs.length).toBeGreaterThan(0);
      if (check !== 'pod-opted-out' && check !== 'namespace-not-enabled')
        expect(choices.filter((c) => !isComment(c)).length).toBeGreaterThan(0);
    },
  );

  it('manifest edits with a hostile file name and object names stay one comment line', () => {
    const name = 'web\n$(touch PWNED)\u001b]52;c;x\u0007';
    const yaml = `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${JSON.stringify(name)}, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {linkerd.io/inject: disabled}}
    spec: {containers: [{name: web, image: web}]}
`;
    const objects = parseObjects(yaml).map((obj) => ({ obj, source: { file: 'ev\nil\u001b[2J.yaml', document: 1 } }));
    const snap = overlayManifests(cluster('linkerd'), { files: ['ev\nil\u001b[2J.yaml'], objects }, 'default');
    const [f] = findings(snap, ['pod-opted-out']);
    expect(f!.fix).toEqual([
      "# in 'ev\\nil\\x1b[2J.yaml', document 1, Deployment 'shop/web\\n$(touch PWNED)\\x1b]52;c;x\\x07': under spec.template.metadata.annotations remove linkerd.io/inject",
    ]);
    expectPastesExactly(f!.fix);
  });
});
