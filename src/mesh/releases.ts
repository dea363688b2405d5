/**
 * Each mesh's releases as data (issue 32.4, issue 31.6-31.7): the shape of the tables in
 * src/mesh/<mesh>/releases.ts (typed constants, no functions, every row with its source) and the
 * one narrow function checks consult them through, `releaseFacts(profile, version)`. No check
 * compares version strings: a check asks what the installed release reads, injects and needs,
 * and a release outside every table is named once (`outside`) and never judged by today's rules
 * where the tables say they differ.
 */
import type { MeshProfile, VersionRead } from './profile.js';
import type {
  CompanionNeed,
  InjectedNames,
  InjectorPermission,
  KnownBug,
  OperatorInstall,
  ProxyPairing,
  ReleaseMarkers,
  ReleaseRow,
  ReleaseTable,
  ValueReading,
} from './release-table.js';
import { similar } from '../util/suggest.js';
import { nameOf, str } from '../util/objects.js';
import type { K8sObject } from '../util/types.js';
import { defineFactFamily } from '../k8s/fact.js';
import type { MeshContext } from './context.js';
import { compareSemver, containerVersion, minorRelease, podContainer, semver } from './versions.js';

/** What the installed release is, as the tables place it. */
export interface ReleaseFacts {
  /** The release of `order` ("1.5"), or undefined: outside every table (`outside` says why). */
  readonly release?: string;
  /** "Istio 1.5 (istio-sidecar-injector image docker.io/istio/sidecar_injector:1.5.0)", for evidence. */
  readonly text: string;
  /** Set when the version is outside every table: said once, never judged by today's rules. */
  readonly outside?: string;
  /** The rows that apply (in table order). */
  readonly rows: readonly ReleaseRow[];
  /** The marker keys this release reads that today's does not, beside the profile's table. */
  readonly reads: NonNullable<ReleaseRow['reads']>;
  /** The only injection markers this release reads, where they are not today's (undefined: today's). */
  readonly markers?: ReleaseMarkers;
  /** Every container name this release injects, by role (today's where no row says). */
  readonly containers?: InjectedNames;
  /** The injector's chart RBAC for injection: 'today', its needs, or undefined (outside the table: not judged). */
  readonly injectorRbac?: 'today' | readonly InjectorPermission[];
  /** Where `injectorRbac` comes from when it is not today's: the row's (or build's, distribution's) source. */
  readonly injectorRbacSource?: string;
  /** The chart's ClusterRole and ClusterRoleBinding names, where the release's are not today's (`<namespace>`: the injector's; fill with `rbacNamesIn`). */
  readonly injectorRbacNames?: NonNullable<ReleaseRow['injectorRbacNames']>;
  /** The keys of the domain this release knows (every release's where the release is outside the table). */
  readonly known: ReadonlySet<string>;
  /** Whether the release's CNI agent adds its plugin back when the node's configuration is rewritten, and the row's source. */
  readonly cniRechains?: NonNullable<ReleaseRow['cniRechains']> & { readonly source: string };
  /** What the release does with addresses outside the mesh's ranges and with IPv6 pods (the last rows that say), with their sources. */
  readonly ranges?: {
    readonly probes?: NonNullable<NonNullable<ReleaseRow['ranges']>['probes']> & { readonly source: string };
    readonly ipv6?: NonNullable<NonNullable<ReleaseRow['ranges']>['ipv6']> & { readonly source: string };
  };
}

const index = (t: ReleaseTable, r: string | undefined) => (r === undefined ? -1 : t.order.indexOf(r));

/** The row spans `release`. */
const spans = (t: ReleaseTable, row: { from: string; to?: string }, release: string) => {
  const i = index(t, release);
  return i >= index(t, row.from) && (row.to === undefined || i <= index(t, row.to));
};

/** The numbers of a version after a channel prefix ("edge-24.8.2" after "edge-": [24, 8, 2]). */
const numbers = (v: string, prefix: string) =>
  v.startsWith(prefix) ? v.slice(prefix.length).split(/[.-]/, 3).map(Number) : undefined;

const before = (a: readonly number[], b: readonly number[]) => {
  for (let i = 0; i < Math.max(a.length, b.length); i++)
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  return false;
};

/** `version` (x.y[.z]) is of a later minor release than the release name `newest` ("1.30"); false when either is no version. */
function newerThan(version: string, newest: string): boolean {
  const [v, n] = [semver(version), semver(newest)];
  return !!v && !!n && (v[0] > n[0] || (v[0] === n[0] && v[1] > n[1]));
}

/**
 * The distribution an image is of (OpenShift Service Mesh), and the release of `order` its
 * `version` is built from (undefined: a version of it the table does not map). Undefined: no
 * distribution's image.
 */
export function distributionOf(
  t: ReleaseTable,
  image: string,
  version: string,
):
  | {
      title: string;
      release?: string;
      injectorRbac?: readonly InjectorPermission[];
      injectorRbacSource?: string;
      installedBy?: OperatorInstall;
    }
  | undefined {
  const d = (t.distributions ?? []).find((x) => new RegExp(x.image).test(image));
  if (!d) return undefined;
  const hit = d.versions.find((x) => version.replace(/^v/, '').startsWith(x.prefix));
  return {
    title: d.title,
    ...(hit ? { release: hit.release } : {}),
    ...(d.injectorRbac ? { injectorRbac: d.injectorRbac } : {}),
    ...(d.injectorRbacSource ? { injectorRbacSource: d.injectorRbacSource } : {}),
    ...(d.installedBy ? { installedBy: d.installedBy } : {}),
  };
}

/** The release a version read belongs to, by the profile's own reading and the table's channels and distributions. */
function placeRelease(
  p: MeshProfile,
  t: ReleaseTable,
  read: VersionRead,
): { release?: string; via?: string; injectorRbac?: readonly InjectorPermission[]; rbacSource?: string } {
  const image = /(?:image|runs) (\S+)/.exec(read.from)?.[1];
  const d = image ? distributionOf(t, image, read.version) : undefined;
  if (d)
    return {
      release: d.release,
      via: `${d.title} ${read.version}`,
      ...(d.injectorRbac ? { injectorRbac: d.injectorRbac } : {}),
      ...(d.injectorRbacSource ? { rbacSource: d.injectorRbacSource } : {}),
    };
  for (const c of t.channels ?? []) {
    const n = numbers(read.version, c.prefix);
    if (!n || n.some((x) => !Number.isFinite(x))) continue;
    const last = [...(t.channels ?? [])].reverse().find((x) => x.prefix === c.prefix && !before(n, x.from));
    return { release: last?.release };
  }
  return { release: p.versions?.release(read.version) };
}

/**
 * What the tables say of the release a mesh's control plane runs. Undefined when the mesh has no
 * table or the version was not read (then today's rules apply, as before: nothing was examined).
 */
export function releaseFacts(p: MeshProfile, read: VersionRead | undefined): ReleaseFacts | undefined {
  const t = p.versions?.releases;
  if (!t || !read) return undefined;
  const placed = placeRelease(p, t, read);
  const newest = t.order[t.order.length - 1]!;
  // A release newer than the newest row is judged as the newest (today's rules are the newest release's), and says so.
  const beyond = !placed.via && newerThan(read.version, newest);
  const release = beyond
    ? newest
    : placed.release !== undefined && t.order.includes(placed.release)
      ? placed.release
      : undefined;
  const text = `${p.title} ${release ?? read.version}${placed.via ? ` (${placed.via})` : ''} (${read.from})`;
  if (!release) {
    return {
      text,
      outside: `${p.title} ${placed.via ?? read.version} is outside the releases meshdoctor's tables cover (${t.order[0]} to ${t.order[t.order.length - 1]}): rules that differ between releases are not judged for it`,
      rows: [],
      reads: [],
      known: new Set(t.keys.map((k) => k.key)),
    };
  }
  const rows = t.rows.filter((r) => spans(t, r, release));
  const image = /(?:image|runs) (\S+)/.exec(read.from)?.[1];
  const build = image ? t.injectorBuilds?.find((b) => new RegExp(b.image).test(image)) : undefined;
  const lastRow = <K extends keyof ReleaseRow>(k: K) => [...rows].reverse().find((r) => r[k] !== undefined);
  const last = <K extends keyof ReleaseRow>(k: K) => lastRow(k)?.[k];
  const rbacRow = lastRow('injectorRbac');
  const injectorRbac =
    build?.injectorRbac ?? placed.injectorRbac ?? (rbacRow?.injectorRbac as ReleaseFacts['injectorRbac']) ?? 'today';
  const rbacSource = build?.injectorRbac
    ? build.source
    : placed.injectorRbac
      ? placed.rbacSource
      : injectorRbac !== 'today'
        ? rbacRow?.source
        : undefined;
  const names = build || placed.injectorRbac ? undefined : last('injectorRbacNames');
  return {
    release,
    text: beyond ? `${text}, newer than the tables: judged as ${p.title} ${newest}` : text,
    rows,
    reads: rows.flatMap((r) => r.reads ?? []),
    containers: last('containers') as InjectedNames | undefined,
    ...(last('markers') ? { markers: last('markers') as ReleaseMarkers } : {}),
    injectorRbac,
    ...(rbacSource ? { injectorRbacSource: rbacSource } : {}),
    ...(names ? { injectorRbacNames: names } : {}),
    known: new Set(t.keys.filter((k) => spans(t, k, release)).map((k) => k.key)),
    ...rangesOf(rows),
    ...(lastRow('cniRechains')
      ? { cniRechains: { ...lastRow('cniRechains')!.cniRechains!, source: lastRow('cniRechains')!.source } }
      : {}),
  };
}

/** The last rows that say what the release does with the cluster's addresses (RangeBehaviour), with their sources. */
function rangesOf(rows: readonly ReleaseRow[]): Pick<ReleaseFacts, 'ranges'> {
  const probes = [...rows].reverse().find((r) => r.ranges?.probes);
  const ipv6 = [...rows].reverse().find((r) => r.ranges?.ipv6);
  if (!probes && !ipv6) return {};
  return {
    ranges: {
      ...(probes ? { probes: { ...probes.ranges!.probes!, source: probes.source } } : {}),
      ...(ipv6 ? { ipv6: { ...ipv6.ranges!.ipv6!, source: ipv6.source } } : {}),
    },
  };
}

/** A release's chart RBAC names (`injectorRbacNames`) for the injector in namespace `ns`. */
export const rbacNamesIn = (names: NonNullable<ReleaseRow['injectorRbacNames']>, ns: string) => ({
  clusterRole: names.clusterRole.replaceAll('<namespace>', ns),
  clusterRoleBinding: names.clusterRoleBinding.replaceAll('<namespace>', ns),
});

/** Per profile (profiles and their release tables are constants): asked for every pod by injectedMesh. */
const proxyNames = new WeakMap<MeshProfile, readonly string[]>();
const injectedNamesAll = new WeakMap<MeshProfile, readonly string[]>();

/** Every container name any release of the mesh injects as its proxy (an old pod keeps the name its release gave it). */
export function proxyNamesOfAllReleases(p: MeshProfile): readonly string[] {
  let names = proxyNames.get(p);
  if (!names) {
    names = Object.freeze([
      ...new Set([p.containers.proxy, ...(p.versions?.releases?.rows ?? []).flatMap((r) => r.containers?.proxy ?? [])]),
    ]);
    proxyNames.set(p, names);
  }
  return names;
}

/** Every name any release injects, as proxy, init, helper or validation container. */
export function injectedNamesOfAllReleases(p: MeshProfile): readonly string[] {
  let names = injectedNamesAll.get(p);
  if (!names) {
    names = Object.freeze([
      ...new Set(
        (p.versions?.releases?.rows ?? []).flatMap((r) =>
          r.containers
            ? [
                ...r.containers.proxy,
                ...r.containers.init,
                ...(r.containers.helpers ?? []),
                ...(r.containers.validation ?? []),
              ]
            : [],
        ),
      ),
    ]);
    injectedNamesAll.set(p, names);
  }
  return names;
}

/** The key is under one of the mesh's domains (the prefix before `/` is one, or ends in `.` and one of them). */
function inDomain(t: ReleaseTable, key: string): boolean {
  const slash = key.indexOf('/');
  if (slash <= 0) return false;
  const prefix = key.slice(0, slash);
  return t.domains.some((d) => prefix === d || (d.startsWith('.') && prefix.endsWith(d)));
}

/** The words of a key's name (after the prefix), lower-cased: `proxy-native-sidecar` -> proxy, native, sidecar. */
const words = (key: string) =>
  key
    .slice(key.indexOf('/') + 1)
    .toLowerCase()
    .split(/[-_.]/)
    .filter(Boolean)
    .slice(0, 16);

/**
 * The known keys whose name has every word of the key's, under any prefix of the domain, with the
 * fewest words added (at most two; one for a one-word name): a word left out
 * (`config.linkerd.io/proxy-native-sidecar` for `config.alpha.linkerd.io/proxy-enable-native-sidecar`,
 * linkerd/linkerd2#13205) or the name under another prefix of the mesh. Beyond the typos `similar` finds.
 */
function sameWords(key: string, known: ReadonlySet<string>): string[] {
  const w = words(key);
  if (!w.length) return [];
  const max = w.length === 1 ? 1 : 2;
  let best: string[] = [];
  let fewest = max + 1;
  for (const k of known) {
    if (k === key) continue;
    const kw = words(k);
    const extra = kw.length - w.length;
    if (extra < 0 || extra > max || !w.every((x) => kw.includes(x))) continue;
    if (extra < fewest) [best, fewest] = [[k], extra];
    else if (extra === fewest) best.push(k);
  }
  return best.sort();
}

/**
 * A key of the domain that the release (`known`: its keys; `release`: its name, when one) does
 * not know: the nearest keys it knows, what the nearest does, which releases know the key itself,
 * and whether only later releases do.
 */
export function unknownKey(
  t: ReleaseTable,
  known: ReadonlySet<string>,
  release: string | undefined,
  key: string,
): { nearest: string[]; does?: string; knownIn?: string; laterOnly: boolean } | undefined {
  if (!inDomain(t, key)) return undefined;
  // A key with a trailing dash is a prefix the mesh reads (consul.hashicorp.com/service-meta-<name>).
  if (known.has(key) || [...known].some((k) => k.endsWith('-') && key.startsWith(k))) return undefined;
  const rows = t.keys.filter((k) => k.key === key);
  const i = index(t, release);
  const laterOnly = rows.length > 0 && rows.every((k) => index(t, k.from) > i);
  const typo = similar(key, known);
  const nearest = typo.length ? typo : sameWords(key, known);
  const does = nearest.length === 1 ? t.keys.find((k) => k.key === nearest[0] && k.does)?.does : undefined;
  const knownIn = rows.length
    ? rows.map((k) => (k.to ? `${k.from} to ${k.to}` : `${k.from} and later`)).join(', ')
    : undefined;
  return { nearest, ...(does ? { does } : {}), ...(knownIn ? { knownIn } : {}), laterOnly };
}

/**
 * The known bugs (issue 31.9) whose affected versions hold the version read, among those whose
 * symptom shows on `on` (the injector's version judges its own and workloads' symptoms, a pod's
 * proxy version the pod's). None when the mesh has no table, the version was read from a
 * distribution's image (its own numbers), or the mesh cannot order it against the bug's versions
 * (another channel): a version the tables cannot place never names a bug.
 */
export function knownBugs(p: MeshProfile, read: VersionRead | undefined, on: KnownBug['symptom']['on']): KnownBug[] {
  return [...knownBugsShared(p, read, on)];
}

/** knownBugs without the copy (frozen, shared by every pod of one proxy version): for the per-pod loops that only read it. */
export function knownBugsShared(
  p: MeshProfile,
  read: VersionRead | undefined,
  on: KnownBug['symptom']['on'],
): readonly KnownBug[] {
  if (!p.versions?.releases || !read) return NO_BUGS;
  // Asked for every pod: the pods of one proxy version share the answer (a pure function of the
  // tables and these strings), kept for at most BUGS_MEMO of them per profile.
  let memo = bugsMemo.get(p);
  if (!memo) bugsMemo.set(p, (memo = new Map()));
  const key = `${on}\u0000${read.version}\u0000${read.from}`;
  let bugs = memo.get(key);
  if (!bugs) {
    bugs = Object.freeze(bugsOf(p, read, on)) as KnownBug[];
    if (memo.size < BUGS_MEMO) memo.set(key, bugs);
  }
  return bugs;
}

const NO_BUGS: readonly KnownBug[] = Object.freeze([]);

/** Every known bug of a table: its rows' and those of the releases before it (`olderBugs`). */
export const allBugs = (t: ReleaseTable | undefined): KnownBug[] => [
  ...(t?.olderBugs ?? []),
  ...(t?.rows ?? []).flatMap((r) => r.bugs ?? []),
];

const BUGS_MEMO = 1024;
const bugsMemo = new WeakMap<MeshProfile, Map<string, readonly KnownBug[]>>();

function bugsOf(p: MeshProfile, read: VersionRead, on: KnownBug['symptom']['on']): KnownBug[] {
  const t = p.versions?.releases;
  const v = p.versions;
  if (!t || !v) return [];
  const image = /(?:image|runs) (\S+)/.exec(read.from)?.[1];
  if (image && t.distributions?.some((d) => new RegExp(d.image).test(image))) return [];
  return allBugs(t).filter((b) => {
    if (b.symptom.on !== on) return false;
    const lo = v.compare(read.version, b.affected.from);
    const hi = v.compare(read.version, b.affected.to);
    return lo !== undefined && hi !== undefined && lo >= 0 && hi <= 0;
  });
}

/**
 * How the release of `version` (x.y[.z]) reads the pod template marker `key`, from the rows that
 * say (`parses`): the row spanning its minor release; a version before the first such row reads
 * as the first, one after the last as the last. Undefined when no row says, or `version` is none.
 */
export function readingOf(t: ReleaseTable, key: string, version: string): ValueReading | undefined {
  const v = semver(version);
  const rows = t.rows.flatMap((r) => (r.parses ?? []).filter((x) => x.key === key).map((x) => ({ r, x })));
  if (!v || !rows.length) return undefined;
  const at = (release: string) => {
    const n = semver(release)!;
    return n[0] - v[0] || n[1] - v[1];
  };
  const hit = rows.find(({ r }) => at(r.from) <= 0 && (r.to === undefined || at(r.to) >= 0));
  if (hit) return hit.x;
  return at(rows[0]!.r.from) > 0 ? rows[0]!.x : rows[rows.length - 1]!.x;
}

/**
 * What the tables say of the releases the mesh's injector Deployments run (those in its
 * control-plane namespaces), once per model: undefined for a Deployment whose version was not read.
 */
export const INSTALLED_RELEASES = defineFactFamily({
  id: 'installed-releases',
  inputs: ['deployments', 'mutatingwebhookconfigurations', 'namespaces', 'pods'],
  compute: (m: MeshContext, p: MeshProfile): (ReleaseFacts | undefined)[] =>
    m.has('deployments')
      ? (m.mesh(p.name)?.namespaces ?? []).flatMap((ns) =>
          m
            .inNamespace('deployments', ns)
            .filter((d) => p.controlPlane.injector.isDeployment(nameOf(d)))
            .slice(0, 16)
            .map((d) => releaseFacts(p, p.versions?.controlPlane(m, d))),
        )
      : [],
});

/**
 * The only injection markers the installed release reads, where they are not today's (Kuma 1.0 to
 * 1.4: the annotation), with the release as text: when every injector Deployment of the mesh runs a
 * release the tables place, and all of them read the same markers. Undefined otherwise (no injector
 * read, a version unread or outside the tables, releases that differ): today's markers hold.
 */
export function installedMarkers(
  m: MeshContext,
  p: MeshProfile,
): { markers: ReleaseMarkers; release: string } | undefined {
  if (!p.versions?.releases?.rows.some((r) => r.markers)) return undefined;
  const facts = m.fact(INSTALLED_RELEASES, p);
  const first = facts[0];
  if (!first?.markers || !first.release) return undefined;
  if (!facts.every((f) => f?.markers === first.markers)) return undefined;
  return { markers: first.markers, release: `${p.title} ${first.release}` };
}

/** A feature the injected container uses that the companion image the pod runs is too old for (CompanionNeed). */
export interface CompanionShortfall {
  readonly need: CompanionNeed;
  /** The companion's version, as read (its container and image). */
  readonly companion: VersionRead;
}

/** The words of a container's command and args, joined (bounded). */
const commandLine = (c: Record<string, any> | undefined): string =>
  [...(Array.isArray(c?.command) ? c.command : []), ...(Array.isArray(c?.args) ? c.args : [])]
    .slice(0, 64)
    .filter((x): x is string => typeof x === 'string')
    .join(' ')
    .slice(0, 65536);

/**
 * The features the failing injected container `failing` of `pod` uses (its command line holds
 * the rows' `needs` fragment) while the companion image the pod runs is older than they need.
 * None where the companion's version is not read, not x.y.z, or its image is another one.
 */
export function companionShortfalls(p: MeshProfile, pod: K8sObject, failing: string): CompanionShortfall[] {
  const needs = (p.versions?.releases?.rows ?? []).flatMap((r) => r.needs ?? []).filter((n) => n.fails === failing);
  if (!needs.length) return [];
  const line = commandLine(podContainer(pod, failing));
  const out: CompanionShortfall[] = [];
  for (const need of needs) {
    if (!line.includes(need.command)) continue;
    const c = podContainer(pod, need.companion.container);
    if (!new RegExp(need.companion.image).test(str(c?.image) ?? '')) continue;
    const companion = containerVersion(c, `container ${need.companion.container}`);
    const order = companion ? compareSemver(companion.version, need.companion.min) : undefined;
    if (!companion || order === undefined || order >= 0) continue;
    out.push({ need, companion });
  }
  return out;
}

/** A proxy the pod runs on a release the companion it runs beside does not support (ProxyPairing). */
export interface PairingGap {
  readonly pairing: ProxyPairing;
  /** The proxy's and the companion's versions, as read (their container and image). */
  readonly proxy: VersionRead;
  readonly companion: VersionRead;
  /** The proxy minors the companion's minor supports. */
  readonly supported: readonly string[];
  /** The flag that would allow this pair (an `onlyWith` entry), which no injected command line passes. */
  readonly withFlag?: string;
}

/**
 * The failing proxy container `failing` of `pod` runs a proxy release the companion the pod runs beside it
 * does not support, by the release tables' `pairs`: undefined where either version is not read or not x.y.z,
 * either image is another one, or the companion's release is not in the table (not judged).
 */
export function pairingGap(p: MeshProfile, pod: K8sObject, failing: string): PairingGap | undefined {
  const pairs = (p.versions?.releases?.rows ?? [])
    .flatMap((r) => r.pairs ?? [])
    .filter((x) => x.proxy.containers.includes(failing));
  for (const pairing of pairs) {
    const pc = podContainer(pod, failing);
    if (!new RegExp(pairing.proxy.image).test(str(pc?.image) ?? '')) continue;
    const proxy = containerVersion(pc, `container ${failing}`);
    const name = pairing.companion.containers.find((n) =>
      new RegExp(pairing.companion.image).test(str(podContainer(pod, n)?.image) ?? ''),
    );
    const companion = name ? containerVersion(podContainer(pod, name), `container ${name}`) : undefined;
    const [pm, cm] = [proxy && minorRelease(proxy.version), companion && minorRelease(companion.version)];
    const supported = cm ? pairing.supports[cm] : undefined;
    if (!proxy || !companion || !pm || !supported || supported.includes(pm)) continue;
    // Allowed only with a flag the injected command lines pass (bounded: the pod's named containers).
    const lines = [...pairing.companion.containers, ...pairing.proxy.containers]
      .map((n) => commandLine(podContainer(pod, n)))
      .join(' ');
    const only = (pairing.onlyWith ?? []).find((o) => o.companion === cm && o.proxy === pm);
    if (only && lines.includes(only.flag)) continue;
    return { pairing, proxy, companion, supported, ...(only ? { withFlag: only.flag } : {}) };
  }
  return undefined;
}
