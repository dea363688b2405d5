/**
 * References (issue 31, gen9refs): markers and settings whose values NAME an object that must exist
 * (a Mesh, a ContainerPatch, a ConfigMap, the ServiceAccount a service name must be). Each mesh keeps
 * one table of them (src/mesh/<mesh>/references.ts, rows spanning its releases); this file reads a
 * table's markers off a workload's pod template and namespace. The facts layer resolves them
 * (src/facts/references.ts): found, missing (only where the kind was read there), not the one in use,
 * or not read. "Not read" is never "missing".
 */
import { isIP } from 'node:net';
import { cmd, comment, type Step } from '../fix/steps.js';
import type { KindKey } from '../k8s/kinds.js';
import type { Workload } from '../k8s/workloads.js';
import { annotationsOf, labelsOf, str } from '../util/objects.js';
import { parseYamlObject, valueAt } from './config-values.js';
import type { MeshContext } from './context.js';
import type { MeshName } from './names.js';

/** What these helpers read of a mesh's profile (profile.ts imports this file: no import back). */
export interface ProfileOfRefs {
  readonly name: MeshName;
  readonly versions?: { readonly releases?: { readonly order: readonly string[] } };
}

/** Where a marker is read: the pod template's labels or annotations, or its namespace's. */
type RefPlace = 'template annotation' | 'template label' | 'namespace annotation' | 'namespace label';

/** The object a reference names, and where it must live. */
interface RefTarget {
  /** The kind as the mesh names it ("Mesh", "ContainerPatch", "ServiceAccount"). */
  readonly title: string;
  /** The kind meshdoctor reads for it, if any: none means it is never read, so never found missing. */
  readonly kind?: KindKey;
  /** Where it must be: cluster-scoped, the pod's namespace, or the mesh's control-plane namespace. */
  readonly scope: 'cluster' | 'pod namespace' | 'control plane namespace';
}

/** A row of a mesh's reference table. */
interface ReferenceRow {
  /** The marker key. */
  readonly key: string;
  /** Where the mesh reads it, the first place holding it wins. */
  readonly on: readonly RefPlace[];
  /** A comma-separated list of names. */
  readonly list?: boolean;
  readonly target: RefTarget;
  /** The releases of the mesh's table that read it (undefined: all). */
  readonly from?: string;
  readonly to?: string;
  /** What the mesh does when no such object exists, a clause ("the injector fails on the pod"). */
  readonly missing: string;
  /** Repository, file and tag or commit the row comes from. */
  readonly source: string;
  /** How to list the objects of the kind (a kubectl resource name), for fixes. */
  readonly resource: string;
  /** Names the mesh's control plane creates itself (Kuma's Mesh default): never named as a reference to check. */
  readonly created?: readonly string[];
  /**
   * The value is an address, host or host:port (issue 31, gen12refs), naming a Service the proxy resolves by DNS
   * from the pod: `name` in the pod's namespace (the resolver's search path), `name.ns`, `name.ns.svc[.domain]`.
   * An IP address, or a dotted name whose second label is no namespace of the cluster (an external host), is not judged.
   */
  readonly form?: 'host';
  /** The value is YAML (or JSON) and the reference is the field at this path of it (proxy.istio.io/config). */
  readonly field?: readonly string[];
  /** What the mesh does without it degrades the proxy without stopping it (traces dropped): a warning. */
  readonly severity?: 'warning';
}

/** One reference a workload makes. */
export interface Reference {
  /** The marker key, or the setting's name. */
  readonly key: string;
  /** Where it was read, in words ("pod template annotation kuma.io/mesh=trading"). */
  readonly said: string;
  readonly value: string;
  readonly target: RefTarget & { readonly namespace?: string; readonly name: string };
  /** The object must be this one (the pod's ServiceAccount): compared, not looked up. */
  readonly mustBe?: { readonly name: string; readonly field: string };
  readonly missing: string;
  readonly source: string;
  /** The exact fix: list the objects of the kind, or correct the marker. */
  readonly fix: Step[];
  /** The marker is one the injected pods keep: a meshed pod without it was injected without the object. */
  readonly keptOnPod?: boolean;
  /** An address (a row's form host): the host:port as written. */
  readonly address?: string;
  readonly severity?: 'warning';
}

/** A reference the mesh's configuration makes: on the object holding it. */
export interface ConfigReference extends Reference {
  readonly object: { readonly kind: string; readonly namespace: string; readonly name: string };
  /**
   * The value is a short name of a Service that exists, where the mesh needs its registry hostname (Istio's
   * extension providers): the hostname it should have named. The Service exists; the name does not reach it.
   */
  readonly registryName?: string;
}

/** A mesh's references: its table, and what cannot be a row (a name that must equal another). */
export interface References {
  readonly rows: readonly ReferenceRow[];
  /** References beyond the rows (Consul's service name against the pod's ServiceAccount). */
  readonly more?: (m: MeshContext, w: Workload, p: ProfileOfRefs, release: string | undefined) => Reference[];
  /**
   * A namespace label whose value names the control plane the namespace is a member of, set by the
   * mesh's own controller from a list of members (OpenShift Service Mesh's member roll): the planes an
   * installed webhook requires as its value, what sets it, and the fix making a namespace a member.
   */
  readonly membership?: {
    readonly label: string;
    /** "the ServiceMeshMemberRoll default in the control plane's namespace". */
    readonly setBy: string;
    readonly planes: (m: MeshContext) => string[];
    readonly fix: (ns: string, plane: string) => Step[];
    readonly source: string;
  };
  /**
   * References the mesh's own configuration makes for all its proxies (Istio's mesh ConfigMap discoveryAddress):
   * judged once, on the object holding them.
   */
  readonly config?: (m: MeshContext) => ConfigReference[];
  /** The fix for a reference of a row, by the profile. */
  readonly fix: (m: MeshContext, w: Workload, r: Omit<Reference, 'fix'>, row: ReferenceRow) => Step[];
}

/** The table's rows spanning `release` (releases.ts spans, by the table's order). */
function spans(order: readonly string[], span: { from?: string; to?: string }, release: string): boolean {
  const i = order.indexOf(release);
  return (
    i >= 0 && i >= (span.from ? order.indexOf(span.from) : 0) && (span.to === undefined || i <= order.indexOf(span.to))
  );
}

/** The release (of the mesh's table) is within from..to (false when no release is placed). */
export function releaseWithin(
  p: ProfileOfRefs,
  release: string | undefined,
  span: { from: string; to?: string },
): boolean {
  const t = p.versions?.releases;
  return !!t && !!release && spans(t.order, span, release);
}

/** The rows the installed release reads: every row when no release is placed (today's rules, as elsewhere). */
function rowsOfRelease(p: ProfileOfRefs, release: string | undefined, rows: readonly ReferenceRow[]): ReferenceRow[] {
  const t = p.versions?.releases;
  return !t || !release ? [...rows] : rows.filter((r) => spans(t.order, r, release));
}

/** At most this many names are read from one list marker. */
const MAX_NAMES = 16;

/**
 * The references a workload's markers make, by a mesh's rows. `release`: the release of the mesh's
 * table its injectors run (the facts layer places it), undefined when not placed.
 */
export function markerReferences(
  m: MeshContext,
  p: ProfileOfRefs,
  w: Workload,
  refs: References,
  release: string | undefined,
): Reference[] {
  const ns = m.namespace(w.namespace);
  const maps: Record<RefPlace, Record<string, string>> = {
    'template annotation': annotationsOf(w.template),
    'template label': labelsOf(w.template),
    'namespace annotation': ns ? annotationsOf(ns) : {},
    'namespace label': ns ? labelsOf(ns) : {},
  };
  const cp = m.mesh(p.name)?.namespaces[0];
  const out: Reference[] = [];
  for (const row of rowsOfRelease(p, release, refs.rows)) {
    // The first place holding the key (and, for a row naming a field of its value, the field) wins.
    let found: { place: RefPlace; raw: string; said: string } | undefined;
    for (const place of row.on) {
      const raw = maps[place][row.key];
      if (raw === undefined) continue;
      const v = row.field ? str(valueAt(parseYamlObject(raw), ...row.field)) : raw;
      if (!v) continue;
      const where = place.startsWith('template') ? `pod template ${place.slice('template '.length)}` : place;
      const written = row.field ? `${row.key} ${row.field.join('.')}: ${v}` : `${row.key}=${raw}`;
      const said = place.startsWith('namespace')
        ? `namespace ${w.namespace} has ${where.slice('namespace '.length)} ${written}`
        : `${where} ${written}`;
      found = { place, raw: v, said };
      break;
    }
    if (!found) continue;
    const { place, raw, said } = found;
    if (row.form === 'host') {
      const host = serviceOfHost(m, raw, w.namespace);
      if (!host) continue;
      const r = {
        key: row.key,
        said,
        value: raw,
        address: raw,
        target: { ...row.target, namespace: host.namespace, name: host.name },
        missing: row.missing,
        source: row.source,
        keptOnPod: place === 'template annotation',
        ...(row.severity ? { severity: row.severity } : {}),
      };
      out.push({ ...r, fix: refs.fix(m, w, r, row) });
      continue;
    }
    const names = (row.list ? raw.split(',') : [raw])
      .map((s) => s.trim())
      .filter(Boolean)
      .slice(0, MAX_NAMES);
    for (const name of names) {
      if (row.created?.includes(name)) continue;
      const namespace =
        row.target.scope === 'pod namespace'
          ? w.namespace
          : row.target.scope === 'control plane namespace'
            ? cp
            : undefined;
      // The control plane's namespace is not known: the object cannot be looked for.
      if (row.target.scope === 'control plane namespace' && !namespace) continue;
      const r = {
        key: row.key,
        said,
        value: raw,
        target: { ...row.target, ...(namespace ? { namespace } : {}), name },
        missing: row.missing,
        source: row.source,
        keptOnPod: place === 'template annotation' || place === 'template label',
        ...(row.severity ? { severity: row.severity } : {}),
      };
      out.push({ ...r, fix: refs.fix(m, w, r, row) });
    }
  }
  return [...out, ...(refs.more?.(m, w, p, release) ?? [])];
}

/** A DNS label (a Service's or a namespace's name). */
const LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * The Service a host or host:port names, as the pod's resolver reads it (kubelet's resolv.conf for dnsPolicy
 * ClusterFirst: search <ns>.svc.<domain> svc.<domain> <domain>): `name` in the pod's namespace; `name.ns`;
 * `name.ns.svc` and `name.ns.svc.<domain>`. Undefined where it names no Service for sure: an IP address, a
 * template variable, a dotted name whose second label is neither a namespace of the cluster nor holds a Service of
 * that name (an external host such as collector.example.com).
 */
export function serviceOfHost(
  m: MeshContext,
  address: string,
  podNamespace: string,
): { name: string; namespace: string } | undefined {
  const a = address.trim();
  // host:port, [v6]:port, or a bare host; a scheme (http://) is not an address these keys take.
  if (!a || a.startsWith('[') || a.includes('/') || a.includes('$')) return undefined;
  const colon = a.lastIndexOf(':');
  const host = (colon >= 0 ? a.slice(0, colon) : a).replace(/\.$/, '').toLowerCase();
  if (colon >= 0 && !/^[0-9]{1,5}$/.test(a.slice(colon + 1))) return undefined;
  if (isIP(host) || host === 'localhost') return undefined;
  const labels = host.split('.');
  if (!labels.every((l) => LABEL.test(l))) return undefined;
  const [name, ns] = labels as [string, string | undefined];
  if (labels.length === 1) return { name, namespace: podNamespace };
  if (labels.length >= 3 && labels[2] === 'svc') return { name, namespace: ns! };
  if (
    labels.length === 2 &&
    (m.namespace(ns!) ||
      m.list('services').some((s) => s.metadata?.name === name && m.seesNamespace(str(s.metadata?.namespace) ?? '')))
  )
    return { name, namespace: ns! };
  return undefined;
}

/** The fix for an address naming no Service: list the Services of the name, then write the address naming one. */
export function addressFix(r: Omit<Reference, 'fix'>): Step[] {
  return [
    comment`write the address as name.namespace.svc:port of a Service that exists, or create Service ${r.target.name} in namespace ${r.target.namespace ?? ''}`,
    cmd`kubectl get services -A --field-selector metadata.name=${r.target.name}`,
  ];
}
