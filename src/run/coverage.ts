/**
 * Coverage is part of the verdict: which kinds could not be read, which checks that kept from
 * running, and the read-only RBAC that would let them run. A run with skipped checks is never
 * reported as clean (README "Exit codes": 3, incomplete).
 */
import { cmd, comment, type Step, type Word } from '../fix/steps.js';
import { render } from '../fix/render.js';
import { createHash } from 'node:crypto';
import { KINDS, type KindKey } from '../k8s/kinds.js';
import { SERVER_INPUTS, SERVER_PATHS, type ServerInput } from '../k8s/server.js';
import { namedObjects } from '../mesh/read-plan.js';
import type { Coverage, SkippedCheck } from './result.js';
import type { Snapshot } from '../k8s/snapshot.js';
import type { Check } from '../checks/define.js';
import { guardFix } from '../util/shell.js';
import { cmp } from '../util/objects.js';

/**
 * The coverage of a run: one entry per kind a selected check needed and could not have (with the
 * reason once, and the checks it kept from running), plus kinds that checks use as extra evidence
 * (`checks` empty: the checks ran without them). Skips for internal errors count too.
 */
export function coverageOf(snapshot: Snapshot, checks: readonly Check[], skipped: SkippedCheck[]): Coverage {
  const unavailable: Coverage['unavailable'] = [];
  const wanted = [...new Set(checks.flatMap((c) => [...c.inputs, ...(c.optionalInputs ?? [])]))].sort(cmp);
  for (const kind of wanted.filter((k) => !snapshot.objects[k])) {
    const kept = checks.filter((c) => c.inputs.includes(kind) && skipped.some((s) => s.check === c.id)).map((c) => c.id);
    unavailable.push({ kind, reason: snapshot.unavailable[kind] ?? 'not in the snapshot', checks: kept });
  }
  // A kind read in the scope but refused in another namespace (a mesh's control plane): the
  // checks ran, but what they look for there was not examined, so the run is not complete.
  let partial = false;
  for (const kind of wanted.filter((k) => snapshot.objects[k])) {
    for (const [namespace, reason] of Object.entries(snapshot.unavailableIn?.[kind] ?? {}).sort(([a], [b]) => cmp(a, b))) {
      unavailable.push({ kind, namespace, reason, checks: [] });
      partial = true;
    }
  }
  // What the checks read of the API server itself (GET /version) and were refused (or could not
  // parse): never required (no check skips for it), so listed like an optional kind, the run
  // still complete. A snapshot without it (a kubectl dump) records nothing: the checks' evidence
  // says the server's version was not read, and they compare the nodes' versions alone.
  for (const key of SERVER_INPUTS.filter((k) => checks.some((c) => c.serverInputs?.includes(k)))) {
    const why = snapshot.server?.[key] ? undefined : snapshot.server?.unavailable?.[key];
    if (why) unavailable.push({ kind: key, reason: why, checks: [] });
  }
  unavailable.sort((a, b) => cmp(a.kind, b.kind) || cmp(a.namespace ?? '', b.namespace ?? ''));
  return { complete: skipped.length === 0 && !partial, unavailable, rbac: rbacFix(snapshot, unavailable) };
}

/**
 * One-line kubectl commands that grant read access (get, list; ConfigMaps and Secrets get by name
 * only, as deploy/rbac.yaml does) to the kinds a live run was forbidden to read: ClusterRoles named
 * after their rules (so a second round never collides with the first), bound cluster-wide when a
 * kind was refused at the cluster scope, else only in the namespaces where it was refused. The
 * subject is the user the API server's forbidden message names, else USER.
 */
export function rbacFix(snapshot: Snapshot, unavailable: Coverage['unavailable']): string[] {
  if (snapshot.source.type !== 'live') return [];
  const forbidden = unavailable.filter((u) => /^forbidden\b/.test(u.reason));
  if (!forbidden.length) return [];
  const res = (k: KindKey) => (KINDS[k].group ? `${KINDS[k].plural}.${KINDS[k].group}` : KINDS[k].plural);
  const named = namedObjects(snapshot.objects.namespaces ?? [], snapshot.objects.mutatingwebhookconfigurations ?? [], snapshot.objects.deployments ?? []);
  const roles: { name: string; command: Step; namespaces: Set<string> | 'cluster' }[] = [];
  /** A ClusterRole named after its rules: the hash of its arguments as printed (kept stable across versions). */
  const addRole = (rules: Word[], kinds: Coverage['unavailable']) => {
    const printed = render([cmd`${{ args: rules }}`])[0]!;
    const name = `meshdoctor-reader-${createHash('sha256').update(printed).digest('hex').slice(0, 8)}`;
    // "... in the namespace "linkerd"": a namespaced refusal; "at the cluster scope" (or unknown): cluster-wide.
    const where = kinds.map((u) => u.namespace ?? /in the namespace "([^"]+)"/.exec(u.reason)?.[1]);
    roles.push({
      name,
      command: cmd`kubectl create clusterrole ${name} ${{ args: rules }}`,
      namespaces: where.some((n) => n === undefined) ? 'cluster' : new Set(where as string[]),
    });
  };
  const isKind = (u: Coverage['unavailable'][number]): u is Coverage['unavailable'][number] & { kind: KindKey } => u.kind in KINDS;
  const listed = forbidden.filter(isKind).filter((u) => !KINDS[u.kind].byName);
  if (listed.length) addRole([['--verb=get,list'], [`--resource=${[...new Set(listed.map((u) => res(u.kind)))].join(',')}`]], listed);
  for (const u of forbidden.filter(isKind).filter((x) => KINDS[x.kind].byName)) {
    const names = [...new Set(named.filter((r) => r.key === u.kind).map((r) => r.name))].sort(cmp);
    if (names.length) addRole([['--verb=get'], [`--resource=${res(u.kind)}`], ...names.map((n): Word => ['--resource-name=', { value: n }])], [u]);
  }
  // The server's own documents (GET /version) are non-resource URLs, granted cluster-wide only.
  const server = forbidden.filter((u) => !isKind(u));
  if (server.length) addRole([['--verb=get'], ...server.map((u): Word => [`--non-resource-url=${SERVER_PATHS[u.kind as ServerInput]}`])], server);
  // The API server names the user in its forbidden message: `User "system:serviceaccount:shop:alice" cannot list ...`.
  const user = snapshot.source.user ?? forbidden.map((u) => /\bUser "([^"]+)" cannot\b/.exec(u.reason)?.[1]).find(Boolean);
  const subject: Word = user?.startsWith('system:serviceaccount:')
    ? ['--serviceaccount=', { value: user.slice('system:serviceaccount:'.length) }]
    : user
      ? ['--user=', { value: user }]
      : ['--user=USER'];
  const out: Step[] = roles.map((r) => r.command);
  if (!user) out.push(comment`USER below: the name meshdoctor authenticates as, which kubectl auth whoami shows`);
  for (const r of roles) {
    if (r.namespaces === 'cluster') out.push(cmd`kubectl create clusterrolebinding ${r.name} --clusterrole=${r.name} ${subject}`);
    else for (const ns of [...r.namespaces].sort(cmp)) out.push(cmd`kubectl create rolebinding ${r.name} -n ${ns} --clusterrole=${r.name} ${subject}`);
  }
  // The same last guard as every fix line: a line that would not be one safe line is withheld.
  return render(out).map(guardFix);
}
