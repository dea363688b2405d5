/**
 * One WATCH request (src/cluster/watch-stream.ts): events split from a byte stream however it is
 * chunked, refused when too large, too deep, too dense or not JSON, and the request's ends (the
 * server's, maxMs, an abort, an error status) told apart. Against the test API server.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Conn } from '../../src/cluster/http.js';
import { resolveKubeContext } from '../../src/cluster/kubeconfig.js';
import {
  JsonValues,
  parseEvent,
  RefusedBytes,
  watchRequest,
  WatchNetError,
  WatchStatusError,
  type WatchEvent,
} from '../../src/cluster/watch-stream.js';
import { DEFAULT_LIMITS, MAX_DEPTH, type Limits } from '../../src/util/limits.js';
import { startApiServer, type ApiServer } from '../apiserver/server.js';
import { until } from '../helpers/until.js';

const split = (bytes: Buffer, cuts: number[], max = 1 << 20): string[] => {
  const out: string[] = [];
  const v = new JsonValues(max);
  let at = 0;
  for (const c of [...new Set(cuts.map((x) => x % (bytes.length + 1)))].sort((a, b) => a - b)) {
    v.push(bytes.subarray(at, c), (b) => out.push(b.toString('utf8')));
    at = c;
  }
  v.push(bytes.subarray(at), (b) => out.push(b.toString('utf8')));
  return out;
};

describe('JsonValues: top-level JSON values from a chunked stream', () => {
  it('gives back each value, whatever the chunks (strings holding brackets, quotes and escapes included)', () => {
    const value = fc.jsonValue({ maxDepth: 4 }).map((v) => ({ type: 'ADDED', object: { v, s: '}{"\\]' } }));
    fc.assert(
      fc.property(
        fc.array(value, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.boolean(),
        (values, cuts, newline) => {
          const texts = values.map((v) => JSON.stringify(v));
          const bytes = Buffer.from(texts.join(newline ? '\n' : ''));
          expect(split(bytes, cuts)).toEqual(texts);
        },
      ),
    );
  });

  it('refuses a value larger than its bound, nesting past MAX_DEPTH and bytes between values that are not JSON', () => {
    expect(() => split(Buffer.from(`{"a":"${'x'.repeat(100)}"}`), [10, 50], 64)).toThrow(RefusedBytes);
    expect(() => split(Buffer.from('['.repeat(MAX_DEPTH + 1)), [7])).toThrow(/nested more than/);
    expect(() => split(Buffer.from('{"a":1} junk {"b":2}'), [])).toThrow(/other than JSON objects/);
  });

  it('parseEvent refuses dense, invalid and shapeless events before they reach the reflector', () => {
    expect(parseEvent(Buffer.from('{"type":"DELETED","object":{"metadata":{"name":"a"}}}')).type).toBe('DELETED');
    expect(() => parseEvent(Buffer.from('{"type":"ADDED","object":{"a":' + '[],'.repeat(9_000_000) + '0}}'))).toThrow(
      /denser than Kubernetes/,
    );
    expect(() => parseEvent(Buffer.from('{"type":"ADDED","object":{"a":1,}}'))).toThrow(/invalid JSON/);
    expect(() => parseEvent(Buffer.from('{"type":"EATEN","object":{}}'))).toThrow(/not \{type, object\}/);
    expect(() => parseEvent(Buffer.from('{"type":"ADDED","object":[]}'))).toThrow(/not \{type, object\}/);
  });
});

describe('watchRequest against the test API server', () => {
  let srv: ApiServer | undefined;
  let conn: Conn | undefined;
  const abort = new AbortController();
  afterEach(async () => {
    conn?.agent.destroy();
    await srv?.close();
    srv = undefined;
  });

  const setup = async (limits: Partial<Limits> = {}) => {
    srv = await startApiServer({
      objects: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { namespace: 'linkerd', name: 'linkerd-config' },
          data: { a: '1' },
        },
      ],
    });
    const l = { ...DEFAULT_LIMITS, requestTimeoutMs: 5000, ...limits };
    conn = await connect(await resolveKubeContext({ kubeconfig: await srv.writeKubeconfig() }, l), l, abort.signal);
    return { srv, conn };
  };

  it('streams the changes after a resourceVersion, in order, and resolves when the server ends the watch', async () => {
    const { srv, conn } = await setup();
    const from = srv.resourceVersion;
    const events: WatchEvent[] = [];
    const done = watchRequest(
      conn,
      `/api/v1/namespaces/linkerd/configmaps?watch=1&resourceVersion=${from}&allowWatchBookmarks=true`,
      {
        signal: abort.signal,
        maxMs: 60_000,
        onEvent: (e) => events.push(e),
      },
    );
    await until(() => srv.openWatches === 1);
    srv.upsert({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'linkerd', name: 'linkerd-config' },
      data: { a: '2' },
    });
    srv.upsert({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'other', name: 'x' } });
    srv.remove('ConfigMap', 'linkerd', 'linkerd-config');
    srv.bookmark();
    await until(() => events.length === 3);
    srv.endWatches();
    await done;
    expect(events.map((e) => `${e.type} ${e.object.metadata.name ?? ''} ${e.object.metadata.resourceVersion}`)).toEqual(
      [`MODIFIED linkerd-config ${from + 1}`, `DELETED linkerd-config ${from + 3}`, `BOOKMARK  ${from + 3}`],
    );
  });

  it('a resourceVersion from before a compaction: one ERROR event of code 410, as kube-apiserver sends it', async () => {
    const { srv, conn } = await setup();
    const old = srv.resourceVersion;
    srv.upsert({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'linkerd', name: 'y' } });
    srv.compact();
    const events: WatchEvent[] = [];
    await watchRequest(conn, `/api/v1/configmaps?watch=1&resourceVersion=${old}`, {
      signal: abort.signal,
      maxMs: 10_000,
      onEvent: (e) => events.push(e),
    });
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe('ERROR');
    expect(events[0]!.object.code).toBe(410);
  });

  it('an error status is a WatchStatusError with the Status message; a cut stream and refused bytes are WatchNetErrors', async () => {
    const { srv, conn } = await setup();
    srv.faults.push({ match: (r) => r.query.watch === '1', status: 403, times: 1 });
    const watch = () =>
      watchRequest(conn, '/api/v1/configmaps?watch=1&resourceVersion=1', {
        signal: abort.signal,
        maxMs: 10_000,
        onEvent: () => {},
      });
    const e = await watch().catch((x) => x);
    expect(e).toBeInstanceOf(WatchStatusError);
    expect(e.status).toBe(403);
    expect(e.message).toMatch(/cannot list resource "configmaps"/);
    srv.faults.push({
      match: (r) => r.query.watch === '1',
      body: '{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"ADD',
      times: 1,
    });
    const cut = await watch().catch((x) => x);
    expect(cut).toBeInstanceOf(WatchNetError);
    expect(cut.message).toMatch(/cut off in the middle of an event/);
    srv.faults.push({ match: (r) => r.query.watch === '1', body: 'not json at all', times: 1 });
    const junk = await watch().catch((x) => x);
    expect(junk).toBeInstanceOf(WatchNetError);
    expect(junk.message).toMatch(/the API server sent something other than JSON objects/);
  });

  it('ends at maxMs on a silent stream, and rejects with an AbortError when aborted', async () => {
    const { srv, conn } = await setup();
    await watchRequest(conn, `/api/v1/configmaps?watch=1&resourceVersion=${srv.resourceVersion}`, {
      signal: abort.signal,
      maxMs: 200,
      onEvent: () => {},
    });
    await until(() => srv.openWatches === 0);
    const stop = new AbortController();
    const p = watchRequest(conn, `/api/v1/configmaps?watch=1&resourceVersion=${srv.resourceVersion}`, {
      signal: stop.signal,
      maxMs: 60_000,
      onEvent: () => {},
    });
    await until(() => srv.openWatches === 1);
    stop.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('an event larger than --max-bytes ends the watch with a WatchNetError, never held whole', async () => {
    const { srv, conn } = await setup({ maxBytes: 4096 });
    const p = watchRequest(conn, `/api/v1/configmaps?watch=1&resourceVersion=${srv.resourceVersion}`, {
      signal: abort.signal,
      maxMs: 60_000,
      onEvent: () => {},
    });
    await until(() => srv.openWatches === 1);
    srv.upsert({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'linkerd', name: 'big' },
      data: { a: 'x'.repeat(10_000) },
    });
    await expect(p).rejects.toThrow(/an event larger than 4 KiB \(--max-bytes\)/);
  });
});
