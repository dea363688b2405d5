/**
 * Istio's injection decision inside the webhook (docs/meshes/istio.md, research/istio.md §1-§3):
 * istio/istio pkg/kube/inject/inject.go `injectRequired` (master 86c9f01f, func at line 201;
 * tag 1.26.0 c2e9871f for the parsing before 1.27), run by webhook.go `inject` (line 1202) only
 * after the API server called a webhook. Its configuration is the injector ConfigMap
 * `istio-sidecar-injector[-<rev>]` key `config` (`policy`, `neverInjectSelector`,
 * `alwaysInjectSelector`; struct `Config` in inject.go, lines 137-160), rendered from
 * manifests/charts/istio-control/istio-discovery/templates/istiod-injector-configmap.yaml.
 */
import { defineFactFamily } from '../../k8s/fact.js';
import { choice, cmd, comment, text } from '../../fix/steps.js';
import { podSpec } from '../../k8s/pods.js';
import { evalSelector, selectorError } from '../../k8s/selectors.js';
import type { MeshContext } from '../context.js';
import { arr, annotationsOf, isObj, labelsOf, strMap } from '../../util/objects.js';
import { configKey } from '../config-values.js';
import type { DecisionInput, InjectorStep } from '../profile.js';
import { evalWebhook } from '../../k8s/webhook.js';
import { istiodRelease, istiodVersion, readingAt, type IstioRules } from './version.js';
import { readValue } from '../profile-from.js';
import { ISTIO_RELEASES } from './releases.js';
import { injectorConfigName, policyFix, reinstallIstiod, serviceRevision } from './install.js';
import { invalidAnnotations } from './annotations.js';

export const ISTIO_INJECT = 'sidecar.istio.io/inject';
export const ISTIO_NS_LABEL = 'istio-injection';
export const ISTIO_REV = 'istio.io/rev';
/** pkg/kube/inject/initializer.go:38 IgnoredNamespaces (86c9f01f). */
export const ISTIO_IGNORED_NAMESPACES = ['kube-system', 'kube-public', 'kube-node-lease', 'local-path-storage'];

/** The per-pod injection value: the label wins over the annotation whenever the key is present, even empty (inject.go:222-226). */
export function istioPodValue(template: { metadata?: unknown }): { value?: string; from?: 'label' | 'annotation' } {
  const l = labelsOf(template)[ISTIO_INJECT];
  if (l !== undefined) return { value: l, from: 'label' };
  const a = annotationsOf(template)[ISTIO_INJECT];
  if (a !== undefined) return { value: a, from: 'annotation' };
  return {};
}

// --- The injector's configuration ----------------------------------------------------------

interface IstioInjectorConfig {
  /** "istio-system/istio-sidecar-injector". */
  configMap: string;
  /** The ConfigMap and its `config` key were read. */
  read: boolean;
  /**
   * ConfigMaps were read and this one is absent: istiod started without it serves no injection
   * (pilot/pkg/bootstrap/sidecarinjector.go initSidecarInjector @86c9f01f, "Skipping sidecar
   * injector, template not found"; the chart does not mount it, templates/deployment.yaml).
   */
  missing?: boolean;
  /** `policy` as written (undefined: not read). */
  policy?: string;
  neverInjectSelector: unknown[];
  alwaysInjectSelector: unknown[];
}

const INJECTOR_CONFIG = defineFactFamily({
  id: 'istio-injector-config',
  inputs: ['configmaps'],
  cacheKey: (k: { ns: string; name: string }) => `${k.ns}/${k.name}`,
  compute: (m: MeshContext, { ns, name }: { ns: string; name: string }): IstioInjectorConfig => {
    const cm = m.get('configmaps', ns, name);
    const cfg = configKey(cm, 'config');
    const configMap = `${ns}/${name}`;
    if (!cfg)
      return {
        configMap,
        read: false,
        ...(!cm && m.readIn('configmaps', ns) ? { missing: true } : {}),
        neverInjectSelector: [],
        alwaysInjectSelector: [],
      };
    return {
      configMap,
      read: true,
      // A policy that is not a string (or absent) is not "enabled" or "disabled": injection off.
      policy:
        typeof cfg.policy === 'string'
          ? cfg.policy
          : cfg.policy === undefined || cfg.policy === null
            ? ''
            : String(cfg.policy),
      neverInjectSelector: arr(cfg.neverInjectSelector),
      alwaysInjectSelector: arr(cfg.alwaysInjectSelector),
    };
  },
});

function injectorConfig(m: MeshContext, ns: string, name: string): IstioInjectorConfig {
  return m.fact(INJECTOR_CONFIG, { ns, name });
}

/**
 * The injector a pod created now is sent to: the istiod behind the first Istio webhook the API
 * server would call; when none is called, the default revision's (for explain's steps). Services
 * are not read (a check that decides need not declare them).
 */
export function injectorFor(
  m: MeshContext,
  input: DecisionInput,
): { ns: string | undefined; service: string | undefined; deployment: string | undefined } {
  const hooks = m.webhooksOf('istio');
  const podLabels = input.podLabels ?? labelsOf(input.template);
  // The calls the facts layer made for this pod, when given (decide); else evaluated here (markers' what-if).
  const called = input.calls
    ? input.calls.find((c) => c.called)?.webhook
    : hooks.find((h) => evalWebhook(h, input.nsLabels, podLabels).called);
  const hook = called ?? hooks.find((h) => h.service?.name === 'istiod') ?? hooks[0];
  const ns = hook?.service?.namespace ?? m.mesh('istio')?.namespaces[0] ?? 'istio-system';
  const service = hook?.service?.name ?? 'istiod';
  // The chart names the Deployment like its Service (istiod[-<rev>], templates/deployment.yaml).
  return { ns, service, deployment: service };
}

/** A selector as text, for evidence: "app=legacy, tier in (batch)". */
const selectorText = (s: unknown): string =>
  isObj(s)
    ? evalSelector(s, {})
        .terms.map((t) => t.term)
        .join(', ') || '{}'
    : (JSON.stringify(s ?? null) ?? 'null');

/** The label keys a selector reads. */
const selectorKeys = (s: unknown): string[] =>
  isObj(s)
    ? [...Object.keys(strMap(s.matchLabels)), ...arr(s.matchExpressions).map((e) => (isObj(e) ? String(e.key) : ''))]
    : [];

/** An empty selector is ignored by injectRequired (`!selector.Empty()`), not a match-all. */
const emptySelector = (s: unknown): boolean =>
  !isObj(s) || (Object.keys(strMap(s.matchLabels)).length === 0 && arr(s.matchExpressions).length === 0);

// --- injectRequired --------------------------------------------------------------------------

/**
 * How the per-pod value reads under a rule set (the release table's `parses` of the oldest and the
 * newest release: loose before 1.27, exact from 1.27): inject, do not inject, defer to selectors
 * and policy; and whether it is ignored.
 */
export function parseInjectValue(
  value: string | undefined,
  rules: IstioRules,
): { explicit?: boolean; ignored: boolean } {
  if (value === undefined) return { ignored: false };
  const r = readValue(readingAt(rules === 'loose' ? ISTIO_RELEASES.order[0]! : ISTIO_RELEASES.order.at(-1)!), value);
  return r === 'invalid' ? { ignored: true } : { ...(r === undefined ? {} : { explicit: r }), ignored: false };
}

/**
 * The webhook's own decision for a pod it is called for, in injectRequired's order: hostNetwork,
 * ignored namespaces, the per-pod value (version-dependent), neverInjectSelector,
 * alwaysInjectSelector (both only without an explicit value; never first), the policy. The
 * first step that says no decides; steps with `config` name the injector configuration that
 * keeps the pod out (for injector-config-excludes).
 */
export function istioInjector(m: MeshContext, input: DecisionInput): InjectorStep[] {
  const steps = injectRequiredSteps(m, input);
  if (!steps.every((s) => s.ok)) return steps;
  // It injects: it validates the pod's annotations first, and an invalid one fails the injection, which denies the pod.
  const bad = invalidAnnotations(annotationsOf(input.template));
  if (bad.length)
    steps.push({
      kind: 'marker',
      rule: 'annotation-validation',
      ok: false,
      denies: true,
      detail: `${bad.map((b) => `invalid value '${b.value}' for annotation '${b.key}': ${b.why}`).join('; ')}: istiod fails the injection ("Injection failed due to invalid annotations"), so the API server denies the pod (IST0125)`,
    });
  return steps;
}

function injectRequiredSteps(m: MeshContext, input: DecisionInput): InjectorStep[] {
  const { namespace, template } = input;
  const steps: InjectorStep[] = [];
  const spec = podSpec(template);
  if (spec.hostNetwork === true)
    return [
      { kind: 'host-network', rule: 'hostNetwork', ok: false, detail: 'spec.hostNetwork is true: never injected' },
    ];
  steps.push({ kind: 'host-network', rule: 'hostNetwork', ok: true, detail: 'not hostNetwork' });
  if (ISTIO_IGNORED_NAMESPACES.includes(namespace)) {
    steps.push({
      kind: 'system-namespace',
      rule: 'ignored-namespace',
      ok: false,
      detail: `Istio never injects in ${namespace}`,
    });
    return steps;
  }
  const target = injectorFor(m, input);
  const version = istiodVersion(m, target.ns, target.deployment);
  const release = target.ns && target.deployment ? istiodRelease(m, target.ns, target.deployment) : undefined;
  steps.push({ kind: 'version', rule: 'version', ok: true, detail: version.text });

  const { value, from } = istioPodValue(template);
  const parsed = parseInjectValue(value, version.rules);
  let explicit = parsed.explicit;
  // Version unknown and the value asks for injection before 1.27 but not from 1.27: a refusal by
  // the configuration below holds for one rule set only, so it is no definite finding (no `config`).
  let uncertain = false;
  const ifExact = (detail: string) =>
    uncertain ? `${detail} (if istiod is 1.27 or later; before 1.27 the pod's value injects it)` : detail;
  if (value !== undefined && from) {
    const what = `pod template ${from} ${ISTIO_INJECT}=${value}`;
    if (parsed.ignored && version.version === undefined) {
      // The version is unknown and the value means different things to the two rule sets: say so.
      const before = parseInjectValue(value, 'loose').explicit ? 'inject' : 'do not inject';
      uncertain = before === 'inject';
      steps.push({
        kind: 'marker',
        rule: 'inject-label-or-annotation',
        ok: true,
        detail: `${what} depends on the version: Istio 1.27 and later ignore it (the selectors and the policy decide, assumed here), before 1.27 it means "${before}"`,
      });
    } else if (parsed.ignored) {
      steps.push({
        kind: 'marker',
        rule: 'inject-label-or-annotation',
        ok: true,
        detail: `${what} is ignored (only "true" and "false" count): the selectors and the policy decide`,
      });
    } else if (explicit === false) {
      const why =
        value.toLowerCase() === 'false'
          ? ''
          : ' (before 1.27 Istio reads any value but y/yes/true/on as "do not inject")';
      steps.push({ kind: 'marker', rule: 'inject-label-or-annotation', ok: false, detail: `${what}${why}` });
      return steps;
    } else if (explicit === true) {
      steps.push({
        kind: 'marker',
        rule: 'inject-label-or-annotation',
        ok: true,
        detail: `${what}: injection asked explicitly (the selectors are not consulted)`,
      });
    }
  }

  const cfgName = injectorConfigName(target.service ? serviceRevision(target.service) : undefined);
  const cfg = injectorConfig(m, target.ns ?? 'istio-system', cfgName);
  const where = `ConfigMap ${cfg.configMap} key config`;
  // The webhook calls a namespace that does not exist: no istiod there started without this ConfigMap;
  // the failing call is the webhook's (webhook-call-failed, webhook-stale), not the configuration's.
  if (cfg.missing && target.ns && m.has('namespaces') && !m.namespace(target.ns)) return steps;
  if (cfg.missing) {
    steps.push({
      kind: 'injector-config',
      rule: 'injector-config',
      ok: false,
      detail: `ConfigMap ${cfg.configMap} not found: istiod started without it serves no injection ("Skipping sidecar injector, template not found"), so the API server's call fails (failurePolicy Fail refuses the pod, Ignore creates it without a proxy)`,
      config: {
        evidence: { configMap: cfg.configMap, exists: false },
        fix: [
          comment`istiod started without it logs 'Skipping sidecar injector, template not found'`,
          cmd`kubectl -n ${target.ns ?? 'istio-system'} logs ${`deploy/${target.deployment ?? 'istiod'}`} -c discovery | grep -i ${'sidecar injector'}`,
          ...reinstallIstiod(target.ns ?? 'istio-system', target.deployment ?? 'istiod', release),
        ],
      },
    });
    return steps;
  }
  if (!cfg.read) {
    steps.push({
      kind: 'injector-setting',
      rule: 'policy',
      ok: true,
      detail: `${where} not read: the chart defaults are assumed (policy enabled, no never/always selectors)`,
    });
    return steps;
  }
  // The pod's labels, with those its controller adds (job-name, pod-template-hash, ...): istiod reads the pod.
  const podLabels = input.podLabels ?? labelsOf(template);
  const templateLabels = labelsOf(template);
  const added = (sel: unknown): string => {
    const keys = Object.keys(podLabels).filter((k) => templateLabels[k] === undefined && selectorKeys(sel).includes(k));
    return keys.length ? ` (${keys.join(', ')}: added to the pods by their controller)` : '';
  };
  // A selector LabelSelectorAsSelector rejects is skipped by injectRequired ("Invalid selector for
  // NeverInjectSelector/AlwaysInjectSelector", inject.go @86c9f01f lines 243-262): said once, then ignored.
  const valid = (list: unknown[], name: string) =>
    list.filter((sel) => {
      const err = selectorError(sel);
      if (err)
        steps.push({
          kind: 'injector-setting',
          rule: 'invalid-selector',
          ok: true,
          detail: `${name} {${selectorText(sel)}} in ${where} is invalid (${err}): Istio skips it`,
        });
      return !err;
    });
  const neverSelectors = valid(cfg.neverInjectSelector, 'neverInjectSelector');
  const alwaysSelectors = valid(cfg.alwaysInjectSelector, 'alwaysInjectSelector');
  if (explicit === undefined) {
    const never = neverSelectors.find((s) => !emptySelector(s) && evalSelector(s, podLabels).matched);
    if (never !== undefined) {
      steps.push({
        kind: 'injector-setting',
        rule: 'never-inject-selector',
        ok: false,
        detail: ifExact(`the pod labels match neverInjectSelector {${selectorText(never)}}${added(never)} in ${where}`),
        ...(uncertain
          ? {}
          : {
              config: {
                evidence: { configMap: cfg.configMap, key: 'config', neverInjectSelector: never },
                templateFix: { field: 'labels', key: ISTIO_INJECT, value: 'true' },
                fix: [
                  comment`or: remove this selector from sidecarInjectorWebhook.neverInjectSelector in the values the control plane was installed with, and upgrade it`,
                ],
              },
            }),
      });
      return steps;
    }
    const always = alwaysSelectors.find((s) => !emptySelector(s) && evalSelector(s, podLabels).matched);
    if (always !== undefined) {
      explicit = true;
      steps.push({
        kind: 'injector-setting',
        rule: 'always-inject-selector',
        ok: true,
        detail: `the pod labels match alwaysInjectSelector {${selectorText(always)}}${added(always)} in ${where}`,
      });
    }
  }
  const policy = cfg.policy ?? '';
  if (policy === 'enabled') {
    steps.push({ kind: 'injector-setting', rule: 'policy', ok: true, detail: `policy enabled in ${where}` });
  } else if (policy === 'disabled') {
    steps.push(
      explicit
        ? {
            kind: 'injector-setting',
            rule: 'policy',
            ok: true,
            detail: `policy disabled in ${where}, but the pod asks explicitly`,
          }
        : {
            kind: 'injector-setting',
            rule: 'policy',
            ok: false,
            detail: ifExact(
              `policy disabled in ${where}: only pods asking explicitly (${ISTIO_INJECT}: "true") are injected`,
            ),
            ...(uncertain
              ? {}
              : {
                  config: {
                    evidence: { configMap: cfg.configMap, key: 'config', policy },
                    templateFix: { field: 'labels', key: ISTIO_INJECT, value: 'true' },
                    fix: [
                      choice(
                        [],
                        [
                          {
                            label: text`or, to inject every pod of enabled namespaces by default`,
                            steps: policyFix(target.ns ?? 'istio-system', target.deployment ?? 'istiod', release),
                          },
                        ],
                      ),
                    ],
                  },
                }),
          },
    );
  } else {
    // "Illegal value for autoInject ... Auto injection disabled!": even an explicit "true" is refused.
    steps.push({
      kind: 'injector-setting',
      rule: 'policy',
      ok: false,
      detail: `policy "${policy}" in ${where} is neither enabled nor disabled: Istio injects no pod at all`,
      config: {
        evidence: { configMap: cfg.configMap, key: 'config', policy },
        fix: policyFix(target.ns ?? 'istio-system', target.deployment ?? 'istiod', release),
      },
    });
  }
  return steps;
}
