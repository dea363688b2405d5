/**
 * The generic resolver of references (issue 31, gen9refs): every marker or setting of an app
 * workload that names an object that must exist (each mesh's table, src/mesh/<mesh>/references.ts),
 * resolved against what the snapshot holds:
 * - `mismatch`: the name must be one the pod uses (its ServiceAccount) and is another;
 * - `missing`: the kind was read in the object's namespace (listed whole, not only by name) and no
 *   object has the name;
 * - `found`;
 * - `not-read`: the kind is not read there, or never (a mesh's own resources): never "missing".
 * Only for workloads that ask the mesh for injection (its decision's intent).
 */
import { defineFact, defineFactFamily } from '../k8s/fact.js';
import { KINDS } from '../k8s/kinds.js';
import type { Workload } from '../k8s/workloads.js';
import type { MeshName } from '../mesh/names.js';
import { markerReferences, type ConfigReference, type Reference } from '../mesh/references.js';
import { PROFILE_LIST } from '../mesh/registry.js';
import { WORKLOAD_DECISION_INPUTS } from './decision.js';
import type { Model } from './model.js';
import { INJECTOR_INPUTS } from './controlplane.js';
import { INJECTOR_RELEASES } from './releases.js';

/** The release of the mesh's table every injector of the mesh runs (undefined: none, not placed, or they differ). */
function placedRelease(m: Model, mesh: MeshName): string | undefined {
  const rs = m.fact(INJECTOR_RELEASES, mesh).map((r) => r.facts?.release);
  const first = rs[0];
  return first && rs.every((r) => r === first) ? first : undefined;
}

interface ResolvedReference {
  readonly mesh: MeshName;
  readonly ref: Reference;
  readonly state: 'found' | 'missing' | 'mismatch' | 'not-read';
  /** Why the kind was not read (not-read), or what was read (missing). */
  readonly why: string;
  /** A missing Service: the namespaces where one of its name is (seen ones, at most three). */
  readonly elsewhere?: readonly string[];
  /** A missing Service: its namespace does not exist (Namespaces were read). */
  readonly noNamespace?: boolean;
  /**
   * Not read because this run could not or was not asked to (a refused list, a namespace outside `-n`): the run's
   * coverage names it; a finding would say what reading everything may not (the kind meshdoctor never reads is not).
   */
  readonly unreadHere?: true;
}

/** At most this many other namespaces holding a Service of the name are said. */
const MAX_ELSEWHERE = 3;

function resolve(
  m: Model,
  ref: Reference,
): Pick<ResolvedReference, 'state' | 'why' | 'elsewhere' | 'noNamespace' | 'unreadHere'> {
  const t = ref.target;
  if (ref.mustBe)
    return ref.mustBe.name === t.name
      ? { state: 'found', why: '' }
      : { state: 'mismatch', why: `${ref.mustBe.field} is ${ref.mustBe.name}` };
  if (!t.kind) return { state: 'not-read', why: `meshdoctor does not read ${t.title} objects` };
  const ns = t.namespace ?? '';
  // A kind read only by name (ConfigMaps, Secrets in the meshes' namespaces) is not listed: absence says nothing.
  if (KINDS[t.kind].byName)
    return { state: 'not-read', why: `meshdoctor reads ${t.kind} only by name, in the meshes' own namespaces` };
  // A namespace this run does not list (`check -n` elsewhere): its objects are unknown, not absent.
  if (ns && !m.seesNamespace(ns))
    return {
      state: 'not-read',
      why: `${t.kind} in namespace ${ns} were not read in this run (its scope)`,
      unreadHere: true,
    };
  const unread = m.unread(t.kind, ns);
  if (unread) return { state: 'not-read', why: `${t.title} objects were not read (${unread})`, unreadHere: true };
  if (m.get(t.kind, ns, t.name)) return { state: 'found', why: '' };
  const missing = {
    state: 'missing' as const,
    why: `${t.kind}${t.namespace ? ` in namespace ${t.namespace}` : ''} were read`,
  };
  if (t.kind !== 'services') return missing;
  // An address: where a Service of the name is (the namespace the value left out or got wrong).
  const elsewhere = m
    .list('services')
    .filter(
      (s) =>
        s.metadata?.name === t.name && s.metadata?.namespace !== ns && m.seesNamespace(s.metadata?.namespace ?? ''),
    )
    .map((s) => s.metadata!.namespace!)
    .sort()
    .slice(0, MAX_ELSEWHERE);
  const noNamespace = !m.unread('namespaces') && !m.namespace(ns);
  return { ...missing, ...(elsewhere.length ? { elsewhere } : {}), ...(noNamespace ? { noNamespace } : {}) };
}

/** The references a workload makes, resolved, for every mesh it asks for injection. */
export const REFERENCES = defineFactFamily({
  id: 'references',
  inputs: [...new Set([...WORKLOAD_DECISION_INPUTS, ...INJECTOR_INPUTS, 'configmaps' as const, 'services' as const])],
  cacheKey: (w: Workload) => `${w.kind}/${w.namespace}/${w.name}`,
  compute: (m: Model, w: Workload): ResolvedReference[] => {
    const out: ResolvedReference[] = [];
    for (const p of PROFILE_LIST) {
      if (!p.references || !m.meshPossible(p.name)) continue;
      const d = m.decision(w, p.name);
      // The pod reaches the mesh's injector, or asks the mesh for injection.
      if (!d?.called && !d?.intent && !d?.inject) continue;
      for (const ref of markerReferences(m, p, w, p.references, placedRelease(m, p.name)))
        out.push({ mesh: p.name, ref, ...resolve(m, ref) });
    }
    return out;
  },
});

/** The references each installed mesh's own configuration makes (Istio's mesh ConfigMap discoveryAddress), resolved. */
export const CONFIG_REFERENCES = defineFact({
  id: 'config-references',
  inputs: ['configmaps', 'services', 'namespaces', 'mutatingwebhookconfigurations', ...INJECTOR_INPUTS],
  compute: (m: Model): (Omit<ResolvedReference, 'ref'> & { ref: ConfigReference })[] =>
    PROFILE_LIST.flatMap((p) =>
      p.references?.config && m.mesh(p.name)
        ? p.references.config(m).map((ref) => {
            const r = resolve(m, ref);
            // A short name of a Service that exists, where the mesh looks up registry hostnames: not reached.
            return ref.registryName && r.state === 'found'
              ? { mesh: p.name, ref, state: 'missing' as const, why: `registered as ${ref.registryName}` }
              : { mesh: p.name, ref, ...r };
          })
        : [],
    ),
});
