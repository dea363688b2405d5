// Builds the demo cluster in its two forms, from the same objects: demo/cluster.json (a snapshot
// for `npm run demo`, no cluster needed) and demo/manifests/ (what demo/apply.mjs loads into a
// real cluster, so that `meshdoctor check -A` finds the same live). Both meshes healthy, with a
// handful of the problems meshdoctor finds, taken from the check fixtures listed below.
// Run: npx tsx scripts/build-demo.ts [DIR] (DIR: where to write cluster.json and manifests/, default demo;
// test/demo.test.ts builds into a temporary one and compares).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { snapshotText } from '../src/cluster/snapshot-file.js';
import {
  NOW,
  baseObjects,
  fixtureObjects,
  overlay,
  snapshotFrom,
  completeReplicaSet,
} from '../test/helpers/fixtures.js';
import type { K8sObject } from '../src/util/types.js';

const PROBLEMS = [
  'checks/injector-oomkilled/fires-linkerd-chain.yaml', // OOMKilled injector -> no endpoints -> pods without proxy
  'checks/pod-opted-out/fires-istio.yaml',
  'checks/pod-predates-enablement/fires-istio.yaml',
  'checks/namespace-not-enabled/mixed-linkerd.yaml',
  'checks/injection-marker-invalid/fires-linkerd-workload.yaml',
  'checks/quota-blocks-proxy/fires-linkerd-must-specify.yaml',
  'checks/job-never-completes/fires-istio-cronjob-hung.yaml',
  'checks/webhook-excludes-namespace/fires-istio.yaml',
  // Not problems: the injectors' RBAC as their charts grant it. A live cluster has ClusterRoles,
  // so without these the demo loaded into one would show injector-rbac-missing for both meshes.
  'checks/injector-rbac-missing/ok-linkerd-chart-rbac.yaml',
  'checks/injector-rbac-missing/ok-istio-other-binding.yaml',
];

/** The API group/version of each kind an ownerReference names (a reference without one is refused). */
const API_VERSION: Record<string, string> = {
  Deployment: 'apps/v1',
  ReplicaSet: 'apps/v1',
  StatefulSet: 'apps/v1',
  DaemonSet: 'apps/v1',
  Job: 'batch/v1',
  CronJob: 'batch/v1',
};

/**
 * Namespaces every cluster has; every other namespace of the demo (local-path-storage too, which a
 * cluster running Rancher's local-path-provisioner has of its own) carries the annotation
 * meshdoctor.io/demo, by which demo/apply.mjs knows it created it, and refuses any other.
 */
const OWN_CLUSTER = new Set(['default', 'kube-system', 'kube-public', 'kube-node-lease']);

/** Pods and templates name a scheduler that does not exist: see applyable(). */
const SCHEDULER = 'meshdoctor-demo';

const podSpecs = (o: any): any[] => {
  if (o.kind === 'Pod') return [o.spec];
  if (o.kind === 'CronJob') return [o.spec?.jobTemplate?.spec?.template?.spec];
  return [o.spec?.template?.spec];
};

/**
 * The fixture objects as a real API server accepts them, and as a cluster with its controllers
 * keeps them. Applied to both forms, so the snapshot holds exactly what the manifests create.
 * What the API server's validation and admission demand:
 * - a ReplicaSet has a selector and a pod template: its Deployment's, plus the pod-template-hash
 *   label of its name (a pod template equal to the Deployment's is what the Deployment controller
 *   takes for its current ReplicaSet: kubernetes pkg/controller/deployment/util FindNewReplicaSet,
 *   EqualIgnoreHash);
 * - an ownerReference has an apiVersion;
 * - a Secret of type kubernetes.io/tls holds tls.crt and tls.key (Linkerd's issuer Secret holds
 *   crt.pem/key.pem and is Opaque in a real install);
 * - a Job with a status has startTime; a finished one (Complete=True) completionTime and the SuccessCriteriaMet
 *   condition (1.31+);
 * - a container status has image, imageID, restartCount and ready (as a kubelet writes it);
 * - a pod's ServiceAccount exists (ServiceAccount admission): the missing `default` ones are added.
 * What keeps a cluster's controllers (kind, k3d) from replacing the demo's pods while it is shown:
 * - every pod and pod template names a scheduler that does not exist, so no pod is ever bound to
 *   a node and no kubelet runs it or rewrites its status (nothing is pulled or started);
 * - Deployments are paused: a paused Deployment's sync creates no ReplicaSet
 *   (pkg/controller/deployment/sync.go `sync`: getAllReplicaSetsAndSyncRevision(..., false));
 * - StatefulSets update OnDelete (no pod is replaced for lacking a revision label), CronJobs are
 *   suspended (no Job is started on schedule).
 * None of these fields is read by a check. Private keys in Secrets are emptied: no check reads one.
 * The demo's own namespaces are annotated meshdoctor.io/demo: "true" (demo/apply.mjs refuses a
 * cluster where they exist without it).
 */
function applyable(objects: K8sObject[]): K8sObject[] {
  const out = structuredClone(objects) as any[];
  for (const o of out) {
    for (const ref of o.metadata.ownerReferences ?? []) ref.apiVersion ??= API_VERSION[ref.kind];
    if (o.kind === 'ReplicaSet' && !o.spec?.selector) completeReplicaSet(o, out);
    if (o.kind === 'Secret') {
      for (const k of Object.keys(o.data ?? {})) if (/key/i.test(k)) o.data[k] = '';
      if (o.type === 'kubernetes.io/tls' && !(o.data?.['tls.crt'] && 'tls.key' in o.data)) o.type = 'Opaque';
    }
    if (o.kind === 'Job' && o.status) o.status.startTime ??= o.metadata.creationTimestamp ?? o.status.completionTime;
    if (o.kind === 'Job' && o.status?.conditions?.some((c: any) => c.type === 'Complete' && c.status === 'True')) {
      o.status.completionTime ??= o.status.startTime;
      if (!o.status.conditions.some((c: any) => c.type === 'SuccessCriteriaMet'))
        o.status.conditions.unshift({ type: 'SuccessCriteriaMet', status: 'True' });
    }
    if (o.kind === 'Pod') {
      // A kubelet writes these of every container status; the API's schema requires them.
      const containers = [...(o.spec.containers ?? []), ...(o.spec.initContainers ?? [])];
      for (const cs of [...(o.status?.containerStatuses ?? []), ...(o.status?.initContainerStatuses ?? [])]) {
        cs.image ??= containers.find((c: any) => c.name === cs.name)?.image ?? '';
        cs.imageID ??= '';
        cs.restartCount ??= 0;
        cs.ready ??= false;
      }
    }
    for (const spec of podSpecs(o)) if (spec) spec.schedulerName = SCHEDULER;
    if (o.kind === 'Namespace' && !OWN_CLUSTER.has(o.metadata.name))
      o.metadata.annotations = { ...o.metadata.annotations, 'meshdoctor.io/demo': 'true' };
    if (o.kind === 'Deployment') o.spec.paused = true;
    if (o.kind === 'StatefulSet') o.spec.updateStrategy = { type: 'OnDelete' };
    if (o.kind === 'CronJob') o.spec.suspend = true;
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

const OUT = process.argv[2] ?? 'demo';
const objects = applyable(overlay(baseObjects('both'), ...PROBLEMS.map(fixtureObjects)));

// A meshdoctor snapshot read at a fixed time, so the demo's output (ages, certificate days left)
// does not change with the day it is run.
const snap = snapshotFrom(objects);
snap.source = { type: 'file', readAt: NOW.toISOString() };
writeFileSync(join(OUT, 'cluster.json'), [...snapshotText(snap)].join(''));

// --- demo/manifests/ ------------------------------------------------------------------------

/**
 * The namespace labels and annotations set after some of the namespace's pods were created (by
 * their managedFields): a marker that pods predate. They are applied last, so that the API
 * server dates them after the pods it creates.
 */
function laterKeys(ns: any): { labels: Record<string, string>; annotations: Record<string, string> } {
  const pods = objects.filter((o) => o.kind === 'Pod' && o.metadata?.namespace === ns.metadata.name);
  const firstPod = Math.min(
    ...pods.map((p) => Date.parse(p.metadata?.creationTimestamp ?? '')).filter(Number.isFinite),
  );
  const later = { labels: {} as Record<string, string>, annotations: {} as Record<string, string> };
  for (const entry of ns.metadata.managedFields ?? []) {
    if (!(Date.parse(entry.time) > firstPod)) continue;
    const meta = entry.fieldsV1?.['f:metadata'] ?? {};
    for (const field of ['labels', 'annotations'] as const) {
      for (const f of Object.keys(meta[`f:${field}`] ?? {})) {
        const key = f.slice(2);
        if (f.startsWith('f:') && ns.metadata[field]?.[key] !== undefined) later[field][key] = ns.metadata[field][key];
      }
    }
  }
  return later;
}

/** An object as one applies it: no server-set fields, no status (set apart, as a controller would). */
function manifest(o: any): any {
  const m = structuredClone(o);
  for (const f of ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'managedFields', 'selfLink'])
    delete m.metadata[f];
  delete m.status;
  return m;
}

const ORDER = [
  'Namespace',
  'ServiceAccount',
  'ClusterRole',
  'ClusterRoleBinding',
  'ConfigMap',
  'Secret',
  'Service',
  'Endpoints',
  'EndpointSlice',
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'CronJob',
  'ReplicaSet',
  'Job',
  'Pod',
  'ResourceQuota',
  'Event',
  'MutatingWebhookConfiguration',
];
const rank = (o: any) => {
  const i = ORDER.indexOf(o.kind);
  if (i < 0) throw new Error(`build-demo: no place in ORDER for kind ${o.kind}`);
  return i;
};
const sorted = objects.map((o, i) => ({ o: o as any, i })).sort((a, b) => rank(a.o) - rank(b.o) || a.i - b.i);

const docs: any[] = [];
const statuses: any[] = [];
const later: any[] = [];
for (const { o } of sorted) {
  const m = manifest(o);
  if (o.kind === 'Namespace') {
    const keys = laterKeys(o);
    for (const field of ['labels', 'annotations'] as const)
      for (const k of Object.keys(keys[field])) delete m.metadata[field][k];
    if (Object.keys(keys.labels).length + Object.keys(keys.annotations).length) {
      later.push({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name: o.metadata.name,
          ...(Object.keys(keys.labels).length ? { labels: keys.labels } : {}),
          ...(Object.keys(keys.annotations).length ? { annotations: keys.annotations } : {}),
        },
      });
    }
  }
  // The uids of owners and of an event's object, as the demo's objects have them: demo/apply.mjs
  // maps each to the uid the cluster gave that object.
  for (const ref of m.metadata.ownerReferences ?? []) {
    const owner = objects.find(
      (x: any) => x.kind === ref.kind && x.metadata.namespace === o.metadata.namespace && x.metadata.name === ref.name,
    );
    ref.uid = owner ? `demo:${ref.kind}/${o.metadata.namespace}/${ref.name}` : ref.uid;
  }
  if (o.kind === 'Event' && m.involvedObject)
    m.involvedObject.uid = `demo:${m.involvedObject.kind}/${m.involvedObject.namespace}/${m.involvedObject.name}`;
  docs.push(m);
  if (o.status && Object.keys(o.status).length)
    statuses.push({
      apiVersion: o.apiVersion,
      kind: o.kind,
      metadata: { name: o.metadata.name, ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}) },
      status: o.status,
    });
}

const header = (what: string) =>
  [
    `# The demo cluster (generated by scripts/build-demo.ts from the same objects as demo/cluster.json: do not edit).`,
    `# ${what}`,
    `# Load it with demo/apply.mjs, which applies these files in order and fills in what only the cluster knows.`,
    '',
  ].join('\n');
const yaml = (list: any[]) => list.map((o) => YAML.stringify(o, { lineWidth: 0 })).join('---\n');
mkdirSync(join(OUT, 'manifests'), { recursive: true });
writeFileSync(
  join(OUT, 'manifests/1-objects.yaml'),
  header(
    'Every object, without status. ownerReferences name their owner by a stand-in uid "demo:Kind/namespace/name", which demo/apply.mjs replaces by the owner\'s real uid (owners are applied first).',
  ) + yaml(docs),
);
writeFileSync(
  join(OUT, 'manifests/2-status.yaml'),
  header(
    `The status a controller or kubelet would set, applied with --subresource=status. Times are as of ${NOW.toISOString()}; demo/apply.mjs moves them to the time it runs.`,
  ) + yaml(statuses),
);
writeFileSync(
  join(OUT, 'manifests/3-later.yaml'),
  header(
    "Namespace markers set after the namespace's pods were created (pod-predates-enablement): applied last, so that the API server dates them after the pods.",
  ) + yaml(later),
);
console.error(
  `${OUT}/cluster.json and ${OUT}/manifests/: ${objects.length} objects, read at ${NOW.toISOString()} (from ${PROBLEMS.length} fixtures)`,
);
