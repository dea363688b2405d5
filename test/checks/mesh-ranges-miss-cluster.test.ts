import { checkCases } from '../helpers/check-tester.js';

checkCases('mesh-ranges-miss-cluster', {
  fires: [
    {
      fixtures: ['fires-istio-include-ranges-miss-meshed-service.yaml'],
      findings: ['Deployment payments/ledger', 'Deployment store/frontend'],
      said: ['not-captured', 'not-captured'],
    },
    {
      fixtures: ['fires-consul-exclude-cidrs-cover-meshed-service.yaml'],
      findings: ['Deployment catalog/products'],
      said: ['not-captured'],
    },
    {
      fixtures: ['fires-kuma-exclude-outbound-ips-cover-meshed-service.yaml'],
      findings: ['Deployment orders/api'],
      said: ['not-captured'],
    },
    {
      fixtures: ['fires-linkerd-ipv6-pods-disableipv6-default.yaml'],
      findings: ['Deployment shop/web'],
      said: ['ipv6-not-served'],
    },
    {
      fixtures: ['fires-pod-range-overlaps-service-range.yaml'],
      findings: ['Node node-a'],
      said: ['pod-range-overlap'],
    },
  ],
  silent: [
    { fixtures: ['ok-istio-include-ranges-hold-meshed-service.yaml'] },
    { fixtures: ['ok-istio-exclude-external-only.yaml'] },
    { fixtures: ['ok-consul-exclude-api-server-only.yaml'] },
    { fixtures: ['ok-linkerd-node-address-outside-probes-admitted.yaml'] },
    { fixtures: ['ok-linkerd-ipv6-pods-disableipv6-false.yaml'] },
  ],
});
