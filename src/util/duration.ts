/**
 * Durations as kubectl reads them. `--request-timeout` goes through client-go's
 * clientcmd.ParseTimeout (kubernetes/kubernetes
 * staging/src/k8s.io/client-go/tools/clientcmd/helpers.go @ad139a23): a bare integer (>= 0) is
 * seconds, anything else Go's time.ParseDuration: an optional sign, then one or more decimal
 * numbers (fractions allowed) each with a unit, ns, us (µs, μs), ms, s, m or h: `5s`, `1m30s`,
 * `1.5h`, `300ms`. "0" alone needs no unit.
 */

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  '\u00b5s': 1e-3, // µ (micro sign)
  '\u03bcs': 1e-3, // μ (Greek small mu)
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's time.ParseDuration (src/time/format.go), in milliseconds; undefined when Go would refuse it. */
function goDurationMs(text: string): number | undefined {
  let s = text;
  let neg = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') return undefined;
  let total = 0;
  while (s !== '') {
    // A number: digits, then an optional fraction; at least one digit on either side of the dot.
    const num = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    if (!num[1] && !num[2]) return undefined;
    s = s.slice(num[0].length);
    // The unit: everything up to the next digit or dot; it must be one Go knows.
    const unit = /^[^\d.]*/.exec(s)![0];
    if (!unit || UNIT_MS[unit] === undefined) return undefined;
    s = s.slice(unit.length);
    total += Number(`${num[1] || '0'}.${num[2] || '0'}`) * UNIT_MS[unit]!;
  }
  // Go refuses what overflows an int64 of nanoseconds (about 292 years).
  if (total * 1e6 > 2 ** 63 - 1) return undefined;
  return neg ? -total : total;
}

/** clientcmd.ParseTimeout, in milliseconds: a bare non-negative integer is seconds, else a Go duration. */
export function kubectlTimeoutMs(text: string): number | undefined {
  if (/^\+?\d+$/.test(text)) return Number(text) * 1000;
  return goDurationMs(text);
}
