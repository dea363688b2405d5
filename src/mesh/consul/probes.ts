/**
 * What Consul's releases do with the app's probes (issue 31, gen12probes; the shape: src/mesh/release-table.ts
 * ProbeHandling).
 * - Before consul-k8s 0.26.0 there is no transparent proxy: the app's inbound port is not redirected, the kubelet
 *   probes the app itself.
 * - 0.26.0 on (hashicorp/consul-k8s connect-inject/handler.go@v0.26.0 overwriteProbes; from 1.0.0
 *   control-plane/connect-inject/webhook/mesh_webhook.go): with transparent proxy on for the pod
 *   (consul.hashicorp.com/transparent-proxy, connectInject.transparentProxy.defaultEnabled true) and
 *   consul.hashicorp.com/transparent-proxy-overwrite-probes (strconv.ParseBool, else
 *   connectInject.transparentProxy.defaultOverwriteProbes, true: charts/consul/values.yaml@v1.0.0) the injector
 *   moves every httpGet liveness, readiness and startup probe to Envoy's exposed paths listeners, ports 20300+i,
 *   20400+i and 20500+i for the i-th container (exposedPaths*PortsRangeStart). tcpSocket and grpc probes are left
 *   alone. A probe left alone reaches Envoy's public listener, which accepts only mutual TLS.
 * Ports: consul.hashicorp.com/transparent-proxy-exclude-inbound-ports.
 */
import type { ReleaseRow } from '../release-table.js';

export const CONSUL_PROBES: readonly ReleaseRow[] = [
  {
    from: '0.26',
    source:
      'hashicorp/consul-k8s connect-inject/handler.go@v0.26.0 (overwriteProbes), control-plane/connect-inject/webhook/mesh_webhook.go@v1.0.0, charts/consul/values.yaml@v1.0.0 (defaultOverwriteProbes: true)',
    probes: {
      rewrites: {
        handlers: ['httpGet'],
        kinds: ['liveness', 'readiness', 'startup'],
        port: 20300,
        range: 300,
        annotation: 'consul.hashicorp.com/transparent-proxy-overwrite-probes',
        off: ['false', 'False', 'FALSE', '0', 'f', 'F'],
        on: ['true', 'True', 'TRUE', '1', 't', 'T'],
        byDefault: true,
        setting: 'the chart value connectInject.transparentProxy.defaultOverwriteProbes',
      },
      unrewritten: {
        refused: 'mtls',
        when: "Envoy's public listener accepts only mutual TLS and closes the kubelet's plaintext connection",
        shows: ['connection reset by peer', '\\bEOF$', 'failed to connect service'],
      },
      exclude: ['consul.hashicorp.com/transparent-proxy-exclude-inbound-ports'],
      redirect: {
        annotation: 'consul.hashicorp.com/transparent-proxy',
        off: ['false', 'False', 'FALSE', '0', 'f', 'F'],
        byDefault: true,
      },
      how: "consul-k8s 0.26 and later move httpGet probes of every kind to Envoy's exposed paths listeners where transparent proxy is on, by default; tcpSocket and grpc probes are left alone",
      fix: 'set the pod template annotation consul.hashicorp.com/transparent-proxy-overwrite-probes to true, or leave the probe port out of inbound redirection with consul.hashicorp.com/transparent-proxy-exclude-inbound-ports',
    },
  },
];
