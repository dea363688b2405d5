/**
 * mesh-ranges-miss-cluster — the address ranges a mesh is configured with (its profile's `network.ranges`) against the
 * cluster's own addresses as read (issue 31, gen10net): Nodes' pod ranges and InternalIPs, Services' ClusterIPs, the
 * meshed pods' addresses (src/facts/cluster-ranges.ts).
 *
 * Why: each mesh keeps its own copy of the cluster's ranges, and nothing checks it against the cluster. Linkerd's
 * clusterNetworks (linkerd-config values) decide which destinations its proxy discovers and mTLS-es: a Service range
 * left out sends that traffic around the mesh in plain text (linkerd/linkerd2#9521); on 2.11 its policy admits the
 * kubelet's probes only from them, so a node whose InternalIP is outside (a public address) never sees a proxy ready
 * (linkerd/linkerd2#7507). Istio's includeIPRanges/excludeIPRanges (injector values, per-pod annotations), Kuma's and
 * Consul's excluded outbound CIDRs (annotations) decide what istio-init redirects: a meshed Service's ClusterIP left
 * out leaves the pod without the sidecar. A pod whose address is IPv6 on a release whose proxy listens on IPv4 only
 * (Linkerd before 2.16, or disableIPv6) is never probed ready (linkerd/linkerd2#3849). And a node's pod range that
 * holds a node's own address or a Service's ClusterIP breaks routing for every pod of that node.
 * When: the mesh is in use (active meshed pods of app workloads); what the release does (probes, IPv6) comes from the
 * release tables (`ranges` rows) and is judged only where the installed release is placed; a setting not read is not
 * judged. Services and pods of namespaces this run does not see are not read (readsOtherNamespaces).
 * Known false positives: a range excluded on purpose (a Service the pod should reach without the proxy); addresses
 * read now, not when the pods started.
 * Fix: the mesh's setting with the missing ranges (its chart value, or the pod template's annotation), then restart
 * the meshed workloads so their proxies and init containers read it.
 */
import { comment, type Step } from '../fix/steps.js';
import { setOnTemplate } from '../fix/commands.js';
import { cidrContains, cidrsOverlap, enclosingRange, parseCidr, parseIp, type Cidr } from '../k8s/cidr.js';
import { statuses } from '../k8s/health.js';
import { isActive } from '../k8s/pods.js';
import { CLUSTER_ADDRESSES, podAddresses, type ServiceAddresses } from '../facts/cluster-ranges.js';
import { APP_WORKLOADS, MESHES, type Model, type Workload } from '../facts/model.js';
import { INJECTOR_RELEASES, installedRanges } from '../facts/releases.js';
import { meshesAllowed } from '../facts/siblings.js';
import type { MeshName } from '../mesh/names.js';
import type { ProxyRanges, RangeSetting } from '../mesh/profile.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import { annotationsOf, labelsOf, nameOf, plural, str } from '../util/objects.js';
import type { K8sObject, ResourceRef } from '../util/types.js';
import { defineCheck, messages, meta, say } from './define.js';

/** What every finding of the check carries (the fields its kind of finding has). */
type Evidence = {
  setting?: string;
  ranges?: string[];
  include?: string[];
  exclude?: string[];
  from?: string;
  services?: { service: string; clusterIPs: string[] }[];
  pods?: { pod: string; addresses: string[] }[];
  nodePodRanges?: { node: string; cidr: string }[];
  nodes?: { node: string; internalIPs: string[] }[];
  node?: string;
  podCIDR?: string;
  overlappingNodes?: string[];
  add?: string[];
  source?: string;
  release?: string;
  releaseSource?: string;
  proxyNotReady?: string[];
};

const MESSAGES = messages({
  'outside-cluster': '{mesh} {name} ({ranges}, from {from}) does not contain {what}: {outside}.',
  'probes-refused':
    "The kubelet probes {mesh}'s proxies from the nodes' addresses, and {nodes} {are} outside {name} ({ranges}, from {from}): on {release} {how}, so {stuck}.",
  'not-captured':
    '{workload} is meshed by {mesh}, and its {name} ({ranges}, from {from}) {leaves} the ClusterIP of {count} selecting meshed pods ({services}): {outside}.',
  'ipv6-not-served':
    '{pods} of {workload} {have} an IPv6 address as {its} primary address ({addresses}), and on {release} {how}{setting}: the kubelet probes the pod on that address, so {proxy} is never ready{stuck}.',
  'pod-range-overlap':
    "Node {node}'s pod range {cidr} overlaps {what}: pods of that node take addresses the network already routes elsewhere, and {mesh}'s proxies there cannot reach them.",
});

/** The CIDRs of a setting, parsed ('*': undefined); once per list (a setting is asked about every pod's address). */
const parsedLists = new WeakMap<readonly string[], Cidr[]>();
const cidrsOf = (xs: readonly string[] | '*'): Cidr[] | undefined => {
  if (xs === '*') return undefined;
  let out = parsedLists.get(xs);
  if (!out) parsedLists.set(xs, (out = xs.flatMap((x) => (parseCidr(x) ? [parseCidr(x)!] : []))));
  return out;
};

/** Addresses parsed once each (a Service's ClusterIP is asked about for every meshed workload); bounded. */
const parsedIps = new Map<string, ReturnType<typeof parseIp>>();
const ipOf = (ip: string) => {
  let a = parsedIps.get(ip);
  if (a === undefined && !parsedIps.has(ip)) {
    a = parseIp(ip);
    if (parsedIps.size < 100_000) parsedIps.set(ip, a);
  }
  return a;
};

const contains = (cidrs: readonly Cidr[], ip: string) => {
  const a = ipOf(ip);
  return !!a && cidrs.some((c) => cidrContains(c, a));
};

/** inside's answers per setting (the mesh-wide one is asked about every target Service for each workload); bounded. */
const insideMemo = new WeakMap<RangeSetting, Map<string, boolean>>();

/** Whether a setting redirects (or counts as the cluster's) an address. */
function inside(s: RangeSetting, ip: string): boolean {
  let byIp = insideMemo.get(s);
  if (!byIp) insideMemo.set(s, (byIp = new Map()));
  let v = byIp.get(ip);
  if (v === undefined) {
    const inc = cidrsOf(s.include);
    const exc = cidrsOf(s.exclude) ?? [];
    v = (inc === undefined || contains(inc, ip)) && !contains(exc, ip);
    if (byIp.size < 100_000) byIp.set(ip, v);
  }
  return v;
}

const rangesText = (s: RangeSetting) =>
  [s.include === '*' ? '' : s.include.join(','), s.exclude.length ? `excluding ${s.exclude.join(',')}` : '']
    .filter(Boolean)
    .join(' ') || '*';

const list = (xs: readonly string[], n = 5) =>
  `${xs.slice(0, n).join(', ')}${xs.length > n ? `, and ${xs.length - n} more` : ''}`;

/** The active meshed pods of the mesh, per app workload. */
function meshedPods(m: Model, mesh: MeshName): { w: Workload; pods: K8sObject[] }[] {
  const out: { w: Workload; pods: K8sObject[] }[] = [];
  for (const w of m.appWorkloads) {
    const pods = (m.podStates(w).meshed.get(mesh) ?? []).filter(isActive);
    if (pods.length) out.push({ w, pods });
  }
  return out;
}

const proxyNotReady = (pods: readonly K8sObject[], proxy: string) =>
  pods.filter((p) => statuses(p).some((s) => str(s.name) === proxy && s.ready === false)).map(nameOf);

/** The mesh-wide setting's findings of a `cluster` role: destinations and node addresses outside it. */
function* clusterFindings(
  m: Model,
  mesh: MeshName,
  r: ProxyRanges,
  cpNs: readonly string[],
  meshed: { w: Workload; pods: K8sObject[] }[],
) {
  const p = profileOf(mesh);
  const setting = r.meshWide(m, cpNs);
  if (!setting) return;
  const addrs = m.fact(CLUSTER_ADDRESSES);
  const services = addrs.services.filter((s) => s.clusterIPs.some((ip) => !inside(setting, ip)));
  const pods = meshed.flatMap(({ pods }) => pods).filter((pod) => podAddresses(pod).some((ip) => !inside(setting, ip)));
  const nodeRanges = addrs.nodes.flatMap((n) =>
    n.podCIDRs.filter((c) => !inside(setting, c.text.split('/')[0]!)).map((c) => ({ node: n.name, cidr: c.text })),
  );
  // The object the setting was read from (a ConfigMap of the control plane), else the control plane's namespace's.
  const at = /ConfigMap ([^\s/]+)\/([^\s)]+)/.exec(setting.from);
  const ref: ResourceRef = at
    ? { kind: 'ConfigMap', namespace: at[1]!, name: at[2]! }
    : { kind: 'Namespace', name: cpNs[0] ?? p.controlPlane.namespace };
  const ns = at?.[1] ?? cpNs[0] ?? p.controlPlane.namespace;
  const missing = [
    ...new Set([
      ...nodeRanges.map((x) => x.cidr),
      ...[...services.flatMap((s) => s.clusterIPs), ...pods.flatMap(podAddresses)]
        .filter((ip) => !inside(setting, ip) && !nodeRanges.some((x) => contains([parseCidr(x.cidr)!], ip)))
        .map((ip) => enclosingRange(parseIp(ip)!)),
    ]),
  ]
    .sort()
    .slice(0, 16);
  if (services.length || pods.length || nodeRanges.length) {
    const what = [
      services.length
        ? `the ClusterIP of ${plural(services.length, 'Service')} (${list(services.map((s) => `${s.namespace}/${s.name} ${s.clusterIPs.join(',')}`))})`
        : '',
      pods.length
        ? `the address of ${plural(pods.length, 'meshed pod')} (${list(pods.map((x) => `${x.metadata?.namespace}/${nameOf(x)} ${podAddresses(x).join(',')}`))})`
        : '',
      nodeRanges.length
        ? `the pod range of ${plural(nodeRanges.length, 'node')} (${list(nodeRanges.map((x) => `${x.node} ${x.cidr}`))})`
        : '',
    ]
      .filter(Boolean)
      .join(', ');
    yield {
      mesh,
      ...say(MESSAGES, 'outside-cluster', {
        mesh: meshTitle(mesh),
        name: setting.name,
        ranges: rangesText(setting),
        from: setting.from,
        what,
        outside: r.outside,
      }),
      resource: ref,
      affectedPods: pods.length,
      evidence: <Evidence>{
        setting: setting.name,
        ranges: setting.include === '*' ? ['*'] : [...setting.include],
        from: setting.from,
        services: services.slice(0, 20).map((s) => ({ service: `${s.namespace}/${s.name}`, clusterIPs: s.clusterIPs })),
        pods: pods
          .slice(0, 20)
          .map((x) => ({ pod: `${x.metadata?.namespace}/${nameOf(x)}`, addresses: podAddresses(x) })),
        nodePodRanges: nodeRanges.slice(0, 20),
        add: missing,
        source: r.source,
      },
      fix: [
        comment`the ranges below hold the addresses outside. the Service range is the API server flag --service-cluster-ip-range, the pod ranges are the nodes spec.podCIDRs: prefer those where you know them`,
        ...r.fix(setting, missing, ns),
      ],
    };
  }
  // Node addresses the kubelet probes from, where the release refuses probes from outside the ranges.
  const rel = installedRanges(m, mesh);
  if (rel?.ranges.probes?.outside !== 'refused') return;
  const nodes = addrs.nodes.filter((n) => n.internalIPs.some((ip) => !inside(setting, ip)));
  if (!nodes.length) return;
  const meshedPodsAll = meshed.flatMap((x) => x.pods);
  const stuck = proxyNotReady(meshedPodsAll, p.containers.proxy);
  const add = [...new Set(nodes.flatMap((n) => n.internalIPs.filter((ip) => !inside(setting, ip))))]
    .map((ip) => (parseIp(ip)!.family === 'IPv4' ? `${ip}/32` : `${ip}/128`))
    .sort()
    .slice(0, 16);
  yield {
    mesh,
    ...say(MESSAGES, 'probes-refused', {
      mesh: meshTitle(mesh),
      nodes: `${plural(nodes.length, 'node')} (${list(nodes.map((n) => `${n.name} ${n.internalIPs.join(',')}`))})`,
      are: nodes.length === 1 ? 'is' : 'are',
      name: setting.name,
      ranges: rangesText(setting),
      from: setting.from,
      release: rel.release,
      how: rel.ranges.probes.how,
      stuck: stuck.length
        ? `${plural(stuck.length, 'pod')} with ${p.containers.proxy} not ready now (${list(stuck)}) are refused their probe, HTTP 403`
        : `a meshed pod under such a policy is refused its probe, HTTP 403`,
    }),
    resource: ref,
    affectedPods: stuck.length,
    evidence: <Evidence>{
      setting: setting.name,
      ranges: setting.include === '*' ? ['*'] : [...setting.include],
      from: setting.from,
      nodes: nodes.slice(0, 20).map((n) => ({ node: n.name, internalIPs: n.internalIPs })),
      release: rel.release,
      releaseSource: rel.ranges.probes.source,
      proxyNotReady: stuck.slice(0, 20),
      add,
    },
    fix: r.fix(setting, add, ns),
  };
}

/** The `captured` role: per meshed workload, the meshed Services its setting does not redirect. */
function* capturedFindings(
  m: Model,
  mesh: MeshName,
  r: ProxyRanges,
  cpNs: readonly string[],
  meshed: { w: Workload; pods: K8sObject[] }[],
) {
  const meshWide = r.meshWide(m, cpNs);
  const addrs = m.fact(CLUSTER_ADDRESSES);
  // The Services selecting meshed pods of this mesh.
  // By namespace: a Service selects pods of its own namespace only (the same matches, without a scan of every pod).
  const meshedLabels = new Map<string, Record<string, string>[]>();
  for (const { pods } of meshed)
    for (const pod of pods) {
      const ns = String(pod.metadata?.namespace);
      const l = meshedLabels.get(ns);
      if (l) l.push(labelsOf(pod));
      else meshedLabels.set(ns, [labelsOf(pod)]);
    }
  const targets: ServiceAddresses[] = addrs.services.filter(
    (s) =>
      Object.keys(s.selector).length > 0 &&
      (meshedLabels.get(s.namespace) ?? []).some((l) => Object.entries(s.selector).every(([k, v]) => l[k] === v)),
  );
  if (!targets.length) return;
  let n = 0;
  for (const { w, pods } of meshed) {
    if (n >= 50) return;
    // The template's annotations, and what its pods carry now (a pod may predate the template or have been patched).
    const ann = Object.assign({}, annotationsOf(w.template), ...pods.slice(0, 20).map((x) => annotationsOf(x)));
    const own = r.forPod(ann, meshWide);
    const setting = own ?? meshWide;
    if (!setting || (setting.include === '*' && setting.exclude.length === 0)) continue;
    const left = targets.filter((s) => s.clusterIPs.some((ip) => !inside(setting, ip)));
    if (!left.length) continue;
    n++;
    const ips = [...new Set(left.flatMap((s) => s.clusterIPs.filter((ip) => !inside(setting, ip))))];
    const excluding = setting.exclude.filter((x) =>
      ips.some((ip) => contains([parseCidr(x)].filter(Boolean) as Cidr[], ip)),
    );
    const leaves = excluding.length ? `excludes ${excluding.join(',')}, which holds` : 'does not include';
    let fix: Step[];
    if (own) {
      const key =
        setting.name.split(' and ').find((k) => (excluding.length ? /xclude/i.test(k) : /nclude/i.test(k))) ??
        setting.name;
      const value = excluding.length
        ? setting.exclude.filter((x) => !excluding.includes(x)).join(',')
        : [...(setting.include === '*' ? [] : setting.include), ...ips.map((ip) => enclosingRange(parseIp(ip)!))].join(
            ',',
          );
      fix = [
        comment`narrow the ranges to the addresses meant to bypass the proxy, such as the API server address alone. new pods read the annotation: the workload rolls out with it`,
        ...setOnTemplate(w, 'annotations', key, value),
      ];
    } else
      fix = r.fix(
        setting,
        excluding.length ? excluding : ips.map((ip) => enclosingRange(parseIp(ip)!)),
        cpNs[0] ?? profileOf(mesh).controlPlane.namespace,
      );
    yield {
      mesh,
      ...say(MESSAGES, 'not-captured', {
        workload: `${w.kind} ${w.namespace}/${w.name}`,
        mesh: meshTitle(mesh),
        name: setting.name,
        ranges: rangesText(setting),
        from: setting.from,
        leaves,
        count: plural(left.length, 'Service'),
        services: list(left.map((s) => `${s.namespace}/${s.name} ${s.clusterIPs.join(',')}`)),
        outside: r.outside,
      }),
      resource: { kind: w.kind, namespace: w.namespace, name: w.name } as ResourceRef,
      affectedPods: pods.length,
      evidence: <Evidence>{
        setting: setting.name,
        include: setting.include === '*' ? ['*'] : [...setting.include],
        exclude: [...setting.exclude],
        from: setting.from,
        services: left.slice(0, 20).map((s) => ({ service: `${s.namespace}/${s.name}`, clusterIPs: s.clusterIPs })),
        source: r.source,
      },
      fix,
    };
  }
}

/** Meshed pods whose primary address is IPv6 on a release whose proxy does not serve IPv6. */
function* ipv6Findings(
  m: Model,
  mesh: MeshName,
  r: ProxyRanges,
  cpNs: readonly string[],
  meshed: { w: Workload; pods: K8sObject[] }[],
) {
  const rel = installedRanges(m, mesh);
  const v6 = rel?.ranges.ipv6;
  if (!rel || !v6 || v6.serves === 'yes') return;
  const setting = v6.serves === 'setting' ? r.ipv6Setting?.(m, cpNs) : undefined;
  if (v6.serves === 'setting' && (!setting || setting.on)) return;
  const p = profileOf(mesh);
  for (const { w, pods } of meshed.slice(0, 200)) {
    const six = pods.filter((pod) => parseIp(podAddresses(pod)[0])?.family === 'IPv6');
    if (!six.length) continue;
    const stuck = proxyNotReady(six, p.containers.proxy);
    yield {
      mesh,
      ...say(MESSAGES, 'ipv6-not-served', {
        pods: plural(six.length, 'pod'),
        workload: `${w.kind} ${w.namespace}/${w.name}`,
        have: six.length === 1 ? 'has' : 'have',
        its: six.length === 1 ? 'its' : 'their',
        addresses: list(
          six.map((x) => `${nameOf(x)} ${podAddresses(x)[0]}`),
          3,
        ),
        release: rel.release,
        how: v6.how,
        setting: setting ? ` (${setting.from})` : '',
        proxy: p.containers.proxy,
        stuck: stuck.length ? ` (not ready now: ${list(stuck, 3)})` : '',
      }),
      resource: { kind: w.kind, namespace: w.namespace, name: w.name } as ResourceRef,
      affectedPods: six.length,
      evidence: <Evidence>{
        pods: six.slice(0, 20).map((x) => ({ pod: nameOf(x), addresses: podAddresses(x) })),
        release: rel.release,
        releaseSource: v6.source,
        ...(setting ? { setting: setting.from } : {}),
        proxyNotReady: stuck.slice(0, 20),
      },
      fix: setting
        ? setting.fix
        : [
            comment`this release of ${meshTitle(mesh)} cannot serve an IPv6 pod: upgrade to a release that can, or give the pods an IPv4 primary address`,
          ],
    };
  }
}

/** Nodes' pod ranges overlapping a node's own address or a Service's ClusterIP (once, for the first mesh in use). */
function* overlapFindings(m: Model, mesh: MeshName) {
  const addrs = m.fact(CLUSTER_ADDRESSES);
  let n = 0;
  for (const node of addrs.nodes) {
    for (const c of node.podCIDRs) {
      if (n >= 20) return;
      const nodes = addrs.nodes.filter((x) => x.internalIPs.some((ip) => contains([c], ip)));
      const svcs = addrs.services.filter((s) => s.clusterIPs.some((ip) => contains([c], ip)));
      const others = addrs.nodes.filter((x) => x !== node && x.podCIDRs.some((o) => cidrsOverlap(o, c)));
      if (!nodes.length && !svcs.length && !others.length) continue;
      n++;
      const what = [
        nodes.length
          ? `the InternalIP of ${list(
              nodes.map((x) => `${x.name} ${x.internalIPs.join(',')}`),
              3,
            )}`
          : '',
        svcs.length
          ? `the ClusterIP of ${list(
              svcs.map((s) => `Service ${s.namespace}/${s.name} ${s.clusterIPs.join(',')}`),
              3,
            )}`
          : '',
        others.length
          ? `the pod range of ${list(
              others.map((x) => `node ${x.name} ${x.podCIDRs.map((o) => o.text).join(',')}`),
              3,
            )}`
          : '',
      ]
        .filter(Boolean)
        .join(', ');
      yield {
        mesh,
        ...say(MESSAGES, 'pod-range-overlap', { node: node.name, cidr: c.text, what, mesh: meshTitle(mesh) }),
        resource: { kind: 'Node', name: node.name } as ResourceRef,
        affectedPods: 0,
        evidence: <Evidence>{
          node: node.name,
          podCIDR: c.text,
          nodes: nodes.map((x) => ({ node: x.name, internalIPs: x.internalIPs })),
          services: svcs.slice(0, 10).map((s) => ({ service: `${s.namespace}/${s.name}`, clusterIPs: s.clusterIPs })),
          overlappingNodes: others.map((x) => x.name),
        },
        fix: [
          comment`the pod ranges come from the controller manager flag --cluster-cidr and node-cidr-mask-size, or from the CNI plugin pool: choose a pod range apart from the node network and the Service range --service-cluster-ip-range, then recreate the node so that it gets a new spec.podCIDR`,
        ],
      };
    }
  }
}

export default defineCheck({
  ...meta('mesh-ranges-miss-cluster'),
  facts: [APP_WORKLOADS, MESHES, CLUSTER_ADDRESSES, INJECTOR_RELEASES],
  messages: MESSAGES,
  *run(m) {
    let overlapDone = false;
    for (const mesh of meshesAllowed(m).filter((x) => m.meshPossible(x))) {
      const r = profileOf(mesh).ranges;
      const meshed = meshedPods(m, mesh);
      if (!meshed.length) continue;
      if (!overlapDone) {
        overlapDone = true;
        yield* overlapFindings(m, mesh);
      }
      if (!r) continue;
      const cpNs = m.mesh(mesh)?.namespaces.length
        ? m.mesh(mesh)!.namespaces
        : [profileOf(mesh).controlPlane.namespace];
      if (r.role === 'cluster') yield* clusterFindings(m, mesh, r, cpNs, meshed);
      else yield* capturedFindings(m, mesh, r, cpNs, meshed);
      yield* ipv6Findings(m, mesh, r, cpNs, meshed);
    }
  },
});
