/**
 * src/k8s/limitrange.ts: every form the LimitRanger writes (kubernetes plugin/pkg/admission/limitranger/admission.go,
 * the 1.3-era capitalised words and the later lower-case ones, with and without the trailing period) parsed by
 * structure, and the defaults the API server stores on a LimitRange's Container items.
 */
import { describe, expect, it } from 'vitest';
import { defaultedByLimitRanger, limitRangeRefusals } from '../src/k8s/limitrange.js';

describe('limitRangeRefusals', () => {
  it('reads min, max and ratio items, each form', () => {
    const rs = limitRangeRefusals(
      'pods "a" is forbidden: [maximum memory usage per Container is 4Gi.  No limit is specified., ' +
        'Minimum cpu usage per Container is 100m, but request is 10m., minimum memory usage per Pod is 2Mi.  No request is specified, ' +
        'maximum cpu usage per Container is 2, but request is 3, cpu max limit to request ratio per Container is 4, but provided ratio is 5.000000., ' +
        'memory max limit to request ratio per Container is 2, but no request is specified or request is 0.]',
    );
    expect(
      rs.map((r) => [
        r.bound,
        r.resource,
        r.per,
        r.enforced,
        r.observed?.of ?? '-',
        r.observed?.value ?? '-',
        r.missing ?? '-',
      ]),
    ).toEqual([
      ['max', 'memory', 'Container', '4Gi', '-', '-', 'limit'],
      ['min', 'cpu', 'Container', '100m', 'request', '10m', '-'],
      ['min', 'memory', 'Pod', '2Mi', '-', '-', 'request'],
      ['max', 'cpu', 'Container', '2', 'request', '3', '-'],
      ['ratio', 'cpu', 'Container', '4', 'ratio', '5.000000', '-'],
      ['ratio', 'memory', 'Container', '2', '-', '-', 'request'],
    ]);
  });
  it('reads nothing from other refusals', () => {
    expect(
      limitRangeRefusals('exceeded quota: q, requested: limits.cpu=3, used: limits.cpu=3, limited: limits.cpu=4'),
    ).toEqual([]);
  });
});

describe('defaultedByLimitRanger', () => {
  const lr = (name: string, item: Record<string, unknown>) => ({
    metadata: { name },
    spec: { limits: [{ type: 'Container', ...item }] },
  });
  it('stores default from max and defaultRequest from min, as the API server does', () => {
    const [req] = limitRangeRefusals(
      'memory max limit to request ratio per Container is 2, but no request is specified or request is 0.',
    );
    expect(defaultedByLimitRanger(req!, [lr('a', { min: { memory: '32Mi' } })])).toBe(true);
    const [lim] = limitRangeRefusals(
      'cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0.',
    );
    expect(defaultedByLimitRanger(lim!, [lr('a', { max: { cpu: '2' } })])).toBe(true);
    expect(defaultedByLimitRanger(lim!, [lr('a', { min: { cpu: '1' } })])).toBe(false);
  });
  it('a max or min item always defaults; a ratio only with a default read', () => {
    const [max] = limitRangeRefusals('maximum memory usage per Container is 4Gi.  No limit is specified.');
    const [ratio] = limitRangeRefusals(
      'cpu max limit to request ratio per Container is 4, but no limit is specified or limit is 0.',
    );
    expect(defaultedByLimitRanger(max!, undefined)).toBe(true);
    expect(defaultedByLimitRanger(ratio!, undefined)).toBeUndefined();
    expect(defaultedByLimitRanger(ratio!, [lr('r', { maxLimitRequestRatio: { cpu: '4' } })])).toBe(false);
    expect(
      defaultedByLimitRanger(ratio!, [lr('r', { maxLimitRequestRatio: { cpu: '4' }, default: { cpu: '1' } })]),
    ).toBe(true);
  });
});
