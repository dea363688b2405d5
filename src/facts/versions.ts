/**
 * Versions, as the cluster shows them (issue 25): the API server's (GET /version) and each node's
 * kubelet, the control plane version of each mesh injector, and the proxy versions a workload's
 * pods run against the one its injector injects now. Mesh-generic: each mesh's profile reads its
 * own versions (src/mesh/<mesh>/support.ts).
 */
import { defineFact } from '../k8s/fact.js';
import { kubeVersion, type KubeVersion } from '../k8s/server.js';
import type { K8sObject } from '../util/types.js';
import { annotationsOf, isObj, nameOf, plural, str } from '../util/objects.js';
import type { MeshName } from '../mesh/names.js';
import type { VersionRead } from '../mesh/profile.js';
import { profileOf } from '../mesh/registry.js';
import { podContainer } from '../mesh/versions.js';
import { webhookTargets, type Injector } from './controlplane.js';
import type { Model, Workload } from './model.js';
import { podStates } from './model.js';

/** A Kubernetes version and what said it ("API server (GET /version)", "node worker-1 kubelet"). */
interface ClusterVersion extends KubeVersion {
  from: string;
}

/** What the cluster says of its Kubernetes versions, and why what is unknown is. */
interface ClusterVersions {
  /** The API server's gitVersion (undefined: not read, see serverUnread). */
  server?: ClusterVersion;
  serverUnread?: string;
  /** Each node's kubelet version, by node name (undefined version: the node reports none that parses). */
  nodes: { name: string; version?: KubeVersion }[];
  /** Nodes were read (an empty list then means no nodes). */
  nodesRead: boolean;
  /** Where the API server's version was not read: what its nodes' kubelets bound it to (the version skew policy). */
  serverBound?: ServerBound;
}

/**
 * The API server's version as its kubelets bound it: a kubelet is never newer than the API server
 * and at most 3 minor versions older (2 before Kubernetes 1.28): kubernetes.io/releases/version-skew-policy
 * ("kubelet must not be newer than kube-apiserver, and may be up to three minor versions older";
 * kubernetes/website content/en/releases/version-skew-policy.md, KEP-3935 for the third minor).
 */
interface ServerBound {
  /** The newest kubelet's minor: the API server runs at least this. */
  atLeast: KubeVersion;
  /** The oldest kubelet's minor + 3: the API server runs at most this. */
  atMost: KubeVersion;
  from: string;
}

/** The skew policy's page, cited in evidence. */
const SKEW_POLICY = 'https://kubernetes.io/releases/version-skew-policy/#kubelet';

function boundFromKubelets(nodes: { version?: KubeVersion }[]): ServerBound | undefined {
  const vs = nodes.map((n) => n.version).filter((v): v is KubeVersion => v !== undefined);
  if (!vs.length) return undefined;
  const byMinor = (a: KubeVersion, b: KubeVersion) => a.major - b.major || a.minor - b.minor;
  const sorted = [...vs].sort(byMinor);
  const oldest = sorted[0]!;
  const newest = sorted[sorted.length - 1]!;
  const minorOnly = (major: number, minor: number): KubeVersion => ({
    major,
    minor,
    patch: 0,
    text: `${major}.${minor}`,
  });
  return {
    atLeast: minorOnly(newest.major, newest.minor),
    atMost: minorOnly(oldest.major, oldest.minor + 3),
    from: `the kubelets of ${plural(vs.length, 'node')} (${SKEW_POLICY})`,
  };
}

export const CLUSTER_VERSIONS = defineFact({
  id: 'cluster-versions',
  inputs: ['nodes'],
  compute: (m: Model): ClusterVersions => {
    const read = m.snapshot.server?.version;
    const v = read?.state === 'read' ? read.value : undefined;
    // The gitVersion as the server says it; a server whose gitVersion is not one (kept empty) still gives major.minor.
    const server = v
      ? (kubeVersion(v.gitVersion) ?? { major: v.major, minor: v.minor, patch: 0, text: `${v.major}.${v.minor}` })
      : undefined;
    const nodes = m.list('nodes').map((n) => {
      const info = isObj(n.status) && isObj(n.status.nodeInfo) ? n.status.nodeInfo : undefined;
      const version = kubeVersion(str(info?.kubeletVersion));
      return { name: nameOf(n), ...(version ? { version } : {}) };
    });
    return {
      ...(server ? { server: { ...server, from: 'the API server (GET /version)' } } : {}),
      ...(server
        ? {}
        : { serverUnread: read && read.state !== 'read' ? read.reason : 'not read (not in the snapshot)' }),
      nodes: nodes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      nodesRead: m.has('nodes'),
      ...(server ? {} : ((b) => (b ? { serverBound: b } : {}))(boundFromKubelets(nodes))),
    };
  },
});

export function clusterVersions(m: Model): ClusterVersions {
  return m.fact(CLUSTER_VERSIONS);
}

/** The injector Deployments a workload's next pod is sent to, for one mesh (by the webhooks called). */
export function injectorsFor(m: Model, w: Workload, mesh: MeshName): Injector[] {
  const d = m.decision(w, mesh);
  if (!d) return [];
  const targets = webhookTargets(m, mesh);
  const out = new Map<string, Injector>();
  for (const c of d.calls) {
    if (!c.called || !c.webhook.service) continue;
    const s = c.webhook.service;
    const t = targets.find((x) => x.namespace === s.namespace && x.name === s.name && x.port === s.port);
    // An injector without a Deployment (a leftover configuration's) injects nothing: not counted.
    if (t?.injector.deployment) out.set(`${t.injector.namespace}/${t.injector.name}`, t.injector);
  }
  return [...out.values()];
}

/** Per mesh, the proxy version each pod runs (null: none read). */
const proxyVersions = new Map<MeshName, WeakMap<K8sObject, VersionRead | null>>();

/**
 * The mesh's proxy version this pod runs (its profile's versions.proxy), read once per pod and mesh
 * (the pod is frozen): known-release-bug and proxy-outdated ask it of the same pods.
 */
export function proxyVersion(pod: K8sObject, mesh: MeshName): VersionRead | undefined {
  const versions = profileOf(mesh).versions;
  if (!versions) return undefined;
  let byPod = proxyVersions.get(mesh);
  if (!byPod) proxyVersions.set(mesh, (byPod = new WeakMap()));
  let v = byPod.get(pod);
  if (v === undefined) byPod.set(pod, (v = versions.proxy(pod) ?? null));
  return v ?? undefined;
}

/** A workload's pods that run an older proxy than the one its injector injects now. */
interface ProxySkew {
  mesh: MeshName;
  injector: Injector;
  /** What the injector injects now. */
  expected: VersionRead;
  /** The active pods running an older proxy, with their versions. */
  older: { pod: string; version: string; from: string }[];
  /** Releases between the oldest proxy and the injected one (undefined: the table cannot place them). */
  releasesBehind?: number;
  /** The active pods running a newer proxy than the injector injects (a pin, a control plane rolled back). */
  newer: { pod: string; version: string; from: string }[];
  /** Releases between the injected proxy and the newest one (undefined: none newer, or not placed). */
  releasesAhead?: number;
  /** The mesh's pin annotations the older or newer pods carry (a restart keeps them), by key; empty: none. */
  pins: { key: string; value: string; source: string }[];
}

/** Releases between two versions of a mesh ("2.14" and "2.16": 2); undefined when either release is unknown or the majors differ. */
function releasesBetween(mesh: MeshName, older: string, newer: string): number | undefined {
  const p = profileOf(mesh).versions;
  const [a, b] = [p?.release(older), p?.release(newer)].map((r) => (r ? /^(\d+)\.(\d+)$/.exec(r) : null));
  if (!a || !b || a[1] !== b[1]) return undefined;
  return Number(b[2]) - Number(a[2]);
}

/**
 * The proxies of the workload's running pods against what its injector injects now: undefined when
 * nothing is older, or when it cannot be told (no single injector for its next pod, the injected
 * version unread, every pod's version unread or not comparable: those pods are left out).
 */
export function proxySkew(m: Model, w: Workload, mesh: MeshName): ProxySkew | undefined {
  const versions = profileOf(mesh).versions;
  const pods = podStates(w).meshed.get(mesh) ?? [];
  if (!versions || !pods.length) return undefined;
  const d = m.decision(w, mesh);
  if (!d?.inject || d.unknown) return undefined; // a restarted pod would not get this mesh's proxy (other checks say why)
  const injectors = injectorsFor(m, w, mesh);
  if (injectors.length !== 1 || !injectors[0]!.deployment) return undefined; // two injectors: webhook-overlap says so
  const injector = injectors[0]!;
  const expected = versions.injects(m, injector.deployment as K8sObject);
  if (!expected) return undefined;
  const older: ProxySkew['older'] = [];
  const newer: ProxySkew['newer'] = [];
  // The pods of a workload run few versions: each compared once.
  const compared = new Map<string, number | undefined>();
  for (const p of pods) {
    const v = proxyVersion(p, mesh);
    if (!v) continue; // unreadable (a digest, a custom tag): not compared
    let c = compared.get(v.version);
    if (c === undefined && !compared.has(v.version))
      compared.set(v.version, (c = versions.compare(v.version, expected.version)));
    if (c !== undefined && c < 0) older.push({ pod: nameOf(p), version: v.version, from: v.from });
    if (c !== undefined && c > 0) newer.push({ pod: nameOf(p), version: v.version, from: v.from });
  }
  if (!older.length && !newer.length) return undefined;
  // Each distinct version placed once (the older pods of a workload share a few).
  const between = new Map<string, number | undefined>();
  const behind = older
    .map((o) => {
      if (!between.has(o.version)) between.set(o.version, releasesBetween(mesh, o.version, expected.version));
      return between.get(o.version);
    })
    .filter((b): b is number => b !== undefined);
  const releasesBehind = behind.length ? Math.max(...behind) : undefined;
  const ahead = [...new Set(newer.map((o) => o.version))]
    .map((v) => releasesBetween(mesh, expected.version, v))
    .filter((b): b is number => b !== undefined);
  const releasesAhead = ahead.length ? Math.max(...ahead) : undefined;
  // The pins the skewed pods carry (the profile's versions.pins), each key once: a restart keeps them.
  const skewed = new Set([...older, ...newer].map((o) => o.pod));
  const pins = new Map<string, { key: string; value: string; source: string }>();
  for (const p of pods) {
    if (!skewed.has(nameOf(p))) continue;
    const anns = annotationsOf(p);
    for (const pin of versions.pins ?? [])
      if (anns[pin.key] && !pins.has(pin.key))
        pins.set(pin.key, { key: pin.key, value: anns[pin.key]!.slice(0, 256), source: pin.source });
  }
  return {
    mesh,
    injector,
    expected,
    older,
    ...(releasesBehind !== undefined ? { releasesBehind } : {}),
    newer,
    ...(releasesAhead !== undefined ? { releasesAhead } : {}),
    pins: [...pins.values()],
  };
}

/** A proxy a pod template annotation of its mesh pins (the profile's versions.pins), against what its injector injects now. */
export interface PinnedProxy {
  /** The annotations that pin it, as the pod carries them, with their source. */
  pins: { key: string; value: string; source: string }[];
  /** The proxy image the pod runs (its proxy container's), when it has one. */
  image?: string;
  /** The version it runs, where its tag is one the mesh reads. */
  runs?: VersionRead;
  /** What its injector injects into a pod created now, and that injector (a single one). */
  injects?: VersionRead;
  injector?: Injector;
  /** Its order against the injected version (<0 older, >0 newer); undefined: not compared. */
  order?: number;
  /** Minor releases between the two, where the tables place both. */
  releases?: number;
}

/**
 * The pins of a pod's proxy: the mesh's pin annotations the pod carries (a restart keeps them, from the
 * template), the proxy it runs and what its injector injects now, compared where both read as versions.
 * Undefined when the pod carries none (or the mesh has none).
 */
export function pinnedProxy(m: Model, w: Workload, mesh: MeshName, pod: K8sObject): PinnedProxy | undefined {
  const p = profileOf(mesh);
  const anns = annotationsOf(pod);
  const pins = (p.versions?.pins ?? [])
    .filter((x) => typeof anns[x.key] === 'string' && anns[x.key] !== '')
    .map((x) => ({ key: x.key, value: anns[x.key]!.slice(0, 256), source: x.source }));
  if (!pins.length) return undefined;
  const image = str(podContainer(pod, p.containers.proxy)?.image);
  const runs = proxyVersion(pod, mesh);
  const inj = injectorsFor(m, w, mesh);
  const injector = inj.length === 1 ? inj[0] : undefined;
  const injects = injector?.deployment ? p.versions?.injects(m, injector.deployment as K8sObject) : undefined;
  const order = runs && injects ? p.versions?.compare(runs.version, injects.version) : undefined;
  const between =
    runs && injects && order !== undefined
      ? order < 0
        ? releasesBetween(mesh, runs.version, injects.version)
        : releasesBetween(mesh, injects.version, runs.version)
      : undefined;
  return {
    pins,
    ...(image ? { image: image.slice(0, 512) } : {}),
    ...(runs ? { runs } : {}),
    ...(injects ? { injects } : {}),
    ...(injector ? { injector } : {}),
    ...(order !== undefined ? { order } : {}),
    ...(between !== undefined ? { releases: between } : {}),
  };
}
