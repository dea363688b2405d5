/**
 * dataplane-mode-conflict — a namespace asks a mesh both for sidecar injection and for its
 * sidecar-less data plane (Istio: `istio-injection=enabled` or `istio.io/rev` next to
 * `istio.io/dataplane-mode=ambient`).
 *
 * Why: Istio's own analyzer warns about it (IST0123 NamespaceMultipleInjectionLabels, istio/istio
 * pkg/config/analysis/analyzers/injection/injection.go: "more than one type of injection labels …
 * may lead to undefined behavior"). What happens in fact: the sidecar injector ignores
 * `istio.io/dataplane-mode` and injects every new pod, and the istio-cni node agent skips pods that
 * carry a sidecar (cni/pkg/util/podutil.go PodRedirectionEnabled), so ambient mode silently does
 * not apply to them, while pods created before the sidecar marker stay in ambient mode: two data
 * planes in one namespace, decided by pod age.
 * When: for namespaces in scope whose labels the profile's `sidecarless.conflict` flags (Istio:
 * only when `istio-injection` is absent or `enabled`, as IST0123 counts them; `istio-injection=
 * disabled` next to ambient is a clear choice and stays silent).
 * Known false positives: a migration from sidecars to ambient in progress (the warning ends when
 * the old marker is removed).
 * Fix: keep one data plane: the one the namespace's pods run now (a runnable line), the other as
 * a comment; moving pods to ambient mode also needs them re-created without their sidecar.
 */
import { choice, comment, lit, text } from '../fix/steps.js';
import { namespaceChange, recreateAll } from '../fix/commands.js';
import { meshTitle } from '../mesh/registry.js';
import { nsLabelsIfRead, sidecarlessMeshes } from '../facts/sidecarless.js';
import { podStates, APP_WORKLOADS_BY_NS, MESHES } from '../facts/model.js';
import { nameOf } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  'both-modes':
    'Namespace {namespace} asks {meshTitle} for both sidecars ({sidecarMarkers}) and {mode} ({modeLabel}), so new pods get a sidecar and are left out of {mode}.',
});

export default defineCheck({
  ...meta('dataplane-mode-conflict'),
  facts: [APP_WORKLOADS_BY_NS, MESHES],
  messages: MESSAGES,
  *run(m) {
    for (const nsObj of m.list('namespaces')) {
      const ns = nameOf(nsObj);
      if (!ns || !m.inScope(ns)) continue;
      const labels = nsLabelsIfRead(m, ns)!;
      for (const { mesh, mode } of sidecarlessMeshes(m)) {
        const c = mode.conflict(labels);
        if (!c) continue;
        const title = meshTitle(mesh);
        const workloads = m.appWorkloadsIn(ns);
        const sidecar = workloads.filter((w) => podStates(w).meshed.has(mesh));
        const enrolled = workloads.filter((w) =>
          podStates(w).active.some((p) => mode.enrolment(p).state === 'enrolled'),
        );
        const active = workloads.reduce((n, w) => n + podStates(w).active.length, 0);
        const markers = c.markers.map((x) => x.split('=')[0]!);
        const keepSidecars = namespaceChange(m, ns, 'labels', [{ key: mode.label.key }]);
        const keepAmbient = [
          ...namespaceChange(
            m,
            ns,
            'labels',
            markers.map((key) => ({ key })),
          ),
          ...recreateAll(sidecar),
        ];
        // Keep what the pods run now: ambient mode only when no pod has the sidecar and some are enrolled.
        const ambientNow = sidecar.length === 0 && enrolled.length > 0;
        const [run, alt, altName] = ambientNow
          ? [keepAmbient, keepSidecars, 'sidecars']
          : [keepSidecars, keepAmbient, mode.title];
        yield {
          mesh,
          ...say(MESSAGES, 'both-modes', {
            namespace: ns,
            meshTitle: title,
            sidecarMarkers: `label ${c.markers.join(', label ')}`,
            mode: mode.title,
            modeLabel: `label ${mode.label.key}=${mode.label.value}`,
          }),
          resource: { kind: 'Namespace', name: ns },
          affectedPods: active,
          evidence: {
            namespace: ns,
            sidecarMarkers: c.markers.map((x) => `label ${x}`),
            sidecarlessMarker: `label ${mode.label.key}=${mode.label.value}`,
            rule: c.rule,
            workloadsWithSidecar: sidecar.map((w) => `${w.kind}/${w.name}`),
            workloadsEnrolled: enrolled.map((w) => `${w.kind}/${w.name}`),
          },
          fix: [
            comment`keep one data plane: ${lit(ambientNow ? `${mode.title}, the one its pods run now` : 'sidecars, the one new pods get now')}`,
            ...run,
            choice(text`or keep ${lit(altName)} instead:`, [{ label: [], steps: alt }]),
          ],
        };
      }
    }
  },
});
