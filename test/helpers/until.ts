/**
 * Poll until a condition holds, within a deadline: the one way tests wait for a server (a real
 * kube-apiserver, Prometheus, a watch) to reach a state. A bounded wait, never a timing assertion.
 */
export async function until(f: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await f()) return;
    if (Date.now() > end) throw new Error(`${what} not met within ${ms / 1000}s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
