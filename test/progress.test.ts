/**
 * The progress line: on a terminal, a live read that takes over a second shows
 * "reading cluster: N/M kinds, K objects" on stderr and erases it before the report; a quick
 * read, or stderr that is not a terminal, prints nothing there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from './apiserver/server.js';
import { runCli } from './helpers/cli.js';
import { baseObjects } from './helpers/fixtures.js';

let server: ApiServer;
let kubeconfig: string;
beforeAll(async () => {
  server = await startApiServer({ objects: baseObjects('linkerd') });
  kubeconfig = await server.writeKubeconfig(undefined, { namespace: 'shop' });
});
afterAll(() => server.close());

const slowPods = () => server.faults.push({ match: (q) => q.path === '/api/v1/pods', delayMs: 1500 });
// \r, the line, "erase to end of line"; the last write erases it all.
const LINE = /\rreading cluster: (\d+)\/(\d+) kinds, (\d+) objects\u001b\[K/g;

describe('progress line on stderr', () => {
  it('a slow read on a terminal: the line is shown, counts grow, and it is erased at the end', async () => {
    slowPods();
    try {
      const r = await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json'], { tty: true });
      expect(r.code).toBe(0);
      const lines = [...r.stderr.matchAll(LINE)];
      expect(lines.length).toBeGreaterThan(0);
      const [, done, total, objects] = lines.at(-1)!.map(Number);
      expect(done).toBeGreaterThan(0);
      expect(done).toBeLessThanOrEqual(total!);
      expect(objects).toBeGreaterThan(0);
      // Nothing but progress lines and the final erase: no leftovers, no newline.
      expect(r.stderr.replace(LINE, '')).toBe('\r\u001b[K');
      expect(r.stderr.endsWith('\r\u001b[K')).toBe(true);
      JSON.parse(r.stdout); // stdout is the report alone
    } finally {
      server.faults.length = 0;
    }
  });

  it('the same slow read with stderr not a terminal: nothing on stderr', async () => {
    slowPods();
    try {
      const r = await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json'], { tty: false });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
    } finally {
      server.faults.length = 0;
    }
  });

  it('a quick read on a terminal stays silent', async () => {
    const r = await runCli(['check', '-A', '--kubeconfig', kubeconfig, '-o', 'json'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('snapshot shows it too on a slow read, and keeps stdout clean', async () => {
    slowPods();
    try {
      const r = await runCli(['snapshot', '-A', '--kubeconfig', kubeconfig], { tty: true });
      expect(r.stderr).toMatch(LINE);
      expect(r.stderr.endsWith('\r\u001b[K')).toBe(true);
      expect(JSON.parse(r.stdout).kind).toBe('MeshdoctorSnapshot');
    } finally {
      server.faults.length = 0;
    }
  });
});
