/**
 * webhook-port-blocked — the API server cannot reach a mesh's injector on the webhook's port: a
 * NetworkPolicy in the injector's namespace selects its pods and admits no traffic to that port
 * from where the API server's calls come from; or, with the calls timing out on EKS or GKE and no
 * policy in the way, the provider's firewall keeps the port closed.
 *
 * Why: predicted before any pod fails. The webhook calls a Service on 443, but the packets reach
 * the pod on the Service's targetPort (8443 Linkerd, 15017 Istio, 5443 Kuma, 8080 Consul): a
 * "default deny" policy in the control plane's namespace, or one that admits only 443 or only
 * other pods, makes every call time out (failurePolicy Ignore: pods silently without a proxy;
 * Fail: pods refused). On private GKE clusters the control plane may reach the nodes only on 443
 * and 10250 (the Linkerd and Istio GKE setup pages open 8443 / 15017 by a firewall rule); on EKS
 * the security groups between the control plane and the nodes decide.
 * When: the namespace's NetworkPolicies were read and the port is known (the Service's targetPort
 * resolved to the injector's container port); per injector pod, Kubernetes' semantics
 * (src/k8s/networkpolicy.ts): selected for ingress, and no rule admits TCP on the port from
 * anywhere, from an ipBlock, or from pods of kube-system where the calls may be tunnelled
 * (konnectivity on AKS, GKE). Traffic from the pod's own node is always allowed, so a single node
 * running both the API server and the injector is left alone. The provider case needs
 * FailedCreate events of calls timing out. Silent for URL webhooks and unread namespaces.
 * The API server behind an HTTP proxy (issue 31, gen8net): a kube-apiserver pod of kube-system whose
 * environment sets HTTPS_PROXY (or https_proxy) and whose NO_PROXY has no entry matching the webhook
 * Service's host `<name>.<namespace>.svc` sends every call there (src/facts/apiserver-proxy.ts: Go's
 * NO_PROXY rules, so a CIDR of the Service range never helps); kubeadm copies the proxy variables of the
 * shell into the static pod (linkerd/linkerd2#2847, istio/istio#7266, #12441, #13575). Seen: the calls
 * the proxy answered in FailedCreate events, or the pods without a proxy under failurePolicy Ignore.
 * Silent under -n (kube-system unread) and where a snapshot did not keep NO_PROXY (webhook-call-failed
 * then names the proxy from the events).
 * A private GKE cluster failing open (issue 31, gen9path): with failurePolicy Ignore no event shows a failed call, so
 * the evidence is the provider, the nodes (GKE nodes, none with an ExternalIP: private nodes), the port (not 443 or
 * 10250, the ports GKE's own rule opens from the control plane), the injector ready, and pods the webhook is called
 * for running without a proxy (hashicorp/consul-k8s#269, linkerd/linkerd2#8707): a likely cause, said so; the firewall
 * rules are no Kubernetes objects. On EKS, FailedCreate events whose transport error is "Address is not allowed"
 * (src/k8s/admission.ts egress-refused) confirm an overlay address the control plane refuses (istio/istio#45738).
 * Known false positives: a network plugin that does not enforce NetworkPolicies (the policy is
 * then inert); a source address the API server's traffic is rewritten to that a pod rule matches;
 * a proxy that does reach the cluster's Services (rare: it resolves names outside the cluster).
 * Fix: a NetworkPolicy admitting TCP on the port to the injector's pods (policies add up: the
 * others stay as they are), or the rule added where the manifest is; on EKS and GKE the firewall
 * rule as well; for a proxy, `.svc` added to NO_PROXY and no_proxy of the kube-apiserver container.
 */
import { webhookCallFailures, apiservers, WEBHOOK_CALL_FAILURES } from '../facts/apiserver.js';
import { podsMissingProxy, webhookEvidence, PODS_MISSING_PROXY } from '../facts/controlplane.js';
import { firewallSteps, provider, webhookPaths, type WebhookPath, WEBHOOK_PATHS } from '../facts/webhook-path.js';
import { failureEffect } from '../k8s/admission.js';
import { cmd, comment, lit, type Step } from '../fix/steps.js';
import { isObj, plural, str, strMap } from '../util/objects.js';
import { overlayInsteadOfCloudCni } from '../facts/pod-network.js';
import { outsideNodeNetwork } from '../k8s/pod-network.js';
import { meshTitle as titleOf, profileOf } from '../mesh/registry.js';
import { hasControl } from '../util/errors.js';
import { podHealth } from '../k8s/health.js';
import type { K8sObject } from '../util/types.js';
import type { ResourceRef } from '../util/types.js';
import { APISERVER_PROXIED_CALLS, apiserverProxiedCalls, type ProxiedCall } from '../facts/apiserver-proxy.js';
import { APISERVER_SELECTOR } from '../k8s/apiserver.js';
import type { Model } from '../facts/model.js';
import type { MeshName } from '../mesh/names.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  'blocks-injector':
    "NetworkPolicy {policy}{withOthers} selects the {meshTitle} injector's {pods} and admits no traffic to TCP {port} (Service {service} port {servicePort} -> targetPort {targetPort}) from the API server, so calls to webhook {webhooks} time out; {effect}.",
  'blocks-injector-timed-out':
    "NetworkPolicy {policy}{withOthers} selects the {meshTitle} injector's {pods} and admits no traffic to TCP {port} (Service {service} port {servicePort} -> targetPort {targetPort}) from the API server, so calls to webhook {webhooks} time out ({timedOut} in FailedCreate events); {effect}.",
  'blocks-some-injector-pods':
    "NetworkPolicy {policy}{withOthers} selects {blocked} of the injector's {injectorPods} pods and admits no traffic to TCP {port} (Service {service} port {servicePort} -> targetPort {targetPort}) from the API server, so calls to webhook {webhooks} time out; {effect}.",
  'blocks-some-injector-pods-timed-out':
    "NetworkPolicy {policy}{withOthers} selects {blocked} of the injector's {injectorPods} pods and admits no traffic to TCP {port} (Service {service} port {servicePort} -> targetPort {targetPort}) from the API server, so calls to webhook {webhooks} time out ({timedOut} in FailedCreate events); {effect}.",
  'gke-firewall':
    'Calls from the API server to webhook {webhooks} time out ({calls} in FailedCreate events) and no NetworkPolicy blocks TCP {port} on the injector: on GKE the firewall between the control plane and the nodes must open that port; {effect}.',
  'overlay-unreachable':
    "The {meshTitle} injector ({pods}) runs on the {cni} pod network ({agent}; {addresses}) instead of the cloud's own, not on hostNetwork, and {provider}'s API server runs outside that network: it likely cannot reach webhook {webhooks} on TCP {port} at all; {effect}. Seen: {seen}.",
  'gke-private-silent':
    "The nodes of this GKE cluster have no external address (private nodes: {nodes}), whose control plane reaches them only on TCP 443 and 10250 unless a firewall rule opens more, and the {meshTitle} injector listens on TCP {port} (Service {service} port {servicePort} -> targetPort {targetPort}), with no NetworkPolicy in the way: calls to webhook {webhooks} likely never arrive. With failurePolicy Ignore the API server admits the pods without a proxy and writes no event; seen: {missing} the webhook is called for run without a proxy while {ready} of the injector's pods are ready. The firewall rules are not Kubernetes objects: not read.",
  'apiserver-proxy':
    'Pod {apiserver} sets {proxyVariable} and {noProxy}: the API server sends every call to webhook {webhooks} (Service {service}) through that HTTP proxy, which cannot reach a Service of the cluster; {effect}. Seen: {seen}.',
  'aws-security-groups':
    'Calls from the API server to webhook {webhooks} time out ({calls} in FailedCreate events) and no NetworkPolicy blocks TCP {port} on the injector: on {provider} the security groups between the control plane and the nodes must open that port; {effect}.',
});

/** The ports a managed control plane reaches the nodes on without a rule of your own (GKE private clusters). */
const OPEN_BY_DEFAULT = new Set([443, 10250]);

/** A NetworkPolicy that admits TCP `port` to the injector's pods (the Service's selector), applied from stdin. */
function allowPolicy(path: WebhookPath, name: string): Step | undefined {
  const t = path.target;
  const selector = strMap(isObj(t.service?.spec) ? t.service!.spec.selector : undefined);
  if (!Object.keys(selector).length) return undefined;
  const policy = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name, namespace: t.namespace },
    spec: {
      podSelector: { matchLabels: Object.fromEntries(Object.entries(selector).sort(([a], [b]) => (a < b ? -1 : 1))) },
      policyTypes: ['Ingress'],
      ingress: [{ ports: [{ protocol: 'TCP', port: path.port }] }],
    },
  };
  const json = JSON.stringify(policy);
  // A label with a control character would make the line unsafe to paste: edit the policy instead.
  if (hasControl(json)) return undefined;
  return cmd`printf %s ${json} | kubectl apply -f -`;
}

/**
 * The API server sending the mesh's webhook calls to its HTTP proxy (src/facts/apiserver-proxy.ts): one finding
 * per webhook Service, the API server pods that do it named. Only where NO_PROXY was read and does not cover
 * the Service host; a snapshot that did not keep NO_PROXY leaves it to the calls the events show
 * (webhook-call-failed names the proxy that answered).
 */
function* proxied(m: Model, mesh: MeshName, failures: ReturnType<typeof webhookCallFailures>) {
  const byTarget = new Map<string, ProxiedCall[]>();
  for (const c of apiserverProxiedCalls(m, mesh)) {
    if (c.verdict !== 'proxied') continue;
    const key = `${c.target.namespace}/${c.target.name}:${c.target.port}`;
    byTarget.set(key, [...(byTarget.get(key) ?? []), c]);
  }
  for (const calls of [...byTarget.values()]) {
    const c = calls[0]!;
    const t = c.target;
    const hooks = t.webhooks.map((h) => h.name);
    const answered = t.webhooks.reduce(
      (n, h) => n + (failures.get(h.name)?.causes.has('proxy') ? failures.get(h.name)!.count : 0),
      0,
    );
    const missing = podsMissingProxy(m, mesh);
    const ignore = t.webhooks.every((h) => h.failurePolicy === 'Ignore');
    const apiservers = calls.map((x) => x.apiserver);
    const [ns, name] = c.apiserver.split('/') as [string, string];
    yield {
      mesh,
      ...say(MESSAGES, 'apiserver-proxy', {
        apiserver: c.apiserver + (calls.length > 1 ? ` (and ${plural(calls.length - 1, 'other API server pod')})` : ''),
        proxyVariable: c.proxyVariable,
        noProxy: c.noProxyVariable ? `no ${c.noProxyVariable} entry covers ${c.host}` : `no NO_PROXY covers ${c.host}`,
        webhooks: hooks.join(', '),
        service: `${t.namespace}/${t.name}`,
        effect: failureEffect(t.webhooks.map((h) => h.failurePolicy)),
        seen: answered
          ? `${plural(answered, 'call')} answered by the proxy in FailedCreate events`
          : ignore
            ? `with failurePolicy Ignore the API server writes no event for a failed call; ${plural(missing, 'pod')} the webhook is called for run without a proxy`
            : 'no failed call in the events read, which expire after an hour',
      }),
      resource: { kind: 'Pod', namespace: ns, name } as ResourceRef,
      affectedPods: missing,
      causeKey: { kind: 'webhook-broken' as const, mesh },
      evidence: {
        policies: [] as string[],
        webhooks: webhookEvidence(t.webhooks),
        service: `${t.namespace}/${t.name}`,
        host: c.host,
        servicePort: c.port,
        apiservers,
        proxyVariable: c.proxyVariable,
        noProxyVariable: c.noProxyVariable,
        proxiedCalls: answered,
      },
      fix: [
        comment`the API server takes HTTPS_PROXY from its environment for webhook calls too: add .svc to NO_PROXY and no_proxy of the kube-apiserver container, in /etc/kubernetes/manifests/kube-apiserver.yaml on each control-plane node for kubeadm, and the kubelet restarts it. Then re-create the pods admitted without a proxy`,
        cmd`kubectl -n ${ns} get pods -l ${APISERVER_SELECTOR} -o name`,
      ],
    };
  }
}

/**
 * A private GKE cluster the injector's port is likely closed on, where nothing shows a failed call (issue 31, gen9path):
 * every Node read is a GKE node with no ExternalIP (private nodes: the control plane reaches them over the peering on
 * 443 and 10250 only, GKE's private cluster firewall rules; hashicorp/consul-k8s#269 and #270, linkerd/linkerd2#8707,
 * #2940, influxdata/helm-charts#584 "set to ignore failures it is almost impossible to see why sidecars are not being
 * added"), the port is another, a webhook of the target fails open, at least one injector pod is ready, and pods
 * the webhook is called for run without a proxy. Undefined otherwise (nodes not read, an ExternalIP on a node).
 */
function privateGkeSilence(
  m: Model,
  mesh: MeshName,
  path: WebhookPath,
): { nodes: string; nodeCount: number; missing: number; ready: number } | undefined {
  if (OPEN_BY_DEFAULT.has(path.port) || !m.has('nodes')) return undefined;
  // A webhook of the target that fails open (Kuma 1.x pairs Fail webhooks for labelled namespaces and pods with one
  // that fails open for the rest): a failing call of a Fail one would show as a FailedCreate event instead.
  if (!path.target.webhooks.some((h) => h.failurePolicy === 'Ignore')) return undefined;
  const nodes = m.list('nodes').slice(0, 5000);
  if (!nodes.length) return undefined;
  const addressed = (n: K8sObject) =>
    (isObj(n.status) && Array.isArray(n.status.addresses) ? n.status.addresses : []).filter(isObj);
  // Every node must show its addresses whole, its InternalIP and the Hostname every node reports (a snapshot that kept
  // only the InternalIP, as before this round, cannot show an ExternalIP: not read is not none), and none an external one.
  const whole = (n: K8sObject) => ['InternalIP', 'Hostname'].every((t) => addressed(n).some((a) => a.type === t));
  if (!nodes.every(whole)) return undefined;
  if (nodes.some((n) => addressed(n).some((a) => a.type === 'ExternalIP'))) return undefined;
  const ready = path.pods.filter((pod) => podHealth(pod).ready).length;
  const missing = podsMissingProxy(m, mesh);
  if (!ready || !missing) return undefined;
  const names = nodes.map((n) => str(n.metadata?.name) ?? '').sort();
  return {
    nodes:
      names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${plural(names.length - 3, 'other')}` : names.join(', '),
    nodeCount: names.length,
    missing,
    ready,
  };
}

/** Its evidence: the policies that block the port (with the pods they select), or, with none, what admits it while calls time out. */
type PortBlockedEvidence = { policies: string[]; [more: string]: unknown };

export default defineCheck<PortBlockedEvidence, typeof MESSAGES>({
  ...meta('webhook-port-blocked'),
  facts: [PODS_MISSING_PROXY, WEBHOOK_PATHS, WEBHOOK_CALL_FAILURES, APISERVER_PROXIED_CALLS],
  messages: MESSAGES,
  *run(m) {
    const failures = webhookCallFailures(m);
    const p = provider(m);
    const servers = apiservers(m);
    for (const { mesh } of m.meshes) {
      yield* proxied(m, mesh, failures);
      for (const path of webhookPaths(m, mesh)) {
        const t = path.target;
        const hooks = t.webhooks.map((h) => h.name);
        const timeouts = t.webhooks.reduce(
          (n, h) => n + (failures.get(h.name)?.causes.has('timeout') ? failures.get(h.name)!.count : 0),
          0,
        );
        // Calls a managed control plane's egress refused (EKS: "Address is not allowed", an address outside its VPC).
        const refused = t.webhooks.reduce(
          (n, h) => n + (failures.get(h.name)?.causes.has('egress-refused') ? failures.get(h.name)!.count : 0),
          0,
        );
        const name = `allow-apiserver-to-${t.name}`.slice(0, 63).replace(/-+$/, '');
        const allow = allowPolicy(path, name);
        const effect = failureEffect(t.webhooks.map((h) => h.failurePolicy));
        const common = {
          webhooks: webhookEvidence(t.webhooks),
          service: `${t.namespace}/${t.name}`,
          servicePort: t.port,
          targetPort: t.servicePort?.targetPort ?? null,
          containerPort: path.port,
          provider: p ?? null,
          // Confirmation from the events: calls to these webhooks that timed out.
          timedOutCalls: timeouts,
          refusedCalls: refused,
        };
        if (path.blocked.length) {
          const policies = [...new Set(path.blocked.flatMap((b) => b.policies))].sort();
          // The policy to name: one from the manifests (check -f) when there is one, else the first.
          const chosen =
            policies.find((n) => m.manifestSource({ kind: 'NetworkPolicy', namespace: t.namespace, name: n })) ??
            policies[0]!;
          const resource: ResourceRef = { kind: 'NetworkPolicy', namespace: t.namespace, name: chosen };
          const source = m.manifestSource(resource);
          const all = path.blocked.length === path.pods.length;
          const said = {
            policy: `${t.namespace}/${chosen}`,
            withOthers: policies.length > 1 ? ` (with ${policies.filter((x) => x !== chosen).join(', ')})` : '',
            port: path.port,
            service: t.name,
            servicePort: t.port,
            targetPort: String(t.servicePort?.targetPort ?? path.port),
            webhooks: hooks.join(', '),
            effect,
          };
          const timedOut = plural(timeouts, 'timed-out call');
          const everyPod = { meshTitle: titleOf(mesh), pods: plural(path.pods.length, 'pod') };
          const somePods = { blocked: path.blocked.length, injectorPods: path.pods.length };
          const fix: Step[] = source
            ? [
                comment`in ${source.file} document ${source.document}, add to spec.ingress of NetworkPolicy ${chosen} a rule admitting the API server to the webhook port: ${`{ports: [{protocol: TCP, port: ${path.port}}]}`}`,
              ]
            : [
                comment`NetworkPolicies add up: a policy admitting TCP ${path.port} to the pods of the injector opens the webhook port and leaves ${chosen} as it is. Narrower: a from rule with an ipBlock of the addresses of the control plane`,
                ...(allow ? [allow] : [cmd`kubectl -n ${t.namespace} edit networkpolicy ${chosen}`]),
              ];
          yield {
            mesh,
            ...(all
              ? timeouts
                ? say(MESSAGES, 'blocks-injector-timed-out', { ...said, ...everyPod, timedOut })
                : say(MESSAGES, 'blocks-injector', { ...said, ...everyPod })
              : timeouts
                ? say(MESSAGES, 'blocks-some-injector-pods-timed-out', { ...said, ...somePods, timedOut })
                : say(MESSAGES, 'blocks-some-injector-pods', { ...said, ...somePods })),
            resource,
            affectedPods: podsMissingProxy(m, mesh),
            causeKey: { kind: 'webhook-broken', mesh },
            evidence: {
              ...common,
              policies,
              blockedPods: path.blocked,
              injectorPods: path.pods.length,
              apiserverNodes: servers.flatMap((i) => (i.source.kind === 'Pod' && i.node ? [i.node] : [])),
            },
            fix: [...fix, ...firewallSteps(p, path.port, t.name)],
          };
          continue;
        }
        // A managed API server outside an overlay pod network: no route to the injector's pod addresses at all.
        const overlay = p === 'eks' ? overlayInsteadOfCloudCni(m) : undefined;
        const onOverlay = overlay
          ? path.pods.filter((pod) => {
              const spec = isObj(pod.spec) ? pod.spec : {};
              const ip = isObj(pod.status) ? str(pod.status.podIP) : undefined;
              return spec.hostNetwork !== true && outsideNodeNetwork(ip, m.list('nodes')) !== false;
            })
          : [];
        if (overlay && path.pods.length > 0 && onOverlay.length === path.pods.length) {
          const ips = onOverlay.flatMap((pod) =>
            isObj(pod.status) && str(pod.status.podIP) ? [str(pod.status.podIP)!] : [],
          );
          const missing = podsMissingProxy(m, mesh);
          const ignore = t.webhooks.every((h) => h.failurePolicy === 'Ignore');
          const hn = profileOf(mesh).controlPlane.injector.hostNetwork;
          yield {
            mesh,
            ...say(MESSAGES, 'overlay-unreachable', {
              meshTitle: titleOf(mesh),
              pods: plural(path.pods.length, 'pod'),
              cni: overlay.product,
              agent: `DaemonSet ${overlay.namespace}/${overlay.daemonSet}`,
              addresses: ips.length ? `pod address ${ips.slice(0, 3).join(', ')}` : 'pod addresses not read',
              provider: 'EKS',
              webhooks: hooks.join(', '),
              port: path.port,
              effect,
              seen: refused
                ? `${plural(refused, 'call')} refused in FailedCreate events ("Address is not allowed": the control plane's egress refuses an address outside the cloud network)${timeouts ? ` and ${plural(timeouts, 'timed-out call')}` : ''}`
                : timeouts
                  ? `${plural(timeouts, 'timed-out call')} in FailedCreate events`
                  : ignore
                    ? `with failurePolicy Ignore the API server writes no event for a failed call; ${plural(missing, 'pod')} the webhook is called for run without a proxy`
                    : 'no failed call in the events read',
            }),
            resource: { kind: 'Service', namespace: t.namespace, name: t.name },
            affectedPods: missing,
            causeKey: { kind: 'webhook-broken', mesh },
            evidence: {
              ...common,
              policies: [],
              podNetwork: { ...overlay },
              injectorAddresses: ips.slice(0, 16),
              likely: true,
            },
            fix: [
              comment`${overlay.product} gives pods addresses the EKS control plane has no route to: on EKS, webhook pods on an overlay network need hostNetwork, as the Calico docs say. Run the AWS VPC CNI, aws-node, for the pods, or put the injector on the node network`,
              ...(hn
                ? [
                    comment`${titleOf(mesh)} chart: ${lit(hn.set.join(', '))}, ${lit(hn.note)}`,
                    cmd`helm upgrade YOUR-RELEASE ${lit(hn.chart)} -n ${t.namespace} --reuse-values ${{ args: hn.set.map((v) => ['--set=', { value: v }]) }}`,
                  ]
                : [
                    comment`the ${titleOf(mesh)} chart has no value for hostNetwork on its injector: set hostNetwork: true and dnsPolicy: ClusterFirstWithHostNet on its Deployment yourself, an upgrade reverts it, and its port ${path.port} must be free on the nodes`,
                  ]),
            ],
          };
          continue;
        }
        // A private GKE cluster failing open: no call shows in the events (failurePolicy Ignore), the nodes and the port do.
        const silent = !timeouts && p === 'gke' ? privateGkeSilence(m, mesh, path) : undefined;
        if (silent) {
          yield {
            mesh,
            ...say(MESSAGES, 'gke-private-silent', {
              nodes: silent.nodes,
              meshTitle: titleOf(mesh),
              port: path.port,
              service: `${t.namespace}/${t.name}`,
              servicePort: t.port,
              targetPort: String(t.servicePort?.targetPort ?? path.port),
              webhooks: hooks.join(', '),
              missing: plural(silent.missing, 'pod'),
              ready: `${silent.ready} of ${path.pods.length}`,
            }),
            resource: { kind: 'Service', namespace: t.namespace, name: t.name },
            affectedPods: silent.missing,
            causeKey: { kind: 'webhook-broken', mesh },
            evidence: { ...common, policies: [], privateNodes: silent.nodeCount, likely: true },
            fix: firewallSteps(p, path.port, t.name),
          };
          continue;
        }
        // No policy in the way, yet the calls time out where the provider's firewall decides.
        if (timeouts && (p === 'gke' || p === 'eks' || p === 'aws') && !OPEN_BY_DEFAULT.has(path.port)) {
          const timedOut = { webhooks: hooks.join(', '), calls: plural(timeouts, 'call'), port: path.port, effect };
          yield {
            mesh,
            ...(p === 'gke'
              ? say(MESSAGES, 'gke-firewall', timedOut)
              : say(MESSAGES, 'aws-security-groups', { ...timedOut, provider: p === 'eks' ? 'EKS' : 'AWS' })),
            resource: { kind: 'Service', namespace: t.namespace, name: t.name },
            affectedPods: podsMissingProxy(m, mesh),
            causeKey: { kind: 'webhook-broken', mesh },
            evidence: { ...common, policies: [], admittedBy: path.admits.map((a) => ({ ...a })) },
            fix: firewallSteps(p, path.port, t.name),
          };
        }
      }
    }
  },
});
