/**
 * Coverage is part of the verdict: which kinds could not be read, which checks that kept from
 * running, and the read-only RBAC that would let them run. A run with skipped checks is never
 * reported as clean (README "Exit codes": 3, incomplete).
 */
import { KINDS, type KindKey } from './cluster/kinds.js';
import { namedObjects } from './cluster/named.js';
import type { Check, Coverage, SkippedCheck, Snapshot } from './types.js';
import { cmp, shq } from './util.js';

const ROLE = 'meshdoctor-extra-reader';

/**
 * The coverage of a run: one entry per kind a selected check needed and could not have (with the
 * reason once, and the checks it kept from running), plus kinds that checks use as extra evidence
 * (`checks` empty: the checks ran without them). Skips for internal errors count too.
 */
export function coverageOf(snapshot: Snapshot, checks: readonly Check[], skipped: SkippedCheck[]): Coverage {
  const unavailable: Coverage['unavailable'] = [];
  const wanted = checks.flatMap((c) => [...c.inputs, ...(c.optionalInputs ?? [])]);
  const kinds = [...new Set(wanted)].filter((k) => !snapshot.objects[k]).sort(cmp);
  for (const kind of kinds) {
    const kept = checks.filter((c) => c.inputs.includes(kind) && skipped.some((s) => s.check === c.id)).map((c) => c.id);
    unavailable.push({ kind, reason: snapshot.unavailable[kind] ?? 'not in the snapshot', checks: kept });
  }
  return { complete: skipped.length === 0, unavailable, rbac: rbacFix(snapshot, unavailable) };
}

/**
 * One-line kubectl commands that grant read access (get, list; ConfigMaps and Secrets get by name
 * only, as deploy/rbac.yaml does) to the kinds a live run was forbidden to read. The binding names
 * the user meshdoctor ran as when the credentials tell it (a ServiceAccount token), else USER.
 */
export function rbacFix(snapshot: Snapshot, unavailable: Coverage['unavailable']): string[] {
  if (snapshot.source.type !== 'live') return [];
  const forbidden = unavailable.filter((u) => /^forbidden\b/.test(u.reason)).map((u) => u.kind);
  if (!forbidden.length) return [];
  const res = (k: KindKey) => (KINDS[k].group ? `${KINDS[k].plural}.${KINDS[k].group}` : KINDS[k].plural);
  const listed = forbidden.filter((k) => !KINDS[k].byName);
  const out: string[] = [];
  if (listed.length) out.push(`kubectl create clusterrole ${ROLE} --verb=get,list --resource=${listed.map(res).join(',')}`);
  const named = namedObjects(snapshot.objects.namespaces ?? [], snapshot.objects.mutatingwebhookconfigurations ?? []);
  for (const k of forbidden.filter((x) => KINDS[x].byName)) {
    const names = [...new Set(named.filter((r) => r.key === k).map((r) => r.name))].sort(cmp);
    if (names.length) out.push(`kubectl create clusterrole ${ROLE}-${k} --verb=get --resource=${res(k)} ${names.map((n) => `--resource-name=${shq(n)}`).join(' ')}`);
  }
  const user = snapshot.source.user;
  const subject = user?.startsWith('system:serviceaccount:')
    ? `--serviceaccount=${shq(user.slice('system:serviceaccount:'.length))}`
    : `--user=${user ? shq(user) : 'USER'}`;
  const roles = out.map((c) => /create clusterrole (\S+)/.exec(c)![1]!);
  for (const role of roles) out.push(`kubectl create clusterrolebinding ${role} --clusterrole=${role} ${subject}${user ? '' : '  # USER: the name meshdoctor authenticates as (kubectl auth whoami)'}`);
  return out;
}
