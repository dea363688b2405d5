/**
 * What Istio's releases do with the app's probes (issue 31, gen12probes; the shape: src/mesh/release-table.ts
 * ProbeHandling). The injector rewrites a container's probes to the pilot-agent's status port (15020, or
 * status.sidecar.istio.io/port) on path /app-health/<container>/livez|readyz|startupz, and pilot-agent probes the app
 * from inside the pod (istio/istio pkg/kube/inject/app_probe.go, ShouldRewriteAppHTTPProbers: the pod annotation
 * sidecar.istio.io/rewriteAppHTTPProbers read with strconv.ParseBool, else the injector value rewriteAppHTTPProbe).
 * - 1.5.0: httpGet liveness and readiness only; off by default (install/kubernetes/helm/istio/charts/
 *   sidecarInjectorWebhook/values.yaml and operator/data/profiles/default.yaml rewriteAppHTTPProbe: false).
 * - 1.6.0: the same kinds; on in istioctl's default profile (manifests/profiles/default.yaml rewriteAppHTTPProbe: true),
 *   off in the charts' own default (injection-template.yaml valueOrDefault ... false).
 * - 1.7.0: startup probes too (startupz); on by default in the chart (istio-discovery/values.yaml rewriteAppHTTPProbe:
 *   true); istio/istio#24203 (startup probes left alone in 1.5).
 * - 1.12.0: tcpSocket probes too (features.RewriteTCPProbes, REWRITE_TCP_PROBES default true).
 * - 1.13.0: grpc probes too (convertAppProberGRPC).
 * A probe left alone reaches Envoy's inbound in plaintext: under a STRICT PeerAuthentication Envoy closes the
 * connection ("connection reset by peer", EOF); a tcpSocket probe always succeeds (Envoy accepts every connection).
 * Ports: traffic.sidecar.istio.io/excludeInboundPorts and includeInboundPorts decide which inbound ports are captured.
 */
import type { ReleaseRow } from '../release-table.js';

const SRC = 'istio/istio pkg/kube/inject/app_probe.go';
const ANNOTATION = 'sidecar.istio.io/rewriteAppHTTPProbers';
const OFF = ['false', 'False', 'FALSE', '0', 'f', 'F'];
const ON = ['true', 'True', 'TRUE', '1', 't', 'T'];
const UNREWRITTEN = {
  refused: 'mtls',
  when: "under a STRICT PeerAuthentication Envoy accepts only mutual TLS on the port and closes the kubelet's plaintext connection",
  shows: ['connection reset by peer', '\\bEOF$', 'failed to connect service'],
} as const;
const PORTS = {
  exclude: ['traffic.sidecar.istio.io/excludeInboundPorts'],
  include: 'traffic.sidecar.istio.io/includeInboundPorts',
} as const;
const FIX =
  'set the pod template annotation sidecar.istio.io/rewriteAppHTTPProbers to true so that the injector points the probe at pilot-agent, or leave the probe port out of inbound capture with traffic.sidecar.istio.io/excludeInboundPorts';
const rewrite = (
  handlers: ('httpGet' | 'tcpSocket' | 'grpc')[],
  kinds: ('liveness' | 'readiness' | 'startup')[],
  byDefault: boolean,
) =>
  ({
    handlers,
    kinds,
    port: 15020,
    portAnnotation: 'status.sidecar.istio.io/port',
    annotation: ANNOTATION,
    off: OFF,
    on: ON,
    byDefault,
    setting: 'the injector value sidecarInjectorWebhook.rewriteAppHTTPProbe',
  }) as const;

export const ISTIO_PROBES: readonly ReleaseRow[] = [
  {
    from: '1.5',
    to: '1.5',
    source: `${SRC}@1.5.0, install/kubernetes/helm/istio/charts/sidecarInjectorWebhook/values.yaml@1.5.0 (rewriteAppHTTPProbe: false), istio/istio#24203`,
    probes: {
      rewrites: rewrite(['httpGet'], ['liveness', 'readiness'], false),
      unrewritten: UNREWRITTEN,
      ...PORTS,
      how: 'Istio 1.5 rewrites httpGet liveness and readiness probes to pilot-agent only where rewriteAppHTTPProbe is on, off by default; startup probes are left alone',
      fix: FIX,
    },
  },
  {
    from: '1.6',
    to: '1.6',
    source: `${SRC}@1.6.0, manifests/profiles/default.yaml@1.6.0 (rewriteAppHTTPProbe: true), istio/istio#24203`,
    probes: {
      rewrites: rewrite(['httpGet'], ['liveness', 'readiness'], true),
      unrewritten: UNREWRITTEN,
      ...PORTS,
      how: "Istio 1.6 rewrites httpGet liveness and readiness probes to pilot-agent, on in istioctl's default profile and off in the charts' own default; startup probes are left alone",
      fix: FIX,
    },
  },
  {
    from: '1.7',
    to: '1.11',
    source: `${SRC}@1.7.0 (startupz), manifests/charts/istio-control/istio-discovery/values.yaml@1.7.0 (rewriteAppHTTPProbe: true)`,
    probes: {
      rewrites: rewrite(['httpGet'], ['liveness', 'readiness', 'startup'], true),
      unrewritten: UNREWRITTEN,
      ...PORTS,
      how: 'Istio 1.7 to 1.11 rewrite httpGet liveness, readiness and startup probes to pilot-agent by default; tcpSocket and grpc probes are left alone',
      fix: FIX,
    },
  },
  {
    from: '1.12',
    to: '1.12',
    source: `${SRC}@1.12.0 (convertAppProberTCPSocket), pilot/pkg/features/pilot.go@1.12.0 REWRITE_TCP_PROBES`,
    probes: {
      rewrites: rewrite(['httpGet', 'tcpSocket'], ['liveness', 'readiness', 'startup'], true),
      unrewritten: UNREWRITTEN,
      ...PORTS,
      how: 'Istio 1.12 rewrites httpGet and tcpSocket probes of every kind to pilot-agent by default; grpc probes are left alone',
      fix: FIX,
    },
  },
  {
    from: '1.13',
    source: `${SRC}@1.13.0 (convertAppProberGRPC)`,
    probes: {
      rewrites: rewrite(['httpGet', 'tcpSocket', 'grpc'], ['liveness', 'readiness', 'startup'], true),
      unrewritten: UNREWRITTEN,
      ...PORTS,
      how: 'Istio 1.13 and later rewrite httpGet, tcpSocket and grpc probes of every kind to pilot-agent by default',
      fix: FIX,
    },
  },
];
