/**
 * `meshdoctor watch` as a command: bad input is one line on stderr and exit 2 before anything is
 * served (in-process); the built binary serves, writes only NDJSON on stdout, and exits 0 on
 * SIGTERM (a child process, against the test API server; `npm test` builds dist first).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startApiServer } from '../apiserver/server.js';
import { runCli } from '../helpers/cli.js';
import { baseObjects } from '../helpers/fixtures.js';
import { freePort, httpGet } from '../helpers/prometheus.js';
import { until } from '../helpers/until.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BUILT = existsSync(join(ROOT, 'dist', 'cli.js'));
if (!BUILT) console.log('test/watch/cli-watch.test.ts: the child-process test skipped: no dist/ (npm test builds it)');

describe('meshdoctor watch: bad input', () => {
  it('one line and exit 2: --listen, -n with -A, an unknown check, a missing kubeconfig', async () => {
    const srv = await startApiServer({ objects: [] });
    const kubeconfig = await srv.writeKubeconfig();
    try {
      for (const [args, msg] of [
        [
          ['--listen', 'nowhere'],
          /^meshdoctor: --listen must be HOST:PORT, :PORT or \[IPv6\]:PORT \(e\.g\. 127\.0\.0\.1:9090\), not "nowhere"\n$/,
        ],
        [['-A', '-n', 'shop'], /^meshdoctor: -n\/--namespace and -A\/--all-namespaces cannot be used together\n$/],
        [['--only', 'no-such-check'], /^meshdoctor: unknown check "no-such-check" \(see: meshdoctor checks\)\n$/],
        [['--kubeconfig', join(tmpdir(), 'no-such-kubeconfig')], /^meshdoctor: .*no-such-kubeconfig.*\n$/],
      ] as const) {
        const listen = args[0] === '--listen' ? [] : ['--listen', '127.0.0.1:0'];
        const r = await runCli(['watch', '--kubeconfig', kubeconfig, ...listen, ...args]);
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr, args.join(' ')).toMatch(msg);
      }
    } finally {
      await srv.close();
    }
  });
});

describe.skipIf(!BUILT)('meshdoctor watch: the binary', () => {
  it('serves, writes only NDJSON lines on stdout, and exits 0 on SIGTERM', async () => {
    const srv = await startApiServer({ objects: baseObjects('linkerd') });
    const kubeconfig = await srv.writeKubeconfig(mkdtempSync(join(tmpdir(), 'md-watch-')));
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [join(ROOT, 'bin/meshdoctor.js'), 'watch', '-A', '--kubeconfig', kubeconfig, '--listen', `127.0.0.1:${port}`],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH, HOME: tmpdir(), NO_COLOR: '1' },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    try {
      await until(
        async () => (await httpGet(`http://127.0.0.1:${port}/readyz`).catch(() => ({ status: 0 }))).status === 200,
        20_000,
        'ready',
      );
      srv.upsert({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'loose', namespace: 'shop', uid: 'u-loose', creationTimestamp: '2020-01-01T00:00:00Z' },
        spec: { containers: [{ name: 'a', image: 'b' }] },
        status: { phase: 'Running' },
      });
      await until(() => stdout.includes('"name":"loose"'), 10_000, 'NDJSON line');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const lines = stdout.split('\n').filter(Boolean);
      expect(lines.length).toBeGreaterThan(0);
      for (const l of lines)
        expect(JSON.parse(l)).toMatchObject({ event: expect.stringMatching(/^(opened|resolved)$/) });
      expect(stderr).toMatch(
        /^meshdoctor: watching every namespace of context "fake" \(https:\/\/127\.0\.0\.1:\d+\); serving \/metrics, \/healthz, \/readyz, \/findings on http:\/\/127\.0\.0\.1:\d+\n/,
      );
      // 22: LimitRanges (admission-rejects-proxy), Nodes, ClusterRoles and ClusterRoleBindings (issue 25 items 4-6),
      // NetworkPolicies (issue 25 items 1-3) joined the kinds the checks read.
      expect(stderr).toMatch(/\nmeshdoctor: ready: \d+ objects of 24 kinds read/);
    } finally {
      child.kill('SIGKILL');
      await srv.close();
    }
  }, 40_000);
});
