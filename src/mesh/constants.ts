/** Kubernetes' own namespaces: never meshed, never reported as unmeshed. */
export const KUBE_SYSTEM_NAMESPACES = ['kube-system', 'kube-public', 'kube-node-lease'];

/** Linkerd's injector: its Deployment and Service name. */
export const LINKERD_INJECTOR = 'linkerd-proxy-injector';

/** Istio's control plane Deployment: istiod, or istiod-<revision>. */
export const isIstiod = (name: string): boolean => /^istiod(-|$)/.test(name);
