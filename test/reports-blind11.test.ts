/**
 * A blind measurement (round 12): real user reports meshdoctor has never seen, collected from the meshes' trackers and
 * from projects that run them, in the order the searches showed them and picked by what each thread confirms, not by
 * what meshdoctor handles (every thread looked at, and why it was used or skipped: research/blind11-threads.md). Each
 * is rebuilt as an overlay on the healthy cluster of its mesh and nearest release (test/fixtures/reports/blind11/, the
 * thread in each file's header). No change to src/ came with them: `open` lists the reports meshdoctor does not name,
 * so this file passes today and fails when a later change starts naming one of them (then take it off `open`).
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  // --- Istio ---------------------------------------------------------------------------------------------------
  {
    file: 'istio-1.5-injector-cabundle-out-of-sync-x509-unknown-authority',
    report: 'istio/istio#5828',
    // The webhook's caBundle no longer holds the CA of the injector's serving certificate (re-applied install);
    // restarting the injector makes it patch the caBundle again.
    id: 'webhook-call-failed',
    says: ['sidecar-injector.istio.io', /caBundle|CA bundle/, /restart|rollout/],
  },
  {
    file: 'istio-1.5-sidecar-cpu-limit-2000m-exceeds-namespace-quota',
    report: 'istio/istio#14835',
    // istio-proxy's 2000m CPU limit makes each pod ask limits.cpu 3 of the namespace quota's 4.
    id: 'quota-blocks-proxy',
    says: ['istio-proxy', /limits\.cpu|CPU limit/],
  },
];

reportCases('blind11', 'blind measurement 11: unseen real reports, the confirmed cause is named', CASES, []);
