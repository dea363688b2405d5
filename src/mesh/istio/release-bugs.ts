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

/** Bugs of 1.27 and later (the row from 1.27). */
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
  ...[
    {
      affected: { from: '1.27.0', to: '1.27.3' },
      fixedIn: '1.27.4',
      tag: '@aa0f093d (#58234, backport of #58175, in tag 1.27.4)',
    },
    {
      affected: { from: '1.28.0', to: '1.28.0' },
      fixedIn: '1.28.1',
      tag: '@5a6587a6 (#58211, backport of #58175, in tag 1.28.1)',
    },
  ].map(({ affected, fixedIn, tag }): KnownBug => ({
    // istio-init with native nftables (global.nativeNftables, 1.27.0 injection-template.yaml line 144:
    // --native-nftables), TPROXY interception (-m TPROXY) and an empty traffic.sidecar.istio.io/includeInboundPorts
    // (-b ""): tools/istio-nftables/pkg/capture/run.go inserts a rule at an index equal to the chain's rule count,
    // which nftables refuses, so istio-init fails and the pod never starts (istio/istio#58135). #58175 turns such
    // an insert into an append (1.29.0; backported to 1.27.4 and 1.28.1). The empty value is seen on the pod only
    // where the pod's own annotation says it (a mesh-wide empty global.proxy.includeInboundPorts is not seen).
    id: 'istio/istio#58135',
    text: 'with native nftables, TPROXY interception and an empty traffic.sidecar.istio.io/includeInboundPorts, the injected istio-init cannot program its nftables rules and fails, so the pod never starts',
    affected,
    fixedIn,
    symptom: {
      on: 'pod',
      container: 'istio-init',
      shows: 'terminated',
      reason: 'Error',
      when: [
        { container: 'istio-init', holds: '--native-nftables' },
        { container: 'istio-init', holds: 'TPROXY' },
        { annotation: 'traffic.sidecar.istio.io/includeInboundPorts', matches: '^\\s*$' },
      ],
    },
    source: `istio/istio@7359d8be (1.27.0) manifests/charts/istio-control/istio-discovery/files/injection-template.yaml lines 100-107, 144; tools/istio-nftables/pkg/capture/run.go line 853 (insert at index when the chain is not empty); ${tag}`,
  })),
];

/**
 * The injection template renders the proxy's resources from global.proxy.resources with toYaml (the template's
 * "resources" define, from 1.15.0 @ manifests/charts/istio-control/istio-discovery/files/injection-template.yaml line
 * 22): a limit set to null there (to remove the chart's default CPU limit) is rendered as null, which the injected
 * container reads as a limit of 0 below its request, so the API server refuses every injected pod (Kubernetes
 * pkg/apis/core/validation ValidateResourceRequirements: "must be less than or equal to cpu limit of 0"; istio/istio#58805,
 * reported on 1.28.2). #58824 renders toYaml (omitNil ...) (1.29.1; backported to 1.28.6 as #59573). Kubernetes
 * releases that do not print the limit ("must be less than or equal to cpu limit") are not judged. Known false
 * positive: a workload whose own container sets a limit of 0 below its request is refused with the same words (the
 * finding quotes the message).
 */
const NULL_LIMIT: Omit<KnownBug, 'affected' | 'fixedIn' | 'source'> = {
  id: 'istio/istio#58805',
  text: 'a proxy resource limit set to null in the mesh values (to remove a default limit) is injected as a limit of 0 below the request, so the API server refuses the injected pods',
  symptom: {
    on: 'workload',
    shows: 'create-refused',
    message: 'must be less than or equal to',
    about: 'matches',
    pattern: 'must be less than or equal to (cpu|memory|ephemeral-storage) limit of 0(?![.\\d])',
  },
};

/** Bugs of 1.11 and later (the row from 1.11). */
export const ISTIO_1_11_BUGS: readonly KnownBug[] = [
  {
    // ISTIO-SECURITY-2024-004 (istio/istio.io content/en/news/security/istio-security-2024-004: releases "1.22.0",
    // "1.21.0 to 1.21.2", "1.20.0 to 1.20.6"): Envoy CVEs that end the proxy process, among them CVE-2024-34363 in the
    // access log JSON formatter of the Envoy 1.22.0 ships ("If you are using JSON access log formatting in Istio 1.22,
    // you are impacted"). The report (istio/istio#53028, 1.22.0 on GKE): istio-proxy of running pods restarts after
    // "Envoy exited with error: signal: aborted" (pilot-agent then exits 255); the maintainer points at the bulletin
    // and 1.22.1 (announcing-1.22.1: "implements the security updates described in ... ISTIO-SECURITY-2024-004").
    // The cluster shows a proxy that had served for a while and ended in Error: a crash, not a start failure. Only
    // the 1.22.0 row: the crashes of 1.20 and 1.21 are in the QUIC stack (HTTP/3), which sidecars do not serve.
    id: 'istio/istio#53028',
    text: 'its Envoy aborts on the inputs of ISTIO-SECURITY-2024-004 (CVE-2024-34363 in the JSON access log formatter, the QUIC stack), so the running proxy crashes and restarts',
    affected: { from: '1.22.0', to: '1.22.0' },
    fixedIn: '1.22.1',
    symptom: { on: 'pod', container: 'istio-proxy', shows: 'terminated', reason: 'Error', afterRunning: 300 },
    source:
      'istio/istio.io@29b03069 content/en/news/security/istio-security-2024-004/index.md (releases: 1.22.0), content/en/news/releases/1.22.x/announcing-1.22.1/index.md (tag 1.22.1 implements ISTIO-SECURITY-2024-004)',
  },
  {
    ...NULL_LIMIT,
    affected: { from: '1.15.0', to: '1.28.5' },
    fixedIn: '1.28.6',
    source:
      'istio/istio 1.15.0 to 1.28.5 manifests/charts/istio-control/istio-discovery/files/injection-template.yaml (define "resources": toYaml .Values.global.proxy.resources); @75e8076a (fix: resources improperly being set when trying to remove resource values, #59573, backport of #58824, in tag 1.28.6)',
  },
  {
    ...NULL_LIMIT,
    affected: { from: '1.29.0', to: '1.29.0' },
    fixedIn: '1.29.1',
    source:
      'istio/istio 1.29.0 injection-template.yaml (toYaml .Values.global.proxy.resources); @a5485421 (#59136, backport of #58824, in tag 1.29.1)',
  },
];

/**
 * From 1.3.0 (istio/istio@2e789b91, #16483) the injection template gives the proxy ISTIO_META_POD_PORTS, the pod's
 * container ports as a JSON list, writing a comma before every port but the first container's first:
 * `{{if or (ne $index1 0) (ne $index2 0)}},{{end}}` (install/kubernetes/helm/istio/files/injection-template.yaml). A
 * pod whose first container declares no ports while a later one does gets "[ ,{...} ]", which pilot-agent cannot
 * read ("Failed to generate bootstrap config: invalid character ',' looking for beginning of value"): the proxy exits
 * at start, again and again (istio/istio#18594). #18976 writes the comma only after a written port (1.3.7 as #19367,
 * 1.4.3 as #19366; istio.io 1.4.3 release note: "Fixed an issue with injection when pod has multiple containers
 * without exposed ports").
 */
const POD_PORTS: Omit<KnownBug, 'affected' | 'fixedIn' | 'source'> = {
  id: 'istio/istio#18594',
  text: "when the pod's first container declares no ports and a later one does, the injected proxy gets a port list that is not valid JSON and exits at start",
  symptom: {
    on: 'pod',
    container: 'istio-proxy',
    shows: 'terminated',
    reason: 'Error',
    when: 'first-container-without-ports',
  },
};

/** Bugs of releases before the table's first row (1.5): its `olderBugs`. */
export const ISTIO_OLDER_BUGS: readonly KnownBug[] = [
  {
    ...POD_PORTS,
    affected: { from: '1.3.0', to: '1.3.6' },
    fixedIn: '1.3.7',
    source:
      'istio/istio 1.3.0 to 1.3.6 install/kubernetes/helm/istio/files/injection-template.yaml (ISTIO_META_POD_PORTS, from @2e789b91 #16483); @f39630a5 (Fix POD_PORTS when multiple containers, #19367, backport of #18976, in tag 1.3.7)',
  },
  {
    ...POD_PORTS,
    affected: { from: '1.4.0', to: '1.4.2' },
    fixedIn: '1.4.3',
    source:
      'istio/istio 1.4.2 install/kubernetes/helm/istio/files/injection-template.yaml line 164-171; @0cfb3fe4 (Fix POD_PORTS when multiple containers, #19366, backport of #18976 @d4f98464, in tag 1.4.3); istio.io news/releases/1.4.x/announcing-1.4.3',
  },
];
