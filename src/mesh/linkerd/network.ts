/**
 * What Linkerd's injected proxy dials over the pod network before it is ready (issue 31): the
 * identity service for its certificate, the destination and policy services for discovery and
 * policy (linkerd/linkerd2@b24cd4059841f8cee2fb7a9c2ac23a693c583579 charts/partials/templates/_proxy.tpl:
 * LINKERD2_PROXY_IDENTITY_SVC_ADDR `linkerd-identity-headless.<ns>.svc.<domain>.:8080`,
 * LINKERD2_PROXY_DESTINATION_SVC_ADDR `linkerd-dst-headless...:8086`,
 * LINKERD2_PROXY_POLICY_SVC_ADDR `linkerd-policy...:8090`; charts/linkerd-control-plane/templates/
 * identity.yaml and destination.yaml: ports 8080, 8086, 8090 = targetPorts, pods labelled
 * `linkerd.io/control-plane-component: identity | destination`). Without them the proxy logs
 * `linkerd_reconnect: Failed to connect` and its readiness probe answers 503 (linkerd/linkerd2#3620,
 * #9812).
 */
import type { ProxyNetwork } from '../profile.js';
import { linkerdPodNeeds } from './pod-needs.js';

const SOURCE =
  'linkerd/linkerd2@b24cd405 charts/partials/templates/_proxy.tpl, charts/linkerd-control-plane/templates/identity.yaml, destination.yaml';
const COMPONENT = 'linkerd.io/control-plane-component';

export const linkerdNetwork: ProxyNetwork = {
  endpoints: [
    {
      role: 'its identity certificate',
      service: 'linkerd-identity',
      ports: [8080],
      podLabels: { [COMPONENT]: 'identity' },
      from: 'the linkerd-proxy',
      source: SOURCE,
    },
    {
      role: 'service discovery',
      service: 'linkerd-dst',
      ports: [8086],
      podLabels: { [COMPONENT]: 'destination' },
      from: 'the linkerd-proxy',
      source: SOURCE,
    },
    {
      role: 'inbound and outbound policy',
      service: 'linkerd-policy',
      ports: [8090],
      podLabels: { [COMPONENT]: 'destination' },
      from: 'the linkerd-proxy',
      source: SOURCE,
    },
  ],
  symptom: 'linkerd-proxy never becomes ready ("linkerd_reconnect: Failed to connect" in its log, readiness probe 503)',
  podSpec: linkerdPodNeeds,
};
