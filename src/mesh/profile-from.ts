/**
 * `profileFrom(data, behaviour)`: a MeshProfile from a mesh's data document and its behaviour
 * object (src/mesh/mesh-data.ts). Every member is derived here the same way for every mesh; the
 * behaviour's `extend` replaces a derived member where the mesh needs more than its data says.
 * Mesh-free: it names no mesh.
 */
import { cmd, comment, lit, type Step } from '../fix/steps.js';
import { removeFromTemplate, setOnTemplate } from '../fix/commands.js';
import { annotationOf, annotationsOf, labelOf, labelsOf, shq } from '../util/objects.js';
import type { K8sObject } from '../util/types.js';
import type { MarkerTable } from './marker-table.js';
import { fieldWord } from './marker-table.js';
import type { MarkerValues, MeshBehaviour, MeshData } from './mesh-data.js';
import type {
  EnableMarker,
  MarkerProblemDraft,
  MeshProfile,
  NamespaceProblemContext,
  ResourceKey,
  WorkloadProblemContext,
} from './profile.js';
import type { MeshContext } from './context.js';
import { asksOn } from './asks.js';
import {
  compareSemver,
  containerVersion,
  deploymentText,
  minorRelease,
  podContainer,
  templateContainer,
} from './versions.js';

const RESOURCE_KEYS: readonly ResourceKey[] = ['requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];

/** The value is one of `values` ('any': every value is). */
const among = (values: MarkerValues, v: string): boolean => values === 'any' || values.includes(v);

type TemplateKeyData = MeshData['markers']['template'][number];

/** How the injector reads a template marker's value, as its data (or a release row's `parses`) says. */
export function readValue(
  k: Pick<TemplateKeyData, 'inject' | 'skip' | 'ignore' | 'caseInsensitive' | 'otherwise'>,
  value: string,
): boolean | 'invalid' | undefined {
  const v = k.caseInsensitive ? value.toLowerCase() : value;
  return among(k.inject, v)
    ? true
    : k.skip.includes(v)
      ? false
      : k.ignore?.includes(v)
        ? undefined
        : k.otherwise === 'skip'
          ? false
          : ('invalid' as const);
}

/** The marker table (src/mesh/marker-table.ts) the data's values stand for. */
export function markerTable(d: MeshData['markers']): MarkerTable {
  return {
    namespace: d.namespace.map((k) => ({ field: k.field, key: k.key, enables: (v: string) => among(k.enabling, v) })),
    template: d.template.map((k) => ({
      field: k.field,
      key: k.key,
      read: (v: string) => readValue(k, v),
      ...(k.alone ? { alone: (v: string) => among(k.alone!, v) } : {}),
    })),
    strays: d.strays,
    ask: d.ask,
    optOut: d.optOut,
  };
}

/** The marker enabling a namespace, with its text and the kubectl line setting it. */
function enabling(d: MeshData['markers']): ((ns: string) => EnableMarker) | (() => undefined) {
  const e = d.enable;
  if (!e) return () => undefined;
  return (ns: string) => ({
    field: e.field,
    key: e.key,
    value: e.value,
    text: `${fieldWord(e.field)} ${e.key}=${e.value}`,
    command: `kubectl ${e.field === 'labels' ? 'label' : 'annotate'} namespace ${shq(ns)} ${shq(`${e.key}=${e.value}`)} --overwrite`,
  });
}

/**
 * The marker mistakes the data's values tell: a namespace or template marker whose value asks for
 * the mesh but is none the injector takes (the default where the behaviour brings no rules of its own).
 */
function valueRules(data: MeshData): MeshProfile['markers']['rules'] {
  const { markers, title, name } = data;
  const enable = markers.enable;
  return {
    namespace(m: MeshContext, c: NamespaceProblemContext): MarkerProblemDraft[] {
      if (!m.meshPossible(name) || !enable) return [];
      return markers.namespace.flatMap((k) => {
        const v = (k.field === 'labels' ? c.labels : c.annotations)[k.key];
        if (v === undefined || among(k.enabling, v) || !asksOn(v)) return [];
        const marker = `${fieldWord(k.field)} ${k.key}=${v}`;
        return [
          {
            message: `Namespace ${c.ns} has ${marker}, a value ${title} does not take, so ${title} injects no pod in it.`,
            evidence: {
              marker,
              validValues: k.enabling === 'any' ? [] : k.enabling,
              expected: `${fieldWord(enable.field)} ${enable.key}=${enable.value}`,
            },
            fix: c.set(enable.field, enable.key, enable.value),
            recreate: c.waiting(),
            remove: c.unset(k.field, k.key),
          },
        ];
      });
    },
    workload(m: MeshContext, c: WorkloadProblemContext): MarkerProblemDraft[] {
      if (!m.meshPossible(name)) return [];
      return markers.template.flatMap((k) => {
        const v = (k.field === 'labels' ? c.labels : c.annotations)[k.key];
        if (v === undefined || readValue(k, v) === true || readValue(k, v) === false || !asksOn(v)) return [];
        const marker = `${c.where} ${fieldWord(k.field)} ${k.key}=${v}`;
        const ask = markers.ask;
        return [
          {
            message: `${c.id} has ${marker}, a value ${title} does not take, so its pods are not injected.`,
            evidence: {
              marker,
              validValues: [...(k.inject === 'any' ? [] : k.inject), ...k.skip],
              expected: `${c.where} ${fieldWord(ask.field)} ${ask.key}=${ask.value}`,
            },
            fix: setOnTemplate(c.w, ask.field, ask.key, ask.value),
            remove: removeFromTemplate(c.w, k.field, k.key),
            templateChanges: [{ field: ask.field, key: ask.key, value: ask.value }],
          },
        ];
      });
    },
  };
}

const matches = (labels: Record<string, string>, want: Readonly<Record<string, string>>) =>
  Object.entries(want).every(([k, v]) => labels[k] === v);

export function profileFrom<N extends MeshData['name']>(
  data: MeshData & { readonly name: N },
  b: MeshBehaviour,
): MeshProfile & { readonly name: N } {
  const x = b.extend ?? {};
  const c = data.containers;
  const cp = data.controlPlane;
  const table = markerTable(data.markers);
  const announced = c.announced;
  const rt = data.runtime;
  const restart = (ns: string, injector: string): Step => cmd`kubectl -n ${ns} rollout restart ${`deploy/${injector}`}`;
  const reads = cp.reads ?? {};

  return {
    name: data.name,
    title: data.title,

    containers: {
      proxy: c.proxy,
      init: c.init,
      image: c.image,
      ...(c.gateway ? { gateway: c.gateway } : {}),
      ...(c.perService ? { perService: c.perService } : {}),
      ...(announced
        ? {
            announced: (pod: K8sObject) =>
              (announced.field === 'labels' ? labelOf(pod, announced.key) : annotationOf(pod, announced.key)) ===
              announced.value
                ? {
                    mark: `${fieldWord(announced.field)} ${announced.key}=${announced.value}`,
                    containers: announced.containers,
                    source: announced.source,
                  }
                : undefined,
          }
        : {}),
      ...x.containers,
    },

    controlPlane: {
      namespace: cp.namespace,
      ownNamespaces: cp.ownNamespaces,
      excludedNamespaces: cp.excludedNamespaces ?? [],
      isNamespace: (ns) => !!cp.namespaceLabel && labelsOf(ns)[cp.namespaceLabel.key] === cp.namespaceLabel.value,
      isWorkload: (l) => !!cp.workloads && cp.workloads.values.includes(l[cp.workloads.key] ?? ''),
      isOwnPod: (l) => !!cp.podLabels && matches(l, cp.podLabels),
      injector: {
        name: cp.injector.name,
        container: cp.injector.container,
        webhookPort: cp.injector.webhookPort,
        podSelector:
          cp.injector.podSelector ??
          Object.entries(cp.podLabels ?? {})
            .map(([k, v]) => `${k}=${v}`)
            .join(','),
        isDeployment: (name) => name === cp.injector.name,
        ...(cp.injector.hostNetwork ? { hostNetwork: cp.injector.hostNetwork } : {}),
        ...x.controlPlane?.injector,
      },
      webhooks: {
        defaultConfig: cp.webhooks.config,
        owns: (h) =>
          cp.webhooks.nameSuffix !== undefined
            ? h.name.endsWith(cp.webhooks.nameSuffix)
            : (cp.webhooks.names ?? []).includes(h.name),
        expectedConfigs: () => [cp.webhooks.config],
        list: (expected) => cmd`kubectl get mutatingwebhookconfigurations ${expected}`,
        ...(cp.webhooks.servingCertSecrets ? { servingCertSecrets: cp.webhooks.servingCertSecrets } : {}),
        ...x.controlPlane?.webhooks,
      },
      selfExclusion: cp.selfExclusion,
      reads: {
        named: (namespaces) =>
          namespaces.flatMap((namespace) => [
            ...Object.keys(reads.configMaps ?? {}).map((name) => ({ key: 'configmaps' as const, namespace, name })),
            ...(reads.secrets ?? []).map((name) => ({ key: 'secrets' as const, namespace, name })),
          ]),
        configMapKeys: (name) =>
          reads.configMaps && Object.hasOwn(reads.configMaps, name) ? reads.configMaps[name] : undefined,
        ...(reads.env ? { env: reads.env } : {}),
        ...(reads.args ? { args: reads.args } : {}),
        ...x.controlPlane?.reads,
      },
      ...(x.controlPlane ? withoutNested(x.controlPlane) : {}),
    },

    markers: {
      ...table,
      intent: (i, m) => b.intent(i, m),
      enableMarker: enabling(data.markers),
      ...(data.markers.advisesPodOptIn ? { advisesPodOptIn: true as const } : {}),
      ...(data.markers.injectsAllWhen ? { injectsAllWhen: data.markers.injectsAllWhen } : {}),
      ...(data.markers.podOptInNamespaceLabel ? { podOptInNamespaceLabel: data.markers.podOptInNamespaceLabel } : {}),
      rules: b.markerRules ?? valueRules(data),
      ...x.markers,
    },

    injector: {
      decide: (m, i) => b.decide(m, i),
      ...(data.injector?.skippedEventPrefix ? { skippedEventPrefix: data.injector.skippedEventPrefix } : {}),
      ...(data.injector?.skipReasons ? { skipReasons: data.injector.skipReasons } : {}),
      ...(data.injector?.warnings ? { warnings: data.injector.warnings } : {}),
      ...(data.injector?.reinjects ? { reinjects: true as const } : {}),
      ...(data.injector?.rbac
        ? {
            rbac: {
              ...data.injector.rbac,
              names: (_ns: string, injector: string) => ({ clusterRole: injector, clusterRoleBinding: injector }),
            },
          }
        : {}),
      ...x.injector,
    },

    proxy: {
      resources: {
        annotations: data.proxy.annotations,
        onNamespace: data.proxy.onNamespace,
        suggested: data.proxy.suggested,
        of:
          b.resources ??
          ((_m, w, observed, observedFrom) => {
            const out: Partial<Record<ResourceKey, { value: unknown; from: string }>> = {};
            const ann = annotationsOf(w.template);
            for (const k of RESOURCE_KEYS) {
              const [group, res] = k.split('.') as [string, string];
              const key = data.proxy.annotations[k];
              if (observed) {
                const v = (observed[group] as Record<string, unknown> | undefined)?.[res];
                out[k] = { value: v, from: observedFrom! };
              } else if (key && ann[key] !== undefined) out[k] = { value: ann[key], from: `annotation ${key}` };
            }
            return out;
          }),
        ...x.proxy?.resources,
      },
      native: {
        decide: b.native ?? (() => undefined),
        ...(data.proxy.nativeAnnotation ? { annotation: data.proxy.nativeAnnotation } : {}),
        ...x.proxy?.native,
      },
    },

    jobs: {
      shutdown: data.jobs.shutdown,
      shutdownWords: data.jobs.shutdownWords,
      alternatives: data.jobs.alternatives,
      relief: (_pods, ns, job) => [
        comment`the app has exited and ${lit(c.proxy)} keeps the pod of the Job running`,
        cmd`kubectl delete job ${job} -n ${ns}`,
      ],
      releasePods: (pods, ns, owner, proxy) => [
        comment`the app has exited and ${lit(proxy)} keeps the pod running: deleting it ends it, and ${owner} decides whether a deleted pod counts as failed`,
        ...pods.map((pod) => cmd`kubectl delete pod ${pod} -n ${ns}`),
      ],
      ...(data.jobs.controlPlaneStops ? { controlPlaneStops: data.jobs.controlPlaneStops } : {}),
      ...x.jobs,
    },

    install: {
      reinstall: () => [
        comment`re-render the ${lit(data.title)} control plane the way it was installed, with its Helm chart or install command`,
      ],
      memoryFix: (ns, injector, limit) =>
        data.install.helm
          ? [
              comment`durable, if installed with Helm: the value ${lit(data.install.helm.memoryLimit)} of chart ${lit(data.install.helm.chart)}`,
              comment`helm upgrade RELEASE ${lit(data.install.helm.chart)} -n ${ns} --reuse-values --set ${lit(data.install.helm.memoryLimit)}=${limit}`,
            ]
          : [comment`raise the memory limit of Deployment ${injector} to ${limit} in the values it was installed with`],
      certFix: (ns, injector) => [comment`the injector renews its serving certificate at start`, restart(ns, injector)],
      ...(data.install.emptyCaBundle ? { emptyCaBundle: data.install.emptyCaBundle } : {}),
      restartReloads: data.install.restartReloads,
      ...x.install,
    },

    runtime: {
      injected:
        b.injected ??
        ((_m, _w, cni) =>
          rt
            ? cni && rt.injectedWithCni
              ? rt.injectedWithCni
              : rt.injected
            : [
                ...c.init.slice(0, 1).map((name) => ({ name, init: true, securityContext: {} })),
                { name: c.proxy, init: false, securityContext: {} },
              ]),
      injectedFrom: rt?.injectedFrom ?? `${data.title}'s injector`,
      openshift: () => (rt?.openshift ? [comment`${lit(rt.openshift)}`] : []),
      failures: [],
      image: () => (rt?.image ? [comment`${lit(rt.image)}`] : []),
      startOrder: {
        held: b.held ?? (() => undefined),
        setting: rt?.startOrder.setting ?? 'no setting known',
        ...(rt?.startOrder.since ? { since: rt.startOrder.since } : {}),
        source: rt?.startOrder.source ?? '',
        fix: (w) => {
          const key = rt?.startOrder.annotation;
          return key
            ? [comment`hold the app until ${lit(c.proxy)} is ready`, ...setOnTemplate(w, 'annotations', key, 'true')]
            : [comment`${lit(data.title)} has no setting known to meshdoctor that holds the app`];
        },
      },
      ...x.runtime,
    },

    ...(data.versions
      ? {
          versions: {
            kubernetes: data.versions.kubernetes,
            ...(data.versions.releases ? { releases: data.versions.releases } : {}),
            ...(data.versions.skew ? { skew: data.versions.skew } : {}),
            ...(data.versions.pins ? { pins: data.versions.pins } : {}),
            release: (v: string) => minorRelease(v),
            compare: (a: string, v: string) => compareSemver(a, v),
            controlPlane: (_m: unknown, d: K8sObject) =>
              containerVersion(
                templateContainer(d, cp.injector.container),
                `${deploymentText(d)} container ${cp.injector.container}`,
              ),
            injects: (_m: unknown, d: K8sObject) =>
              containerVersion(
                templateContainer(d, cp.injector.container),
                `${deploymentText(d)} container ${cp.injector.container}`,
              ),
            proxy: (pod: K8sObject) => containerVersion(podContainer(pod, c.proxy), `container ${c.proxy}`),
            ...b.version,
            ...x.versions,
          },
        }
      : {}),
    ...(data.network ? { network: data.network } : {}),
    ...(data.components ? { components: data.components } : {}),
    ...(x.revisions ? { revisions: x.revisions } : {}),
    ...(x.sidecarless ? { sidecarless: x.sidecarless } : {}),
    ...(x.cni ? { cni: x.cni } : {}),
    ...(x.identity ? { identity: x.identity } : {}),
    ...(x.references ? { references: x.references } : {}),
    ...(x.ranges ? { ranges: x.ranges } : {}),
  };
}

/** The members of an extension of `controlPlane` other than its nested groups (merged apart). */
function withoutNested<T extends { webhooks?: unknown; reads?: unknown; injector?: unknown }>(
  o: T,
): Omit<T, 'webhooks' | 'reads' | 'injector'> {
  const { webhooks: _w, reads: _r, injector: _i, ...rest } = o;
  return rest;
}
