/**
 * Every check works live as it does offline: each check fixture, overlaid on the two-mesh healthy
 * cluster, is served by the test API server and read through the real client path (-A and -n),
 * and must give exactly the findings the same objects give from a snapshot file.
 *
 * Served over plain HTTP, as `kubectl proxy` serves a cluster (a kubeconfig the CLI reads as any
 * other): what this file compares is what was read and what the checks say of it, the same over
 * either transport. TLS costs each live run 16 handshakes and about half of its CPU (70 of 140 ms
 * at load 12; 1,700 live runs here), and is the transport's own subject, with its CA and server
 * name verified, in test/gather.test.ts, test/transport.test.ts, test/live.test.ts,
 * test/hostile-live.test.ts and against a real kube-apiserver in test/kube-apiserver.test.ts.
 */
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KIND_KEYS, kindOf } from '../src/k8s/kinds.js';
import { serverCerts, startApiServer } from './apiserver/server.js';
import { runCli } from './helpers/cli.js';
import {
  FIXTURES,
  SERVER_DOC,
  baseObjects,
  fixtureMetricsText,
  fixtureObjects,
  fixtureServer,
  overlay,
} from './helpers/fixtures.js';

const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-parity-'));
const fixtures = readdirSync(join(FIXTURES, 'checks')).flatMap((dir) =>
  readdirSync(join(FIXTURES, 'checks', dir))
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => `checks/${dir}/${f}`),
);

// One CA and serving certificate for the file's servers (one per fixture, one at a time): a plain
// HTTP server makes none of its own then.
const certs = await serverCerts();

const comparable = (stdout: string) => {
  const r = JSON.parse(stdout);
  return { meshes: r.meshes, summary: r.summary, findings: r.findings, skipped: r.skipped };
};

describe('live and offline runs agree on every check fixture', () => {
  it('has fixtures to compare', () => expect(fixtures.length).toBeGreaterThan(20));

  it.each(fixtures)('%s', async (fixture) => {
    // Kuma's and Consul's fixtures beside another mesh (Linkerd + Kuma, Istio + Consul); the rest over Linkerd and Istio.
    const base = fixture.includes('kuma') ? 'linkerd+kuma' : fixture.includes('consul') ? 'istio+consul' : 'both';
    const all = overlay(baseObjects(base), fixtureObjects(fixture));
    // What a fixture says of the API server itself: served at /version and /metrics, saved as a snapshot's `server`.
    const serverDoc = all.find((o) => o.kind === SERVER_DOC);
    const objects = all.filter((o) => o.kind !== SERVER_DOC);
    // The dump as docs/snapshot.md has it: one file per kind (empty when the cluster has none), so it says what it read.
    const file = join(tmp, fixture.replaceAll('/', '_'));
    mkdirSync(file, { recursive: true });
    for (const k of KIND_KEYS)
      writeFileSync(
        join(file, `${k}.json`),
        JSON.stringify({ kind: 'List', items: objects.filter((o) => kindOf(o.kind)?.key === k) }),
      );
    const files = ['--snapshot', file];
    const info = serverDoc && fixtureServer(serverDoc);
    if (info) {
      const own = join(tmp, fixture.replaceAll('/', '_') + '.server.json');
      writeFileSync(
        own,
        JSON.stringify({ kind: 'MeshdoctorSnapshot', apiVersion: 'meshdoctor.io/v1', objects: {}, server: info }),
      );
      files.push('--snapshot', own);
    }
    const namespaces = [
      ...new Set(
        fixtureObjects(fixture)
          .map((o) => o.metadata?.namespace)
          .filter((n): n is string => !!n),
      ),
    ];
    const metrics = fixtureMetricsText(all);
    const server = await startApiServer({
      certs,
      plainHttp: true,
      objects,
      maxPageSize: 50,
      // No version in the fixture: none served either (404), so that both runs take it from the API server pod's image.
      version: info?.version?.state === 'read' ? info.version.value : null,
      ...(metrics !== undefined ? { metrics } : {}),
    });
    try {
      const kubeconfig = await server.writeKubeconfig(tmp, { fileName: `${fixture.replaceAll('/', '_')}.kubeconfig` });
      for (const scope of [['-A'], ...namespaces.slice(0, 1).map((n) => ['-n', n])]) {
        const live = await runCli(['check', ...scope, '--kubeconfig', kubeconfig, '-o', 'json']);
        const offline = await runCli(['check', ...scope, ...files, '-o', 'json']);
        expect(live.stderr, `${scope.join(' ')} live`).toBe('');
        expect(comparable(live.stdout), scope.join(' ')).toEqual(comparable(offline.stdout));
        expect(live.code).toBe(offline.code);
      }
      expect(server.requests.every((q) => q.method === 'GET')).toBe(true);
    } finally {
      await server.close();
    }
  });
});
