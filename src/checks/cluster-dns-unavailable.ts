/**
 * cluster-dns-unavailable — the cluster DNS the injected proxies find their control plane through has no ready
 * endpoint (issue 31, gen10net): kube-system/kube-dns (or OpenShift's openshift-dns/dns-default) whose pods are all
 * not ready (Pending, crash-looping, scaled to zero) or whose EndpointSlices list no ready address
 * (src/facts/cluster-dns.ts).
 *
 * Why: every mesh's proxy dials its control plane by name (the profile's `network.endpoints`: Linkerd's
 * linkerd-identity-headless and linkerd-dst, istiod.<ns>.svc, kuma-control-plane, consul-server), so with the cluster
 * DNS down no newly started proxy becomes ready, and the pod looks like any other pod stuck at 1/2 Ready: "Failed to
 * resolve control-plane component" (linkerd/linkerd2#5932, #7938), "lookup istiod.istio-system.svc on ...:53: no such
 * host" (istio/istio#36186). proxy-cannot-start would call it a proxy not ready for a reason meshdoctor does not know;
 * it leaves those pods to this check.
 * When: the mesh is in use (active meshed pods of app workloads), the DNS Service's namespace is one this run sees
 * (readsOtherNamespaces), and its pods (or its EndpointSlices) were read. One finding per mesh, on the Service.
 * Known false positives: a cluster whose pods resolve through another DNS (a NodeLocal DNS cache that still answers from
 * its cache for a while, a dnsConfig of their own): the finding names the pods whose proxy is not ready now.
 * Fix: bring the DNS back (its Deployment's replicas, the scheduler's or the kubelet's reason for its pods); the proxies
 * retry on their own, and a pod that gave up is re-created.
 */
import { cmd, comment, type Step } from '../fix/steps.js';
import { CLUSTER_DNS_DOWN, NODE_LOCAL_DNS_DOWN } from '../facts/cluster-dns.js';
import { APP_WORKLOADS, MESHES } from '../facts/model.js';
import { meshesAllowed } from '../facts/siblings.js';
import { statuses } from '../k8s/health.js';
import { isActive } from '../k8s/pods.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import { isObj, nameOf, plural, str } from '../util/objects.js';
import type { Model } from '../facts/model.js';
import type { K8sObject } from '../util/types.js';
import { defineCheck, messages, meta, say } from './define.js';

/** What the findings carry (the cluster DNS Service, or the NodeLocal cache's DaemonSet). */
type DnsEvidence = {
  service: string;
  clusterIP?: string;
  why: string;
  dnsPods: { pod: string; node?: string; phase?: string; waiting?: string; unschedulable?: string }[];
  deployment?: { name: string; replicas?: number; readyReplicas?: number };
  names: string[];
  proxyNotReady: string[];
};

const MESSAGES = messages({
  'node-local-down':
    "The NodeLocal DNS cache {daemonSet} is not ready on {nodes}, where the pods resolve names through it: {mesh}'s proxies of {count} there cannot find {names}, so they never become ready{stuck}.",
  down: "The cluster DNS {service} has no ready endpoint ({why}{pods}): {mesh}'s proxies find {names} through it, so a proxy that starts now never becomes ready{stuck}.",
});

const list = (xs: readonly string[], n = 5) =>
  `${xs.slice(0, n).join(', ')}${xs.length > n ? `, and ${xs.length - n} more` : ''}`;

/** Meshed pods on nodes whose NodeLocal DNS cache is not ready (the cluster DNS itself answering). */
function* nodeLocal(m: Model) {
  const down = m.fact(NODE_LOCAL_DNS_DOWN);
  if (!down) return;
  for (const mesh of meshesAllowed(m).filter((x) => m.meshPossible(x))) {
    const p = profileOf(mesh);
    const there = m.appWorkloads
      .flatMap((w) => (m.podStates(w).meshed.get(mesh) ?? []).filter(isActive))
      .filter((pod) => down.nodes.has((isObj(pod.spec) ? str(pod.spec.nodeName) : undefined) ?? ''));
    if (!there.length) continue;
    const nodes = [...new Set(there.map((pod) => String((pod.spec as Record<string, unknown>).nodeName)))].sort();
    const stuck = there
      .filter((pod) => statuses(pod).some((x) => str(x.name) === p.containers.proxy && x.ready === false))
      .map((pod) => `${pod.metadata?.namespace}/${nameOf(pod)}`)
      .sort();
    const cpNs = m.mesh(mesh)?.namespaces[0] ?? p.controlPlane.namespace;
    const names = [...new Set((p.network?.endpoints ?? []).map((e) => `${e.service}.${cpNs}`))];
    const cache = down.nodes.get(nodes[0]!)!;
    yield {
      mesh,
      ...say(MESSAGES, 'node-local-down', {
        daemonSet: `${down.namespace}/${down.daemonSet}`,
        nodes: list(
          nodes.map(
            (n) =>
              `${n} (pod ${down.nodes.get(n)!.pod} ${down.nodes.get(n)!.waiting ?? down.nodes.get(n)!.phase ?? 'not ready'})`,
          ),
          3,
        ),
        mesh: meshTitle(mesh),
        count: plural(there.length, 'meshed pod'),
        names: names.length ? list(names, 4) : 'their control plane',
        stuck: stuck.length
          ? `: ${plural(stuck.length, 'pod')} with ${p.containers.proxy} not ready now (${list(stuck)})`
          : '',
      }),
      resource: { kind: 'DaemonSet', namespace: down.namespace, name: down.daemonSet },
      affectedPods: stuck.length,
      evidence: <DnsEvidence>{
        service: `${down.namespace}/${down.daemonSet}`,
        why: 'its pod on the node is not ready',
        dnsPods: nodes.slice(0, 10).map((n) => ({
          pod: down.nodes.get(n)!.pod,
          node: n,
          ...(down.nodes.get(n)!.waiting ? { waiting: down.nodes.get(n)!.waiting } : {}),
        })),
        names,
        proxyNotReady: stuck.slice(0, 20),
      },
      fix: [
        comment`the events of the cache pod say why it is not ready on the node`,
        cmd`kubectl -n ${down.namespace} describe pod ${cache.pod}`,
        comment`the proxies retry on their own once the cache answers, and a pod that gave up is re-created by a restart of its workload`,
      ],
    };
  }
}

export default defineCheck({
  ...meta('cluster-dns-unavailable'),
  facts: [APP_WORKLOADS, MESHES, CLUSTER_DNS_DOWN, NODE_LOCAL_DNS_DOWN],
  messages: MESSAGES,
  *run(m) {
    const dns = m.fact(CLUSTER_DNS_DOWN);
    if (!dns) {
      yield* nodeLocal(m);
      return;
    }
    for (const mesh of meshesAllowed(m).filter((x) => m.meshPossible(x))) {
      const p = profileOf(mesh);
      const meshed: K8sObject[] = m.appWorkloads.flatMap((w) =>
        (m.podStates(w).meshed.get(mesh) ?? []).filter(isActive),
      );
      if (!meshed.length) continue;
      const stuck = meshed
        .filter((pod) => statuses(pod).some((s) => str(s.name) === p.containers.proxy && s.ready === false))
        .map((pod) => `${pod.metadata?.namespace}/${nameOf(pod)}`)
        .sort();
      const cpNs = m.mesh(mesh)?.namespaces[0] ?? p.controlPlane.namespace;
      const names = [...new Set((p.network?.endpoints ?? []).map((e) => `${e.service}.${cpNs}`))];
      const podText = dns.pods.length
        ? `; pods ${list(
            dns.pods.map((x) =>
              [x.pod, x.waiting ?? x.phase, x.unschedulable ? `the scheduler: "${x.unschedulable}"` : '']
                .filter(Boolean)
                .join(' '),
            ),
            3,
          )}`
        : '';
      const fix: Step[] = [
        ...(dns.deployment?.replicas === 0
          ? [
              comment`the cluster DNS was scaled to zero: scale it back`,
              cmd`kubectl -n ${dns.namespace} scale deployment ${dns.deployment.name} --replicas=2`,
            ]
          : dns.pods.length
            ? [
                comment`the events of its pods say why they are not ready: the scheduler, the image, the kubelet`,
                cmd`kubectl -n ${dns.namespace} describe pod ${dns.pods[0]!.pod}`,
              ]
            : [
                comment`no pod serves the Service: find what should run it`,
                cmd`kubectl -n ${dns.namespace} get deployments,pods -o wide`,
              ]),
        comment`the proxies retry on their own once the DNS answers, and a pod that gave up is re-created by a restart of its workload`,
      ];
      yield {
        mesh,
        ...say(MESSAGES, 'down', {
          service: `${dns.namespace}/${dns.service}${dns.clusterIP ? ` (${dns.clusterIP})` : ''}`,
          why: dns.why,
          pods: podText,
          mesh: meshTitle(mesh),
          names: names.length ? list(names, 4) : 'their control plane',
          stuck: stuck.length
            ? `: ${plural(stuck.length, 'meshed pod')} with ${p.containers.proxy} not ready now (${list(stuck)})`
            : '',
        }),
        resource: { kind: 'Service', namespace: dns.namespace, name: dns.service },
        affectedPods: stuck.length,
        evidence: <DnsEvidence>{
          service: `${dns.namespace}/${dns.service}`,
          ...(dns.clusterIP ? { clusterIP: dns.clusterIP } : {}),
          why: dns.why,
          dnsPods: dns.pods,
          ...(dns.deployment ? { deployment: dns.deployment } : {}),
          names,
          proxyNotReady: stuck.slice(0, 20),
        },
        fix,
      };
    }
  },
});
