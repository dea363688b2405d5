/**
 * What Linkerd supports and needs (issue 25): the Kubernetes versions of each release, its
 * versions and how far its data plane may trail, and the RBAC its chart grants the proxy injector.
 * Sources: linkerd/linkerd2 (tags stable-2.14.10 @1ea6b271, version-2.15 @f0d861ea … version-2.19
 * @0ebd74b0, version-2.20 @eadc1acf) and linkerd/website @93f00175.
 */
import type { K8sObject } from '../../util/types.js';
import { annotationsOf } from '../../util/objects.js';
import type { InjectorRbac, VersionRead } from '../profile.js';
import { containerVersion, deploymentText, podContainer, templateContainer } from '../versions.js';
import { LINKERD_KUBERNETES, LINKERD_RELEASES } from './releases.js';

const PROXY = 'linkerd-proxy';

/**
 * From 2.15 the open-source releases ship as edge builds: each version-2.x tag points at one edge
 * tag (`git tag --points-at`), the release table's channel rows (LINKERD_RELEASES.channels, the one
 * list of them). For its Kubernetes support and skew only that exact edge build is placed; other
 * edge builds support "all versions of Kubernetes which are readily available on major cloud
 * providers at the time of release" (the page above, "Edge Releases"): not examined.
 */
const EDGE_BUILD = new Map(
  (LINKERD_RELEASES.channels ?? []).map((c) => [`${c.prefix}${c.from.join('.')}`, c.release] as const),
);

/** A Linkerd version: its channel and numbers (stable-2.14.10 -> stable [2, 14, 10]; edge-25.10.7 -> edge [25, 10, 7]). */
function parse(v: string): { channel: 'stable' | 'edge'; n: [number, number, number] } | undefined {
  const m = /^(stable|edge)-(\d{1,4})\.(\d{1,4})\.(\d{1,4})$/.exec(v);
  return m ? { channel: m[1] as 'stable' | 'edge', n: [Number(m[2]), Number(m[3]), Number(m[4])] } : undefined;
}

const isVersion = (v: string) => parse(v) !== undefined;

/**
 * The proxy version a pod runs: the `linkerd-proxy` container's image tag, as `linkerd check`
 * reads it (pkg/k8s/api.go GetProxyVersion, lines 327-342 at version-2.19: init containers too, so
 * native sidecars count), else, for an image pinned by digest, the `linkerd.io/proxy-version`
 * annotation the injector writes (pkg/k8s/labels.go line 97, charts/partials/templates/_metadata.tpl).
 */
function proxy(pod: K8sObject): VersionRead | undefined {
  const c = podContainer(pod, PROXY);
  if (!c) return undefined;
  const fromImage = containerVersion(c, `container ${PROXY}`, isVersion);
  if (fromImage) return fromImage;
  const ann = annotationsOf(pod)['linkerd.io/proxy-version'];
  return ann && isVersion(ann) ? { version: ann, from: `annotation linkerd.io/proxy-version: ${ann}` } : undefined;
}

export const linkerdVersions = {
  /** Its releases as data (issue 32.4). */
  releases: LINKERD_RELEASES,
  kubernetes: LINKERD_KUBERNETES,
  release(v: string): string | undefined {
    const p = parse(v);
    if (!p) return undefined;
    if (p.channel === 'edge') return EDGE_BUILD.get(v);
    return p.n[0] === 2 ? `2.${p.n[1]}` : undefined;
  },
  compare(a: string, b: string): number | undefined {
    const x = parse(a);
    const y = parse(b);
    if (!x || !y || x.channel !== y.channel) return undefined; // edge and stable builds do not order
    return x.n[0] - y.n[0] || x.n[1] - y.n[1] || x.n[2] - y.n[2];
  },
  /** The controller image of the injector (charts/linkerd-control-plane/templates/proxy-injector.yaml line 97: controllerImage:controllerImageVersion|linkerdVersion). */
  controlPlane: (_m: unknown, d: K8sObject) =>
    containerVersion(
      templateContainer(d, 'proxy-injector'),
      `${deploymentText(d)} container proxy-injector`,
      isVersion,
    ),
  /**
   * What the injector injects: the values it renders proxies from (`proxy.image.version | default
   * linkerdVersion`, charts/partials/templates/_proxy.tpl line 252) are those its own pod's proxy
   * was rendered from (proxy-injector.yaml line 80 includes the same partial): that container's tag.
   */
  injects(_m: unknown, d: K8sObject): VersionRead | undefined {
    const c = templateContainer(d, PROXY);
    return containerVersion(c, `${deploymentText(d)} container ${PROXY}`, isVersion);
  },
  proxy,
  /**
   * linkerd/website@93f00175 linkerd.io/content/2-edge/tasks/upgrade.md lines 20-61, 184-191: "a
   * skew of one major version between data plane and control plane is always supported"; more is
   * not.
   */
  skew: {
    releases: 1,
    /** The page's "between data plane and control plane": either way. */
    ahead: 1,
    text: 'Linkerd supports a data plane one major version (2.x) behind or ahead of its control plane, not more; restart the workloads after each upgrade',
    source: 'linkerd/website@93f00175 linkerd.io/content/2-edge/tasks/upgrade.md',
  },
};

/**
 * The proxy injector's RBAC, charts/linkerd-control-plane/templates/proxy-injector-rbac.yaml
 * (identical rules from stable-2.14.10 to version-2.20): ClusterRole and ClusterRoleBinding
 * `linkerd-<namespace>-proxy-injector`, bound to ServiceAccount `linkerd-proxy-injector`.
 * What injection uses: the metadata informers the injector starts (controller/cmd/proxy-injector/
 * main.go: NS, Deploy, RC, RS, Job, DS, SS, Pod, CJ: list and watch), the namespace it reads per
 * request (controller/proxy-injector/webhook.go line 54), the direct GETs of a pod's ReplicaSet or
 * Job when the cache misses (controller/k8s/metadata_api.go lines 236, 251). Without them the
 * caches never sync: `log.Fatal("failed to sync caches")` after 60 s (controller/k8s/k8s.go
 * waitForCacheSync) and the injector restarts in a loop. Events are left out: without them only
 * the Injected/InjectionSkipped events are lost.
 */
export const linkerdRbac: InjectorRbac = {
  names: (ns) => ({ clusterRole: `linkerd-${ns}-proxy-injector`, clusterRoleBinding: `linkerd-${ns}-proxy-injector` }),
  needs: [
    {
      group: '',
      resource: 'namespaces',
      verbs: ['get', 'list', 'watch'],
      why: "reads each pod's namespace annotations",
    },
    { group: '', resource: 'pods', verbs: ['list', 'watch'], why: 'caches pods' },
    { group: '', resource: 'replicationcontrollers', verbs: ['list', 'watch'], why: "caches pods' owners" },
    { group: 'apps', resource: 'deployments', verbs: ['list', 'watch'], why: "caches pods' owners" },
    {
      group: 'apps',
      resource: 'replicasets',
      verbs: ['get', 'list', 'watch'],
      why: "resolves a pod's ReplicaSet to its Deployment",
    },
    { group: 'apps', resource: 'daemonsets', verbs: ['list', 'watch'], why: "caches pods' owners" },
    { group: 'apps', resource: 'statefulsets', verbs: ['list', 'watch'], why: "caches pods' owners" },
    { group: 'batch', resource: 'jobs', verbs: ['get', 'list', 'watch'], why: "resolves a pod's Job to its CronJob" },
    { group: 'batch', resource: 'cronjobs', verbs: ['list', 'watch'], why: "caches pods' owners" },
  ],
  without:
    'its caches never sync, it exits after 60 s and restarts in a loop, and while it is down pods are admitted without a proxy (failurePolicy Ignore) or refused (Fail)',
  source: 'linkerd/linkerd2@0ebd74b0 charts/linkerd-control-plane/templates/proxy-injector-rbac.yaml',
};
