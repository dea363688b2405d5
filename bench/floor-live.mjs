/**
 * The live floor: the least any client can do to read what `meshdoctor check -A` reads. It sends
 * the same GETs (every LIST page of the same kinds with the same page size, all kinds at once,
 * plus the same named ConfigMaps and Secrets) over one keep-alive HTTPS agent with the same CA,
 * token and headers, JSON.parses every body and keeps every item. Nothing else: no kubeconfig
 * parsing, no client library, no checks.
 *
 *   node bench/floor-live.mjs CONFIG.json
 *   CONFIG: { server, ca, token, pageSize, lists: [path], gets: [path] }
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { gunzipSync } from 'node:zlib';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const agent = new https.Agent({ keepAlive: true, ca: cfg.ca });
const headers = { Authorization: `Bearer ${cfg.token}`, Accept: 'application/json', 'Accept-Encoding': 'gzip', 'User-Agent': 'meshdoctor-floor' };
let requests = 0;

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
        resolve({ status: res.statusCode, json: JSON.parse(body.toString('utf8')) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function list(path) {
  const items = [];
  let cont;
  for (;;) {
    const q = new URLSearchParams({ limit: String(cfg.pageSize) });
    if (cont) q.set('continue', cont);
    const { status, json } = await get(`${path}?${q}`);
    if (status !== 200) throw new Error(`${path}: HTTP ${status}`);
    for (const item of json.items) items.push(item);
    cont = json.metadata?.continue;
    if (!cont) return items;
  }
}

// The floor knows the named objects up front, so it need not wait for the lists to name them.
const [lists, named] = await Promise.all([
  Promise.all(cfg.lists.map(list)),
  Promise.all(cfg.gets.map((p) => get(p).then((r) => (r.status === 200 ? r.json : undefined)))),
]);
agent.destroy();
const objects = lists.reduce((n, l) => n + l.length, 0) + named.filter(Boolean).length;
process.stdout.write(JSON.stringify({ objects, requests }) + '\n');
