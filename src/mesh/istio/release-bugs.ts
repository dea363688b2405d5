/**
 * Known Istio release bugs (issue 31.9, gen10bugs), rows of the release table's `bugs`
 * (src/mesh/istio/releases.ts): the patch versions each affects, the release that fixed it, and what
 * the cluster shows. Read from the istio/istio.io release notes and istio/istio.
 */
import type { KnownBug } from '../release-table.js';

/**
 * A duration annotation value that Go prints in a form Envoy's protobuf Duration refuses (time.Duration.String: "1m0s"
 * from a minute on, "500ms" below a second): units of minutes, hours or below a second, or seconds below 1 or from 60.
 */
const GO_PRINTED_DURATION =
  '^\\s*(\\d*\\.?\\d+(h|m|ms|us|µs|ns))+\\d*\\.?\\d*s?\\s*$|^\\s*0*\\.\\d+s\\s*$|^\\s*0*([6-9]\\d|[1-9]\\d{2,})(\\.\\d*)?s\\s*$';

/** Bugs of 1.28 and later (the row from 1.27). */
export const ISTIO_1_28_BUGS: readonly KnownBug[] = [
  {
    // pkg/bootstrap/config.go from 1.28.0 (#57736) reads sidecar.istio.io/statsFlushInterval with
    // time.ParseDuration and tools/packaging/common/envoy_bootstrap.json writes it as Go prints a
    // duration ("stats_flush_interval": "{{ .stats_flush_interval }}"): "1m0s" for a minute or more,
    // "500ms" below a second, which Envoy's bootstrap does not parse, so Envoy exits at start and
    // istio-proxy ends in Error, again and again (unchanged at 1.30.3 @56df41f6). Fixed in 1.30.5
    // (istio/istio.io content/en/news/releases/1.30.x/announcing-1.30.5: "Fixed the
    // sidecar.istio.io/statsFlushInterval annotation producing an invalid Envoy bootstrap for values of
    // one minute or more, and for sub-second values, which prevented the proxy from starting"); no
    // 1.28.x or 1.29.x release note up to 1.28.10 and 1.29.8 names a fix. The value test below is the
    // annotation's text: units of minutes, hours or below a second, or seconds below 1 or from 60.
    id: 'istio/istio#57736',
    text: 'the annotation sidecar.istio.io/statsFlushInterval with a value of a minute or more, or below a second, makes an Envoy bootstrap Envoy refuses, so the injected proxy exits at start',
    affected: { from: '1.28.0', to: '1.30.4' },
    fixedIn: '1.30.5',
    symptom: {
      on: 'pod',
      container: 'istio-proxy',
      shows: 'terminated',
      reason: 'Error',
      when: {
        annotation: 'sidecar.istio.io/statsFlushInterval',
        matches: GO_PRINTED_DURATION,
      },
    },
    source:
      'istio/istio@817ada69 (telemetry: add bootstrap annotations for stats flush and eviction, #57736, in tag 1.28.0 @b8d1df54) pkg/bootstrap/config.go, tools/packaging/common/envoy_bootstrap.json; fixed in 1.30.5 (release note; its fix commit is not in the snapshot examined, which ends at 1.30.3)',
  },
  {
    // The sister annotation of the same change (#57736, 1.28.0): pkg/bootstrap/config.go getStatsOptions reads
    // sidecar.istio.io/statsEvictionInterval with time.ParseDuration and, when it is a multiple of the flush
    // interval, hands the time.Duration to envoy_bootstrap.json ("stats_eviction_interval": "{{ .stats_eviction_interval }}"),
    // printed as Go prints it: "10m0s" for 600s, which Envoy refuses ("duration must end with a single 's'"), so
    // Envoy exits at start and istio-proxy ends in Error, again and again (report istio/istio#58500). #58518 renders
    // a protobuf Duration (1.29.0; backported as #58570 to 1.28.2, release note 58518.yaml between tags 1.28.1 and
    // 1.28.2). A value that is not a multiple of the flush interval is only warned about and left out: the value
    // test is the flush row's (minutes, hours, below a second, or seconds from 60).
    id: 'istio/istio#58500',
    text: 'the annotation sidecar.istio.io/statsEvictionInterval with a value of a minute or more makes an Envoy bootstrap Envoy refuses, so the injected proxy exits at start',
    affected: { from: '1.28.0', to: '1.28.1' },
    fixedIn: '1.28.2',
    symptom: {
      on: 'pod',
      container: 'istio-proxy',
      shows: 'terminated',
      reason: 'Error',
      when: {
        annotation: 'sidecar.istio.io/statsEvictionInterval',
        matches: GO_PRINTED_DURATION,
      },
    },
    source:
      'istio/istio 1.28.1 pkg/bootstrap/config.go lines 339-346, tools/packaging/common/envoy_bootstrap.json line 80; @7f2eaadb (telemetry: fix stats eviction interval format, #58570, backport of #58518, in tag 1.28.2); @945ca924 (#58518, in tag 1.29.0)',
  },
];
