/**
 * The admission chain a workload's next pod goes through: every mutating and validating webhook
 * the API server calls for it, in its order (src/k8s/webhook.ts admissionChain), each marked with
 * the mesh it belongs to (webhookMesh), and which webhook configurations were not read. Evidence
 * for the findings about a layer of admission: the layer is named among the others that apply.
 */
import { defineFactFamily } from '../k8s/fact.js';
import { admissionChain, namespaceLabels, type ChainEntry } from '../k8s/webhook.js';
import { newPodLabels } from '../k8s/pod-labels.js';
import { webhookMesh } from '../mesh/registry.js';
import type { MeshName } from '../mesh/names.js';
import { isObj, str } from '../util/objects.js';
import type { Model, Workload } from './model.js';

interface ChainLink extends ChainEntry {
  /** The mesh whose injection webhook this is, if any. */
  mesh?: MeshName;
}

interface AdmissionChain {
  links: ChainLink[];
  /** The webhook configuration kinds not read: the chain may be longer. */
  notRead: string[];
}

export const ADMISSION_CHAIN = defineFactFamily({
  id: 'admission-chain',
  inputs: ['mutatingwebhookconfigurations', 'namespaces', 'validatingwebhookconfigurations'],
  cacheKey: (w: Workload) => `${w.kind}/${w.namespace}/${w.name}`,
  compute: (m: Model, w: Workload): AdmissionChain => {
    const mutating = m.list('mutatingwebhookconfigurations');
    const validating = m.list('validatingwebhookconfigurations');
    const labels = { ...newPodLabels(w) };
    const meta = isObj(w.template.metadata) ? w.template.metadata : {};
    const annotations = isObj(meta.annotations)
      ? Object.fromEntries(Object.entries(meta.annotations).map(([k, v]) => [k, str(v) ?? '']))
      : {};
    // The pod as a matchCondition sees it: a bare pod has its name; a controller's pod is named
    // by generateName after admission, so its name is not known (conditions on it stay unevaluated).
    // The requesting user is never known from a snapshot.
    const pod = {
      ...(w.kind === 'Pod' ? { name: w.name } : {}),
      namespace: w.namespace,
      labels,
      annotations,
    };
    const links = admissionChain(
      mutating,
      validating,
      namespaceLabels(m.namespace(w.namespace), w.namespace),
      labels,
      pod,
    ).map((e): ChainLink => {
      const mesh = e.type === 'mutating' ? webhookMesh({ name: e.webhook, configName: e.configuration }) : undefined;
      return mesh ? { ...e, mesh } : e;
    });
    const notRead = (['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'] as const).filter(
      (k) => !m.has(k),
    );
    return { links, notRead };
  },
});

/** The chain for the workload's next pod (memoized per workload). Reads both webhook configuration kinds. */
export function admissionChainOf(m: Model, w: Workload): AdmissionChain {
  return m.fact(ADMISSION_CHAIN, w);
}

/** The chain as evidence: one line per webhook, `mutating istio-sidecar-injector/namespace.sidecar-injector.istio.io (Fail, reinvocation Never) [istio]`. */
export function chainEvidence(c: AdmissionChain): { webhooks: string[]; notRead?: string[] } {
  return {
    webhooks: c.links.map(
      (l) =>
        `${l.type} ${l.configuration}/${l.webhook} (${l.failurePolicy}${l.reinvocationPolicy ? `, reinvocation ${l.reinvocationPolicy}` : ''}${l.matchConditions ? `, ${l.matchConditions} matchConditions not evaluated` : ''}${l.matchConditionErrors ? `, matchConditions ${l.matchConditionErrors.join(', ')} fail to evaluate: the API server rejects the pod` : ''})${l.mesh ? ` [${l.mesh}]` : ''}`,
    ),
    ...(c.notRead.length ? { notRead: c.notRead } : {}),
  };
}

/**
 * The mutating webhooks that see the pod after the mesh's own webhook changed it, in the API server's order: those
 * called after it (configurations by name, then each one's webhooks in order), then those called before it with
 * reinvocationPolicy IfNeeded, which the API server calls once more because the mesh's webhook changed the pod
 * (kubernetes/apiserver 24a394e5 pkg/admission/plugin/webhook/mutating/dispatcher.go, pkg/admission/reinvocation.go).
 * Without the mesh's webhook in the chain (not read, or not matching): every mutating webhook of no mesh. Each as
 * `configuration/webhook`, with ` on reinvocation` after the second kind; at most 16.
 */
export function mutatingAfter(m: Model, w: Workload, mesh: MeshName): string[] {
  const links = admissionChainOf(m, w).links.filter((l) => l.type === 'mutating');
  const at = links.findIndex((l) => l.mesh === mesh);
  const name = (l: ChainLink) => `${l.configuration}/${l.webhook}`;
  if (at < 0)
    return links
      .filter((l) => !l.mesh)
      .slice(0, 16)
      .map(name);
  const after = links.slice(at + 1).filter((l) => l.mesh !== mesh);
  const again = links.slice(0, at).filter((l) => !l.mesh && l.reinvocationPolicy === 'IfNeeded');
  return [...after.map(name), ...again.map((l) => `${name(l)} on reinvocation`)].slice(0, 16);
}

/** Every mutating webhook of no mesh the API server calls for the workload's next pod, in its order (at most 16). */
export function otherMutating(m: Model, w: Workload): string[] {
  return admissionChainOf(m, w)
    .links.filter((l) => l.type === 'mutating' && !l.mesh)
    .slice(0, 16)
    .map((l) => `${l.configuration}/${l.webhook}`);
}
