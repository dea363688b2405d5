/**
 * Hostile watch streams against the reflector (src/cluster/reflector.ts): a server that sends one
 * event, then 410 Gone, on every watch gets LISTs slowed down by the relist backoff (RELIST_BACKOFF,
 * client-go's backoff manager) to one every 30-60 s whatever events come between, starting over
 * after two quiet minutes; one watch event larger than any object (MAX_EVENT_BYTES, far below
 * --max-bytes) ends the stream, is not believed, and the kind is listed again after that backoff.
 * Events about other namespaces than the stream's, or without a name, are not believed, and churn
 * (the same objects added and deleted over and over) leaves the store at the objects that exist.
 * The clock and the waits are the test's: the rate is counted, not timed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/cluster/http.js';
import { resolveKubeContext } from '../../src/cluster/kubeconfig.js';
import { RELIST_BACKOFF, Reflector } from '../../src/cluster/reflector.js';
import { MAX_EVENT_BYTES } from '../../src/cluster/watch-stream.js';
import type { Fault } from '../apiserver/server.js';
import type { K8sObject } from '../../src/util/types.js';
import { KEEPER } from '../../src/mesh/keep.js';
import { DEFAULT_LIMITS } from '../../src/util/limits.js';
import { startApiServer, type ApiServer } from '../apiserver/server.js';
import { until } from '../helpers/until.js';

const EVENT_THEN_GONE =
  JSON.stringify({
    type: 'ADDED',
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'a', resourceVersion: '7' } },
  }) +
  '\n' +
  JSON.stringify({
    type: 'ERROR',
    object: {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: 'too old resource version: 7 (9)',
      reason: 'Expired',
      code: 410,
    },
  }) +
  '\n';

let srv: ApiServer | undefined;
let reflector: Reflector | undefined;
afterEach(async () => {
  reflector?.stop();
  await srv?.close();
  srv = reflector = undefined;
});

async function setup(faults: Fault[], objects: K8sObject[] = [], namespace?: string) {
  srv = await startApiServer({ objects, faults });
  const kubeconfig = await srv.writeKubeconfig();
  const limits = { ...DEFAULT_LIMITS, requestTimeoutMs: 5000 };
  let clock = 1_000_000;
  const waits: number[] = [];
  /** Simulated quiet time to add before the next wait returns (ms). */
  let jump = 0;
  const r = new Reflector({
    connect: async () =>
      connect(await resolveKubeContext({ kubeconfig }, limits), limits, new AbortController().signal),
    limits,
    kinds: ['pods'],
    keep: KEEPER,
    planKinds: [],
    plan: () => ({ lists: [namespace ? { key: 'pods', namespace } : { key: 'pods' }], named: [] }),
    onChange: () => {},
    log: () => {},
    random: () => 0.5,
    now: () => clock,
    sleep: (ms, signal) =>
      new Promise((resolve, reject) => {
        waits.push(ms);
        clock += ms + jump;
        jump = 0;
        if (signal.aborted) reject(new Error('aborted'));
        else setImmediate(resolve);
      }),
  });
  reflector = r;
  const lists = () => srv!.requests.filter((q) => q.path === '/api/v1/pods' && q.query.watch !== '1').length;
  return { r, lists, waits, clock: () => clock, jump: (ms: number) => (jump = ms) };
}

describe('hostile watch streams', () => {
  it('one event then 410 Gone, every time: LISTs back off to 30 s (plus jitter), and start over after 2 quiet minutes', async () => {
    const { r, lists, waits, clock, jump } = await setup([
      { match: (q) => q.path === '/api/v1/pods' && q.query.watch === '1', status: 200, body: EVENT_THEN_GONE },
    ]);
    const start = clock();
    await r.start();
    await until(() => lists() >= 12, 20_000, '12 LISTs');
    const elapsed = clock() - start;
    // 11 relists: 800 ms doubled up to 30 s, each times 1.5 (the jitter at random() = 0.5).
    const steps = [800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000, 30_000, 30_000, 30_000];
    expect(waits.slice(0, 11)).toEqual(steps.map((ms) => ms * 1.5));
    expect(elapsed).toBeGreaterThanOrEqual(steps.reduce((a, b) => a + b, 0) * 1.5);
    // At most one LIST per 30 s once backed off, however many events came between.
    expect(r.status('pods').events).toBeGreaterThanOrEqual(22);
    // Two quiet minutes: the next wait is the first again.
    const n = waits.length;
    jump(RELIST_BACKOFF.resetMs + 1);
    await until(() => waits.length >= n + 2, 20_000, 'two more waits');
    expect(waits[n + 1]).toBe(800 * 1.5);
  });

  it('a watch event larger than any object (5 MiB, under --max-bytes): the stream ends, the event is not believed, the kind is listed again after the backoff', async () => {
    const huge = JSON.stringify({
      type: 'ADDED',
      object: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'huge',
          namespace: 'a',
          resourceVersion: '9',
          annotations: { x: 'y'.repeat(5 * 1024 * 1024) },
        },
      },
    });
    expect(huge.length).toBeGreaterThan(MAX_EVENT_BYTES);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'small', namespace: 'a' } };
    const { r, lists, waits } = await setup(
      [{ match: (q) => q.path === '/api/v1/pods' && q.query.watch === '1', status: 200, body: huge + '\n' }],
      [pod],
    );
    await r.start();
    await r.synced();
    await until(() => lists() >= 3, 20_000, 'listed again');
    expect(r.store.get('pods', 'a', 'huge')).toBeUndefined();
    expect(r.store.get('pods', 'a', 'small')).toBeDefined();
    expect(waits.slice(0, 2)).toEqual([1200, 2400]);
    await until(() => !!r.status('pods').stale, 5000, 'stale');
    expect(r.status('pods').stale).toMatch(/an event larger than 4 MiB/);
  });

  it('foreign namespaces and nameless objects are not believed; churn leaves only what exists', async () => {
    const ev = (type: string, ns: string | undefined, name: string | undefined, rv: number) =>
      JSON.stringify({
        type,
        object: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { ...(ns ? { namespace: ns } : {}), ...(name ? { name } : {}), resourceVersion: String(rv) },
        },
      });
    const lines: string[] = [];
    let rv = 10;
    for (let round = 0; round < 2000; round++) {
      lines.push(ev('ADDED', 'shop', `churn-${round % 50}`, rv++), ev('DELETED', 'shop', `churn-${round % 50}`, rv++));
      lines.push(ev('ADDED', 'kube-system', `foreign-${round}`, rv++), ev('ADDED', 'shop', undefined, rv++));
    }
    lines.push(ev('ADDED', 'shop', 'stays', rv++));
    const { r } = await setup(
      [
        {
          match: (q) => q.path === '/api/v1/namespaces/shop/pods' && q.query.watch === '1',
          status: 200,
          body: lines.join('\n') + '\n',
          times: 1,
        },
      ],
      [],
      'shop',
    );
    await r.start();
    await r.synced();
    await until(() => !!r.store.get('pods', 'shop', 'stays'), 10_000, 'the last event');
    expect(r.store.count('pods')).toBe(1);
    expect(r.store.namespaces('pods')).toEqual(['shop']);
  });

  it('a server that ends every watch right after one event: the watches back off, not a busy loop', async () => {
    const one = JSON.stringify({
      type: 'MODIFIED',
      object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'a', resourceVersion: '8' } },
    });
    const { r, waits, clock } = await setup([
      { match: (q) => q.path === '/api/v1/pods' && q.query.watch === '1', status: 200, body: one + '\n' },
    ]);
    const watches = () => srv!.requests.filter((q) => q.path === '/api/v1/pods' && q.query.watch === '1').length;
    const start = clock();
    await r.start();
    await until(() => watches() >= 12, 20_000, '12 watches');
    // Each watch after one that ended within a second waits, doubling (1 s, 2 s, ... x 0.75 at random() = 0.5).
    expect(waits.slice(0, 6)).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000].map((ms) => ms * 0.75));
    expect(clock() - start).toBeGreaterThanOrEqual(60_000);
  });
});
