/**
 * The values of known mesh keys (issue 31, gen10values): one generic validator over the value types of the meshes'
 * release tables (`ReleaseTable.values`, src/mesh/<mesh>/key-values.ts). Each parser is the one a mesh's injector
 * uses, from its source (cited beside each row of the tables): Go's strconv.ParseBool and ParseUint, a uint16 port
 * list as Istio's parsePorts and Kuma's Ports.Set read it, netip.ParsePrefix, resource.ParseQuantity,
 * time.ParseDuration, Kuma's GetMap, Consul's upstream grammar. It says why a value does not parse, or nothing.
 */
import { isIP } from 'node:net';
import { parseQuantity } from '../k8s/quantity.js';
import type { KeyValueRule, ReleaseTable, ValueType } from './release-table.js';
import { parseYamlObject } from './config-values.js';

/** Go's strconv.ParseBool. */
const GO_BOOL = ['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False'];

/** Go's strconv.ParseUint(v, 10, bits): digits only (no sign, no spaces). */
const uint = (v: string, bits: number) => /^[0-9]{1,20}$/.test(v) && BigInt(v) < 2n ** BigInt(bits);

/** Go's strconv.ParseInt(v, 10, bits). */
const int = (v: string, bits: number) =>
  /^[+-]?[0-9]{1,20}$/.test(v) && BigInt(v) >= -(2n ** BigInt(bits - 1)) && BigInt(v) < 2n ** BigInt(bits - 1);

/** Go's time.ParseDuration: "0", or a sequence of decimal numbers each with a unit (ns, us, µs, ms, s, m, h), signed. */
const GO_DURATION = /^[+-]?(?:0|(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+)$/;

/** Go's strconv.ParseFloat, decimal forms. */
const FLOAT = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;

/** A DNS-1123 subdomain (an object's name). */
const NAME = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;

/** netip.ParsePrefix: address/bits, no zone, bits within the family's length. */
function prefix(c: string): boolean {
  const [addr, bits, more] = c.split('/');
  const family = addr ? isIP(addr) : 0;
  return (
    more === undefined &&
    family !== 0 &&
    !addr!.includes('%') &&
    bits !== undefined &&
    /^(0|[1-9][0-9]{0,2})$/.test(bits) &&
    Number(bits) <= (family === 4 ? 32 : 128)
  );
}

/** At most this many items of a list are judged (the value is the cluster's: untrusted). */
const MAX_ITEMS = 512;
const items = (v: string) => v.split(',').slice(0, MAX_ITEMS);

/** The named ports of the pod's containers (Consul's PortValue reads them). */
type NamedPorts = ReadonlySet<string>;

/** Why `value` does not parse as `type`, in words naming the first bad part; undefined when it parses. */
export function badValue(type: ValueType, value: string, named: NamedPorts = new Set()): string | undefined {
  switch (type.kind) {
    case 'go-bool':
      return GO_BOOL.includes(value) ? undefined : 'not a boolean (true or false)';
    case 'word-bool': {
      const ok = ['true', 'yes', 'false', 'no', ...(type.enabled ? ['enabled', 'disabled'] : [])];
      return ok.includes(value) ? undefined : `not one of ${ok.join(', ')}`;
    }
    case 'enum':
      return type.values.includes(value) ? undefined : `not one of ${type.values.join(', ')}`;
    case 'uint': {
      const v = type.trim ? value.trim() : value;
      if (!uint(v, type.bits)) return `not an unsigned ${type.bits}-bit integer`;
      return type.min !== undefined && Number(v) < type.min ? `below ${type.min}` : undefined;
    }
    case 'int':
      return int(value, type.bits) ? undefined : `not a ${type.bits}-bit integer`;
    case 'float': {
      const t = value.trim();
      if (!FLOAT.test(t)) return 'not a number';
      const n = Number(t);
      return n > type.above && n < type.below ? undefined : `not between ${type.above} and ${type.below}`;
    }
    case 'port-list': {
      if (type.any !== undefined && value === type.any) return undefined;
      if (!value.trim()) return undefined;
      for (const raw of items(value.trim())) {
        const p = raw.trim();
        if (!p && type.skipEmpty) continue;
        if (!uint(p, 16) || Number(p) < type.min)
          return `'${raw}' is not a port (an integer from ${type.min} to 65535; ranges and names are not read)`;
      }
      return undefined;
    }
    case 'cidr-list': {
      if (!value || (type.any !== undefined && value === type.any)) return undefined;
      const bad = items(value).find((c) => !prefix(c));
      return bad === undefined ? undefined : `'${bad}' is not a CIDR (address/bits, no spaces)`;
    }
    case 'quantity':
      return value === value.trim() && parseQuantity(value) !== undefined ? undefined : 'not a resource quantity';
    case 'go-duration':
      return GO_DURATION.test(value) ? undefined : 'not a duration (a number with a unit: 500ms, 5s, 1m)';
    case 'pair-map': {
      for (const pair of value.split(';').slice(0, MAX_ITEMS)) {
        const kv = pair.split('=');
        if (kv.length !== 2) return `'${pair}' is not key=value (pairs are separated by ;)`;
      }
      return undefined;
    }
    case 'yaml-map':
      return parseYamlObject(value) ? undefined : 'not a YAML mapping';
    case 'json': {
      let v: unknown;
      try {
        v = JSON.parse(value);
      } catch {
        return `not JSON (a JSON ${type.of})`;
      }
      const isArray = Array.isArray(v);
      const ok = type.of === 'array' ? isArray : v !== null && typeof v === 'object' && !isArray;
      return ok ? undefined : `not a JSON ${type.of}`;
    }
    case 'upstream-list':
      return badUpstreams(value, named);
    case 'interface-list': {
      if (!value) return undefined;
      const bad = items(value).find((x) => !/^[a-zA-Z][a-zA-Z0-9_.-]{0,14}$/.test(x.trim()));
      return bad === undefined
        ? undefined
        : `'${bad}' is not an interface name (a letter, then letters, digits, _ . -, at most 15)`;
    }
    case 'name-list': {
      const bad = items(value).find((x) => x && !NAME.test(x));
      return bad === undefined ? undefined : `'${bad}' is not an object name`;
    }
  }
}

/** Consul's upstream list: the first item without a port, or whose port is no positive integer nor a named port of the pod. */
function badUpstreams(value: string, named: NamedPorts): string | undefined {
  for (const raw of items(value)) {
    const item = raw.trim();
    if (!item) continue;
    const parts = item.split(':');
    const query = parts[0]!.trim() === 'prepared_query';
    const port = (query ? parts[2] : parts[1])?.trim();
    if (port === undefined)
      return `'${item}' has no local port (${query ? 'prepared_query:<name>:<port>' : '<service>:<port>'})`;
    if (port === '') return `'${item}' has an empty local port`;
    const n = /^[0-9]{1,10}$/.test(port) ? Number(port) : undefined;
    if (n !== undefined ? n <= 0 || n > 65535 : !named.has(port))
      return `'${item}' has no valid local port ('${port}' is neither a port number nor a named port of the pod)`;
  }
  return undefined;
}

/**
 * What the injector does with this bad value: the rule's `onBad`, except where the type says a form of it makes the
 * injector panic (Consul's upstream item without a colon before 1.5).
 */
export function onBadOf(rule: KeyValueRule, value: string): KeyValueRule['onBad'] {
  if (rule.type.kind === 'upstream-list' && rule.type.panicsWithoutColon)
    return items(value).some((x) => x.trim() && !x.includes(':')) ? 'crash' : rule.onBad;
  return rule.onBad;
}

/** A type in words, for messages: "a uint16 port list", "a Kubernetes quantity". */
export function typeText(t: ValueType): string {
  switch (t.kind) {
    case 'go-bool':
      return 'a boolean (true or false)';
    case 'word-bool':
      return t.enabled ? 'enabled, disabled, true, false, yes or no' : 'true, false, yes or no';
    case 'enum':
      return `one of ${t.values.join(', ')}`;
    case 'uint':
      return t.bits === 16 ? 'a port number' : `an unsigned integer`;
    case 'int':
      return 'an integer';
    case 'float':
      return `a number between ${t.above} and ${t.below}`;
    case 'port-list':
      return `comma-separated port numbers${t.any ? ` (or ${t.any})` : ''}`;
    case 'cidr-list':
      return `comma-separated CIDRs${t.any ? ` (or ${t.any})` : ''}`;
    case 'quantity':
      return 'a Kubernetes quantity (100m, 128Mi)';
    case 'go-duration':
      return 'a duration with a unit (500ms, 5s, 1m)';
    case 'pair-map':
      return 'key=value pairs separated by ;';
    case 'yaml-map':
      return 'a YAML mapping';
    case 'json':
      return `a JSON ${t.of}`;
    case 'upstream-list':
      return 'comma-separated upstreams, each <service>:<port>[:<datacenter>]';
    case 'interface-list':
      return 'comma-separated interface names';
    case 'name-list':
      return 'comma-separated object names';
  }
}

/** The table's value rules for a release: those spanning it. Undefined release: only the keys every release reads alike. */
export function valueRules(t: ReleaseTable, release: string | undefined): KeyValueRule[] {
  const rules = t.values ?? [];
  const at = (r: string) => t.order.indexOf(r);
  if (release !== undefined && at(release) >= 0) {
    const i = at(release);
    return rules.filter((r) => i >= at(r.from) && (r.to === undefined || i <= at(r.to)));
  }
  // The release is not known: only a key every release of the table reads alike is judged (one rule from the oldest
  // release on), never a rule of some releases only (a value one release rejects, another passes on).
  const byKey = new Map<string, KeyValueRule[]>();
  for (const r of rules) {
    const k = `${r.on}\u0000${r.key}`;
    byKey.set(k, [...(byKey.get(k) ?? []), r]);
  }
  return [...byKey.values()].flatMap((rs) =>
    rs.length === 1 && rs[0]!.to === undefined && at(rs[0]!.from) === 0 ? [rs[0]!] : [],
  );
}
