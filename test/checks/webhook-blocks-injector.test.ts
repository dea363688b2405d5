/**
 * Where webhook-blocks-injector fires (an injector whose own Fail webhook is called for its pods), and its near
 * misses: the namespace label, the objectSelector of current Linkerd charts, failurePolicy Ignore, istiod's label.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('webhook-blocks-injector', {
  fires: [
    { fixtures: 'fires-linkerd-ha-unlabelled.yaml', findings: ['Deployment linkerd/linkerd-proxy-injector'] },
    { fixtures: 'fires-linkerd-ha-down.yaml', findings: ['Deployment linkerd/linkerd-proxy-injector'] },
    { fixtures: 'fires-istio-template-unlabelled.yaml', findings: ['Deployment istio-system/istiod'] },
    // The opt-out is an annotation the objectSelector cannot see (istio/istio#26380).
    { fixtures: 'fires-istio-annotation-optout-down.yaml', findings: ['Deployment istio-system/istiod'] },
  ],
  silent: [
    { fixtures: 'ok-linkerd-ha-labelled.yaml' },
    { fixtures: 'ok-linkerd-ha-objectselector.yaml' },
    { fixtures: 'ok-linkerd-ignore.yaml' },
    { fixtures: 'ok-istio-system-enabled.yaml' },
  ],
});

const F = (file: string) => `checks/webhook-blocks-injector/${file}.yaml`;
const one = (base: 'linkerd' | 'istio', file: string) => {
  const fs = findings(cluster(base, [F(file)]), ['webhook-blocks-injector']);
  expect(fs).toHaveLength(1);
  return fs[0]!;
};

describe('webhook-blocks-injector', () => {
  it('warns while the injector runs, naming the webhook and the namespace label that leaves its pods out', () => {
    const f = one('linkerd', 'fires-linkerd-ha-unlabelled');
    expect(f.severity).toBe('warning');
    expect(f.message).toContain('linkerd-proxy-injector.linkerd.io (failurePolicy Fail)');
    expect(f.message).toContain('label config.linkerd.io/admission-webhooks=disabled on namespace linkerd');
    expect(f.evidence).toMatchObject({ deployment: 'linkerd/linkerd-proxy-injector', available: true });
    expect(f.fix.join('\n')).toContain('kubectl label namespace linkerd config.linkerd.io/admission-webhooks=disabled');
    expect(f.fix.join('\n')).not.toContain('rollout restart');
  });

  it('is an error, the root cause, when no replica is left: restarting cannot help, the label can', () => {
    const f = one('linkerd', 'fires-linkerd-ha-down');
    expect(f.severity).toBe('error');
    expect(f.message).toContain('cannot create its pods');
    expect(f.message).toContain('restarting it cannot help');
    expect(f.evidence).toMatchObject({ available: false, pods: [] });
    expect(f.fix[0]).toContain('kubectl label namespace linkerd config.linkerd.io/admission-webhooks=disabled');
    expect(f.fix.join('\n')).toContain('kubectl -n linkerd rollout restart deploy/linkerd-proxy-injector');
  });

  it("links injector-unavailable and the injector's FailedCreate to it", () => {
    const fs = findings(cluster('linkerd', [F('fires-linkerd-ha-down')]));
    const root = fs.find((f) => f.id === 'webhook-blocks-injector')!;
    expect(root).toBeDefined();
    expect(root.causeKey).toBe('injector-locked-out:linkerd');
    const unavailable = fs.find((f) => f.id === 'injector-unavailable')!;
    expect(unavailable.causedBy).toBe('injector-locked-out:linkerd');
    // The chain ends at the lock-out: webhook-call-failed -> webhook-no-endpoints -> injector-unavailable -> it.
    expect(root.causedBy).toBeUndefined();
    expect(fs[0]).toBe(root);
  });

  it("advises istiod's own template label, not a namespace label that would keep its gateways out", () => {
    const f = one('istio', 'fires-istio-template-unlabelled');
    expect(f.message).toContain('rev.object.sidecar-injector.istio.io');
    expect(f.message).toContain('pod template label sidecar.istio.io/inject=false on Deployment istio-system/istiod');
    expect(f.fix.join('\n')).toContain('sidecar.istio.io/inject');
    expect(f.fix.join('\n')).not.toContain('kubectl label namespace');
  });
});

describe('webhook-blocks-injector: an opt-out annotation the selector cannot see', () => {
  it('says the annotation is not read by the objectSelector and advises the label', () => {
    const fs = findings(cluster('istio', [F('fires-istio-annotation-optout-down')]), ['webhook-blocks-injector']);
    expect(fs).toHaveLength(1);
    expect(fs[0]!.message).toContain(
      "its pod template sets sidecar.istio.io/inject=false as an annotation, which the webhook's objectSelector cannot see (it reads labels only); pod template label sidecar.istio.io/inject=false on Deployment istio-system/istiod leaves them out.",
    );
    expect(fs[0]!.evidence.annotationNotSelected).toBe('sidecar.istio.io/inject=false');
  });
  it('says nothing of annotations where the template has none', () => {
    const fs = findings(cluster('istio', [F('fires-istio-template-unlabelled')]), ['webhook-blocks-injector']);
    expect(fs[0]!.message).not.toMatch(/annotation/);
  });
});
