/**
 * Consul's settings that name an object that must exist (issue 31, gen9refs; src/mesh/references.ts):
 * with ACLs, the Consul service name of a pod names the ServiceAccount the pod must run as, since
 * the ACL token its init container logs in with (`consul login` with the pod's ServiceAccount token,
 * the auth method's binding rule) is valid only for the service named as the ServiceAccount.
 * Sources, hashicorp/consul-k8s:
 * - v0.25.0 connect-inject/handler.go defaultAnnotations: the service name is the annotation
 *   `consul.hashicorp.com/connect-service`, else the name of the pod's first container.
 * - v0.17.0 to v0.25.0 connect-inject/container_init.go containerInit: with -acl-auth-method,
 *   `serviceAccountName %q does not match service name %q`, returned to handler.go Mutate as
 *   "Error configuring injection init container: ...": the API server refuses the pod.
 * - before v0.17.0 (v0.16.0 container_init.go): no such test; the init container's `consul login`
 *   token cannot register the service (hashicorp/consul-helm#202, hashicorp/vault-helm#206,
 *   hashicorp/consul-k8s#237).
 * - v0.26.0 and later: the endpoints controller names the service after the Kubernetes Service and
 *   connect-init compares it (runtime.ts serviceNeeds, proxy-cannot-start): not a reference here.
 */
import { setOnTemplate } from '../../fix/commands.js';
import { comment } from '../../fix/steps.js';
import { containers, podSpec } from '../../k8s/pods.js';
import type { Workload } from '../../k8s/workloads.js';
import { annotationsOf, str } from '../../util/objects.js';
import type { MeshContext } from '../context.js';
import { releaseWithin, type ProfileOfRefs, type Reference, type References } from '../references.js';
import { CONSUL_INJECT, consulSettings, parseConsul } from './injector.js';

const SERVICE = 'consul.hashicorp.com/connect-service';

/** The releases whose injector names the service and compares it (the rows' spans; the effect by release). */
const SPANS = [
  {
    from: '0.17',
    to: '0.25',
    effect:
      'with ACLs the injector refuses a pod whose Consul service is not named as its ServiceAccount ("serviceAccountName does not match service name"), so the API server refuses the pod',
    source: 'hashicorp/consul-k8s v0.25.0 connect-inject/container_init.go containerInit; hashicorp/consul-k8s#281',
  },
  {
    from: '0.2',
    to: '0.16',
    effect:
      "with ACLs the ACL token the injected init container logs in with is valid only for the service named as the pod's ServiceAccount, so it cannot register the service and the pod never starts",
    source:
      'hashicorp/consul-k8s v0.16.0 connect-inject/container_init.go; hashicorp/consul-helm#202, hashicorp/consul-k8s#237',
  },
] as const;

/** The Consul service name of the workload's pods, and where it comes from, for releases before 0.26. */
function serviceName(w: Workload): { name: string; said: string; byAnnotation: boolean } | undefined {
  const named = annotationsOf(w.template)[SERVICE];
  if (named) return { name: named, said: `pod template annotation ${SERVICE}=${named}`, byAnnotation: true };
  const first = str(containers(podSpec(w.template))[0]?.name);
  return first
    ? {
        name: first,
        said: `the name of its first container, ${first} (no pod template annotation ${SERVICE}, so the injector names the service after it)`,
        byAnnotation: false,
      }
    : undefined;
}

export const CONSUL_REFERENCES: References = {
  rows: [],
  fix: () => [],
  more: (m: MeshContext, w: Workload, p: ProfileOfRefs, release: string | undefined): Reference[] => {
    const s = consulSettings(m);
    if (!s.acls || s.unknown) return [];
    // Only pods that ask for injection are named a service.
    const ask = parseConsul(annotationsOf(w.template)[CONSUL_INJECT]);
    if (ask !== true && !(ask === undefined && s.defaultInject)) return [];
    // Today's releases (or one not placed): connect-init compares the names (runtime.ts), not these.
    const span = SPANS.find((x) => releaseWithin(p, release, x));
    if (!span) return [];
    const svc = serviceName(w);
    const spec = podSpec(w.template);
    const sa = str(spec.serviceAccountName) ?? str(spec.serviceAccount) ?? 'default';
    if (!svc || svc.name === sa) return [];
    return [
      {
        key: SERVICE,
        said: svc.said,
        value: svc.name,
        target: {
          title: 'ServiceAccount',
          kind: 'serviceaccounts',
          scope: 'pod namespace',
          namespace: w.namespace,
          name: svc.name,
        },
        mustBe: { name: sa, field: 'serviceAccountName' },
        missing: span.effect,
        source: span.source,
        fix: [
          comment`name the Consul service as the ServiceAccount the pods run as, or run the pods as a ServiceAccount named as the service`,
          ...setOnTemplate(w, 'annotations', SERVICE, sa),
        ],
      },
    ];
  },
};
