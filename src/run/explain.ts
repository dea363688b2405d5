/**
 * `meshdoctor explain <kind>/<name>`: one workload walked through the injection decision as the
 * API server and each installed mesh's injector would make it now, next to what runs today.
 *
 * It states nothing about what it could not read: a webhook list, a namespace marker, a
 * verdict or what happens on restart that depends on a kind not read (forbidden, not in the
 * snapshot, refused in the mesh's namespace) is "not examined", with the reason, and the
 * explanation carries the same coverage as `check` (the CLI exits 3 on it).
 */
import { UserError, printable } from '../util/errors.js';
import type { Decision } from '../facts/decision.js';
import { workloadOfObject } from '../k8s/events.js';
import { webhookBackends, type WebhookBackend } from '../facts/controlplane.js';
import { namespaceMarker } from '../facts/markers.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import { sidecarlessOf } from '../facts/sidecarless.js';
import { podStates, type Model, type Workload } from '../facts/model.js';
import type { ResourceRef } from '../util/types.js';
import type { Coverage, Finding, SkippedCheck } from './result.js';
import type { MeshName } from '../mesh/names.js';
import { dict, nameOf } from '../util/objects.js';
import { isControlPlaneCause } from '../facts/causes.js';

// A dict: looked up by what the user typed (`explain constructor/x` names no kind).
const KIND_ALIASES: Readonly<Record<string, string>> = Object.assign(dict(), {
  deployment: 'Deployment',
  deployments: 'Deployment',
  deploy: 'Deployment',
  statefulset: 'StatefulSet',
  statefulsets: 'StatefulSet',
  sts: 'StatefulSet',
  daemonset: 'DaemonSet',
  daemonsets: 'DaemonSet',
  ds: 'DaemonSet',
  job: 'Job',
  jobs: 'Job',
  cronjob: 'CronJob',
  cronjobs: 'CronJob',
  cj: 'CronJob',
  replicaset: 'ReplicaSet',
  replicasets: 'ReplicaSet',
  rs: 'ReplicaSet',
  pod: 'Pod',
  pods: 'Pod',
  po: 'Pod',
});

/**
 * Parse `deployment/web` or `deployment web`: kubectl's TYPE/NAME and TYPE NAME, with its short
 * names (`deploy cart`), as `kubectl get` takes them.
 */
export function parseTarget(arg: string, name?: string): { kind: string; name: string } {
  const text = name === undefined ? arg : `${arg}/${name}`;
  const m = /^([A-Za-z]+)(?:\.[a-z.]+)?\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(text);
  const kind = m ? KIND_ALIASES[m[1]!.toLowerCase()] : undefined;
  if (!m || !kind || (name !== undefined && arg.includes('/'))) {
    const shown = name === undefined ? arg : `${arg} ${name}`;
    throw new UserError(
      `cannot explain "${printable(shown, 200)}": expected KIND/NAME or KIND NAME with KIND one of deployment, statefulset, daemonset, job, cronjob, replicaset, pod`,
    );
  }
  return { kind, name: m[2]! };
}

interface MeshExplanation {
  mesh: MeshName;
  /** The namespace's marker for this mesh (null: none, or not examined: see notExamined.namespace). */
  namespaceMarker: string | null;
  /**
   * What the decision needed and could not read, by part, with the reason: the namespace (its
   * marker and labels), the webhook configurations, the injector's own configuration, the
   * services the webhooks call. Absent when everything was read.
   */
  notExamined?: { namespace?: string; webhooks?: string; injector?: string; service?: string };
  webhooks: {
    configuration: string;
    webhook: string;
    failurePolicy: string;
    called: boolean;
    rulesMatchPodCreate: boolean;
    namespaceSelector: { matched: boolean; terms: { term: string; matched: boolean }[] };
    objectSelector: { matched: boolean; terms: { term: string; matched: boolean }[] };
    /** The Service the webhook calls and its ready endpoints (null: not read / not a Service). */
    backend: { service: string; readyEndpoints: number; notReadyEndpoints: number } | null;
    /** Called, but the call cannot succeed: its Service is missing or has no ready endpoint (null: not examined, see notExamined.service). */
    callFails: boolean | null;
  }[];
  injector: { rule: string; ok: boolean; detail: string; denies?: boolean; unknown?: boolean }[];
  /** null: not examined (notExamined says what could not be read). */
  wouldInject: boolean | null;
  verdict: string;
  /** The workload or its namespace asks this mesh for injection (a marker), or the mesh injects it unasked. */
  asked?: boolean;
}

export interface Explanation {
  workload: ResourceRef;
  /** When a pod was asked about, the workload whose template it comes from. */
  via?: string;
  meshes: MeshExplanation[];
  /** Which meshes are installed could not be told (the webhook configurations were not read): why. */
  meshesNotExamined?: string;
  /** notExamined: the pods could not be read (the counts are then not facts). */
  now: { pods: number; meshed: Partial<Record<MeshName, string[]>>; unmeshed: string[]; notExamined?: string };
  /** A sidecar-less data plane (Istio's ambient mode) meshes its pods without a proxy container. */
  sidecarless?: { mesh: MeshName; mode: string; by: string; enrolled: string[]; notEnrolled: string[] };
  onRestart: string;
  findings: Finding[];
  /** The same coverage as `check` over the same snapshot, and the checks it kept from running. */
  coverage?: Coverage;
  skipped?: SkippedCheck[];
  /** Checks that ran (for the coverage headline). */
  checksRun?: number;
}

/** The webhook's Service is missing (Services were read) or has no ready endpoint: a call to it fails. */
function isDown(backends: WebhookBackend[], hook: WebhookBackend['webhooks'][number], servicesRead = true): boolean {
  const b = backends.find((x) => x.webhooks.includes(hook));
  if (!b || b.unread) return false; // its namespace was not read: unknown, not down
  if (!b.service) return servicesRead;
  return !!b.endpointsFrom && b.ready.length === 0;
}

/**
 * A called webhook whose Service is missing or has no ready endpoint: the API server's call fails.
 * The same test as the steps' callFails (isDown), so that the verdict never says "would get" beside
 * a call the steps show failing (test/consistency.test.ts verdictContradictions).
 */
function unreachable(
  d: Decision,
  backends: WebhookBackend[],
  servicesRead: boolean,
): { backend: WebhookBackend; policy: string } | undefined {
  for (const c of d.calls.filter((x) => x.called)) {
    const b = backends.find((x) => x.webhooks.includes(c.webhook));
    if (b && isDown(backends, c.webhook, servicesRead)) return { backend: b, policy: c.webhook.failurePolicy };
  }
  return undefined;
}

/** What the decision of mesh `d` needs and could not read (the MeshExplanation's notExamined). */
function unreadFor(m: Model, d: Decision, backends: WebhookBackend[]): NonNullable<MeshExplanation['notExamined']> {
  const out: NonNullable<MeshExplanation['notExamined']> = {};
  const webhooks = m.unread('mutatingwebhookconfigurations');
  const namespace = m.unread('namespaces');
  if (webhooks) out.webhooks = `cannot read ${webhooks}`;
  if (namespace) out.namespace = `cannot read ${namespace}`;
  if (d.unknown) out.injector = d.unknown;
  const service = d.calls
    .filter((c) => c.called && c.webhook.service)
    .map((c) => backendUnread(m, backends, c.webhook))
    .find((x) => x);
  if (service) out.service = service;
  return out;
}

/** Why whether a webhook's Service can answer is not known: its Service or endpoints not read (anywhere, or in its namespace). */
function backendUnread(
  m: Model,
  backends: WebhookBackend[],
  hook: WebhookBackend['webhooks'][number],
): string | undefined {
  const b = backends.find((x) => x.webhooks.includes(hook));
  if (!b) return undefined;
  if (!m.has('services')) return `cannot read ${m.unread('services')}`;
  if (b.unread) return `cannot read ${b.unread}`;
  if (!m.has('endpointslices') && !m.has('endpoints'))
    return `cannot read ${m.unread('endpointslices')}; ${m.unread('endpoints')}`;
  return undefined;
}

function verdict(
  d: Decision,
  backends: WebhookBackend[],
  unread: NonNullable<MeshExplanation['notExamined']>,
  servicesRead: boolean,
): { inject: boolean | null; text: string } {
  // Which webhooks exist and which are called needs both the configurations and the namespace's labels.
  const why = unread.webhooks ?? unread.namespace;
  if (why) return { inject: null, text: `not examined (${why})` };
  if (!d.called) {
    return {
      inject: false,
      text:
        d.calls.length === 0
          ? `no ${d.mesh} injection webhook is installed`
          : `no ${d.mesh} webhook would be called: the API server never asks the injector`,
    };
  }
  const failed = d.injector.find((s) => !s.ok);
  if (failed)
    return {
      inject: false,
      text: `the ${d.mesh} injector would ${failed.denies ? 'deny the pod' : 'skip it'}: ${failed.detail}`,
    };
  if (unread.injector)
    return {
      inject: null,
      text: `the webhook would be called; whether the ${d.mesh} injector injects the pod was not examined (${unread.injector})`,
    };
  const down = unreachable(d, backends, servicesRead);
  if (down) {
    const what = down.backend.service ? 'has no ready endpoint' : 'does not exist';
    const effect =
      down.policy === 'Ignore'
        ? 'the pod is created without a proxy (failurePolicy Ignore)'
        : 'pod creation is rejected (failurePolicy Fail)';
    return {
      inject: false,
      text: `the webhook would be called, but its service ${down.backend.namespace}/${down.backend.name} ${what}: the call fails and ${effect}`,
    };
  }
  if (unread.service)
    return {
      inject: null,
      text: `the webhook would be called; whether its service can answer was not examined (${unread.service})`,
    };
  return { inject: true, text: `a pod created now would get ${profileOf(d.mesh).containers.proxy}` };
}

function findWorkload(m: Model, kind: string, ns: string, name: string): { w: Workload; via?: string } {
  if (kind === 'Pod') {
    const owner = m.workloads.find((w) => w.namespace === ns && w.pods.some((p) => nameOf(p) === name));
    if (owner)
      return owner.kind === 'Pod'
        ? { w: owner }
        : { w: owner, via: `pod ${name} belongs to ${owner.kind} ${owner.name}: its template decides` };
  }
  if (kind === 'ReplicaSet') {
    // A ReplicaSet is judged through its Deployment (the template a rollout restart renews).
    const owner = workloadOfObject(m, 'ReplicaSet', ns, name);
    if (owner)
      return { w: owner, via: `replicaset ${name} belongs to ${owner.kind} ${owner.name}: its template decides` };
  }
  const w = m.workloads.find((x) => x.kind === kind && x.namespace === ns && x.name === name);
  if (w) return { w };
  // Not here: name the namespaces where it is, as kubectl users expect a hint for a missing -n.
  const elsewhere = [
    ...new Set(m.workloads.filter((x) => x.kind === kind && x.name === name).map((x) => x.namespace)),
  ].sort();
  const hint = elsewhere.length
    ? `; it exists in namespace ${elsewhere.map((x) => `"${x}"`).join(', ')} (use -n ${elsewhere[0]})`
    : '';
  throw new UserError(`${kind.toLowerCase()} "${name}" not found in namespace "${ns}"${hint}`);
}

/**
 * `run`: the result of the checks over the same snapshot (`runChecks`), whose related findings
 * are listed and whose coverage is the explanation's.
 */
export function explain(
  m: Model,
  target: { kind: string; name: string },
  ns: string,
  findings: Finding[],
  run?: { coverage: Coverage; skipped: SkippedCheck[]; summary: { checksRun: number } },
): Explanation {
  const { w, via } = findWorkload(m, target.kind, ns, target.name);
  const nsObj = m.namespace(ns);
  const decisions = m.decisions(w);
  const states = podStates(w);
  const meshes = decisions.map((d): MeshExplanation => {
    const backends = webhookBackends(m, d.mesh);
    const unread = unreadFor(m, d, backends);
    const v = verdict(d, backends, unread, !!m.snapshot.objects.services);
    // Without the namespace (its labels) or the configurations, which webhook is called, and the
    // injector's steps that read the namespace's marker, would be guesses: not shown.
    const guessed = !!(unread.namespace ?? unread.webhooks);
    return {
      mesh: d.mesh,
      namespaceMarker: unread.namespace ? null : (namespaceMarker(m, d.mesh, nsObj).text ?? null),
      ...(Object.keys(unread).length ? { notExamined: unread } : {}),
      webhooks: (guessed ? [] : d.calls).map((c) => ({
        configuration: c.webhook.configName,
        webhook: c.webhook.name,
        failurePolicy: c.webhook.failurePolicy,
        called: c.called,
        rulesMatchPodCreate: c.rules,
        namespaceSelector: c.namespaceSelector,
        objectSelector: c.objectSelector,
        backend: backendOf(backends, c.webhook),
        callFails:
          c.called && backendUnread(m, backends, c.webhook)
            ? null
            : c.called && isDown(backends, c.webhook, !!m.snapshot.objects.services),
      })),
      // The steps as rule, result and detail (a configuration step's evidence and fix are the finding's).
      injector: (unread.namespace ? [] : d.injector).map(({ rule, ok, detail, denies, unknown }) => ({
        rule,
        ok,
        detail,
        ...(denies ? { denies } : {}),
        ...(unknown ? { unknown } : {}),
      })),
      wouldInject: v.inject,
      verdict: v.text,
      asked: d.intent || d.inject,
    };
  });
  const injecting = meshes.filter((x) => x.wouldInject).map((x) => x.mesh);
  const unknownMesh = meshes.find((x) => x.wouldInject === null);
  // Which meshes are installed is read from the webhook configurations (and pods, Deployments, Namespaces).
  const meshesUnread = m.unread('mutatingwebhookconfigurations');
  const podsUnread = m.unread('pods');
  // A webhook called whose injector returns an error: the API server refuses the pod (it is not created without a proxy).
  const denying = decisions.filter((d) => d.called && d.injector.some((st) => !st.ok && st.denies)).map((d) => d.mesh);
  // Ambient mode: meshed with no proxy container; never reported as pods without a proxy to add one to.
  const sl = sidecarlessOf(m, w);
  const enrolled = sl ? states.unmeshed.filter((p) => sl.mode.enrolment(p).state === 'enrolled').map(nameOf) : [];
  return {
    workload: w.ref,
    ...(via ? { via } : {}),
    meshes,
    now: {
      pods: states.active.length,
      meshed: Object.fromEntries([...states.meshed].map(([mesh, pods]) => [mesh, pods.map(nameOf)])),
      unmeshed: states.unmeshed.map(nameOf),
      ...(podsUnread ? { notExamined: `cannot read ${podsUnread}` } : {}),
    },
    ...(meshesUnread ? { meshesNotExamined: `cannot read ${meshesUnread}` } : {}),
    ...(sl
      ? {
          sidecarless: {
            mesh: sl.mesh,
            mode: sl.mode.title,
            by: sl.by,
            enrolled,
            notEnrolled: states.unmeshed.map(nameOf).filter((n) => !enrolled.includes(n)),
          },
        }
      : {}),
    onRestart: sl
      ? `new pods join ${meshTitle(sl.mesh)} ${sl.mode.title} (${sl.by}), with no proxy container`
      : injecting.length
        ? `new pods get ${injecting.map((x) => profileOf(x).containers.proxy).join(' and ')}`
        : denying.length
          ? `new pods are refused: the ${denying.map((x) => meshTitle(x)).join(' and ')} injector would deny them (they cannot be created)`
          : unknownMesh
            ? `not examined: whether ${unknownMesh.mesh} injects them is not known (${Object.values(unknownMesh.notExamined ?? {})[0] ?? unknownMesh.verdict})`
            : meshes.length === 0
              ? meshesUnread
                ? `not examined (which meshes are installed is not known: cannot read ${meshesUnread})`
                : 'no mesh is installed: pods are never injected'
              : 'new pods get no proxy',
    findings: related(findings, w, new Set(decisions.filter((d) => d.called).map((d) => d.mesh))),
    ...(run ? { coverage: run.coverage, skipped: run.skipped, checksRun: run.summary.checksRun } : {}),
  };
}

function backendOf(
  backends: WebhookBackend[],
  hook: WebhookBackend['webhooks'][number],
): MeshExplanation['webhooks'][number]['backend'] {
  const b = backends.find((x) => x.webhooks.includes(hook));
  if (!b || !b.endpointsFrom || b.unread) return null;
  return { service: `${b.namespace}/${b.name}`, readyEndpoints: b.ready.length, notReadyEndpoints: b.notReady.length };
}

/**
 * Everything in the report that bears on the workload: the findings about it and about its
 * Namespace (a marker naming an uninstalled revision, a namespace the webhooks ignore), the
 * control-plane root causes of a mesh whose webhook its pods call, and the findings they name as
 * their causes (transitively).
 */
function related(findings: Finding[], w: Workload, called: Set<MeshName>): Finding[] {
  const own = findings.filter(
    (f) =>
      (f.resource.kind === w.kind && f.resource.namespace === w.namespace && f.resource.name === w.name) ||
      (f.resource.kind === 'Namespace' && f.resource.name === w.namespace) ||
      // A control-plane root cause (webhook broken, injector down) of a mesh whose webhook its pods call.
      // (Causes of one workload's own, an invalid marker or a turned-off token, are about that workload only.)
      (f.cause !== undefined && isControlPlaneCause(f.cause) && called.has(f.mesh)),
  );
  const keep = new Set(own);
  let frontier = own;
  while (frontier.length) {
    const causes = findings.filter(
      (f) => !keep.has(f) && f.causeKey && frontier.some((x) => x.causedBy === f.causeKey),
    );
    causes.forEach((f) => keep.add(f));
    frontier = causes;
  }
  return findings.filter((f) => keep.has(f)); // keep the report's ranking
}
