/**
 * proxy-egress-blocked — meshed pods whose namespace isolates them for egress (a NetworkPolicy
 * with Egress in policyTypes selects them) and lets no packet out to the control-plane endpoints
 * their injected containers dial (the profile's `network`: istiod 15012; Linkerd identity 8080,
 * destination 8086, policy 8090; the dp-server 5678; the servers' 8502 and 8500/8501), or
 * to port 53 anywhere (the cluster DNS that finds them): the proxy is injected and never ready.
 *
 * Why: a "default deny egress" policy, or one listing only the app's own peers, is a common
 * hardening step, and the pod looks like any other pod stuck at 1/2 Ready: the proxy's log says
 * "i/o timeout" or "Failed to connect", its readiness probe fails, nothing names the policy
 * (istio/istio#31717, #32945, #35569; linkerd/linkerd2#3620; hashicorp/consul-k8s#1814, #2354).
 * When: NetworkPolicies of the namespace were read; app workloads meshed by the mesh (active pods
 * with its proxy, or a template it injects); Kubernetes' egress semantics (src/k8s/networkpolicy.ts):
 * for every port of an endpoint, no rule of the policies selecting the pod admits TCP to one of
 * the endpoint's pods (as read, else the chart's labels in the control-plane namespace; an ipBlock
 * is given the benefit of the doubt where the pod's IP is unknown); DNS: no rule admits port 53,
 * UDP or TCP, to any destination. One finding per namespace, policies and endpoints cut off.
 * DNS (issue 31): judged against the cluster DNS's pods on the ports they listen on behind Service port 53, where
 * kube-system/kube-dns or openshift-dns/dns-default and their pods were read (a rule for 53 misses CoreDNS on 8053,
 * istio/istio#14736, and OpenShift's 5353); else port 53 to any destination.
 * The other end (issue 31, gen8net): a NetworkPolicy of the control plane's namespace that isolates the
 * endpoint's pods (istiod, Linkerd's destination and identity, kuma-cp, Consul's servers) for ingress and admits
 * none of the meshed pods on the endpoint's ports (a lockdown admitting only the webhook port or the gateways) cuts
 * the same path (src/facts/proxy-network.ts CONTROL_PLANE_INGRESS, src/k8s/networkpolicy.ts ingressFrom; judged
 * against the endpoint's pods as read, never the chart's labels alone). Fix: a policy admitting the meshed
 * namespaces to those pods on the ports.
 * Known false positives: a network plugin that does not enforce NetworkPolicies; a CNI's own policy
 * kinds (CiliumNetworkPolicy, Calico's) are not read and may open or close more.
 * Fix: a NetworkPolicy admitting the egress (policies add up: the others stay as they are), to the
 * control plane's pods on the ports and to the cluster DNS on 53; or the rule added where the
 * manifest is. Then the proxies connect on their own (re-create pods that gave up).
 */
import { cmd, comment, type Step } from '../fix/steps.js';
import {
  controlPlaneIngress,
  proxyPaths,
  type ControlPlaneIngress,
  type ProxyPath,
  CONTROL_PLANE_INGRESS,
  PROXY_PATHS,
} from '../facts/proxy-network.js';
import type { Model } from '../facts/model.js';
import type { MeshName } from '../mesh/names.js';
import { meshesAllowed } from '../facts/siblings.js';
import { statuses } from '../k8s/health.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import { hasControl } from '../util/errors.js';
import { nameOf, plural, str } from '../util/objects.js';
import type { K8sObject, ResourceRef } from '../util/types.js';
import { defineCheck, messages, meta, say } from './define.js';

/** The pods whose proxy container reports not ready. */
function notReady(pods: readonly K8sObject[], proxy: string): string[] {
  return pods
    .filter((p) => statuses(p).some((s) => str(s.name) === proxy && s.ready === false))
    .map(nameOf)
    .sort();
}

/** The ports of the cluster DNS to admit: its pods' ports as read, else 53 over UDP and TCP. */
const dnsPorts = (path: ProxyPath) =>
  path.dns?.ports.length
    ? path.dns.ports
    : [
        { protocol: 'UDP', port: 53 },
        { protocol: 'TCP', port: 53 },
      ];

/** What the rules do not reach of the cluster DNS, in words. */
function dnsText(path: ProxyPath): string {
  const d = path.dns;
  if (!d) return 'the cluster DNS (port 53)';
  const ports = d.ports.map((x) => `${x.protocol} ${x.port}`).join(' and ');
  const pods = `${d.pods.map((x) => `${d.namespace}/${x}`).join(', ')}`;
  const moved = d.ports.some((x) => x.port !== 53);
  return moved && d.admits53
    ? `the cluster DNS: its pods (${pods}) listen on ${ports} behind Service ${d.namespace}/${d.service} port 53, and a NetworkPolicy port is the destination pod's port after the Service's translation, so the rules admitting port 53 admit no DNS`
    : `the cluster DNS (its pods ${pods}, on ${ports} behind Service ${d.namespace}/${d.service})`;
}

/** The policy to apply: egress from every pod of the namespace to the endpoints and to the cluster DNS (kube-system). */
function allowPolicy(path: ProxyPath, name: string): Step | undefined {
  const egress: unknown[] = path.blocked.map((b) => ({
    to: [
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': b.namespace } },
        podSelector: { matchLabels: { ...b.endpoint.podLabels } },
      },
    ],
    ports: b.endpoint.ports.map((port) => ({ protocol: 'TCP', port })),
  }));
  if (path.dnsBlocked)
    egress.push({
      to: [
        { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': path.dns?.namespace ?? 'kube-system' } } },
      ],
      ports: dnsPorts(path).map(({ port, protocol }) => ({ protocol, port })),
    });
  const policy = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name, namespace: path.namespace },
    spec: { podSelector: {}, policyTypes: ['Egress'], egress },
  };
  const json = JSON.stringify(policy);
  if (hasControl(json)) return undefined;
  return cmd`printf %s ${json} | kubectl apply -f -`;
}

const MESSAGES = messages({
  'egress-isolated':
    'NetworkPolicy {policy}{others} isolates the egress of {workloads} meshed by {mesh} ({ids}) and admits no traffic to {blocked}, so {symptom}{notReady}.',
  'ingress-refused':
    "NetworkPolicy {policy}{others} of the {mesh} control plane's namespace isolates {service} ({role}; pods {pods}) for ingress and admits no traffic on {ports} from {workloads} meshed by {mesh} ({ids}), so {symptom}{notReady}.",
});

/** The policy to apply in the control plane's namespace: ingress to the endpoint's pods from the meshed pods' namespaces. */
function allowIngress(c: ControlPlaneIngress, name: string): Step | undefined {
  const namespaces = [...new Set(c.workloads.map((w) => w.namespace))].sort();
  const policy = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name, namespace: c.namespace },
    spec: {
      podSelector: { matchLabels: { ...c.endpoint.podLabels } },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: namespaces.map((ns) => ({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } })),
          ports: c.endpoint.ports.map((port) => ({ protocol: 'TCP', port })),
        },
      ],
    },
  };
  const json = JSON.stringify(policy);
  if (hasControl(json)) return undefined;
  return cmd`printf %s ${json} | kubectl apply -f -`;
}

/** The findings of the control plane's own ingress policies (issue 31, gen8net). */
function* ingressFindings(m: Model, mesh: MeshName) {
  const p = profileOf(mesh);
  for (const c of controlPlaneIngress(m, mesh)) {
    const chosen = c.policies[0]!;
    const ids = c.workloads.map((w) => `${w.kind} ${w.namespace}/${w.name}`).sort();
    const stuck = notReady(c.meshedPods, p.containers.proxy);
    const allow = allowIngress(c, `allow-meshed-to-${c.endpoint.service}`.slice(0, 63).replace(/-+$/, ''));
    yield {
      mesh,
      ...say(MESSAGES, 'ingress-refused', {
        policy: `${c.namespace}/${chosen}`,
        others: c.policies.length > 1 ? ` (with ${c.policies.slice(1).join(', ')})` : '',
        mesh: meshTitle(mesh),
        service: c.endpoint.service,
        role: c.endpoint.role,
        pods: c.pods.slice(0, 3).join(', ') + (c.pods.length > 3 ? ', ...' : ''),
        ports: c.endpoint.ports.map((x) => `TCP ${x}`).join(' or '),
        workloads: plural(c.workloads.length, 'workload'),
        ids: `${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', ...' : ''}`,
        symptom: p.network!.symptom,
        notReady: stuck.length ? `: ${plural(stuck.length, 'pod')} with ${p.containers.proxy} not ready now` : '',
      }),
      resource: { kind: 'NetworkPolicy', namespace: c.namespace, name: chosen } as ResourceRef,
      affectedPods: c.meshedPods.length,
      evidence: {
        policies: c.policies,
        workloads: ids,
        blocked: [
          {
            service: c.endpoint.service,
            namespace: c.namespace,
            ports: [...c.endpoint.ports],
            role: c.endpoint.role,
            from: c.endpoint.from,
            source: c.endpoint.source,
            destinationPods: c.pods.slice(0, 10) as string[] | string,
          },
        ],
        dnsBlocked: false,
        ingress: true,
        proxyNotReady: stuck.slice(0, 20),
      },
      fix: [
        comment`NetworkPolicies add up: a policy admitting the meshed namespaces to ${c.endpoint.service} on TCP ${c.endpoint.ports.join(' or ')} leaves ${chosen} as it is`,
        ...(allow ? [allow] : [cmd`kubectl -n ${c.namespace} edit networkpolicy ${chosen}`]),
      ],
    };
  }
}

export default defineCheck({
  ...meta('proxy-egress-blocked'),
  facts: [PROXY_PATHS, CONTROL_PLANE_INGRESS],
  messages: MESSAGES,
  *run(m) {
    for (const mesh of meshesAllowed(m).filter((x) => m.meshPossible(x))) {
      yield* ingressFindings(m, mesh);
      const p = profileOf(mesh);
      for (const path of proxyPaths(m, mesh)) {
        const chosen =
          path.policies.find((n) => m.manifestSource({ kind: 'NetworkPolicy', namespace: path.namespace, name: n })) ??
          path.policies[0]!;
        const resource: ResourceRef = { kind: 'NetworkPolicy', namespace: path.namespace, name: chosen };
        const source = m.manifestSource(resource);
        const cut = [
          ...path.blocked.map(
            (b) =>
              `${b.endpoint.service} (${b.endpoint.ports.map((x) => `TCP ${x}`).join(' or ')}, ${b.endpoint.role}) in ${b.namespace}`,
          ),
          ...(path.dnsBlocked ? [dnsText(path)] : []),
        ];
        const ids = path.workloads.map((w) => `${w.kind} ${w.name}`).sort();
        const stuck = notReady(path.pods, p.containers.proxy);
        const name = `allow-${mesh}-control-plane`;
        const allow = allowPolicy(path, name);
        const fix: Step[] = source
          ? [
              comment`in ${source.file} document ${source.document}, add to spec.egress of NetworkPolicy ${chosen} rules admitting ${path.blocked.map((b) => `${b.endpoint.service} in ${b.namespace} on TCP ${b.endpoint.ports.join(' or ')}`).join(', ')}${
                path.dnsBlocked
                  ? `, and ${dnsPorts(path)
                      .map((x) => `${x.protocol} ${x.port}`)
                      .join(' and ')} to the cluster DNS`
                  : ''
              }`,
            ]
          : [
              comment`NetworkPolicies add up: a policy admitting this egress to the pods of ${path.namespace} leaves ${chosen} as it is. servers outside the cluster need an ipBlock rule instead`,
              ...(allow ? [allow] : [cmd`kubectl -n ${path.namespace} edit networkpolicy ${chosen}`]),
            ];
        if (stuck.length)
          fix.push(
            comment`the proxies retry on their own, and the log of one that gave up says so`,
            cmd`kubectl -n ${path.namespace} logs ${stuck[0]!} -c ${p.containers.proxy} --tail=50`,
          );
        yield {
          mesh,
          ...say(MESSAGES, 'egress-isolated', {
            policy: `${path.namespace}/${chosen}`,
            others: path.policies.length > 1 ? ` (with ${path.policies.filter((x) => x !== chosen).join(', ')})` : '',
            workloads: plural(path.workloads.length, 'workload'),
            mesh: meshTitle(mesh),
            ids: `${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', ...' : ''}`,
            blocked: cut.join(', '),
            symptom: p.network!.symptom,
            notReady: stuck.length ? `: ${plural(stuck.length, 'pod')} with ${p.containers.proxy} not ready now` : '',
          }),
          resource,
          affectedPods: path.pods.length,
          evidence: {
            policies: path.policies,
            workloads: ids,
            blocked: path.blocked.map((b) => ({
              service: b.endpoint.service,
              namespace: b.namespace,
              ports: [...b.endpoint.ports],
              role: b.endpoint.role,
              from: b.endpoint.from,
              source: b.endpoint.source,
              // Judged against these pods of the control plane, or (none read) against the chart's labels.
              destinationPods: b.pods.length
                ? b.pods.slice(0, 10)
                : `none read: pods labelled ${Object.entries(b.endpoint.podLabels)
                    .map(([k, v]) => `${k}=${v}`)
                    .join(',')}`,
            })),
            dnsBlocked: path.dnsBlocked,
            ingress: false,
            ...(path.dns
              ? {
                  clusterDns: {
                    service: `${path.dns.namespace}/${path.dns.service}`,
                    pods: path.dns.pods,
                    ports: path.dns.ports,
                    rulesAdmitPort53: path.dns.admits53,
                  },
                }
              : {}),
            proxyNotReady: stuck.slice(0, 20),
          },
          fix,
        };
      }
    }
  },
});
