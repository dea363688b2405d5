/**
 * The releases a mesh's injectors run, as the mesh's release tables place them (issue 32.4):
 * the one place facts and checks learn what the installed release reads, injects and needs
 * (src/mesh/releases.ts releaseFacts). No version string is compared here or in any check.
 */
import { defineFactFamily, inputsOf } from '../k8s/fact.js';
import type { K8sObject } from '../util/types.js';
import { nameOf } from '../util/objects.js';
import type { MeshName } from '../mesh/names.js';
import { profileOf } from '../mesh/registry.js';
import { releaseFacts, type ReleaseFacts } from '../mesh/releases.js';
import type { InjectedNames, KeyValueRule } from '../mesh/release-table.js';
import { badValue, onBadOf, valueRules } from '../mesh/key-values.js';
import { annotationsOf, isObj, labelsOf, str } from '../util/objects.js';
import type { Workload } from './model.js';
import { INJECTOR_INPUTS, injectors, type Injector } from './controlplane.js';
import type { Model } from './model.js';

/** One injector Deployment and what the tables say of its release (undefined: its version was not read). */
interface InjectorRelease {
  injector: Injector;
  facts?: ReleaseFacts;
}

export const INJECTOR_RELEASES = defineFactFamily({
  id: 'injector-releases',
  inputs: [...INJECTOR_INPUTS, 'configmaps'],
  compute: (m: Model, mesh: MeshName): InjectorRelease[] => {
    const p = profileOf(mesh);
    return injectors(m, mesh)
      .filter((i) => i.deployment)
      .map((injector) => {
        const read = p.versions?.controlPlane(m, injector.deployment as K8sObject);
        const facts = releaseFacts(p, read);
        return { injector, ...(facts ? { facts } : {}) };
      });
  },
});

/** Every injector Deployment of the mesh with its release facts. */
function injectorReleases(m: Model, mesh: MeshName): InjectorRelease[] {
  return m.fact(INJECTOR_RELEASES, mesh);
}

/** The release facts of one injector Deployment (undefined: its version was not read, or the mesh has no table). */
export const releaseOfInjector = (
  m: Model,
  mesh: MeshName,
  deployment: K8sObject | undefined,
): ReleaseFacts | undefined => injectorReleases(m, mesh).find((r) => r.injector.deployment === deployment)?.facts;

/**
 * The containers the installed release injects, by role, where they are not today's (consul-k8s
 * 0.x's envoy-sidecar): when every injector Deployment of the mesh (found from its webhooks,
 * src/facts/controlplane.ts) runs a release the tables place and all of them say the same.
 * Undefined otherwise: today's names (the profile's) hold.
 */
export function installedContainers(m: Model, mesh: MeshName): InjectedNames | undefined {
  if (!profileOf(mesh).versions?.releases?.rows.some((r) => r.containers)) return undefined;
  const rs = injectorReleases(m, mesh);
  const first = rs[0]?.facts?.containers;
  return first && rs.every((r) => r.facts?.containers === first) ? first : undefined;
}

/**
 * Whether the installed release's CNI node agent adds its plugin back when the node's CNI configuration is rewritten
 * (the release tables' `cniRechains`): when every injector Deployment of the mesh runs a release the tables place and
 * all of them say the same; undefined otherwise (not read, or the tables do not say).
 */
export function cniRechains(m: Model, mesh: MeshName): ReleaseFacts['cniRechains'] {
  const rs = injectorReleases(m, mesh);
  const first = rs[0]?.facts?.cniRechains;
  return first && rs.every((r) => r.facts?.cniRechains?.readds === first.readds) ? first : undefined;
}

const RELEASE_READS = defineFactFamily({
  id: 'release-reads',
  inputs: ['deployments', 'mutatingwebhookconfigurations', 'namespaces', 'pods'],
  compute: (m: Model, mesh: MeshName) => {
    const p = profileOf(mesh);
    return m.has('deployments')
      ? (m.mesh(mesh)?.namespaces ?? []).flatMap((ns) =>
          m
            .inNamespace('deployments', ns)
            .filter((d) => p.controlPlane.injector.isDeployment(nameOf(d)))
            .map((d) => releaseFacts(p, p.versions?.controlPlane(m, d))),
        )
      : [];
  },
});

/**
 * Some installed injector of the mesh may still read this marker key where today's release no
 * longer does (Kuma 1.x's annotation): true when one of them runs such a release, and when which
 * release runs cannot be told (no injector Deployment read, its version unread or outside the
 * tables): a marker only some releases read is then not called a mistake. False when no release
 * of the table reads it (today's rules hold for every release).
 */
export function someReleaseReads(m: Model, mesh: MeshName, key: { field: string; key: string; on: string }): boolean {
  const p = profileOf(mesh);
  const same = (x: { field: string; key: string; on: string }) =>
    x.field === key.field && x.key === key.key && x.on === key.on;
  if (!p.versions?.releases?.rows.some((r) => r.reads?.some(same))) return false;
  // Only the Deployments are read (no Service: the marker checks do not declare them): the
  // injector Deployments in the mesh's namespaces.
  const facts = m.fact(RELEASE_READS, mesh);
  return !facts.length || facts.some((f) => !f?.release || f.reads.some(same));
}

export const KNOWN_KEYS = defineFactFamily({
  id: 'known-keys',
  inputs: [...INJECTOR_INPUTS, 'configmaps'],
  compute: (m: Model, mesh: MeshName): KnownKeys | undefined => {
    const p = profileOf(mesh);
    const t = p.versions?.releases;
    if (!t) return undefined;
    const rs = injectorReleases(m, mesh);
    const facts = rs.flatMap((r) => (r.facts ? [r.facts] : []));
    const placed = facts.filter((f) => f.release !== undefined && !f.outside);
    const unread = rs.length === 0 || rs.some((r) => !r.facts);
    const outside = facts.find((f) => f.outside);
    const all = !placed.length || unread || outside !== undefined;
    const tabled = all ? new Set(t.keys.map((k) => k.key)) : new Set(placed.flatMap((f) => [...f.known]));
    // The installed injection templates, where the profile reads them: a key they mention is read, a
    // template-only key they do not mention is not, whatever the tables say (they trail the code).
    const tk = p.versions?.templateKeys?.(m);
    const lacks = tk ? (t.templateOnly?.keys ?? []).filter((k) => !tk.keys.has(k)) : [];
    const known = tk ? new Set([...tabled, ...tk.keys].filter((k) => !lacks.includes(k))) : tabled;
    const note = outside
      ? outside.outside
      : unread
        ? `the version of ${rs.length ? 'an injector' : 'the injector'} was not read: keys were checked against every release meshdoctor's tables cover (${t.order[0]} to ${t.order[t.order.length - 1]})`
        : undefined;
    return {
      facts: placed,
      known,
      releases: [...new Set(placed.map((f) => f.release!))],
      ...(note ? { note } : {}),
      ...(tk ? { template: { from: tk.from, lacks, source: t.templateOnly?.source ?? '' } } : {}),
    };
  },
});

/** What the installed release knows of its domain's keys (KNOWN_KEYS). */
interface KnownKeys {
  facts: ReleaseFacts[];
  known: ReadonlySet<string>;
  releases: string[];
  note?: string;
  /** The installed injection templates read (the profile's templateKeys): the template-only keys they do not read. */
  template?: { from: string; lacks: readonly string[]; source: string };
}

/**
 * The keys of a mesh's domain its installed release knows, for judging keys nobody reads
 * (issue 31.6): the union over its injectors' releases (a key any of them knows is read), the
 * release names, and a note when some injector's version was not read or is outside the tables
 * (then every release's keys count as known: only keys no release knows are named).
 */
export function knownKeys(m: Model, mesh: MeshName): KnownKeys | undefined {
  const t = profileOf(mesh).versions?.releases;
  if (!t) return undefined;
  return m.fact(KNOWN_KEYS, mesh);
}

/**
 * The value rules of a mesh's known keys for its installed release (issue 31, gen10values: `ReleaseTable.values`,
 * src/mesh/key-values.ts), with the release as text: the rules of the one release its injectors run, else (releases
 * unread, outside the tables, or several) those of the newest release that has each key, and a note saying so.
 * Only keys the installed release knows (KNOWN_KEYS, the installed templates included) are judged.
 */
function computeValueRules(m: Model, mesh: MeshName): InstalledValueRules | undefined {
  const p = profileOf(mesh);
  const t = p.versions?.releases;
  const k = knownKeys(m, mesh);
  if (!t?.values?.length || !k) return undefined;
  const one = k.releases.length === 1 ? k.releases[0] : undefined;
  const rules = valueRules(t, one).filter((r) => k.known.has(r.key));
  const note =
    k.note ??
    (k.releases.length > 1
      ? `the injectors run several releases (${k.releases.join(', ')}): only the keys every release reads alike were judged`
      : undefined);
  return { rules, release: one ? `${p.title} ${one}` : p.title, ...(note ? { note } : {}) };
}

interface InstalledValueRules {
  rules: KeyValueRule[];
  release: string;
  note?: string;
}

/** Per mesh, once per model (asked per workload by badTemplateValues). */
export const VALUE_RULES = defineFactFamily({
  id: 'value-rules',
  inputs: inputsOf(KNOWN_KEYS),
  compute: (m: Model, mesh: MeshName): InstalledValueRules | undefined => computeValueRules(m, mesh),
});

export const installedValueRules = (m: Model, mesh: MeshName): InstalledValueRules | undefined =>
  m.fact(VALUE_RULES, mesh);

/** The named ports of a pod spec's containers (Consul's upstream ports may name one). */
function namedPorts(spec: unknown): Set<string> {
  const out = new Set<string>();
  if (!isObj(spec)) return out;
  for (const list of [spec.containers, spec.initContainers])
    for (const c of Array.isArray(list) ? list.slice(0, 64) : [])
      for (const p of isObj(c) && Array.isArray(c.ports) ? c.ports.slice(0, 64) : [])
        if (isObj(p) && str(p.name)) out.add(str(p.name)!);
  return out;
}

/** One known key of a pod template (or bare pod) whose value the installed release cannot parse. */
interface BadValue {
  rule: KeyValueRule;
  value: string;
  why: string;
  onBad: KeyValueRule['onBad'];
}

/** At most this many bad values per workload are named (bounded: the template's metadata is untrusted). */
const MAX_BAD = 64;

/**
 * The known keys of a workload's pod template whose value the installed release of `mesh` cannot parse, where the
 * mesh's webhook is called for its pods (an `ignore` only where the pod is injected: else nothing reads it).
 * Shared by mesh-key-value-invalid (which names them) and webhook-denied (which links a denial to them).
 */
export function badTemplateValues(m: Model, w: Workload, mesh: MeshName): BadValue[] {
  const installed = installedValueRules(m, mesh);
  if (!installed?.rules.length || profileOf(mesh).controlPlane.isWorkload(labelsOf(w.template))) return [];
  const labels = labelsOf(w.template);
  const annotations = annotationsOf(w.template);
  const found: BadValue[] = [];
  let ports: Set<string> | undefined;
  for (const rule of installed.rules) {
    if (rule.where && !rule.where.includes('pod')) continue;
    const map = rule.on === 'label' ? labels : annotations;
    if (!Object.hasOwn(map, rule.key)) continue;
    const value = map[rule.key] ?? '';
    if (rule.type.kind === 'upstream-list') ports ??= namedPorts((w.template as { spec?: unknown }).spec);
    const why = badValue(rule.type, value, ports);
    if (why !== undefined) found.push({ rule, value, why, onBad: onBadOf(rule, value) });
    if (found.length >= MAX_BAD) break;
  }
  if (!found.length) return [];
  const d = m.decision(w, mesh);
  if (!d?.called) return [];
  return found.filter((b) => b.onBad !== 'ignore' || d.inject);
}

/**
 * What the installed release does with addresses outside the mesh's ranges and with IPv6 pods (the release tables'
 * `ranges`, issue 31 gen10net), with the release's text for evidence: the first injector Deployment whose release the
 * tables place (undefined: none read or placed, nothing judged).
 */
export function installedRanges(
  m: Model,
  mesh: MeshName,
): { ranges: NonNullable<ReleaseFacts['ranges']>; release: string } | undefined {
  const r = injectorReleases(m, mesh).find((x) => x.facts?.ranges);
  return r?.facts?.ranges ? { ranges: r.facts.ranges, release: r.facts.text } : undefined;
}
