import { describe, expect, it } from 'vitest';
import { rank } from '../src/run/rank.js';
import type { Finding } from '../src/run/result.js';

const f = (id: string, extra: Partial<Finding> = {}): Finding => ({
  id,
  code: extra.code ?? 'MD1000',
  severity: 'error',
  mesh: 'linkerd',
  title: id,
  message: id,
  resource: { kind: 'Deployment', namespace: 'ns', name: id },
  evidence: {},
  fix: [],
  fixData: [],
  docsUrl: '',
  affectedPods: 1,
  ...extra,
});

describe('rank', () => {
  it('severity first, then a cause chain (root first) before standalone findings, then blast radius, then code', () => {
    const out = rank([
      f('standalone-big', { affectedPods: 9, code: 'MD1001' }),
      f('consequence', { causedBy: 'mid', code: 'MD1004' }),
      f('warn', { severity: 'warning', causeKey: 'x' }),
      f('mid', { causeKey: 'mid', causedBy: 'root', code: 'MD2002' }),
      f('root', { causeKey: 'root', code: 'MD2004' }),
      f('standalone-small', { code: 'MD1000' }),
    ]);
    expect(out.map((x) => x.id)).toEqual(['root', 'mid', 'consequence', 'standalone-big', 'standalone-small', 'warn']);
  });

  it('drops links to causes that are not in the report', () => {
    const [only] = rank([f('orphan', { causedBy: 'webhook-broken:linkerd' })]);
    expect(only!.causedBy).toBeUndefined();
  });

  it('is a stable total order: same output for any input order', () => {
    const items = [
      f('a', { code: 'MD1002' }),
      f('b', { code: 'MD1001' }),
      f('c', { code: 'MD1001', resource: { kind: 'Pod', namespace: 'a', name: 'c' } }),
    ];
    const one = rank([...items]).map((x) => x.id);
    expect(rank([...items].reverse()).map((x) => x.id)).toEqual(one);
    expect(one).toEqual(['c', 'b', 'a']);
  });
});
