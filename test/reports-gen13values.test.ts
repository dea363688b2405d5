/**
 * Real user reports (issue 31, items 6 and 7, gen13values: the mesh's own configuration stored in the cluster names a
 * value the installed release cannot use), each rebuilt as an overlay on the healthy cluster of its mesh and release
 * (test/fixtures/reports/gen13values/, the thread in each file's header). Each must name the stored value, what the
 * release reads instead, and the symptom it caused. The release tables' `stored` rules (src/mesh/<mesh>/releases.ts)
 * and src/facts/stored-values.ts; the same mechanism names istio/istio#19131 and #51071 (test/reports-blind11.test.ts)
 * and kumahq/kuma-website#885 (test/reports-blind9.test.ts).
 * Named 0/2 before (8f3b0f7): the Linkerd one as "fails on its own configuration ... ConfigMap linkerd/linkerd-config
 * key values" without the value, the Kuma one as a registry refusing the node without credentials. 2/2 after.
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'linkerd-stable-2.10-values-crtexpiry-empty-injection-denied',
    report: 'linkerd/linkerd2#6005',
    id: 'webhook-denied',
    says: ['identity.issuer.crtExpiry', '""', /a time \(RFC 3339/, 'Linkerd 2.10'],
  },
  {
    file: 'kuma-1.x-bintray-registry-retired-kuma-sidecar-image-pull',
    report: 'kumahq/kuma#1884',
    id: 'proxy-cannot-start',
    says: ['kuma-init', 'bintray.io', 'global.image.registry', 'docker.io/kumahq'],
    never: [/without credentials/],
  },
];

reportCases('gen13values', 'real reports: stored mesh configuration the installed release cannot use', CASES);
