/**
 * Issue 14, second half: Istio ambient mode honoured by every check and `explain`
 * (dataplane-mode-conflict, sidecarless-not-enrolled), injector denials (webhook-denied) and Pod
 * Security admission rejecting the injected init container (pod-security-blocks-init).
 */
import { describe, expect, it } from 'vitest';
import type { K8sObject } from '../../src/util/types.js';
import type { Snapshot } from '../../src/k8s/snapshot.js';
import { cluster, findings, ids } from '../helpers/fixtures.js';

const F = (id: string, file: string) => `checks/${id}/${file}.yaml`;

/** A live `-n <ns>` snapshot: pods and events of that namespace only (the control-plane namespaces not read). */
function namespacedRun(snap: Snapshot, ns: string): Snapshot {
  snap.scope = { allNamespaces: false, namespace: ns };
  for (const k of ['pods', 'events', 'deployments', 'replicasets', 'daemonsets'] as const) {
    snap.objects[k] = snap.objects[k]!.filter((o: K8sObject) => o.metadata?.namespace === ns);
  }
  return snap;
}

describe('ambient mode in every check', () => {
  it('a healthy ambient install gives no finding, all namespaces and each -n', () => {
    expect(findings(cluster('istio-ambient'))).toEqual([]);
    for (const ns of ['shop', 'lab', 'istio-system', 'store'])
      expect(findings(cluster('istio-ambient', [], { allNamespaces: false, namespace: ns }))).toEqual([]);
  });

  it('never asks for a sidecar marker in an ambient namespace, even with -n and pods not yet enrolled', () => {
    const snap = cluster('istio-ambient', [F('sidecarless-not-enrolled', 'fires-ambient-not-enrolled')], {
      allNamespaces: false,
      namespace: 'shop',
    });
    // Only the ambient form of "not meshed"; no namespace-not-enabled, no missing sidecar.
    expect(ids(findings(snap))).toEqual(['sidecarless-not-enrolled Deployment shop/web']);
  });

  it('removing the ambient label makes the namespace a sidecar question again (the check can fire)', () => {
    const plain = `apiVersion: v1
kind: Namespace
metadata: {name: shop, uid: ns-shop, labels: {kubernetes.io/metadata.name: shop}}
`;
    const fs = findings(cluster('istio-ambient', [plain], { allNamespaces: false, namespace: 'shop' }), [
      'namespace-not-enabled',
    ]);
    expect(ids(fs)).toEqual(['namespace-not-enabled Namespace shop']);
  });

  it('a namespace asking for both: one cause (the conflict), no missing sidecar for pods enrolled in ambient mode, no opt-out to remove', () => {
    const optedOut = `apiVersion: apps/v1
kind: Deployment
metadata: {name: batch, namespace: shop, uid: dep-batch}
spec:
  replicas: 1
  selector: {matchLabels: {app: batch}}
  template:
    metadata: {labels: {app: batch, sidecar.istio.io/inject: "false"}}
    spec: {containers: [{name: batch, image: "example/batch:1"}]}
`;
    const fs = findings(cluster('istio-ambient', [F('dataplane-mode-conflict', 'fires-ambient-injection'), optedOut]));
    // shop enforces restricted: web's next pods get istio-init (the sidecar wins), which Pod Security refuses;
    // istio-proxy has no seccomp profile either (the CNI plugin would not change that): admission-rejects-proxy.
    expect(ids(fs)).toEqual([
      'dataplane-mode-conflict Namespace shop',
      'pod-security-blocks-init Deployment shop/web',
      'admission-rejects-proxy Deployment shop/web',
    ]);
  });

  it('waypoints are mesh infrastructure, not app workloads', () => {
    const fs = findings(cluster('istio-ambient', [F('sidecarless-not-enrolled', 'fires-ambient-not-enrolled')]));
    expect(fs.some((f) => f.resource.name === 'waypoint')).toBe(false);
  });
});

describe('dataplane-mode-conflict', () => {
  const run = (snap: Snapshot) => findings(snap, ['dataplane-mode-conflict']);

  it('warns (IST0123) and keeps ambient mode where the pods run it', () => {
    const [f, ...rest] = run(cluster('istio-ambient', [F('dataplane-mode-conflict', 'fires-ambient-injection')]));
    expect(rest).toEqual([]);
    expect(ids([f!])).toEqual(['dataplane-mode-conflict Namespace shop']);
    expect(f!.severity).toBe('warning');
    expect(f!.message).toBe(
      'Namespace shop asks Istio for both sidecars (label istio-injection=enabled) and ambient mode (label istio.io/dataplane-mode=ambient), so new pods get a sidecar and are left out of ambient mode.',
    );
    expect(f!.evidence).toMatchObject({
      rule: 'IST0123 NamespaceMultipleInjectionLabels (istioctl analyze)',
      workloadsEnrolled: ['Deployment/web'],
      workloadsWithSidecar: [],
    });
    expect(f!.fix).toEqual([
      '# keep one data plane: ambient mode, the one its pods run now',
      'kubectl label namespace shop istio-injection-',
      '# or keep sidecars instead:',
      '# kubectl label namespace shop istio.io/dataplane-mode-',
    ]);
  });

  it('keeps sidecars where the pods run them, and re-creates them for ambient mode only as the alternative', () => {
    const [f] = run(cluster('istio-ambient', [F('dataplane-mode-conflict', 'fires-ambient-rev')]));
    expect(ids([f!])).toEqual(['dataplane-mode-conflict Namespace payments']);
    expect(f!.fix).toEqual([
      '# keep one data plane: sidecars, the one new pods get now',
      'kubectl label namespace payments istio.io/dataplane-mode-',
      '# or keep ambient mode instead:',
      '# kubectl label namespace payments istio.io/rev-',
      '# kubectl rollout restart deployment/ledger -n payments',
    ]);
  });

  it('stays silent for istio-injection=disabled next to ambient, and for dataplane-mode=none', () => {
    expect(run(cluster('istio-ambient', [F('dataplane-mode-conflict', 'ok-ambient-near-misses')]))).toEqual([]);
  });
});

describe('sidecarless-not-enrolled', () => {
  const run = (snap: Snapshot) => findings(snap, ['sidecarless-not-enrolled']);

  it('reports pods the node agent did not enrol, with what it left on each', () => {
    const [f, ...rest] = run(cluster('istio-ambient', [F('sidecarless-not-enrolled', 'fires-ambient-not-enrolled')]));
    expect(rest).toEqual([]);
    expect(ids([f!])).toEqual(['sidecarless-not-enrolled Deployment shop/web']);
    expect(f!.message).toBe(
      '2 of 2 running pods of Deployment shop/web are not enrolled in Istio ambient mode (no annotation ambient.istio.io/redirection), so their traffic bypasses the mesh.',
    );
    expect(f!.evidence).toEqual({
      enrolledBy: 'namespace label istio.io/dataplane-mode=ambient',
      pods: [
        {
          name: 'web-5d8f7c9b4-aaaaa',
          node: 'node-a',
          enrolment: 'no annotation ambient.istio.io/redirection',
          nodeProxy: 'ready',
          nodeAgent: 'ready',
        },
        {
          name: 'web-5d8f7c9b4-bbbbb',
          node: 'node-b',
          enrolment: 'annotation ambient.istio.io/redirection=pending',
          nodeProxy: 'ready',
          nodeAgent: 'ready',
        },
      ],
    });
    expect(f!.fix).toEqual([
      '# the istio-cni node agent on node node-a: why it did not enrol the pods',
      'kubectl -n istio-system logs istio-cni-node-aaaaa --tail=200',
      '# the istio-cni node agent on node node-b: why it did not enrol the pods',
      'kubectl -n istio-system logs istio-cni-node-bbbbb --tail=200',
      '# once it runs: new pods are enrolled when created',
      'kubectl rollout restart deployment/web -n shop',
    ]);
  });

  it('reports pods on a node without a ready ztunnel, also when enrolled', () => {
    const [f, web] = run(cluster('istio-ambient', [F('sidecarless-not-enrolled', 'fires-ambient-no-ztunnel')]));
    // shop/web's pod on node-b is enrolled, but no ztunnel carries it either: one finding per workload.
    expect(ids([f!, web!])).toEqual([
      'sidecarless-not-enrolled Deployment lab/probe',
      'sidecarless-not-enrolled Deployment shop/web',
    ]);
    expect(f!.message).toBe(
      '1 of 1 running pod of Deployment lab/probe runs on node node-b with no ready ztunnel pod, so Istio ambient mode does not carry its traffic.',
    );
    expect(f!.evidence).toMatchObject({ enrolledBy: 'pod template label istio.io/dataplane-mode=ambient' });
    expect(f!.fix.slice(0, 2)).toEqual([
      '# the ztunnel pod of DaemonSet ztunnel must be Ready on node node-b',
      'kubectl -n istio-system get pods -o wide --field-selector spec.nodeName=node-b',
    ]);
    expect(web!.evidence.pods).toEqual([
      {
        name: 'web-5d8f7c9b4-bbbbb',
        node: 'node-b',
        enrolment: 'annotation ambient.istio.io/redirection=enabled',
        nodeProxy: 'no ready pod on the node',
        nodeAgent: 'ready',
      },
    ]);
  });

  it('says "not examined" instead of guessing when the ztunnel pods were not read (-n shop)', () => {
    const snap = namespacedRun(
      cluster('istio-ambient', [F('sidecarless-not-enrolled', 'fires-ambient-not-enrolled')]),
      'shop',
    );
    const [f] = run(snap);
    expect(f!.evidence.pods).toEqual([
      {
        name: 'web-5d8f7c9b4-aaaaa',
        node: 'node-a',
        enrolment: 'no annotation ambient.istio.io/redirection',
        nodeProxy: 'not examined',
        nodeAgent: 'not examined',
      },
      {
        name: 'web-5d8f7c9b4-bbbbb',
        node: 'node-b',
        enrolment: 'annotation ambient.istio.io/redirection=pending',
        nodeProxy: 'not examined',
        nodeAgent: 'not examined',
      },
    ]);
    expect(f!.evidence.nodeProxyNotExamined).toMatch(/^no ztunnel pod among the pods read/);
    // A missing ztunnel is never claimed from pods not read: enrolled pods stay silent.
    expect(
      run(namespacedRun(cluster('istio-ambient', [F('sidecarless-not-enrolled', 'fires-ambient-no-ztunnel')]), 'lab')),
    ).toEqual([]);
  });

  it('stays silent for fresh, opted-out, hostNetwork, Pending and sidecar pods', () => {
    expect(run(cluster('istio-ambient', [F('sidecarless-not-enrolled', 'ok-ambient-near-misses')]))).toEqual([]);
  });
});

describe('webhook-denied', () => {
  const run = (snap: Snapshot) => findings(snap, ['webhook-denied']);

  it("quotes the injector's reason on the workload, linked to the webhook", () => {
    const [f, ...rest] = run(cluster('istio', [F('webhook-denied', 'fires-istio-annotation')]));
    expect(rest).toEqual([]);
    expect(ids([f!])).toEqual(['webhook-denied Deployment store/api']);
    expect(f!.message).toBe(
      "Deployment store/api cannot create pods: Istio's injection webhook namespace.sidecar-injector.istio.io denied them: failed to run injection template: 1 error occurred: * invalid value 'abc' for annotation 'traffic.sidecar.istio.io/excludeOutboundPorts': strconv.ParseUint: parsing \"abc\": invalid syntax.",
    );
    expect(f!.evidence).toMatchObject({
      webhook: 'namespace.sidecar-injector.istio.io',
      configuration: 'istio-sidecar-injector',
      annotation: 'traffic.sidecar.istio.io/excludeOutboundPorts',
      count: 9,
      objects: ['ReplicaSet/api-6b5d4c7f9'],
    });
    expect(f!.affectedPods).toBe(2);
    // istiod's annotation validation is predicted (IST0125): the cause is mesh-key-value-invalid's, whose fix comes first.
    expect(f!.fix).toEqual([
      '# the full error of the injector',
      'kubectl -n istio-system logs deploy/istiod -c discovery --tail=200 | grep -i store',
    ]);
    const both = findings(cluster('istio', [F('webhook-denied', 'fires-istio-annotation')]), [
      'webhook-denied',
      'mesh-key-value-invalid',
    ]);
    const cause = both.find((x) => x.id === 'mesh-key-value-invalid')!;
    expect(cause.message).toContain(
      "traffic.sidecar.istio.io/excludeOutboundPorts=abc, which Istio 1.24 reads as comma-separated port numbers: 'abc' is not a port",
    );
    expect(both.find((x) => x.id === 'webhook-denied')!.causedBy).toBe(cause.causeKey);
  });

  it('handles a denial without explanation (Linkerd, a Job)', () => {
    const [f] = run(cluster('linkerd', [F('webhook-denied', 'fires-linkerd-without-explanation')]));
    expect(ids([f!])).toEqual(['webhook-denied Job shop/report']);
    expect(f!.message).toBe(
      "Job shop/report cannot create pods: Linkerd's injection webhook linkerd-proxy-injector.linkerd.io denied them without explanation.",
    );
  });

  it('leaves failed calls to webhook-call-failed (never both), other webhooks alone, and owners that recovered', () => {
    const snap = cluster('istio', [F('webhook-denied', 'ok-istio-near-misses')]);
    expect(run(snap)).toEqual([]);
    expect(ids(findings(snap, ['webhook-call-failed', 'webhook-denied']))).toEqual([
      'webhook-call-failed Deployment store/frontend',
    ]);
    const denied = cluster('istio', [F('webhook-denied', 'fires-istio-annotation')]);
    expect(ids(findings(denied, ['webhook-call-failed', 'webhook-denied']))).toEqual([
      'webhook-denied Deployment store/api',
    ]);
  });
});

describe('pod-security-blocks-init', () => {
  const run = (snap: Snapshot) => findings(snap, ['pod-security-blocks-init']);

  it('predicts the rejection before any pod fails, from the namespace level and the injector values', () => {
    const [f, ...rest] = run(cluster('istio', [F('pod-security-blocks-init', 'fires-istio-predicted')]));
    expect(rest).toEqual([]);
    expect(ids([f!])).toEqual(['pod-security-blocks-init Deployment store/frontend']);
    expect(f!.message).toBe(
      'Namespace store enforces Pod Security "baseline", which rejects Istio\'s init container istio-init (it adds NET_ADMIN, NET_RAW) without Istio\'s CNI plugin, so the next injected pods of Deployment store/frontend will be refused.',
    );
    expect(f!.evidence).toMatchObject({
      enforce: 'baseline',
      initContainer: 'istio-init',
      capabilities: ['NET_ADMIN', 'NET_RAW'],
      cniPlugin: { enabled: false, from: 'istio-sidecar-injector values pilot.cni.enabled' },
      predicted: true,
    });
    expect(f!.fix).toEqual([
      '# install the Istio CNI plugin and turn it on for the injector: run the lines for your install method',
      '# istioctl, with the profile and values you installed with: istioctl install -y --set components.cni.enabled=true -f YOUR-ISTIOOPERATOR.yaml',
      '# Helm, where ISTIOD-VERSION is the release istiod runs: helm install istio-cni istio/cni -n istio-system --version ISTIOD-VERSION',
      '# Helm, where ISTIOD-VERSION is the release istiod runs: helm upgrade istiod istio/istiod -n istio-system --version ISTIOD-VERSION --reuse-values --set pilot.cni.enabled=true',
      '# or let namespace store admit istio-init, which lowers Pod Security for every pod in it: kubectl label namespace store pod-security.kubernetes.io/enforce=privileged --overwrite',
    ]);
  });

  it('confirms it from FailedCreate "violates PodSecurity" events, and says what restricted demands besides', () => {
    const fs = run(cluster('linkerd', [F('pod-security-blocks-init', 'fires-linkerd-confirmed')]));
    // web is confirmed by its events; the namespace's other injected workloads are predicted.
    expect(ids(fs)).toEqual([
      'pod-security-blocks-init Deployment shop/web',
      'pod-security-blocks-init CronJob shop/report',
      'pod-security-blocks-init StatefulSet shop/db',
    ]);
    const f = fs[0];
    expect(fs[1]!.evidence.predicted).toBe(true);
    expect(f!.message).toBe(
      'Namespace shop enforces Pod Security "restricted", which rejects Linkerd\'s init container linkerd-init (it adds NET_ADMIN, NET_RAW), so Deployment shop/web cannot create its injected pods.',
    );
    expect(f!.evidence).toMatchObject({
      enforce: 'restricted',
      cniPlugin: { enabled: false },
      events: { count: 7, objects: ['ReplicaSet/web-5b7c9d8f4'] },
    });
    expect(String(f!.evidence.note)).toMatch(/^restricted also requires runAsNonRoot/);
    expect(f!.fix.at(-1)).toBe('# the controller retries by itself once one of them is done');
  });

  it("without the mesh's configuration, its injected pods tell whether the CNI plugin is on", () => {
    const snap = cluster('istio', [F('pod-security-blocks-init', 'fires-istio-predicted')]);
    delete snap.objects.configmaps;
    snap.unavailable.configmaps = 'forbidden';
    const [f] = run(snap);
    expect(f!.evidence.cniPlugin).toEqual({
      enabled: false,
      from: 'pod store/frontend-6c8d9f7b5-k8s9d has init container istio-init',
    });
  });

  it('confirms from the event alone when the Namespace could not be read', () => {
    const snap = cluster('linkerd', [F('pod-security-blocks-init', 'fires-linkerd-confirmed')]);
    delete snap.objects.namespaces;
    snap.unavailable.namespaces = 'forbidden';
    expect(ids(run(snap))).toEqual(['pod-security-blocks-init Deployment shop/web']);
  });

  it('stays silent with the CNI plugin on, in warn mode, under privileged, and for ambient pods under restricted', () => {
    expect(run(cluster('istio', [F('pod-security-blocks-init', 'ok-istio-cni')]))).toEqual([]);
    expect(run(cluster('linkerd', [F('pod-security-blocks-init', 'ok-linkerd-cni')]))).toEqual([]);
    expect(run(cluster('istio-ambient'))).toEqual([]);
  });
});
