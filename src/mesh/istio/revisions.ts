/**
 * Istio's revisions and tags (istio.io/rev, istio-revision-tag-<tag>, istiod-<revision>): which the
 * installed webhook configurations serve, the configuration and ConfigMap of each, and the fix for
 * a revision nothing serves. Sources: istio/istio@86c9f01f
 * manifests/charts/istio-control/istio-discovery/templates/mutatingwebhook.yaml,
 * revision-tags-mwc.yaml, istioctl/pkg/tag (generate.go, tag.go, util.go), istioctl/pkg/util/common.go.
 */
import type { MeshContext } from '../context.js';
import type { Workload } from '../../k8s/workloads.js';
import type { K8sObject } from '../../util/types.js';
import { dict, isObj, labelsOf } from '../../util/objects.js';
import type { MeshProfile, MeshWebhook } from '../profile.js';
import { choice, cmd, text, type Step } from '../../fix/steps.js';
import { ISTIO_REV } from './injector.js';
import { serviceRevision } from './install.js';
import { ISTIO_CONFIG as CONFIG, ISTIO_WEBHOOK_SUFFIX as SUFFIX } from './data.js';

/** The control plane Deployment: istiod, or istiod-<revision>. */
export const isIstiod = (name: string): boolean => /^istiod(-|$)/.test(name);
/** The revision from an istiod Deployment name ("istiod-canary" -> "canary"). */
const revisionOf = (istiod: string): string | undefined =>
  istiod.startsWith('istiod-') ? istiod.slice('istiod-'.length) : undefined;

/** The webhook configurations the installed istiods serve: istio-sidecar-injector[-<revision>]. */
export const expectedConfigs = (istiods: string[]): string[] =>
  (istiods.length ? istiods : ['istiod']).map((d) => (revisionOf(d) ? `${CONFIG}-${revisionOf(d)}` : CONFIG));

/** Revisions served by the installed webhooks ('default' for the unrevisioned one). */
export function servedRevisions(webhookConfigs: K8sObject[]): string[] {
  const revs = new Set<string>();
  for (const cfg of webhookConfigs) {
    const name = cfg.metadata?.name ?? '';
    const hooks = Array.isArray(cfg.webhooks) ? (cfg.webhooks as Record<string, any>[]) : [];
    if (!hooks.some((h) => typeof h?.name === 'string' && h.name.endsWith(SUFFIX))) continue;
    const rev = cfg.metadata?.labels?.[ISTIO_REV];
    if (typeof rev === 'string' && rev) revs.add(rev);
    else if (name === CONFIG) revs.add('default');
  }
  return [...revs].sort();
}

/** The istio-sidecar-injector ConfigMap for the revision whose webhook would inject this workload (the default one without a workload). */
export function injectorConfigMap(m: MeshContext, w: Workload | undefined): K8sObject | undefined {
  const hook = w ? m.decision(w, 'istio')?.calls.find((c) => c.called)?.webhook : undefined;
  const name = hook?.configName.startsWith(CONFIG) ? hook.configName : CONFIG;
  const ns = hook?.service?.namespace ?? m.mesh('istio')?.namespaces[0];
  return ns ? m.get('configmaps', ns, name) : undefined;
}

/** The selectors istioctl writes into the webhooks it deactivates (`tag set default`; istioctl/pkg/util/common.go:27 @86c9f01f). */
const DEACTIVATED = 'istio.io/deactivated';
export const deactivated = (h: { namespaceSelector: unknown; objectSelector: unknown }) =>
  [h.namespaceSelector, h.objectSelector].some(
    (s) => isObj(s) && isObj(s.matchLabels) && s.matchLabels[DEACTIVATED] === 'never-match',
  );

/**
 * The revisions and tags the installed webhook configurations serve. A tag's configuration is
 * `istio-revision-tag-<tag>`, labelled `istio.io/tag: <tag>` and `istio.io/rev: <revision>`
 * (templates/revision-tags-mwc.yaml, istioctl/pkg/tag/generate.go @86c9f01f); its webhooks call
 * the revision's Service istiod[-<rev>]. A revision's is labelled `istio.io/rev` without
 * `istio.io/tag` (istioctl's own selector, istioctl/pkg/tag/util.go). Deactivated webhooks serve
 * nothing.
 */
function installedRevisions(hooks: MeshWebhook[]): {
  revisions: string[];
  tags: Record<string, string>;
  values: string[];
} {
  const revisions = new Set<string>();
  const tags = dict(); // keyed by tag names from the cluster
  const values = new Set<string>();
  for (const h of hooks) {
    if (h.mesh !== 'istio') continue; // deactivated webhooks never reach here (inactiveWebhook)
    h.revisions.forEach((r) => values.add(r));
    const labels = labelsOf(h.config);
    const target = labels[ISTIO_REV] ?? (h.service ? serviceRevision(h.service.name) : undefined);
    const tag =
      labels['istio.io/tag'] ??
      (h.configName.startsWith(TAG_PREFIX) ? h.configName.slice(TAG_PREFIX.length) : undefined);
    if (tag !== undefined) {
      if (target) tags[tag] = target;
    } else if (target) revisions.add(target);
    else h.revisions.forEach((r) => revisions.add(r));
  }
  return { revisions: [...revisions].sort(), tags, values: [...values].sort() };
}
const TAG_PREFIX = 'istio-revision-tag-';

/**
 * A namespace or pod label `istio.io/rev=<requested>` that no installed webhook serves: relabel to
 * an installed revision or tag, or install the missing revision, or make it a tag of an installed
 * revision (`istioctl tag set`, istioctl/pkg/tag/tag.go @86c9f01f). Comments: the user chooses.
 */
function unservedRevision(m: MeshContext, requested: string, relabel: (value: string) => Step[]) {
  const { revisions, tags, values } = installedRevisions(m.webhooksOf('istio'));
  const options = values.map((v) => ({
    label:
      tags[v] !== undefined
        ? text`to use the installed tag ${v} of revision ${tags[v]!}`
        : text`to use the installed revision ${v}`,
    steps: relabel(v),
  }));
  const target = revisions.find((r) => r !== 'default') ?? revisions[0];
  options.push(
    {
      label: text`to install revision ${requested} with istioctl`,
      steps: [cmd`istioctl install -y --set revision=${requested} -f YOUR-ISTIOOPERATOR.yaml`],
    },
    {
      label: text`to install revision ${requested} with Helm`,
      steps: [cmd`helm install ${`istiod-${requested}`} istio/istiod -n istio-system --set revision=${requested}`],
    },
  );
  if (target)
    options.push({
      label: text`to restore tag ${requested} for an installed revision`,
      steps: [cmd`istioctl tag set ${requested} --revision ${target}`],
    });
  return {
    evidence: { requestedRevision: requested, installedRevisions: revisions, installedTags: tags },
    fix: [
      choice(
        text`${requested} is neither an installed revision nor a tag: choose one below. Pasted as it is, this block runs nothing`,
        options,
      ),
    ],
  };
}

/** The profile's `revisions`: the label, what the webhooks serve, and the fix for a revision they do not. */
export const istioRevisions: NonNullable<MeshProfile['revisions']> = {
  label: ISTIO_REV,
  served: servedRevisions,
  unserved: (m, requested, relabel) => unservedRevision(m, requested, relabel),
};
