/**
 * The control-plane components of each installed mesh and whether they run (issue 31, gen10cp): the profile's table of
 * components (src/mesh/<mesh>/components.ts: the labels of each component's pods, what it provides, what breaks without
 * it) read against the cluster. Each component's workload is found in the mesh's control-plane namespaces by its pod
 * template's labels (the names follow the install's release name; the labels do not), its pods by the workload's
 * selector; it is down when it wants replicas and none is ready (its status, else its pods), or scaled to 0, and why is
 * read the one way every control-plane pod is read (src/facts/pod-warnings.ts: the scheduler's message, the kubelet's
 * words about an image or a crash, the volume it cannot mount, and the controller's FailedCreate when no pod exists).
 * A component with no workload at all is said missing only where a pod shows what only it provides (a Secret it
 * writes that the kubelet cannot find): a release that does not install it shows nothing of the kind.
 * The pods it affects are those showing its symptoms now: a proxy of the mesh running and not ready, an init container
 * of the mesh that does not finish, a pod the kubelet cannot mount one of its Secrets for.
 */
import { defineFactFamily, inputsOf } from '../k8s/fact.js';
import { isActive } from '../k8s/pods.js';
import { podHealth } from '../k8s/health.js';
import { evalSelector } from '../k8s/selectors.js';
import { WARNING_EVENTS, type WarningSeen } from '../k8s/warnings.js';
import type { ComponentSymptom, ControlPlaneComponent } from '../mesh/profile.js';
import type { MeshName } from '../mesh/names.js';
import { profileOf } from '../mesh/registry.js';
import { proxyNamesOfAllReleases, injectedNamesOfAllReleases } from '../mesh/releases.js';
import { isObj, labelsOf, nameOf, nsOf, str, time } from '../util/objects.js';
import type { K8sObject } from '../util/types.js';
import type { Model } from './model.js';
import { MESHES } from './model.js';
import { whyNoPods, whyNotRunning, type NotRunning } from './pod-warnings.js';

const KIND_KEYS = { Deployment: 'deployments', StatefulSet: 'statefulsets', DaemonSet: 'daemonsets' } as const;

/** A pod of the mesh that shows a component's symptom. */
interface Affected {
  pod: K8sObject;
  symptom: ComponentSymptom;
  /** What it shows: a clause ("linkerd-proxy not ready for 70 minutes"). */
  shows: string;
}

/** One component of a mesh as the cluster shows it. */
export interface ComponentState {
  mesh: MeshName;
  component: ControlPlaneComponent;
  /** Its workload, where one was found (else: missing). */
  ref?: { kind: string; namespace: string; name: string };
  workload?: K8sObject;
  /** The control-plane namespaces it was looked for in. */
  namespaces: readonly string[];
  pods: K8sObject[];
  desired?: number;
  ready?: number;
  state: 'runs' | 'down' | 'scaled-to-zero' | 'missing' | 'starting';
  /** Why its pods do not run, where the cluster says it. */
  why?: NotRunning;
  /** The pod whose state is quoted. */
  pod?: string;
  /** The pods of the mesh showing its symptoms now (bounded). */
  affected: Affected[];
  /** Missing: the Service its dependents dial, which selects no pod (namespace/name). */
  service?: string;
}

/** A pod younger than this with nothing broken is starting, not down. */
const STARTING_MS = 2 * 60_000;
/** A proxy or init container that has run this long without being ready (or finishing) shows a symptom. */
const SYMPTOM_MS = 60_000;

const matches = (labels: Record<string, string>, c: ControlPlaneComponent) =>
  c.podLabels.some((set) => Object.entries(set).every(([k, v]) => labels[k] === v));

const templateLabels = (o: K8sObject) =>
  labelsOf(isObj(o.spec) && isObj(o.spec.template) ? (o.spec.template as K8sObject) : undefined);

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Desired and ready replicas from the workload's own status (undefined: no status: a manifest, not a read object). */
function counts(kind: string, o: K8sObject): { desired: number; ready?: number } {
  const spec = isObj(o.spec) ? o.spec : {};
  const st = isObj(o.status) ? o.status : undefined;
  if (kind === 'DaemonSet')
    return { desired: num(st?.desiredNumberScheduled) ?? 0, ...(st ? { ready: num(st.numberReady) ?? 0 } : {}) };
  const desired = num(spec.replicas) ?? 1;
  const ready = kind === 'Deployment' ? (num(st?.availableReplicas) ?? num(st?.readyReplicas)) : num(st?.readyReplicas);
  return { desired, ...(st ? { ready: ready ?? 0 } : {}) };
}

const sinceMs = (m: Model, t: unknown) => {
  const d = time(t);
  return d ? m.now.getTime() - d.getTime() : undefined;
};

/** The pods of the mesh (in what was read) showing a proxy that never became ready or an init container that never finished. */
function podSymptoms(m: Model, mesh: MeshName, wanted: readonly ComponentSymptom[]): Affected[] {
  const p = profileOf(mesh);
  const proxies = new Set(proxyNamesOfAllReleases(p));
  const inits = new Set([...p.containers.init, ...injectedNamesOfAllReleases(p)].filter((n) => !proxies.has(n)));
  const out: Affected[] = [];
  const wantProxy = wanted.includes('proxy-not-ready');
  const wantInit = wanted.includes('init-not-finished');
  /** What one status shows (the first of a pod's statuses that shows something is its symptom). */
  const shows = (cs: Record<string, any>, isInit: boolean): Omit<Affected, 'pod'> | undefined => {
    const name = str(cs.name) ?? '';
    // A container the mesh did not inject shows nothing: asked first, before any time is parsed.
    const proxy = wantProxy && proxies.has(name);
    const init = wantInit && isInit && inits.has(name);
    if (!proxy && !init) return undefined;
    const running = isObj(cs.state) && isObj(cs.state.running) ? cs.state.running : undefined;
    const ran = running ? sinceMs(m, running.startedAt) : undefined;
    if (proxy && running && cs.ready !== true && (ran ?? 0) >= SYMPTOM_MS)
      return { symptom: 'proxy-not-ready', shows: `${name} running and not ready` };
    if (!init) return undefined;
    const waiting = isObj(cs.state) && isObj(cs.state.waiting) ? str(cs.state.waiting.reason) : undefined;
    if ((running && (ran ?? 0) >= SYMPTOM_MS) || waiting === 'CrashLoopBackOff')
      return {
        symptom: 'init-not-finished',
        shows: `${name} ${running ? 'running and not finished' : 'in CrashLoopBackOff'}`,
      };
    return undefined;
  };
  const pods = m.list('pods');
  for (let i = 0; i < pods.length && i < 20_000; i++) {
    if (out.length >= 200) break;
    const pod = pods[i]!;
    const st = isObj(pod.status) ? pod.status : {};
    // The first 32 statuses (init containers first) that are not null, as [...init, ...containers].slice(0, 32).
    let seen = 0;
    let hit: Omit<Affected, 'pod'> | undefined;
    for (const isInit of BOTH) {
      const list: unknown = isInit ? st.initContainerStatuses : st.containerStatuses;
      if (!Array.isArray(list)) continue;
      for (let j = 0; j < list.length && seen < 32 && !hit; j++) {
        const cs: unknown = list[j];
        if (cs === null || cs === undefined) continue;
        seen++;
        if (!isObj(cs)) continue;
        hit = shows(cs, isInit);
      }
      if (hit || seen >= 32) break;
    }
    if (!hit) continue;
    // Pods of namespaces the run does not see (check -n) are not evidence: live and offline runs must agree.
    if (!isActive(pod) || !m.seesNamespace(nsOf(pod)) || p.controlPlane.isOwnPod(labelsOf(pod), nsOf(pod))) continue;
    out.push({ pod, ...hit });
  }
  return out;
}

const BOTH = [true, false] as const;

/** The pods the kubelet cannot mount a Secret for whose name the component writes (its `secrets` pattern). */
function secretSymptoms(m: Model, c: ControlPlaneComponent): Affected[] {
  if (!c.secrets) return [];
  const re = new RegExp(c.secrets);
  const out: Affected[] = [];
  for (const [key, list] of m.fact(WARNING_EVENTS)) {
    if (out.length >= 200) break;
    if (!key.startsWith('Pod/')) continue;
    const [, ns, name] = key.split('/');
    if (!ns || !name || !m.seesNamespace(ns)) continue;
    const w = list.find((x: WarningSeen) => x.reason === 'FailedMount' && missingSecret(x.message, re));
    const pod = w ? m.get('pods', ns, name) : undefined;
    if (!w || !pod || !isActive(pod) || podHealth(pod).ready) continue;
    out.push({
      pod,
      symptom: 'secret-missing',
      shows: `the kubelet cannot mount Secret ${missingSecret(w.message, re)}`,
    });
  }
  return out.sort((a, b) => (`${nsOf(a.pod)}/${nameOf(a.pod)}` < `${nsOf(b.pod)}/${nameOf(b.pod)}` ? -1 : 1));
}

/**
 * The Service the mesh's injected containers dial for this component (the profile's `network` endpoints whose pod labels
 * are the component's), in the control-plane namespaces, when it exists, has a selector and selects no active pod.
 */
function emptyService(m: Model, mesh: MeshName, c: ControlPlaneComponent, namespaces: readonly string[]) {
  const same = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) =>
    Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);
  const eps = (profileOf(mesh).network?.endpoints ?? []).filter((e) => c.podLabels.some((l) => same(l, e.podLabels)));
  for (const ns of namespaces) {
    if (!m.readIn('services', ns)) continue;
    for (const e of eps) {
      const svcs = e.servicePrefix
        ? m.inNamespace('services', ns).filter((x) => nameOf(x).startsWith(e.service))
        : [m.get('services', ns, e.service)].filter((x): x is K8sObject => !!x);
      for (const svc of svcs.slice(0, 8)) {
        const sel = isObj(svc.spec) && isObj(svc.spec.selector) ? (svc.spec.selector as Record<string, string>) : {};
        if (!Object.keys(sel).length) continue; // no selector: endpoints kept by hand, nothing to judge
        const any = m
          .inNamespace('pods', ns)
          .some((p) => isActive(p) && evalSelector({ matchLabels: sel }, labelsOf(p)).matched);
        if (!any) return `${ns}/${nameOf(svc)}`;
      }
    }
  }
  return undefined;
}

/** The Secret a kubelet FailedMount message says it did not find, when its name is the component's. */
function missingSecret(message: string, re: RegExp): string | undefined {
  const name = /\bsecrets? "([^"]{1,253})" not found/.exec(message)?.[1];
  return name && re.test(name) ? name : undefined;
}

export const COMPONENT_STATES = defineFactFamily({
  id: 'component-states',
  inputs: inputsOf(MESHES, WARNING_EVENTS, [
    'deployments',
    'statefulsets',
    'daemonsets',
    'replicasets',
    'pods',
    'services',
  ]),
  compute: (m: Model, mesh: MeshName): ComponentState[] => {
    const p = profileOf(mesh);
    const namespaces = (m.mesh(mesh)?.namespaces ?? []).filter((ns) => m.seesNamespace(ns));
    const out: ComponentState[] = [];
    // The pods showing a set of symptoms, once per distinct set (components of a mesh share them): one scan each.
    const shown = new Map<string, Affected[]>();
    const symptomsOf = (wanted: readonly ComponentSymptom[]) => {
      const k = wanted.join(',');
      let a = shown.get(k);
      if (!a) shown.set(k, (a = podSymptoms(m, mesh, wanted)));
      return a;
    };
    for (const c of p.components ?? []) {
      const key = KIND_KEYS[c.kind];
      const found = namespaces
        .flatMap((ns) => m.inNamespace(key, ns).filter((o) => matches(templateLabels(o), c)))
        .sort((a, b) => (`${nsOf(a)}/${nameOf(a)}` < `${nsOf(b)}/${nameOf(b)}` ? -1 : 1));
      const affected = [...secretSymptoms(m, c), ...(c.symptoms.length ? symptomsOf(c.symptoms) : [])];
      if (!found.length) {
        // Missing: only where pods show what only it provides (a Secret it writes), or show its symptom while the Service
        // they dial for it selects no pod; and where the workloads were read there.
        const read = namespaces.length > 0 && namespaces.every((ns) => m.readIn(key, ns));
        const secrets = affected.filter((a) => a.symptom === 'secret-missing');
        const service = !secrets.length && affected.length && read ? emptyService(m, mesh, c, namespaces) : undefined;
        if (read && (secrets.length || service))
          out.push({
            mesh,
            component: c,
            namespaces,
            pods: [],
            state: 'missing',
            affected: secrets.length ? secrets : affected,
            ...(service ? { service } : {}),
          });
        continue;
      }
      for (const o of found.slice(0, 4)) {
        const ns = nsOf(o);
        const sel = isObj(o.spec) && isObj(o.spec.selector) ? o.spec.selector : undefined;
        const pods = sel
          ? m
              .inNamespace('pods', ns)
              .filter((x) => isActive(x) && evalSelector(sel, labelsOf(x)).matched)
              .sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : 1))
              .slice(0, 50)
          : [];
        const { desired, ready: statusReady } = counts(c.kind, o);
        const health = pods.map(podHealth);
        const readyPods = health.filter((h) => h.ready).length;
        const ready = statusReady ?? (m.has('pods') ? readyPods : undefined);
        const base = {
          mesh,
          component: c,
          ref: { kind: c.kind, namespace: ns, name: nameOf(o) },
          workload: o,
          namespaces,
          pods,
          desired,
          ...(ready !== undefined ? { ready } : {}),
          affected,
        };
        if (c.kind !== 'DaemonSet' && desired === 0) {
          out.push({ ...base, state: 'scaled-to-zero' });
          continue;
        }
        // Nothing says whether it runs (no status, no pods read), or a replica is ready: it runs.
        if (ready === undefined || ready > 0 || (m.has('pods') && readyPods > 0) || desired === 0) {
          out.push({ ...base, state: 'runs' });
          continue;
        }
        const failing = pods.find((x) => podHealth(x).broken) ?? pods.find((x) => !podHealth(x).ready);
        const why = failing ? whyNotRunning(m, mesh, failing) : whyNoPods(m, c.kind, ns, nameOf(o));
        // Young pods with nothing broken and nothing said: a rollout or a start in progress.
        const young =
          pods.length > 0 && pods.every((x) => (sinceMs(m, x.metadata?.creationTimestamp) ?? Infinity) < STARTING_MS);
        const starting = !why && young && !pods.some((x) => podHealth(x).broken);
        out.push({
          ...base,
          state: starting ? 'starting' : 'down',
          ...(why ? { why } : {}),
          ...(failing ? { pod: nameOf(failing) } : {}),
        });
      }
    }
    return out;
  },
});

/** The components of a mesh, as the cluster shows them. */
export const componentStates = (m: Model, mesh: MeshName): ComponentState[] => m.fact(COMPONENT_STATES, mesh);

/** A component of the mesh that does not run and is the one whose table row names `pod`'s symptom (one cause, one finding). */
export function downComponentOf(m: Model, mesh: MeshName, pod: K8sObject): ComponentState | undefined {
  return componentStates(m, mesh).find(
    (s) =>
      (s.state === 'down' || s.state === 'missing' || s.state === 'scaled-to-zero') &&
      !s.component.judgedBy &&
      s.affected.some((a) => a.pod === pod),
  );
}

/**
 * A component of the mesh that does not run and that the component of this workload needs to become ready itself
 * (the table's `needs`: Consul's client agents and the servers' leader), found by the workload's pod template labels.
 */
export function downDependency(m: Model, mesh: MeshName, workload: K8sObject): ComponentState | undefined {
  const states = componentStates(m, mesh);
  const labels = templateLabels(workload);
  const own = (profileOf(mesh).components ?? []).find((c) => matches(labels, c));
  if (!own?.needs) return undefined;
  return states.find(
    (s) =>
      s.component.id === own.needs && (s.state === 'down' || s.state === 'missing' || s.state === 'scaled-to-zero'),
  );
}
