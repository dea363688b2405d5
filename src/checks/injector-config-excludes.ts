/**
 * injector-config-excludes — the namespace (or template) asks for injection and a webhook is
 * called, but the injector's own configuration refuses the pods: Istio's neverInjectSelector, or
 * its policy `disabled` (pods must ask explicitly) or any value but enabled/disabled (nothing is
 * injected at all), in ConfigMap `istio-sidecar-injector[-<rev>]` key `config`.
 *
 * Why: the webhook answers "allowed, no patch" and writes no Event (istio/istio
 * pkg/kube/inject/webhook.go `inject`, "Skipping due to policy check", 86c9f01f): the pods start
 * without a proxy, and every label looks right. Without this check they would look like
 * sidecar-missing, whose fix (look at events, restart) changes nothing.
 * When: for each app workload whose decision says a webhook is called and a step the profile marks
 * as configuration (InjectorStep.config) refuses it, also when its running pods are meshed (its
 * next pods will not be). Silent for hostNetwork and opted-out templates, finished Jobs, ignored namespaces (the steps before the configuration decide), and where no
 * injector configuration was read (the chart defaults are assumed: policy enabled, no selectors).
 * Known false positives: an install that keeps workloads out on purpose with a never-selector or
 * an opt-in policy; suppress them, or let the template say so with the explicit opt-out.
 * An injection policy that refuses every pod (neither enabled nor disabled), or an injector
 * ConfigMap that is absent (istiod then serves no injection), is one finding on the ConfigMap,
 * listing the workloads sent to it: no workload can fix it.
 * Fix: the template label that gets the pods past the step (an explicit `sidecar.istio.io/inject:
 * "true"` skips the selectors and satisfies a disabled policy; a rollout follows the patch), or,
 * where no pod setting can help (an unknown policy), the configuration change, the way the
 * control plane was installed.
 */
import { recreateCommands, setOnTemplate } from '../fix/commands.js';
import { templateOptOut } from '../facts/markers.js';
import { meshTitle } from '../mesh/registry.js';
import { jobFinished, podStates, APP_WORKLOADS, DECISIONS } from '../facts/model.js';
import { leftoverConfigs, MESH_CONFIGS } from '../facts/webhook-configs.js';
import type { MeshName } from '../mesh/names.js';
import type { InjectorStep } from '../mesh/profile.js';
import { nameOf } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';
import type { Step } from '../fix/steps.js';
import { judgedByPod } from '../k8s/workloads.js';

const MESSAGES = messages({
  'refuses-workload':
    '{workload} is sent to the {meshTitle} injector, but its configuration refuses the pods: {detail}.',
  'refuses-every-pod':
    "The {meshTitle} injector's configuration {config} refuses every pod ({workloads} workload(s) sent to it): {detail}.",
});

export default defineCheck({
  ...meta('injector-config-excludes'),
  facts: [APP_WORKLOADS, DECISIONS, MESH_CONFIGS],
  messages: MESSAGES,
  *run(m) {
    // A policy that refuses every pod (no template setting helps) is one finding about the configuration.
    const refusedAll = new Map<
      string,
      { mesh: string; step: InjectorStep; webhook: string; workloads: string[]; pods: string[] }
    >();
    // A configuration left behind (its injector uninstalled): webhook-stale's, never an injector's configuration.
    const leftovers = new Map<MeshName, Set<string>>();
    const leftover = (mesh: MeshName, config: string) => {
      let names = leftovers.get(mesh);
      if (!names) leftovers.set(mesh, (names = new Set(leftoverConfigs(m, mesh).map((c) => c.name))));
      return names.has(config);
    };
    for (const w of m.appWorkloads) {
      const states = podStates(w);
      if (states.hostNetwork) continue; // never injected anyway: host-network-pod
      if (w.kind === 'Job' && jobFinished(w.obj)) continue; // creates no more pods
      for (const d of m.decisions(w)) {
        if (!d.called || !d.intent) continue; // no webhook called: the selectors are the cause (other checks)
        if (templateOptOut(m, d.mesh, w.template)) continue; // a deliberate opt-out: pod-opted-out
        if (d.calls.filter((c) => c.called).every((c) => leftover(d.mesh, c.webhook.configName))) continue;
        const step = d.injector.find((s) => !s.ok);
        if (!step?.config) continue; // injected, or refused by a rule that is not configuration
        const { templateFix } = step.config;
        const cfgName = String(step.config.evidence.configMap ?? '');
        if (!templateFix && cfgName) {
          const g = refusedAll.get(cfgName) ?? {
            mesh: d.mesh,
            step,
            webhook: d.calls.find((c) => c.called)!.webhook.name,
            workloads: [],
            pods: [],
          };
          g.workloads.push(`${w.kind} ${w.namespace}/${w.name}`);
          g.pods.push(...states.unmeshed.map(nameOf));
          refusedAll.set(cfgName, g);
          continue;
        }
        const fix: Step[] = templateFix ? setOnTemplate(w, templateFix.field, templateFix.key, templateFix.value) : [];
        if (templateFix && judgedByPod(w)) fix.push(...recreateCommands(w)); // patching a template rolls it out; a bare pod is re-created
        fix.push(...step.config.fix); // the configuration change (an alternative, as a comment, where the template fix works)
        yield {
          mesh: d.mesh,
          ...say(MESSAGES, 'refuses-workload', {
            workload: `${w.kind} ${w.namespace}/${w.name}`,
            meshTitle: meshTitle(d.mesh),
            detail: step.detail,
          }),
          resource: w.ref,
          affectedPods: states.unmeshed.length,
          evidence: {
            rule: step.rule,
            detail: step.detail,
            ...step.config.evidence,
            webhook: d.calls.find((c) => c.called)!.webhook.name,
            ...(templateFix
              ? { templateChange: `${templateFix.field.slice(0, -1)} ${templateFix.key}=${templateFix.value}` }
              : {}),
            pods: states.unmeshed.map(nameOf),
          },
          fix,
        };
      }
    }
    for (const [cfgName, g] of refusedAll) {
      const [namespace, name] = cfgName.split('/') as [string, string];
      yield {
        mesh: g.mesh as MeshName,
        ...say(MESSAGES, 'refuses-every-pod', {
          meshTitle: meshTitle(g.mesh as MeshName),
          config: cfgName,
          workloads: g.workloads.length,
          detail: g.step.detail,
        }),
        resource: { kind: 'ConfigMap', namespace, name },
        affectedPods: g.pods.length,
        evidence: {
          rule: g.step.rule,
          detail: g.step.detail,
          ...g.step.config!.evidence,
          webhook: g.webhook,
          workloads: g.workloads,
          pods: g.pods,
        },
        fix: g.step.config!.fix,
      };
    }
  },
});
