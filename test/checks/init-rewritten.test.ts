/**
 * Where init-rewritten fires (test/helpers/check-tester.ts): a mesh init container carrying restartPolicy: Always
 * that no mesh sets on it (the webhooks that see the pod after the mesh's named, reinvoked ones too), or an init
 * container the template does not have running without restartPolicy: Always ahead of the mesh's containers.
 * Silent where the added container is a native sidecar, runs briefly, or is the app's own, and where only the proxy
 * is a native sidecar.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('init-rewritten', {
  fires: [
    { fixtures: 'fires-istio-validation-made-sidecar.yaml', findings: ['Deployment store/reports'] },
    { fixtures: 'fires-linkerd-init-made-sidecar.yaml', findings: ['Deployment shop/invoices'] },
    { fixtures: 'fires-kuma-init-made-sidecar.yaml', findings: ['Deployment orders/billing'] },
    { fixtures: 'fires-istio-blocked-behind-added-init.yaml', findings: ['Deployment store/vllm'] },
    { fixtures: 'fires-consul-blocked-behind-added-init.yaml', findings: ['Deployment catalog/pricing'] },
  ],
  silent: [
    { fixtures: 'ok-istio-added-init-just-started.yaml' },
    { fixtures: 'ok-istio-added-native-sidecar.yaml' },
    { fixtures: 'ok-linkerd-template-init-long.yaml' },
    { fixtures: 'ok-kuma-native-proxy.yaml' },
    { fixtures: 'ok-istio-added-init-after-istio-init.yaml' },
  ],
});

const F = (name: string) => `checks/init-rewritten/${name}.yaml`;

describe('init-rewritten', () => {
  it('names the rewritten container, the field, the reinvoked webhook and the container stuck behind it', () => {
    const [f] = findings(cluster('istio', [F('fires-istio-validation-made-sidecar')]), ['init-rewritten']);
    expect(f?.message).toContain('istio-validation carries restartPolicy: Always');
    expect(f?.message).toContain('files-sidecar-injector.example.io/files-sidecar-injector.example.io on reinvocation');
    expect(f?.message).toContain('the init container files-sidecar');
  });
  it('names a webhook called after the mesh by the order of configuration names', () => {
    const [f] = findings(cluster('linkerd', [F('fires-linkerd-init-made-sidecar')]), ['init-rewritten']);
    expect(f?.message).toContain('linkerd-init');
    expect(f?.message).toContain('zz-tools-injector.example.io');
  });
  it('lists every mutating webhook where the one that dropped the field is not in the pod', () => {
    const [f] = findings(cluster('istio', [F('fires-istio-blocked-behind-added-init')]), ['init-rewritten']);
    expect(f?.message).toMatch(/files-sidecar-injector.*knative-style-inject/);
    expect(f?.message).toContain('istio-validation, istio-proxy');
    expect(f?.message).toContain('119 minutes');
  });
  it('gives fix lines that are all pasteable (none withheld)', () => {
    for (const [base, file] of [
      ['istio', 'fires-istio-validation-made-sidecar'],
      ['linkerd', 'fires-linkerd-init-made-sidecar'],
      ['istio', 'fires-istio-blocked-behind-added-init'],
      ['consul', 'fires-consul-blocked-behind-added-init'],
    ] as const) {
      const [f] = findings(cluster(base, [F(file)]), ['init-rewritten']);
      expect(JSON.stringify(f?.fix)).not.toContain('withheld');
    }
  });
});
