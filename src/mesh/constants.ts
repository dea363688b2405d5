/** Kubernetes' own namespaces: never meshed, never reported as unmeshed. */
export const KUBE_SYSTEM_NAMESPACES = ['kube-system', 'kube-public', 'kube-node-lease'];
