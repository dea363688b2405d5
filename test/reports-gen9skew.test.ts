/**
 * Real reports of version compatibility (issue 31, round 9, gen9skew): a proxy on a release its control plane or the
 * companion beside it does not support, picked by an image override (a pod annotation, a Helm value) or left behind
 * by an upgrade, rebuilt as overlays on the healthy cluster of their mesh and release
 * (test/fixtures/reports/gen9skew/, the thread and what it confirmed in each file's header).
 * Named 0/1 before (src/ as of commit 932246f: proxy-cannot-start quoted the exit code, the cause unknown), 1/1 after
 * (the profile's versions.pins: proxy-cannot-start names the pin annotation and the injector's release; proxy-outdated
 * says a pin holds the proxy back or ahead and removes it).
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'istio-1.5-release-1.1-proxyimage-pinned-1.0-statusport',
    report: 'istio/istio#11295',
    // The pod template pins a 1.0 proxy (sidecar.istio.io/proxyImage) under the 1.1 injector, whose command line the
    // 1.0 agent does not understand. A restart keeps the pin: a fix that only restarts names a wrong cause.
    id: 'proxy-cannot-start',
    says: ['sidecar.istio.io/proxyImage', 'release-1.0-20180703-03-01', '1.1.0'],
  },
];

reportCases('gen9skew', 'gen9skew: unseen real reports of version compatibility, the confirmed cause is named', CASES);
