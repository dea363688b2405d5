/**
 * What Consul on Kubernetes supports and needs (issue 25): the Kubernetes versions of each
 * consul-k8s release, its versions, and the RBAC its chart grants the connect injector. Sources:
 * hashicorp/consul-k8s tag v1.9.0 (b5932099) and the compatibility matrix on
 * developer.hashicorp.com.
 */
import type { K8sObject } from '../../util/types.js';
import { arr } from '../../util/objects.js';
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
import { CONSUL_KUBERNETES, CONSUL_RELEASES } from './releases.js';
import { consulServers } from './servers.js';

export const consulVersions = {
  /** Its releases as data (issue 32.4). */
  releases: CONSUL_RELEASES,
  kubernetes: CONSUL_KUBERNETES,
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
  /** The Consul servers and the server releases the control plane's release supports (servers.ts). */
  servers: consulServers,
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
