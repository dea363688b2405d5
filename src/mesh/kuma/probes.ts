/**
 * What Kuma's releases do with the app's probes (issue 31, gen12probes; the shape: src/mesh/release-table.ts
 * ProbeHandling).
 * - 1.0 to 1.5: virtual probes (kumahq/kuma pkg/plugins/runtime/k8s/webhooks/injector/probes.go@1.5.0
 *   overrideHTTPProbes): the injector rewrites httpGet liveness and readiness probes to the virtual probes port (9000,
 *   kuma.io/virtual-probes-port) on path /<port>/<path>, served by Envoy outside mTLS; kuma.io/virtual-probes
 *   enabled|true or disabled|false (metadata.Annotations.GetEnabled), on by default (runtime.kubernetes.injector
 *   .virtualProbesEnabled). Startup probes are left alone (the request that added them: kumahq/kuma#4020).
 * - 1.6 to 2.8: startup probes too (probes.go@1.6.0).
 * - 2.9: the application probe proxy (pkg/plugins/runtime/k8s/probes/pod_probe_overrider.go@2.9.0
 *   SetupAppProbeProxies): httpGet, tcpSocket and grpc probes of every kind go to kuma-dp on
 *   kuma.io/application-probe-proxy-port (default 9001, pkg/config/plugins/runtime/k8s/config.go
 *   ApplicationProbeProxyPort); the value 0 turns it off (ApplicationProbeProxyDisabled), and virtual probes, now
 *   deprecated, are used where they are on.
 * A probe left alone reaches Envoy's inbound listener in plaintext: where mTLS is enabled on the pod's Mesh Envoy
 * accepts only mutual TLS and closes the connection. Ports: traffic.kuma.io/exclude-inbound-ports.
 */
import type { ReleaseRow } from '../release-table.js';

const SRC = 'kumahq/kuma pkg/plugins/runtime/k8s/webhooks/injector/probes.go';
const UNREWRITTEN = {
  refused: 'mtls',
  when: "with mTLS enabled on the pod's Mesh Envoy accepts only mutual TLS on the inbound port and closes the kubelet's plaintext connection",
  shows: ['connection reset by peer', '\\bEOF$', 'failed to connect service'],
} as const;
const VIRTUAL = {
  port: 9000,
  portAnnotation: 'kuma.io/virtual-probes-port',
  annotation: 'kuma.io/virtual-probes',
  off: ['disabled', 'false'],
  on: ['enabled', 'true'],
  byDefault: true,
  setting: 'the control plane setting runtime.kubernetes.injector.virtualProbesEnabled',
} as const;
const EXCLUDE = ['traffic.kuma.io/exclude-inbound-ports'];

export const KUMA_PROBES: readonly ReleaseRow[] = [
  {
    from: '1.0',
    to: '1.5',
    source: `${SRC}@1.5.0 (liveness and readiness only)`,
    probes: {
      rewrites: { ...VIRTUAL, handlers: ['httpGet'], kinds: ['liveness', 'readiness'] },
      unrewritten: UNREWRITTEN,
      exclude: EXCLUDE,
      how: 'Kuma 1.0 to 1.5 rewrite httpGet liveness and readiness probes to virtual probes by default; startup, tcpSocket and grpc probes are left alone',
      fix: 'upgrade the control plane to Kuma 1.6 or later, which rewrites startup probes too, or leave the probe port out of inbound redirection with traffic.kuma.io/exclude-inbound-ports',
    },
  },
  {
    from: '1.6',
    to: '2.8',
    source: `${SRC}@1.6.0 (startup probes too)`,
    probes: {
      rewrites: { ...VIRTUAL, handlers: ['httpGet'], kinds: ['liveness', 'readiness', 'startup'] },
      unrewritten: UNREWRITTEN,
      exclude: EXCLUDE,
      how: 'Kuma 1.6 to 2.8 rewrite httpGet probes of every kind to virtual probes by default; tcpSocket and grpc probes are left alone',
      fix: 'set the pod template annotation kuma.io/virtual-probes to enabled, or upgrade to Kuma 2.9 or later whose application probe proxy takes tcpSocket and grpc probes too, or leave the probe port out of inbound redirection with traffic.kuma.io/exclude-inbound-ports',
    },
  },
  {
    from: '2.9',
    source:
      'kumahq/kuma pkg/plugins/runtime/k8s/probes/pod_probe_overrider.go@2.9.0, pkg/config/plugins/runtime/k8s/config.go@2.9.0 (ApplicationProbeProxyPort: 9001)',
    probes: {
      rewrites: {
        handlers: ['httpGet', 'tcpSocket', 'grpc'],
        kinds: ['liveness', 'readiness', 'startup'],
        port: 9001,
        portAnnotation: 'kuma.io/application-probe-proxy-port',
        annotation: 'kuma.io/application-probe-proxy-port',
        off: ['0'],
        byDefault: true,
        setting: 'the control plane setting runtime.kubernetes.injector.applicationProbeProxyPort',
      },
      unrewritten: UNREWRITTEN,
      exclude: EXCLUDE,
      how: "Kuma 2.9 and later send httpGet, tcpSocket and grpc probes of every kind through kuma-dp's application probe proxy by default",
      fix: 'remove the pod template annotation kuma.io/application-probe-proxy-port 0 or set a port, so that kuma-dp proxies the probe, or leave the probe port out of inbound redirection with traffic.kuma.io/exclude-inbound-ports',
    },
  },
];
