/**
 * What Linkerd's releases do with the app's probes (issue 31, gen12probes; the shape: src/mesh/release-table.ts
 * ProbeHandling). Linkerd rewrites no probe: the kubelet's plaintext request reaches linkerd-proxy's inbound, which
 * forwards it unless the pod's inbound policy refuses unauthenticated clients.
 * - 2.10: no inbound policy, every probe passes.
 * - 2.11: the default inbound policy (config.linkerd.io/default-inbound-policy on the pod or its namespace, else the
 *   install's proxy.defaultInboundPolicy) all-authenticated, cluster-authenticated or deny refuses the kubelet with
 *   403 (linkerd/linkerd2#7050, #7143): no probe is authorized by default.
 * - 2.12.0 on (linkerd/linkerd2#9008, edge-22.8.1): the policy controller authorizes the httpGet probe paths of the
 *   pod's containers by default from policyController.probeNetworks (policy-controller/k8s/index/src/inbound/
 *   workload.rs pod_http_probes), where no HTTPRoute selects the port's Server. Until stable-2.13.4 a probe path with
 *   a query string was not matched and got 403 (linkerd/linkerd2#10877, fixed in stable-2.13.4, CHANGES.md).
 * Ports: config.linkerd.io/skip-inbound-ports.
 */
import type { ReleaseRow } from '../release-table.js';

const POLICY = {
  refused: 'authz',
  when: 'the pod default inbound policy admits no unauthenticated client, and the kubelet probes in plaintext',
  shows: ['statuscode: 403$'],
  policyAnnotation: 'config.linkerd.io/default-inbound-policy',
  refusing: ['all-authenticated', 'cluster-authenticated', 'deny'],
} as const;
const EXCLUDE = ['config.linkerd.io/skip-inbound-ports'];

export const LINKERD_PROBES: readonly ReleaseRow[] = [
  {
    from: '2.10',
    to: '2.10',
    source: 'linkerd/linkerd2@stable-2.10.0 (no inbound policy: the policy controller came with stable-2.11.0)',
    probes: {
      unrewritten: { refused: 'passes', when: 'Linkerd 2.10 has no inbound policy', shows: [] },
      exclude: EXCLUDE,
      how: 'Linkerd 2.10 forwards every probe',
      fix: '',
    },
  },
  {
    from: '2.11',
    to: '2.11',
    source:
      'linkerd/linkerd2@stable-2.11.0 policy-controller (no probe authorized by default); linkerd/linkerd2#7050, #7143',
    probes: {
      unrewritten: POLICY,
      exclude: EXCLUDE,
      how: 'Linkerd 2.11 authorizes no probe by default: under a default inbound policy that admits no unauthenticated client the proxy answers the kubelet with 403',
      fix: 'upgrade to Linkerd 2.12 or later, which authorizes httpGet probe paths by default, or authorize the probe port for the nodes networks with a Server and a ServerAuthorization, or skip the port with config.linkerd.io/skip-inbound-ports',
    },
  },
  {
    from: '2.12',
    to: '2.13',
    source:
      'linkerd/linkerd2#9008 (stable-2.12.0: probe routes authorized by default), linkerd/linkerd2#10877 and CHANGES.md@stable-2.13.4 (probe paths with a query string)',
    probes: {
      unrewritten: {
        ...POLICY,
        authorized: {
          handlers: ['httpGet'],
          except: {
            path: '\\?',
            what: 'a probe path with a query string is not matched by the probe routes the policy controller authorizes',
            fixedIn: 'stable-2.13.4',
            source: 'linkerd/linkerd2#10877, fixed in stable-2.13.4',
          },
        },
      },
      exclude: EXCLUDE,
      how: 'Linkerd 2.12 and 2.13 authorize the httpGet probe paths of the pod by default, but a path with a query string only from stable-2.13.4',
      fix: 'upgrade to stable-2.13.4 or later, or remove the query string from the probe path, or skip the port with config.linkerd.io/skip-inbound-ports',
    },
  },
  {
    from: '2.14',
    source:
      'linkerd/linkerd2@stable-2.14.0 policy-controller/k8s/index/src/inbound/workload.rs (pod_http_probes), linkerd/linkerd2#9008',
    probes: {
      unrewritten: { ...POLICY, authorized: { handlers: ['httpGet'] } },
      exclude: EXCLUDE,
      how: 'Linkerd 2.14 and later authorize the httpGet probe paths of the pod by default',
      fix: 'skip the probe port with config.linkerd.io/skip-inbound-ports, or authorize it for the nodes networks with an AuthorizationPolicy',
    },
  },
];
