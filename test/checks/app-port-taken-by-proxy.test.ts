/**
 * Where app-port-taken-by-proxy fires, and its near misses (test/helpers/check-tester.ts): a container declaring a TCP
 * port the mesh's injected container binds in the same pod (src/facts/pod-needs.ts portClashes over the profiles'
 * network.podSpec.ports), on every mesh, for templates the mesh will inject; the injected pods' side is
 * Mailu/helm-charts#63 (test/reports-blind11.test.ts). Near misses: a port moved by the mesh's annotation on the pod
 * template or on the namespace, a UDP port, a namespace no mesh injects, the mesh's own proxy declaring its port.
 */
import { expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('app-port-taken-by-proxy', {
  fires: [
    { fixtures: 'fires-istio-template-15090.yaml', base: 'istio', findings: ['Deployment telemetry/exporter'] },
    { fixtures: 'fires-kuma-template-9901.yaml', base: 'kuma', findings: ['Deployment envoyapps/admin-ui'] },
    { fixtures: 'fires-consul-template-20000.yaml', base: 'consul', findings: ['Deployment legacyapps/gateway'] },
    { fixtures: 'fires-linkerd-template-4143.yaml', base: 'linkerd', findings: ['Deployment portsns/relay'] },
  ],
  silent: [
    { fixtures: 'ok-linkerd-namespace-moves-admin-port.yaml', base: 'linkerd' },
    // The injected pod's istio-proxy declares its own 15090 (Istio's injection template): not an app's port.
    { fixtures: 'ok-istio-proxy-declares-its-own-port.yaml', base: 'istio' },
  ],
});

it('names the port, what the proxy binds it for, and moves the proxy with the annotation at a free port', () => {
  const [f] = findings(cluster('linkerd', ['checks/app-port-taken-by-proxy/fires-linkerd-template-4143.yaml']), [
    'app-port-taken-by-proxy',
  ]);
  expect(f!.message).toBe(
    'Deployment portsns/relay: container relay declares port 4143, which Linkerd linkerd-proxy binds for its inbound listener (its default) in the same pod network: the one that starts second cannot listen.',
  );
  expect(JSON.stringify(f!.fix)).toContain('config.linkerd.io/inbound-port');
  expect(JSON.stringify(f!.fix)).toContain('4144');
  const [k] = findings(cluster('kuma', ['checks/app-port-taken-by-proxy/fires-kuma-template-9901.yaml']), [
    'app-port-taken-by-proxy',
  ]);
  expect(JSON.stringify(k!.fix)).toContain('kuma.io/envoy-admin-port');
  // Consul has no annotation for it: the app's port is what changes.
  const [c] = findings(cluster('consul', ['checks/app-port-taken-by-proxy/fires-consul-template-20000.yaml']), [
    'app-port-taken-by-proxy',
  ]);
  expect(JSON.stringify(c!.fix)).toContain('listen on another port');
});
