/**
 * The mesh's own configuration as its install stored it, judged against the release its injectors run (issue 31.6
 * and 31.7, gen13values): the release tables' `stored` rules (src/mesh/<mesh>/releases.ts, each with its source) name
 * a value of a ConfigMap's Helm values that those releases read as another type or do not ship (a boolean where the
 * injection template reads an object, an image no release publishes), or an image the injector takes from its own
 * settings that no registry serves any more. Nothing is said here on its own: the checks that see the symptom (the
 * injector refusing pods, webhook-denied; an injected container whose image cannot be pulled, proxy-cannot-start) ask
 * which stored value caused it and name it.
 * A rule applies only where every injector's release was read and the tables place it within the rule's span: a
 * version not read, or outside the tables, judges nothing (never claimed).
 */
import { inputsOf } from '../k8s/fact.js';
import { defineFactFamily } from '../k8s/fact.js';
import type { MeshName } from '../mesh/names.js';
import { profileOf } from '../mesh/registry.js';
import type { ReleaseTable, StoredValueRule } from '../mesh/release-table.js';
import { configKey, valueAt } from '../mesh/config-values.js';
import { isObj, nameOf } from '../util/objects.js';
import { printable } from '../util/errors.js';
import { KNOWN_KEYS, knownKeys } from './releases.js';
import type { Model } from './model.js';

/** A stored value a rule names, as read: where, and the value (shortened, printable). */
interface StoredProblem {
  rule: StoredValueRule;
  /** `namespace/name` of the ConfigMap. */
  configMap: string;
  value: string;
}

interface StoredValues {
  /** The rules that apply to the installed release. */
  rules: StoredValueRule[];
  problems: StoredProblem[];
  /** The release, as text ("Istio 1.22"). */
  release: string;
}

/** At most this many ConfigMaps per namespace and namespaces per mesh are read. */
const MAX_OBJECTS = 256;

const span = (t: ReleaseTable, r: StoredValueRule, release: string) => {
  const i = t.order.indexOf(release);
  const from = t.order.indexOf(r.from);
  const to = r.to === undefined ? t.order.length - 1 : t.order.indexOf(r.to);
  return i >= 0 && from >= 0 && to >= 0 && i >= from && i <= to;
};

/** Whether a stored value is one the rule says its releases cannot use. */
export function isBad(bad: StoredValueRule['bad'], v: unknown): boolean {
  if (v === undefined || v === null) return false;
  const type = typeof v === 'boolean' ? 'boolean' : typeof v === 'number' ? 'number' : isObj(v) ? 'object' : 'string';
  if (bad.type && type !== bad.type) return false;
  if (bad.matches || bad.unless) {
    if (typeof v !== 'string') return false;
    const s = v.slice(0, 1000);
    if (bad.matches && !new RegExp(bad.matches).test(s)) return false;
    if (bad.unless && new RegExp(bad.unless).test(s)) return false;
  }
  return bad.type !== undefined || bad.matches !== undefined || bad.unless !== undefined;
}

const shown = (v: unknown) =>
  printable(typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v)), 100);

export const STORED_VALUES = defineFactFamily({
  id: 'stored-values',
  inputs: inputsOf(KNOWN_KEYS, ['configmaps']),
  compute: (m: Model, mesh: MeshName): StoredValues | undefined => {
    const p = profileOf(mesh);
    const t = p.versions?.releases;
    if (!t?.stored?.length) return undefined;
    const k = knownKeys(m, mesh);
    // Every injector's release read and placed: else nothing is judged.
    if (!k || k.note || !k.releases.length) return undefined;
    const rules = t.stored.filter((r) => k.releases.every((rel) => span(t, r, rel)));
    if (!rules.length) return undefined;
    const problems: StoredProblem[] = [];
    for (const ns of (m.mesh(mesh)?.namespaces ?? []).slice(0, 8))
      for (const cm of m.inNamespace('configmaps', ns).slice(0, MAX_OBJECTS)) {
        const name = nameOf(cm);
        for (const r of rules) {
          if (!r.configMap || !r.key || (name !== r.configMap && !name.startsWith(`${r.configMap}-`))) continue;
          const v = valueAt(configKey(cm, r.key), ...r.path.split('.'));
          if (isBad(r.bad, v)) problems.push({ rule: r, configMap: `${ns}/${name}`, value: shown(v) });
        }
      }
    return { rules, problems, release: `${p.title} ${k.releases.join(', ')}` };
  },
});

/** The stored values the installed release cannot use, and the rules that apply to it (undefined: nothing judged). */
const storedValues = (m: Model, mesh: MeshName): StoredValues | undefined => m.fact(STORED_VALUES, mesh);

/** The stored value that makes the mesh's injector refuse pods with this reason (the rule's `says`), if any. */
export function storedRefusal(m: Model, mesh: MeshName, reason: string) {
  const s = storedValues(m, mesh);
  const hit = s?.problems.find(
    (x) => x.rule.fails.on === 'injection' && new RegExp(x.rule.fails.says, 'i').test(reason.slice(0, 4000)),
  );
  return hit && s ? { ...hit, release: s.release } : undefined;
}

/**
 * The stored setting an injected container's image came from, where a rule says the installed release cannot use it
 * and the image shows it: the ConfigMap value read (and the image matching the rule), or, for a setting of the
 * injector's own Deployment, the image itself.
 */
export function storedImage(
  m: Model,
  mesh: MeshName,
  container: string,
  image: string | undefined,
): { rule: StoredValueRule; release: string; value: string; configMap?: string } | undefined {
  const s = storedValues(m, mesh);
  if (!s || !image) return undefined;
  for (const r of s.rules) {
    if (r.fails.on !== 'image' || !r.fails.containers.includes(container)) continue;
    if (r.bad.matches && !new RegExp(r.bad.matches).test(image.slice(0, 1000))) continue;
    if (!r.configMap) return { rule: r, release: s.release, value: shown(image) };
    const hit = s.problems.find((x) => x.rule === r);
    if (hit) return { ...hit, release: s.release };
  }
  return undefined;
}
