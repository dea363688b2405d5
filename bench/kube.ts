/**
 * The benchmark's clusters on a REAL kube-apiserver (v1.32 + etcd, ../shared/k8s/apiserver.sh):
 * the generated objects created through the API (concurrently, owners first, statuses through
 * the status subresource), kept in an etcd data directory under bench/out/k8s/ that later runs
 * reuse (loading 50k pods takes minutes; it is set-up, not measurement). The key of a directory
 * is the variant, the size and a digest of the generated objects and LOADER_VERSION: generate
 * other objects or change the loader and the cluster is loaded again.
 *
 * Also: the server's cost of a run, from its processes (CPU seconds of kube-apiserver and etcd,
 * from /proc) and from its own metrics (/metrics: request durations, lists served from the watch
 * cache or from etcd, objects fetched from storage).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import {
  APISERVER_SH_FOUND,
  CREATE_ORDER,
  KubeClient,
  collectionPath,
  forCreate,
  objectPath,
  startKubeApiServer,
  type KubeApiServer,
} from '../test/helpers/kube-apiserver.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const KUBE_AVAILABLE = APISERVER_SH_FOUND;

const CONCURRENCY = 24;

/** Bump when the loader's fix-ups change what the server stores. */
const LOADER_VERSION = 1;
/** The cache key: what the server would store (the generated objects and the loader), not how the generator is written. */
const digest = (objects: any[]) =>
  createHash('sha256').update(JSON.stringify(objects)).update(String(LOADER_VERSION)).digest('hex').slice(0, 12);

/** What the real server's validation demands of the generated objects (the same fix-ups as test/kube-apiserver.test.ts). */
export function fixUp(objects: any[]): any[] {
  const out = structuredClone(objects);
  const sas = new Set(
    out.filter((o) => o.kind === 'ServiceAccount').map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
  );
  const extra: any[] = [];
  for (const o of out) {
    if (o.kind === 'Service') {
      delete o.spec.clusterIP; // the generator's addresses are outside this server's service range
      delete o.spec.clusterIPs;
    }
    if (o.kind === 'Job') delete o.spec.selector; // the server generates it (no manualSelector)
    if (o.kind === 'ReplicaSet' && !o.spec?.template) {
      // A fixture ReplicaSet (control planes): its owner Deployment's selector and template.
      const owner = o.metadata.ownerReferences?.find((r: any) => r.kind === 'Deployment');
      const dep = out.find(
        (d) =>
          d.kind === 'Deployment' && d.metadata.namespace === o.metadata.namespace && d.metadata.name === owner?.name,
      );
      if (!dep) throw new Error(`ReplicaSet ${o.metadata.namespace}/${o.metadata.name}: no owner Deployment`);
      const hash = o.metadata.name.slice(o.metadata.name.lastIndexOf('-') + 1);
      o.spec = {
        replicas: dep.spec.replicas ?? 1,
        ...o.spec,
        selector: { matchLabels: { ...dep.spec.selector.matchLabels, 'pod-template-hash': hash } },
        template: structuredClone(dep.spec.template),
      };
    }
    if (o.kind === 'ReplicaSet')
      o.spec.template = {
        ...o.spec.template,
        metadata: {
          ...o.spec.template.metadata,
          labels: { ...o.spec.template.metadata.labels, ...o.spec.selector.matchLabels },
        },
      };
    if (o.kind === 'Job' && o.status?.conditions?.some((c: any) => c.type === 'Complete' && c.status === 'True')) {
      o.status.startTime ??= o.metadata.creationTimestamp;
      if (!o.status.conditions.some((c: any) => c.type === 'SuccessCriteriaMet'))
        o.status.conditions.unshift({
          type: 'SuccessCriteriaMet',
          status: 'True',
          lastTransitionTime: o.status.completionTime,
        });
    }
    if (o.kind === 'Secret' && o.type === 'kubernetes.io/tls' && !(o.data?.['tls.crt'] && o.data?.['tls.key']))
      o.type = 'Opaque';
    if (o.kind === 'Pod') {
      const key = `${o.metadata.namespace}/${o.spec.serviceAccountName ?? 'default'}`;
      if (!sas.has(key)) {
        sas.add(key);
        extra.push({
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { namespace: o.metadata.namespace, name: o.spec.serviceAccountName ?? 'default' },
        });
      }
    }
  }
  return [...out, ...extra];
}

async function pool<T>(items: T[], n: number, f: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) await f(items[next++]!);
    }),
  );
}

/** Create the objects (owners first, each rank concurrently), then set their statuses. */
async function load(admin: KubeClient, objects: any[], log: (s: string) => void): Promise<void> {
  const uids = new Map<string, string>();
  const byRank = new Map<number, any[]>();
  for (const o of fixUp(objects)) {
    const rank = CREATE_ORDER.indexOf(o.kind);
    if (rank < 0) throw new Error(`bench/kube.ts: no creation order for kind ${o.kind}`);
    (byRank.get(rank) ?? byRank.set(rank, []).get(rank)!).push(o);
  }
  const t0 = Date.now();
  let done = 0;
  for (const rank of [...byRank.keys()].sort((a, b) => a - b)) {
    await pool(byRank.get(rank)!, CONCURRENCY, async (o) => {
      const { body, status } = forCreate(o);
      for (const ref of body.metadata?.ownerReferences ?? []) ref.uid = uids.get(ref.uid) ?? ref.uid;
      if (o.kind === 'Event' && body.involvedObject?.uid)
        body.involvedObject.uid = uids.get(body.involvedObject.uid) ?? body.involvedObject.uid;
      let r = await admin.request('POST', collectionPath(body), body);
      if (r.status === 409 && o.kind === 'Namespace') {
        const patch = {
          metadata: { labels: body.metadata.labels ?? {}, annotations: body.metadata.annotations ?? {} },
        };
        r = {
          ...r,
          status: 200,
          json: await admin.ok('PATCH', objectPath(body), patch, 'application/merge-patch+json'),
        };
      }
      if (r.status === 409 && o.kind === 'ServiceAccount') return; // created by the server (default)
      if (r.status < 200 || r.status >= 300)
        throw new Error(
          `create ${o.kind} ${o.metadata?.namespace ?? ''}/${o.metadata?.name}: HTTP ${r.status}: ${r.json?.message ?? r.text.slice(0, 300)}`,
        );
      if (o.metadata?.uid) uids.set(o.metadata.uid, r.json.metadata.uid);
      if (status && Object.keys(status).length) await admin.patchStatus({ ...body, ...r.json }, status);
      if (++done % 5000 === 0) log(`    loaded ${done} objects (${((Date.now() - t0) / 1000).toFixed(0)}s)`);
    });
  }
}

export interface BenchKube extends KubeApiServer {
  /** The pids of kube-apiserver and etcd (for their CPU time). */
  pids: { apiserver: number; etcd: number };
  loadSeconds: number;
}

/**
 * A real kube-apiserver holding the objects (made only when not cached; variant and size name the
 * cached directory). Started from the cache when the same generator and loader loaded it before.
 */
export async function kubeCluster(
  name: string,
  objectsOf: any[] | (() => any[]),
  log: (s: string) => void,
): Promise<BenchKube> {
  const objects = typeof objectsOf === 'function' ? objectsOf() : objectsOf;
  const dir = join(ROOT, 'bench/out/k8s', `${name}-${digest(objects)}`);
  const loaded = join(dir, 'loaded');
  const fresh = !existsSync(loaded);
  if (fresh) rmSync(dir, { recursive: true, force: true });
  const server = await startKubeApiServer(dir);
  const pids = {
    apiserver: Number(readFileSync(join(dir, 'kube-apiserver.pid'), 'utf8')),
    etcd: Number(readFileSync(join(dir, 'etcd.pid'), 'utf8')),
  };
  let loadSeconds = 0;
  if (fresh) {
    const t0 = Date.now();
    log(`  loading ${objects.length} objects into a real kube-apiserver (${dir}; once, then cached)`);
    try {
      await load(server.admin, objects, log);
    } catch (e) {
      await stopKeeping(dir, server);
      throw e;
    }
    loadSeconds = (Date.now() - t0) / 1000;
    writeFileSync(loaded, `${new Date().toISOString()} ${objects.length} objects in ${loadSeconds.toFixed(0)}s\n`);
  }
  // The data stays for the next run: stop() would delete the directory.
  return { ...server, pids, loadSeconds, stop: () => stopKeeping(dir, server) };
}

async function stopKeeping(dir: string, server: KubeApiServer): Promise<void> {
  server.admin.close();
  const { execFile } = await import('node:child_process');
  const { APISERVER_SH } = await import('../test/helpers/kube-apiserver.js');
  await new Promise((res) => execFile('bash', [APISERVER_SH, 'stop', dir], () => res(undefined)));
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

/** Resident memory of a process now, in MB. */
export function rssMB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/** Sums of Prometheus samples by metric name and a label subset: `metric{a="x"}` → value. */
export function metricSums(text: string, wanted: { metric: string; by: string[] }[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line) continue;
    const brace = line.indexOf('{');
    const space = line.lastIndexOf(' ');
    const name = brace >= 0 ? line.slice(0, brace) : line.slice(0, line.indexOf(' '));
    for (const w of wanted) {
      if (name !== w.metric) continue;
      const labels = brace >= 0 ? line.slice(brace + 1, line.lastIndexOf('}')) : '';
      const key = `${name}{${w.by.map((b) => `${b}="${new RegExp(`(?:^|,)${b}="([^"]*)"`).exec(labels)?.[1] ?? ''}"`).join(',')}}`;
      out.set(key, (out.get(key) ?? 0) + Number(line.slice(space + 1)));
    }
  }
  return out;
}

export const diff = (after: Map<string, number>, before: Map<string, number>): Map<string, number> => {
  const d = new Map<string, number>();
  for (const [k, v] of after) {
    const x = v - (before.get(k) ?? 0);
    if (Math.abs(x) > 1e-9) d.set(k, x);
  }
  return d;
};

/**
 * The floor's configuration for a real server: its kubeconfig's credentials (client certificate),
 * the list paths of `kinds` and the named GETs meshdoctor makes (from the server's own
 * namespaces and webhook configurations).
 */
export async function floorConfig(
  kube: KubeApiServer,
  kinds: string[],
  pageSize = 500,
  /** The API server's own endpoints meshdoctor reads too (`/version`, `/metrics`): the floor GETs them as well. */
  server: string[] = [],
): Promise<Record<string, unknown>> {
  const { KINDS, listPath, objectPath: namedPath } = await import(join(ROOT, 'dist/k8s/kinds.js'));
  const { namedObjects } = await import(join(ROOT, 'dist/mesh/read-plan.js'));
  const kc = YAML.parse(readFileSync(kube.kubeconfig, 'utf8'));
  const user = kc.users[0].user;
  const b64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
  const ns = (await kube.admin.get('/api/v1/namespaces')).items;
  const mwc = (await kube.admin.get('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations')).items.map(
    (o: any) => ({
      ...o,
      kind: 'MutatingWebhookConfiguration',
    }),
  );
  const lists = kinds.filter((k) => !KINDS[k].byName).map((k) => listPath(KINDS[k]));
  const gets = [
    ...new Set(
      namedObjects(
        ns.map((o: any) => ({ ...o, kind: 'Namespace' })),
        mwc,
      )
        .filter((r: { key: string }) => kinds.includes(r.key))
        .map((r: any) => namedPath(KINDS[r.key], r.namespace, r.name) as string),
    ),
  ];
  return {
    server: kube.server,
    ca: kube.caPem,
    cert: b64(user['client-certificate-data']),
    key: b64(user['client-key-data']),
    pageSize,
    lists,
    gets: [...gets, ...server],
  };
}
