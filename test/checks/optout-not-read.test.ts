/**
 * Where optout-not-read fires (test/helpers/check-tester.ts): a pod template that opts out of a mesh and carries that
 * mesh's proxy itself (manual injection, a copied spec), for every mesh; silent where the template has no proxy, where
 * the proxy is wanted, and where the proxy is another mesh's.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('optout-not-read', {
  fires: [
    { fixtures: 'fires-istio-kube-inject.yaml', findings: ['Deployment store/batch'] },
    { fixtures: 'fires-linkerd-manual-inject.yaml', findings: ['Deployment shop/reports'] },
    { fixtures: 'fires-kuma-copied-spec.yaml', findings: ['Deployment orders/export'] },
    { fixtures: 'fires-consul-copied-spec.yaml', findings: ['Deployment catalog/audit'] },
    // Issue 31.7: today's opt-out that the installed release does not read (Kuma 1.0: the annotation only).
    {
      fixtures: 'fires-kuma-1.0-label-opt-out.yaml',
      base: 'kuma-1.0',
      findings: ['Deployment orders/reports'],
      said: ['release-does-not-read'],
    },
  ],
  silent: [
    { fixtures: 'ok-kuma-1.0-annotation-opt-out.yaml', base: 'kuma-1.0' },
    { fixtures: 'ok-istio-optout-no-proxy.yaml' },
    { fixtures: 'ok-linkerd-manual-inject-no-optout.yaml' },
    { fixtures: 'ok-istio-optout-other-mesh-proxy.yaml' },
  ],
});

describe('optout-not-read', () => {
  it('names the opt-out, where it is and the containers the template carries', () => {
    const [f] = findings(cluster('istio', ['checks/optout-not-read/fires-istio-kube-inject.yaml']), [
      'optout-not-read',
    ]);
    expect(f?.message).toContain('pod template annotation sidecar.istio.io/inject=false');
    expect(f?.message).toContain('istio-init, istio-proxy');
    expect(JSON.stringify(f?.fix)).not.toContain('withheld');
  });
});
