/**
 * `check -l/--selector` and `--field-selector`: the workloads checked, narrowed as kubectl narrows
 * a list, by their pod labels (the template's, or a bare pod's) and by metadata.name and
 * metadata.namespace.
 *
 * The cluster is still read whole (in scope) and every check runs on all of it; the findings are
 * narrowed afterwards. Findings about one workload compare it with its neighbours ("others in the
 * namespace are meshed", siblings injected without asking): a LIST narrowed by the selector would
 * hide the neighbours and change those findings. So what stays is:
 * - a finding about a workload: when the workload is selected;
 * - a finding about a namespace: when a selected workload lives in it;
 * - a finding about the control plane (a webhook, an injector, a certificate, a cause of other
 *   findings): when its mesh would inject a selected workload or is asked to, or a kept finding
 *   names it as cause.
 *
 * `check -n NS` (a namespace scope, no -A) narrows the control plane the same way (scopeFindings):
 * another mesh's broken injector is not this namespace's problem. What it leaves out is counted in
 * the report's `elsewhere` and never decides the exit code.
 */
import { CATALOG, type CatalogEntry, type CheckId } from '../checks/catalog.js';
import { isControlPlaneCause } from '../facts/causes.js';
import type { Model, Workload } from '../facts/model.js';
import {
  fieldsMatch,
  labelsMatch,
  parseFieldSelector,
  parseLabelSelector,
  type FieldSelector,
  type LabelSelector,
} from '../k8s/selector-text.js';
import { UserError, printable } from '../util/errors.js';
import { labelsOf } from '../util/objects.js';
import type { MeshName } from '../mesh/names.js';
import type { Elsewhere, Finding, SelectionInfo } from './result.js';

export interface Selection {
  labels?: LabelSelector;
  fields?: FieldSelector;
}

/** -l and --field-selector parsed (undefined when neither is given); a bad one is a usage error (exit 2). */
export function parseSelection(selector?: string, fieldSelector?: string): Selection | undefined {
  if (selector === undefined && fieldSelector === undefined) return undefined;
  const out: Selection = {};
  if (selector !== undefined) {
    const l = parseLabelSelector(selector);
    if ('error' in l)
      throw new UserError(`invalid -l/--selector "${printable(selector, 200)}": ${printable(l.error, 300)}`);
    out.labels = l;
  }
  if (fieldSelector !== undefined) {
    const f = parseFieldSelector(fieldSelector);
    if ('error' in f)
      throw new UserError(`invalid --field-selector "${printable(fieldSelector, 200)}": ${printable(f.error, 300)}`);
    out.fields = f;
  }
  return out;
}

const selects = (sel: Selection, w: Workload) =>
  (!sel.labels || labelsMatch(sel.labels, labelsOf(w.template))) &&
  (!sel.fields || fieldsMatch(sel.fields, { name: w.name, namespace: w.namespace }));

const refKey = (r: { kind: string; namespace?: string; name: string }) => `${r.kind}/${r.namespace ?? ''}/${r.name}`;

/** The findings that concern the selected workloads (see the top of this file), and how many workloads were selected. */
export function selectFindings(
  findings: Finding[],
  m: Model,
  sel: Selection,
): { findings: Finding[]; info: SelectionInfo } {
  const all = m.appWorkloads;
  const chosen = all.filter((w) => selects(sel, w));
  const chosenKeys = new Set(chosen.map((w) => refKey(w.ref)));
  const appKeys = new Set(all.map((w) => refKey(w.ref)));
  const namespaces = new Set(chosen.map((w) => w.namespace));
  // A mesh concerns a selected workload when it would inject it or is asked to (a marker): a
  // missing webhook leaves the workload asking, and is then its cause. (Not "its webhook would be
  // called": Linkerd's is called for every pod.)
  const meshes = new Set(
    chosen.flatMap((w) =>
      m
        .decisions(w)
        .filter((d) => d.inject || d.intent)
        .map((d) => d.mesh),
    ),
  );
  // Where a finding is: one app workload, one app namespace (the namespace itself, or an object in
  // it such as a ResourceQuota), or the control plane (its namespaces, cluster-scoped objects).
  const placeOf = (f: Finding) => {
    const key = refKey(f.resource);
    if (appKeys.has(key)) return { workload: key };
    if (f.resource.kind === 'Namespace' && !m.isControlPlaneNamespace(f.resource.name))
      return { namespace: f.resource.name };
    if (f.resource.namespace !== undefined && !m.isControlPlaneNamespace(f.resource.namespace))
      return { namespace: f.resource.namespace };
    return {};
  };
  const own = new Set(
    findings.filter((f) => {
      const place = placeOf(f);
      return place.workload !== undefined
        ? chosenKeys.has(place.workload)
        : place.namespace !== undefined && namespaces.has(place.namespace);
    }),
  );
  // The causes the kept findings name, and the control plane of a mesh that concerns a selected workload.
  const named = new Set([...own].map((f) => f.causedBy).filter((k): k is string => !!k));
  const kept = findings.filter((f) => {
    if (own.has(f)) return true;
    const place = placeOf(f);
    if (place.workload !== undefined || place.namespace !== undefined) return false;
    return (
      (f.causeKey !== undefined && named.has(f.causeKey)) ||
      ((!f.cause || isControlPlaneCause(f.cause)) && meshes.has(f.mesh))
    );
  });
  return {
    findings: kept,
    info: {
      ...(sel.labels ? { selector: sel.labels.text } : {}),
      ...(sel.fields ? { fieldSelector: sel.fields.text } : {}),
      workloads: { selected: chosen.length, total: all.length },
    },
  };
}

/**
 * `check -n NS`: the findings that concern namespace NS: its own (its workloads, the namespace and
 * objects in it), the causes they name, and the control plane of a mesh that would inject one of
 * its workloads or that one asks for (or whose control plane lives in NS). The rest of what was
 * read (another mesh's injector down, in a namespace no workload of NS depends on) is returned
 * apart, as `elsewhere`.
 */
export function scopeFindings(
  findings: Finding[],
  m: Model,
  ns: string,
): { findings: Finding[]; elsewhere: Finding[] } {
  const meshes = new Set<MeshName>(
    m.appWorkloadsIn(ns).flatMap((w) =>
      m
        .decisions(w)
        .filter((d) => d.inject || d.intent)
        .map((d) => d.mesh),
    ),
  );
  for (const x of m.meshes) if (x.namespaces.includes(ns)) meshes.add(x.mesh);
  const ownPlace = (f: Finding) =>
    f.resource.kind === 'Namespace' ? f.resource.name === ns : f.resource.namespace === ns;
  // An object of another app namespace is never this one's (a control-plane namespace's may be).
  const otherApp = (f: Finding) => {
    if (Object.hasOwn(CATALOG, f.id) && (CATALOG[f.id as CheckId] as CatalogEntry).spansNamespaces) return false;
    const at = f.resource.kind === 'Namespace' ? f.resource.name : f.resource.namespace;
    return at !== undefined && at !== ns && !m.isControlPlaneNamespace(at);
  };
  const own = findings.filter(ownPlace);
  const named = new Set(own.map((f) => f.causedBy).filter((k): k is string => !!k));
  const keep = (f: Finding) =>
    ownPlace(f) ||
    (f.causeKey !== undefined && named.has(f.causeKey)) ||
    (!otherApp(f) && (!f.cause || isControlPlaneCause(f.cause)) && meshes.has(f.mesh));
  return { findings: findings.filter(keep), elsewhere: findings.filter((f) => !keep(f)) };
}

const SEVERITIES = ['error', 'warning', 'info'] as const;

/** What scopeFindings left out, counted for the report (bounded: one entry per finding, already bounded). */
export function elsewhereOf(left: Finding[], ns: string): Elsewhere | undefined {
  if (!left.length) return undefined;
  const count = Object.fromEntries(SEVERITIES.map((s) => [s, left.filter((f) => f.severity === s).length])) as Record<
    (typeof SEVERITIES)[number],
    number
  >;
  return {
    namespace: ns,
    ...count,
    total: left.length,
    meshes: [...new Set(left.map((f) => f.mesh))].sort(),
    findings: left.map((f) => ({ id: f.id, code: f.code, severity: f.severity, mesh: f.mesh, resource: f.resource })),
  };
}
