/**
 * A mesh's injection webhook configurations side by side (issue 25, IST0139 in Istio's analyzer):
 * two configurations of one mesh called for the same pods, and configurations whose Service no
 * longer exists. Decided on the namespaces and workloads the snapshot holds (evalWebhook, through
 * each workload's decision), never on imagined label sets. Mesh-generic.
 */
import { WORKLOAD_DECISION_INPUTS } from './decision.js';
import { defineFactFamily } from '../k8s/fact.js';
import type { K8sObject } from '../util/types.js';
import { cmp, isObj, labelsOf, nameOf } from '../util/objects.js';
import { labelsMatch, parseLabelSelector } from '../k8s/selector-text.js';
import type { MeshName } from '../mesh/names.js';
import type { MeshWebhook } from '../mesh/webhooks.js';
import { profileOf } from '../mesh/registry.js';
import { namespaceRead, webhookTargets, type Injector, type WebhookTarget } from './controlplane.js';
import type { Model, Workload } from './model.js';

/** One MutatingWebhookConfiguration of a mesh: its webhooks, the workloads it is called for, and its Service's standing. */
interface MeshConfig {
  mesh: MeshName;
  name: string;
  config: K8sObject;
  webhooks: MeshWebhook[];
  /** The app workloads whose next pod it is called for. */
  workloads: Workload[];
  /** Every webhook of it calls a Service that does not exist (read, and absent; or its namespace is gone). */
  stale: boolean;
  /** Its Service's namespace does not exist (Namespaces read). */
  namespaceGone: boolean;
  /**
   * Its namespace exists, but neither its Service nor any injector Deployment of the mesh is there
   * (Deployments read in it): the injector was uninstalled, its configuration was not.
   */
  injectorGone: boolean;
  /** Some webhook of it calls a Service that exists. */
  live: boolean;
  /** The injector Deployment behind it, when it calls one Service. */
  injector?: Injector;
}

/** The Service a webhook calls: exists, does not exist, or unknown (its namespace's Services were not read). */
function serviceState(m: Model, h: MeshWebhook): 'exists' | 'missing' | 'gone' | 'unknown' {
  const s = h.service;
  if (!s) return 'unknown'; // a URL webhook: nothing in the cluster to follow
  if (m.readIn('namespaces', '') && m.has('namespaces') && !m.namespace(s.namespace)) return 'gone';
  if (!namespaceRead(m, s.namespace) || !m.readIn('services', s.namespace)) return 'unknown';
  return m.get('services', s.namespace, s.name) ? 'exists' : 'missing';
}

/**
 * No injector of the mesh left where the webhook's Service was: Deployments were read in its namespace
 * and none is the one found behind the webhook, named like the Service or like the mesh's injector,
 * or runs pods its injector's usual selector picks. A Service deleted beside a running injector is
 * a broken install (webhook-no-endpoints), not an uninstall.
 */
function injectorUninstalled(m: Model, mesh: MeshName, h: MeshWebhook, targets: WebhookTarget[]): boolean {
  const s = h.service;
  // Its Service's namespace was read (its state is 'missing', never 'unknown'); its Deployments too.
  if (!s || !m.readIn('deployments', s.namespace)) return false;
  const t = targets.find((x) => x.namespace === s.namespace && x.name === s.name);
  if (!t || t.injector.deployment || t.injector.external) return false;
  const { injector } = profileOf(mesh).controlPlane;
  const usual = parseLabelSelector(injector.podSelector);
  return !m.inNamespace('deployments', s.namespace).some((d) => {
    const name = nameOf(d);
    if (name === s.name || injector.isDeployment(name)) return true;
    const template = isObj(d.spec) && isObj(d.spec.template) ? d.spec.template : undefined;
    return !('error' in usual) && labelsMatch(usual, labelsOf(template));
  });
}

const CONFIG_STATES = defineFactFamily({
  id: 'mesh-config-states',
  // The endpoints too: whether a namespace outside a -n view was read at all is told by any of the control
  // plane's kinds there (namespaceRead).
  inputs: [
    'deployments',
    'endpoints',
    'endpointslices',
    'mutatingwebhookconfigurations',
    'namespaces',
    'pods',
    'replicasets',
    'services',
  ],
  compute: (m: Model, mesh: MeshName): Omit<MeshConfig, 'workloads'>[] => {
    const byName = new Map<string, MeshWebhook[]>();
    for (const h of m.webhooksOf(mesh)) byName.set(h.configName, [...(byName.get(h.configName) ?? []), h]);
    const targets = webhookTargets(m, mesh);
    return [...byName.entries()]
      .sort(([a], [b]) => cmp(a, b))
      .map(([name, webhooks]) => {
        const states = webhooks.map((h) => serviceState(m, h));
        const services = new Set(
          webhooks.flatMap((h) => (h.service ? [`${h.service.namespace}/${h.service.name}`] : [])),
        );
        const target =
          services.size === 1 ? targets.find((t) => t.webhooks.some((h) => h.configName === name)) : undefined;
        return {
          mesh,
          name,
          config: webhooks[0]!.config,
          webhooks,
          stale: states.length > 0 && states.every((s) => s === 'missing' || s === 'gone'),
          namespaceGone: states.length > 0 && states.every((s) => s === 'gone'),
          injectorGone:
            states.length > 0 &&
            states.every((s) => s === 'missing') &&
            webhooks.every((h) => injectorUninstalled(m, mesh, h, targets)),
          live: states.includes('exists'),
          ...(target ? { injector: target.injector } : {}),
        };
      });
  },
});

/** The mesh's configurations in name order (the order the API server calls them: mutating_webhook_manager.go ByName), without their workloads. */
function configStates(m: Model, mesh: MeshName): Omit<MeshConfig, 'workloads'>[] {
  return m.fact(CONFIG_STATES, mesh);
}

export const MESH_CONFIGS = defineFactFamily({
  id: 'mesh-configs',
  inputs: [...WORKLOAD_DECISION_INPUTS, 'services', 'endpoints', 'endpointslices'],
  compute: (m: Model, mesh: MeshName): MeshConfig[] => {
    const called = new Map<string, Workload[]>();
    for (const w of m.appWorkloads) {
      const d = m.decision(w, mesh);
      for (const name of new Set((d?.calls ?? []).filter((c) => c.called).map((c) => c.webhook.configName))) {
        // Appended in place (was a copy of the list per workload: quadratic in the workloads a configuration calls).
        const list = called.get(name);
        if (list) list.push(w);
        else called.set(name, [w]);
      }
    }
    return configStates(m, mesh).map((c) => ({ ...c, workloads: called.get(c.name) ?? [] }));
  },
});

/** The mesh's configurations in name order, with the app workloads whose next pod each is called for. */
export function meshConfigs(m: Model, mesh: MeshName): MeshConfig[] {
  return m.fact(MESH_CONFIGS, mesh);
}

/**
 * A configuration left behind: its Service is gone, and either another configuration of the mesh
 * still calls a live one (an old chart's or revision's beside the new), or its whole namespace is
 * gone, or no injector of the mesh is left in it (the mesh or its injector was removed, its
 * configuration not). A lone configuration whose Service is missing beside a running injector is
 * a broken install instead (webhook-no-endpoints).
 */
export function leftoverConfigs(m: Model, mesh: MeshName): MeshConfig[] {
  const all = meshConfigs(m, mesh);
  const leftover = new Set(leftoverNames(m, mesh));
  return all.filter((c) => leftover.has(c.name));
}

/** The names of the leftovers, decided without the workloads (webhook-no-endpoints asks it). */
function leftoverNames(m: Model, mesh: MeshName): string[] {
  const all = configStates(m, mesh);
  const anyLive = all.some((c) => c.live);
  return all.filter((c) => c.stale && (anyLive || c.namespaceGone || c.injectorGone)).map((c) => c.name);
}

/** Two configurations of one mesh called for the same workloads' pods. */
interface Overlap {
  mesh: MeshName;
  /** In the order the API server calls them. */
  first: MeshConfig;
  second: MeshConfig;
  /** The workloads both are called for. */
  workloads: Workload[];
  /** The configuration whose injection the pods keep: the last called where the injector injects again, else the first. */
  injects: MeshConfig;
  /** The one to delete, when one can go without leaving a workload behind, and why; undefined: change selectors instead. */
  remove?: { config: MeshConfig; why: string };
}

/** The proxy version an injector injects, for choosing the older of two configurations. */
function injected(m: Model, mesh: MeshName, c: MeshConfig): string | undefined {
  const d = c.injector?.deployment;
  return d ? profileOf(mesh).versions?.injects(m, d)?.version : undefined;
}

/**
 * Which of two overlapping configurations to delete: only one whose every workload the other also
 * serves (nothing is left without injection); of those, one whose Service is gone, else one whose
 * injector Deployment is missing, else the one whose injector injects the older proxy.
 */
function removal(m: Model, mesh: MeshName, a: MeshConfig, b: MeshConfig): Overlap['remove'] {
  const covers = (x: MeshConfig, y: MeshConfig) => x.workloads.every((w) => y.workloads.includes(w));
  const candidates = [a, b].filter((x) => covers(x, x === a ? b : a));
  if (!candidates.length) return undefined;
  const other = (x: MeshConfig) => (x === a ? b : a);
  const stale = candidates.find((x) => x.stale && !other(x).stale);
  if (stale) return { config: stale, why: 'its Service no longer exists' };
  const noInjector = candidates.find((x) => x.injector && !x.injector.deployment && other(x).injector?.deployment);
  if (noInjector)
    return {
      config: noInjector,
      why: `no injector Deployment ${noInjector.injector!.namespace}/${noInjector.injector!.name} runs behind it`,
    };
  const versions = profileOf(mesh).versions;
  const [va, vb] = [injected(m, mesh, a), injected(m, mesh, b)];
  if (versions && va && vb) {
    const c = versions.compare(va, vb);
    const older = c === undefined || c === 0 ? undefined : c < 0 ? a : b;
    if (older && candidates.includes(older))
      return {
        config: older,
        why: `its injector injects the older proxy (${older === a ? va : vb}, the other ${older === a ? vb : va})`,
      };
  }
  // The same injector behind both, for the same workloads: the second is a duplicate.
  const same =
    a.injector && b.injector && a.injector.namespace === b.injector.namespace && a.injector.name === b.injector.name;
  if (same && candidates.length === 2)
    return { config: b, why: `it calls the same injector as ${a.name} for the same workloads: a duplicate` };
  // Both still work and neither is older: deleting one is safe only for the one the other covers whole.
  if (candidates.length === 1)
    return {
      config: candidates[0]!,
      why: `every workload it is called for is also served by ${other(candidates[0]!).name}`,
    };
  return undefined;
}

export const OVERLAPS = defineFactFamily({
  id: 'overlaps',
  inputs: [...WORKLOAD_DECISION_INPUTS, 'services', 'endpoints', 'endpointslices'],
  compute: (m: Model, mesh: MeshName): Overlap[] => {
    // Only configurations whose Service is known to exist: a leftover (its Service gone) is
    // webhook-stale's, and one whose Service was not read may be a leftover too.
    const configs = meshConfigs(m, mesh).filter((c) => c.workloads.length && c.live);
    const out: Overlap[] = [];
    for (let i = 0; i < configs.length; i++) {
      for (let j = i + 1; j < configs.length; j++) {
        const [first, second] = [configs[i]!, configs[j]!];
        const workloads = first.workloads.filter((w) => second.workloads.includes(w));
        if (!workloads.length) continue;
        const injects = profileOf(mesh).injector.reinjects ? second : first;
        const remove = removal(m, mesh, first, second);
        out.push({ mesh, first, second, workloads, injects, ...(remove ? { remove } : {}) });
      }
    }
    return out;
  },
});

/** Every pair of the mesh's configurations both called for some workload's pods. */
export function overlaps(m: Model, mesh: MeshName): Overlap[] {
  return m.fact(OVERLAPS, mesh);
}

/** Whether a webhook's configuration is a leftover (webhook-stale reports it; webhook-no-endpoints leaves it). */
export const isLeftover = (m: Model, h: MeshWebhook): boolean => leftoverNames(m, h.mesh).includes(h.configName);
