/**
 * What Linkerd's injected containers need from the pod's own spec (issue 31, gen10spec), per release:
 * - DNS: linkerd-proxy resolves its control plane by name before it is ready: LINKERD2_PROXY_IDENTITY_SVC_ADDR
 *   `linkerd-identity-headless.<ns>.svc.<domain>.:8080`, LINKERD2_PROXY_DESTINATION_SVC_ADDR
 *   `linkerd-dst-headless.<ns>.svc.<domain>.:8086` (linkerd/linkerd2@b24cd4059841f8cee2fb7a9c2ac23a693c583579
 *   charts/partials/templates/_proxy.tpl; the same names since stable-2.7). A pod whose resolver is not the cluster
 *   DNS never gets its certificate: "Failed to resolve control-plane component" (linkerd/linkerd2#7179, dnsPolicy None,
 *   the maintainers: "If the pod's DNS configuration does not include a DNS server capable of resolving Kubernetes
 *   service SRV records, the proxy won't be able to start").
 * - The ServiceAccount token: linkerd-proxy sends it to the identity service (LINKERD2_PROXY_IDENTITY_TOKEN_FILE). Up
 *   to stable-2.11 that is the mounted token `/var/run/secrets/kubernetes.io/serviceaccount/token`; from stable-2.12.0
 *   (commit 92421d04, #7117) with `identity.serviceAccountTokenProjection` (the default) the injector adds its own
 *   projected volume `linkerd-identity-token`, mounted at /var/run/secrets/tokens (_proxy.tpl, _volumes.tpl). The
 *   injector's own skip of such pods is src/mesh/linkerd/skips.ts and injector.ts (serviceaccount-missing): this row
 *   is the proxy of a pod injected anyway (`linkerd inject --manual`, an injector of another release).
 * - The node: Linkerd's proxy and proxy-init images are built for Linux only (linkerd/linkerd2#2882: "the proxy does
 *   not run on windows nodes. Unfortunately, injection will still happen and the pod will just not run").
 */
import type { PodSpecNeeds } from '../profile.js';

const PORTS = 'linkerd/linkerd2@b24cd405 charts/linkerd-control-plane/values.yaml proxy.ports; pkg/k8s/labels.go';
const PROXY_TPL = 'linkerd/linkerd2@b24cd405 charts/partials/templates/_proxy.tpl';

export const linkerdPodNeeds: PodSpecNeeds = {
  dns: [
    {
      container: 'linkerd-proxy',
      address: 'linkerd-identity-headless.<ns>.svc.cluster.local',
      role: 'its identity certificate',
      source: `${PROXY_TPL} (LINKERD2_PROXY_IDENTITY_SVC_ADDR); linkerd/linkerd2#7179`,
    },
    {
      container: 'linkerd-proxy',
      address: 'linkerd-dst-headless.<ns>.svc.cluster.local',
      role: 'service discovery',
      source: `${PROXY_TPL} (LINKERD2_PROXY_DESTINATION_SVC_ADDR)`,
    },
  ],
  token: [
    {
      container: 'linkerd-proxy',
      role: 'to prove its identity to linkerd-identity',
      ownMount: 'linkerd-identity-token',
      setting: 'identity.serviceAccountTokenProjection, stable-2.12.0 and later',
      source: `${PROXY_TPL} (LINKERD2_PROXY_IDENTITY_TOKEN_FILE), charts/partials/templates/_volumes.tpl; commit 92421d04 (#7117)`,
    },
  ],
  os: { images: 'linux', source: 'linkerd/linkerd2#2882 (the proxy does not run on Windows nodes)' },
  // The proxy's four listeners: charts/linkerd-control-plane/values.yaml proxy.ports (admin 4191, control 4190,
  // inbound 4143, outbound 4140; stable-2.10 charts/linkerd2/values.yaml alike), moved per pod or namespace by the
  // config.linkerd.io/*-port annotations (pkg/k8s/labels.go; Mailu/helm-charts#63: dovecot's 4190 against the tap
  // server).
  ports: [
    {
      container: 'linkerd-proxy',
      port: 4191,
      serves: 'its admin server',
      annotation: 'config.linkerd.io/admin-port',
      onNamespace: true,
      source: PORTS,
    },
    {
      container: 'linkerd-proxy',
      port: 4190,
      serves: 'its control (tap) server',
      annotation: 'config.linkerd.io/control-port',
      onNamespace: true,
      source: PORTS,
    },
    {
      container: 'linkerd-proxy',
      port: 4143,
      serves: 'its inbound listener',
      annotation: 'config.linkerd.io/inbound-port',
      onNamespace: true,
      source: PORTS,
    },
    {
      container: 'linkerd-proxy',
      port: 4140,
      serves: 'its outbound listener',
      annotation: 'config.linkerd.io/outbound-port',
      onNamespace: true,
      source: PORTS,
    },
  ],
};
