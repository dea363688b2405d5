/**
 * Coverage is part of the verdict: which kinds could not be read, which checks that kept from
 * running, and the read-only RBAC that would let them run. A run with skipped checks is never
 * reported as clean (README "Exit codes": 3, incomplete).
 */
import { cmd, comment, type Step, type Word } from '../fix/steps.js';
import { render } from '../fix/render.js';
import { createHash } from 'node:crypto';
import { KINDS, type KindKey } from '../k8s/kinds.js';
import { APISERVER_NAMESPACE, apiserverInstances } from '../k8s/apiserver.js';
import { SERVER_INPUT_LABEL, SERVER_INPUTS, SERVER_URL, type ServerInputKey } from '../k8s/server.js';
import { namedObjects } from '../mesh/read-plan.js';
import type { Coverage, SkippedCheck } from './result.js';
import type { Snapshot } from '../k8s/snapshot.js';
import type { Check } from '../checks/define.js';
import { guardFix } from '../util/shell.js';
import { cmp } from '../util/objects.js';

/**
 * Why Secrets are not in a snapshot read with --no-secrets (the default deployment: deploy/mesh-rbac/
 * grants no Secret). Not a failure: the checks that need one are reported as not run by choice
 * (`declined`), and do not make the run incomplete, as --skip does not; what they would examine is
 * never reported as fine.
 */
export const SECRETS_DECLINED =
  'not read (--no-secrets): no Secret was read; the checks that need one did not run and the issuer certificates kept only in Secrets were not examined (deploy/mesh-rbac/secrets/ grants them)';

/**
 * The coverage of a run: one entry per kind a selected check needed and could not have (with the
 * reason once, and the checks it kept from running), plus kinds that checks use as extra evidence
 * (`checks` empty: the checks ran without them). Skips for internal errors count too.
 */
export function coverageOf(snapshot: Snapshot, checks: readonly Check[], skipped: SkippedCheck[]): Coverage {
  const unavailable: Coverage['unavailable'] = [];
  const wanted = wantedBy(checks);
  const declined = new Set(wanted.filter((k) => snapshot.unavailable[k] === SECRETS_DECLINED));
  for (const kind of wanted.filter((k) => !snapshot.objects[k])) {
    const kept = checks
      .filter((c) => c.inputs.includes(kind) && skipped.some((s) => s.check === c.id))
      .map((c) => c.id);
    unavailable.push({
      kind,
      reason: snapshot.unavailable[kind] ?? 'not in the snapshot',
      checks: kept,
      ...(declined.has(kind) ? { declined: true } : {}),
    });
  }
  // A check kept from running only by kinds declined on purpose (--no-secrets) leaves the run complete, as --skip does.
  const byChoice = (s: SkippedCheck) => {
    const c = checks.find((x) => x.id === s.check);
    const missing = c?.inputs.filter((k) => !snapshot.objects[k]) ?? [];
    return s.reason.startsWith('cannot read ') && missing.length > 0 && missing.every((k) => declined.has(k));
  };
  // A kind read in the scope but refused in another namespace (a mesh's control plane): the
  // checks ran, but what they look for there was not examined, so the run is not complete.
  let partial = false;
  for (const kind of wanted.filter((k) => snapshot.objects[k])) {
    for (const [namespace, reason] of Object.entries(snapshot.unavailableIn?.[kind] ?? {}).sort(([a], [b]) =>
      cmp(a, b),
    )) {
      unavailable.push({ kind, namespace, reason, checks: [] });
      partial = true;
    }
  }
  // What was not read of the API server itself: optional inputs, said here; refused or failed, they
  // never make the run incomplete (the checks ran and say what they could not examine), but one not
  // read yet (a watch that has not read /metrics yet) is no verdict at all: never complete.
  const server = new Set(checks.flatMap((c) => c.serverInputs ?? []));
  let pending = false;
  for (const key of SERVER_INPUTS.filter((k) => server.has(k))) {
    const notYet = snapshot.serverPending?.includes(key);
    const reason = notYet ? NOT_READ_YET : serverUnread(snapshot, key);
    if (reason) unavailable.push({ kind: SERVER_INPUT_LABEL[key], reason, checks: [] });
    pending ||= !!notYet;
  }
  unavailable.sort((a, b) => cmp(a.kind, b.kind) || cmp(a.namespace ?? '', b.namespace ?? ''));
  return {
    complete: skipped.every(byChoice) && !partial && !pending,
    unavailable,
    rbac: rbacFix(snapshot, unavailable),
  };
}

/**
 * The kinds a selection of checks reads (required and optional), sorted: the same for every run of
 * that selection (a watch's evaluations, the views of one cluster), so derived once per selection
 * (checks and their inputs are never changed once defined).
 */
const WANTED = new WeakMap<readonly Check[], readonly KindKey[]>();
function wantedBy(checks: readonly Check[]): readonly KindKey[] {
  let wanted = WANTED.get(checks);
  if (!wanted) {
    wanted = [...new Set(checks.flatMap((c) => [...c.inputs, ...(c.optionalInputs ?? [])]))].sort(cmp);
    WANTED.set(checks, wanted);
  }
  return wanted;
}

/** The reason of a read of the server itself asked for and not done yet. */
const NOT_READ_YET = 'not read yet';

/** Why a read of the API server itself is not there (undefined: it was read; for the flags, some API server shows them). */
function serverUnread(snapshot: Snapshot, key: ServerInputKey): string | undefined {
  const p = snapshot.server?.[key];
  if (p && p.state !== 'read') return p.reason;
  // The version is secondary evidence (the API server pod's image tag says it too): said only when refused or failed.
  if (key === 'version') return undefined;
  // /metrics: a kubectl dump (or an older snapshot) has none. A live run reads it whenever a check
  // asks (check, explain and watch read through one plan: src/run/plan.ts); one that has not read
  // it yet says so through serverPending.
  if (key === 'metrics')
    return p || snapshot.source.type === 'live' ? undefined : 'not in the snapshot (meshdoctor snapshot saves it)';
  // The flags: a gap when the pods of kube-system were not read. A cluster that shows no API server
  // pod (a managed control plane: EKS, GKE, AKS) is no read that failed: the check's page says so.
  const pods = snapshot.objects.pods;
  if (apiserverInstances(pods ?? [], snapshot.objects.nodes ?? []).length) return undefined;
  const s = snapshot.scope;
  const podsRead =
    pods !== undefined &&
    snapshot.unavailableIn?.pods?.[APISERVER_NAMESPACE] === undefined &&
    (p !== undefined || s.allNamespaces || !s.namespace || s.namespace === APISERVER_NAMESPACE);
  return podsRead
    ? undefined
    : `the pods of ${APISERVER_NAMESPACE} were not read: whether MutatingAdmissionWebhook is on was not examined`;
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
  const isKind = (k: string): k is KindKey => Object.hasOwn(KINDS, k);
  const refused = unavailable.filter((u) => /^forbidden\b/.test(u.reason));
  // The kube-apiserver pods (a labelled list in kube-system) refused: the pods of kube-system, after the kinds.
  const forbidden: { kind: KindKey; namespace?: string; reason: string; checks: string[] }[] = [
    ...refused.flatMap((u) => (isKind(u.kind) ? [{ ...u, kind: u.kind }] : [])),
    ...refused.flatMap((u) =>
      u.kind === SERVER_INPUT_LABEL.apiserverPods
        ? [{ ...u, kind: 'pods' as const, namespace: APISERVER_NAMESPACE }]
        : [],
    ),
  ];
  const urls = Object.entries(SERVER_URL).flatMap(([k, url]) =>
    refused.some((u) => u.kind === SERVER_INPUT_LABEL[k as keyof typeof SERVER_URL]) ? [url] : [],
  );
  if (!forbidden.length && !urls.length) return [];
  const res = (k: KindKey) => (KINDS[k].group ? `${KINDS[k].plural}.${KINDS[k].group}` : KINDS[k].plural);
  const named = namedObjects(
    snapshot.objects.namespaces ?? [],
    snapshot.objects.mutatingwebhookconfigurations ?? [],
    snapshot.objects.deployments ?? [],
  );
  const roles: { name: string; command: Step; namespaces: Set<string> | 'cluster' }[] = [];
  /** A ClusterRole named after its rules: the hash of its arguments as printed (kept stable across versions). */
  const addRole = (rules: Word[], kinds: { namespace?: string; reason: string }[]) => {
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
  const listed = forbidden.filter((u) => !KINDS[u.kind].byName);
  if (listed.length)
    addRole([['--verb=get,list'], [`--resource=${[...new Set(listed.map((u) => res(u.kind)))].join(',')}`]], listed);
  for (const u of forbidden.filter((x) => KINDS[x.kind].byName)) {
    const names = [...new Set(named.filter((r) => r.key === u.kind).map((r) => r.name))].sort(cmp);
    if (names.length)
      addRole(
        [['--verb=get'], [`--resource=${res(u.kind)}`], ...names.map((n): Word => ['--resource-name=', { value: n }])],
        [u],
      );
  }
  // The server's own documents (GET /version, GET /metrics) are non-resource URLs, granted by a
  // ClusterRole bound cluster-wide (rule nonResourceURLs: [url], verbs: ["get"]): one role per URL.
  for (const url of urls)
    addRole([['--verb=get'], [`--non-resource-url=${url}`]], [{ reason: 'at the cluster scope' }]);
  // The API server names the user in its forbidden message: `User "system:serviceaccount:shop:alice" cannot list ...`.
  const user =
    snapshot.source.user ?? refused.map((u) => /\bUser "([^"]+)" cannot\b/.exec(u.reason)?.[1]).find(Boolean);
  const subject: Word = user?.startsWith('system:serviceaccount:')
    ? ['--serviceaccount=', { value: user.slice('system:serviceaccount:'.length) }]
    : user
      ? ['--user=', { value: user }]
      : ['--user=USER'];
  const out: Step[] = roles.map((r) => r.command);
  if (!user) out.push(comment`USER below: the name meshdoctor authenticates as, which kubectl auth whoami shows`);
  for (const r of roles) {
    if (r.namespaces === 'cluster')
      out.push(cmd`kubectl create clusterrolebinding ${r.name} --clusterrole=${r.name} ${subject}`);
    else
      for (const ns of [...r.namespaces].sort(cmp))
        out.push(cmd`kubectl create rolebinding ${r.name} -n ${ns} --clusterrole=${r.name} ${subject}`);
  }
  // The same last guard as every fix line: a line that would not be one safe line is withheld.
  return render(out).map(guardFix);
}
