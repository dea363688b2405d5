/**
 * Which releases of each mesh a check's rule applies to, generated from the meshes' release
 * tables (src/mesh/<mesh>/releases.ts, read through the profiles) for `meshdoctor checks ID`
 * (issue 32 item 4). Every check judges the releases each table covers, and a release outside them
 * is named and not judged where releases differ; the checks below consult a part of the table that
 * differs by release, and their notes list its rows (the release range, what it says, its source).
 */
import type { CheckId } from '../checks/catalog.js';
import type { MeshProfile } from '../mesh/profile.js';
import type { ValueReading } from '../mesh/release-table.js';
import { allBugs } from '../mesh/releases.js';

/** The parts of a release table a check's rule reads (src/mesh/release-table.ts, profile.ts Versions). */
type Aspect = 'reads' | 'parses' | 'containers' | 'injectorRbac' | 'keys' | 'kubernetes' | 'skew' | 'bugs' | 'needs';

/**
 * The checks whose rule differs by release, and what of the table they read: the marker keys an
 * older release still reads (src/facts/marker-problems.ts someReleaseReads), the injected
 * how a release's injector reads a marker's value (the mesh's injector decision), the injected
 * container names (src/facts/missing-proxy.ts), the injector's chart RBAC (src/facts/rbac.ts),
 * the keys of the domain per release (src/facts/releases.ts knownKeys), the Kubernetes support and
 * the data plane skew of each release (versions.kubernetes, versions.skew), the known bugs per
 * release (src/facts/known-bugs.ts).
 */
const RELEASE_ASPECTS: Partial<Record<CheckId, readonly Aspect[]>> = {
  'injection-marker-invalid': ['reads', 'parses'],
  'pod-opted-out': ['parses'],
  'sidecar-missing': ['containers'],
  'proxy-missing-beside-meshed': ['containers'],
  'injector-rbac-missing': ['injectorRbac'],
  'mesh-key-unknown': ['keys'],
  'kubernetes-version-unsupported': ['kubernetes'],
  'proxy-outdated': ['skew'],
  'known-release-bug': ['bugs'],
  'proxy-cannot-start': ['needs', 'bugs'],
  'admission-rejects-proxy': ['bugs'],
};

const range = (r: { from: string; to?: string }) =>
  r.to === undefined ? `${r.from} and later` : r.from === r.to ? r.from : `${r.from} to ${r.to}`;

/** How a release reads a marker's value, in words: "sidecar.istio.io/inject: true injects, false opts out, ..." */
export function readingText(x: ValueReading): string {
  const vals = (v: readonly string[]) => v.map((s) => (s === '' ? '""' : s)).join(', ');
  return [
    `${x.key}: ${vals(x.inject)} ${x.inject.length > 1 ? 'inject' : 'injects'}${x.caseInsensitive ? ' (any case)' : ''}`,
    x.skip.length ? `${vals(x.skip)} ${x.skip.length > 1 ? 'opt' : 'opts'} out` : '',
    x.ignore?.length ? `${vals(x.ignore)} ${x.ignore.length > 1 ? 'are' : 'is'} no marker` : '',
    x.otherwise === 'skip' ? 'any other value opts out' : 'any other value is ignored or rejected',
  ]
    .filter(Boolean)
    .join(', ');
}

/** One mesh's lines for one aspect (empty: its table says nothing of it). */
function aspectLines(p: MeshProfile, a: Aspect): string[] {
  const v = p.versions;
  const t = v?.releases;
  switch (a) {
    case 'reads':
      return (t?.rows ?? []).flatMap((r) =>
        r.reads?.length
          ? [
              `${range(r)}: also reads ${r.reads.map((x) => `the ${x.on} ${x.field.slice(0, -1)} ${x.key}`).join(', ')} (${r.source})`,
            ]
          : [],
      );
    case 'parses':
      return (t?.rows ?? []).flatMap((r) =>
        (r.parses ?? []).map((x) => `${range(r)}: ${readingText(x)} (${r.source})`),
      );
    case 'containers':
      return (t?.rows ?? []).flatMap((r) =>
        r.containers
          ? [
              `${range(r)}: injects ${[...r.containers.proxy.map((n) => `${n} (proxy)`), ...r.containers.init.map((n) => `${n} (init)`), ...(r.containers.helpers ?? []).map((n) => `${n} (helper)`)].join(', ')} (${r.source})`,
            ]
          : [],
      );
    case 'injectorRbac':
      return [
        ...(t?.rows ?? []).flatMap((r) =>
          r.injectorRbacNames
            ? [
                `${range(r)}: the chart's ClusterRole ${r.injectorRbacNames.clusterRole}, ClusterRoleBinding ${r.injectorRbacNames.clusterRoleBinding} (${r.source})`,
              ]
            : r.injectorRbac === undefined
              ? [`${range(r)}: not judged (${r.source})`]
              : r.injectorRbac === 'today'
                ? [`${range(r)}: the current chart's RBAC (${r.source})`]
                : r.injectorRbac.length
                  ? [
                      `${range(r)}: ${r.injectorRbac.map((n) => `${n.verbs.join('/')} ${n.resource}`).join(', ')} (${r.source})`,
                    ]
                  : [`${range(r)}: none judged, the injector needs no cluster-wide permission (${r.source})`],
        ),
        ...(t?.distributions ?? []).flatMap((d) =>
          d.injectorRbac
            ? [
                d.injectorRbac.length
                  ? `${d.title}: ${d.injectorRbac.map((n) => `${n.verbs.join('/')} ${n.resource}`).join(', ')} (${d.injectorRbacSource ?? ''})`
                  : `${d.title}: none judged (${d.injectorRbacSource ?? ''})`,
              ]
            : [],
        ),
        ...(t?.injectorBuilds ?? []).map((b) =>
          b.injectorRbac.length
            ? `${b.title}: ${b.injectorRbac.map((n) => `${n.verbs.join('/')} ${n.resource}`).join(', ')} (${b.source})`
            : `${b.title}: none judged (${b.source})`,
        ),
      ];
    case 'keys':
      return t ? [`keys of ${t.domains.join(', ')} per release, ${t.keys.length} in all, from ${t.keySource}`] : [];
    case 'kubernetes':
      return (v?.kubernetes ?? []).map((k) => `${k.release}: Kubernetes ${k.min} to ${k.max} (${k.source})`);
    case 'skew':
      return v?.skew ? [`${v.skew.text} (${v.skew.source})`] : [];
    case 'bugs':
      return allBugs(t).map(
        (b) =>
          `${b.affected.from === b.affected.to ? b.affected.from : `${b.affected.from} to ${b.affected.to}`}: ${b.id}, ${b.text}; fixed in ${b.fixedIn} (${b.source})`,
      );
    case 'needs':
      return (t?.rows ?? []).flatMap((r) =>
        (r.needs ?? []).map(
          (n) =>
            `${range(r)}: ${n.feature} (${n.command} in ${n.fails}) needs ${n.companion.title} ${n.companion.min} or later (${n.source})`,
        ),
      );
  }
}

/** What `meshdoctor checks ID` prints of the releases the check's rule applies to, mesh by mesh. */
export function releaseNotes(id: CheckId, profiles: readonly MeshProfile[]): { mesh: string; lines: string[] }[] {
  const aspects = RELEASE_ASPECTS[id] ?? [];
  return profiles.flatMap((p) => {
    const t = p.versions?.releases;
    if (!t) return [];
    const covered = `${t.order[0]} to ${t.order[t.order.length - 1]}${t.distributions?.length ? ` (and ${t.distributions.map((d) => d.title).join(', ')})` : ''}: a release outside them is named and not judged where releases differ`;
    return [{ mesh: p.title, lines: [covered, ...aspects.flatMap((a) => aspectLines(p, a))] }];
  });
}
