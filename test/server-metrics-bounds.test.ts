/**
 * A hostile or huge /metrics page of the API server (src/cluster/endpoints.ts readMetrics): read
 * as a stream of lines, never held whole: a page over --max-bytes (gzip included: counted after
 * gunzip) fails the read with the bound as the reason, a line longer than any series is skipped
 * and the series after it still read, and a label value cannot forge another series.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../src/cluster/http.js';
import { readMetrics } from '../src/cluster/endpoints.js';
import { resolveKubeContext } from '../src/cluster/kubeconfig.js';
import { DEFAULT_LIMITS } from '../src/util/limits.js';
import { startApiServer, type ApiServer } from './apiserver/server.js';

const TYPE = '# TYPE apiserver_admission_webhook_fail_open_count counter';
const series = (name: string, v: number) =>
  `apiserver_admission_webhook_fail_open_count{name="${name}",type="admit"} ${v}`;

let srv: ApiServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

async function read(metrics: string, maxBytes: number, gzip = false) {
  srv = await startApiServer({ objects: [], metrics, gzip });
  const limits = { ...DEFAULT_LIMITS, requestTimeoutMs: 10_000, maxBytes };
  const conn = await connect(
    await resolveKubeContext({ kubeconfig: await srv.writeKubeconfig() }, limits),
    limits,
    new AbortController().signal,
  );
  try {
    return await readMetrics(conn, () => true);
  } finally {
    conn.agent.destroy();
  }
}

describe('the API server /metrics page, hostile or huge', () => {
  it('over --max-bytes (plain or gzip, counted after gunzip): the read fails with the bound, not the memory', async () => {
    const page = [TYPE, ...Array.from({ length: 200_000 }, (_, i) => `filler_metric{i="${i}"} 1`)].join('\n') + '\n';
    expect(page.length).toBeGreaterThan(4 * 1024 * 1024);
    for (const gzip of [false, true]) {
      const p = await read(page, 1024 * 1024, gzip);
      expect(p, `gzip ${gzip}`).toEqual({
        state: 'failed',
        reason: expect.stringMatching(/larger than 1 MiB \(--max-bytes\)/),
      });
    }
  });

  it('a line longer than any series is skipped; the series after it are read; a label value cannot forge a series', async () => {
    const page = [
      TYPE,
      series('a.example.io', 1),
      `junk{x="${'y'.repeat(2 * 1024 * 1024)}"} 1`,
      series('b.example.io', 2),
      // A forged series inside a label value: one series (name with the escapes undone), not two.
      `apiserver_admission_webhook_fail_open_count{name="c\\"} 99\\napiserver_admission_webhook_fail_open_count{name=\\"d",type="admit"} 3`,
    ].join('\n');
    const p = await read(page + '\n', 64 * 1024 * 1024);
    expect(p.state).toBe('read');
    if (p.state !== 'read') return;
    const names = p.value.samples.map((s) => s.labels.name);
    expect(names).toContain('a.example.io');
    expect(names).toContain('b.example.io');
    expect(names.some((n) => n === 'd')).toBe(false);
  });
});
