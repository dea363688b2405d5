/**
 * Snapshot redaction (docs/snapshot.md): `slim` drops what no check reads and what may hold
 * secrets (env values, command lines, last-applied-configuration, unread ConfigMap data, ...).
 * The proof that no check sees a difference: on every fixture, in every view (-A, each -n, each
 * --mesh, check -f --expect-meshed), the run over the raw objects and the run over the slimmed
 * objects give the same result (findings with their evidence and fixes, suppressions, coverage),
 * and `explain` says the same of every workload. Then: a file with planted secrets loaded and
 * saved as `meshdoctor snapshot` does holds none of them, and random secrets planted in fields no
 * check reads neither change a run nor survive slimming.
 */
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/index.js';
import { kindOf } from '../src/k8s/kinds.js';
import { loadSnapshot } from '../src/run/read.js';
import { REDACTED, TEMPLATE_PATH } from '../src/cluster/sanitize.js';
import { keepObject, slim } from '../src/mesh/keep.js';
import { snapshotText } from '../src/cluster/snapshot-file.js';
import { explain } from '../src/run/explain.js';
import { overlayManifests } from '../src/run/manifests.js';
import { makeModel, runChecks } from '../src/run/run.js';
import type { K8sObject } from '../src/util/types.js';
import type { MeshName } from '../src/mesh/names.js';
import type { Snapshot } from '../src/k8s/snapshot.js';
import {
  FIXTURES,
  NOW,
  baseObjects,
  baseOf,
  besideOf,
  fixtureObjects,
  overlay,
  snapshotFrom,
  type Base,
} from './helpers/fixtures.js';
import { sharedRun } from './helpers/shared-runs.js';

type Obj = Record<string, any>;

/** The snapshot `load` builds from these objects, slimmed as every object read is (and the Events no check reads dropped). */
function slimmed(snap: Snapshot): Snapshot {
  const objects: Snapshot['objects'] = {};
  for (const [key, list] of Object.entries(snap.objects))
    objects[key as keyof Snapshot['objects']] =
      key === 'secrets'
        ? list
        : list!.flatMap((o): K8sObject[] => {
            const k = keepObject(key, structuredClone(o));
            return k ? [k] : [];
          });
  return { ...snap, objects };
}

interface View {
  name: string;
  snap: Snapshot;
  mesh?: MeshName;
  expectMeshed?: boolean;
  now?: Date;
  warnDays?: number;
  /** Also `explain` every workload (in the main view only: it is the slow part). */
  explain?: boolean;
  /** A view other files run too (a raw -n view): its run read back when one did (test/helpers/shared-runs.ts). */
  shared?: boolean;
}

const opts = (v: View) => ({
  mesh: v.mesh ?? ('auto' as const),
  certExpiryWarningDays: v.warnDays ?? 60,
  now: v.now ?? NOW,
  expectMeshed: !!v.expectMeshed,
});

/** Everything a run tells: the result, and `explain` of every workload (or its error). */
function outcome(v: View) {
  const model = makeModel(v.snap, opts(v));
  const result = v.shared && !v.explain ? sharedRun(v.snap, opts(v)) : runChecks(v.snap, CHECKS, opts(v), model);
  const explained = (v.explain ? model.workloads : []).map((w) => {
    try {
      return explain(model, { kind: w.kind, name: w.name }, w.namespace, result.findings);
    } catch (e) {
      return String(e);
    }
  });
  return { result, explained };
}

/**
 * expect(actual).toEqual(expected), with node's strict deep equality first: where that holds,
 * toEqual does too (it is looser: undefined properties, classes), and it is several times faster
 * on results of this size; where it does not, toEqual decides and shows the difference.
 */
function same(actual: unknown, expected: unknown, name: string): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual, name).toEqual(expected);
}

/**
 * The views of one cluster: all namespaces, each namespace that has pods (of those in `only`:
 * a fixture's own; the healthy bases are run in all of theirs), each mesh alone, and
 * two clocks for the certificate checks: after every fixture certificate expired (2036), and a
 * warning window wide enough for all of them to be expiring.
 */
function views(name: string, snap: Snapshot, expectMeshed?: boolean, only?: Set<string>): View[] {
  const namespaces = [
    ...new Set(
      (snap.objects.pods ?? [])
        .map((p) => p.metadata?.namespace)
        .filter((n): n is string => !!n && (!only || only.has(n))),
    ),
  ].sort();
  return [
    { name, snap, explain: true },
    ...namespaces.map((ns) => ({
      name: `${name} [-n ${ns}]`,
      snap: { ...snap, scope: { allNamespaces: false, namespace: ns } },
    })),
    { name: `${name} [--mesh linkerd]`, snap, mesh: 'linkerd' as const },
    { name: `${name} [--mesh istio]`, snap, mesh: 'istio' as const },
    { name: `${name} [--mesh kuma]`, snap, mesh: 'kuma' as const },
    { name: `${name} [--mesh consul]`, snap, mesh: 'consul' as const },
    { name: `${name} [now 2037]`, snap, now: new Date('2037-06-01T00:00:00Z') },
    { name: `${name} [--cert-expiry-warning 36500]`, snap, warnDays: 36500 },
  ].map((v) => ({ ...v, expectMeshed }));
}

/** Every fixture file under test/fixtures (YAML objects), relative to it. */
function fixtureFiles(dir = ''): string[] {
  return readdirSync(join(FIXTURES, dir), { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) =>
      e.isDirectory() ? fixtureFiles(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : [],
    );
}

/** Every fixture as a cluster: over its base and over both meshes; manifests also as `check -f`. */
interface Case {
  name: string;
  raw: Snapshot;
  slim: Snapshot;
  expectMeshed?: boolean;
  /** The namespaces to run -n in (all when undefined). */
  namespaces?: Set<string>;
}

/**
 * The cases by name, each built when its test runs: the test files of a worker share its heap
 * (vitest.config.ts, `isolate: false`), and every case's snapshots built up front stayed in it
 * (about 350 MB) for every file the worker ran after this one.
 */
function cases(): { name: string; build: () => Case }[] {
  const out: { name: string; build: () => Case }[] = [];
  // Parsed once: snapshotFrom and overlayManifests copy what they keep.
  const bases = new Map<Base, K8sObject[]>();
  const parsed = (b: Base) => bases.get(b) ?? bases.set(b, baseObjects(b)).get(b)!;
  // Whether a fixture applies over a base is tried on one snapshot of the base (overlayManifests
  // copies what it changes), not a fresh copy per fixture; dropped once the cases are listed.
  const probes = new Map<Base, Snapshot>();
  const probe = (b: Base) => probes.get(b) ?? probes.set(b, snapshotFrom(parsed(b))).get(b)!;
  const add = (name: string, objects: () => K8sObject[], namespaces?: Set<string>) =>
    out.push({
      name,
      build: () => {
        const raw = snapshotFrom(objects());
        return { name, raw, slim: slimmed(raw), ...(namespaces ? { namespaces } : {}) };
      },
    });
  for (const file of fixtureFiles()) {
    if (file.startsWith('healthy/')) add(file, () => fixtureObjects(file));
    else if (file === 'golden-cluster.yaml') add(file, () => fixtureObjects(file));
    else {
      const own = new Set(fixtureObjects(file).map((o) => o.metadata?.namespace ?? 'default'));
      for (const base of new Set([baseOf(file), besideOf(file)])) {
        add(`${file} over ${base}`, () => overlay(parsed(base), fixtureObjects(file)), own);
        // check -f FILE --expect-meshed: the manifests over the cluster, as read (slimmed or not).
        const m = () => ({
          files: [file],
          objects: fixtureObjects(file).map((obj, i) => ({ obj, source: { file, document: i + 1 } })),
        });
        const name = `check -f ${file} over ${base}`;
        const build = (): Case => ({
          name,
          raw: overlayManifests(snapshotFrom(parsed(base)), m(), 'default'),
          slim: overlayManifests(slimmed(snapshotFrom(parsed(base))), m(), 'default'),
          expectMeshed: true,
          namespaces: own,
        });
        try {
          overlayManifests(probe(base), m(), 'default');
          out.push({ name, build });
        } catch {
          // a fixture whose namespace the base lacks cannot be applied
        }
      }
    }
  }
  // The demo snapshot (README examples), as saved before slimming.
  add('demo/cluster.json', () => {
    const demo = JSON.parse(readFileSync(join(FIXTURES, '..', '..', 'demo', 'cluster.json'), 'utf8'));
    return Object.values(demo.objects as Record<string, K8sObject[]>).flat();
  });
  probes.clear();
  return out;
}

const CASES = cases();

describe('slimming changes no check', () => {
  it('covers every fixture (and each case below shows that slimming really drops something)', () => {
    const files = fixtureFiles();
    expect(files.length).toBeGreaterThan(80);
    for (const f of files) expect(CASES.some((c) => c.name === f || c.name.startsWith(`${f} over `))).toBe(true);
  });

  for (const spec of CASES) {
    it(spec.name, () => {
      const c = spec.build();
      expect(JSON.stringify(c.slim.objects), 'slimming dropped nothing').not.toBe(JSON.stringify(c.raw.objects));
      // The raw -n views are partial-read's full views too: run once in this `vitest run`.
      const raws = views(c.name, c.raw, c.expectMeshed, c.namespaces).map((v) =>
        v.snap.scope.allNamespaces ? v : { ...v, shared: true },
      );
      const slims = views(c.name, c.slim, c.expectMeshed, c.namespaces);
      for (let i = 0; i < raws.length; i++) {
        const raw = outcome(raws[i]!);
        expect(raw.result.errors, raws[i]!.name).toEqual([]);
        same(outcome(slims[i]!), raw, raws[i]!.name);
      }
    });
  }

  // Fields some check reads that no fixture holds: each case also runs without the field (the
  // control), to show that the field matters there.
  const jobs = () => overlay(baseObjects('both'), fixtureObjects('checks/job-never-completes/fires-templates.yaml'));
  const istiod = (objects: K8sObject[]) =>
    objects.find((o) => o.kind === 'Deployment' && o.metadata?.name === 'istiod')!;
  const handInjected = (image?: string): K8sObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'hand-injected', namespace: 'shop', uid: 'hand-injected' },
    spec: {
      template: {
        metadata: { labels: { app: 'hand-injected' } },
        spec: {
          containers: [
            { name: 'app', image: 'example/app:1' },
            { name: 'sidecar', ...(image ? { image } : {}) },
          ],
        },
      },
    },
  });
  const EXTRAS: { name: string; objects: () => K8sObject[]; control: (objects: K8sObject[]) => K8sObject[] }[] = [
    {
      name: "istiod's ENABLE_NATIVE_SIDECARS=true (job-never-completes)",
      objects: () => {
        const objects = jobs();
        const c = (istiod(objects).spec as Obj).template.spec.containers[0];
        c.env = [...(c.env ?? []), { name: 'ENABLE_NATIVE_SIDECARS', value: 'true' }];
        return objects;
      },
      control: (objects) => ((istiod(objects).spec as Obj).template.spec.containers[0].env.pop(), objects),
    },
    {
      name: "a proxy found by its image (the injectors' sidecar-exists rule)",
      objects: () => [...baseObjects('both'), handInjected('cr.l5d.io/linkerd/proxy:stable-2.14.10')],
      control: () => [...baseObjects('both'), handInjected()],
    },
  ];
  for (const x of EXTRAS) {
    it(x.name, () => {
      const raw = snapshotFrom(x.objects());
      const control = snapshotFrom(x.control(x.objects()));
      const main = (snap: Snapshot) => outcome({ name: x.name, snap, explain: true });
      expect(main(control)).not.toEqual(main(raw));
      const raws = views(x.name, raw);
      const slims = views(x.name, slimmed(raw));
      for (let i = 0; i < raws.length; i++) same(outcome(slims[i]!), outcome(raws[i]!), raws[i]!.name);
    });
  }

  it('a snapshot file written and read back (slimmed as it streams in) gives the same findings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'meshdoctor-redaction-'));
    const named = CASES.filter((x) =>
      [
        'golden-cluster.yaml',
        'demo/cluster.json',
        'checks/job-never-completes/fires-templates.yaml over both',
      ].includes(x.name),
    );
    expect(named).toHaveLength(3);
    for (const c of named.map((x) => x.build())) {
      const file = join(dir, 'snap.json');
      writeFileSync(file, [...snapshotText(c.raw)].join(''));
      const loaded = await loadSnapshot([file]);
      const run = (s: Snapshot) => runChecks(s, CHECKS, { mesh: 'auto', certExpiryWarningDays: 60, now: NOW }).findings;
      expect(run(loaded), c.name).toEqual(run(c.raw));
      expect(loaded.objects, c.name).toEqual(c.slim.objects);
    }
  });
});

// --- planted secrets ----------------------------------------------------------------------------

const CERT = readFileSync(join(FIXTURES, 'certs', 'linkerd-injector.crt'), 'utf8');
const KEY = readFileSync(join(FIXTURES, 'certs', 'linkerd-injector.key'), 'utf8');
const b64 = (s: string) => Buffer.from(s).toString('base64');
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** A container with secrets wherever a manifest can put them. */
const leakyContainer = (name: string, extra: Obj = {}) => ({
  name,
  image: 'example/app:1',
  command: ['sh', '-c', 'app --db-password=s3cr3t-inline && curl -fsS -X POST localhost:15020/quitquitquit'],
  args: ['--token=s3cr3t-token', '--password', 's3cr3t-positional', 'postgres://u:s3cr3t-url@db'],
  env: [
    { name: 'DB_PASSWORD', value: 's3cr3t-env-value' },
    { name: 'API_KEY', valueFrom: { secretKeyRef: { name: 's3cr3t-ref-name', key: 's3cr3t-ref-key' } } },
  ],
  envFrom: [{ secretRef: { name: 's3cr3t-envfrom' } }],
  livenessProbe: {
    httpGet: { path: '/healthz', port: 8080, httpHeaders: [{ name: 'Authorization', value: 'Bearer s3cr3t-probe' }] },
  },
  lifecycle: { preStop: { exec: { command: ['sh', '-c', 'notify --key s3cr3t-hook'] } } },
  resources: { requests: { cpu: '100m', memory: '64Mi' } },
  ...extra,
});
const lastApplied = (what: string) => ({
  [LAST_APPLIED]: JSON.stringify({ data: { password: `s3cr3t-last-applied-${what}` } }),
});

const PLANTED: K8sObject[] = [
  {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'shop', labels: { 'istio-injection': 'enabled' }, annotations: lastApplied('ns') },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', uid: 'web', annotations: lastApplied('deploy') },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' }, annotations: lastApplied('template') },
        spec: {
          containers: [leakyContainer('web')],
          initContainers: [leakyContainer('migrate')],
          volumes: [{ name: 'v', csi: { driver: 'x', volumeAttributes: { token: 's3cr3t-csi' } } }],
        },
      },
    },
  },
  {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'nightly', namespace: 'shop', uid: 'nightly', annotations: lastApplied('cronjob') },
    spec: {
      schedule: '0 3 * * *',
      jobTemplate: {
        metadata: { annotations: lastApplied('jobtemplate') },
        spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [leakyContainer('job')] } } },
      },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'debug', namespace: 'shop', uid: 'debug', annotations: lastApplied('pod') },
    spec: { containers: [leakyContainer('debug')], ephemeralContainers: [leakyContainer('shell')] },
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'debug',
          ready: false,
          restartCount: 3,
          state: { waiting: { reason: 'CrashLoopBackOff', message: 's3cr3t-waiting' } },
          lastState: { terminated: { reason: 'Error', exitCode: 1, message: 'panic: s3cr3t-log-line' } },
        },
      ],
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'istiod', namespace: 'istio-system', uid: 'istiod' },
    spec: {
      template: {
        spec: {
          containers: [
            {
              name: 'discovery',
              image: 'docker.io/istio/pilot:1.24.2',
              env: [
                { name: 'ENABLE_NATIVE_SIDECARS', value: 'true' },
                { name: 'CA_KEY', value: 's3cr3t-istiod-env' },
              ],
            },
          ],
        },
      },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'app-config', namespace: 'shop', annotations: lastApplied('cm') },
    data: { password: 's3cr3t-cm' },
    binaryData: { blob: b64('s3cr3t-binary') },
  },
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'istio-sidecar-injector', namespace: 'istio-system' },
    data: { values: '{"global":{"proxy":{"resources":{}}}}', config: 'policy: enabled\n# s3cr3t-template' },
  },
  // Events: a kubelet's hook failure quotes the hook's command line; a FailedCreate quoting an env
  // value; a FailedCreate a check reads, with secrets in every field no check reads.
  {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'debug.1', namespace: 'shop' },
    involvedObject: { kind: 'Pod', namespace: 'shop', name: 'debug', fieldPath: 'spec.containers{debug}' },
    reason: 'FailedPostStartHook',
    type: 'Warning',
    message:
      'PostStartHook failed: Exec lifecycle hook ([sh -c mysql -ps3cr3t-poststart -e "select 1"]) for Container "debug" in Pod "debug" failed',
    source: { component: 'kubelet', host: 'node-1' },
    count: 1,
    lastTimestamp: '2026-11-22T11:00:00Z',
  },
  {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'web.2', namespace: 'shop' },
    involvedObject: { kind: 'ReplicaSet', namespace: 'shop', name: 'web-5d8f7c9b4' },
    reason: 'FailedCreate',
    message:
      'Error creating: pods "web-5d8f7c9b4-x" is invalid: spec.containers[0].env[0].value: Invalid value: "s3cr3t-invalid-env"',
    count: 2,
    lastTimestamp: '2026-11-22T11:00:00Z',
  },
  {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: 'web.3',
      namespace: 'shop',
      labels: { note: 's3cr3t-event-label' },
      annotations: { note: 's3cr3t-event-annotation' },
    },
    involvedObject: { kind: 'ReplicaSet', namespace: 'shop', name: 'web-5d8f7c9b4', fieldPath: 's3cr3t-field-path' },
    reason: 'FailedCreate',
    message:
      'Error creating: Internal error occurred: failed calling webhook "namespace.sidecar-injector.istio.io": failed to call webhook: Post "https://istiod.istio-system.svc:443/inject": context deadline exceeded',
    note: 's3cr3t-note',
    action: 's3cr3t-action',
    related: { kind: 'Pod', name: 's3cr3t-related' },
    source: { component: 'replicaset-controller', host: 's3cr3t-host' },
    reportingInstance: 's3cr3t-reporting',
    count: 3,
    lastTimestamp: 's3cr3t-not-a-time',
    firstTimestamp: '2026-11-22T11:00:00Z',
  },
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'istio-ca-secret', namespace: 'istio-system', annotations: lastApplied('secret') },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': b64(CERT), 'tls.key': b64(KEY), password: b64('s3cr3t-secret-data') },
  },
];

const SECRETS = [
  's3cr3t-inline',
  's3cr3t-token',
  's3cr3t-positional',
  's3cr3t-url',
  's3cr3t-env-value',
  's3cr3t-ref-name',
  's3cr3t-ref-key',
  's3cr3t-envfrom',
  's3cr3t-probe',
  's3cr3t-hook',
  's3cr3t-csi',
  's3cr3t-waiting',
  's3cr3t-log-line',
  's3cr3t-istiod-env',
  's3cr3t-cm',
  's3cr3t-template',
  's3cr3t-secret-data',
  's3cr3t-last-applied',
  's3cr3t-poststart',
  's3cr3t-invalid-env',
  's3cr3t-event-label',
  's3cr3t-event-annotation',
  's3cr3t-field-path',
  's3cr3t-note',
  's3cr3t-action',
  's3cr3t-related',
  's3cr3t-host',
  's3cr3t-reporting',
  's3cr3t-not-a-time',
  's3cr3t',
  b64('s3cr3t-binary'),
  b64('s3cr3t-secret-data'),
  b64(KEY),
  KEY.split('\n')[1]!,
];

describe('a snapshot holds none of the planted secrets', () => {
  it('loaded from a kubectl dump and written as `meshdoctor snapshot` does, then read back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'meshdoctor-redaction-'));
    const dump = join(dir, 'dump.json');
    writeFileSync(dump, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: PLANTED }));
    const text = [...snapshotText(await loadSnapshot([dump]))].join('');
    for (const s of SECRETS) expect(text, s).not.toContain(s);
    expect(text).not.toContain(LAST_APPLIED);
    expect(text).not.toContain('PRIVATE KEY');
    // What the checks need is still there.
    expect(text).toContain(JSON.stringify({ name: 'ENABLE_NATIVE_SIDECARS', value: 'true' }));
    expect(text).toContain(JSON.stringify({ name: 'DB_PASSWORD', value: REDACTED }));
    expect(text).toContain(JSON.stringify([REDACTED, REDACTED, 'quitquitquit']));
    expect(text).toContain(JSON.stringify(CERT.trim()).slice(1, 40));
    expect(text).toContain('"values":"{\\"global\\"');
    // Of the events, the one a check reads, with its message whole (webhook-call-failed quotes it).
    expect(text).toContain('failed calling webhook \\"namespace.sidecar-injector.istio.io\\"');
    expect(text).not.toContain('FailedPostStartHook');
    // Every FailedCreate is kept whole, the values it quotes of fields that may hold secrets redacted.
    expect(text).toContain(
      JSON.stringify({
        reason: 'FailedCreate',
        message: `Error creating: pods "web-5d8f7c9b4-x" is invalid: spec.containers[0].env[0].value: Invalid value: "${REDACTED}"`,
      }).slice(1, -1),
    );
    // Saved again, a snapshot is unchanged: slimming is idempotent.
    const saved = join(dir, 'snap.json');
    writeFileSync(saved, text);
    expect([...snapshotText(await loadSnapshot([saved]))].join('').split('\n').slice(1)).toEqual(
      text.split('\n').slice(1),
    );
  });
});

/** Where a kind keeps pod specs (a Pod itself, else its template, as slim() knows it). */
const TEMPLATE: Partial<Record<string, readonly string[]>> = { pods: [], ...TEMPLATE_PATH };
const keyOf = (o: K8sObject) => kindOf(o.kind)?.key ?? '';
const podLike = (o: K8sObject): Obj | undefined => {
  const path = TEMPLATE[keyOf(o)];
  let at: any = o;
  for (const p of path ?? []) at = at?.[p];
  return path && at && typeof at.spec === 'object' && at.spec ? at : undefined;
};
const containersOf = (o: K8sObject): Obj[] => {
  const spec = podLike(o)?.spec;
  return spec
    ? [...(spec.containers ?? []), ...(spec.initContainers ?? [])].filter((c: unknown) => c && typeof c === 'object')
    : [];
};

/** Every path to a string inside an object. */
function stringPaths(
  v: unknown,
  prefix: (string | number)[] = [],
  out: (string | number)[][] = [],
): (string | number)[][] {
  if (typeof v === 'string') out.push(prefix);
  else if (v && typeof v === 'object')
    for (const [k, child] of Object.entries(v)) stringPaths(child, [...prefix, Array.isArray(v) ? Number(k) : k], out);
  return out;
}
const get = (o: unknown, p: (string | number)[]) => p.reduce<any>((cur, k) => cur?.[k], o);

/**
 * Ways to plant a secret where no check reads it: new fields (env values, valueFrom, envFrom,
 * probes, last-applied, volumes, status messages, unread ConfigMap keys) and, generically, any
 * string an object already has that slimming does not keep as it is.
 */
const PLANTERS: ((o: K8sObject, secret: string, n: number) => boolean)[] = [
  (o, s) => ((o.metadata!.annotations ??= {})[LAST_APPLIED] = JSON.stringify({ spec: { token: s } })) !== undefined,
  (o, s, n) => {
    const c = containersOf(o)[n % Math.max(1, containersOf(o).length)];
    return !!c && !!(c.env = [...(Array.isArray(c.env) ? c.env : []), { name: `SECRET_${n}`, value: s }]);
  },
  (o, s, n) => {
    const c = containersOf(o)[n % Math.max(1, containersOf(o).length)];
    return (
      !!c &&
      !!(c.env = [
        { name: 'ENABLE_NATIVE_SIDECARS', value: s },
        { name: 'K', valueFrom: { secretKeyRef: { name: s, key: s } } },
        ...(Array.isArray(c.env) ? c.env : []),
      ])
    );
  },
  (o, s, n) => {
    const c = containersOf(o)[n % Math.max(1, containersOf(o).length)];
    if (!c) return false;
    Object.assign(c, {
      envFrom: [{ secretRef: { name: s } }],
      workingDir: s,
      readinessProbe: { exec: { command: ['check', s] } },
      lifecycle: { postStart: { exec: { command: [s] } } },
    });
    (c.args = Array.isArray(c.args) ? c.args : []).splice(n % (c.args.length + 1), 0, `--token=${s}`, s);
    return true;
  },
  (o, s) => {
    const p = podLike(o);
    return (
      !!p &&
      !!Object.assign(p.spec, {
        volumes: [{ name: 'v', flexVolume: { driver: 'x', options: { password: s } } }],
        ephemeralContainers: [{ name: 'e', env: [{ name: 'X', value: s }] }],
      })
    );
  },
  (o, s) => {
    const cs =
      o.kind === 'Pod' && Array.isArray((o.status as Obj | undefined)?.containerStatuses)
        ? (o.status as Obj).containerStatuses
        : undefined;
    return (
      !!cs?.[0] &&
      !!(cs[0].lastState = {
        terminated: { reason: 'Error', exitCode: 1, finishedAt: '2026-11-01T00:00:00Z', message: s },
      })
    );
  },
  (o, s, n) => o.kind === 'ConfigMap' && !!((o.data = { ...(o.data as Obj), [`k${n}`]: s }), (o.binaryData = { b: s })),
  // Events: a field no check reads; an event of a reason no check reads (a kubelet's hook failure
  // quoting its command line); a FailedCreate message in a shape no check parses.
  (o, s, n) => {
    if (o.kind !== 'Event') return false;
    if (n % 3 === 0) {
      Object.assign(o, {
        note: s,
        action: s,
        reportingInstance: s,
        source: { component: 'x', host: s },
        related: { kind: 'Pod', name: s },
      });
      Object.assign(o.metadata!, { labels: { k: s }, annotations: { k: s }, resourceVersion: s });
      if (o.involvedObject && typeof o.involvedObject === 'object') (o.involvedObject as Obj).fieldPath = s;
    } else if (n % 3 === 1) {
      o.reason = ['FailedPostStartHook', 'FailedPreStopHook', 'BackOff', 'Unhealthy'][n % 4];
      o.message = `Exec lifecycle hook ([sh -c mysql -p${s}]) failed`;
    } else {
      o.reason = 'FailedCreate';
      o.message = `Error creating: pods "x" is invalid: spec.containers[0].env[0].value: Invalid value: "${s}"`;
    }
    return true;
  },
  (o, s, n) => {
    // Any string that slimming drops or changes.
    const key = keyOf(o);
    const after = slim(key, structuredClone(o));
    const dropped = stringPaths(o).filter((p) => get(after, p) !== get(o, p) && p.length > 0);
    const p = dropped[n % Math.max(1, dropped.length)];
    if (!p || key === 'secrets') return false;
    get(o, p.slice(0, -1))[p[p.length - 1]!] = s;
    return true;
  },
];

const PROPERTY_BASE = overlay(
  baseObjects('both'),
  fixtureObjects('golden-cluster.yaml'),
  fixtureObjects('checks/webhook-call-failed/fires-istio.yaml'),
  fixtureObjects('checks/webhook-call-failed/ok-linkerd-injection-skipped.yaml'),
  fixtureObjects('checks/serviceaccount-missing/fires-linkerd.yaml'),
  fixtureObjects('checks/job-never-completes/fires-templates.yaml'),
  fixtureObjects('checks/quota-blocks-proxy/fires-istio-exceeded.yaml'),
);

const run = (snap: Snapshot) => runChecks(snap, CHECKS, { mesh: 'auto', certExpiryWarningDays: 60, now: NOW });

describe('random secrets in fields no check reads', () => {
  it('change no run and do not survive slimming', () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9+/=_.:-]{6,24}$/).map((s) => `S3CR3T${s}`);
    fc.assert(
      fc.property(
        fc.array(fc.record({ obj: fc.nat(), planter: fc.nat(), n: fc.nat(), secret }), { minLength: 1, maxLength: 8 }),
        (plants) => {
          const objects = structuredClone(PROPERTY_BASE);
          const planted = plants
            .filter(({ obj, planter, n, secret: s }) =>
              PLANTERS[planter % PLANTERS.length]!(objects[obj % objects.length]!, s, n),
            )
            .map((p) => p.secret);
          const raw = snapshotFrom(objects);
          const slim = slimmed(raw);
          same(run(slim), run(raw), 'a run over the slimmed objects');
          const text = JSON.stringify(slim.objects);
          for (const s of planted) expect(text).not.toContain(s);
        },
      ),
      { numRuns: 150, seed: 20261122 },
    );
    // Hundreds of generated runs: ends a hang only (65 s and 45 s alone under load, round 9).
  }, 900_000);

  it('command lines: the shutdown calls job-never-completes looks for survive whatever surrounds them', () => {
    // Words built from the pieces the patterns are made of, so that matches come and go.
    const PIECES = [
      'linkerd-await',
      '--shutdown',
      ':4191/shutdown',
      'quitquitquit',
      'quit',
      'await',
      'shutdown',
      ':4191',
      '/',
      '-',
      '--',
      ' ',
      '\n',
      '\r',
      '\u2028',
      'x',
      '_',
      '=',
      's3cr3t',
      'sh',
      '-c',
    ];
    const word = fc.array(fc.constantFrom(...PIECES), { maxLength: 5 }).map((ps) => ps.join(''));
    const argv = fc.oneof(fc.array(word, { maxLength: 5 }), fc.constant(undefined));
    const jobs = overlay(baseObjects('both'), fixtureObjects('checks/job-never-completes/fires-templates.yaml'));
    // Its findings are all the property compares: the check runs alone, over raw and slimmed alike
    // (what links them to other checks' findings is compared in the runs of every check above).
    const only = CHECKS.filter((c) => c.id === 'job-never-completes');
    const runOnly = (snap: Snapshot) =>
      runChecks(snap, only, { mesh: 'auto', certExpiryWarningDays: 60, now: NOW }).findings;
    let fired = 0;
    fc.assert(
      fc.property(fc.array(fc.record({ command: argv, args: argv }), { minLength: 2, maxLength: 4 }), (lines) => {
        const objects = structuredClone(jobs);
        const targets = objects.filter((o) => o.kind === 'CronJob' || o.kind === 'Job').flatMap(containersOf);
        targets.forEach((c, i) => Object.assign(c, lines[i % lines.length]));
        const raw = snapshotFrom(objects);
        const before = runOnly(raw);
        fired += before.length;
        expect(runOnly(slimmed(raw))).toEqual(before);
      }),
      { numRuns: 300, seed: 20261122 },
    );
    expect(fired).toBeGreaterThan(0);
    // Hundreds of generated runs: ends a hang only (65 s and 45 s alone under load, round 9).
  }, 900_000);
});
