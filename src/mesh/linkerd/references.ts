/**
 * Linkerd's settings that name an object that must exist (issue 31, gen12refs; src/mesh/references.ts).
 * `config.linkerd.io/trace-collector` names the address (host:port) of the trace collector the proxy sends its
 * spans to. From 2.10 it is read by the linkerd-jaeger extension's injector, on the pod and else on its namespace
 * (the pod's wins), which writes it into the proxy's LINKERD2_PROXY_TRACE_COLLECTOR_SVC_ADDR, and derives the
 * collector's identity from the host's second label as its namespace: linkerd/linkerd2 stable-2.10.0 to
 * edge-25.1.1 jaeger/injector/mutator/webhook.go (applyOverrides, amendSvcAccount); the extension was removed by
 * linkerd/linkerd2#14558 (fc75ab8b, edge-25.10.1), after which the annotation is read by nothing. The proxy resolves
 * the host by DNS and keeps running when it cannot: its spans are dropped. The extension's own collector is
 * `collector.linkerd-jaeger:55678`; the 2.7 to 2.9 add-on's `linkerd-collector.linkerd:55678` is gone from 2.10
 * (linkerd/website#1249, #1250).
 */
import type { References } from '../references.js';
import { addressFix } from '../references.js';

export const LINKERD_REFERENCES: References = {
  rows: [
    {
      key: 'config.linkerd.io/trace-collector',
      on: ['template annotation', 'namespace annotation'],
      form: 'host',
      severity: 'warning',
      target: { title: 'Service', kind: 'services', scope: 'pod namespace' },
      from: '2.10',
      to: '2.18',
      missing:
        'the linkerd-jaeger injector writes it into the proxy as its trace collector, the name does not resolve, and the proxy runs without sending its spans anywhere',
      source:
        'linkerd/linkerd2 stable-2.10.0 to edge-25.1.1 jaeger/injector/mutator/webhook.go applyOverrides; linkerd/linkerd2#14558; linkerd/website#1249',
      resource: 'service',
    },
  ],
  fix: (_m, _w, r) => addressFix(r),
};
