/**
 * The live floor: the least any client can do to read what `meshdoctor check -A` reads. It sends
 * the same GETs (every LIST page of the same kinds with the same page size, all kinds at once,
 * plus the same named ConfigMaps and Secrets) over one keep-alive HTTPS agent with the same
 * credentials and headers, JSON.parses every body and keeps every item. Nothing else: no
 * kubeconfig parsing, no client library, no checks.
 *
 * Also the lister of bench/server-cost.ts, which varies what the lists ask for: `params` (extra
 * query parameters: resourceVersion, resourceVersionMatch), `pageSize` (0: no limit), `gzip`,
 * `exact` (list the first kind, then every kind at its resourceVersion, resourceVersionMatch=Exact:
 * one revision for all kinds), `notOlderThan` (the same with NotOlderThan and no limit: from the
 * watch cache), `sequential` (one kind after the other) and `concurrency` (lists at once).
 *
 *   node bench/floor-live.mjs CONFIG.json
 *   CONFIG: { server, ca, token | cert+key, pageSize, lists: [path], gets: [path], params?, gzip?, exact?, sequential? }
 */
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { gunzipSync } from 'node:zlib';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const agent = new https.Agent({ keepAlive: true, ca: cfg.ca, cert: cfg.cert, key: cfg.key });
const headers = { Accept: 'application/json', 'User-Agent': 'meshdoctor-floor' };
if (cfg.token) headers.Authorization = `Bearer ${cfg.token}`;
if (cfg.gzip !== false) headers['Accept-Encoding'] = 'gzip';
let requests = 0;
let bytes = 0;

function get(path) {
  requests++;
  return new Promise((resolve, reject) => {
    const req = https.request(cfg.server + path, { agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        let body = Buffer.concat(chunks);
        if (res.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        bytes += body.length;
        // /metrics is text (Prometheus' format), read whole as meshdoctor reads it; a kind the server does not
        // serve answers 404 in plain text.
        const text = body.toString('utf8');
        const json = /json/.test(res.headers['content-type'] ?? '') ? JSON.parse(text) : text;
        resolve({ status: res.statusCode, json });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function list(path, extra = {}) {
  const items = [];
  let cont;
  let rv;
  for (;;) {
    const q = new URLSearchParams({
      ...(cfg.pageSize ? { limit: String(cfg.pageSize) } : {}),
      ...cfg.params,
      ...extra,
    });
    if (q.get('limit') === '0') q.delete('limit');
    if (cont) {
      q.set('continue', cont);
      q.delete('resourceVersion');
      q.delete('resourceVersionMatch');
    }
    const { status, json } = await get(`${path}?${q}`);
    // Not served (as meshdoctor reads it: the kind's API is absent, nothing listed).
    if (status === 404) return Object.assign(items, { rv });
    if (status !== 200) throw new Error(`${path}: HTTP ${status}: ${json?.message}`);
    for (const item of json.items) items.push(item);
    rv ??= json.metadata?.resourceVersion;
    cont = json.metadata?.continue;
    if (!cont) return Object.assign(items, { rv });
  }
}

const t0 = performance.now();
// The floor knows the named objects up front, so it need not wait for the lists to name them.
const namedP = Promise.all((cfg.gets ?? []).map((p) => get(p).then((r) => (r.status === 200 ? r.json : undefined))));
/** Lists of `paths`, at most `cfg.concurrency` at once (default: all), in order. */
async function listAll(paths, extra) {
  const out = new Array(paths.length);
  let next = 0;
  const n = cfg.sequential ? 1 : (cfg.concurrency ?? paths.length);
  await Promise.all(
    Array.from({ length: Math.min(n, paths.length) }, async () => {
      while (next < paths.length) {
        const i = next++;
        out[i] = await list(paths[i], extra);
      }
    }),
  );
  return out;
}
let lists;
if (cfg.exact || cfg.notOlderThan) {
  // The first list (a quorum read), then every other kind at its resourceVersion: Exact (one
  // revision for all kinds, from etcd) or NotOlderThan without limit (from the watch cache, at
  // least as fresh as the first list).
  const first = await list(cfg.lists[0]);
  const at = cfg.exact
    ? { resourceVersion: first.rv, resourceVersionMatch: 'Exact' }
    : { resourceVersion: first.rv, resourceVersionMatch: 'NotOlderThan', limit: '0' };
  lists = [first, ...(await listAll(cfg.lists.slice(1), at))];
} else {
  lists = await listAll(cfg.lists, {});
}
const named = await namedP;
agent.destroy();
const objects = lists.reduce((n, l) => n + l.length, 0) + named.filter(Boolean).length;
process.stdout.write(JSON.stringify({ objects, requests, bytes, ms: performance.now() - t0 }) + '\n');
