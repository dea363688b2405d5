/**
 * Fixture helpers: a healthy base cluster (Linkerd, Istio, or both) with per-test YAML overlays.
 * An overlay object replaces the base object of the same kind/namespace/name; an overlay object
 * annotated `meshdoctor.test/delete: "true"` removes it instead.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { kindOf, KIND_KEYS } from '../../src/k8s/kinds.js';
import { sanitizeSecret } from '../../src/cluster/sanitize.js';
import { CHECKS } from '../../src/checks/index.js';
import { runChecks } from '../../src/run/run.js';
import { MESH_NAMES, type MeshName } from '../../src/mesh/names.js';
import type { K8sObject, Scope } from '../../src/util/types.js';
import type { Finding } from '../../src/run/result.js';
import type { Snapshot } from '../../src/k8s/snapshot.js';
import { serverFromJson, type ServerInfo } from '../../src/k8s/server.js';
import { MetricsReader } from '../../src/k8s/admission-metrics.js';
import { sharedRun } from './shared-runs.js';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
/** A healthy cluster's file name (test/fixtures/healthy/<name>.yaml): a mesh, or a mesh and what the file shows ('kuma-1.0'). */
export type HealthyName = MeshName | `${MeshName}-${string}`;
/**
 * The further healthy clusters, each complete on its own: every file of test/fixtures/healthy but
 * each mesh's own (linkerd.yaml, ...) and Istio's ambient overlay, read from the folder (the one
 * list; a release's healthy cluster is registered by adding its file).
 */
export const MORE_HEALTHY: readonly HealthyName[] = readdirSync(join(FIXTURES, 'healthy'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.slice(0, -'.yaml'.length))
  .filter((n) => !(MESH_NAMES as readonly string[]).includes(n) && n !== 'istio-ambient')
  .map((n) => {
    if (!MESH_NAMES.some((m) => n.startsWith(`${m}-`))) throw new Error(`healthy/${n}.yaml: name it <mesh>-<what>`);
    return n as HealthyName;
  })
  .sort();
/**
 * A healthy cluster of one mesh, of Linkerd and Istio ('both'), of meshes side by side
 * ('linkerd+kuma'), Istio's ambient mode over its sidecar install, one of MORE_HEALTHY, or empty.
 */
export type Base = MeshName | 'both' | `${MeshName}+${MeshName}` | 'istio-ambient' | HealthyName | 'none';

/** Meshes side by side: Linkerd and Istio ('both'), Linkerd and Kuma, Istio and Consul, Kuma and Consul. */
export const HEALTHY_PAIRS = ['both', 'linkerd+kuma', 'istio+consul', 'kuma+consul'] as const satisfies readonly Base[];
/**
 * Each file of test/fixtures/healthy as a base: each mesh, Istio's ambient mode (laid over its
 * sidecar install) and MORE_HEALTHY (read from the folder).
 */
export const HEALTHY_FILES: readonly Base[] = [...MESH_NAMES, 'istio-ambient', ...MORE_HEALTHY];
/** Every healthy cluster: the one list the tests that iterate the healthy clusters use (each must give zero findings). */
export const HEALTHY_BASES: readonly Base[] = [...HEALTHY_FILES, ...HEALTHY_PAIRS];

/** A fixed "now" for tests: after every fixture timestamp, well inside the fixture certificates. */
export const NOW = new Date('2026-11-22T12:00:00Z');

/** The base a check fixture is written against, from its file name (as the per-check tests use it). */
export function baseOf(file: string): Base {
  const release = releaseBaseOf(file);
  if (release) return release;
  if (file.includes('ambient')) return 'istio-ambient';
  if (file.includes('kuma')) return 'kuma';
  if (file.includes('consul')) return 'consul';
  if (file.includes('istio')) return 'istio';
  if (file.includes('linkerd')) return 'linkerd';
  return 'both';
}

/** A fixture written for an older release's healthy cluster (src/mesh/<mesh>/releases.ts), by its name. */
function releaseBaseOf(file: string): Base | undefined {
  if (file.includes('kuma-1.x')) return 'kuma-1.x';
  if (file.includes('consul-0.')) return 'consul-0.x';
  if (file.includes('istio-1.5') || file.includes('ossm-1')) return 'istio-1.5';
  if (file.includes('istio-1.6') || file.includes('istio-1.10')) return 'istio-1.6';
  if (file.includes('ossm-2')) return 'istio-ossm-2.5';
  if (file.includes('linkerd-stable-2.10')) return 'linkerd-stable-2.10';
  return undefined;
}

/** The two-mesh cluster a fixture also runs over: Kuma beside Linkerd, Consul beside Istio, the rest over Linkerd and Istio; an older release's fixture only over its own cluster. */
export const besideOf = (file: string): Base =>
  releaseBaseOf(file) ?? (file.includes('kuma') ? 'linkerd+kuma' : file.includes('consul') ? 'istio+consul' : 'both');

/** Parse YAML text (multi-document, Lists) into objects. */
export function parseObjects(text: string): K8sObject[] {
  const out: K8sObject[] = [];
  const add = (d: any) => {
    if (!d || typeof d !== 'object') return;
    if (Array.isArray(d.items) && (d.kind === 'List' || !d.kind)) d.items.forEach(add);
    else out.push(d);
  };
  for (const doc of YAML.parseAllDocuments(text)) add(doc.toJS());
  return out;
}

/**
 * Each fixture file (and each inline YAML overlay) is parsed once per process: YAML parsing was
 * most of the matrix suites' time. The parsed objects are shared and never handed out: callers
 * get copies (fixtureObjects, baseObjects), or snapshots that copy them (snapshotFrom).
 */
const parsedFiles = new Map<string, readonly K8sObject[]>();
const parsedTexts = new Map<string, readonly K8sObject[]>();
function parsedFixture(path: string): readonly K8sObject[] {
  let objects = parsedFiles.get(path);
  if (!objects) parsedFiles.set(path, (objects = parseObjects(readFileSync(join(FIXTURES, path), 'utf8'))));
  return objects;
}
function parsedText(text: string): readonly K8sObject[] {
  let objects = parsedTexts.get(text);
  if (!objects) parsedTexts.set(text, (objects = parseObjects(text)));
  return objects;
}

/** Objects of a fixture file, by path relative to test/fixtures (a copy: change it freely). */
export function fixtureObjects(path: string): K8sObject[] {
  return structuredClone(parsedFixture(path)) as K8sObject[];
}

const key = (o: K8sObject) => `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

/** Base objects overlaid with further objects (replace by kind/namespace/name, or delete). */
export function overlay(base: readonly K8sObject[], ...layers: (readonly K8sObject[])[]): K8sObject[] {
  const m = new Map(base.map((o) => [key(o), o]));
  for (const layer of layers) {
    for (const o of layer) {
      if (o.metadata?.annotations?.['meshdoctor.test/delete'] === 'true') m.delete(key(o));
      else m.set(key(o), o);
    }
  }
  return [...m.values()];
}

/** The objects of a base, shared with the parsed fixtures (not to be changed). */
function sharedBase(base: Base): K8sObject[] {
  if (base === 'none') return [];
  if (base === 'both') return overlay(parsedFixture('healthy/linkerd.yaml'), parsedFixture('healthy/istio.yaml'));
  // Ambient mode is laid over the sidecar install (one istiod serves both).
  if (base === 'istio-ambient')
    return overlay(parsedFixture('healthy/istio.yaml'), parsedFixture('healthy/istio-ambient.yaml'));
  const [first, ...more] = base.split('+');
  return overlay(parsedFixture(`healthy/${first}.yaml`), ...more.map((b) => parsedFixture(`healthy/${b}.yaml`)));
}

/** The objects of a base (a copy: change it freely). */
export function baseObjects(base: Base): K8sObject[] {
  return structuredClone(sharedBase(base));
}

/**
 * What a fixture says of the API server itself: a document `kind: MeshdoctorSnapshot` with a
 * `server` section as a saved snapshot has it (src/k8s/server.ts), where `metrics` may also be
 * given as `{state: read, text: <Prometheus text>}`, read as GET /metrics is (every webhook kept).
 */
export const SERVER_DOC = 'MeshdoctorSnapshot';
export function fixtureServer(doc: K8sObject): ServerInfo | undefined {
  const s = structuredClone(doc.server) as any;
  if (typeof s?.metrics?.text === 'string') {
    const r = new MetricsReader();
    for (const line of s.metrics.text.split('\n')) r.line(line);
    s.metrics = { state: 'read', value: r.result() };
  }
  return serverFromJson(s);
}

/** A fixture's Prometheus text for /metrics (the test API server serves it), if it has one. */
export const fixtureMetricsText = (objects: readonly K8sObject[]): string | undefined =>
  (objects.find((o) => o.kind === SERVER_DOC)?.server as any)?.metrics?.text;

/** A snapshot as `load` would build it from these objects (every kind read), which it copies. */
export function snapshotFrom(objects: readonly K8sObject[], scope: Scope = { allNamespaces: true }): Snapshot {
  const snap: Snapshot = { source: { type: 'file', files: ['<test>'] }, scope, objects: {}, unavailable: {} };
  for (const k of KIND_KEYS) snap.objects[k] = [];
  for (const o of structuredClone(objects)) {
    if (o.kind === SERVER_DOC) {
      const server = fixtureServer(o);
      if (server) snap.server = server;
      continue;
    }
    const info = kindOf(o.kind);
    if (info) snap.objects[info.key]!.push(info.key === 'secrets' ? sanitizeSecret(o) : o);
  }
  return snap;
}

/**
 * A snapshot: the healthy base plus overlay files (paths relative to test/fixtures) and/or
 * inline YAML strings (anything containing a newline is taken as YAML text).
 */
export function cluster(base: Base, overlays: string[] = [], scope?: Scope): Snapshot {
  const layers = overlays.map((o) => (o.includes('\n') ? parsedText(o) : parsedFixture(o)));
  return snapshotFrom(overlay(sharedBase(base), ...layers), scope);
}

/** Run all checks (or the named ones) over a snapshot; returns ranked findings. */
export function findings(
  snap: Snapshot,
  ids?: string[],
  opts: { now?: Date; mesh?: 'auto' | MeshName; certExpiryWarningDays?: number } = {},
): Finding[] {
  const checks = ids ? CHECKS.filter((c) => ids.includes(c.id)) : CHECKS;
  if (ids && checks.length !== ids.length) throw new Error(`unknown check in ${ids.join(',')}`);
  const options = {
    mesh: opts.mesh ?? ('auto' as const),
    certExpiryWarningDays: opts.certExpiryWarningDays ?? 60,
    now: opts.now ?? NOW,
  };
  // Every check: the run this `vitest run` may have made already (test/helpers/shared-runs.ts).
  const r = ids ? runChecks(snap, checks, options) : sharedRun(snap, options);
  if (r.errors.length) throw new Error(r.errors.join('\n'));
  return r.findings;
}

/** "id Kind ns/name" identities of findings, for compact assertions. */
export const ids = (fs: Finding[]): string[] =>
  fs.map(
    (f) => `${f.id} ${f.resource.kind} ${f.resource.namespace ? `${f.resource.namespace}/` : ''}${f.resource.name}`,
  );

/**
 * A fixture's ReplicaSet as the API server accepts it (fixtures give only its metadata): the
 * selector and template of the Deployment that owns it in `objects`, with its pod-template-hash
 * (the suffix of its name). For loading fixtures into a real kube-apiserver.
 */
export function completeReplicaSet(o: any, objects: any[]): void {
  const owner = o.metadata.ownerReferences?.find((r: any) => r.kind === 'Deployment');
  const dep =
    owner &&
    objects.find(
      (d) => d.kind === 'Deployment' && d.metadata.namespace === o.metadata.namespace && d.metadata.name === owner.name,
    );
  if (!dep)
    throw new Error(
      `ReplicaSet ${o.metadata.namespace}/${o.metadata.name}: no owner Deployment to take a selector from`,
    );
  const hash = o.metadata.name.slice(o.metadata.name.lastIndexOf('-') + 1);
  const template = structuredClone(dep.spec.template);
  template.metadata.labels = { ...template.metadata.labels, 'pod-template-hash': hash };
  o.metadata.labels ??= template.metadata.labels;
  o.spec = {
    replicas: dep.spec.replicas ?? 1,
    ...o.spec,
    selector: { matchLabels: { ...dep.spec.selector.matchLabels, 'pod-template-hash': hash } },
    template,
  };
}

/**
 * What the real server's validation and admission demand of the fixture objects (applied to the
 * offline snapshot file too, so that live and offline see the same objects):
 * - a ReplicaSet needs a selector and a pod template: its owner Deployment's, plus the
 *   pod-template-hash label of its name;
 * - a Secret of type kubernetes.io/tls needs tls.crt and tls.key: linkerd-identity-issuer holds
 *   crt.pem/key.pem (as Linkerd's own issuer Secret does, which is Opaque), so it becomes Opaque;
 * - a finished Job (Complete=True) needs startTime, completionTime and the SuccessCriteriaMet condition (1.31+);
 * - a Pod needs its ServiceAccount to exist (ServiceAccount admission; no controller-manager
 *   creates `default` here): the missing ones are added.
 */
export function realServerObjects(objects: any[]): any[] {
  const out = structuredClone(objects);
  for (const o of out) {
    if (o.kind === 'ReplicaSet' && !o.spec?.selector) completeReplicaSet(o, out);
    if (o.kind === 'Secret' && o.type === 'kubernetes.io/tls' && !(o.data?.['tls.crt'] && o.data?.['tls.key']))
      o.type = 'Opaque';
    if (o.kind === 'Job' && o.status?.conditions?.some((c: any) => c.type === 'Complete' && c.status === 'True')) {
      o.status.startTime ??= o.metadata.creationTimestamp ?? o.status.completionTime;
      o.status.completionTime ??= o.status.startTime;
      if (!o.status.conditions.some((c: any) => c.type === 'SuccessCriteriaMet'))
        o.status.conditions.unshift({ type: 'SuccessCriteriaMet', status: 'True' });
    }
  }
  const sas = new Set(
    out.filter((o) => o.kind === 'ServiceAccount').map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
  );
  for (const p of out.filter((o) => o.kind === 'Pod')) {
    const name = p.spec.serviceAccountName ?? 'default';
    const key = `${p.metadata.namespace}/${name}`;
    if (sas.has(key)) continue;
    sas.add(key);
    out.push({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { namespace: p.metadata.namespace, name, uid: `sa-${p.metadata.namespace}-${name}` },
    });
  }
  return out;
}
