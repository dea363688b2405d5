/**
 * Real user reports (issue 31, round 7, items 2, 8, 11, 12: every admission layer, who wins, events read whole):
 * a later mutating webhook that rewrites or appends to the pod after the mesh's injector (Vault's agent injector,
 * the Cloud Storage FUSE driver, an operator's own webhook), OpenShift's SecurityContextConstraints naming the
 * injected init containers. Each rebuilt as an overlay on the healthy cluster of its mesh and release
 * (test/fixtures/reports/gen7admit/, the thread in each file's header); each must name the confirmed cause.
 * Named 2/8 before this round's mechanisms (95e3c34: the SCC and the operator's webhook were named already), 8/8
 * after; istio/istio#3774 (added later, 8/9 before optout-not-read, 9/9 after: an opt-out on a template that carries
 * the proxy itself). The mechanisms: init-rewritten (a mesh init container made a sidecar by a reinvoked webhook; an added init container that
 * never exits ahead of the mesh's), init-before-proxy naming the webhook that appended the init container.
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'istio-1.5-openshift-scc-anyuid-istio-init',
    report: 'IBM/resilient-java-microservices-with-istio#35',
    id: 'admission-rejects-proxy',
    says: ['istio-init', /SecurityContextConstraints/, /privileged/],
  },
  {
    file: 'istio-k8ssandra-native-sidecar-webhook',
    report: 'k8ssandra/k8ssandra-operator#1271',
    id: 'admission-rejects-proxy',
    says: ['mpod.kb.io', 'restartPolicy'],
  },
  {
    file: 'istio-gcsfuse-restartpolicy-on-validation',
    report: 'GoogleCloudPlatform/gcs-fuse-csi-driver#296',
    id: 'init-rewritten',
    says: [
      'istio-validation',
      'restartPolicy: Always',
      'gke-gcsfuse-sidecar',
      'gcsfuse-sidecar-injector.csi.storage.gke.io',
    ],
    wrong: ['proxy-cannot-start'],
  },
  {
    file: 'istio-native-gcsfuse-knative-drops-restartpolicy',
    report: 'GoogleCloudPlatform/gcs-fuse-csi-driver#322',
    id: 'init-rewritten',
    says: [
      'gke-gcsfuse-sidecar',
      'istio-validation',
      'istio-inject.webhook.crfa.internal.knative.dev',
      'restartPolicy',
    ],
  },
  {
    file: 'linkerd-stable-2.10-vault-agent-init-after-linkerd-init',
    report: 'linkerd/linkerd2#4758',
    id: 'init-before-proxy',
    says: ['vault-agent-init', 'linkerd-init', 'vault-agent-injector-cfg'],
  },
  {
    file: 'istio-1.5-vault-agent-init-after-istio-init',
    report: 'hashicorp/vault-k8s#41',
    id: 'init-before-proxy',
    says: ['vault-agent-init', 'istio-init', 'vault-agent-injector-cfg'],
  },
  {
    file: 'istio-1.5-vault-helm-agent-init-first',
    report: 'hashicorp/vault-helm#288',
    id: 'init-before-proxy',
    says: ['vault-agent-init', 'istio-init', 'vault-agent-injector-cfg'],
  },
  {
    file: 'istio-1.5-vault-helm-pre-populate',
    report: 'hashicorp/vault-helm#160',
    id: 'init-before-proxy',
    says: ['vault-agent-init', 'istio-init', 'vault-agent-injector-cfg'],
  },
  {
    file: 'istio-1.5-optout-on-manually-injected-template',
    report: 'istio/istio#3774',
    id: 'optout-not-read',
    says: ['sidecar.istio.io/inject', 'istio-proxy', /pod template itself carries/, /by hand/],
  },
];

reportCases('gen7admit', 'real reports: the confirmed cause is named', CASES);
