/**
 * Every known bug of every mesh's release tables (src/mesh/<mesh>/releases.ts `bugs` and `olderBugs`, issue 31.9),
 * derived from its row: known-release-bug names it on a cluster showing its symptom (and every trigger) at the last
 * affected version, and stays silent on the same cluster at the release that fixed it. A row added later is covered
 * without a fixture of its own. Each case is laid over a healthy cluster of the row's mesh (the first one where the
 * affected case fires): its meshed app pod shows the symptom, its injector runs the version judged, or a new
 * workload of that namespace is refused (FailedCreate) with the refusal the row describes.
 *
 * A refusal whose row is matched by a pattern (`about: 'matches'`) cannot be derived from the pattern: EXAMPLES holds
 * the message the API server wrote for it (from the row's report or fix, as its fixture quotes it). A new such row
 * needs its example here (the test says so).
 */
import { describe, expect, it } from 'vitest';
import { HEALTHY_FILES, baseObjects, findings, snapshotFrom, type Base } from './helpers/fixtures.js';
import { PROFILE_LIST } from '../src/mesh/registry.js';
import { allBugs } from '../src/mesh/releases.js';
import { injectedNames } from '../src/mesh/proxy.js';
import type { KnownBug, BugTrigger } from '../src/mesh/release-table.js';
import type { MeshProfile } from '../src/mesh/profile.js';
import type { K8sObject } from '../src/util/types.js';

/** The refusal the API server wrote, for rows matched by a pattern (quoted from each row's fixture or report). */
const EXAMPLES: Record<string, string> = {
  'istio/istio#9571':
    'create Pod nginx-0 in StatefulSet nginx failed error: Pod "nginx-0" is invalid: spec.containers[1].env[8].name: Invalid value: "ISTIO_META_statefulset.kubernetes.io/pod-name": a valid environment variable name must consist of alphabetic characters',
  'hashicorp/consul-k8s#20':
    'Error creating: Internal error occurred: Internal error occurred: jsonpatch add operation does not apply: doc is missing path: /metadata/annotations/consul.hashicorp.com~1connect-inject-status',
  'kumahq/kuma#11993':
    'Error creating: Pod "derived-bug-5d8f7c6b9-x2k4p" is invalid: [spec.initContainers[0].name: Required value, spec.initContainers[0].image: Required value]',
  'linkerd/linkerd2#9718':
    'admission webhook "validation.gatekeeper.sh" denied the request: [psp-allow-privilege-escalation-container] Privilege escalation container is not allowed: linkerd-init',
  'linkerd/linkerd2#10150':
    'Error creating: pods "derived-bug-5d8f7c6b9-" is forbidden: PodSecurityPolicy: unable to admit pod: [pod.metadata.annotations[container.seccomp.security.alpha.kubernetes.io/identity]: Forbidden: seccomp may not be set pod.metadata.annotations[container.seccomp.security.alpha.kubernetes.io/linkerd-proxy]: Forbidden: seccomp may not be set]',
  'istio/istio#58805':
    'Error creating: Pod "derived-bug-5d8f7c6b9-x2v9q" is invalid: spec.initContainers[1].resources.requests: Invalid value: "100m": must be less than or equal to cpu limit of 0',
  'linkerd/linkerd2#8402':
    'Error creating: pods "derived-bug-5d8f7c6b9-" is forbidden: PodSecurityPolicy: unable to admit pod: [spec.initContainers[0].securityContext.allowPrivilegeEscalation: Invalid value: true: Allowing privilege escalation for containers is not allowed]',
};

/** Annotation values tried for a trigger that wants a value matching its pattern (the first that matches is used). */
const VALUES = ['enabled', 'true', '9990', '1m', '500ms', '1', 'yes', ''];

const clone = <T>(o: T): T => JSON.parse(JSON.stringify(o)) as T;
const meta = (o: K8sObject) => o.metadata as Record<string, any>;
const withTag = (image: unknown, tag: string) =>
  `${String(image ?? 'example.test/x:1').replace(/[:@][^:/]*$/, '')}:${tag}`;
const key = (o: K8sObject) => `${o.kind}/${meta(o).namespace ?? ''}/${meta(o).name}`;

/** The healthy clusters of a mesh, its own first. */
const basesOf = (mesh: string): Base[] =>
  HEALTHY_FILES.filter((b) => b === mesh || String(b).startsWith(`${mesh}-`)).sort((a, b) =>
    a === mesh ? -1 : b === mesh ? 1 : 0,
  );

/** A meshed app pod of the base: it runs the mesh's proxy and has an owner, outside the control plane. */
function appPod(p: MeshProfile, objects: K8sObject[]): K8sObject | undefined {
  const names = new Set(injectedNames(p));
  return objects.find((o) => {
    if (o.kind !== 'Pod' || !meta(o).ownerReferences?.length) return false;
    const spec = o.spec as Record<string, any>;
    const all = [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])];
    const labels = (meta(o).labels ?? {}) as Record<string, string>;
    return (
      all.some((c: any) => names.has(c.name)) &&
      all.some((c: any) => c.name === p.containers.proxy) &&
      !p.controlPlane.isOwnPod(labels, String(meta(o).namespace))
    );
  });
}

/** Lay the trigger on the pod (and beside it: a headless Service). */
function trigger(pod: K8sObject, t: BugTrigger, extra: K8sObject[], injected: ReadonlySet<string>): boolean {
  const spec = pod.spec as Record<string, any>;
  if (t === 'headless-service') {
    const labels = { ...(meta(pod).labels ?? {}) };
    delete labels['pod-template-hash'];
    extra.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'derived-headless', namespace: meta(pod).namespace, uid: 'svc-derived-headless' },
      spec: { clusterIP: 'None', selector: labels, ports: [{ port: 80 }] },
    });
    return true;
  }
  if (t === 'first-container-without-ports') {
    // The pod's first own container declares no ports, a later one does.
    const own = (spec.containers ?? []).filter((c: any) => !injected.has(c.name));
    if (!own.length) return false;
    for (const c of own) delete c.ports;
    spec.containers = [
      ...(spec.containers ?? []),
      { name: 'derived-sidecar', image: 'example.test/sidecar:1', ports: [{ containerPort: 9999 }] },
    ];
    return true;
  }
  if ('annotation' in t) {
    const value = t.matches === undefined ? 'true' : VALUES.find((v) => new RegExp(t.matches!).test(v));
    if (value === undefined) return false;
    meta(pod).annotations = { ...(meta(pod).annotations ?? {}), [t.annotation]: value };
    return true;
  }
  if ('nativeSidecar' in t) {
    const i = (spec.containers ?? []).findIndex((c: any) => c.name === t.nativeSidecar);
    const c =
      i >= 0
        ? spec.containers.splice(i, 1)[0]
        : (spec.initContainers ?? []).find((x: any) => x.name === t.nativeSidecar);
    if (!c) return false;
    c.restartPolicy = 'Always';
    if (i >= 0) spec.initContainers = [...(spec.initContainers ?? []), c];
    const statuses = (pod.status ?? {}) as Record<string, any>;
    const si = (statuses.containerStatuses ?? []).findIndex((s: any) => s.name === t.nativeSidecar);
    if (si >= 0)
      statuses.initContainerStatuses = [
        ...(statuses.initContainerStatuses ?? []),
        ...statuses.containerStatuses.splice(si, 1),
      ];
    return true;
  }
  const c = [...(spec.initContainers ?? []), ...(spec.containers ?? [])].find((x: any) => x.name === t.container);
  if (c) c.args = [...(c.args ?? []), t.holds];
  else
    spec.containers = [...(spec.containers ?? []), { name: t.container, image: 'example.test/c:1', args: [t.holds] }];
  return true;
}

type PodSymptom = Extract<KnownBug['symptom'], { on: 'pod' }>;

/** The container of the pod shows the symptom: its status is set (added as an init container when the pod lacks it). */
function show(pod: K8sObject, s: Exclude<PodSymptom, { shows: 'sandbox-failed' }>, version: string): void {
  const spec = pod.spec as Record<string, any>;
  const inInit = (spec.initContainers ?? []).some((c: any) => c.name === s.container);
  const inMain = (spec.containers ?? []).some((c: any) => c.name === s.container);
  if (!inInit && !inMain)
    spec.initContainers = [
      { name: s.container, image: `example.test/${s.container}:${version}` },
      ...(spec.initContainers ?? []),
    ];
  const field = inMain ? 'containerStatuses' : 'initContainerStatuses';
  const status = (pod.status ??= {}) as Record<string, any>;
  const list = (status[field] ?? []).filter((x: any) => x.name !== s.container);
  const reason = typeof s.reason === 'string' ? s.reason : s.reason[0]!;
  list.unshift(
    s.shows === 'waiting'
      ? { name: s.container, ready: false, restartCount: 3, state: { waiting: { reason, message: s.message } } }
      : {
          name: s.container,
          ready: false,
          restartCount: 3,
          state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container' } },
          lastState: {
            terminated: {
              reason: s.reason,
              exitCode: 1,
              ...(s.message ? { message: s.message } : {}),
              // A run that lasted as long as the row asks (a crash of a serving proxy), from 11:00 on.
              ...(s.afterRunning !== undefined
                ? {
                    startedAt: '2026-11-22T11:00:00Z',
                    finishedAt: new Date(Date.parse('2026-11-22T11:00:00Z') + s.afterRunning * 1000).toISOString(),
                  }
                : {}),
            },
          },
        },
  );
  status[field] = list;
  status.phase = 'Pending';
}

/** The version the case runs: the pod's mesh containers (or the one named by versionFrom), or the node agent's pod. */
function podCase(p: MeshProfile, bug: KnownBug, objects: K8sObject[], version: string): K8sObject[] | string {
  const s = bug.symptom as PodSymptom;
  const found = appPod(p, objects);
  if (!found) return 'no meshed app pod in the base';
  const pod = clone(found);
  const extra: K8sObject[] = [];
  const spec = pod.spec as Record<string, any>;
  const names = new Set([...injectedNames(p), ...(s.versionFrom ? [s.versionFrom] : [])]);
  if (
    s.versionFrom &&
    ![...(spec.containers ?? []), ...(spec.initContainers ?? [])].some((c: any) => c.name === s.versionFrom)
  )
    spec.containers = [...(spec.containers ?? []), { name: s.versionFrom, image: `example.test/${s.versionFrom}:1` }];
  if (!s.componentFrom)
    for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])])
      if (names.has(c.name)) c.image = withTag(c.image, version);
  for (const t of (Array.isArray(s.when) ? s.when : s.when ? [s.when] : []) as BugTrigger[])
    if (!trigger(pod, t, extra, names)) return `no value tried matches the trigger ${JSON.stringify(t)}`;
  if (s.shows === 'sandbox-failed') {
    // The kubelet's event about the pod, naming the mesh's CNI plugin (libcni's words).
    const plugin = p.cni?.pluginType;
    if (!plugin) return 'no CNI plugin in the profile';
    const st = (pod.status ??= {}) as Record<string, any>;
    st.phase = 'Pending';
    for (const list of ['initContainerStatuses', 'containerStatuses'])
      st[list] = (st[list] ?? []).map((x: any) => ({
        name: x.name,
        ready: false,
        restartCount: 0,
        state: { waiting: { reason: 'PodInitializing' } },
      }));
    extra.push({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${meta(pod).name}.sandbox`, namespace: meta(pod).namespace, uid: 'ev-derived-sandbox' },
      involvedObject: { kind: 'Pod', name: meta(pod).name, namespace: meta(pod).namespace, uid: meta(pod).uid },
      reason: 'FailedCreatePodSandBox',
      type: 'Warning',
      count: 12,
      firstTimestamp: '2026-11-22T11:00:00Z',
      lastTimestamp: '2026-11-22T11:50:00Z',
      message: `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "0f3c": plugin type="${plugin}" name="${plugin}" failed (add): ${s.message}`,
    });
  } else show(pod, s, version);
  if (s.componentFrom) {
    const c = (p.components ?? []).find((x) => x.id === s.componentFrom);
    if (!c) return `no component ${s.componentFrom}`;
    spec.nodeName ??= 'node-derived-1';
    extra.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `derived-agent-${c.id}`,
        namespace: meta(pod).namespace,
        uid: `pod-derived-agent-${c.id}`,
        labels: { ...c.podLabels[0] },
        creationTimestamp: '2026-11-01T00:00:00Z',
      },
      spec: { nodeName: spec.nodeName, containers: [{ name: 'agent', image: `example.test/agent:${version}` }] },
      status: {
        phase: 'Running',
        containerStatuses: [{ name: 'agent', ready: true, restartCount: 0, state: { running: {} } }],
      },
    });
  }
  return [pod, ...extra];
}

/** The mesh's injector Deployments of the base, and their pods, run `version` (every container's tag). */
function injectorAt(p: MeshProfile, objects: K8sObject[], version: string, crash: boolean): K8sObject[] {
  const deps = objects.filter(
    (o) => o.kind === 'Deployment' && p.controlPlane.injector.isDeployment(String(meta(o).name)),
  );
  const out: K8sObject[] = [];
  for (const d of deps) {
    const dd = clone(d);
    for (const c of (dd.spec as any)?.template?.spec?.containers ?? []) c.image = withTag(c.image, version);
    out.push(dd);
    const owned = objects.filter(
      (o) =>
        o.kind === 'Pod' &&
        meta(o).namespace === meta(d).namespace &&
        String(meta(o).name).startsWith(`${meta(d).name}-`),
    );
    for (const pod of owned) {
      const pp = clone(pod);
      for (const c of (pp.spec as any)?.containers ?? []) c.image = withTag(c.image, version);
      if (crash) {
        const st = (pp.status ??= {}) as Record<string, any>;
        st.phase = 'Running';
        st.containerStatuses = ((pp.spec as any)?.containers ?? []).map((c: any) => ({
          name: c.name,
          ready: false,
          restartCount: 5,
          state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 2m40s restarting failed container' } },
          lastState: { terminated: { reason: 'Error', exitCode: 1 } },
        }));
      }
      out.push(pp);
    }
  }
  return out;
}

/** A new workload of the app pod's namespace whose pods are refused with the row's refusal. */
function workloadCase(p: MeshProfile, bug: KnownBug, objects: K8sObject[], version: string): K8sObject[] | string {
  const s = bug.symptom as Extract<KnownBug['symptom'], { on: 'workload' }>;
  const pod = appPod(p, objects);
  if (!pod) return 'no meshed app pod in the base';
  // A bug of the control plane's own workloads: the new workload is one of them (the injector's namespace and labels).
  const injector = objects.find(
    (o) => o.kind === 'Deployment' && p.controlPlane.injector.isDeployment(String(meta(o).name)),
  );
  const own = s.own ? injector : undefined;
  if (s.own && !own) return 'no injector Deployment in the base';
  const ns = own ? String(meta(own).namespace) : String(meta(pod).namespace);
  const about = s.about ?? 'quota';
  const message =
    about === 'quota'
      ? `Error creating: pods "derived-bug-5d8f7c6b9-x2k4p" is forbidden: failed quota: compute: ${s.message}limits.cpu,limits.memory`
      : about === 'named'
        ? `Error creating: pods "derived-bug-5d8f7c6b9-x2k4p" is forbidden: ${s.message} (container "${s.container}" must be changed)`
        : EXAMPLES[bug.id];
  if (!message) return `no example refusal for ${bug.id}: add one to EXAMPLES`;
  const labels = {
    ...(own ? ((own.spec as any)?.template?.metadata?.labels ?? {}) : (meta(pod).labels ?? {})),
    app: 'derived-bug',
  } as Record<string, string>;
  delete labels['pod-template-hash'];
  const annotations = own ? {} : { ...(meta(pod).annotations ?? {}) };
  return [
    ...injectorAt(p, objects, version, false),
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'derived-bug', namespace: ns, uid: 'dep-derived-bug', generation: 1 },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'derived-bug' } },
        template: {
          metadata: { labels, annotations },
          spec: {
            containers: [
              {
                name: 'app',
                image: 'example.test/app:1',
                resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
              },
            ],
          },
        },
      },
      status: { replicas: 0, observedGeneration: 1, unavailableReplicas: 1 },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: 'derived-bug-5d8f7c6b9',
        namespace: ns,
        uid: 'rs-derived-bug',
        labels: { app: 'derived-bug', 'pod-template-hash': '5d8f7c6b9' },
        ownerReferences: [{ kind: 'Deployment', name: 'derived-bug', uid: 'dep-derived-bug', controller: true }],
      },
      spec: { replicas: 1 },
      status: { replicas: 0 },
    },
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'derived-bug-5d8f7c6b9.1', namespace: ns, uid: 'ev-derived-bug' },
      involvedObject: { kind: 'ReplicaSet', name: 'derived-bug-5d8f7c6b9', namespace: ns, uid: 'rs-derived-bug' },
      reason: 'FailedCreate',
      type: 'Warning',
      count: 4,
      firstTimestamp: '2026-11-22T11:00:00Z',
      lastTimestamp: '2026-11-22T11:50:00Z',
      message,
    },
  ];
}

/** The case of the row at `version` over the base: its objects, or why it cannot be built. */
function caseOf(p: MeshProfile, bug: KnownBug, base: Base, version: string): K8sObject[] | string {
  const objects = baseObjects(base);
  const layer =
    bug.symptom.on === 'pod'
      ? podCase(p, bug, objects, version)
      : bug.symptom.on === 'workload'
        ? workloadCase(p, bug, objects, version)
        : injectorAt(p, objects, version, true);
  if (typeof layer === 'string') return layer;
  const over = new Map(layer.map((o) => [key(o), o]));
  return [...objects.filter((o) => !over.has(key(o))), ...layer];
}

const named = (objects: K8sObject[], bug: KnownBug) =>
  findings(snapshotFrom(objects), ['known-release-bug']).filter((f) => (f.evidence as any)?.bug === bug.id);

const ROWS = PROFILE_LIST.flatMap((p) => allBugs(p.versions?.releases).map((bug) => ({ p, bug })));

describe('known-release-bug: a case derived from every row of the release tables', () => {
  it('has rows of every mesh with release tables', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(15);
    expect(new Set(ROWS.map((r) => `${r.bug.id} ${r.bug.affected.from}`)).size).toBe(ROWS.length);
  });

  for (const { p, bug } of ROWS)
    it(`${p.name} ${bug.id} (from ${bug.affected.from}): named at ${bug.affected.to}, silent at ${bug.fixedIn}`, () => {
      const tried: string[] = [];
      for (const base of basesOf(p.name)) {
        const affected = caseOf(p, bug, base, bug.affected.to);
        if (typeof affected === 'string') {
          tried.push(`${base}: ${affected}`);
          continue;
        }
        const fs = named(affected, bug);
        if (!fs.length) {
          tried.push(`${base}: silent at ${bug.affected.to}`);
          continue;
        }
        expect(fs[0]!.message).toContain(bug.fixedIn);
        // The same cluster at the release that fixed it: nothing named.
        const fixed = caseOf(p, bug, base, bug.fixedIn);
        expect(typeof fixed).not.toBe('string');
        expect(named(fixed as K8sObject[], bug).map((f) => f.message)).toEqual([]);
        // The first affected version is named too.
        const first = caseOf(p, bug, base, bug.affected.from);
        expect(named(first as K8sObject[], bug).length).toBeGreaterThan(0);
        // A row that asks for a crash of a serving proxy: the same end one second after the start is not it.
        const s = bug.symptom;
        if (s.on === 'pod' && s.shows === 'terminated' && s.afterRunning !== undefined) {
          const short = caseOf(p, bug, base, bug.affected.to) as K8sObject[];
          let cut = 0;
          for (const o of short)
            for (const st of [
              ...(((o.status as any)?.initContainerStatuses ?? []) as any[]),
              ...(((o.status as any)?.containerStatuses ?? []) as any[]),
            ])
              if (st.lastState?.terminated?.startedAt === '2026-11-22T11:00:00Z') {
                st.lastState.terminated.finishedAt = '2026-11-22T11:00:01Z';
                cut++;
              }
          expect(cut).toBeGreaterThan(0);
          expect(named(short, bug)).toEqual([]);
        }
        return;
      }
      expect.fail(`no healthy cluster of ${p.name} names ${bug.id}:\n${tried.join('\n')}`);
    });
});
