/**
 * Dead code stays out: every export of src/ is imported somewhere (src, test, bench, scripts), or
 * is an entry point. A name used only in its own file needs no export; a name used nowhere, no
 * code. The list below is exact, so removing one of its exports means removing it here too.
 */
import { describe, expect, it } from 'vitest';
import { unusedExports } from './helpers/unused-exports.js';

/** Entry points: exported for what runs the built CLI, or for its callers' types. */
const ENTRY_POINTS: Record<string, string> = {
  'src/cli.ts: run': 'bin/meshdoctor.js and bin/kubectl-meshdoctor.js run dist/cli.js',
  'src/cli.ts: errorLine': 'the one-line error of the CLI, beside main and run',
  'src/cli.ts: IO': "the type of main()'s io",
};

/**
 * Unused exports in files that other work in progress owns (checks, facts, fixes, mesh profiles,
 * reporters, run.ts): to be removed there, then here.
 */
const TO_REMOVE = [
  'src/checks/define.ts: WORKLOAD_KINDS',
  'src/facts/choice.ts: meshList',
  'src/facts/choice.ts: refNote',
  'src/facts/choice.ts: templateMarkerText',
  'src/facts/controlplane.ts: EndpointAddress',
  'src/facts/controlplane.ts: InjectionSkip',
  'src/facts/controlplane.ts: WebhookTarget',
  'src/facts/controlplane.ts: namespaceUnread',
  'src/facts/decision.ts: DecisionInput',
  'src/facts/decision.ts: InjectorStep',
  'src/facts/marker-problems.ts: TemplateChange',
  'src/facts/markers.ts: EnableMarker',
  'src/facts/markers.ts: NamespaceMarker',
  'src/facts/missing-proxy.ts: DatedMarker',
  'src/facts/missing-proxy.ts: MissingProxy',
  'src/facts/missing-proxy.ts: enablingMarkers',
  'src/facts/model.ts: MeshInstall',
  'src/facts/model.ts: ModelInput',
  'src/facts/model.ts: isSidecarlessInfrastructure',
  'src/facts/resources.ts: Compute',
  'src/facts/resources.ts: ResourceKind',
  'src/facts/resources.ts: containerResources',
  'src/facts/resources.ts: observedProxy',
  'src/facts/resources.ts: parseQuantity',
  'src/facts/resources.ts: proxyResourceAnnotations',
  'src/facts/sidecarless.ts: NodePods',
  'src/fix/commands.ts: FieldChange',
  'src/fix/commands.ts: ManifestLookup',
  'src/fix/commands.ts: manifestEdit',
  'src/mesh/consul/injector.ts: CONSUL_STATUS',
  'src/mesh/consul/injector.ts: ConsulSettings',
  'src/mesh/istio/ambient.ts: DATAPLANE_MODE',
  'src/mesh/istio/ambient.ts: isAmbientInfrastructure',
  'src/mesh/istio/index.ts: installedRevisions',
  'src/mesh/istio/index.ts: istioPodValue',
  'src/mesh/istio/index.ts: parseInjectValue',
  'src/mesh/istio/index.ts: revisions',
  'src/mesh/istio/injector.ts: IstioInjectorConfig',
  'src/mesh/istio/injector.ts: ignoredValue',
  'src/mesh/istio/injector.ts: injectorConfig',
  'src/mesh/istio/injector.ts: selectorText',
  'src/mesh/istio/markers.ts: enableLabel',
  'src/mesh/keep.ts: KEEP_POLICY',
  'src/mesh/kuma/injector.ts: KUMA_SIDECAR_UID',
  'src/mesh/linkerd/index.ts: linkerdValues',
  'src/mesh/linkerd/injector.ts: LinkerdSettings',
  'src/mesh/linkerd/injector.ts: linkerdIntent',
  'src/mesh/profile.ts: Marker',
  'src/mesh/profile.ts: ProxyResourceValue',
  'src/mesh/read-plan.ts: NamedRef',
  'src/report/index.ts: ReportMeta',
  'src/report/index.ts: Reporter',
  'src/report/markdown.ts: md',
  'src/report/table.ts: wrap',
  'src/run/run.ts: MeshOption',
  'src/run/run.ts: RunOptions',
  'src/run/run.ts: rootFirst',
];

describe('unused exports', () => {
  it('every export of src/ is used by another file, or is an entry point', { timeout: 120_000 }, () => {
    expect(unusedExports()).toEqual([...Object.keys(ENTRY_POINTS), ...TO_REMOVE].sort());
  });
});
