/**
 * Restart the real kube-apiserver of test/helpers/kube-apiserver.ts in place: the same binary and
 * arguments (read from /proc), so the same port, certificates and etcd. What a client sees is a
 * real restart: connections reset, then a fresh watch cache, whose start makes every older
 * resourceVersion "too old" (410 Gone) for a watch.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeApiServer } from './kube-apiserver.js';
import { until, within } from './until.js';

/** Running (a zombie no one reaps, as the script's setsid children become here, is not). */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/** Stop kube-apiserver, run `whileDown`, start it again; resolves once its /readyz says ok. */
export async function restartKubeApiServer(kube: KubeApiServer, whileDown?: () => Promise<void>): Promise<void> {
  const pidFile = join(kube.dir, 'kube-apiserver.pid');
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  const args = readFileSync(`/proc/${pid}/cmdline`).toString('utf8').split('\0').filter(Boolean);
  process.kill(pid, 'SIGTERM');
  // Its graceful shutdown may wait for long-running requests (watches): then it is killed, as a crash would.
  if (!(await within(() => !alive(pid), 5_000))) process.kill(pid, 'SIGKILL');
  await until(() => !alive(pid), 15_000, 'kube-apiserver killed');
  await whileDown?.();
  const log = openSync(join(kube.dir, 'kube-apiserver.log'), 'a');
  const child = spawn(args[0]!, args.slice(1), { detached: true, stdio: ['ignore', log, log] });
  closeSync(log);
  child.unref();
  writeFileSync(pidFile, String(child.pid)); // apiserver.sh stop kills this one
  await until(
    async () => (await kube.admin.request('GET', '/readyz').catch(() => ({ status: 0 }))).status === 200,
    90_000,
    'kube-apiserver ready again',
  );
}
