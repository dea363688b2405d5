/**
 * Real reports of release awareness over the whole range (issue 31 items 6 and 7): unknown keys judged by what the
 * installed release reads, and releases older than the tables, rebuilt as overlays on the healthy cluster of their
 * mesh and release (test/fixtures/reports/gen8rel/, the thread and what it confirmed in each file's header).
 * Named 0/3 before (src/ as of commit c73a098: rancher/rancher#28950 unnamed, a key the tables place in Istio 1.6, and
 * a false injector-rbac-missing on Rancher's mirrored injector image rancher/istio-sidecar_injector;
 * istio/istio#10512 and #9982 quoted by admission-rejects-proxy with the env names redacted, the 1.0.3 bug unnamed),
 * 3/3 after gen8rel (the installed injection template as the key table of the keys only it reads; known bugs of
 * releases older than the tables, env names kept).
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'istio-1.5-rancher-template-without-limit-annotations',
    report: 'rancher/rancher#28950',
    id: 'mesh-key-unknown',
    says: ['sidecar.istio.io/proxyCPULimit', /injection template .* does not read/],
  },
  {
    file: 'istio-1.5-release-1.0.3-alauda-labels',
    report: 'istio/istio#10512',
    id: 'admission-rejects-proxy',
    says: ['ISTIO_META_app.alauda.io/name', 'Istio 1.0.3', /label/],
  },
  {
    file: 'istio-1.5-release-1.0.3-statefulset-pod-name',
    report: 'istio/istio#9982',
    id: 'known-release-bug',
    says: ['StatefulSet demo/nginx', '1.0.3', 'Fixed in Istio 1.0.4'],
  },
];

reportCases('gen8rel', 'gen8rel: unseen real reports of release awareness, the confirmed cause is named', CASES);
