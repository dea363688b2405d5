/**
 * webhook-denied — FailedCreate events show a mesh's injection webhook answering and refusing a
 * pod: `admission webhook "<name>" denied the request: <reason>`.
 *
 * Why: the injector itself rejects pods it cannot inject, with its reason (Istio:
 * `toAdmissionResponse(err)` returns Allowed false with the error, e.g. `failed to run injection
 * template: … invalid value '…' for annotation '…'` for an invalid `*.istio.io` annotation,
 * istio/istio pkg/kube/inject/webhook.go and validate.go; the API server wraps it as
 * `admission webhook "<name>" denied the request: <message>`, or `… denied the request without
 * explanation`, kubernetes apiserver webhook/errors/statuserror.go ToStatusErr). The controller
 * records it as a FailedCreate event on the ReplicaSet, Job, StatefulSet or DaemonSet, and no pod
 * exists to look at. Not webhook-call-failed: that one is the API server failing to reach the
 * webhook (`failed calling webhook`); a denial is a webhook that works and says no. One event
 * text matches one of the two, never both.
 * When: such events in scope naming a mesh's injection webhook (one rule: webhookMesh), for
 * owners still missing pods. Events expire (1h by default).
 * Where the mesh's own decision names the cause and another check reports it (an invalid marker
 * value, injection-marker-invalid; a turned-off ServiceAccount token, serviceaccount-missing),
 * the finding links to it (causedBy, src/facts/denials.ts): the report says to fix that first.
 * Known false positives: a denial already fixed while the owner's status lags.
 * The injector failing on its OWN configuration is told apart by the reason's structure, per mesh
 * (profile install.ownConfig: Istio's template rendering unparseable YAML, Linkerd's values file not
 * parsing): the finding names the ConfigMap and key, and the fix restores it from the chart.
 * Fix: correct what the reason names (an annotation on the pod template, usually), reading the
 * injector's log for the full error; the controller retries by itself.
 */
import { cmd, comment, lit } from '../fix/steps.js';
import { failedCreates } from '../k8s/events.js';
import { parseAdmissionError } from '../k8s/admission.js';
import { injectorAt, reinstallCommands, webhookTargets, WEBHOOK_TARGETS } from '../facts/controlplane.js';
import { denialCause } from '../facts/denials.js';
import { admissionChainOf, chainEvidence, ADMISSION_CHAIN } from '../facts/admission-chain.js';
import { meshTitle, profileOf, webhookMesh } from '../mesh/registry.js';
import type { MeshName } from '../mesh/names.js';
import { printable } from '../util/errors.js';
import { defineCheck, messages, meta, say } from './define.js';
import { WORKLOAD_PROBLEMS } from '../facts/marker-problems.js';
import { VALUE_RULES } from '../facts/releases.js';
import { STORED_VALUES, storedRefusal } from '../facts/stored-values.js';

const MESSAGES = messages({
  denied: "{workload} cannot create pods: {mesh}'s injection webhook {hook} denied them{reason}.",
  config:
    "{workload} cannot create pods: {mesh}'s injector ({hook}) fails on its own configuration, not on the pods: it {does} ConfigMap {configMap} key {key}{unread} and cannot parse the result: {reason}.",
  'config-object':
    "{workload} cannot create pods: {mesh}'s injector ({hook}) fails on its own configuration, not on the pods: it {does} {object} ({field}), which {means}: {reason}.",
  'stored-value':
    "{workload} cannot create pods: {mesh}'s injector ({hook}) fails on the configuration its install stored, not on the pods: ConfigMap {configMap} key {key} holds {path}: {value}, which {release} reads as {expects}. The injector says: {reason}.",
});

export default defineCheck({
  ...meta('webhook-denied'),
  facts: [WORKLOAD_PROBLEMS, ADMISSION_CHAIN, WEBHOOK_TARGETS, VALUE_RULES, STORED_VALUES],
  messages: MESSAGES,
  *run(m) {
    const groups = failedCreates(
      m,
      (msg) => {
        // `admission webhook "<name>" denied the request: <reason>`: the one parser (src/k8s/admission.ts).
        const x = parseAdmissionError(msg);
        const mesh: MeshName | undefined =
          x?.kind === 'denied' ? webhookMesh({ name: x.webhook, configName: '' }) : undefined;
        // Not a mesh webhook, or a mesh left out by --mesh (the event naming its webhook is evidence of its install).
        if (x?.kind !== 'denied' || !mesh || !m.meshPossible(mesh)) return undefined;
        return { mesh, hook: x.webhook, reason: x.reason.replace(/\s+/g, ' ') };
      },
      (t) => `${t.mesh}/${t.hook}`,
    );
    for (const g of groups) {
      const { mesh, hook, reason } = g.match;
      const p = profileOf(mesh);
      const backend = webhookTargets(m, mesh).find((b) => b.webhooks.some((h) => h.name === hook));
      const hookObj = backend?.webhooks.find((h) => h.name === hook);
      const cpNs = backend?.namespace ?? m.mesh(mesh)?.namespaces[0] ?? p.controlPlane.namespace;
      // The injector as read; with the webhook configurations unread, the Deployment an install names.
      const at = backend
        ? injectorAt(mesh, backend.injector, backend.service)
        : { args: [['deploy/', { value: p.controlPlane.injector.name }]] };
      const r = g.resource;
      const annotation = /annotation '([^']+)'/.exec(reason)?.[1];
      const w = g.workload;
      const path = w ? w.templatePath.split('/').filter(Boolean).join('.') : 'spec.template';
      const where = `{.${path ? `${path}.` : ''}metadata.annotations}`;
      // A value of the configuration the install stored that the installed release cannot use, named by the rule whose
      // refusal this is (the release tables' `stored`, src/facts/stored-values.ts): that value, first.
      const stored = storedRefusal(m, mesh, reason);
      // The injector failing on its own configuration (by the reason's structure, per the mesh's source): that object.
      const own = stored ? undefined : p.install.ownConfig?.(reason, backend?.name);
      const cm = own && !own.kind ? m.get('configmaps', cpNs, own.configMap) : undefined;
      // One cause, said once: a marker problem or a turned-off token another check reports explains the denial.
      const cause = w && !own && !stored ? denialCause(m, w, mesh) : undefined;
      const workload = `${r.kind} ${r.namespace}/${r.name}`;
      const [storedNs, storedName] = (stored?.configMap ?? '').split('/') as [string, string];
      yield {
        mesh,
        ...(stored
          ? say(MESSAGES, 'stored-value', {
              workload,
              mesh: meshTitle(mesh),
              hook,
              configMap: stored.configMap,
              key: stored.rule.key ?? '',
              path: stored.rule.path,
              value: stored.value,
              release: stored.release,
              expects: stored.rule.expects,
              reason: printable(reason, 200),
            })
          : own?.kind
            ? say(MESSAGES, 'config-object', {
                workload,
                mesh: meshTitle(mesh),
                hook,
                does: own.does,
                object: `${own.kind} ${cpNs}/${own.configMap}`,
                field: own.key,
                means: own.means ?? 'it cannot read',
                reason: printable(reason, 200),
              })
            : own
              ? say(MESSAGES, 'config', {
                  workload,
                  mesh: meshTitle(mesh),
                  hook,
                  configMap: `${cpNs}/${own.configMap}`,
                  key: own.key,
                  does: own.does,
                  unread: cm ? '' : ' (not read: the name its install gives it)',
                  reason: printable(reason, 200),
                })
              : say(MESSAGES, 'denied', {
                  workload: `${r.kind} ${r.namespace}/${r.name}`,
                  mesh: meshTitle(mesh),
                  hook,
                  reason: reason ? `: ${printable(reason, 200)}` : ' without explanation',
                })),
        resource: r,
        affectedPods: g.missing,
        ...(cause ? { causedBy: cause } : {}),
        evidence: {
          webhook: hook,
          ...(hookObj ? { configuration: hookObj.configName } : {}),
          reason: reason || null,
          ...(annotation && !own ? { annotation } : {}),
          // The object the injector failed to read, named by the mesh (configMapRead: whether this run read it).
          ...(own && !own.kind
            ? { configMap: `${cpNs}/${own.configMap}`, key: own.key, configMapRead: Boolean(cm) }
            : {}),
          ...(own?.kind ? { object: `${own.kind} ${cpNs}/${own.configMap}`, field: own.key } : {}),
          // The stored value the installed release cannot use, with the rule's source.
          ...(stored
            ? {
                configMap: stored.configMap,
                key: stored.rule.key ?? '',
                storedValue: `${stored.rule.path}: ${stored.value}`,
                release: stored.release,
                expects: stored.rule.expects,
                source: stored.rule.source,
              }
            : {}),
          // The webhooks the API server calls for the pod, in its order (the mesh's marked).
          ...(w ? { admissionChain: chainEvidence(admissionChainOf(m, w)) } : {}),
          count: g.count,
          lastTimestamp: g.last ?? null,
          objects: [...g.objects].sort(),
          message: g.message,
        },
        fix: stored
          ? [
              comment`${lit(stored.rule.path)} in the stored Helm values is not what ${lit(stored.release)} reads: set it as ${lit(stored.rule.expects.replace(/[();'"]/g, ''))}`,
              cmd`kubectl -n ${storedNs} get configmap ${storedName} -o jsonpath=${`{.data.${stored.rule.key ?? 'values'}}`}`,
              comment`correct the value in the values the control plane is installed with, and install again`,
              ...reinstallCommands(m, mesh, cpNs, backend?.injector.name),
              comment`the controller retries the pods by itself once the injector reads a valid configuration`,
            ]
          : own?.kind
            ? [
                comment`correct ${lit(own.key)} of ${lit(own.kind)} ${own.configMap}, as the error of the injector above says`,
                cmd`kubectl -n ${cpNs} get ${own.kind.toLowerCase().replace(/es$/, '')} ${own.configMap.split(', ')[0] ?? ''} -o yaml`,
                comment`the controller retries the pods by itself once the injector can apply it`,
              ]
            : own
              ? [
                  comment`the injector ${lit(own.does)} this key: a hand edit, a tool rewriting the chart or a value of the wrong type broke it`,
                  cmd`kubectl -n ${cpNs} get configmap ${own.configMap} -o jsonpath=${`{.data.${own.key}}`}`,
                  comment`restore it from the chart the control plane was installed with, its values corrected`,
                  ...reinstallCommands(m, mesh, cpNs, backend?.injector.name),
                  comment`the controller retries the pods by itself once the injector reads a valid configuration`,
                  comment`the full error of the injector`,
                  cmd`kubectl -n ${cpNs} logs ${at} -c ${p.controlPlane.injector.container} --tail=200`,
                ]
              : [
                  // Linked to its cause, whose fix comes first (the report says so): no guess at annotations.
                  ...(cause
                    ? []
                    : [
                        annotation
                          ? comment`correct or remove annotation ${annotation} on the pod template`
                          : comment`the pod template annotations the injector validates`,
                        cmd`kubectl get ${`${r.kind.toLowerCase()}/${r.name}`} -n ${r.namespace} -o jsonpath=${where}`,
                      ]),
                  comment`the full error of the injector`,
                  cmd`kubectl -n ${cpNs} logs ${at} -c ${p.controlPlane.injector.container} --tail=200 | grep -i ${r.namespace}`,
                ],
      };
    }
  },
});
