/**
 * What a pod's own spec takes away from its mesh's containers (issue 31, gen10spec): ONE mesh-agnostic reading of a
 * pod (or a pod template) and its ServiceAccount against the profile's table of what the injected containers need
 * (`network.podSpec`, src/mesh/<mesh>/pod-needs.ts, per release by the containers the pod carries):
 * - DNS: the control-plane name a container dials, against the resolver the pod's dnsPolicy gives it
 *   (src/k8s/pod-resolver.ts: Default, None without the cluster DNS, ClusterFirst with hostNetwork);
 * - the ServiceAccount token: a container that reads the mounted token (no projected token of its own in this pod),
 *   in a pod whose automountServiceAccountToken, or its ServiceAccount's, is false (src/k8s/sa-token.ts);
 * - the node's OS: Linux-only images on a pod that asks for another OS (spec.os.name, nodeSelector, required node
 *   affinity), or that runs on a node labelled with one.
 * Read by proxy-cannot-start (an injected pod whose container fails: the field named as the cause) and
 * pod-spec-starves-proxy (a template that will be injected: the warning before it happens).
 */
import { CLUSTER_DNS } from './proxy-network.js';
import { comment, type Step } from '../fix/steps.js';
import { setOnTemplateSpec } from '../fix/commands.js';
import { containers, initContainers, podSpec } from '../k8s/pods.js';
import { podOs, podResolver, searchGap, NODE_LOCAL_DNS } from '../k8s/pod-resolver.js';
import { mountsOwnToken, SA_TOKEN_DIR, tokenUnmounted } from '../k8s/sa-token.js';
import { defineFact, defineFactFamily } from '../k8s/fact.js';
import type { Workload } from '../k8s/workloads.js';
import { profileOf } from '../mesh/registry.js';
import { injectedNamesOfAllReleases } from '../mesh/releases.js';
import { injectedNames } from '../mesh/proxy.js';
import type { MeshName } from '../mesh/names.js';
import { annotationsOf, isObj, labelsOf, str } from '../util/objects.js';
import type { K8sObject } from '../util/types.js';
import type { Model } from './model.js';

/** One field of the pod's spec that takes away what a mesh container needs. */
interface SpecGap {
  readonly kind: 'dns' | 'token' | 'os';
  /** The mesh container that needs it. */
  readonly container: string;
  /** The field, where it is set, and its value, for messages: "dnsPolicy: Default", "ServiceAccount ns/sa sets automountServiceAccountToken: false". */
  readonly field: string;
  /** The whole clause: what the field does and what the container needed it for. */
  readonly cause: string;
  /** The mesh's file or thread that says what the container needs. */
  readonly source: string;
  readonly evidence: Record<string, unknown>;
  readonly fix: Step[];
}

/** The cluster DNS's ClusterIPs where its Service was read; undefined where it could not be (not seen, not read). */
export const CLUSTER_DNS_ADDRESSES = defineFact({
  id: 'cluster-dns-addresses',
  // services: the cluster DNS Service; the rest through seesNamespace (the meshes' namespaces a scope also reads).
  inputs: ['services', 'deployments', 'mutatingwebhookconfigurations', 'namespaces', 'pods'],
  compute: (m: Model): readonly string[] | undefined => {
    const out: string[] = [];
    let read = false;
    for (const c of CLUSTER_DNS) {
      if (!m.seesNamespace(c.namespace) || !m.readIn('services', c.namespace)) continue;
      const svc = m.get('services', c.namespace, c.name);
      if (!svc) continue;
      read = true;
      const spec = isObj(svc.spec) ? svc.spec : {};
      const ips = [spec.clusterIP, ...(Array.isArray(spec.clusterIPs) ? spec.clusterIPs.slice(0, 4) : [])];
      for (const ip of ips) if (typeof ip === 'string' && ip !== 'None' && !out.includes(ip)) out.push(ip);
    }
    return read ? out : undefined;
  },
});

/** The pod's ServiceAccount, where ServiceAccounts were read in its namespace. */
function serviceAccountOf(m: Model, ns: string, spec: Record<string, unknown>) {
  const name = str(spec.serviceAccountName) || str(spec.serviceAccount) || 'default';
  if (!m.has('serviceaccounts') || !m.readIn('serviceaccounts', ns)) return { name };
  return { name, obj: m.get('serviceaccounts', ns, name) };
}

/** The node's OS label, where Nodes were read. */
function nodeOs(m: Model, spec: Record<string, unknown>): { node: string; os: string } | undefined {
  const node = str(spec.nodeName);
  if (!node || !m.has('nodes')) return undefined;
  const n = m.get('nodes', '', node);
  const l = n ? labelsOf(n) : {};
  const os = l['kubernetes.io/os'] ?? l['beta.kubernetes.io/os'];
  return os && os !== 'linux' ? { node, os } : undefined;
}

/**
 * The gaps of a pod (`pod`: its containers say which release injected it and which projected tokens it carries) or of
 * a template not injected yet (`pod` undefined: the containers the profile injects today; a token row with a
 * projected token of the mesh's own is not judged, its injector's setting decides). `w` is the workload whose template
 * the fix changes. Bounded: a handful of rows per mesh, one pod.
 */
export function specGaps(
  m: Model,
  mesh: MeshName,
  w: Workload,
  spec: Record<string, any>,
  pod?: { containers: readonly Record<string, any>[] },
): SpecGap[] {
  const p = profileOf(mesh);
  const needs = p.network?.podSpec;
  if (!needs) return [];
  const cpNs = m.mesh(mesh)?.namespaces[0] ?? p.controlPlane.namespace;
  const present = pod ? pod.containers.map((c) => str(c.name) ?? '') : m.fact(INJECTS_NEXT, mesh);
  const has = (c: string) => present.includes(c);
  const out: SpecGap[] = [];
  const title = p.title;

  const dnsRows = needs.dns.filter((r) => has(r.container) && (!r.beside || has(r.beside)));
  const clusterDns = m.fact(CLUSTER_DNS_ADDRESSES);
  const res = dnsRows.length ? podResolver(spec, clusterDns && [...clusterDns, NODE_LOCAL_DNS]) : undefined;
  if (res && dnsRows.length) {
    const row = dnsRows[0]!;
    const address = row.address.replace('<ns>', cpNs);
    const uncompared = res.nameservers?.length && !clusterDns;
    const fixTo = spec.hostNetwork === true ? 'ClusterFirstWithHostNet' : 'ClusterFirst';
    out.push({
      kind: 'dns',
      container: row.container,
      field: `${res.field}: ${res.value}`,
      cause: `the pod sets ${res.field}: ${res.value}, so it resolves names with ${res.resolver}, which cannot answer for ${address}, the name ${row.container} dials for ${row.role} before it is ready${
        uncompared
          ? ` (the cluster DNS Service was not read, so whether one of those is the cluster DNS could not be compared)`
          : ''
      }`,
      source: row.source,
      evidence: {
        podSpec: {
          [res.field]: res.value,
          ...(res.nameservers ? { nameservers: res.nameservers } : {}),
          ...(spec.hostNetwork === true ? { hostNetwork: true } : {}),
        },
        dials: address,
        ...(clusterDns ? { clusterDns } : {}),
        source: row.source,
      },
      fix: [
        comment`${title} ${row.container} resolves ${address} through the cluster DNS: give the pod the cluster DNS`,
        ...setOnTemplateSpec(w, { dnsPolicy: fixTo }),
        ...(res.nameservers
          ? [
              comment`or keep dnsPolicy None and list the cluster DNS address first in dnsConfig.nameservers with the search domains of the namespace`,
            ]
          : []),
      ],
    });
  }

  // dnsPolicy None through the cluster DNS, without the search domains that complete a short name.
  const short =
    !res && dnsRows.length ? dnsRows.find((r) => searchGap(spec, r.address.replace('<ns>', cpNs))) : undefined;
  if (short) {
    const address = short.address.replace('<ns>', cpNs);
    const searches = searchGap(spec, address)!;
    out.push({
      kind: 'dns',
      container: short.container,
      field: 'dnsPolicy: None',
      cause: `the pod sets dnsPolicy: None, and its dnsConfig ${searches.length ? `searches only ${searches.join(', ')}` : 'has no search domain'}, which does not complete ${address}, the short name ${short.container} dials for ${short.role} before it is ready`,
      source: short.source,
      evidence: { podSpec: { dnsPolicy: 'None', searches }, dials: address, source: short.source },
      fix: [
        comment`${title} ${short.container} dials ${address}: give the pod the cluster DNS search domains`,
        ...setOnTemplateSpec(w, { dnsPolicy: spec.hostNetwork === true ? 'ClusterFirstWithHostNet' : 'ClusterFirst' }),
        comment`or keep dnsPolicy None and add the search domains of the namespace to dnsConfig.searches`,
      ],
    });
  }

  const sa = needs.token.length ? serviceAccountOf(m, w.namespace, spec) : undefined;
  for (const row of needs.token) {
    if (!has(row.container)) continue;
    const c = pod?.containers.find((x) => x.name === row.container);
    if (!pod && row.ownMount) continue; // the injector's setting decides whether it gets a token of its own
    if (c && row.ownMount && mountsOwnToken(c, row.ownMount)) continue;
    const off = tokenUnmounted(spec, c ?? {}, sa?.obj ?? undefined);
    if (!off) continue;
    const where =
      off.setIn === 'pod'
        ? 'the pod sets automountServiceAccountToken: false'
        : `ServiceAccount ${w.namespace}/${sa!.name} sets automountServiceAccountToken: false and the pod leaves it unset`;
    out.push({
      kind: 'token',
      container: row.container,
      field:
        off.setIn === 'pod'
          ? 'automountServiceAccountToken: false'
          : `ServiceAccount ${w.namespace}/${sa!.name} automountServiceAccountToken: false`,
      cause: `${where}, so the API server mounts no token at ${SA_TOKEN_DIR}, and ${row.container} mounts none of its own there: it reads ${SA_TOKEN_DIR}/token ${row.role}${
        row.ownMount
          ? `, having no projected token in this pod (volume ${row.ownMount}${row.setting ? `, which ${row.setting} adds` : ''})`
          : ''
      }`,
      source: row.source,
      evidence: {
        automountServiceAccountToken:
          off.setIn === 'pod' ? { podTemplate: false } : { serviceAccount: false, podTemplate: 'unset' },
        serviceAccount: sa!.name,
        ...(row.ownMount ? { ownToken: { volume: row.ownMount, mounted: false } } : {}),
        source: row.source,
      },
      fix: [
        comment`mount the token again: a policy that turns it off for app containers must leave it on for meshed pods`,
        ...setOnTemplateSpec(w, { automountServiceAccountToken: true }),
        ...(row.setting ? [comment`or turn on ${row.setting} so that ${row.container} gets a token of its own`] : []),
      ],
    });
    break;
  }

  const os = podOs(spec);
  const node = os ? undefined : pod ? nodeOs(m, spec) : undefined;
  if (os || node) {
    const first =
      [...initContainers(spec), ...containers(spec)].map((c) => str(c.name) ?? '').find((n) => n && has(n)) ??
      p.containers.proxy;
    const field = os ? `${os.field}: ${os.os}` : `node ${node!.node} kubernetes.io/os: ${node!.os}`;
    out.push({
      kind: 'os',
      container: first,
      field,
      cause: `${os ? `the pod asks for ${field}` : `the pod runs on ${field}`}, and the images ${title} injects are built for Linux only, so ${first} cannot run there`,
      source: needs.os.source,
      evidence: {
        ...(os ? { podSpec: { [os.field]: os.os } } : { node: node!.node, nodeOs: node!.os }),
        images: 'linux',
        source: needs.os.source,
      },
      fix: [comment`${title} runs on Linux nodes only: keep this workload out of the mesh, or run it on Linux nodes`],
    });
  }
  return out;
}

/**
 * The containers the mesh's injector adds to a new pod, as the pods it injected show them (Consul 0.x injects
 * envoy-sidecar, which resolves nothing): those of a pod carrying today's proxy if any, else of the first pod carrying
 * a container of another of its releases, else today's. Bounded: the first POD_SCAN pods of the scope.
 */
export const INJECTS_NEXT = defineFactFamily({
  id: 'mesh-injects-next',
  inputs: ['pods'],
  cacheKey: (mesh: MeshName) => mesh,
  compute: (m: Model, mesh: MeshName): readonly string[] => {
    const p = profileOf(mesh);
    const today = [p.containers.proxy, ...p.containers.init];
    const all = new Set(injectedNamesOfAllReleases(p));
    let other: string[] | undefined;
    for (const pod of m.list('pods').slice(0, POD_SCAN)) {
      const spec = podSpec(pod);
      const names = [...initContainers(spec), ...containers(spec)].map((c) => str(c.name) ?? '');
      if (names.includes(p.containers.proxy)) return today;
      if (!other) {
        const seen = names.filter((n) => all.has(n));
        if (seen.length) other = seen;
      }
    }
    return other ?? today;
  },
});
const POD_SCAN = 5000;

/** The gaps of an injected pod of a workload. */
export function podGaps(m: Model, mesh: MeshName, w: Workload, pod: K8sObject): SpecGap[] {
  const spec = podSpec(pod);
  return specGaps(m, mesh, w, spec, { containers: [...initContainers(spec), ...containers(spec)] });
}

/** A TCP port a container of the pod's own declares that an injected container binds (the profile's `ports` rows). */
export interface PortClash {
  /** The pod's own container that declares it. */
  readonly container: string;
  readonly port: number;
  /** The injected container that binds it, and what for. */
  readonly owner: string;
  readonly serves: string;
  /** Where the injected container's port comes from ("the default", "annotation config.linkerd.io/admin-port"). */
  readonly from: string;
  /** The annotation that moves it, where the mesh has one. */
  readonly annotation?: string;
  readonly source: string;
}

/** injectedNames(p) as a set, made once per profile (asked per workload and mesh). */
const injectedSets = new WeakMap<ReturnType<typeof profileOf>, ReadonlySet<string>>();

const MAX_CONTAINERS = 32;
const MAX_PORTS = 64;

/** A port number as an annotation writes it (1-65535), else undefined. */
const portValue = (v: string | undefined): number | undefined => {
  if (v === undefined || !/^\s*\d{1,5}\s*$/.test(v)) return undefined;
  const n = Number(v);
  return n >= 1 && n <= 65535 ? n : undefined;
};

/**
 * The ports of `spec`'s own containers (and native sidecars not the mesh's) that a container of the mesh binds in the
 * pod's shared network namespace: `present`, the mesh containers the pod carries (or will); `annotations`, the pod's
 * (or its template's). A port moved by an annotation is judged at its value; one whose annotation is not a port number
 * is not judged. Bounded: 32 containers of 64 ports each.
 */
export function portClashes(
  m: Model,
  mesh: MeshName,
  namespace: string,
  spec: Record<string, any>,
  annotations: Readonly<Record<string, string>>,
  present: readonly string[],
): PortClash[] {
  const p = profileOf(mesh);
  const rows = (p.network?.podSpec?.ports ?? []).filter((r) => present.includes(r.container));
  if (!rows.length) return [];
  const ns = rows.some((r) => r.onNamespace) ? m.get('namespaces', '', namespace) : undefined;
  const nsAnnotations = ns ? annotationsOf(ns) : {};
  const binds: { row: (typeof rows)[number]; port: number; from: string }[] = [];
  for (const row of rows) {
    const own = row.annotation ? annotations[row.annotation] : undefined;
    const set = own ?? (row.onNamespace && row.annotation ? nsAnnotations[row.annotation] : undefined);
    if (set === undefined) binds.push({ row, port: row.port, from: 'its default' });
    else {
      const port = portValue(set);
      const where = own !== undefined ? 'annotation' : `namespace ${namespace} annotation`;
      if (port !== undefined) binds.push({ row, port, from: `${where} ${row.annotation}` });
    }
  }
  // The mesh's own containers, today's (the profile's) and every release's: the proxy declaring its own port is no clash.
  let mine = injectedSets.get(p);
  if (!mine) injectedSets.set(p, (mine = new Set(injectedNames(p))));
  const own = [...containers(spec), ...initContainers(spec).filter((c) => c.restartPolicy === 'Always')].filter(
    (c) => !mine.has(str(c.name) ?? ''),
  );
  const out: PortClash[] = [];
  for (const c of own.slice(0, MAX_CONTAINERS)) {
    const ports = Array.isArray(c.ports) ? c.ports.slice(0, MAX_PORTS) : [];
    for (const cp of ports) {
      if (!isObj(cp) || (cp.protocol !== undefined && cp.protocol !== 'TCP')) continue;
      const b = binds.find((x) => x.port === cp.containerPort);
      if (!b || out.some((o) => o.container === c.name && o.port === b.port)) continue;
      out.push({
        container: str(c.name) ?? '',
        port: b.port,
        owner: b.row.container,
        serves: b.row.serves,
        from: b.from,
        ...(b.row.annotation ? { annotation: b.row.annotation } : {}),
        source: b.row.source,
      });
    }
  }
  return out;
}
