/**
 * The one table of Kubernetes kinds meshdoctor reads. Everything that lists, loads or checks
 * objects names a kind by its key here.
 *
 * `byName`: the kind is never listed wholesale; only the named objects are fetched, and only in
 * the meshes' control-plane namespaces (ConfigMaps and Secrets can be huge and sensitive).
 */
export interface KindInfo {
  key: KindKey;
  kind: string;
  group: string; // '' for the core group
  version: string;
  plural: string;
  namespaced: boolean;
  byName?: boolean;
  /**
   * An API a cluster may not serve at all (Multus's k8s.cni.cncf.io): a 404 for its list
   * means "not on this cluster", read as none, not as a kind that could not be read.
   */
  optionalApi?: boolean;
}

export const KIND_KEYS = [
  'namespaces',
  'pods',
  'replicasets',
  'deployments',
  'statefulsets',
  'daemonsets',
  'jobs',
  'cronjobs',
  'services',
  'endpoints',
  'endpointslices',
  'serviceaccounts',
  'resourcequotas',
  'events',
  'mutatingwebhookconfigurations',
  'configmaps',
  'secrets',
  'limitranges',
  // Issue 25: the nodes' kubelet versions, and the RBAC that grants each mesh's injector what it reads (all optional inputs).
  'nodes',
  'clusterroles',
  'clusterrolebindings',
  // Issue 25: the NetworkPolicies on the path to the injector (webhook-port-blocked).
  'networkpolicies',
  // Issue 31: the validating webhooks of the admission chain a pod goes through (admission-rejects-proxy).
  'validatingwebhookconfigurations',
  // Issue 31: the Multus attachments a mesh's CNI plugin needs in a pod's namespace (pod-sandbox-cni-failed).
  'network-attachment-definitions',
] as const;

export type KindKey = (typeof KIND_KEYS)[number];

const k = (
  key: KindKey,
  kind: string,
  group: string,
  version: string,
  namespaced: boolean,
  byName = false,
  optionalApi = false,
): KindInfo => ({
  key,
  kind,
  group,
  version,
  plural: key,
  namespaced,
  ...(byName ? { byName } : {}),
  ...(optionalApi ? { optionalApi } : {}),
});

export const KINDS: Record<KindKey, KindInfo> = {
  namespaces: k('namespaces', 'Namespace', '', 'v1', false),
  pods: k('pods', 'Pod', '', 'v1', true),
  replicasets: k('replicasets', 'ReplicaSet', 'apps', 'v1', true),
  deployments: k('deployments', 'Deployment', 'apps', 'v1', true),
  statefulsets: k('statefulsets', 'StatefulSet', 'apps', 'v1', true),
  daemonsets: k('daemonsets', 'DaemonSet', 'apps', 'v1', true),
  jobs: k('jobs', 'Job', 'batch', 'v1', true),
  cronjobs: k('cronjobs', 'CronJob', 'batch', 'v1', true),
  services: k('services', 'Service', '', 'v1', true),
  endpoints: k('endpoints', 'Endpoints', '', 'v1', true),
  endpointslices: k('endpointslices', 'EndpointSlice', 'discovery.k8s.io', 'v1', true),
  serviceaccounts: k('serviceaccounts', 'ServiceAccount', '', 'v1', true),
  resourcequotas: k('resourcequotas', 'ResourceQuota', '', 'v1', true),
  events: k('events', 'Event', '', 'v1', true),
  mutatingwebhookconfigurations: k(
    'mutatingwebhookconfigurations',
    'MutatingWebhookConfiguration',
    'admissionregistration.k8s.io',
    'v1',
    false,
  ),
  validatingwebhookconfigurations: k(
    'validatingwebhookconfigurations',
    'ValidatingWebhookConfiguration',
    'admissionregistration.k8s.io',
    'v1',
    false,
  ),
  configmaps: k('configmaps', 'ConfigMap', '', 'v1', true, true),
  secrets: k('secrets', 'Secret', '', 'v1', true, true),
  limitranges: k('limitranges', 'LimitRange', '', 'v1', true),
  // Nodes: the kubelet versions, the managed provider and k3s's flags.
  nodes: k('nodes', 'Node', '', 'v1', false),
  clusterroles: k('clusterroles', 'ClusterRole', 'rbac.authorization.k8s.io', 'v1', false),
  clusterrolebindings: k('clusterrolebindings', 'ClusterRoleBinding', 'rbac.authorization.k8s.io', 'v1', false),
  // The path to the injector (webhook-port-blocked): policies in its namespace.
  networkpolicies: k('networkpolicies', 'NetworkPolicy', 'networking.k8s.io', 'v1', true),
  // Multus's CRD (k8snetworkplumbingwg/network-attachment-definition-client pkg/apis/k8s.cni.cncf.io/v1
  // types.go): served only where Multus runs (OpenShift); elsewhere the group is not served.
  'network-attachment-definitions': k(
    'network-attachment-definitions',
    'NetworkAttachmentDefinition',
    'k8s.cni.cncf.io',
    'v1',
    true,
    false,
    true,
  ),
};

/**
 * Where each kind keeps the pod template its pods are made from (a JSON path): the one table the
 * workloads (src/k8s/workloads.ts) and the snapshot slimmer (src/cluster/sanitize.ts) read. A
 * ReplicaSet's template is slimmed, but its pods count as its Deployment's.
 */
export const POD_TEMPLATE_PATH: Readonly<Partial<Record<KindKey, string>>> = {
  replicasets: '/spec/template',
  deployments: '/spec/template',
  statefulsets: '/spec/template',
  daemonsets: '/spec/template',
  jobs: '/spec/template',
  cronjobs: '/spec/jobTemplate/spec/template',
};

const BY_KIND = new Map<string, KindInfo>(Object.values(KINDS).map((i) => [i.kind, i]));

/** The kind table entry for an object's `kind` field (e.g. "Deployment"), if meshdoctor reads it. */
export function kindOf(kind: unknown): KindInfo | undefined {
  return typeof kind === 'string' ? BY_KIND.get(kind) : undefined;
}

/** The API path that lists a kind, cluster-wide or in one namespace. */
export function listPath(info: KindInfo, namespace?: string): string {
  const base = info.group ? `/apis/${info.group}/${info.version}` : `/api/${info.version}`;
  if (info.namespaced && namespace) return `${base}/namespaces/${encodeURIComponent(namespace)}/${info.plural}`;
  return `${base}/${info.plural}`;
}

/** The API path of one named object (used only for the byName kinds). */
export function objectPath(info: KindInfo, namespace: string, name: string): string {
  return `${listPath(info, namespace)}/${encodeURIComponent(name)}`;
}
