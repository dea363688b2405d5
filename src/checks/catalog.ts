/**
 * The catalog of checks (as Istio's analyzers keep their messages in one catalog): each check's
 * stable code, default severity, title, description and its own reads, by id: `inputs`, the kinds
 * it cannot run without, and `optionalInputs`, what it reads itself beyond the facts it asks for.
 * The inputs of those facts are not copied here: the check declares its facts
 * (defineCheck({ ...meta(id), facts: [...], run })) and its inputs are derived from both
 * (derivedInputs, src/checks/define.ts). `meshdoctor checks` and shell
 * completion read only this module, so they never load the checks, the model or the mesh
 * profiles. Codes are stable and never reused.
 */
import type { CheckMeta } from './types.js';

/** A check's metadata but its id (which is the entry's key). */
export type CatalogEntry = Omit<CheckMeta, 'id'>;

export const CATALOG = {
  'namespace-not-enabled': {
    code: 'MD1001',
    title: 'Namespace not enabled for injection',
    description:
      'A namespace with workloads has no injection marker for an installed mesh, so its pods are created without a proxy.',
    severity: 'warning',
    inputs: ['namespaces', 'mutatingwebhookconfigurations', 'pods'],
  },
  'opt-in-overruled': {
    code: 'MD1080',
    title: 'Pod asks for injection, a namespace label wins',
    description:
      "A workload's pod template asks a mesh for its proxy, but a label of its namespace keeps every webhook of that mesh from being called for its pods, so they run without the proxy.",
    severity: 'warning',
    inputs: ['namespaces', 'mutatingwebhookconfigurations'],
  },
  'pod-opted-out': {
    code: 'MD1002',
    title: 'Pod template opts out of injection',
    description:
      'A workload in a namespace enabled for injection opts its pods out through its pod template, so they run without a proxy.',
    severity: 'warning',
    inputs: [],
  },
  'pod-predates-enablement': {
    code: 'MD1003',
    title: 'Pods predate the injection marker',
    description:
      'Pods run without a proxy because they were created before their namespace or pod template asked for injection; only new pods are injected.',
    severity: 'error',
    inputs: ['namespaces', 'mutatingwebhookconfigurations', 'pods'],
  },
  'sidecar-missing': {
    code: 'MD1004',
    title: 'Sidecar missing',
    description:
      'Pods that should have been injected (the namespace or template asks, a webhook is called, the injector accepts) run without a proxy, and no more specific cause was found.',
    severity: 'error',
    inputs: ['namespaces', 'mutatingwebhookconfigurations', 'pods'],
  },
  'injection-marker-invalid': {
    code: 'MD1005',
    title: 'Injection marker is invalid or misplaced',
    description:
      'A namespace or workload carries an injection marker with an invalid value, the wrong key, or in the wrong place, so it asks for injection but does nothing; or a namespace whose markers ask both meshes to inject its pods.',
    severity: 'error',
    inputs: [],
  },
  'webhook-excludes-namespace': {
    code: 'MD1006',
    title: 'Injection webhook excludes the namespace or pods',
    description:
      'A namespace or pod template asks for injection, but the selectors of every injection webhook of that mesh (or the injector itself) leave its pods out.',
    severity: 'error',
    inputs: ['namespaces', 'mutatingwebhookconfigurations'],
  },
  'serviceaccount-missing': {
    code: 'MD1007',
    title: 'Pod template names a missing ServiceAccount',
    description:
      'A pod template names a ServiceAccount that does not exist in its namespace, so no pod is ever created; or its token is turned off where the injector of its mesh skips pods without one (no proxy) or denies them (no pod).',
    severity: 'error',
    inputs: ['serviceaccounts'],
    optionalInputs: ['events'],
  },
  'quota-blocks-proxy': {
    code: 'MD1008',
    title: 'ResourceQuota rejects the injected proxy',
    description:
      "A ResourceQuota in the namespace rejects the workload's next pod once the proxy is injected: the proxy lacks a request or limit the quota requires, or its share no longer fits.",
    severity: 'error',
    inputs: ['resourcequotas'],
    optionalInputs: ['events'],
  },
  'job-never-completes': {
    code: 'MD1009',
    title: 'Meshed Job never completes',
    description:
      'A meshed pod meant to end (restartPolicy Never or OnFailure: a Job, a CronJob, an Argo Workflow, a Tekton TaskRun, any custom owner or a bare pod) keeps running after its app exits because the proxy is not a native sidecar and nothing stops it (or the kubelet restarts it), or a Job or CronJob that will be meshed is set up that way.',
    severity: 'error',
    inputs: [],
    optionalInputs: ['events'],
  },
  'pod-spec-starves-proxy': {
    code: 'MD2220',
    title: "A pod template takes away what its mesh's proxy needs",
    description:
      'A workload its mesh will inject whose pod template takes away what the injected containers need, per mesh and release: a resolver that cannot find the control plane (dnsPolicy Default, None without the cluster DNS, ClusterFirst with hostNetwork), the ServiceAccount token a container reads (automountServiceAccountToken false on the pod or its ServiceAccount), or a node of another OS for Linux-only images.',
    severity: 'warning',
    readsOtherNamespaces: true,
    inputs: [],
  },
  'app-port-taken-by-proxy': {
    code: 'MD1290',
    title: "A container declares a port the mesh's proxy binds",
    description:
      "A container of a meshed pod, or of a template its mesh will inject, declares a TCP port that the mesh's injected container binds in the same pod network (its admin, inbound, outbound, status or metrics listeners, per mesh; a port an annotation moves judged at its value): whichever starts second cannot listen.",
    severity: 'error',
    inputs: ['namespaces'],
  },
  'host-network-pod': {
    code: 'MD1010',
    title: 'hostNetwork pods are never injected',
    description:
      'A workload with hostNetwork: true that asks for injection (its namespace or its pod template) runs without a proxy by design: a mesh whose injector refuses hostNetwork pods never injects them.',
    severity: 'info',
    inputs: ['namespaces', 'mutatingwebhookconfigurations'],
  },
  'will-not-be-meshed': {
    code: 'MD1011',
    title: 'Workload will not be meshed',
    description:
      'With check -f and --expect-meshed: a workload in the manifests that does not opt out would be created without a proxy, because no installed mesh would inject it.',
    severity: 'error',
    inputs: ['namespaces', 'mutatingwebhookconfigurations'],
  },
  'injector-config-excludes': {
    code: 'MD1012',
    title: "The injector's configuration refuses the pods",
    description:
      "A webhook is called for the workload's pods, but the injector's own configuration (a never-inject selector, or an injection policy that is disabled or invalid) keeps them out, so they run without a proxy.",
    severity: 'warning',
    inputs: ['namespaces', 'mutatingwebhookconfigurations', 'configmaps'],
  },
  'dataplane-mode-conflict': {
    code: 'MD1016',
    title: 'Namespace asks for sidecars and a sidecar-less data plane',
    description:
      "A namespace carries both a sidecar injection marker and the label of the mesh's sidecar-less data plane (ambient mode, IST0123): new pods get the sidecar and are left out of ambient mode.",
    severity: 'warning',
    inputs: ['namespaces'],
  },
  'sidecarless-not-enrolled': {
    code: 'MD1017',
    title: 'Pod not enrolled in the sidecar-less data plane',
    description:
      "Pods that a mesh's sidecar-less data plane should mesh (ambient mode) run outside it: the node agent did not enrol them (no enrolment annotation) or their node runs no ready node proxy (ztunnel).",
    severity: 'error',
    inputs: ['pods'],
  },
  'webhook-denied': {
    code: 'MD1018',
    title: 'Injection webhook denied the pod',
    description:
      "FailedCreate events show a mesh's injection webhook refusing a workload's pods (admission webhook denied the request), for instance over an invalid mesh annotation: the reason is quoted; where the reason says the injector cannot parse its own configuration (its template or values), the ConfigMap holding it is named.",
    severity: 'error',
    inputs: ['events'],
  },
  'pod-security-blocks-init': {
    code: 'MD1019',
    title: "Pod Security rejects the mesh's init container",
    description:
      'A namespace enforcing Pod Security baseline or restricted rejects the init container a mesh injects without its CNI plugin (NET_ADMIN, NET_RAW): predicted from the namespace and the mesh configuration, confirmed by FailedCreate events.',
    severity: 'error',
    readsOtherNamespaces: true,
    inputs: [],
    optionalInputs: ['events'],
  },
  'injection-skipped': {
    code: 'MD1020',
    title: 'The injector says why it skipped the pods',
    description:
      'Pods that should have been injected run without a proxy, and the injector recorded why it skipped them (its own skip events on the workload): the reason is quoted and read for the installed release.',
    severity: 'error',
    inputs: ['namespaces', 'mutatingwebhookconfigurations', 'pods', 'events'],
  },
  'admission-rejects-proxy': {
    code: 'MD1021',
    title: "An admission layer after the webhook refuses the mesh's containers",
    description:
      "FailedCreate events show a layer after the mesh's webhook refusing the injected pod over the containers the mesh added: Pod Security restricted (seccomp, runAsNonRoot, capabilities.drop), OpenShift's SecurityContextConstraints, PodSecurityPolicy, a policy engine (Gatekeeper, Kyverno), the API server's validation of a field of an injected container (a native sidecar whose restartPolicy a later webhook dropped) or of a volume or value the pod template does not hold (added at admission, or twice by a reinvoked webhook), the API server's SecurityContextDeny plugin refusing the runAsUser an injector sets (predicted too where a kube-apiserver pod or k3s node shows the plugin on), or a LimitRange; the layer, its object, the field and the admission chain are named. Any other refusal of a workload a mesh injects is quoted, bounded, with the cause said to be unknown and the injected containers it names.",
    severity: 'error',
    readsOtherNamespaces: true,
    inputs: ['events'],
    optionalInputs: ['limitranges'],
  },
  'proxy-cannot-start': {
    code: 'MD1022',
    title: "The mesh's injected containers cannot start",
    description:
      "Injected pods cannot start because a container the mesh added keeps failing, cannot be created or cannot be pulled: what the pod grants it against what it needs (capabilities, root or its UID, non-root policy, the ServiceAccount token, its dnsPolicy, a Linux node, per mesh and release), the node's kernel where iptables decide, the mesh's own reason (an exit code, an iptables error, a missing or duplicate Service, an ACL refusal, a CNI agent skipping the namespace, an image too old for a feature, a known bug) and its fix; a CNI validation container failing for the reason the cluster shows (started before its node's CNI agent was ready, the agent not ready, another CNI owning the config); an app init container redirected before the proxy runs; a native sidecar whose restartPolicy was dropped; a container killed by its probe, restarting, long not ready or held, warnings quoted; an init container run again in a running pod; a refused seccomp or AppArmor profile; a registry's error.",
    severity: 'error',
    readsOtherNamespaces: true,
    inputs: ['pods'],
  },
  'app-starts-before-proxy': {
    code: 'MD1050',
    title: 'The app starts before its proxy is ready',
    description:
      "An app container of meshed pods failed in the first seconds after its proxy started and restarted (or, in a pod that never restarts its containers, stays failed), in pods the mesh does not hold until the proxy is ready (read from each pod as injected: where the proxy sits, its annotations, the control plane's setting): the mesh's own setting that holds the app for its release, or that the release has none.",
    severity: 'warning',
    inputs: ['pods'],
  },
  'init-before-proxy': {
    code: 'MD1090',
    title: 'An init container of the app runs while the proxy does not',
    description:
      "An init container of a meshed pod's app failed while the pod's outbound traffic was already redirected to a proxy that runs only after every init container (the mesh's iptables init container before it, or its CNI plugin from the pod's start, read from the pod as injected): the ways out its mesh and release offer (the proxy's UID, exclusion annotations, a native sidecar, the init container's place). An init container the pod template does not have was appended by a webhook that sees the pod after the mesh's (Vault's agent injector): that webhook is named.",
    severity: 'warning',
    inputs: ['pods'],
  },
  'webhook-missing': {
    code: 'MD2001',
    title: 'Mesh injection webhook missing',
    description:
      'A mesh is installed but no MutatingWebhookConfiguration registers its injection webhook, so every new pod is created without a proxy.',
    severity: 'error',
    inputs: ['mutatingwebhookconfigurations'],
  },
  'webhook-no-endpoints': {
    code: 'MD2002',
    title: 'Injection webhook has no endpoints',
    description:
      "A mesh injection webhook's Service is missing or has no ready endpoint on the port the webhook calls, so every injection call fails.",
    severity: 'error',
    inputs: ['mutatingwebhookconfigurations', 'services'],
  },
  'injector-unavailable': {
    code: 'MD2003',
    title: 'Injector unavailable',
    description:
      "A mesh's injector Deployment has no available replica, its pods crash-loop or are not Ready, or it is missing while its webhook exists.",
    severity: 'error',
    inputs: ['deployments'],
    // whether a control-plane namespace holding no object was read at all (controlplane.ts namespaceRead)
    optionalInputs: ['endpoints', 'endpointslices'],
  },
  'injector-oomkilled': {
    code: 'MD2004',
    title: 'Injector OOMKilled',
    description:
      "A container of a mesh's injector pods was killed for exceeding its memory limit, taking the injection webhook down while it restarts.",
    severity: 'error',
    inputs: ['pods'],
    // endpoints: whether a control-plane namespace holding no object was read at all (controlplane.ts namespaceRead).
    optionalInputs: ['endpoints', 'endpointslices'],
  },
  'webhook-ca-expired': {
    code: 'MD2005',
    title: 'Webhook CA certificate expired',
    description:
      "A certificate in a mesh injection webhook's caBundle has expired, so the API server cannot verify the injector and injection fails for every new pod.",
    severity: 'error',
    inputs: ['mutatingwebhookconfigurations'],
  },
  'webhook-ca-expiring': {
    code: 'MD2006',
    title: 'Webhook CA certificate expiring soon',
    description:
      "A certificate in a mesh injection webhook's caBundle expires within the warning window (--cert-expiry-warning, default 60 days).",
    severity: 'warning',
    inputs: ['mutatingwebhookconfigurations'],
  },
  'webhook-ca-invalid': {
    code: 'MD2007',
    title: 'Webhook CA bundle unusable',
    description:
      "A mesh injection webhook's caBundle is empty, not PEM, a private key, broken, or not valid yet, so the API server cannot verify the injector.",
    severity: 'error',
    inputs: ['mutatingwebhookconfigurations'],
    // The injector's flags (who fills the caBundle, by release) and the pods of the one that fills it.
    optionalInputs: ['deployments', 'namespaces', 'pods', 'replicasets'],
  },
  'webhook-cert-mismatch': {
    code: 'MD2008',
    title: "Injector certificate does not match the webhook's caBundle",
    description:
      "A mesh's proxy injector serves a certificate (from the Secret its install keeps it in) that is not signed by the webhook's caBundle or lacks the service's DNS name, so the API server rejects every injection call.",
    severity: 'error',
    inputs: ['secrets', 'mutatingwebhookconfigurations'],
    // the Helm line of the fix reads the control plane's Deployment (release, chart version) in the webhook's namespace,
    // and the injector's flags (who fills the caBundle, by release)
    optionalInputs: ['deployments', 'namespaces', 'pods'],
  },
  'identity-cert-expiring': {
    code: 'MD2009',
    title: 'Mesh identity certificate expiring soon',
    description:
      "A mesh's trust anchor or identity issuer certificate expires within the warning window (--cert-expiry-warning, default 60 days).",
    severity: 'warning',
    inputs: ['configmaps'],
    optionalInputs: ['secrets'],
  },
  'identity-cert-expired': {
    code: 'MD2010',
    title: 'Mesh identity certificate expired',
    description:
      "A mesh's trust anchor or identity issuer certificate has expired or is not valid yet, so proxies cannot get or verify identities.",
    severity: 'error',
    inputs: ['configmaps'],
    optionalInputs: ['secrets'],
  },
  'webhook-call-failed': {
    code: 'MD2011',
    title: 'API server failed calling the injection webhook',
    description:
      "FailedCreate events show the API server failing to call a mesh injection webhook, or another admission layer's webhook for a workload a mesh injects, so a controller cannot create its pods. Where an HTTP proxy answered the call, the kube-apiserver pods of kube-system name the proxy variables that sent it there.",
    severity: 'error',
    readsOtherNamespaces: true,
    inputs: ['events'],
    optionalInputs: ['validatingwebhookconfigurations'],
  },
  'proxy-missing-beside-meshed': {
    code: 'MD2012',
    title: 'Proxy missing beside meshed pods',
    description:
      "Namespace-only permissions: a workload's pods run without the proxy that other pods of the same workload, or the namespace's other workloads, were injected with; the namespace's marker and the webhooks could not be read.",
    severity: 'error',
    inputs: ['pods'],
  },
  'webhook-blocks-injector': {
    code: 'MD2030',
    title: 'Injection webhook blocks its own injector',
    description:
      "A mesh's injection webhook with failurePolicy Fail is called for its own injector's pods: while no replica answers, the API server refuses them, so the injector cannot come back.",
    severity: 'error',
    inputs: ['mutatingwebhookconfigurations', 'namespaces', 'deployments'],
  },
  // Issue 25: the injector's RBAC, versions, overlapping or stale webhook configurations. Their new
  // inputs (nodes, ClusterRoles, ClusterRoleBindings, the API server's version) are optional: a
  // run without them says what was not examined and exits as before.
  'native-sidecar-unsupported': {
    code: 'MD1040',
    title: 'Native sidecar on a Kubernetes version without it',
    description:
      "A workload's proxy is (or will be) a native sidecar, but the API server or some nodes run a Kubernetes version older than 1.29, where native sidecars are off: its pods hang in initialization.",
    severity: 'error',
    inputs: [],
    serverInputs: ['version'],
  },
  'proxy-outdated': {
    code: 'MD1041',
    title: 'Proxies older than the control plane',
    description:
      "A workload's pods run an older proxy than the one its mesh's injector injects now (created before the control plane was upgraded): restart them; an error once they trail by more releases than the mesh supports, or lead it by more than it allows. A proxy a pod template annotation pins is said to be pinned: a restart keeps it, the fix removes the pin.",
    severity: 'warning',
    inputs: ['pods'],
  },
  'known-release-bug': {
    code: 'MD2090',
    title: 'A known bug of the installed release',
    description:
      "The mesh's installed release has a known injector or proxy bug that a later patch release fixes, and the cluster shows its symptom (a crash-looping injector, an injected container refused, injected pods refused by a quota, a pod's sandbox failing in a CNI agent release on its node): upgrade to the release, or the agent release, that fixes it.",
    severity: 'error',
    inputs: ['deployments'],
    // A node agent's bug is judged by the release of the agent pod on the pod's node (its own namespace).
    readsOtherNamespaces: true,
  },
  'injector-rbac-missing': {
    code: 'MD2050',
    title: 'The injector lacks the RBAC its chart grants',
    description:
      "A mesh injector's ServiceAccount lacks permissions its chart grants it for injection (its ClusterRoleBinding or ClusterRole is gone or changed), so it cannot read what injection needs.",
    severity: 'error',
    inputs: [],
  },
  'kubernetes-version-unsupported': {
    code: 'MD2051',
    title: "Kubernetes version outside the mesh's supported range",
    description:
      "The API server or the nodes run a Kubernetes version outside the range the installed mesh release supports, by the mesh's own support table.",
    severity: 'warning',
    inputs: [],
    optionalInputs: ['configmaps'],
    serverInputs: ['version'],
  },
  'webhook-overlap': {
    code: 'MD2052',
    title: 'Two webhook configurations of one mesh select the same pods',
    description:
      'Two MutatingWebhookConfigurations of the same mesh are called for the same pods (a leftover revision or an old chart beside the new one, IST0139): a second injector is called for each pod, and the injection kept may not be the one intended.',
    severity: 'error',
    inputs: ['mutatingwebhookconfigurations'],
  },
  'webhook-stale': {
    code: 'MD2053',
    title: 'Webhook configuration left behind',
    description:
      'A MutatingWebhookConfiguration of a mesh calls a Service that no longer exists while another configuration of the mesh is live, or its whole namespace is gone: a leftover that fails or blocks the pods it selects.',
    severity: 'error',
    inputs: ['mutatingwebhookconfigurations', 'services'],
  },
  'admission-plugin-disabled': {
    code: 'MD2040',
    spansNamespaces: true,
    title: 'MutatingAdmissionWebhook is off in the API server',
    description:
      "The API server's flags (its kube-apiserver pod in kube-system, or k3s's node annotation) turn the MutatingAdmissionWebhook admission plugin off, so no injection webhook is ever called and pods get no proxy without any error.",
    severity: 'error',
    inputs: [],
    serverInputs: ['version', 'apiserverPods'],
  },
  'webhook-port-blocked': {
    code: 'MD2041',
    title: 'The API server cannot reach the injector',
    description:
      "A NetworkPolicy selecting a mesh's injector pods admits no traffic to the webhook's port from the API server (or, with calls timing out on EKS or GKE, the provider's firewall does not open it; or, on EKS, the injector's pods are on an overlay pod network, read from the CNI agent's DaemonSet in kube-system, which the managed API server cannot reach; or, on private GKE nodes (no external address, Nodes read) with a webhook failing open, the port is not 443 or 10250 and pods run without a proxy while the injector is ready; or the kube-apiserver pod of kube-system sets HTTPS_PROXY and its NO_PROXY does not cover the webhook Service's host, so its calls go to the proxy), so injection calls fail.",
    severity: 'error',
    readsOtherNamespaces: true,
    inputs: ['mutatingwebhookconfigurations'],
  },
  'webhook-failing-open': {
    code: 'MD2042',
    title: 'API server metrics show injection calls failing open',
    description:
      "The API server's admission metrics count calls to a mesh injection webhook that failed and were let through (failurePolicy Ignore): the pods created then have no proxy.",
    severity: 'error',
    inputs: ['mutatingwebhookconfigurations'],
    serverInputs: ['metrics'],
  },
  'webhook-rejecting': {
    code: 'MD2043',
    title: 'API server metrics show injection calls rejecting pods',
    description:
      "The API server's admission metrics count pod admissions rejected at a mesh injection webhook: calls that could not be made under failurePolicy Fail, or the injector denying the pod.",
    severity: 'warning',
    inputs: ['mutatingwebhookconfigurations'],
    serverInputs: ['metrics'],
  },
  'webhook-near-timeout': {
    code: 'MD2044',
    title: 'Injection calls take close to their timeout',
    description:
      "The API server's admission latency histogram shows a share of the calls to a mesh injection webhook taking more than half its timeoutSeconds: a timeout (a pod without a proxy, or refused) is about to happen.",
    severity: 'warning',
    inputs: ['mutatingwebhookconfigurations'],
    serverInputs: ['metrics'],
  },
  'proxy-removed': {
    code: 'MD1056',
    title: 'A later admission layer removed what the injector added',
    description:
      "A pod carries its mesh injector's own mark (the status annotation or label it sets with the proxy) but lacks a container the mark announces: a mutating webhook called after the mesh's removed it, and the pod runs without (part of) its proxy. Or the other way round: the pod keeps the proxy but not the mark, and the mesh's CNI plugin, which does its traffic redirection, skips it.",
    severity: 'error',
    inputs: ['pods'],
  },
  'init-rewritten': {
    code: 'MD1110',
    title: "A webhook after the injector rewrote the pod's init containers",
    description:
      "The pods of a meshed workload never start because a mutating webhook that sees the pod after the mesh's injector (called after it, or reinvoked) rewrote the init containers: a mesh init container carries restartPolicy: Always, which no mesh sets on it, so it runs as a sidecar; or an init container the pod template does not have runs without restartPolicy: Always and never exits, ahead of the mesh's containers. The webhooks from the admission chain and the field are named.",
    severity: 'error',
    inputs: ['pods'],
  },
  'optout-not-read': {
    code: 'MD1111',
    title: 'An opt-out on a pod template that carries the proxy itself',
    description:
      "A workload's pod template opts out of a mesh, but the template itself holds that mesh's proxy (injected by hand with the mesh's inject command, or copied from an injected pod): the mesh reads the opt-out only in its injection webhook, which adds nothing to such a pod, so the pods run the proxy whatever the opt-out says.",
    severity: 'warning',
    inputs: [],
    // The installed release's markers (its injectors, found from their webhooks and namespaces) judge the opt-out.
    optionalInputs: ['mutatingwebhookconfigurations', 'namespaces'],
  },
  // Issue 31: the proxy's own network path, and the mesh's node agents.
  'proxy-egress-blocked': {
    code: 'MD1060',
    title: 'Egress policy cuts the proxy off from its control plane',
    description:
      "A NetworkPolicy isolates meshed pods for egress and admits no traffic to the control-plane endpoints their injected containers dial (discovery, identity, configuration: the ports each mesh's profile lists) or to DNS, or a NetworkPolicy of the control plane's namespace isolates those endpoints' pods for ingress and admits none of the meshed pods, so the proxy never becomes ready.",
    severity: 'error',
    readsOtherNamespaces: true,
    inputs: ['networkpolicies'],
  },
  'pod-sandbox-cni-failed': {
    code: 'MD1061',
    title: "The mesh's CNI plugin fails the pod's sandbox",
    description:
      "The kubelet cannot create a pod's sandbox because the mesh's CNI plugin fails on the node, or (Multus, OpenShift) the NetworkAttachmentDefinition that runs it is missing from the pod's namespace; the pod stays in ContainerCreating.",
    severity: 'error',
    readsOtherNamespaces: true,
    inputs: ['events'],
    optionalInputs: ['network-attachment-definitions'],
  },
  'node-agent-incomplete': {
    code: 'MD2070',
    spansNamespaces: true,
    title: "A mesh's node agent is missing on nodes",
    description:
      "A mesh's node agent DaemonSet (its CNI plugin, its sidecar-less node agent or node proxy, the client agent its injected pods register with) has no ready pod on nodes where pods need it: a taint it does not tolerate, a node selection, its pod failing, or pods not created (a priority class without a ResourceQuota, a quota); an agent that runs and never becomes ready beside a cluster CNI plugin owning the nodes' CNI configuration (the DaemonSets read: Cilium's agent image; its cni.exclusive setting is not read); or, per node, the cluster's CNI agent (the DaemonSets and their pods read, recognised by image) started after the mesh's CNI agent there and rewrote the configuration without its plugin (a release that does not add it back, or pods set up in the gap failing), or the mesh's agent restarted until the cluster's agent had written it. The pods there fail validation or run outside the mesh.",
    severity: 'error',
    inputs: ['daemonsets'],
  },
  'control-plane-down': {
    code: 'MD1250',
    spansNamespaces: true,
    title: "A component of the mesh's control plane does not run",
    description:
      "A component of a mesh's control plane (its table per mesh and release: an identity service or certificate authority, a configuration or discovery server, a configuration validator, a server cluster holding the catalog, a webhook certificate manager), found by its pods' labels in the control-plane namespaces, has no ready replica, is scaled to 0 while pods need it, or is not installed while pods wait for a Secret only it writes. Why, in the cluster's words: the scheduler's message, an image the kubelet cannot pull or parse, a crash loop and the component's termination message, a volume it cannot mount, its controller's FailedCreate; and the pods of the mesh it leaves broken (proxies never ready, init containers never finishing, Secrets not found).",
    severity: 'error',
    inputs: ['pods'],
  },
  'component-cert-not-reloaded': {
    code: 'MD1190',
    title: 'A mesh component serves the certificate it started with',
    description:
      "A mesh component (injector, validating webhook, APIService) started before the Secret it mounts got its current certificate (the certificate's notBefore against the container's startedAt), in a release that reads the certificate only at start (the mesh's release data): it still serves the older one, which the API server rejects once it expires or the caBundle no longer vouches for it.",
    severity: 'error',
    inputs: ['pods', 'secrets'],
  },
  'proxy-predates-trust-root': {
    code: 'MD1070',
    title: 'Proxy injected before the trust root was regenerated',
    description:
      "Meshed pods whose proxy was injected before the mesh's current trust anchors were generated by a reinstall or replaced by an upgrade: the proxy still holds the old root, so it cannot verify the proxies and the identity service injected or started since (certificate signed by unknown authority) until its pod is re-created.",
    severity: 'error',
    inputs: ['pods', 'configmaps', 'mutatingwebhookconfigurations'],
  },
  'pod-predates-node-agent': {
    code: 'MD1150',
    readsOtherNamespaces: true,
    title: "Pods started before their node's CNI agent was ready",
    description:
      "Meshed pods that started on their node before the mesh's CNI node agent there was ready (its pod's Ready time; a new node, a restarted node, the agent replaced), with no validation container to stop them or one the mesh's release lets pass: their sandbox was set up without the plugin, so their traffic bypasses the proxy until they are re-created.",
    severity: 'error',
    inputs: ['pods'],
    optionalInputs: ['nodes', 'configmaps'],
  },
  'proxy-hold-stuck': {
    code: 'MD1151',
    title: 'The hold of the app until the proxy is ready never completes',
    description:
      "The postStart hook that holds a pod's app until its proxy is ready (the mesh's hold setting) did not complete: the kubelet killed and restarted the proxy while starting the pod, or says FailedPostStartHook. Names why where the mesh's settings or the pod show it (a proxy whose readiness needs the pod's IP, which the kubelet publishes only after the hook; a hook polling another admin port than the proxy's), else quotes the kubelet and says the cause is not known.",
    severity: 'error',
    inputs: ['pods'],
    optionalInputs: ['events', 'configmaps'],
  },
  'reference-missing': {
    code: 'MD1180',
    title: 'A marker names an object that does not exist',
    description:
      "A pod template or namespace marker of a mesh, or the mesh's own configuration, names an object that must exist and does not, read from each mesh's table of references by release: the mesh a pod joins, the container patches or bootstrap ConfigMap it names, with ACLs the ServiceAccount its service name must be, and addresses naming a Service (the control plane address a proxy dials, in the mesh's configuration or on the pod, its tracing and metrics addresses, a trace collector, an extension provider's service), resolved as the pod's resolver or the control plane's registry does: a name without a namespace in the pod's own; names the namespace where a Service of that name is. Where the kind was not read (a mesh's own resources) it says so and is reported only while the workload has no pods, pods without the proxy or pods not ready; not read is never missing.",
    severity: 'error',
    readsOtherNamespaces: true,
    inputs: [],
  },
  'mesh-key-unknown': {
    code: 'MD2075',
    title: "A mesh's key the installed release does not know",
    description:
      "An annotation or label under a mesh's own prefixes on a pod template or namespace that the installed release does not know (a typo, or a key of another release): nothing reads it. Names the nearest key the release knows and what it does.",
    severity: 'warning',
    inputs: ['namespaces'],
  },
  'mesh-key-value-invalid': {
    code: 'MD1230',
    title: 'A known mesh key with a value the injector cannot parse',
    description:
      'A key the installed release reads, on a pod template, pod or namespace, with a value its injector cannot parse (a port range where ports are read, a quantity or duration it rejects, an upstream without its port, YAML that is no mapping): names the type the release reads and what its injector does, from its source: refuses the pod, crashes (failurePolicy decides), ignores the value, or passes it to a proxy that fails. Quotes the FailedCreate event or the pods it sees.',
    severity: 'error',
    inputs: [],
    optionalInputs: ['events'],
  },
  'mesh-ranges-miss-cluster': {
    code: 'MD1260',
    title: "The mesh's address ranges miss the cluster's",
    description:
      "The address ranges a mesh is configured with, against the cluster's as read (nodes' pod ranges and InternalIPs, Services' ClusterIPs, meshed pods' addresses): the ranges a mesh counts as the cluster's missing the Service or pod range (no discovery or mTLS to them) or, on releases that refuse the kubelet's probes from outside them, a node's address; the redirected ranges (include/exclude settings and annotations) leaving meshed Services outside the proxy; pods whose primary address is IPv6 on a release whose proxy listens on IPv4 only; a node's pod range overlapping a node's address or a Service's ClusterIP. Release behaviour from the release tables.",
    severity: 'error',
    readsOtherNamespaces: true,
    inputs: ['pods'],
  },
  'cluster-dns-unavailable': {
    code: 'MD1261',
    title: 'The cluster DNS the proxies need has no ready endpoint',
    description:
      "The cluster DNS Service (kube-system/kube-dns, openshift-dns/dns-default) has no ready endpoint: its pods are all not ready (Pending with the scheduler's reason, crash-looping, scaled to zero) or its EndpointSlices list none ready. Every mesh's proxy finds its control plane by name through it, so no proxy that starts becomes ready; names the meshed pods whose proxy is not ready now. Also a NodeLocal DNS cache pod not ready on the nodes where meshed pods run.",
    severity: 'error',
    readsOtherNamespaces: true,
    inputs: ['pods'],
  },
  'app-probe-through-proxy': {
    code: 'MD1270',
    title: "The app's probe fails through the mesh's proxy",
    description:
      "An app container of a meshed pod fails its liveness, readiness or startup probe because the probe reaches the proxy unrewritten and the proxy refuses it: judged against the mesh's table per release (which probe kinds and handlers the injector rewrites to the proxy's probe listener, on by default or not, the pod annotation that turns it off; the inbound policy and the probes it authorizes where a mesh rewrites none), on a port the proxy intercepts, with the kubelet's Unhealthy events quoting the failure that refusal gives (a reset connection under mutual TLS, 403). Names the probe, why it was not rewritten (the release, the annotation, a container added after injection, the install's setting) and the fix; silent where the probe is rewritten, its port not intercepted, or the workload's unmeshed pods fail it too.",
    severity: 'error',
    inputs: ['events'],
  },
} as const satisfies Record<string, CatalogEntry>;

export type CheckId = keyof typeof CATALOG;

/** Every check's metadata, sorted by code. */
export const CHECK_META: readonly (CatalogEntry & { id: CheckId })[] = (Object.keys(CATALOG) as CheckId[])
  .map((id) => ({ id, ...(CATALOG[id] as CatalogEntry) }))
  .sort((a, b) => (a.code < b.code ? -1 : 1));
