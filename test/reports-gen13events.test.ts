/**
 * Real reports (issue 31, round 13, items 11 and 2): the API server refusing an injected pod over a label the mesh's
 * injector writes from the name of the pod's owner, read by the refusal's structure (src/k8s/admission.ts
 * invalidItems) and attributed through the profiles' runtime.ownerLabels, with the event read on an owner of any kind.
 * Each is an overlay on the healthy cluster of its mesh (test/fixtures/reports/gen13events/, the thread in each file's
 * header). istio/istio#48562 (the event on a custom resource) is blind11's, named since this change; istio/istio#25157
 * (a bare Pod refused at once, no event) is a `check -f` case of test/checks/admission-rejects-proxy.test.ts.
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'istio-canonical-name-cut-at-63-ends-with-dot-label-invalid',
    report: 'istio/istio#60756',
    // The Deployment's name cut to 63 characters ends in a dot: the canonical-name label value is invalid.
    id: 'admission-rejects-proxy',
    says: ['service.istio.io/canonical-name', /cut to 63/, /settlement-reconciliation-worker/],
  },
  {
    file: 'linkerd-konk-service-proxy-deployment-label-long-deployment-name',
    report: 'infobloxopen/konk#616',
    // Linkerd labels each pod linkerd.io/proxy-deployment with the Deployment's whole name, 64 characters.
    id: 'admission-rejects-proxy',
    says: ['linkerd.io/proxy-deployment', /63 bytes/, /its Deployment's name/],
  },
];

reportCases('gen13events', 'real reports: pod labels an injector writes from the owner name, refused', CASES);
