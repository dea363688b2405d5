/**
 * A blind measurement (issue 31): real user reports meshdoctor has never seen, collected from the meshes' trackers in
 * the order the search showed them and picked by what each thread confirms, not by what meshdoctor handles (every
 * thread looked at, and why it was used or skipped: research/blind7-threads.md). Each is rebuilt as an overlay on the
 * healthy cluster of its mesh and release (test/fixtures/reports/blind7/, the thread in each file's header). No change
 * to src/ came with them: `open` lists the reports meshdoctor does not name yet, so this file passes today and fails
 * when a later change starts naming one of them (then take it off `open`). Named 5/17 with src/ as of
 * commit c395406: Linkerd 2/4, Istio 2/5, Kuma 0/4, Consul 1/4. Named 8/17 after fix7 (linkerd/linkerd2#2750: the
 * LimitRange by structure; #3353: an overlay pod network on EKS; hashicorp/consul-k8s#715: the CNI agent locked out).
 * Named 9/17 after fix8 (istio/istio#15152: the injector failing on its own template, ConfigMap istio-sidecar-injector)
 * and 10/17 with kumahq/kuma#12954 (the pods' kuma.io/mesh value, a Mesh name with a dot). gen8net: istio/istio#7266
 * (the kube-apiserver pod's HTTPS_PROXY without .svc in NO_PROXY, webhook-port-blocked) and hashicorp/consul-k8s#27 (the
 * client agent published by hostPort without hostNetwork, proxy-cannot-start).
 * With gen8rel (release awareness over the whole range): hashicorp/consul-k8s#482 (metrics merging needs
 * Consul 1.10.0, the release tables' needs), istio/istio#9605 and kumahq/kuma#561 (known bugs of releases older than
 * the tables: Istio 1.0.3, Kuma 0.3.2).
 * With gen8agents: kumahq/kuma#16809 (pod-predates-node-agent, the pod started before kuma-cni there was ready) and #9431
 * (proxy-hold-stuck, kuma-sidecar's hold waiting for a Dataplane that needs the pod's IP): named 17/17.
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'linkerd-stable-2.10-kube-system-webhooks-disabled',
    report: 'linkerd/linkerd2#4175',
    // The message names the namespace and the webhook's namespaceSelector; the label is in the evidence and the fix.
    id: 'webhook-excludes-namespace',
    says: ['kube-system', 'namespaceSelector'],
  },
  {
    file: 'linkerd-stable-2.10-eks-weave-injector-unreachable',
    report: 'linkerd/linkerd2#3353',
    id: 'webhook-port-blocked',
    says: ['weave-net', /API server/],
    never: [/NetworkPolicy/],
  },
  {
    file: 'linkerd-hostnetwork-ingress-nginx-daemonset',
    report: 'linkerd/linkerd2#7949',
    id: 'host-network-pod',
    says: ['ingress-nginx-controller', 'hostNetwork'],
  },
  {
    file: 'kuma-cni-new-node-validation-passes',
    report: 'kumahq/kuma#16809',
    // Named by gen8agents: the proxy started and runs, so the check is the timeline's (the pod started on worker-2
    // before kuma-cni-node-z7p2k there was ready, kuma-validation passing all the same), not proxy-cannot-start.
    id: 'pod-predates-node-agent',
    says: ['kuma-cni-node-z7p2k', '2026-11-22T10:02:05Z'],
  },
  {
    file: 'kuma-cni-wait-for-dataplane-ready-no-pod-ip',
    report: 'kumahq/kuma#9431',
    // Named by gen8agents: the check of a hold that cannot complete (kuma-sidecar's postStart hook waiting for a
    // Dataplane that needs the pod's IP, published only after the hook), not proxy-cannot-start.
    id: 'proxy-hold-stuck',
    says: [/wait-for-dataplane-ready|WAIT_FOR_DATAPLANE_READY/, /CNI/],
  },
  {
    file: 'consul-0.x-metrics-merging-consul-1.9.4',
    report: 'hashicorp/consul-k8s#482',
    id: 'proxy-cannot-start',
    says: ['1.9.4', /prometheus-scrape-path|metrics merging|enable-metrics-merging/],
  },
  {
    file: 'consul-0.x-client-hostport-unreachable',
    report: 'hashicorp/consul-k8s#27',
    id: 'proxy-cannot-start',
    says: ['hostPort', '8500'],
  },
  {
    file: 'consul-0.x-eks-webhook-blocks-aws-node',
    report: 'hashicorp/consul-k8s#715',
    id: 'webhook-call-failed',
    says: ['aws-node', /NetworkPluginNotReady|cni config uninitialized|not Ready|NotReady/],
  },
  {
    file: 'consul-0.x-no-kubernetes-service',
    report: 'hashicorp/consul-k8s#962',
    id: 'proxy-cannot-start',
    says: ['app-a', /Service/],
  },
  {
    file: 'istio-1.5-injector-template-edited',
    report: 'istio/istio#15152',
    id: 'webhook-denied',
    says: ['istio-sidecar-injector', /template/],
  },
  {
    file: 'istio-1.5-label-key-with-slash-release-1.0.3',
    report: 'istio/istio#9605',
    id: 'admission-rejects-proxy',
    says: [/ISTIO_META_/, /label/, '1.0.3'],
  },
  {
    file: 'istio-revision-1-9-4-namespace-istio-injection-label',
    report: 'istio/istio#32746',
    // As for linkerd2#4175: the message names the namespace and the selector, the fix the label istio.io/rev=1-9-4.
    id: 'webhook-excludes-namespace',
    says: ['Namespace demo', 'namespaceSelector'],
  },
  {
    file: 'kuma-1.x-headless-service-no-dataplane',
    report: 'kumahq/kuma#561',
    id: 'proxy-cannot-start',
    says: ['sandbox', /headless|clusterIP: None/],
  },
  {
    file: 'kuma-mesh-name-with-dot',
    report: 'kumahq/kuma#12954',
    // Named by the marker value (fix8): the pods' kuma.io/mesh names a Mesh with a dot; the sidecar running but never
    // ready shows nothing proxy-cannot-start can read, so the check that names the cause is injection-marker-invalid.
    id: 'injection-marker-invalid',
    says: ['aa.a', /dot/],
  },
  {
    file: 'linkerd-stable-2.10-limitrange-max-proxy-no-limit',
    report: 'linkerd/linkerd2#2750',
    // The LimitRange refuses (not the quota): admission-rejects-proxy names it and the containers without a limit.
    id: 'admission-rejects-proxy',
    says: ['LimitRange', /proxy/, /limit/],
  },
  {
    file: 'istio-1.5-apiserver-http-proxy-env',
    report: 'istio/istio#7266',
    // Named by gen8net from the kube-apiserver pod's environment: the check about the API server's path to the injector.
    id: 'webhook-port-blocked',
    says: [/proxy/i, /API server|kube-apiserver/],
  },
  {
    file: 'istio-1.5-openshift-deploymentconfig-annotation-unlabelled-namespace',
    report: 'istio/istio.io#5961',
    id: 'injection-marker-invalid',
    says: ['namespace orders-dev has no istio-injection', 'never calls the injector'],
  },
];

reportCases('blind7', 'blind measurement: unseen real reports, the confirmed cause is named', CASES);
