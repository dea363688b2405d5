/**
 * Where mesh-key-value-invalid fires (a known key whose value the installed release's injector cannot parse), its
 * near misses, and what it says: the type the release reads, what its injector does (refuse, crash, ignore, pass on),
 * the symptom it sees (src/mesh/<mesh>/key-values.ts, src/mesh/key-values.ts).
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { NOW, cluster, findings } from '../helpers/fixtures.js';
import { Model } from '../../src/facts/model.js';
import { badValue } from '../../src/mesh/key-values.js';

const dir = 'checks/mesh-key-value-invalid';

checkCases('mesh-key-value-invalid', {
  fires: [
    {
      fixtures: 'fires-istio-invalid-annotation.yaml',
      findings: ['Deployment store/ledger', 'Deployment store/ledger'],
      said: ['refuse', 'refuse'],
    },
    {
      fixtures: 'fires-istio-proxy-config-and-ranges.yaml',
      findings: ['Deployment store/reporter', 'Deployment store/reporter'],
      said: ['refuse', 'refuse'],
    },
    {
      fixtures: 'fires-istio-1.28-proxy-cpu-template.yaml',
      base: 'istio-1.28',
      findings: ['Deployment store/pricing'],
      said: ['refuse'],
    },
    {
      fixtures: 'fires-kuma-env-vars-refused.yaml',
      findings: ['Deployment orders/worker', 'Deployment orders/worker'],
      said: ['refuse', 'refuse'],
    },
    {
      fixtures: 'fires-linkerd-values-ignored.yaml',
      findings: ['Namespace legacy', 'Deployment shop/cart', 'Deployment shop/cart'],
      said: ['ignore', 'ignore', 'ignore'],
    },
    {
      fixtures: 'fires-consul-quantity-and-namespace-label.yaml',
      findings: ['Namespace payments', 'Deployment catalog/exporter'],
      said: ['refuse', 'refuse'],
    },
    {
      fixtures: 'fires-istio-1.5-interception-mode.yaml',
      findings: ['Deployment store/gateway'],
      said: ['refuse'],
    },
    { fixtures: 'fires-consul-0.x-upstream-crash.yaml', findings: ['Deployment catalog/client'], said: ['crash'] },
    {
      fixtures: 'fires-consul-0.x-upstream-crash-ignore.yaml',
      findings: ['Deployment catalog/client'],
      said: ['crash'],
    },
  ],
  silent: [
    { fixtures: 'ok-values-valid.yaml' },
    { fixtures: 'ok-kuma-1.x-ranges-passed-on.yaml' },
    { fixtures: 'ok-consul-named-port-upstream.yaml' },
    { fixtures: 'ok-linkerd-opted-out.yaml' },
    { base: 'kuma-1.x' },
    { base: 'consul-0.x' },
    { base: 'istio-1.28' },
  ],
});

describe('what mesh-key-value-invalid says', () => {
  it('names the key, the value, the type, what the injector does and the denial it sees', () => {
    const fs = findings(cluster('kuma', [`${dir}/fires-kuma-env-vars-refused.yaml`]), ['mesh-key-value-invalid']);
    const env = fs.find((f) => f.message.includes('kuma.io/sidecar-env-vars'))!;
    expect(env.message).toContain('KUMA_DNS=true,KUMA_LOG=debug');
    expect(env.message).toContain('key=value pairs separated by ;');
    expect(env.message).toContain('the API server denies the pods: seen, FailedCreate');
    expect(env.evidence).toMatchObject({ does: 'refuse', release: 'Kuma 2.14' });
    expect(env.fix.join('\n')).toContain('kuma.io~1sidecar-env-vars');
  });
  it('says a crash leaves the choice to failurePolicy', () => {
    const [f] = findings(cluster('consul-0.x', [`${dir}/fires-consul-0.x-upstream-crash.yaml`]), [
      'mesh-key-value-invalid',
    ]);
    expect(f!.message).toContain("'backend' has no local port");
    expect(f!.message).toContain('crashes on it');
    expect(f!.message).toMatch(/failurePolicy (Fail|Ignore)/);
  });
  it('under failurePolicy Ignore, names the pods admitted without the proxy', () => {
    const [f] = findings(cluster('consul-0.x', [`${dir}/fires-consul-0.x-upstream-crash-ignore.yaml`]), [
      'mesh-key-value-invalid',
    ]);
    expect(f!.message).toContain('failurePolicy Ignore: pods are created silently without a proxy');
    expect(f!.message).toContain('seen, pod client-5b6c7d8e9-x1y2z runs without the proxy');
  });
  it('says an ignored value does nothing, as a warning', () => {
    const fs = findings(cluster('linkerd', [`${dir}/fires-linkerd-values-ignored.yaml`]), ['mesh-key-value-invalid']);
    const mem = fs.find((f) => f.message.includes('proxy-memory-limit'))!;
    expect(mem.severity).toBe('warning');
    expect(mem.message).toContain('keeps the default: the setting does nothing');
  });
  it('keeps the Istio decision: a pod created now is denied (annotation-validation)', () => {
    const snap = cluster('istio', [`${dir}/fires-istio-invalid-annotation.yaml`]);
    const m = new Model({ snapshot: snap, now: NOW, options: { mesh: 'auto', certExpiryWarningDays: 60 } });
    const w = m.workloads.find((x) => x.namespace === 'store' && x.name === 'ledger')!;
    const step = m.decision(w, 'istio')!.injector.find((s) => !s.ok)!;
    expect(step).toMatchObject({ rule: 'annotation-validation', denies: true });
    expect(step.detail).toContain("invalid value 'lots' for annotation 'sidecar.istio.io/proxyCPU'");
  });
});

describe('the generic validator', () => {
  it('reads each type as the meshes parse it', () => {
    expect(badValue({ kind: 'port-list', min: 0 }, '80, 443')).toBeUndefined();
    expect(badValue({ kind: 'port-list', min: 0 }, '80,,443')).toBeDefined();
    expect(badValue({ kind: 'port-list', min: 1, skipEmpty: true }, '80,,443')).toBeUndefined();
    expect(badValue({ kind: 'port-list', min: 1, skipEmpty: true }, '0')).toBeDefined();
    expect(badValue({ kind: 'port-list', min: 0, any: '*' }, '*')).toBeUndefined();
    expect(badValue({ kind: 'cidr-list' }, '10.0.0.0/8,fd00::/8')).toBeUndefined();
    expect(badValue({ kind: 'cidr-list' }, '10.0.0.0/33')).toBeDefined();
    expect(badValue({ kind: 'cidr-list' }, '10.0.0.1')).toBeDefined();
    expect(badValue({ kind: 'go-duration' }, '1m30s')).toBeUndefined();
    expect(badValue({ kind: 'go-duration' }, '0')).toBeUndefined();
    expect(badValue({ kind: 'go-duration' }, '30')).toBeDefined();
    expect(badValue({ kind: 'go-bool' }, 'True')).toBeUndefined();
    expect(badValue({ kind: 'go-bool' }, 'yes')).toBeDefined();
    expect(badValue({ kind: 'word-bool', enabled: true }, 'enabled')).toBeUndefined();
    expect(badValue({ kind: 'word-bool', enabled: false }, 'enabled')).toBeDefined();
    expect(badValue({ kind: 'quantity' }, '1.5Gi')).toBeUndefined();
    expect(badValue({ kind: 'quantity' }, '1.5 Gi')).toBeDefined();
    expect(badValue({ kind: 'uint', bits: 32 }, '4294967296')).toBeDefined();
    expect(badValue({ kind: 'int', bits: 32 }, '-1')).toBeUndefined();
    expect(badValue({ kind: 'float', above: 0, below: 1 }, '0.5')).toBeUndefined();
    expect(badValue({ kind: 'float', above: 0, below: 1 }, '1')).toBeDefined();
    expect(badValue({ kind: 'pair-map' }, 'A=1;B=2')).toBeUndefined();
    expect(badValue({ kind: 'pair-map' }, 'A=1;')).toBeDefined();
    expect(badValue({ kind: 'yaml-map' }, 'a: 1')).toBeUndefined();
    expect(badValue({ kind: 'yaml-map' }, 'just text')).toBeDefined();
    expect(badValue({ kind: 'json', of: 'array' }, '[{"name":"v"}]')).toBeUndefined();
    expect(badValue({ kind: 'json', of: 'array' }, '{"name":"v"}')).toBeDefined();
    expect(badValue({ kind: 'interface-list' }, 'eth1, net1')).toBeUndefined();
    expect(badValue({ kind: 'interface-list' }, 'eth0 -d 10.0.0.50')).toBeDefined();
    expect(badValue({ kind: 'name-list' }, 'a,b-c')).toBeUndefined();
    expect(badValue({ kind: 'name-list' }, 'a, b')).toBeDefined();
    expect(badValue({ kind: 'upstream-list' }, 'db:5432:dc2,prepared_query:q:8080')).toBeUndefined();
    expect(badValue({ kind: 'upstream-list' }, 'prepared_query:q')).toBeDefined();
    expect(badValue({ kind: 'upstream-list' }, 'db:port', new Set(['port']))).toBeUndefined();
    expect(badValue({ kind: 'upstream-list' }, 'db:port')).toBeDefined();
  });
});
