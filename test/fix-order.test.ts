/**
 * Fixes in the right order (issue 13): a consequence says to fix its root cause first, since pods
 * re-created while the injector is down come up without a proxy again.
 */
import { describe, expect, it } from 'vitest';
import { cluster, findings } from './helpers/fixtures.js';

describe('root cause first', () => {
  it('every finding of the injector-OOM chain but the root starts its fix with the root', () => {
    const fs = findings(cluster('linkerd', ['checks/injector-oomkilled/fires-linkerd-chain.yaml']));
    const root = fs.find((f) => f.id === 'injector-oomkilled')!;
    expect(root.fix[0]).not.toMatch(/^# fix .* first/);
    const consequences = fs.filter((f) => f.causedBy);
    expect(consequences.map((f) => f.id)).toEqual(
      expect.arrayContaining(['injector-unavailable', 'webhook-no-endpoints', 'sidecar-missing']),
    );
    for (const f of consequences) {
      expect(f.fix[0]).toBe(
        '# fix MD2004 injector-oomkilled on Deployment linkerd/linkerd-proxy-injector first: until then re-created pods get no proxy',
      );
    }
    // The restart of the app comes after that line, never before it.
    const cart = fs.find((f) => f.id === 'sidecar-missing')!;
    expect(cart.fix.findIndex((l) => l.includes('rollout restart'))).toBeGreaterThan(0);
  });

  it('a finding whose cause is not in the report keeps its fix as it is', () => {
    const fs = findings(cluster('linkerd', ['checks/sidecar-missing/fires-linkerd.yaml']));
    expect(fs.length).toBeGreaterThan(0);
    for (const f of fs) expect(f.fix[0] ?? '').not.toMatch(/^# fix .* first/);
  });
});
