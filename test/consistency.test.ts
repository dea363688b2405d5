/**
 * `check` and `explain` tell one story (issue 14), over every fixture: the healthy clusters and
 * every test/fixtures/checks/** overlay over its base. For each app workload and each mesh:
 * - explain says a pod created now would be injected and active pods run without that proxy ->
 *   check reports something about the workload (explain's own related findings are not empty);
 * - explain's injector or webhooks say it would not be -> check never calls its pods missing
 *   (sidecar-missing, pod-predates-enablement) for that mesh.
 * A called webhook whose Service is down is left out of the second rule: explain then says "not
 * injected" because the call fails, and the pods' missing proxy is exactly what check reports.
 * The self-test below feeds a deliberately inconsistent explanation to the same rule: it fails.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/index.js';
import { explain, type Explanation } from '../src/run/explain.js';
import { podStates } from '../src/facts/model.js';
import { makeModel, runChecks } from '../src/run/run.js';
import type { Finding } from '../src/run/result.js';
import type { MeshName } from '../src/mesh/names.js';
import type { Snapshot } from '../src/k8s/snapshot.js';
import { podSpec } from '../src/k8s/pods.js';
import { templateOptOut } from '../src/facts/markers.js';
import { profileOf } from '../src/mesh/registry.js';
import { FIXTURES, HEALTHY_BASES, NOW, baseOf, besideOf, cluster, type Base } from './helpers/fixtures.js';

const MISSING = new Set(['sidecar-missing', 'pod-predates-enablement']);

/** The rule, as a pure function of one workload's explanation and the report's findings: the violations. */
export function inconsistencies(e: Explanation, unmeshed: (mesh: MeshName) => number, findings: Finding[]): string[] {
  const out: string[] = [];
  const w = `${e.workload.kind} ${e.workload.namespace}/${e.workload.name}`;
  for (const x of e.meshes) {
    const unmeshedPods = unmeshed(x.mesh);
    const called = x.webhooks.some((h) => h.called);
    const callFails = x.webhooks.some((h) => h.called && h.callFails);
    const missing = findings.filter(
      (f) =>
        MISSING.has(f.id) &&
        f.mesh === x.mesh &&
        f.resource.kind === e.workload.kind &&
        f.resource.namespace === e.workload.namespace &&
        f.resource.name === e.workload.name,
    );
    if (x.wouldInject && unmeshedPods > 0 && e.findings.length === 0)
      out.push(
        `${w}: explain says ${x.mesh} would inject it and ${unmeshedPods} pod(s) run without a proxy, but check reports nothing about it`,
      );
    if (!x.wouldInject && !(called && callFails && x.injector.every((s) => s.ok)) && missing.length > 0)
      out.push(
        `${w}: explain says ${x.mesh} would not inject it (${x.verdict}), but check reports ${missing.map((f) => f.id).join(', ')}`,
      );
  }
  return out;
}

/**
 * explain's verdict never contradicts its own steps (issue 31 item 12): "would be injected" never
 * beside a failing injector step, a webhook not called or a call that fails; "would not be" never
 * where a webhook is called, its call can succeed and every step passed (and nothing was left unread).
 */
export function verdictContradictions(e: Explanation): string[] {
  const out: string[] = [];
  const w = `${e.workload.kind} ${e.workload.namespace}/${e.workload.name}`;
  for (const x of e.meshes) {
    const called = x.webhooks.some((h) => h.called);
    const fails = x.webhooks.some((h) => h.called && h.callFails === true);
    const failing = x.injector.filter((s) => !s.ok && !s.unknown).map((s) => s.rule);
    const says = x.verdict.startsWith('a pod created now would get');
    if (x.wouldInject === true && (!called || fails || failing.length || !says))
      out.push(
        `${w}: explain's verdict for ${x.mesh} is "${x.verdict}" (would inject) beside ${!called ? 'no webhook called' : fails ? 'a call that fails' : failing.length ? `failing step(s) ${failing.join(', ')}` : 'a verdict text that does not say so'}`,
      );
    if (x.wouldInject === false && (says || (called && !fails && !failing.length && !x.notExamined)))
      out.push(`${w}: explain's verdict for ${x.mesh} is "${x.verdict}" (would not inject) while every step passed`);
  }
  return out;
}

function cases(): [string, Snapshot][] {
  const out: [string, Snapshot][] = [];
  for (const base of HEALTHY_BASES) out.push([`healthy ${base}`, cluster(base)]);
  out.push(['golden-cluster.yaml', cluster('none', ['golden-cluster.yaml'])]);
  for (const dir of readdirSync(join(FIXTURES, 'checks')).sort()) {
    for (const f of readdirSync(join(FIXTURES, 'checks', dir))
      .filter((x) => /\.ya?ml$/.test(x))
      .sort()) {
      const file = `checks/${dir}/${f}`;
      for (const base of new Set<Base>([baseOf(file), besideOf(file)]))
        out.push([`${file} over ${base}`, cluster(base, [file])]);
    }
  }
  return out;
}

function check(snap: Snapshot): { violations: string[]; workloads: number } {
  const opts = { mesh: 'auto' as const, certExpiryWarningDays: 60, now: NOW };
  const model = makeModel(snap, opts);
  const { findings } = runChecks(snap, CHECKS, opts, model);
  const violations: string[] = [];
  for (const w of model.appWorkloads) {
    const e = explain(model, { kind: w.kind, name: w.name }, w.namespace, findings);
    // Pods that opted out themselves (created from an older template) or use hostNetwork were never
    // to be injected; pods the mesh meshes without a proxy (Istio's ambient mode) are meshed.
    const ns = model.namespace(w.namespace);
    const unmeshed = (mesh: MeshName) =>
      podStates(w).unmeshed.filter(
        (p) =>
          podSpec(p).hostNetwork !== true &&
          !templateOptOut(model, mesh, p) &&
          !profileOf(mesh).sidecarless?.meshedWithoutProxy?.(p, ns),
      ).length;
    violations.push(...inconsistencies(e, unmeshed, findings), ...verdictContradictions(e));
  }
  return { violations, workloads: model.appWorkloads.length };
}

describe('check and explain agree on every fixture', () => {
  const all = cases();
  it('covers the healthy clusters and every check fixture', () => {
    expect(all.length).toBeGreaterThan(100);
  });
  it.each(all)('%s', (_name, snap) => {
    expect(check(snap).violations).toEqual([]);
  });
});

describe('the consistency rule can fail', () => {
  const e = (wouldInject: boolean, findings: Finding[] = []): Explanation => ({
    workload: { kind: 'Deployment', namespace: 'shop', name: 'web' },
    meshes: [
      {
        mesh: 'istio',
        namespaceMarker: 'label istio-injection=enabled',
        webhooks: [],
        injector: [{ rule: 'policy', ok: wouldInject, detail: 'x' }],
        wouldInject,
        verdict: wouldInject ? 'a pod created now would get istio-proxy' : 'the istio injector would skip it: x',
      },
    ],
    now: { pods: 1, meshed: {}, unmeshed: ['web-1'] },
    onRestart: '',
    findings,
  });
  const one = () => 1;
  const missing = {
    id: 'sidecar-missing',
    mesh: 'istio',
    resource: { kind: 'Deployment', namespace: 'shop', name: 'web' },
  } as Finding;

  it('flags explain "would inject" with unmeshed pods and no finding', () => {
    expect(inconsistencies(e(true), one, [])).toHaveLength(1);
    expect(inconsistencies(e(true, [missing]), one, [missing])).toEqual([]);
  });

  it('flags explain "would not inject" beside a sidecar-missing finding', () => {
    expect(inconsistencies(e(false, [missing]), one, [missing])).toHaveLength(1);
    expect(inconsistencies(e(false), one, [])).toEqual([]);
  });

  it('catches a model whose check ignores the injector configuration (a never-selector)', () => {
    // The same cluster, the check's view made deliberately inconsistent: sidecar-missing as if the selector did not exist.
    const snap = cluster('istio', ['checks/injector-config-excludes/fires-istio-never-selector.yaml']);
    const opts = { mesh: 'auto' as const, certExpiryWarningDays: 60, now: NOW };
    const model = makeModel(snap, opts);
    const { findings } = runChecks(snap, CHECKS, opts, model);
    const w = model.appWorkloads.find((x) => x.name === 'reporter')!;
    const wrong = [...findings, { ...missing, resource: w.ref }];
    expect(
      inconsistencies(explain(model, { kind: w.kind, name: w.name }, w.namespace, wrong), one, wrong),
    ).toHaveLength(1);
  });
});

describe('the verdict rule can fail', () => {
  const e = (wouldInject: boolean, ok: boolean, called = true): Explanation => ({
    workload: { kind: 'Deployment', namespace: 'shop', name: 'web' },
    meshes: [
      {
        mesh: 'linkerd',
        namespaceMarker: 'annotation linkerd.io/inject=enabled',
        webhooks: [
          {
            configuration: 'linkerd-proxy-injector-webhook-config',
            webhook: 'linkerd-proxy-injector.linkerd.io',
            failurePolicy: 'Ignore',
            called,
            rulesMatchPodCreate: true,
            namespaceSelector: { matched: called, terms: [] },
            objectSelector: { matched: true, terms: [] },
            backend: null,
            callFails: false,
          },
        ],
        injector: [{ rule: 'annotation', ok, detail: 'x' }],
        wouldInject,
        verdict: wouldInject ? 'a pod created now would get linkerd-proxy' : 'the linkerd injector would skip it: x',
      },
    ],
    now: { pods: 1, meshed: {}, unmeshed: ['web-1'] },
    onRestart: '',
    findings: [],
  });
  it('"would inject" beside a failing step, or with no webhook called', () => {
    expect(verdictContradictions(e(true, false))).toHaveLength(1);
    expect(verdictContradictions(e(true, true, false))).toHaveLength(1);
  });
  it('"would not inject" where every step passed', () => {
    expect(verdictContradictions(e(false, true))).toHaveLength(1);
  });
  it('agreeing verdicts pass', () => {
    expect(verdictContradictions(e(true, true))).toEqual([]);
    expect(verdictContradictions(e(false, false))).toEqual([]);
  });
});
