/**
 * Where opt-in-overruled fires (a pod template asks, a namespace label keeps every webhook of the mesh from being
 * called), and its near misses: the meshes whose injector lets the pod win (Linkerd's and Kuma's pod marker, Consul's
 * annotation), a namespace that enables the mesh, and a label that is not the mesh's marker.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('opt-in-overruled', {
  fires: [
    { fixtures: 'fires-istio-namespace-disabled-annotation.yaml', findings: ['Deployment batch/reporter'] },
    { fixtures: 'fires-istio-namespace-disabled-label.yaml', findings: ['Deployment batch/reporter'] },
    { fixtures: 'fires-istio-1.5-namespace-disabled.yaml', findings: ['Deployment batch/reporter'] },
    { fixtures: 'fires-istio-namespace-disabled-revision-label.yaml', findings: ['Deployment batch/reporter'] },
  ],
  silent: [
    { fixtures: 'ok-linkerd-namespace-disabled-pod-enabled.yaml' },
    { fixtures: 'ok-kuma-namespace-disabled-pod-enabled.yaml' },
    { fixtures: 'ok-consul-pod-annotation.yaml' },
    { fixtures: 'ok-istio-namespace-enabled.yaml' },
    // Not a marker of the mesh: webhook-excludes-namespace reports the label that takes the namespace out.
    { fixtures: 'ok-linkerd-admission-webhooks-disabled.yaml' },
  ],
});

describe('opt-in-overruled: both markers, which wins, and a fix the model shows working', () => {
  const one = (base: 'istio' | 'istio-1.5', file: string) => {
    const fs = findings(cluster(base, [`checks/opt-in-overruled/${file}`]), ['opt-in-overruled']);
    expect(fs).toHaveLength(1);
    return fs[0]!;
  };
  it('Istio: removing the namespace label and setting the pod label the selector reads', () => {
    const f = one('istio', 'fires-istio-namespace-disabled-annotation.yaml');
    expect(f.message).toContain(
      "Deployment batch/reporter asks Istio for a proxy with pod template annotation sidecar.istio.io/inject=true, but namespace batch's label istio-injection=disabled wins",
    );
    expect(f.message).toContain('with the pod template label sidecar.istio.io/inject=true');
    expect(f.fix.join('\n')).toMatch(/label namespace batch istio-injection-/);
  });
  it('Istio with the label on the template: removing the namespace label is enough', () => {
    const f = one('istio', 'fires-istio-namespace-disabled-label.yaml');
    expect(f.message).toContain('Removing label istio-injection from namespace batch lets Istio inject it.');
  });
  it('Istio 1.5: no per-pod selector, the namespace marker in place of the opt-out', () => {
    const f = one('istio-1.5', 'fires-istio-1.5-namespace-disabled.yaml');
    expect(f.message).toContain('the namespace label istio-injection=enabled in place of istio-injection');
  });
  it('Istio revision label on the pod: the namespace opt-out still wins', () => {
    const f = one('istio', 'fires-istio-namespace-disabled-revision-label.yaml');
    expect(f.message).toContain('with pod template label istio.io/rev=default');
    expect(f.message).toContain("namespace batch's label istio-injection=disabled wins");
  });
});
