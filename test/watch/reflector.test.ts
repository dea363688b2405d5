/**
 * The LIST + WATCH reflector (src/cluster/reflector.ts) against the test API server: the initial
 * sync, changes, bookmarks that spare a relist, 410 Gone that asks for one, transient errors
 * (stale, objects kept) and definite ones (unavailable, objects dropped), named objects watched
 * by a field selector, a plan that changes, new credentials after a 401, --max-objects.
 */
import { KEEPER } from '../../src/mesh/keep.js';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/cluster/http.js';
import { KINDS, type KindKey } from '../../src/k8s/kinds.js';
import { resolveKubeContext } from '../../src/cluster/kubeconfig.js';
import { Reflector, type Change, type ReadPlan } from '../../src/cluster/reflector.js';
import { DEFAULT_LIMITS, type Limits } from '../../src/util/limits.js';
import type { K8sObject } from '../../src/util/types.js';
import { startApiServer, type ApiServer, type Fault } from '../apiserver/server.js';
import { until } from '../helpers/until.js';

const ns = (name: string, labels: Record<string, string> = {}): K8sObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels },
});
const pod = (namespace: string, name: string): K8sObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace, name, uid: `${namespace}-${name}` },
  spec: { containers: [{ name: 'app', image: 'app' }] },
});
const cm = (namespace: string, name: string, data: Record<string, string> = {}): K8sObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name },
  data,
});

const names = (objs: K8sObject[]) =>
  objs.map((o) => `${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name}`);

let srv: ApiServer | undefined;
let reflector: Reflector | undefined;
afterEach(async () => {
  reflector?.stop();
  reflector = undefined;
  await srv?.close();
  srv = undefined;
});

interface Setup {
  objects: K8sObject[];
  kinds: KindKey[];
  plan?: (r: Reflector) => ReadPlan;
  limits?: Partial<Limits>;
  faults?: Fault[];
  namedPollMs?: number;
}

async function setup(o: Setup) {
  srv = await startApiServer({ objects: o.objects, maxPageSize: 2, faults: o.faults ?? [] });
  const limits = { ...DEFAULT_LIMITS, requestTimeoutMs: 5000, ...o.limits };
  const kubeconfig = await srv.writeKubeconfig();
  const changes: Change[] = [];
  const logs: string[] = [];
  let connects = 0;
  const abort = new AbortController();
  const r: Reflector = new Reflector({
    connect: async () => {
      connects++;
      return connect(await resolveKubeContext({ kubeconfig }, limits), limits, abort.signal);
    },
    limits,
    kinds: o.kinds,
    keep: KEEPER,
    planKinds: ['namespaces'],
    plan: () => o.plan?.(r) ?? { lists: o.kinds.filter((k) => !KINDS[k].byName).map((key) => ({ key })), named: [] },
    onChange: (c) => changes.push(c),
    log: (l) => logs.push(l),
    random: () => 0,
    backoffCapMs: 20,
    definiteBackoffCapMs: 20,
    ...(o.namedPollMs ? { namedPollMs: o.namedPollMs } : {}),
  });
  reflector = r;
  await r.start();
  await r.synced();
  return { srv, r, changes, logs, connects: () => connects };
}

describe('Reflector', () => {
  it('lists every page, then follows ADDED, MODIFIED and DELETED in LIST order', async () => {
    const { srv, r, changes } = await setup({
      objects: [
        ns('shop'),
        ns('a'),
        ns('a-b'),
        pod('shop', 'web-2'),
        pod('shop', 'web-1'),
        pod('a', 'x'),
        pod('a-b', 'y'),
      ],
      kinds: ['namespaces', 'pods'],
    });
    // etcd's key order: /registry/pods/a-b/y before /registry/pods/a/x.
    expect(names(r.store.all('pods'))).toEqual(['a-b/y', 'a/x', 'shop/web-1', 'shop/web-2']);
    expect(r.status('pods')).toMatchObject({ synced: true, objects: 4, relists: 0 });
    await until(() => srv.openWatches === 2);
    srv.upsert(pod('shop', 'web-0'));
    srv.upsert({ ...pod('a', 'x'), metadata: { ...pod('a', 'x').metadata, labels: { v: '2' } } });
    srv.remove('Pod', 'shop', 'web-2');
    await until(() => r.store.count('pods') === 4 && !r.store.get('pods', 'shop', 'web-2'));
    expect(names(r.store.all('pods'))).toEqual(['a-b/y', 'a/x', 'shop/web-0', 'shop/web-1']);
    expect(r.store.get('pods', 'a', 'x')?.metadata?.labels).toEqual({ v: '2' });
    expect(
      changes.filter((c) => c.type === 'object').map((c) => c.type === 'object' && `${c.key} ${c.namespace}/${c.name}`),
    ).toEqual(['pods shop/web-0', 'pods a/x', 'pods shop/web-2']);
  });

  it('a bookmark moves the resourceVersion on: a watch ended after a compaction continues without a relist', async () => {
    const { srv, r } = await setup({ objects: [ns('shop'), pod('shop', 'a')], kinds: ['namespaces', 'pods'] });
    await until(() => srv.openWatches === 2);
    srv.upsert(ns('other')); // moves the server's resourceVersion past the pods watch's
    srv.bookmark();
    await until(() => r.status('pods').events >= 1);
    srv.compact();
    const before = srv.requests.length;
    srv.endWatches();
    await until(() => srv.openWatches === 2);
    srv.upsert(pod('shop', 'b'));
    await until(() => r.store.count('pods') === 2);
    expect(r.status('pods')).toMatchObject({ relists: 0, restarts: 0 });
    expect(srv.requests.slice(before).filter((q) => q.query.watch !== '1')).toEqual([]);
  });

  it('410 Gone (a resourceVersion older than the compaction) lists again and sees what changed meanwhile', async () => {
    const { srv, r, changes } = await setup({
      objects: [ns('shop'), pod('shop', 'a'), pod('shop', 'b')],
      kinds: ['namespaces', 'pods'],
    });
    await until(() => srv.openWatches === 2);
    // The server restarts: watches end, objects change while nobody watches, its cache starts over.
    srv.faults.push({ match: (q) => q.query.watch === '1', delayMs: 300 });
    srv.endWatches();
    srv.remove('Pod', 'shop', 'a');
    srv.compact();
    srv.faults.length = 0;
    await until(() => r.status('pods').relists === 1 && r.store.count('pods') === 1, 10_000);
    expect(names(r.store.all('pods'))).toEqual(['shop/b']);
    expect(r.status('pods').restarts).toBeGreaterThanOrEqual(1);
    expect(changes.some((c) => c.type === 'reset' && c.key === 'pods')).toBe(true);
  });

  it('a transient error keeps the objects, marked stale, until the watch works again', async () => {
    const { srv, r, logs } = await setup({ objects: [ns('shop'), pod('shop', 'a')], kinds: ['namespaces', 'pods'] });
    await until(() => srv.openWatches === 2);
    srv.faults.push({ match: (q) => q.path === '/api/v1/pods' && q.query.watch === '1', status: 503 });
    srv.endWatches();
    await until(() => r.status('pods').stale !== undefined);
    expect(r.status('pods')).toMatchObject({ objects: 1 });
    expect(r.status('pods').unavailable).toBeUndefined();
    expect(r.status('pods').stale).toMatch(/HTTP 503/);
    expect(logs.some((l) => /^pods: HTTP 503: .*\(retrying in \d+s\)$/.test(l))).toBe(true);
    srv.faults.length = 0;
    srv.upsert(pod('shop', 'c'));
    await until(() => r.store.count('pods') === 2 && r.status('pods').stale === undefined);
  });

  it('a definite answer (403) makes the kind unavailable and drops its objects; it is read again once allowed', async () => {
    const { srv, r } = await setup({ objects: [ns('shop'), pod('shop', 'a')], kinds: ['namespaces', 'pods'] });
    await until(() => srv.openWatches === 2);
    srv.faults.push({ match: (q) => q.path === '/api/v1/pods', status: 403 });
    srv.endWatches();
    await until(() => r.status('pods').unavailable !== undefined);
    expect(r.status('pods').unavailable).toMatch(/^forbidden: /);
    expect(r.store.count('pods')).toBe(0);
    srv.faults.length = 0;
    await until(() => r.status('pods').unavailable === undefined && r.store.count('pods') === 1);
  });

  it('one 403 while its objects are kept (kube-apiserver just restarted, its RBAC cache filling) keeps them: stale, not dropped', async () => {
    const { srv, r, changes } = await setup({ objects: [ns('shop'), pod('shop', 'a')], kinds: ['namespaces', 'pods'] });
    await until(() => srv.openWatches === 2);
    srv.faults.push({ match: (q) => q.path === '/api/v1/pods' && q.query.watch === '1', status: 403, times: 1 });
    const before = changes.length;
    srv.endWatches();
    await until(
      () => srv.requests.filter((q) => q.path === '/api/v1/pods' && q.query.watch === '1').length >= 3,
      5000,
      'watched again',
    );
    srv.upsert(pod('shop', 'b'));
    await until(() => r.store.count('pods') === 2, 5000, 'in sync again');
    // Never unavailable, never emptied meanwhile.
    expect(changes.slice(before).filter((c) => c.type === 'reset')).toEqual([]);
    expect(r.status('pods').unavailable).toBeUndefined();
  });

  it('named objects: a GET, then a watch by field selector; absent, then created; dropped when the plan drops them', async () => {
    let named = [
      { key: 'configmaps' as const, namespace: 'linkerd', name: 'linkerd-config' },
      { key: 'configmaps' as const, namespace: 'linkerd', name: 'absent' },
    ];
    const { srv, r } = await setup({
      objects: [ns('linkerd'), cm('linkerd', 'linkerd-config', { a: '1' }), cm('linkerd', 'other')],
      kinds: ['namespaces', 'configmaps'],
      plan: () => ({ lists: [{ key: 'namespaces' }], named }),
    });
    expect(names(r.store.all('configmaps'))).toEqual(['linkerd/linkerd-config']);
    await until(() => srv.openWatches === 3);
    const watches = srv.requests.filter(
      (q) => q.path === '/api/v1/namespaces/linkerd/configmaps' && q.query.watch === '1',
    );
    expect(watches.map((q) => q.query.fieldSelector).sort()).toEqual([
      'metadata.name=absent',
      'metadata.name=linkerd-config',
    ]);
    expect(srv.requests.some((q) => q.path.endsWith('/configmaps') && q.query.watch !== '1')).toBe(false); // never listed
    srv.upsert(cm('linkerd', 'absent', { b: '2' }));
    srv.upsert(cm('linkerd', 'other', { c: '3' })); // not asked for
    await until(() => r.store.count('configmaps') === 2);
    expect(names(r.store.all('configmaps'))).toEqual(['linkerd/absent', 'linkerd/linkerd-config']);
    named = named.slice(0, 1);
    srv.upsert(ns('new')); // a change of a plan kind asks for the plan again
    await until(() => r.store.count('configmaps') === 1 && srv.openWatches === 2);
  });

  it('a named object that may be read but not watched (403 on its watch) is read again periodically, never listed', async () => {
    const { srv, r, logs, changes } = await setup({
      objects: [ns('linkerd'), cm('linkerd', 'linkerd-config', { a: '1' })],
      kinds: ['namespaces', 'configmaps'],
      plan: () => ({
        lists: [{ key: 'namespaces' }],
        named: [{ key: 'configmaps', namespace: 'linkerd', name: 'linkerd-config' }],
      }),
      faults: [{ match: (q) => q.path.endsWith('/configmaps') && q.query.watch === '1', status: 403 }],
      namedPollMs: 50,
    });
    await until(
      () =>
        logs.some((l) =>
          /ConfigMap linkerd\/linkerd-config: its watch is forbidden \(.*\): reading it again every 0s instead/.test(l),
        ),
      5000,
      'polling',
    );
    srv.upsert({
      ...cm('linkerd', 'linkerd-config'),
      metadata: { namespace: 'linkerd', name: 'linkerd-config', labels: { v: '2' } },
    });
    await until(
      () => r.store.get('configmaps', 'linkerd', 'linkerd-config')?.metadata?.labels?.v === '2',
      5000,
      'change seen',
    );
    expect(changes.some((c) => c.type === 'object' && c.name === 'linkerd-config')).toBe(true);
    expect(r.status('configmaps')).toMatchObject({ objects: 1 });
    expect(r.status('configmaps').unavailable).toBeUndefined();
    srv.remove('ConfigMap', 'linkerd', 'linkerd-config');
    await until(() => r.store.count('configmaps') === 0, 5000, 'deletion seen');
    expect(srv.requests.some((q) => q.path.endsWith('/configmaps') && q.query.watch !== '1')).toBe(false);
  });

  it('a 401 asks for the credentials again (an exec plugin would run again) and goes on', async () => {
    const { srv, r, connects } = await setup({
      objects: [ns('shop'), pod('shop', 'a')],
      kinds: ['namespaces', 'pods'],
    });
    expect(connects()).toBe(1);
    await until(() => srv.openWatches === 2);
    srv.faults.push({ match: (q) => q.path === '/api/v1/pods' && q.query.watch === '1', status: 401, times: 1 });
    srv.endWatches();
    await until(() => connects() === 2);
    srv.upsert(pod('shop', 'b'));
    await until(() => r.store.count('pods') === 2);
  });

  it('more objects than --max-objects through the watch: unavailable, objects dropped', async () => {
    const { srv, r } = await setup({
      objects: [ns('shop'), pod('shop', 'a'), pod('shop', 'b')],
      kinds: ['namespaces', 'pods'],
      limits: { maxObjects: 2 },
    });
    await until(() => srv.openWatches === 2);
    srv.upsert(pod('shop', 'c'));
    await until(() => r.status('pods').unavailable !== undefined);
    expect(r.status('pods').unavailable).toBe('more than 2 pods (--max-objects)');
    expect(r.store.count('pods')).toBe(0);
  });

  it('stop() ends every stream: no request after it', async () => {
    const { srv, r } = await setup({ objects: [ns('shop')], kinds: ['namespaces', 'pods'] });
    await until(() => srv.openWatches === 2);
    r.stop();
    await until(() => srv.openWatches === 0);
    const n = srv.requests.length;
    srv.upsert(ns('x'));
    await new Promise((res) => setTimeout(res, 100));
    expect(srv.requests.length).toBe(n);
  });
});
