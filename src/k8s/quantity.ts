import { str } from '../util/objects.js';

const SUFFIX: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};
const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|n|u|m|k|M|G|T|P|E)?$/;

/** A Kubernetes quantity ("100m", "0.5", "128Mi", "1G", "1e3") in base units; undefined if invalid. */
export function parseQuantity(v: unknown): number | undefined {
  const s = typeof v === 'number' ? String(v) : str(v)?.trim();
  const mm = s ? QUANTITY.exec(s) : null;
  if (!mm) return undefined;
  const suffix = mm[2] ?? '';
  const mult = /^[eE]./.test(suffix) ? 10 ** Number(suffix.slice(1)) : SUFFIX[suffix]!;
  return Number(mm[1]) * mult;
}
