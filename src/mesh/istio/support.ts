/**
 * What Istio supports and needs (issue 25): how its versions are read, how far its data plane may
 * trail, and the RBAC its chart grants istiod for injection (its Kubernetes support per release is
 * releases.ts's).
 * Sources: istio/istio tag 1.28.0 (b8d1df54) and the support table of istio.io.
 */
import { installedTemplateKeys } from './template-keys.js';
import type { K8sObject } from '../../util/types.js';
import { nameOf, nsOf } from '../../util/objects.js';
import type { MeshContext } from '../context.js';
import { configValues, valueAt } from '../config-values.js';
import type { InjectorRbac, VersionRead } from '../profile.js';
import { containerVersion, podContainer, semver } from '../versions.js';
import { injectorConfigName, serviceRevision } from './install.js';
import { istiodVersion } from './version.js';

const isVersion = (t: string) => semver(t.replace(/-(distroless|debug)$/, '')) !== undefined;
/** A proxyv2 or pilot tag without its image variant (inject.go KnownImageTypes: distroless, debug). */
const plain = (t: string) => t.replace(/-(distroless|debug)$/, '');

/** The proxy version a pod runs: the istio-proxy container's image tag (`<hub>/proxyv2:<tag>[-<variant>]`, inject.go ProxyImage). */
function proxy(pod: K8sObject): VersionRead | undefined {
  const v = containerVersion(podContainer(pod, 'istio-proxy'), 'container istio-proxy', isVersion);
  return v ? { ...v, version: plain(v.version) } : undefined;
}

/** How Istio's versions are read (the behaviour's `version`; its releases, Kubernetes support and skew are data.ts's). */
export const istioVersionReads = {
  controlPlane(m: MeshContext, d: K8sObject): VersionRead | undefined {
    const v = istiodVersion(m, nsOf(d), nameOf(d));
    return v.version ? { version: v.version, from: v.text } : undefined;
  },
  /**
   * What istiod injects: `<hub>/proxyv2:<global.tag>` (pkg/kube/inject/inject.go ProxyImage, line
   * 319 at 1.28.0), global.tag as its injector ConfigMap's `values` carry it
   * (istio-sidecar-injector[-<revision>]); else istiod's own version (the chart renders both from
   * the same tag).
   */
  injects(m: MeshContext, d: K8sObject): VersionRead | undefined {
    const cm = m.get('configmaps', nsOf(d), injectorConfigName(serviceRevision(nameOf(d))));
    const tag = valueAt(configValues(cm) ?? {}, 'global', 'tag');
    if (typeof tag === 'string' && isVersion(tag))
      return { version: plain(tag), from: `ConfigMap ${nsOf(d)}/${nameOf(cm!)} values global.tag` };
    const v = istiodVersion(m, nsOf(d), nameOf(d));
    return v.version ? { version: v.version, from: v.text } : undefined;
  },
  proxy,
  templateKeys: installedTemplateKeys,
};

/**
 * istio.io/latest/docs/releases/supported-releases "Control Plane/Data Plane Skew": "The Istio
 * control plane can be one version ahead of the data plane. However, the data plane cannot be
 * ahead of control plane."
 */
export const ISTIO_SKEW = {
  releases: 1,
  ahead: 0,
  text: 'Istio supports a data plane one minor version behind its control plane, not more (and never ahead of it)',
  source: 'istio.io/latest/docs/releases/supported-releases "Control Plane/Data Plane Skew"',
} as const;

/**
 * istiod's RBAC for injection, manifests/charts/istio-control/istio-discovery/templates at 1.28.0:
 * ClusterRole and ClusterRoleBinding `istiod-clusterrole[-<revision>]-<namespace>` bound to
 * ServiceAccount `istiod[-<revision>]` (clusterrole.yaml line 9, clusterrolebinding.yaml lines
 * 6-21). The rules injection uses: mutatingwebhookconfigurations (lines 16-19: istiod patches its
 * own webhook's caBundle, pilot/pkg/bootstrap/sidecarinjector.go lines 93-106 and
 * pkg/webhooks/webhookpatch.go), configmaps (lines 99-102: the injection template, read at start:
 * sidecarinjector.go lines 60-69 return any error but NotFound, and istiod then fails to start,
 * pilot/pkg/bootstrap/server.go lines 358-361), nodes (lines 70-72: native sidecar detection,
 * pkg/kube/inject/webhook.go lines 219-223, 1235-1286).
 */
export const ISTIO_RBAC_NEEDS = {
  needs: [
    {
      group: 'admissionregistration.k8s.io',
      resource: 'mutatingwebhookconfigurations',
      verbs: ['get', 'list', 'watch', 'update', 'patch'],
      why: "patches its injection webhook's caBundle",
    },
    {
      group: '',
      resource: 'configmaps',
      verbs: ['get', 'list', 'watch'],
      why: 'reads its injection template (istio-sidecar-injector)',
    },
    {
      group: '',
      resource: 'nodes',
      verbs: ['get', 'list', 'watch'],
      why: "reads the nodes' kubelet versions to decide native sidecars",
    },
  ],
  without:
    'istiod fails to start its injector (error initializing sidecar injector) or leaves its webhook with a stale caBundle',
  source: 'istio/istio@b8d1df54 manifests/charts/istio-control/istio-discovery/templates/clusterrole.yaml',
} as const satisfies Omit<InjectorRbac, 'names'>;

/** The ClusterRole and ClusterRoleBinding of istiod[-<revision>] in `ns` (clusterrole.yaml line 9). */
export const istioRbacNames: InjectorRbac['names'] = (ns, istiod) => {
  const rev = istiod.startsWith('istiod-') ? `-${istiod.slice('istiod-'.length)}` : '';
  return { clusterRole: `istiod-clusterrole${rev}-${ns}`, clusterRoleBinding: `istiod-clusterrole${rev}-${ns}` };
};
