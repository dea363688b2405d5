/**
 * mesh-key-value-invalid — a key the installed release reads, on a pod template, a pod or a namespace, with a value
 * its injector cannot parse: a port list with a range, a quantity with a space, a duration without a unit, a
 * boolean "yes", a Consul upstream without its port, YAML that is no mapping.
 *
 * Why: every mesh parses its keys' values with a parser of its own, and does one of four things with a value it
 * cannot parse (the release tables, src/mesh/<mesh>/key-values.ts, each row with its source): it refuses the pod
 * (Istio, Kuma, Consul: the admission response is the parse error, and the API server denies the pod whatever the
 * webhook's failurePolicy); it crashes on it (consul-k8s up to 1.4 on an upstream without a port: the call fails,
 * and failurePolicy decides between a refused pod and one created without a proxy); it ignores it and keeps the
 * default (Linkerd: the pod is injected without the setting, silently); or it passes it on and the proxy, or the
 * mesh's registration of the pod, fails (consul-k8s from 1.5: the pod's service is never registered). One generic
 * validator (src/mesh/key-values.ts) reads every value type.
 * When: the mesh is installed and its tables give the value types of the release its injectors run (all releases'
 * rule where the version was not read, only for keys every release reads alike, said once in the evidence); only keys that release knows; a template's
 * or pod's key only where the mesh's webhook is called for its pods; a namespace's key where the mesh reads it there.
 * The symptom is quoted where the cluster shows it: a FailedCreate event of the workload naming the mesh's webhook
 * (a denial, or a failed call), or its pods' injected containers not ready.
 * Markers (the inject on/off values) are injection-marker-invalid's; a key no release knows is mesh-key-unknown's.
 * Known false positives: a value the injector reads loosely in a way the table does not say (a report is welcome).
 * Fix: write the value as the type the release reads, or remove the key (the default applies); re-create the pods.
 */
import { namespaceChange, recreateCommands, removeFromTemplate } from '../fix/commands.js';
import { comment } from '../fix/steps.js';
import { badTemplateValues, installedValueRules, VALUE_RULES } from '../facts/releases.js';
import { valueCause } from '../facts/denials.js';
import { failedCreateEvents } from '../facts/resources.js';
import { APP_WORKLOADS, DECISIONS, type Workload } from '../facts/model.js';
import { badValue, onBadOf, typeText } from '../mesh/key-values.js';
import type { KeyValueRule } from '../mesh/release-table.js';
import { proxyNamesOfAllReleases } from '../mesh/releases.js';
import { injectedNames } from '../mesh/proxy.js';
import { profileOf, webhookMesh } from '../mesh/registry.js';
import type { MeshName } from '../mesh/names.js';
import { failureEffect, parseAdmissionError } from '../k8s/admission.js';
import { annotationsOf, isObj, labelsOf, nameOf, str } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';

const HEAD = '{subject} {key}={value}, which {release} reads as {type}: {why}.';
const MESSAGES = messages({
  refuse: `${HEAD} Its injector fails on it, so the API server denies the pods{seen}.`,
  crash: `${HEAD} Its injector crashes on it, so the API server's call to the webhook fails ({effect}){seen}.`,
  ignore: `${HEAD} Its injector ignores it and keeps the default: the setting does nothing.`,
  'proxy-fails': `${HEAD} The injector passes it on, and {fails}{seen}.`,
});

/** At most this many characters of a value or a quoted message are said. */
const MAX_TEXT = 300;

const cut = (s: string) => (s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}…` : s);
/** A fix comment names the type without the characters a comment may not hold. */
const words = (s: string) => s.replace(/[();'"]/g, '');

/** The injected containers of the workload's pods that are not ready, with the kubelet's reason: at most three. */
function notReady(w: Workload, mesh: MeshName): string[] {
  const names = new Set(injectedNames(profileOf(mesh)));
  const out: string[] = [];
  for (const pod of w.pods.slice(0, 64)) {
    const status = isObj(pod.status) ? pod.status : {};
    for (const list of [status.initContainerStatuses, status.containerStatuses])
      for (const c of Array.isArray(list) ? list.slice(0, 32) : []) {
        if (!isObj(c) || !names.has(str(c.name) ?? '') || c.ready === true) continue;
        const state = isObj(c.state) ? c.state : {};
        const term = isObj(state.terminated) ? state.terminated : undefined;
        if (term && str(term.reason) === 'Completed') continue;
        const reason = (isObj(state.waiting) ? str(state.waiting.reason) : undefined) ?? str(term?.reason) ?? 'running';
        if (out.length < 3) out.push(`pod ${nameOf(pod)} container ${str(c.name)} not ready (${reason})`);
      }
  }
  return out;
}

/** The workload's pods created without the mesh's proxy (a failed call admitted under failurePolicy Ignore): at most three. */
function withoutProxy(w: Workload, mesh: MeshName): string[] {
  const names = new Set(proxyNamesOfAllReleases(profileOf(mesh)));
  const has = (pod: Workload['pods'][number]) => {
    const spec = isObj(pod.spec) ? pod.spec : {};
    return [spec.containers, spec.initContainers].some(
      (l) => Array.isArray(l) && l.slice(0, 64).some((c) => isObj(c) && names.has(str(c.name) ?? '')),
    );
  };
  return w.pods
    .slice(0, 64)
    .filter((pod) => !has(pod))
    .slice(0, 3)
    .map((pod) => `pod ${nameOf(pod)} runs without the proxy`);
}

/** The workload's FailedCreate events naming the mesh's webhook: a denial (refuse) or a failed call (crash). */
function refusals(m: Parameters<typeof failedCreateEvents>[0], w: Workload, mesh: MeshName, onBad: string) {
  return failedCreateEvents(m, w, (msg) => {
    const x = parseAdmissionError(msg);
    if (!x || (x.kind !== 'denied' && x.kind !== 'call')) return false;
    if (webhookMesh({ name: x.webhook, configName: '' }) !== mesh) return false;
    return onBad === 'crash' ? x.kind === 'call' : x.kind === 'denied';
  });
}

export default defineCheck({
  ...meta('mesh-key-value-invalid'),
  facts: [APP_WORKLOADS, DECISIONS, VALUE_RULES],
  messages: MESSAGES,
  *run(m) {
    for (const { mesh } of m.meshes) {
      const p = profileOf(mesh);
      const installed = installedValueRules(m, mesh);
      if (!installed?.rules.length) continue;
      const { rules, release, note } = installed;
      const bad = (r: KeyValueRule, value: string, ports?: Set<string>) => badValue(r.type, value, ports);
      const evidence = (r: KeyValueRule, where: string, value: string, why: string) => ({
        key: `${where} ${r.key}=${cut(value)}`,
        release,
        expects: typeText(r.type),
        why,
        does: onBadOf(r, value),
        ...(r.says ? { injectorSays: r.says } : {}),
        source: r.source,
        ...(note ? { note } : {}),
      });
      const sayIt = (r: KeyValueRule, subject: string, value: string, why: string, seen: string, effect: string) => {
        const base = { subject, key: r.key, value: cut(value), release, type: typeText(r.type), why };
        const onBad = onBadOf(r, value);
        if (onBad === 'refuse') return say(MESSAGES, 'refuse', { ...base, seen });
        if (onBad === 'crash') return say(MESSAGES, 'crash', { ...base, effect, seen });
        if (onBad === 'ignore') return say(MESSAGES, 'ignore', base);
        return say(MESSAGES, 'proxy-fails', { ...base, fails: r.fails ?? 'an injected container fails on it', seen });
      };
      const policies = m.mesh(mesh)?.webhooks.map((h) => h.failurePolicy) ?? [];
      const effect =
        failureEffect(policies) ||
        "the webhook's failurePolicy decides: Fail refuses the pods, Ignore admits them without a proxy";

      // Namespaces: the keys the mesh reads on them.
      const nsRules = rules.filter((r) => r.where?.includes('namespace'));
      if (nsRules.length)
        for (const ns of m.list('namespaces')) {
          const name = nameOf(ns);
          if (
            !name ||
            !m.inScope(name) ||
            p.controlPlane.isNamespace(ns) ||
            p.controlPlane.ownNamespaces.includes(name)
          )
            continue;
          for (const r of nsRules) {
            const map = r.on === 'label' ? labelsOf(ns) : annotationsOf(ns);
            if (!Object.hasOwn(map, r.key)) continue;
            const value = map[r.key] ?? '';
            const why = bad(r, value);
            if (why === undefined) continue;
            const field = r.on === 'label' ? 'labels' : 'annotations';
            yield {
              mesh,
              ...(onBadOf(r, value) === 'ignore' ? { severity: 'warning' as const } : {}),
              ...sayIt(r, `Namespace ${name} has ${r.on}`, value, why, '', effect),
              resource: { kind: 'Namespace', name },
              evidence: evidence(r, `namespace ${r.on}`, value, why),
              fix: [
                comment`${r.key} takes ${words(typeText(r.type))}: write such a value, or remove the key to keep the default`,
                ...namespaceChange(m, name, field, [{ key: r.key }]),
              ],
            };
          }
        }

      // Pod templates (and bare pods): where the mesh's webhook is called for the pods.
      for (const w of m.appWorkloads) {
        const found = badTemplateValues(m, w, mesh);
        if (!found.length) continue;
        const word = w.kind === 'Pod' ? '' : 'pod template ';
        const keys = found.map((b) => b.rule.key);
        for (const { rule: r, value, why, onBad } of found) {
          const events = onBad === 'refuse' || onBad === 'crash' ? refusals(m, w, mesh, onBad) : [];
          // The event that names this key or value; else one that names none of the bad keys (a generic message).
          const mine = events.filter(
            (e) => e.message.includes(r.key) || (value.length > 2 && e.message.includes(value)),
          );
          const seenEvents = mine.length ? mine : events.filter((e) => !keys.some((k) => e.message.includes(k)));
          const pods =
            onBad === 'proxy-fails'
              ? notReady(w, mesh)
              : onBad === 'crash' && !seenEvents.length && policies.includes('Ignore')
                ? withoutProxy(w, mesh)
                : [];
          const seen = seenEvents.length
            ? `: seen, FailedCreate "${cut(seenEvents[0]!.message)}"`
            : pods.length
              ? `: seen, ${pods.join(', ')}`
              : '';
          const field = r.on === 'label' ? 'labels' : 'annotations';
          yield {
            mesh,
            ...(onBad === 'ignore' ? { severity: 'warning' as const } : {}),
            ...sayIt(r, `${w.kind} ${w.namespace}/${w.name} has ${word}${r.on}`, value, why, seen, effect),
            resource: w.ref,
            ...(onBad === 'refuse' || onBad === 'crash' ? { causeKey: valueCause(mesh, w.ref) } : {}),
            evidence: {
              ...evidence(r, `${word}${r.on}`, value, why),
              ...(seenEvents.length ? { failedCreate: seenEvents.slice(0, 3).map((e) => cut(e.message)) } : {}),
              ...(pods.length ? { pods } : {}),
            },
            fix: [
              comment`${r.key} takes ${words(typeText(r.type))}: write such a value, or remove the key to keep the default`,
              ...removeFromTemplate(w, field, r.key),
              ...recreateCommands(w),
            ],
          };
        }
      }
    }
  },
});
