/**
 * Poll until a condition holds: the one way tests wait for a server (a real kube-apiserver,
 * Prometheus, a watch) to reach a state. A wait, never a timing assertion (issue 33 item 4).
 *
 * `ms` is what the wait takes at most on a quiet machine (it documents the caller's expectation),
 * but the deadline that fails the test is the larger of it and HANG_MS: how long a server, a
 * spawned watch or a real kube-apiserver takes to get there grows with the machine's load (the
 * shared 2-core machines run at load 25-30), and a deadline of a few seconds would fail a test
 * whose behaviour was right. What ends here is a hang (below the 300 s test timeout, so that
 * the failure names the condition).
 */
export const HANG_MS = 120_000;

export async function until(f: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const limit = Math.max(ms, HANG_MS);
  const end = Date.now() + limit;
  for (;;) {
    if (await f()) return;
    if (Date.now() > end) throw new Error(`${what} not met within ${limit / 1000}s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Poll for a condition for `ms` at most and say whether it held: for a decision that a slow
 * machine only delays (a process not stopped gracefully by then is killed), never for an assertion.
 */
export async function within(f: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await f()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}
