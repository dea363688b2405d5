#!/usr/bin/env node
// Loads the demo cluster (demo/manifests/, the same objects as demo/cluster.json) into a
// Kubernetes cluster you can throw away (kind, k3d), so that `meshdoctor check -A` finds live
// what `npm run demo` finds offline. Run from a checkout after `npm ci`:
//
//   node demo/apply.mjs --context kind-meshdoctor-demo      (or --kubeconfig FILE; other kubectl flags pass through)
//
// It runs kubectl (server-side apply, as the field manager meshdoctor-demo) in this order:
//   1. the objects that own nothing else's pods: namespaces, service accounts, config, services,
//      endpoints, workloads (Deployments paused, CronJobs suspended: see scripts/build-demo.ts);
//   2. ReplicaSets and Jobs, each ownerReference given its owner's real uid; 3. pods, likewise;
//   4. the status a controller or kubelet would have set (--subresource=status), its times moved
//      from the demo's "now" to this run's; 5. resource quotas (after the pods: quota admission
//      refuses pods while a quota has no status; but a namespace's without pods before step 2)
//      and events;
//   6. the namespace markers the demo's pods predate, a second later, so the API server dates
//      them after the pods; 7. the injection webhook configurations' selectors, last, so the API
//      server never calls them (they point at injectors that do not run) while the demo is loaded.
//      The configurations themselves come first (0.), each webhook selecting no namespace until
//      step 7: the API server dates them before the pods, as an installed mesh's are (a pod older
//      than the configuration that injects it is a finding of its own).
/* global structuredClone */
// Nothing runs: every pod names a scheduler that does not exist, so none is started or pulled.
// It refuses a cluster that already has one of the namespaces it loads, unless the demo created
// it (the annotation meshdoctor.io/demo, which every namespace of the demo carries, and no other
// namespace has): the demo overwrites what it names, with --force-conflicts. That includes
// local-path-storage, which a cluster running Rancher's local-path-provisioner (kind's) has of its
// own: a wrong --context must not take it over. Remove the demo by deleting the cluster.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const DIR = dirname(fileURLToPath(import.meta.url));
const FIELD_MANAGER = 'meshdoctor-demo';
/** Namespaces every cluster has: their objects are left alone, and they may exist. */
const SYSTEM = new Set(['default', 'kube-system', 'kube-public', 'kube-node-lease']);
/** The annotation marking the demo's namespaces (scripts/build-demo.ts sets it on each one it loads). */
const DEMO_ANNOTATION = 'meshdoctor.io/demo';

const args = process.argv.slice(2);
if (args.includes('-h') || args.includes('--help') || !args.some((a) => /^--(context|kubeconfig)(=|$)/.test(a))) {
  console.error('usage: node demo/apply.mjs --context NAME | --kubeconfig FILE [other kubectl flags]');
  console.error(
    'Loads the demo cluster into the cluster you name: one you can throw away (kind create cluster, k3d cluster create).',
  );
  process.exit(2);
}

/** kubectl with the user's flags; stdout, or exit 1 with kubectl's error on one line. */
function kubectl(words, input) {
  const r = spawnSync('kubectl', [...args, ...words], { input, encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.error) {
    console.error(`demo/apply.mjs: cannot run kubectl: ${r.error.message}`);
    process.exit(1);
  }
  if (r.status !== 0) {
    console.error(`demo/apply.mjs: kubectl ${words.join(' ')} failed: ${r.stderr.trim()}`);
    process.exit(1);
  }
  return r.stdout;
}

const docs = (file) =>
  YAML.parseAllDocuments(readFileSync(join(DIR, 'manifests', file), 'utf8'))
    .map((d) => d.toJS())
    .filter(Boolean);
const inSystem = (o) => (o.kind === 'Namespace' ? SYSTEM.has(o.metadata.name) : SYSTEM.has(o.metadata.namespace));
const objects = docs('1-objects.yaml').filter((o) => !inSystem(o));
const statuses = docs('2-status.yaml').filter((o) => !inSystem(o));
const later = docs('3-later.yaml').filter((o) => !inSystem(o));
const key = (kind, ns, name) => `${kind}/${ns ?? ''}/${name}`;

// --- a cluster to throw away ------------------------------------------------------------------
const existing = JSON.parse(kubectl(['get', 'namespaces', '-o', 'json'])).items;
// Every namespace the demo loads objects into (objects of the system namespaces were left out above).
const ours = [...new Set(objects.map((o) => (o.kind === 'Namespace' ? o.metadata.name : o.metadata.namespace)))].filter(
  (n) => n !== undefined,
);
const taken = existing.filter(
  (n) => ours.includes(n.metadata.name) && n.metadata.annotations?.[DEMO_ANNOTATION] !== 'true',
);
if (taken.length) {
  console.error(
    `demo/apply.mjs: namespace ${taken.map((n) => n.metadata.name).join(', ')} exists and is not the demo's: load the demo into a cluster you can throw away (kind create cluster --name meshdoctor-demo${taken.some((n) => n.metadata.name === 'local-path-storage') ? "; kind's own local-path-storage must be deleted there first" : ''})`,
  );
  process.exit(1);
}
if (!existing.some((n) => n.metadata.annotations?.[DEMO_ANNOTATION] === 'true')) {
  const names = new Set(
    JSON.parse(kubectl(['get', 'mutatingwebhookconfigurations', '-o', 'json'])).items.map((w) => w.metadata.name),
  );
  const clash = objects.filter((o) => o.kind === 'MutatingWebhookConfiguration' && names.has(o.metadata.name));
  if (clash.length) {
    console.error(
      `demo/apply.mjs: webhook configuration ${clash.map((w) => w.metadata.name).join(', ')} exists: a mesh is installed here; load the demo into a cluster you can throw away`,
    );
    process.exit(1);
  }
}

// --- apply ------------------------------------------------------------------------------------
/** Real uids and creation times of the objects applied so far, by kind/namespace/name. */
const uids = new Map();
const created = new Map();
function apply(list, extra = []) {
  if (!list.length) return;
  const out = JSON.parse(
    kubectl(
      [
        'apply',
        '--server-side',
        `--field-manager=${FIELD_MANAGER}`,
        '--force-conflicts',
        ...extra,
        '-o',
        'json',
        '-f',
        '-',
      ],
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: list }),
    ),
  );
  for (const o of out.kind === 'List' ? out.items : [out]) {
    uids.set(key(o.kind, o.metadata.namespace, o.metadata.name), o.metadata.uid);
    created.set(key(o.kind, o.metadata.namespace, o.metadata.name), o.metadata.creationTimestamp);
  }
}
/** The stand-in "demo:Kind/namespace/name" of a uid, replaced by that object's real uid. */
function realUid(standIn) {
  if (typeof standIn !== 'string' || !standIn.startsWith('demo:')) return standIn;
  const [kind, ns, name] = standIn.slice('demo:'.length).split('/');
  const uid = uids.get(key(kind, ns, name));
  if (!uid) throw new Error(`demo/apply.mjs: ${kind} ${ns}/${name} was not applied before the objects it owns`);
  return uid;
}
function owned(o) {
  const m = structuredClone(o);
  for (const ref of m.metadata.ownerReferences ?? []) ref.uid = realUid(ref.uid);
  // A Job's pods carry the labels its generated selector matches (batch/v1 Job: the Job's uid).
  const job = m.kind === 'Pod' ? m.metadata.ownerReferences?.find((r) => r.kind === 'Job') : undefined;
  if (job)
    m.metadata.labels = {
      ...m.metadata.labels,
      'controller-uid': job.uid,
      'batch.kubernetes.io/controller-uid': job.uid,
      'job-name': job.name,
      'batch.kubernetes.io/job-name': job.name,
    };
  if (m.kind === 'Event' && m.involvedObject)
    m.involvedObject.uid =
      uids.get(key(m.involvedObject.kind, m.involvedObject.namespace, m.involvedObject.name)) ?? m.involvedObject.uid;
  return m;
}

// The demo's statuses and events are as of its snapshot's time: moved to when the demo was first
// loaded here (its first namespace's creation), so that loading it again sets the same times (a
// Job's completionTime cannot change).
const readAt = /"readAt":"([^"]+)"/.exec(readFileSync(join(DIR, 'cluster.json'), 'utf8').slice(0, 1000))?.[1];
if (!readAt) throw new Error('demo/apply.mjs: demo/cluster.json has no readAt');
let shift = 0;
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const moved = (v) => {
  if (typeof v === 'string' && RFC3339.test(v))
    return new Date(Date.parse(v) + shift).toISOString().replace(/\.000Z$/, 'Z');
  if (Array.isArray(v)) return v.map(moved);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, moved(x)]));
  return v;
};

const LATE = new Set(['ReplicaSet', 'Job', 'Pod', 'ResourceQuota', 'Event', 'MutatingWebhookConfiguration']);
const of = (...kinds) => objects.filter((o) => kinds.includes(o.kind));
const step = (what) => console.error(`demo/apply.mjs: ${what}`);

/** A webhook configuration whose webhooks select no namespace (no namespace has this label): created now, called never. */
const dormant = (w) => ({
  ...structuredClone(w),
  webhooks: (w.webhooks ?? []).map((h) => ({
    ...structuredClone(h),
    namespaceSelector: { matchLabels: { 'meshdoctor.io/demo-loading': 'true' } },
  })),
});
step('injection webhook configurations, selecting no namespace while the demo loads');
apply(of('MutatingWebhookConfiguration').map(dormant));
step('namespaces, service accounts, config, services, workloads');
apply(objects.filter((o) => !LATE.has(o.kind)));
shift = Date.parse(created.get(key('Namespace', undefined, ours[0]))) - Date.parse(readAt);
// A quota in a namespace without pods (ledger: the quota that keeps its ReplicaSet's pods out)
// comes before the ReplicaSets: in a cluster with controllers (kind, k3d) the ReplicaSet
// controller would otherwise create those pods before the quota exists. With its status set, the
// quota admission plugin judges pods at once (no controller computes it in a bare API server).
const podNamespaces = new Set(of('Pod').map((p) => p.metadata.namespace));
const earlyQuota = (q) => !podNamespaces.has(q.metadata.namespace);
const quotaStatus = (keep) => statuses.filter((s) => s.kind === 'ResourceQuota' && keep(s)).map((s) => moved(s));
if (of('ResourceQuota').some(earlyQuota)) {
  step('resource quotas of namespaces without pods');
  apply(of('ResourceQuota').filter(earlyQuota));
  apply(quotaStatus(earlyQuota), ['--subresource=status']);
}
step('replica sets and jobs');
apply(of('ReplicaSet', 'Job').map(owned));
step('pods');
apply(of('Pod').map(owned));
step('status (--subresource=status)');
const noQuota = statuses.filter((s) => s.kind !== 'ResourceQuota');
apply(
  noQuota.map((s) => moved(s)),
  ['--subresource=status'],
);
step('resource quotas and events');
apply(of('ResourceQuota').filter((q) => !earlyQuota(q)));
apply(
  quotaStatus((q) => !earlyQuota(q)),
  ['--subresource=status'],
);
apply(of('Event').map((e) => moved(owned(e))));
if (later.length) {
  // The API server dates a field by the second: wait for the next one after the pods.
  step(`namespace markers the pods predate (${later.map((n) => n.metadata.name).join(', ')})`);
  await new Promise((r) => setTimeout(r, 1100));
  const r = spawnSync(
    'kubectl',
    [...args, 'apply', '--server-side', `--field-manager=${FIELD_MANAGER}-later`, '-f', '-'],
    {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: later }),
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) {
    console.error(`demo/apply.mjs: kubectl apply (namespace markers) failed: ${r.stderr.trim()}`);
    process.exit(1);
  }
}
step("injection webhook configurations' selectors");
apply(of('MutatingWebhookConfiguration'));
step(`done: ${objects.length} objects. Now: meshdoctor check -A ${args.join(' ')}`);
