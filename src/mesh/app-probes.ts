/**
 * What the release tables say of a meshed pod's app probes (issue 31, gen12probes): the rows' `probes`
 * (src/mesh/release-table.ts ProbeHandling) for the release the pod's proxy runs (the injector of that release wrote
 * the pod), applied to each probe of the pod's app containers as its spec shows it. For each probe: whether the
 * injector pointed it at the proxy's own probe listener (rewritten: the probe works through the proxy), whether the
 * port is intercepted at all (an excluded port, inbound redirection off: the kubelet reaches the app), and, for a
 * probe the proxy meets in plaintext, why it was not rewritten and whether the proxy refuses it. Mesh-agnostic: every
 * mesh's facts are its rows. A version the tables cannot place says nothing.
 */
import type { K8sObject } from '../util/types.js';
import { annotationsOf, arr, isObj, str } from '../util/objects.js';
import type { MeshProfile } from './profile.js';
import type { ProbeHandler, ProbeHandling, ProbeKind } from './release-table.js';
import { releaseFacts } from './releases.js';
import { injectedNames } from './proxy.js';

/** One probe of an app container, as the pod's spec shows it. */
export interface AppProbe {
  readonly container: string;
  readonly kind: ProbeKind;
  readonly handler: ProbeHandler | 'exec';
  /** The port, resolved from a named port where the container declares it. */
  readonly port?: number;
  readonly portName?: string;
  readonly path?: string;
}

/** Why a probe the proxy meets was not rewritten. */
type NotRewritten =
  | 'no-rewrite' // the release rewrites no probe (it relies on its inbound policy)
  | 'release' // the release does not rewrite this kind or handler
  | 'annotation' // the pod annotation turned the rewrite off
  | 'added-after' // the release rewrote the pod's other probes, not this container's: added after injection
  | 'setting'; // the install's setting was off (or the container was added after injection)

/** A probe the proxy meets in plaintext and refuses, by the tables. */
export interface ProbeThroughProxy {
  readonly probe: AppProbe;
  readonly why: NotRewritten;
  /** authz: the default inbound policy read and where ('pod', 'namespace'), or undefined: the install's, not read. */
  readonly policy?: { readonly value: string; readonly on: 'pod' | 'namespace' };
  /** The release's authorization of probes left out this probe's path shape (a bug fixed in a patch release). */
  readonly unmatched?: NonNullable<NonNullable<ProbeHandling['unrewritten']['authorized']>['except']>;
}

/** What the pod's release does with probes, with the release as text ("Istio 1.7") and the row's source. */
export interface PodProbeHandling {
  readonly release: string;
  /** The release's name in the table's order ("1.7"). */
  readonly name: string;
  readonly version: string;
  readonly handling: ProbeHandling;
  readonly source: string;
}

const KINDS: readonly [ProbeKind, string][] = [
  ['liveness', 'livenessProbe'],
  ['readiness', 'readinessProbe'],
  ['startup', 'startupProbe'],
];

/** The release rows' probe handling for the release the pod's proxy runs. */
export function podProbeHandling(p: MeshProfile, pod: K8sObject): PodProbeHandling | undefined {
  const v = p.versions?.proxy(pod);
  const f = releaseFacts(p, v);
  if (!v || !f?.release) return undefined;
  const row = [...f.rows].reverse().find((r) => r.probes);
  if (!row?.probes) return undefined;
  return {
    release: `${p.title} ${f.release}`,
    name: f.release,
    version: v.version,
    handling: row.probes,
    source: row.source,
  };
}

/** The probes of the pod's app containers (not the mesh's injected ones), bounded. */
function appProbes(p: MeshProfile, pod: K8sObject): AppProbe[] {
  // The mesh's own containers, today's and every release's (istio-proxy's own readiness probe is no app's).
  const injected = new Set(injectedNames(p));
  const out: AppProbe[] = [];
  const spec = isObj(pod.spec) ? pod.spec : {};
  for (const c of arr(spec.containers).slice(0, 64)) {
    if (!isObj(c)) continue;
    const name = str(c.name);
    if (!name || injected.has(name)) continue;
    const ports = arr(c.ports).filter(isObj);
    for (const [kind, field] of KINDS) {
      const pr = c[field];
      if (!isObj(pr)) continue;
      const handler: AppProbe['handler'] | undefined = isObj(pr.httpGet)
        ? 'httpGet'
        : isObj(pr.tcpSocket)
          ? 'tcpSocket'
          : isObj(pr.grpc)
            ? 'grpc'
            : isObj(pr.exec)
              ? 'exec'
              : undefined;
      if (!handler) continue;
      const h = handler === 'exec' ? {} : (pr[handler] as Record<string, unknown>);
      const raw = h.port;
      let port: number | undefined;
      let portName: string | undefined;
      if (typeof raw === 'number') port = raw;
      else if (typeof raw === 'string' && /^\d{1,5}$/.test(raw)) port = Number(raw);
      else if (typeof raw === 'string') {
        portName = raw;
        const hit = ports.find((x) => x.name === raw);
        if (hit && typeof hit.containerPort === 'number') port = hit.containerPort;
      }
      const path = handler === 'httpGet' ? (str(h.path) ?? '/') : undefined;
      out.push({
        container: name,
        kind,
        handler,
        ...(port !== undefined ? { port } : {}),
        ...(portName ? { portName } : {}),
        ...(path ? { path } : {}),
      });
    }
  }
  return out;
}

/** Ports listed in an annotation ("8080,9090", "8000-8010" ranges, "*"). */
function portsIn(value: string | undefined): { all: boolean; has(port: number): boolean } | undefined {
  if (value === undefined) return undefined;
  const parts = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .slice(0, 256);
  const all = parts.includes('*');
  return {
    all,
    has: (port) =>
      all ||
      parts.some((s) => {
        const r = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(s);
        if (!r) return false;
        const lo = Number(r[1]);
        const hi = r[2] ? Number(r[2]) : lo;
        return port >= lo && port <= hi;
      }),
  };
}

/** Whether a probe points at the release's own probe listener (rewritten). */
function isRewritten(h: ProbeHandling, pod: K8sObject, probe: AppProbe): boolean {
  const r = h.rewrites;
  if (!r || probe.port === undefined || probe.handler !== 'httpGet') return false;
  const ann = r.portAnnotation ? annotationsOf(pod)[r.portAnnotation] : undefined;
  const set = ann !== undefined && /^\d{1,5}$/.test(ann) ? Number(ann) : undefined;
  if (set !== undefined && set !== 0 && probe.port === set) return true;
  return probe.port >= r.port && probe.port < r.port + (r.range ?? 1);
}

/** Whether the proxy intercepts the probe's port at all (false: the kubelet reaches the app itself). */
function intercepted(h: ProbeHandling, pod: K8sObject, probe: AppProbe): boolean {
  const a = annotationsOf(pod);
  if (h.redirect) {
    const v = a[h.redirect.annotation];
    if (v !== undefined ? h.redirect.off.includes(v) : !h.redirect.byDefault) return false;
  }
  if (probe.port === undefined) return true;
  for (const key of h.exclude ?? []) if (portsIn(a[key])?.has(probe.port)) return false;
  const inc = h.include ? portsIn(a[h.include]) : undefined;
  if (inc && !inc.all && !inc.has(probe.port)) return false;
  return true;
}

/**
 * The probes of the pod the proxy meets unrewritten and refuses, by the release's row (`nsAnnotations`: the pod's
 * namespace's annotations, where read). Silent for a rewritten probe, a port not intercepted, an exec probe, a tcpSocket
 * probe (the proxy accepts every connection, so it never fails through it) and a release that forwards plaintext.
 */
export function probesThroughProxy(
  p: MeshProfile,
  pod: K8sObject,
  ph: PodProbeHandling,
  nsAnnotations: Readonly<Record<string, string>> | undefined,
): ProbeThroughProxy[] {
  const h = ph.handling;
  const u = h.unrewritten;
  if (u.refused === 'passes') return [];
  const probes = appProbes(p, pod);
  const a = annotationsOf(pod);
  const rewrittenContainers = new Set(probes.filter((x) => isRewritten(h, pod, x)).map((x) => x.container));
  const out: ProbeThroughProxy[] = [];
  for (const probe of probes) {
    if (probe.handler === 'exec' || probe.handler === 'tcpSocket') continue;
    if (isRewritten(h, pod, probe) || !intercepted(h, pod, probe)) continue;
    const r = h.rewrites;
    let why: NotRewritten;
    if (!r) why = 'no-rewrite';
    else if (!r.handlers.includes(probe.handler) || !r.kinds.includes(probe.kind)) why = 'release';
    else if (r.annotation && a[r.annotation] !== undefined && (r.off ?? []).includes(a[r.annotation]!))
      why = 'annotation';
    else if (rewrittenContainers.size && !rewrittenContainers.has(probe.container)) why = 'added-after';
    else why = 'setting';
    if (u.refused === 'authz') {
      const podPolicy = u.policyAnnotation ? a[u.policyAnnotation] : undefined;
      const nsPolicy = u.policyAnnotation ? nsAnnotations?.[u.policyAnnotation] : undefined;
      const policy =
        podPolicy !== undefined
          ? { value: podPolicy, on: 'pod' as const }
          : nsPolicy !== undefined
            ? { value: nsPolicy, on: 'namespace' as const }
            : undefined;
      // A policy read that admits unauthenticated clients: the proxy forwards the probe.
      if (policy && !(u.refusing ?? []).includes(policy.value)) continue;
      const auth = u.authorized;
      let unmatched: ProbeThroughProxy['unmatched'];
      if (auth?.handlers.includes(probe.handler as ProbeHandler)) {
        const ex = auth.except;
        const affected =
          ex &&
          probe.path !== undefined &&
          new RegExp(ex.path).test(probe.path) &&
          (!ex.fixedIn || (p.versions?.compare(ph.version, ex.fixedIn) ?? 0) < 0);
        if (!affected) continue;
        unmatched = ex;
      }
      out.push({ probe, why, ...(policy ? { policy } : {}), ...(unmatched ? { unmatched } : {}) });
      continue;
    }
    out.push({ probe, why });
  }
  return out;
}

/** Whether a kubelet failure text is the one the release's refusal gives (its `shows`). */
export const refusalShows = (h: ProbeHandling, text: string): boolean =>
  h.unrewritten.shows.some((s) => new RegExp(s).test(text));

/**
 * The first release after `current` (a name of the table's order) whose rows rewrite this probe's kind and handler, or
 * authorize it despite a refusing policy: where an upgrade lets the probe through.
 */
export function firstServing(p: MeshProfile, probe: AppProbe, current: string): string | undefined {
  const t = p.versions?.releases;
  if (!t) return undefined;
  const from = t.order.indexOf(current);
  if (from < 0) return undefined;
  for (const rel of t.order.slice(from + 1)) {
    const row = [...t.rows].reverse().find((r) => r.probes && spansRelease(t.order, r, rel));
    const h = row?.probes;
    if (!h) continue;
    const handler = probe.handler as ProbeHandler;
    if (h.rewrites?.handlers.includes(handler) && h.rewrites.kinds.includes(probe.kind)) return rel;
    if (h.unrewritten.refused === 'authz' && h.unrewritten.authorized?.handlers.includes(handler)) return rel;
  }
  return undefined;
}

function spansRelease(order: readonly string[], r: { from: string; to?: string }, rel: string): boolean {
  const i = order.indexOf(rel);
  const lo = order.indexOf(r.from);
  const hi = r.to ? order.indexOf(r.to) : order.length - 1;
  return i >= 0 && lo >= 0 && i >= lo && i <= hi;
}
