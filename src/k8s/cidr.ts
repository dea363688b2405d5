/**
 * IP addresses and CIDR ranges, IPv4 and IPv6, as the cluster writes them (Node spec.podCIDRs, Service
 * spec.clusterIPs, pod status.podIPs, node addresses) and as meshes configure them (Linkerd's clusterNetworks,
 * Istio's includeIPRanges, Kuma's and Consul's excluded outbound CIDRs): parsed to numbers, never by string prefix.
 * Anything that does not parse is undefined (not judged), never a match.
 */

type Family = 'IPv4' | 'IPv6';

interface Ip {
  family: Family;
  value: bigint;
}

export interface Cidr extends Ip {
  bits: number;
  /** As written (trimmed). */
  text: string;
}

function parseV4(s: string): bigint | undefined {
  // As /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/ with each part at most 255, read a character at a time (asked
  // for every pod and Service address: no regex, no BigInt per part).
  let v = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (++digits > 3) return undefined;
      part = part * 10 + (c - 48);
    } else if (c === 46) {
      if (!digits || dots === 3 || part > 255) return undefined;
      v = v * 256 + part;
      part = 0;
      digits = 0;
      dots++;
    } else return undefined;
  }
  if (dots !== 3 || !digits || part > 255) return undefined;
  return BigInt(v * 256 + part);
}

function parseV6(s: string): bigint | undefined {
  if (s.length > 45 || !/^[0-9a-fA-F:.]+$/.test(s)) return undefined;
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string): number[] | undefined => {
    if (h === '') return [];
    const out: number[] = [];
    const parts = h.split(':');
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (i === parts.length - 1 && p.includes('.')) {
        const v4 = parseV4(p);
        if (v4 === undefined) return undefined;
        out.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
      } else if (/^[0-9a-fA-F]{1,4}$/.test(p)) out.push(parseInt(p, 16));
      else return undefined;
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return undefined;
  const fill = 8 - head.length - tail.length;
  if (halves.length === 2 ? fill < 1 : fill !== 0) return undefined;
  let v = 0n;
  for (const g of [...head, ...Array<number>(fill).fill(0), ...tail]) v = (v << 16n) | BigInt(g);
  return v;
}

/** An address (an IPv6 address may come in brackets or with a zone): undefined when it is not one. */
export function parseIp(text: string | undefined): Ip | undefined {
  if (typeof text !== 'string') return undefined;
  const t = text.trim();
  // Brackets and a zone are rare: the two replacements only where one of their characters is there.
  const s = t.includes('[') || t.includes(']') || t.includes('%') ? t.replace(/^\[|\]$/g, '').replace(/%.*$/, '') : t;
  const v4 = parseV4(s);
  if (v4 !== undefined) return { family: 'IPv4', value: v4 };
  const v6 = s.includes(':') ? parseV6(s) : undefined;
  return v6 !== undefined ? { family: 'IPv6', value: v6 } : undefined;
}

const width = (f: Family) => (f === 'IPv4' ? 32 : 128);

/** A CIDR (an address alone is a /32 or /128): undefined when it is not one. */
export function parseCidr(text: string | undefined): Cidr | undefined {
  if (typeof text !== 'string') return undefined;
  const t = text.trim();
  const [addr, bitsText, extra] = t.split('/');
  if (extra !== undefined) return undefined;
  const ip = parseIp(addr);
  if (!ip) return undefined;
  const bits = bitsText === undefined ? width(ip.family) : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : NaN;
  if (!(bits >= 0 && bits <= width(ip.family))) return undefined;
  return { ...ip, bits, text: t };
}

/** The masks of the CIDRs asked about (a setting's CIDRs are asked about every address): once per parsed CIDR. */
const masks = new WeakMap<Cidr, bigint>();
const maskOf = (c: Cidr) => {
  let mask = masks.get(c);
  if (mask === undefined) {
    const w = BigInt(width(c.family));
    masks.set(c, (mask = ((1n << w) - 1n) ^ ((1n << (w - BigInt(c.bits))) - 1n)));
  }
  return mask;
};

/** Whether `ip` is within `cidr` (different families: false). */
export function cidrContains(cidr: Cidr, ip: Ip): boolean {
  if (cidr.family !== ip.family) return false;
  const mask = maskOf(cidr);
  return (cidr.value & mask) === (ip.value & mask);
}

/** Whether range `inner` lies wholly within `outer`. */
function cidrCovers(outer: Cidr, inner: Cidr): boolean {
  return outer.family === inner.family && outer.bits <= inner.bits && cidrContains(outer, inner);
}

/** Whether two ranges share an address. */
export const cidrsOverlap = (a: Cidr, b: Cidr): boolean => cidrCovers(a, b) || cidrCovers(b, a);

/** The /16 (IPv4) or /64 (IPv6) holding an address: a range to name for addresses no setting contains. */
export function enclosingRange(ip: Ip): string {
  if (ip.family === 'IPv4') {
    const v = ip.value >> 16n;
    return `${Number(v >> 8n)}.${Number(v & 255n)}.0.0/16`;
  }
  const hi = ip.value >> 64n;
  const groups = [48n, 32n, 16n, 0n].map((s) => Number((hi >> s) & 0xffffn).toString(16));
  return `${groups.join(':')}::/64`;
}
