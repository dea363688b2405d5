/**
 * Istio as clusters run it (issue 14): the injector's own configuration (policy, never/always
 * selectors), the version-dependent parsing of sidecar.istio.io/inject, enableNamespacesByDefault,
 * revisions and tags. Sources: istio/istio pkg/kube/inject/inject.go injectRequired (86c9f01f;
 * 1.26.0 c2e9871f), templates/mutatingwebhook.yaml and revision-tags-mwc.yaml (86c9f01f).
 */
import { render } from '../../src/fix/render.js';
import { describe, expect, it } from 'vitest';
import { slim } from '../../src/mesh/keep.js';
import { explain } from '../../src/run/explain.js';
import { parseInjectValue } from '../../src/mesh/istio/injector.js';
import { imageVersion, istiodVersion, rulesOf } from '../../src/mesh/istio/version.js';
import { istio } from '../../src/mesh/istio/index.js';
import { newPodLabels } from '../../src/k8s/pod-labels.js';
import { selectorError } from '../../src/k8s/selectors.js';
import { makeModel, runChecks } from '../../src/run/run.js';
import { CHECKS } from '../../src/checks/index.js';
import type { Snapshot } from '../../src/k8s/snapshot.js';
import { NOW, cluster, findings, ids } from '../helpers/fixtures.js';

const F = (check: string, file: string) => `checks/${check}/${file}`;
const ID = 'injector-config-excludes';
const opts = { mesh: 'auto' as const, certExpiryWarningDays: 60, now: NOW };

function explainIn(snap: Snapshot, kind: string, ns: string, name: string) {
  const m = makeModel(snap, opts);
  const e = explain(m, { kind, name }, ns, runChecks(snap, CHECKS, opts, m).findings);
  return e.meshes.find((x) => x.mesh === 'istio')!;
}

describe('the version of istiod decides how sidecar.istio.io/inject is read', () => {
  it('reads the version from the image tag, without -distroless/-debug, digests or vendor suffixes', () => {
    expect(imageVersion('docker.io/istio/pilot:1.27.1')?.text).toBe('1.27.1');
    expect(imageVersion('registry.istio.io/release/pilot:1.30.3-distroless')?.text).toBe('1.30.3');
    expect(imageVersion('gcr.io/istio-release/pilot:1.26.8-debug@sha256:abcd')?.text).toBe('1.26.8');
    expect(imageVersion('example.com:5000/mesh/pilot:1.11.2-asm.17-distroless')?.text).toBe('1.11.2');
    expect(imageVersion('example.com:5000/mesh/pilot')).toBeUndefined();
    expect(imageVersion('docker.io/istio/pilot:latest')).toBeUndefined();
    expect(rulesOf({ major: 1, minor: 26 })).toBe('loose');
    expect(rulesOf({ major: 1, minor: 27 })).toBe('exact');
    expect(rulesOf({ major: 2, minor: 0 })).toBe('exact');
  });

  it('parses values as each release does', () => {
    // 1.27.0 and later: only "true" and "false"; anything else is ignored (falls back to selectors and policy).
    expect(parseInjectValue('true', 'exact')).toEqual({ explicit: true, ignored: false });
    expect(parseInjectValue('false', 'exact')).toEqual({ explicit: false, ignored: false });
    expect(parseInjectValue('False', 'exact')).toEqual({ ignored: true });
    expect(parseInjectValue('yes', 'exact')).toEqual({ ignored: true });
    expect(parseInjectValue('', 'exact')).toEqual({ ignored: false });
    // Before 1.27: lower-cased y/yes/true/on inject; any other non-empty value is an explicit "no".
    expect(parseInjectValue('On', 'loose')).toEqual({ explicit: true, ignored: false });
    expect(parseInjectValue('nope', 'loose')).toEqual({ explicit: false, ignored: false });
    expect(parseInjectValue('', 'loose')).toEqual({ ignored: false });
  });

  it('assumes the 1.27+ rules, and says so, when the version is unknown', () => {
    const snap = cluster('istio');
    delete snap.objects.deployments;
    const v = istiodVersion(makeModel(snap, opts), 'istio-system', 'istiod');
    expect(v.rules).toBe('exact');
    expect(v.text).toBe(
      'Istio version unknown (Deployments were not read): the rules of Istio 1.27 and later are assumed',
    );
    const known = istiodVersion(makeModel(cluster('istio'), opts), 'istio-system', 'istiod');
    expect(known).toMatchObject({ version: '1.24.2', rules: 'loose' });
  });

  it('before 1.27: "False" is an explicit no and "yes" injects; both are reported, with the exact value as the fix', () => {
    const fs = findings(cluster('istio', [F('injection-marker-invalid', 'fires-istio-inject-values.yaml')]), [
      'injection-marker-invalid',
    ]);
    expect(ids(fs).sort()).toEqual([
      'injection-marker-invalid Deployment vals/eager',
      'injection-marker-invalid Deployment vals/shouty',
    ]);
    const shouty = fs.find((f) => f.resource.name === 'shouty')!;
    expect(shouty.message).toContain('still reads it as "do not inject"');
    expect(shouty.evidence).toMatchObject({
      expected: 'pod template label sidecar.istio.io/inject=false',
      rules: expect.stringContaining('before Istio 1.27'),
    });
    expect(shouty.fix[0]).toContain('"sidecar.istio.io/inject":"false"');
    const eager = fs.find((f) => f.resource.name === 'eager')!;
    expect(eager.fix[0]).toContain('{"annotations":{"sidecar.istio.io/inject":"true"}}');
    expect(
      explainIn(
        cluster('istio', [F('injection-marker-invalid', 'fires-istio-inject-values.yaml')]),
        'Deployment',
        'vals',
        'shouty',
      ).wouldInject,
    ).toBe(false);
  });

  it('OpenShift Service Mesh 2.5 reads the value as the Istio release it is built from (1.18), not as its own 2.5', () => {
    const snap = cluster('istio-ossm-2.5', [F('injection-marker-invalid', 'fires-istio-ossm-2-inject-values.yaml')]);
    const f = findings(snap, ['injection-marker-invalid']);
    expect(ids(f)).toEqual(['injection-marker-invalid Deployment bookinfo/reviews']);
    expect(f[0]!.evidence).toMatchObject({ rules: expect.stringContaining('before Istio 1.27') });
    const e = explainIn(snap, 'Deployment', 'bookinfo', 'reviews');
    expect(e.injector[1]!.detail).toBe(
      'istiod istio-system/istiod-basic runs registry.redhat.io/openshift-service-mesh/pilot-rhel8:2.5.1 (OpenShift Service Mesh 2.5.1, built from Istio 1.18): the rules of Istio before 1.27 apply',
    );
    // "True" injects before 1.27 (explicitly, so policy disabled does not keep it out).
    expect(e.wouldInject).toBe(true);
  });

  it('from 1.27: "False" is ignored, the policy injects, explain says so and check reports the value (not sidecar-missing)', () => {
    const snap = cluster('istio', [F('injection-marker-invalid', 'fires-istio-1-27-inject-values.yaml')]);
    const all = findings(snap);
    expect(ids(all).filter((x) => x.includes('vals27/shouty'))).toEqual([
      'injection-marker-invalid Deployment vals27/shouty',
    ]);
    const e = explainIn(snap, 'Deployment', 'vals27', 'shouty');
    expect(e.wouldInject).toBe(true);
    expect(e.injector.map((s) => s.rule)).toEqual(['hostNetwork', 'version', 'inject-label-or-annotation', 'policy']);
    expect(e.injector[1]!.detail).toBe(
      'istiod istio-system/istiod runs docker.io/istio/pilot:1.27.1-distroless: the rules of Istio 1.27 and later apply',
    );
    expect(e.injector[2]!.detail).toContain('is ignored (only "true" and "false" count)');
    expect(explainIn(snap, 'Deployment', 'vals27', 'exact').wouldInject).toBe(false);
  });

  it('stays silent for exact values and the empty label', () => {
    expect(
      findings(cluster('istio', [F('injection-marker-invalid', 'ok-istio-inject-values.yaml')]), [
        'injection-marker-invalid',
      ]),
    ).toEqual([]);
  });
});

describe('injector-config-excludes', () => {
  const run = (snap: Snapshot) => findings(snap, [ID]);

  it('a never-selector keeps the pods out: a warning naming the selector, and the explicit label as the fix', () => {
    const snap = cluster('istio', [F(ID, 'fires-istio-never-selector.yaml')]);
    const fs = run(snap);
    expect(ids(fs)).toEqual([`${ID} Deployment jobs/reporter`]);
    expect(fs[0]).toMatchObject({ severity: 'warning', code: 'MD1012', mesh: 'istio', affectedPods: 1 });
    expect(fs[0]!.evidence).toMatchObject({
      rule: 'never-inject-selector',
      configMap: 'istio-system/istio-sidecar-injector',
      key: 'config',
      neverInjectSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['batch'] }] },
      webhook: 'namespace.sidecar-injector.istio.io',
      pods: ['reporter-1'],
    });
    expect(fs[0]!.fix[0]).toBe(
      `kubectl patch deployment/reporter -n jobs --type=merge -p '{"spec":{"template":{"metadata":{"labels":{"sidecar.istio.io/inject":"true"}}}}}'`,
    );
    // Not "sidecar-missing": the model says it would not be injected, and explain shows the step.
    expect(ids(findings(snap)).filter((x) => x.includes('jobs/'))).toEqual([`${ID} Deployment jobs/reporter`]);
    const e = explainIn(snap, 'Deployment', 'jobs', 'reporter');
    expect(e.wouldInject).toBe(false);
    expect(e.verdict).toBe(
      'the istio injector would skip it: the pod labels match neverInjectSelector {tier in (batch)} in ConfigMap istio-system/istio-sidecar-injector key config',
    );
    // exporter matches the selector too, but its explicit "true" skips the selectors.
    expect(explainIn(snap, 'Deployment', 'jobs', 'exporter').wouldInject).toBe(true);
  });

  it('policy disabled: only pods asking explicitly are injected; the rest is reported, meshed pods included (their next pods)', () => {
    const fs = run(cluster('istio', [F(ID, 'fires-istio-policy-disabled.yaml')]));
    expect(ids(fs).sort()).toEqual([
      `${ID} Deployment optin/api`,
      `${ID} Deployment payments/ledger`,
      `${ID} Deployment store/frontend`,
    ]);
    const api = fs.find((f) => f.resource.name === 'api')!;
    expect(api.evidence).toMatchObject({ rule: 'policy', policy: 'disabled' });
    expect(api.fix).toHaveLength(4);
    expect(api.fix[1]).toBe(
      '# or, to inject every pod of enabled namespaces by default: if installed with Helm, pinned to the installed 1.24.2',
    );
    expect(api.fix[2]).toMatch(
      /^# or, to inject every pod of enabled namespaces by default: helm upgrade istiod istio\/istiod -n istio-system --version 1\.24\.2 .*autoInject=enabled$/,
    );
    expect(api.fix[3]).toMatch(
      /^# or, .*: if installed with istioctl, .*: istioctl install -f YOUR-ISTIOOPERATOR.yaml /,
    );
  });

  it('an invalid policy turns injection off for every pod, explicit "true" included: the fix is the configuration', () => {
    const fs = run(cluster('istio', [F(ID, 'fires-istio-policy-invalid.yaml')]));
    // One finding on the ConfigMap (no workload can fix it), listing the workloads sent to it.
    expect(ids(fs)).toEqual([`${ID} ConfigMap istio-system/istio-sidecar-injector`]);
    const f = fs[0]!;
    expect(f.evidence).toMatchObject({ policy: 'enable' });
    expect(f.evidence.workloads).toEqual([
      'Deployment optin/api',
      'Deployment optin/worker',
      'Deployment payments/ledger',
      'Deployment store/frontend',
    ]);
    // helm upgrade without --version would upgrade istiod to the newest chart: pinned to the installed release
    // (the base cluster's istiod runs pilot:1.24.2); istioctl only with the user's own IstioOperator, as a comment.
    expect(f.fix).toEqual([
      '# if installed with Helm, pinned to the installed 1.24.2',
      'helm upgrade istiod istio/istiod -n istio-system --version 1.24.2 --reuse-values --set global.proxy.autoInject=enabled',
      '# if installed with istioctl, from your own IstioOperator and values, else istioctl installs its defaults: istioctl install -f YOUR-ISTIOOPERATOR.yaml --set values.global.proxy.autoInject=enabled',
    ]);
  });

  it('stays silent where no webhook is called, for hostNetwork, explicit opt-in, empty selectors, and the healthy clusters', () => {
    expect(run(cluster('istio', [F(ID, 'ok-istio.yaml')]))).toEqual([]);
    expect(run(cluster('istio'))).toEqual([]);
    expect(run(cluster('both'))).toEqual([]);
  });

  it('ConfigMaps not read: the chart defaults are assumed, and explain says so', () => {
    const snap = cluster('istio', [F(ID, 'fires-istio-never-selector.yaml')]);
    delete snap.objects.configmaps;
    snap.unavailable.configmaps = 'forbidden (403): cannot list resource';
    expect(run(snap)).toEqual([]);
    const e = explainIn(snap, 'Deployment', 'jobs', 'reporter');
    expect(e.injector.at(-1)!.detail).toBe(
      'ConfigMap istio-system/istio-sidecar-injector key config not read: the chart defaults are assumed (policy enabled, no never/always selectors)',
    );
  });

  it('the injector ConfigMap absent (ConfigMaps read): istiod serves no injection; one finding on the ConfigMap, explain says not injected', () => {
    // pilot/pkg/bootstrap/sidecarinjector.go initSidecarInjector @86c9f01f: "Skipping sidecar injector, template not found".
    // Before, the chart defaults were assumed and explain said these pods would be injected.
    const del = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio-sidecar-injector, namespace: istio-system, annotations: {meshdoctor.test/delete: "true"}}\n`;
    const snap = cluster('istio', [F(ID, 'fires-istio-never-selector.yaml'), del]);
    const fs = run(snap);
    expect(ids(fs)).toEqual([`${ID} ConfigMap istio-system/istio-sidecar-injector`]);
    expect(fs[0]!.evidence).toMatchObject({ configMap: 'istio-system/istio-sidecar-injector', exists: false });
    expect(fs[0]!.fix[0]).toBe("# istiod started without it logs 'Skipping sidecar injector, template not found'");
    expect(fs[0]!.fix[1]).toMatch(/logs deploy\/istiod -c discovery \| grep -i 'sidecar injector'$/);
    expect(fs[0]!.fix.slice(2).every((l) => l.startsWith('#'))).toBe(true);
    const e = explainIn(snap, 'Deployment', 'jobs', 'web');
    expect(e.wouldInject).toBe(false);
    expect(e.injector.at(-1)!.detail).toMatch(
      /^ConfigMap istio-system\/istio-sidecar-injector not found: istiod started without it serves no injection/,
    );
  });
});

describe('snapshots keep what these rules read', () => {
  it('keeps the injector ConfigMap keys config (its policy and selectors only) and values, and nothing else', () => {
    const config =
      'policy: disabled\nneverInjectSelector:\n- matchLabels: {app: a}\ntemplates:\n  sidecar: |\n    {{ .Values.secret }}\n';
    const cm = () => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'istio-sidecar-injector-canary', namespace: 'istio-system' },
      data: { config, values: '{}', mesh: 'secret-ish', extra: 'x' },
    });
    const once = slim('configmaps', cm());
    expect(once.data).toEqual({
      // The template itself is not kept, only the annotation keys it mentions (none here).
      config: '{"policy":"disabled","neverInjectSelector":[{"matchLabels":{"app":"a"}}],"templateKeys":[]}',
      values: '{}',
    });
    // Idempotent: a snapshot read back is slimmed to the same.
    expect(slim('configmaps', structuredClone(once)).data).toEqual(once.data);
    // An unreadable config is dropped (the chart defaults are then assumed).
    expect(slim('configmaps', { ...cm(), data: { config: 'policy: [', values: '{}' } }).data).toEqual({ values: '{}' });
    // The checks see the same decision before and after.
    const snap = cluster('istio', [F(ID, 'fires-istio-never-selector.yaml')]);
    const slimmed = structuredClone(snap);
    slimmed.objects.configmaps = slimmed.objects.configmaps!.map((o) => slim('configmaps', o));
    expect(ids(findings(slimmed))).toEqual(ids(findings(snap)));
  });
});

describe('enableNamespacesByDefault (the auto. webhook)', () => {
  const overlay = `apiVersion: apps/v1
kind: Deployment
metadata: {name: late, namespace: shop, uid: dep-shop-late}
spec:
  selector: {matchLabels: {app: late}}
  template:
    metadata: {labels: {app: late}}
    spec: {containers: [{name: late, image: example/late:1}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: late-1
  namespace: shop
  uid: pod-shop-late
  creationTimestamp: "2026-11-20T00:00:00Z"
  labels: {app: late}
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: late, uid: dep-shop-late, controller: true}]
spec: {containers: [{name: late, image: example/late:1}]}
status: {phase: Running}
`;

  it('check and explain agree: an unlabelled namespace is injected, so an unmeshed pod there is sidecar-missing, not namespace-not-enabled', () => {
    const snap = cluster('istio-default-on', [overlay]);
    const e = explainIn(snap, 'Deployment', 'shop', 'late');
    expect(e.wouldInject).toBe(true);
    expect(e.webhooks.filter((h) => h.called).map((h) => h.webhook)).toEqual(['auto.sidecar-injector.istio.io']);
    expect(ids(findings(snap))).toEqual(['sidecar-missing Deployment shop/late']);
  });

  it('istio-injection=disabled and the pod label "false" opt out: explain says not injected, check is silent', () => {
    const snap = cluster('istio-default-on');
    expect(explainIn(snap, 'Deployment', 'legacy', 'old').wouldInject).toBe(false);
    expect(explainIn(snap, 'Deployment', 'shop', 'probe').wouldInject).toBe(false);
    expect(findings(snap)).toEqual([]);
  });
});

describe('revisions and tags', () => {
  it('a tagged install: istio-injection=enabled and istio.io/rev=default go to the default tag, the old default webhooks are inert', () => {
    const snap = cluster('istio-tags');
    const store = explainIn(snap, 'Deployment', 'store', 'frontend');
    expect(store.wouldInject).toBe(true);
    expect(store.webhooks.filter((h) => h.called).map((h) => `${h.configuration} ${h.webhook}`)).toEqual([
      'istio-revision-tag-default namespace.sidecar-injector.istio.io',
    ]);
    // Deactivated (istio.io/deactivated: never-match) webhooks are left out altogether.
    expect(store.webhooks.some((h) => h.configuration === 'istio-sidecar-injector')).toBe(false);
    const payments = explainIn(snap, 'Deployment', 'payments', 'ledger');
    expect(payments.webhooks.filter((h) => h.called).map((h) => h.configuration)).toEqual([
      'istio-revision-tag-default',
    ]);
    expect(payments.injector[1]!.detail).toContain('istio-system/istiod-1-27 runs docker.io/istio/pilot:1.27.1');
    expect(explainIn(snap, 'Deployment', 'batch', 'nightly').wouldInject).toBe(false);
  });

  it('a revision or tag nothing serves: the installed revisions and tags, and a fix per choice', () => {
    const fs = findings(cluster('istio', [F('webhook-excludes-namespace', 'fires-istio-tags.yaml')]), [
      'webhook-excludes-namespace',
    ]);
    expect(ids(fs).sort()).toEqual([
      'webhook-excludes-namespace Deployment tools/runner',
      'webhook-excludes-namespace Namespace orders',
    ]);
    const orders = fs.find((f) => f.resource.name === 'orders')!;
    expect(orders.evidence).toMatchObject({
      requestedRevision: 'stable',
      installedRevisions: ['default'],
      installedTags: { prod: 'default' },
    });
    expect(orders.fix).toEqual([
      '# stable is neither an installed revision nor a tag: choose one below. Pasted as it is, this block runs nothing',
      '# to use the installed revision default: kubectl label namespace orders istio.io/rev=default --overwrite',
      '# to use the installed revision default: kubectl rollout restart deployment/api -n orders',
      '# to use the installed tag prod of revision default: kubectl label namespace orders istio.io/rev=prod --overwrite',
      '# to use the installed tag prod of revision default: kubectl rollout restart deployment/api -n orders',
      '# to install revision stable with istioctl: istioctl install -y --set revision=stable -f YOUR-ISTIOOPERATOR.yaml',
      '# to install revision stable with Helm: helm install istiod-stable istio/istiod -n istio-system --set revision=stable',
      '# to restore tag stable for an installed revision: istioctl tag set stable --revision default',
    ]);
    const runner = fs.find((f) => f.resource.name === 'runner')!;
    expect(runner.messageId).toBe('webhook-excludes-namespace/pod-revision-unserved');
    expect(runner.params).toMatchObject({ revision: 'gone', revisionLabel: 'istio.io/rev' });
    expect(runner.message).toBe(
      'Deployment tools/runner asks Istio for revision gone with its pod label istio.io/rev, but no installed webhook serves that revision or tag, so its pods are not injected.',
    );
    expect(runner.fix[2]).toBe(
      `# to use the installed tag prod of revision default: kubectl patch deployment/runner -n tools --type=merge -p '{"spec":{"template":{"metadata":{"labels":{"istio.io/rev":"prod"}}}}}'`,
    );
  });

  it('a namespace whose workloads opt in by pod label is not namespace-not-enabled', () => {
    const file = F('namespace-not-enabled', 'ok-istio-pod-label-opt-in.yaml');
    expect(findings(cluster('istio', [file]), ['namespace-not-enabled'])).toEqual([]);
    expect(
      findings(cluster('istio', [file], { allNamespaces: false, namespace: 'tools' }), ['namespace-not-enabled']),
    ).toEqual([]);
  });
});

describe('Helm lines pin the installed istiod release (helm upgrade without --version installs the newest chart)', () => {
  // helm upgrade takes the latest chart version unless --version is given (helm.sh docs, `helm upgrade --version`);
  // istio/istiod charts are versioned like the release (manifests/charts/istio-control/istio-discovery/Chart.yaml @86c9f01f).
  it('pins --version when the release is known, and is only a comment when it is not', () => {
    // The healthy Istio cluster runs istiod from docker.io/istio/pilot:1.24.2: the profile reads the release from the Model.
    const m = makeModel(cluster('istio'), { mesh: 'auto', certExpiryWarningDays: 60, now: NOW });
    expect(render(istio.install.memoryFix('istio-system', 'istiod', '4Gi', m))).toEqual([
      '# durable, if installed with Helm, pinned to the installed 1.24.2',
      'helm upgrade istiod istio/istiod -n istio-system --version 1.24.2 --reuse-values --set pilot.resources.limits.memory=4Gi',
      '# durable, if installed with istioctl, from your own IstioOperator and values, else istioctl installs its defaults: istioctl install -f YOUR-ISTIOOPERATOR.yaml --set values.pilot.resources.limits.memory=4Gi',
    ]);
    const unknown = render(istio.install.memoryFix('istio-system', 'istiod', '4Gi', undefined));
    expect(unknown.every((l) => l.startsWith('# '))).toBe(true);
    expect(unknown[0]).toMatch(
      /^# durable, if installed with Helm, with the version istiod runs, which is unknown: .*--version INSTALLED-VERSION/,
    );
    expect(
      render(istio.install.reinstall('istio-system', 'istiod-canary', undefined)).every((l) => l.startsWith('#')),
    ).toBe(true);
    expect(render(istio.install.reinstall('istio-system', 'istiod', m))[2]).toBe(
      '# Helm: helm upgrade istiod istio/istiod -n istio-system --version 1.24.2 --reuse-values',
    );
  });

  it('OpenShift Service Mesh is installed by its operator: its fixes change the ServiceMeshControlPlane (the release table), never pin 2.5.1 as an istio/istiod chart', () => {
    // maistra/istio-operator@8143614c pkg/apis/maistra/conversion/proxy.go (spec.proxy.injection.autoInject renders
    // global.proxy.autoInject), runtime.go (spec.runtime.components.pilot.container.resources renders pilot.resources).
    const invalid = findings(cluster('istio-ossm-2.5', [F(ID, 'fires-istio-ossm-2-policy-invalid.yaml')]), [ID]);
    expect(invalid).toHaveLength(1);
    expect(invalid[0]!.fix).toEqual([
      '# OpenShift Service Mesh 2.5.1 is installed by the OpenShift Service Mesh operator, which renders global.proxy.autoInject from ServiceMeshControlPlane field spec.proxy.injection.autoInject: set it there, no Helm or istioctl line applies',
      `kubectl patch servicemeshcontrolplane basic -n istio-system --type=merge -p '{"spec":{"proxy":{"injection":{"autoInject":true}}}}'`,
    ]);
    const missing = findings(cluster('istio-ossm-2.5', [F(ID, 'fires-istio-ossm-2-config-missing.yaml')]), [ID]);
    expect(missing).toHaveLength(1);
    expect(missing[0]!.fix.some((l) => l.includes('helm') || l.includes('istioctl install'))).toBe(false);
    expect(missing[0]!.fix).toContain('kubectl -n istio-system describe servicemeshcontrolplane basic');
    const m = makeModel(cluster('istio-ossm-2.5'), { mesh: 'auto', certExpiryWarningDays: 60, now: NOW });
    expect(render(istio.install.memoryFix('istio-system', 'istiod-basic', '4Gi', m))).toEqual([
      '# durable: OpenShift Service Mesh 2.5.1 is installed by the OpenShift Service Mesh operator, which renders pilot.resources.limits.memory from ServiceMeshControlPlane field spec.runtime.components.pilot.container.resources.limits.memory: set it there, no Helm or istioctl line applies',
      `kubectl patch servicemeshcontrolplane basic -n istio-system --type=merge -p '{"spec":{"runtime":{"components":{"pilot":{"container":{"resources":{"limits":{"memory":"4Gi"}}}}}}}}'`,
    ]);
  });

  it('a digest-only or tagless istiod image leaves the version unknown: the policy fix is a comment', () => {
    const snap = cluster('istio', [F(ID, 'fires-istio-policy-invalid.yaml')]);
    for (const d of snap.objects.deployments ?? [])
      for (const c of (d.spec as any)?.template?.spec?.containers ?? [])
        if (String(c.image).includes('/pilot:')) c.image = 'docker.io/istio/pilot@sha256:0123abcd';
    const fs = findings(snap, [ID]);
    expect(fs.map((f) => f.fix.every((l) => l.startsWith('#')))).toEqual([true]);
  });
});

describe('selectors see the pod: the labels its controller adds count (job-name, statefulset.kubernetes.io/pod-name, ...)', () => {
  // kubernetes pkg/registry/batch/job/strategy.go generateSelector (36f36813); istio inject.go injectRequired (86c9f01f).
  it('neverInjectSelector job-name Exists keeps Job and CronJob pods out: injector-config-excludes, no sidecar-missing, no job-never-completes', () => {
    const snap = cluster('istio', [F(ID, 'fires-istio-never-selector-controller-labels.yaml')]);
    const fs = findings(snap, [ID, 'sidecar-missing', 'job-never-completes', 'namespace-not-enabled']);
    expect(ids(fs).sort()).toEqual([
      `${ID} CronJob batch/nightly`,
      `${ID} Job batch/migrate`,
      `${ID} StatefulSet batch/db`,
    ]);
    const e = explainIn(snap, 'Job', 'batch', 'migrate');
    expect(e.wouldInject).toBe(false);
    expect(e.injector.at(-1)!.detail).toBe(
      'the pod labels match neverInjectSelector {job-name} (job-name: added to the pods by their controller) in ConfigMap istio-system/istio-sidecar-injector key config',
    );
    expect(explainIn(snap, 'Deployment', 'batch', 'api').wouldInject).toBe(true);
  });

  it('gives a pod created now the controller labels, values from a pod where one exists', () => {
    const tpl = { metadata: { labels: { app: 'x' } } };
    expect(
      newPodLabels({
        kind: 'Job',
        name: 'j',
        obj: { metadata: { name: 'j', uid: 'u1' }, spec: {} } as any,
        template: tpl,
        pods: [],
      }),
    ).toEqual({
      app: 'x',
      'job-name': 'j',
      'batch.kubernetes.io/job-name': 'j',
      'controller-uid': 'u1',
      'batch.kubernetes.io/controller-uid': 'u1',
    });
    expect(
      newPodLabels({
        kind: 'Job',
        name: 'j',
        obj: { metadata: { name: 'j' }, spec: { manualSelector: true } } as any,
        template: tpl,
        pods: [],
      }),
    ).toEqual({
      app: 'x',
    });
    const pod = { metadata: { name: 'd-1', labels: { app: 'x', 'pod-template-hash': '6f7c' } } } as any;
    expect(
      newPodLabels({ kind: 'Deployment', name: 'd', template: { metadata: { labels: { app: 'x' } } }, pods: [pod] }),
    ).toEqual({
      app: 'x',
      'pod-template-hash': '6f7c',
    });
    expect(
      Object.keys(
        newPodLabels({ kind: 'DaemonSet', name: 'ds', template: { metadata: { labels: { app: 'x' } } }, pods: [] }),
      ).sort(),
    ).toEqual(['app', 'controller-revision-hash', 'pod-template-generation']);
    expect(
      Object.keys(
        newPodLabels({ kind: 'StatefulSet', name: 's', template: { metadata: { labels: { app: 'x' } } }, pods: [] }),
      ).sort(),
    ).toEqual([
      'app',
      'apps.kubernetes.io/pod-index',
      'controller-revision-hash',
      'statefulset.kubernetes.io/pod-name',
    ]);
  });
});

describe('a namespace opt-out no pod label overrides (istio-injection=disabled)', () => {
  // templates/mutatingwebhook.yaml @86c9f01f: every webhook needs istio-injection absent or "enabled".
  it('reports the workload asking as a warning, never advising to relabel the namespace (comment-only choices)', () => {
    const fs = findings(cluster('istio', [F('webhook-excludes-namespace', 'fires-istio-namespace-opt-out.yaml')]), [
      'webhook-excludes-namespace',
    ]);
    expect(ids(fs)).toEqual(['webhook-excludes-namespace Namespace legacy']);
    const f = fs[0]!;
    expect(f.severity).toBe('warning');
    expect(f.messageId).toBe('webhook-excludes-namespace/namespace-opts-out');
    expect(f.params).toMatchObject({ marker: 'label istio-injection=disabled', workloads: '1 workload', are: 'is' });
    expect(f.message).toBe(
      'Namespace legacy opts out of Istio with label istio-injection=disabled, which no pod label overrides, so 1 workload asking for injection there is not injected.',
    );
    expect(f.fix.every((l) => l.startsWith('#'))).toBe(true);
    expect(f.evidence.workloads).toEqual(['Deployment/web (label sidecar.istio.io/inject=true)']);
  });
});

describe('a loose "no" (no, off, False, 0: read as "do not inject" before 1.27, ignored from 1.27) is the owner\'s opt-out', () => {
  // inject.go @1.26.0 line 225 (loose), @86c9f01f lines 227-237 (exact); mutatingwebhook.yaml @86c9f01f: the
  // auto. webhook (enableNamespacesByDefault) selects sidecar.istio.io/inject DoesNotExist, so any value keeps pods from it.
  const all = [
    'injector-config-excludes',
    'injection-marker-invalid',
    'sidecar-missing',
    'namespace-not-enabled',
    'pod-opted-out',
    'webhook-excludes-namespace',
  ];

  it('no check advises "true" or a restart; injection-marker-invalid alone reports the value, with the fix "false"', () => {
    const fs = findings(cluster('istio', [F(ID, 'ok-istio-loose-opt-out.yaml')]), all).filter(
      (f) => f.resource.namespace === 'optout',
    );
    expect(ids(fs).sort()).toEqual([
      'injection-marker-invalid Deployment optout/legacy',
      'injection-marker-invalid Deployment optout/web',
    ]);
    for (const f of fs) expect(f.fix.join('\n')).toContain('"sidecar.istio.io/inject":"false"');
  });

  const defaultOn = (value: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: batch, namespace: shop, uid: dep-shop-batch}
spec:
  selector: {matchLabels: {app: batch}}
  template:
    metadata: {labels: {app: batch, sidecar.istio.io/inject: "${value}"}}
    spec: {containers: [{name: batch, image: example/batch:1}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: batch-1
  namespace: shop
  uid: pod-shop-batch
  creationTimestamp: "2026-11-20T00:00:00Z"
  labels: {app: batch, sidecar.istio.io/inject: "${value}"}
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: batch, uid: dep-shop-batch, controller: true}]
spec: {containers: [{name: batch, image: example/batch:1}]}
status: {phase: Running}
`;

  it('enableNamespacesByDefault: a loose "no" is not a workload waiting for a namespace marker (no relabel, no restart)', () => {
    const fs = findings(cluster('istio-default-on', [defaultOn('no')]), all).filter(
      (f) => f.resource.namespace === 'shop' || f.resource.name === 'shop',
    );
    expect(ids(fs)).toEqual(['injection-marker-invalid Deployment shop/batch']);
  });

  it('enableNamespacesByDefault: MD1001 does not say the namespace has no marker when the default webhook selects it', () => {
    const fs = findings(cluster('istio-default-on', [defaultOn('')]), ['namespace-not-enabled']);
    expect(fs.map((f) => f.message)).toEqual([
      'Namespace shop is injected by default by Istio webhook auto.sidecar-injector.istio.io, but the pod labels of 1 workload keep it from that webhook, so it runs without a proxy while others in it are meshed.',
    ]);
  });
});

describe('istiod pinned by digest: the version from the chart labels and values, else the uncertainty shown', () => {
  const digest = (snap: Snapshot, labels?: Record<string, string>) => {
    for (const d of snap.objects.deployments ?? []) {
      for (const c of (d.spec as any)?.template?.spec?.containers ?? [])
        if (String(c.image).includes('/pilot:')) c.image = 'docker.io/istio/pilot@sha256:' + 'a'.repeat(64);
      if (d.metadata?.name === 'istiod' && labels) d.metadata.labels = { ...(d.metadata.labels ?? {}), ...labels };
    }
    return snap;
  };
  const opts2 = { mesh: 'auto' as const, certExpiryWarningDays: 60, now: NOW };

  it('reads app.kubernetes.io/version or helm.sh/chart (chart labels from 1.24.0, istio/istio b722511e), else values global.tag', () => {
    // zzz_profile.yaml "istio.labels" (86c9f01f); istiod-injector-configmap.yaml values carry global (86c9f01f).
    let m = makeModel(digest(cluster('istio'), { 'app.kubernetes.io/version': '1.26.3' }), opts2);
    expect(istiodVersion(m, 'istio-system', 'istiod')).toMatchObject({ version: '1.26.3', rules: 'loose' });
    expect(istiodVersion(m, 'istio-system', 'istiod').text).toContain('label app.kubernetes.io/version says 1.26.3');
    m = makeModel(digest(cluster('istio'), { 'helm.sh/chart': 'istiod-1.28.0' }), opts2);
    expect(istiodVersion(m, 'istio-system', 'istiod').version).toBe('1.28.0');
    const cm = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio-sidecar-injector, namespace: istio-system}\ndata:\n  values: '{"global":{"tag":"1.27.2-distroless"}}'\n  config: '{"policy":"enabled"}'\n`;
    m = makeModel(digest(cluster('istio', [cm])), opts2);
    expect(istiodVersion(m, 'istio-system', 'istiod')).toMatchObject({ version: '1.27.2', rules: 'exact' });
    m = makeModel(digest(cluster('istio')), opts2);
    expect(istiodVersion(m, 'istio-system', 'istiod').version).toBeUndefined();
  });

  it('version unknown: a value only 1.27+ ignores gives no definite injector-config-excludes, and explain says it depends on the version', () => {
    const yes = `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: yes, namespace: optin, uid: dep-optin-yes}\nspec:\n  selector: {matchLabels: {app: yes}}\n  template:\n    metadata: {labels: {app: yes, sidecar.istio.io/inject: "yes"}}\n    spec: {containers: [{name: yes, image: example/yes:1}]}\n`;
    const known = cluster('istio', [F(ID, 'fires-istio-policy-disabled.yaml'), yes]);
    // 1.24.2 (loose): "yes" injects: no finding; the other workloads of the fixture are reported.
    expect(findings(known, [ID]).some((f) => f.resource.name === 'yes')).toBe(false);
    const snap = digest(cluster('istio', [F(ID, 'fires-istio-policy-disabled.yaml'), yes]));
    expect(findings(snap, [ID]).some((f) => f.resource.name === 'yes')).toBe(false);
    expect(findings(snap, [ID]).some((f) => f.resource.name === 'api')).toBe(true); // no value: both rule sets refuse it
    const e = explainIn(snap, 'Deployment', 'optin', 'yes');
    expect(e.injector.find((s) => s.rule === 'inject-label-or-annotation')!.detail).toBe(
      'pod template label sidecar.istio.io/inject=yes depends on the version: Istio 1.27 and later ignore it (the selectors and the policy decide, assumed here), before 1.27 it means "inject"',
    );
    expect(e.injector.at(-1)!.detail).toMatch(
      /\(if istiod is 1\.27 or later; before 1\.27 the pod's value injects it\)$/,
    );
  });
});

describe('native sidecars: ENABLE_NATIVE_SIDECARS is "auto" by default from Istio 1.27.0', () => {
  // pilot/pkg/features/pilot.go @86c9f01f line 346 (1.27.0 7359d8be; "false" in experimental.go @1.26.0);
  // pkg/kube/inject/webhook.go DetectNativeSidecar: native when the nodes' kubelets are 1.33 or later.
  const JNC = 'job-never-completes';
  it('1.27+ with the variable unset: a Job template without pods is not reported (nodes not read); pods running an ordinary istio-proxy still are', () => {
    const snap = cluster('istio', [F(JNC, 'ok-istio-native-auto.yaml'), F(JNC, 'fires-templates.yaml')]);
    const fs = findings(snap, [JNC]);
    expect(fs.some((f) => f.resource.name === 'export')).toBe(false);
    const reindex = fs.find((f) => f.resource.name === 'reindex')!;
    expect(reindex.evidence.nativeSidecar).toBe(
      "ENABLE_NATIVE_SIDECARS unset (auto from Istio 1.27; istiod 1.27.1), and its pods run istio-proxy as an ordinary container (their nodes' kubelets are older than 1.33)",
    );
    // Before 1.27 (the base's 1.24.2) the default is off: the template is reported.
    const old = cluster('istio', [F(JNC, 'ok-istio-native-auto.yaml')]);
    for (const d of old.objects.deployments ?? [])
      for (const c of (d.spec as any)?.template?.spec?.containers ?? [])
        if (String(c.image).includes('/pilot:')) c.image = 'docker.io/istio/pilot:1.26.3';
    expect(findings(old, [JNC]).some((f) => f.resource.name === 'export')).toBe(true);
  });
});

describe('invalid never/always selectors are skipped, as Istio does', () => {
  // inject.go @86c9f01f lines 243-262 ("Invalid selector for ..."); metav1.LabelSelectorAsSelector / labels.NewRequirement.
  it('validates selectors as apimachinery does', () => {
    expect(
      selectorError({
        matchLabels: { app: 'a' },
        matchExpressions: [{ key: 'example.com/tier', operator: 'In', values: ['x'] }],
      }),
    ).toBeUndefined();
    expect(selectorError({ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: [] }] })).toMatch(
      /values set can't be empty/,
    );
    expect(selectorError({ matchExpressions: [{ key: 'app', operator: 'Exists', values: ['x'] }] })).toMatch(
      /must be empty/,
    );
    expect(selectorError({ matchExpressions: [{ key: 'app', operator: 'Gt', values: ['1'] }] })).toMatch(
      /not a valid label selector operator/,
    );
    expect(selectorError({ matchLabels: { 'bad key!': 'a' } })).toMatch(/invalid name/);
    expect(selectorError({ matchLabels: { 'Bad_Prefix/app': 'a' } })).toMatch(/invalid prefix/);
    expect(selectorError({ matchLabels: { app: 'x'.repeat(64) } })).toMatch(/label value/);
    expect(selectorError({ matchLabels: { app: '' } })).toBeUndefined();
  });

  it('skips them with a note in explain; the pods are injected and nothing is reported', () => {
    const snap = cluster('istio', [F(ID, 'ok-istio-invalid-selectors.yaml')]);
    expect(findings(snap, [ID]).filter((f) => f.resource.namespace === 'invalid')).toEqual([]);
    const e = explainIn(snap, 'Deployment', 'invalid', 'legacy');
    expect(e.wouldInject).toBe(true);
    expect(e.injector.filter((s) => s.rule === 'invalid-selector').map((s) => s.detail)).toEqual([
      "neverInjectSelector {tier notin ()} in ConfigMap istio-system/istio-sidecar-injector key config is invalid (for 'in', 'notin' operators, values set can't be empty (key tier)): Istio skips it",
      "neverInjectSelector {app in (legacy,bad value!)} in ConfigMap istio-system/istio-sidecar-injector key config is invalid (label value \"bad value!\" is invalid (63 characters or less, alphanumeric, '-', '_' or '.' inside)): Istio skips it",
      'neverInjectSelector {app} in ConfigMap istio-system/istio-sidecar-injector key config is invalid (values set must be empty for exists and does not exist (key app)): Istio skips it',
    ]);
  });
});

describe('an empty istio.io/rev on a namespace', () => {
  it('is named as an empty revision label, not "serves its revision ,"', () => {
    const ns = `apiVersion: v1\nkind: Namespace\nmetadata: {name: store, labels: {kubernetes.io/metadata.name: store, istio.io/rev: ""}}\n`;
    const fs = findings(cluster('istio', [ns]), ['webhook-excludes-namespace']).filter(
      (f) => f.resource.name === 'store',
    );
    expect(fs.map((f) => [f.messageId, f.params?.revision])).toEqual([
      ['webhook-excludes-namespace/revision-unserved', '"" (an empty revision label)'],
    ]);
  });
});
