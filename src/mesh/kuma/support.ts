/**
 * What Kuma supports and needs (issue 25): the Kubernetes versions of each release, its versions
 * and how far its data plane may trail, and the RBAC its chart grants the control plane (which is
 * the injector). Sources: kumahq/kuma tags 2.9.0 (948e6a43) to v2.14.0 (51c6d381).
 */
import type { K8sObject } from '../../util/types.js';
import { arr, isObj } from '../../util/objects.js';
import type { InjectorRbac, VersionRead } from '../profile.js';
import {
  compareSemver,
  containerVersion,
  deploymentText,
  imageTag,
  minorRelease,
  podContainer,
  semver,
  templateContainer,
} from '../versions.js';
import { KUMA_KUBERNETES, KUMA_RELEASES } from './releases.js';

/**
 * The kuma-dp image the control plane injects: the chart always sets it in
 * KUMA_RUNTIME_KUBERNETES_INJECTOR_SIDECAR_CONTAINER_IMAGE (deployments/charts/kuma/templates/
 * _helpers.tpl line 262 at v2.14.0, from dataPlane.image, whose tag defaults to the chart's).
 */
export const SIDECAR_IMAGE_ENV = 'KUMA_RUNTIME_KUBERNETES_INJECTOR_SIDECAR_CONTAINER_IMAGE';

/**
 * pkg/version/compatibility.go DeploymentVersionCompatible (v2.14.0): "we support backwards
 * compatibility of at most two prior minor versions" (the constraint >= minor-2, <= minor+2).
 */
export const KUMA_SKEW = {
  releases: 2,
  /** DeploymentVersionCompatible: `>= minor-2, <= minor+2` of the control plane's major. */
  ahead: 2,
  text: 'Kuma supports a data plane at most two minor versions behind or ahead of its control plane',
  source: 'kumahq/kuma@51c6d381 pkg/version/compatibility.go DeploymentVersionCompatible',
};

export const kumaVersions = {
  /** Its releases as data (issue 32.4). */
  releases: KUMA_RELEASES,
  kubernetes: KUMA_KUBERNETES,
  release: (v: string) => minorRelease(v),
  compare: (a: string, b: string) => compareSemver(a, b),
  /** The kuma-cp image of the control-plane container (values.yaml controlPlane.image.repository "kuma-cp"). */
  controlPlane: (_m: unknown, d: K8sObject) =>
    containerVersion(templateContainer(d, 'control-plane'), `${deploymentText(d)} container control-plane`),
  injects(_m: unknown, d: K8sObject): VersionRead | undefined {
    const c = templateContainer(d, 'control-plane');
    const e = arr(c?.env).find((x) => isObj(x) && x.name === SIDECAR_IMAGE_ENV);
    const tag = isObj(e) && typeof e.value === 'string' ? imageTag(e.value) : undefined;
    return tag && semver(tag)
      ? { version: tag, from: `${deploymentText(d)} env ${SIDECAR_IMAGE_ENV}=${e!.value}` }
      : undefined;
  },
  /** The kuma-sidecar container's kuma-dp image (values.yaml dataPlane.image.repository "kuma-dp"). */
  proxy: (pod: K8sObject): VersionRead | undefined =>
    containerVersion(podContainer(pod, 'kuma-sidecar'), 'container kuma-sidecar'),
  skew: KUMA_SKEW,
};

/**
 * The control plane's RBAC for injection, deployments/charts/kuma/templates/cp-rbac.yaml (v2.14.0,
 * the same rules at 2.12.0): ClusterRole and ClusterRoleBinding `<name>-control-plane` (`kuma`
 * unless nameOverride), bound to ServiceAccount `<name>-control-plane` (lines 23-44, 99-148,
 * 194-206). The injector gets the pod's Namespace (pkg/plugins/runtime/k8s/webhooks/injector/
 * injector.go namespaceFor) and the pod's Mesh (precheck.go: `i.client.Get(ctx, ..., &mesh_k8s.Mesh{})`)
 * through controller-runtime's cached client, which lists and watches them; an error is returned
 * as `admission.Errored` (webhooks/pod_mutator.go), which refuses the pod.
 */
export const kumaRbac: InjectorRbac = {
  names: (_ns, cp) => ({ clusterRole: cp, clusterRoleBinding: cp }),
  needs: [
    {
      group: '',
      resource: 'namespaces',
      verbs: ['get', 'list', 'watch'],
      why: "reads each pod's namespace labels and annotations",
    },
    { group: 'kuma.io', resource: 'meshes', verbs: ['get', 'list', 'watch'], why: "reads the pod's Mesh" },
  ],
  without: 'the injector cannot read the namespace or the Mesh and refuses every pod it is called for',
  source: 'kumahq/kuma@51c6d381 deployments/charts/kuma/templates/cp-rbac.yaml',
};
