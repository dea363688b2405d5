/**
 * Consul's injected containers as admission judges them and as they run (issue 24). Sources,
 * hashicorp/consul-k8s at a507b1d1e3061996dbed00cde73bba2bf068379f:
 * - control-plane/connect-inject/webhook/container_init.go containerInit:
 *   `consul-connect-inject-init` with transparent proxy and without CNI runs as UID 0 with
 *   runAsNonRoot false adding NET_ADMIN (privileged with -enable-openshift); with CNI as 5996
 *   (runAsNonRoot, drop ALL, no privilege escalation, RuntimeDefault); without transparent proxy
 *   drops ALL, runAsNonRoot, RuntimeDefault. consul_dataplane_sidecar.go: `consul-dataplane` as
 *   5995, runAsNonRoot, drop ALL, no privilege escalation, RuntimeDefault. None sets
 *   terminationMessagePolicy.
 * - control-plane/subcommand/connect-init/command.go: the init container waits (120 tries, 1 s
 *   apart) for exactly two services registered for the pod, which the endpoints controller
 *   registers for each Kubernetes Service selecting the pod ("Check to ensure a Kubernetes service
 *   has been created for this application"; more than two: "There are multiple Consul services
 *   registered for this pod ... add the label `consul.hashicorp.com/service-ignore: "true"` to all
 *   services except the one used by Consul"), then exits 1. With ACLs it logs in with the pod's
 *   ServiceAccount, whose name must be the service's ("service account name %s doesn't match
 *   Consul service name %s"); for `default` it warns that this "is not a supported service
 *   account name". charts/consul/values.yaml connectInject.aclBindingRuleSelector
 *   "serviceaccount.name!=default" keeps the default ServiceAccount from logging in.
 *   User reports: hashicorp/consul-k8s#844 (maintainer: a Service must select the pod), #962,
 *   #1899; hashicorp/consul-helm#242 (the ServiceAccount must be named as the service).
 * - control-plane/connect-inject/constants/annotations_and_labels.go: LabelServiceIgnore
 *   `consul.hashicorp.com/service-ignore`, annotation `consul.hashicorp.com/connect-service`.
 * - OpenShift: values.yaml global.openshift.enabled, connectInject.cni.enabled and .multus.
 * - Start order (issue 31): connect-inject/webhook/mesh_webhook.go puts consul-dataplane first with
 *   proxy lifecycle (default on) but gives it no postStart hook (no PostStart anywhere in
 *   control-plane/ at a507b1d1), so the kubelet does not wait for it; only as a native sidecar
 *   (consul.hashicorp.com/enable-consul-dataplane-as-sidecar, consul_dataplane_sidecar.go: restartPolicy
 *   Always and a startupProbe `consul-dataplane -check-proxy-health`, since v1.9.0, d113609d,
 *   hashicorp/consul-k8s#4678) does the kubelet start the app after it.
 */
import { cmd, comment, text, choice, type Step } from '../../fix/steps.js';
import { setOnTemplateSpec } from '../../fix/commands.js';
import { containers, podSpec } from '../../k8s/pods.js';
import { evalSelector } from '../../k8s/selectors.js';
import type { MeshContext } from '../context.js';
import type { Workload } from '../../k8s/workloads.js';
import type { K8sObject } from '../../util/types.js';
import { annotationsOf, arr, isObj, labelsOf, nameOf, str, strMap } from '../../util/objects.js';
import type { InitNeed, InjectedContainer, MeshProfile } from '../profile.js';
import { proxyPlace } from '../start-order.js';
import { setOnTemplate } from '../../fix/commands.js';

const AS_SIDECAR = 'consul.hashicorp.com/enable-consul-dataplane-as-sidecar';
import { consulSettings } from './injector.js';
import { CONSUL_CLIENT_AGENT } from './client-agent.js';

const INIT = 'consul-connect-inject-init';
const IGNORE = 'consul.hashicorp.com/service-ignore';
const SERVICE = 'consul.hashicorp.com/connect-service';
const COMMAND = 'hashicorp/consul-k8s a507b1d1 control-plane/subcommand/connect-init/command.go';

/** The Services of the pod's namespace whose selector selects it, but those Consul is told to ignore. */
function selecting(m: MeshContext, pod: K8sObject): K8sObject[] {
  const labels = labelsOf(pod);
  return m
    .inNamespace('services', str(pod.metadata?.namespace) ?? '')
    .filter((s) => {
      const sel = strMap(isObj(s.spec) ? s.spec.selector : undefined);
      return (
        Object.keys(sel).length > 0 &&
        evalSelector({ matchLabels: sel }, labels).matched &&
        labelsOf(s)[IGNORE] !== 'true'
      );
    })
    .sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : 1));
}

/** A dedicated ServiceAccount named as the service, on the pod template. */
function ownServiceAccount(w: Workload, ns: string, name: string): Step[] {
  return [
    comment`give the pods a ServiceAccount named as their Consul service, ${name}`,
    cmd`kubectl create serviceaccount ${name} -n ${ns}`,
    ...setOnTemplateSpec(w, { serviceAccountName: name }),
  ];
}

export function consulRuntime(
  transparentProxy: (m: MeshContext, w: Workload) => boolean | undefined,
): MeshProfile['runtime'] {
  return {
    nodeAgent: CONSUL_CLIENT_AGENT,
    injected: (m: MeshContext, w: Workload, cni: boolean): InjectedContainer[] => {
      const tproxy = transparentProxy(m, w) !== false;
      const hardened = {
        allowPrivilegeEscalation: false,
        drop: ['ALL'],
        runAsNonRoot: true,
        seccomp: 'RuntimeDefault',
      };
      return [
        {
          name: INIT,
          init: true,
          securityContext: !tproxy
            ? hardened
            : cni
              ? { ...hardened, runAsUser: 5996, privileged: false }
              : { runAsUser: 0, runAsNonRoot: false, privileged: false, add: ['NET_ADMIN'] },
        },
        { name: 'consul-dataplane', init: false, securityContext: { ...hardened, runAsUser: 5995 } },
      ];
    },
    injectedFrom:
      'hashicorp/consul-k8s a507b1d1 control-plane/connect-inject/webhook/container_init.go, consul_dataplane_sidecar.go',
    openshift: (_ns, cpNs) => [
      comment`run Consul with its OpenShift settings and its CNI plugin through Multus: Helm values global.openshift.enabled, connectInject.cni.enabled and connectInject.cni.multus`,
      cmd`helm upgrade consul hashicorp/consul -n ${cpNs} --reuse-values --set global.openshift.enabled=true --set connectInject.cni.enabled=true --set connectInject.cni.multus=true`,
    ],
    initResources: () => ({
      requests: { cpu: '50m', memory: '25Mi' },
      limits: { memory: '150Mi' },
      from: 'Consul chart connectInject.initContainer.resources',
    }),
    failures: [
      {
        container: INIT,
        // command.go Run returns 1 on every error: the service registration not seen within its retries
        // ("Timed out waiting for service registration"), the ACL login, and with transparent proxy and no
        // CNI the iptables rules ("error applying traffic redirection rules"; hashicorp/consul-k8s#960: a node
        // without the legacy nat table). It sets no terminationMessagePolicy: only its log says which.
        cause:
          "consul-connect-inject-init exits 1 on any error, and its status does not say which, so the cause is one meshdoctor does not know: its log (kubectl logs --previous) names it: the pod's service not registered in Consul within two minutes, the ACL login refused, or, with transparent proxy and no CNI plugin, the node refusing its iptables rules (a kernel without the nat table)",
        source: `${COMMAND} Run (return 1 after each error); hashicorp/consul-k8s#960`,
        fix: (c) => [
          comment`its log says which step failed`,
          cmd`kubectl logs ${c.pod} -n ${c.namespace} -c ${INIT} --previous`,
        ],
      },
    ],
    initNeeds: (m, w, pod, container): InitNeed[] => {
      if (container !== INIT) return [];
      const needs = serviceNeeds(m, w, pod, container);
      return needs.length ? needs : agentByHostPort(m, pod);
    },
    startOrder: {
      // control-plane/connect-inject/webhook/mesh_webhook.go appends consul-connect-inject-init to the pod's init
      // containers (line 335 at a507b1d); redirect_traffic.go leaves the proxy's UID (5995) and the init
      // container's (5996) alone, and the transparent-proxy-exclude-* annotations; with the CNI plugin the
      // redirection is set at the pod's start.
      initTraffic: {
        proxyUid: 5995,
        exclude: [
          {
            key: 'consul.hashicorp.com/transparent-proxy-exclude-outbound-cidrs',
            takes: 'the address ranges it dials',
          },
          { key: 'consul.hashicorp.com/transparent-proxy-exclude-outbound-ports', takes: 'the ports it dials' },
          { key: 'consul.hashicorp.com/transparent-proxy-exclude-uids', takes: 'the UID it runs as' },
        ],
        source:
          'hashicorp/consul-k8s@a507b1d control-plane/connect-inject/webhook/mesh_webhook.go, redirect_traffic.go, constants/annotations_and_labels.go',
      },
      held: (_m, pod) => {
        const place = proxyPlace(pod, 'consul-dataplane');
        if (place === 'native')
          return {
            held: true,
            how: 'consul-dataplane is a native sidecar: the kubelet starts the app after its startup probe',
          };
        if (place === 'absent') return undefined;
        return {
          held: false,
          how: 'consul-dataplane is an ordinary container: consul-k8s gives it no postStart hook, so the kubelet does not wait for it',
        };
      },
      setting: `${AS_SIDECAR} (consul-k8s 1.9 and later, on Kubernetes 1.29 and later; earlier releases have no setting that holds the app)`,
      source:
        'hashicorp/consul-k8s a507b1d1 control-plane/connect-inject/webhook/mesh_webhook.go, consul_dataplane_sidecar.go',
      fix: (w) => [
        comment`hold the app until consul-dataplane is ready, for this workload, with consul-k8s 1.9 or later on Kubernetes 1.29 or later: run it as a native sidecar`,
        ...setOnTemplate(w, 'annotations', AS_SIDECAR, 'true'),
      ],
    },
    image: (ns) => [
      comment`the images are the chart values global.imageConsulDataplane for consul-dataplane and global.imageK8S for consul-connect-inject-init`,
      cmd`kubectl get deployment consul-connect-injector -n ${ns} -o yaml`,
    ],
  };
}

/**
 * The client agent reached through a host port (issue 31, gen8net; hashicorp/consul-k8s#27, still an open
 * question of the chart's first releases): consul-k8s before consul-dataplane (1.0) had the injected init
 * container talk to the Consul client agent on its node, at `${HOST_IP}:8500` (`:8501` with TLS; HOST_IP
 * from status.hostIP: hashicorp/consul-k8s@0c6dede6 connect-inject/container_init.go, the lines the thread
 * quotes), and the chart's client DaemonSet published those ports by hostPort, without hostNetwork
 * (hashicorp/consul-helm@00e42161 templates/client-daemonset.yaml: containerPort 8500 hostPort 8500, 8502
 * hostPort 8502). A host port works only where the node's CNI maps it (the portmap plugin in its chain); where
 * it does not, the init container's connection is refused ("dial tcp <node IP>:8500: connect: connection
 * refused", Consul's troubleshooting page, hashicorp/consul#9464: "this could be because the CNI does not
 * support the use of hostPort"). The snapshot cannot show the CNI's chain: said as the likely cause, and
 * only where no other need explains the failure.
 */
function agentByHostPort(m: MeshContext, pod: K8sObject): InitNeed[] {
  const spec = podSpec(pod);
  const init = arr(spec.initContainers)
    .filter(isObj)
    .find((c) => c.name === INIT);
  if (!init || !arr(init.env).some((e) => isObj(e) && e.name === 'HOST_IP')) return [];
  const nss = m.mesh('consul')?.namespaces ?? [];
  for (const ns of nss.slice(0, 8)) {
    for (const ds of m.inNamespace('daemonsets', ns).slice(0, 50)) {
      const t = isObj(ds.spec) && isObj(ds.spec.template) ? ds.spec.template : {};
      const ts = isObj(t.spec) ? t.spec : {};
      if (ts.hostNetwork === true) continue;
      const ports = containers(ts)
        .flatMap((c) => arr(c.ports).filter(isObj))
        .filter((p) => (p.containerPort === 8500 || p.containerPort === 8501) && typeof p.hostPort === 'number')
        .map((p) => p.hostPort as number);
      if (!ports.length) continue;
      const port = [...new Set(ports)].sort((a, b) => a - b).join(' or ');
      const node = str(spec.nodeName);
      return [
        {
          cause: `${INIT} reaches the Consul client agent at the node's address (HOST_IP) on port ${port}, which DaemonSet ${ns}/${nameOf(ds)} publishes by hostPort, without hostNetwork: that works only where the node's CNI maps host ports (the portmap plugin), and where it does not the connection is refused and ${INIT} fails; its log says so ("dial tcp" to the node's address, port ${port}, "connection refused")`,
          evidence: {
            agentDaemonSet: `${ns}/${nameOf(ds)}`,
            hostPorts: [...new Set(ports)].sort(),
            hostNetwork: false,
            ...(node ? { node } : {}),
          },
          source:
            'hashicorp/consul-k8s@0c6dede6 connect-inject/container_init.go (HOST_IP); hashicorp/consul-helm@00e42161 templates/client-daemonset.yaml (hostPort 8500, 8502); hashicorp/consul#9464',
          fix: [
            comment`its log shows whether the agent refused the connection`,
            cmd`kubectl logs ${nameOf(pod)} -n ${str(pod.metadata?.namespace) ?? ''} -c ${INIT} --previous`,
            comment`then put the client agents on the node network, Helm value client.hostNetwork=true with client.dnsPolicy=ClusterFirstWithHostNet, or enable host ports in the CNI, the portmap plugin`,
            cmd`kubectl -n ${ns} get daemonset ${nameOf(ds)} -o jsonpath=${'{.spec.template.spec.hostNetwork}'}`,
          ],
        },
      ];
    }
  }
  return [];
}

/** What the cluster lacks for the init container of a consul-k8s 0.26+ pod: a Service, one Service, ACL names. */
function serviceNeeds(m: MeshContext, w: Workload, pod: K8sObject, container: string): InitNeed[] {
  const ns = str(pod.metadata?.namespace) ?? '';
  if (container !== INIT || !m.readIn('services', ns)) return [];
  // Before consul-k8s 0.26.0 the init container registered the service itself; from 0.26.0 the endpoints
  // controller registers it for the Kubernetes Service selecting the pod, and connect-init polls for it
  // (hashicorp/consul-k8s CHANGELOG 0.26.0, "Endpoints Controller", GH-446/455). A pod injected by an older
  // release (its containers as that release named them: no copy-consul-bin beside envoy-sidecar, or
  // consul-connect-envoy-sidecar) needs no Service: these rules are not its release's.
  const spec = podSpec(pod);
  const names = new Set([...containers(spec), ...arr(spec.initContainers).filter(isObj)].map((c) => str(c.name)));
  if (names.has('consul-connect-envoy-sidecar') || (names.has('envoy-sidecar') && !names.has('copy-consul-bin')))
    return [];
  const svcs = selecting(m, pod);
  const sa = str(podSpec(pod).serviceAccountName) ?? str(podSpec(pod).serviceAccount) ?? 'default';
  const named = annotationsOf(pod)[SERVICE];
  if (svcs.length === 0) {
    const port = containers(podSpec(w.template))
      .flatMap((c) => arr(c.ports))
      .find((p) => isObj(p) && typeof p.containerPort === 'number') as { containerPort: number } | undefined;
    return [
      {
        cause: `no Kubernetes Service selects the pod, so Consul registers no service for it and ${INIT} waits for one in vain`,
        evidence: { podLabels: labelsOf(pod), servicesSelecting: [] },
        source: `${COMMAND} ("Check to ensure a Kubernetes service has been created for this application"); hashicorp/consul-k8s#844`,
        fix:
          w.kind === 'Deployment'
            ? [
                comment`create a Service selecting the pods, on the port the app serves`,
                port
                  ? cmd`kubectl expose ${`deployment/${w.name}`} -n ${ns} --port=${port.containerPort}`
                  : cmd`kubectl expose ${`deployment/${w.name}`} -n ${ns} --port=PORT`,
              ]
            : [
                comment`create a Service whose selector matches the labels of the pods, or opt the pods out of Consul with the pod template annotation consul.hashicorp.com/connect-inject: 'false'`,
              ],
      },
    ];
  }
  if (svcs.length > 1) {
    // Consul keeps the one whose name the pods' annotation or ServiceAccount gives, else the first by name.
    const keep = svcs.find((s) => nameOf(s) === named) ?? svcs.find((s) => nameOf(s) === sa) ?? svcs[0]!;
    const others = svcs.filter((s) => s !== keep);
    return [
      {
        cause: `${svcs.length} Services select the pod, so Consul registers a service for each and ${INIT} refuses to choose`,
        evidence: { servicesSelecting: svcs.map(nameOf) },
        source: `${COMMAND} ("There are multiple Consul services registered for this pod"); constants LabelServiceIgnore`,
        fix: [
          choice(
            text`label every Service but the one Consul should use with ${IGNORE}=true, here keeping ${nameOf(keep)}`,
            [
              {
                label: text`keep ${nameOf(keep)}`,
                steps: others.map((s) => cmd`kubectl label service ${nameOf(s)} -n ${ns} ${`${IGNORE}=true`}`),
              },
            ],
          ),
        ],
      },
    ];
  }
  if (!consulSettings(m).acls) return [];
  const service = named ?? nameOf(svcs[0]!);
  if (sa === 'default')
    return [
      {
        cause: `with ACLs, ${INIT} logs in as the pod's ServiceAccount, and the chart's binding rule (connectInject.aclBindingRuleSelector "serviceaccount.name!=default") refuses the default one`,
        evidence: { serviceAccount: sa, service, acls: true },
        source: `${COMMAND} (the warning for "default"); charts/consul/values.yaml connectInject.aclBindingRuleSelector; hashicorp/consul-helm#242`,
        fix: ownServiceAccount(w, ns, service),
      },
    ];
  if (sa !== service)
    return [
      {
        cause: `with ACLs, the pod's ServiceAccount ${sa} must be named as its Consul service ${service} ("service account name ${sa} doesn't match Consul service name ${service}")`,
        evidence: { serviceAccount: sa, service, acls: true },
        source: `${COMMAND}; hashicorp/consul-helm#242`,
        fix: ownServiceAccount(w, ns, service),
      },
    ];
  return [];
}
