import { checkCases } from '../helpers/check-tester.js';

checkCases('cluster-dns-unavailable', {
  fires: [
    { fixtures: ['fires-linkerd-coredns-crashloop.yaml'], findings: ['Service kube-system/kube-dns'], said: ['down'] },
    {
      fixtures: ['fires-istio-coredns-scaled-to-zero.yaml'],
      findings: ['Service kube-system/kube-dns'],
      said: ['down'],
    },
    {
      fixtures: ['fires-kuma-coredns-pending-untolerated-taint.yaml'],
      findings: ['Service kube-system/kube-dns'],
      said: ['down'],
    },
    {
      fixtures: ['fires-istio-nodelocaldns-not-ready-on-node.yaml'],
      findings: ['DaemonSet kube-system/nodelocaldns'],
      said: ['node-local-down'],
    },
    {
      fixtures: ['fires-consul-openshift-dns-default-not-ready.yaml'],
      findings: ['Service openshift-dns/dns-default'],
      said: ['down'],
    },
  ],
  silent: [
    { fixtures: ['ok-istio-nodelocaldns-down-on-node-without-meshed-pods.yaml'] },
    { fixtures: ['ok-linkerd-coredns-one-pod-ready.yaml'] },
    { fixtures: ['ok-istio-kube-dns-ready.yaml'] },
  ],
});
