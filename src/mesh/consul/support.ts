/**
 * What Consul on Kubernetes supports and needs (issue 25): the Kubernetes versions of each
 * consul-k8s release, its versions, and the RBAC its chart grants the connect injector. Sources:
 * hashicorp/consul-k8s tag v1.9.0 (b5932099) and the compatibility matrix on
 * developer.hashicorp.com.
 */
import type { K8sObject } from '../../util/types.js';
import { arr } from '../../util/objects.js';
import type { InjectorRbac, KubernetesSupport, VersionRead } from '../profile.js';
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
import { CONSUL_RELEASES } from './releases.js';

/**
 * The compatibility matrix ("Compatible Kubernetes versions" per consul-k8s version):
 * developer.hashicorp.com/consul/docs/k8s/compatibility (1.8.x, 1.9.x),
 * developer.hashicorp.com/consul/docs/deploy/server/k8s/requirements (1.1.x to 1.3.x), and
 * hashicorp/consul@0363db5d website/content/docs/k8s/compatibility.mdx (1.4.x). Not verified, so
 * not in the table (not examined): 1.5.x to 1.7.x and 2.0.x.
 */
const MATRIX = 'developer.hashicorp.com/consul/docs/k8s/compatibility';
const KUBERNETES: readonly KubernetesSupport[] = [
  { release: '1.9', min: '1.30', max: '1.34', source: MATRIX },
  { release: '1.8', min: '1.30', max: '1.34', source: MATRIX },
  {
    release: '1.4',
    min: '1.26',
    max: '1.29',
    source: 'hashicorp/consul@0363db5d website/content/docs/k8s/compatibility.mdx',
  },
  {
    release: '1.3',
    min: '1.25',
    max: '1.28',
    source: 'developer.hashicorp.com/consul/docs/deploy/server/k8s/requirements',
  },
  {
    release: '1.2',
    min: '1.24',
    max: '1.27',
    source: 'developer.hashicorp.com/consul/docs/deploy/server/k8s/requirements',
  },
  {
    release: '1.1',
    min: '1.23',
    max: '1.26',
    source: 'developer.hashicorp.com/consul/docs/deploy/server/k8s/requirements',
  },
];

export const consulVersions = {
  /** Its releases as data (issue 32.4). */
  releases: CONSUL_RELEASES,
  kubernetes: KUBERNETES,
  release: (v: string) => minorRelease(v),
  compare: (a: string, b: string) => compareSemver(a, b),
  /** The consul-k8s-control-plane image of the connect injector (charts/consul/templates/connect-inject-deployment.yaml, container sidecar-injector). */
  controlPlane: (_m: unknown, d: K8sObject) =>
    containerVersion(templateContainer(d, 'sidecar-injector'), `${deploymentText(d)} container sidecar-injector`),
  /**
   * The consul-dataplane image it injects: its `-consul-dataplane-image` flag
   * (connect-inject-deployment.yaml, from global.imageConsulDataplane), kept in snapshots.
   */
  injects(_m: unknown, d: K8sObject): VersionRead | undefined {
    const c = templateContainer(d, 'sidecar-injector');
    const text = [...arr(c?.command), ...arr(c?.args)].map(String).join(' ');
    const image = /-consul-dataplane-image="?([\w./:@-]+)"?/.exec(text)?.[1];
    const tag = imageTag(image);
    return tag && semver(tag)
      ? { version: tag, from: `${deploymentText(d)} flag -consul-dataplane-image=${image}` }
      : undefined;
  },
  /** The consul-dataplane container (a native sidecar with dataplaneAsSidecarInitContainer). */
  proxy: (pod: K8sObject): VersionRead | undefined =>
    containerVersion(podContainer(pod, 'consul-dataplane'), 'container consul-dataplane'),
};

/**
 * The connect injector's RBAC, charts/consul/templates/connect-inject-clusterrole.yaml and
 * connect-inject-clusterrolebinding.yaml at v1.9.0: ClusterRole and ClusterRoleBinding
 * `<fullname>-connect-injector` (the injector Deployment's own name), bound to ServiceAccount
 * `<fullname>-connect-injector`; namespaces get/list/watch (lines 86-91). The webhook gets the
 * pod's Namespace for every pod (control-plane/connect-inject/webhook/mesh_webhook.go line 299)
 * and refuses the pod when it cannot (`admission.Errored`, line 302).
 */
export const consulRbac: InjectorRbac = {
  names: (_ns, injector) => ({ clusterRole: injector, clusterRoleBinding: injector }),
  needs: [
    {
      group: '',
      resource: 'namespaces',
      verbs: ['get'],
      why: "reads each pod's namespace labels (transparent proxy, ...)",
    },
  ],
  without: 'the injector refuses every pod it is called for (error getting namespace metadata for container)',
  source: 'hashicorp/consul-k8s@b5932099 charts/consul/templates/connect-inject-clusterrole.yaml',
};
