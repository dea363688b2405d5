/**
 * Linkerd's proxy injector says why it skipped a workload: an `InjectionSkipped` event on the
 * workload (the Deployment, not its ReplicaSet; never for a bare pod), "Linkerd sidecar proxy
 * injection skipped: <reasons joined by ", ">" (controller/proxy-injector/webhook.go; the same
 * text from stable-2.7.0 to b24cd4059841f8cee2fb7a9c2ac23a693c583579). What each reason means
 * when meshdoctor's model says the pods should have been injected, release by release:
 * - pkg/inject/report.go Reasons (b24cd405; stable-2.12.0 0bd3f732 on): the texts below. The
 *   automount reason reads `automountServiceAccountToken set to "false"` up to stable-2.11, and
 *   gains `, with Values.identity.serviceAccountTokenProjection set to "false"` from stable-2.12.0,
 *   when the skip became conditional on token projection being off (commit 92421d04, #7117).
 * - report.go newReport at stable-2.10.0 (b10356a8) and stable-2.11.0 (02064b02): a pod whose
 *   containers have no ServiceAccount token volumeMount is skipped with the automount reason even
 *   when automountServiceAccountToken is not false (`if vm := conf.serviceAccountVolumeMount();
 *   vm == nil { report.AutomountServiceAccountToken = false }`). User report: epinio/epinio#619.
 * - pkg/healthcheck/sidecar.go HasExistingSidecars (b24cd405): a container named linkerd-proxy or
 *   istio-proxy, an image cr.l5d.io/linkerd/proxy: or gcr.io/istio-release/proxyv2:, an init
 *   container linkerd-init or istio-init or image cr.l5d.io/linkerd/proxy-init: or
 *   gcr.io/istio-release/proxy_init:. Up to stable-2.7.x (b9caae0c) also a container named envoy
 *   or contour, the images docker.io/envoyproxy/envoy-alpine: and gcr.io/heptio-images/contour:,
 *   and the init container envoy-initconfig; removed in stable-2.8.0 (65eae40b, #4092) after
 *   linkerd/linkerd2#3910 (Contour's Envoy pods skipped).
 * - The namespace's value is its annotation, the pod's is read from the pod (template), never from
 *   the Deployment's own metadata (linkerd/linkerd2#3253, #8340).
 */
import { comment } from '../../fix/steps.js';
import { setOnTemplateSpec } from '../../fix/commands.js';
import { containers, initContainers, podSpec } from '../../k8s/pods.js';
import type { Workload } from '../../k8s/workloads.js';
import type { K8sObject } from '../../util/types.js';
import { annotationsOf, str } from '../../util/objects.js';
import type { MeshContext } from '../context.js';
import type { SkipReading } from '../profile.js';
import { LINKERD_INJECT } from './injector.js';

const REPORT = 'linkerd/linkerd2 b24cd405 pkg/inject/report.go';
const HOST = 'hostNetwork is enabled';
const SIDECAR = 'pod has a sidecar injected already';
const UNSUPPORTED = 'this resource kind is unsupported';
const ABSENT = `neither the namespace nor the pod have the annotation "${LINKERD_INJECT}:enabled"`;
const DISABLED = `pod has the annotation "${LINKERD_INJECT}:disabled"`;
const INVALID = `invalid value for annotation "${LINKERD_INJECT}" at `;
const AUTOMOUNT = 'automountServiceAccountToken set to "false"';
const PROJECTION = ', with Values.identity.serviceAccountTokenProjection set to "false"';

/** Every reason the injector writes (longest first: the event joins them with ", ", which one of them contains). */
export const LINKERD_SKIP_REASONS: readonly string[] = [
  AUTOMOUNT + PROJECTION,
  ABSENT,
  `${INVALID}namespace`,
  `${INVALID}workload`,
  DISABLED,
  UNSUPPORTED,
  SIDECAR,
  HOST,
  AUTOMOUNT,
];

type Rule = {
  name?: readonly string[];
  image?: readonly string[];
  initName?: readonly string[];
  initImage?: readonly string[];
};
/** HasExistingSidecars at b24cd405 (both lists also look at init containers since edge-24.5.1). */
const NOW: Rule = {
  name: ['linkerd-proxy', 'istio-proxy'],
  image: ['cr.l5d.io/linkerd/proxy:', 'gcr.io/istio-release/proxyv2:'],
  initName: ['linkerd-init', 'istio-init'],
  initImage: ['cr.l5d.io/linkerd/proxy-init:', 'gcr.io/istio-release/proxy_init:'],
};
/** HasExistingSidecars up to stable-2.7.x (b9caae0c): Envoy and Contour counted as a proxy. */
const BEFORE_2_8: Rule = {
  name: ['envoy', 'contour'],
  image: ['docker.io/envoyproxy/envoy-alpine:', 'gcr.io/heptio-images/contour:', 'gcr.io/linkerd-io/proxy:'],
  initName: ['envoy-initconfig'],
  initImage: ['gcr.io/heptio-images/contour:', 'gcr.io/linkerd-io/proxy-init:'],
};

/** The container of these pods a rule takes for a proxy already injected, as "name (image)". */
function sidecarIn(pods: readonly K8sObject[], rule: Rule): string | undefined {
  for (const p of pods) {
    const spec = podSpec(p);
    const hit = (cs: Record<string, any>[], names: readonly string[] = [], images: readonly string[] = []) =>
      cs.find((c) => names.includes(str(c.name) ?? '') || images.some((i) => (str(c.image) ?? '').startsWith(i)));
    const c =
      hit([...containers(spec), ...initContainers(spec)], rule.name, rule.image) ??
      hit(initContainers(spec), rule.initName, rule.initImage);
    if (c) return `${str(c.name) ?? ''} (${str(c.image) ?? 'no image'})`;
  }
  return undefined;
}

/** What one skip reason means for a workload whose pods the model says should have been injected. */
export function readLinkerdSkip(
  m: MeshContext,
  w: Workload,
  reason: string,
  pods: readonly K8sObject[],
  tokenProjection: boolean,
): SkipReading | undefined {
  if (reason === HOST)
    return {
      reason,
      means:
        'the pods were created with hostNetwork: true, which Linkerd never injects; the pod template no longer says so',
      source: REPORT,
      fix: [],
    };
  if (reason === SIDECAR) {
    const old = sidecarIn(pods, BEFORE_2_8);
    if (old)
      return {
        reason,
        means: `Linkerd before stable-2.8.0 takes container ${old} for a proxy already injected (a container named envoy or contour, or an Envoy or Contour image)`,
        source:
          'linkerd/linkerd2 stable-2.7.0 (b9caae0c) pkg/healthcheck/sidecar.go, removed in stable-2.8.0 (#4092); linkerd/linkerd2#3910',
        evidence: { container: old },
        fix: [comment`upgrade Linkerd to stable-2.8.0 or later, or rename the container`],
      };
    const now = sidecarIn(pods, NOW);
    return {
      reason,
      means: now
        ? `the pods carry ${now}, which Linkerd takes for a proxy already injected`
        : 'the pods carried a container Linkerd takes for a proxy already injected (linkerd-proxy, istio-proxy, linkerd-init, istio-init or their images) when they were created',
      source: 'linkerd/linkerd2 b24cd405 pkg/healthcheck/sidecar.go',
      ...(now ? { evidence: { container: now } } : {}),
      fix: now ? [comment`rename or remove ${now}: Linkerd skips every pod that has it`] : [],
    };
  }
  if (reason === ABSENT)
    return {
      reason,
      means: `the injector found ${LINKERD_INJECT}: enabled neither as an annotation of the namespace nor on the pods when it admitted them: they were created before it was set`,
      source: REPORT,
      fix: [],
    };
  if (reason === DISABLED)
    return {
      reason,
      means: `the pods were created with the annotation ${LINKERD_INJECT}: disabled, which their template no longer has${pods.some((p) => annotationsOf(p)[LINKERD_INJECT] === 'disabled') ? ' (they still carry it)' : ''}`,
      source: REPORT,
      fix: [],
    };
  if (reason.startsWith(INVALID))
    return {
      reason,
      means: `the ${reason.slice(INVALID.length)}'s value of ${LINKERD_INJECT} was not enabled, ingress or disabled when the pods were created, and the injector skips such pods`,
      source: REPORT,
      fix: [],
    };
  if (reason === AUTOMOUNT + PROJECTION)
    return {
      reason,
      means: `the injector (Linkerd 2.12 or later) runs without identity.serviceAccountTokenProjection${tokenProjection ? ', although linkerd-config says it is on (the injector runs older values)' : ''}, and skips pods whose automountServiceAccountToken is false`,
      source: `${REPORT} (stable-2.12.0 on)`,
      evidence: { linkerdConfigTokenProjection: tokenProjection },
      fix: setOnTemplateSpec(w, { automountServiceAccountToken: true }),
    };
  if (reason === AUTOMOUNT) {
    const sa = str(podSpec(w.template).serviceAccountName) ?? 'default';
    const saOff = m.get('serviceaccounts', w.namespace, sa)?.automountServiceAccountToken === false;
    const templateOff = podSpec(w.template).automountServiceAccountToken === false;
    return {
      reason,
      means: templateOff
        ? 'the pod template sets automountServiceAccountToken: false, and Linkerd before 2.12 skips such pods whatever its identity settings'
        : `Linkerd 2.10 and 2.11 skip every pod whose containers have no ServiceAccount token mount, even when the pod template does not turn it off${saOff ? ` (ServiceAccount ${sa} sets automountServiceAccountToken: false)` : ''}`,
      source:
        'linkerd/linkerd2 stable-2.10.0 (b10356a8) and stable-2.11.0 (02064b02) pkg/inject/report.go newReport; conditional on token projection from stable-2.12.0 (#7117)',
      evidence: {
        templateAutomount: templateOff ? false : null,
        serviceAccount: sa,
        serviceAccountAutomount: saOff ? false : null,
      },
      fix: [
        ...setOnTemplateSpec(w, { automountServiceAccountToken: true }),
        comment`or upgrade Linkerd to 2.12 or later, which injects such pods with projected tokens`,
      ],
    };
  }
  if (reason === UNSUPPORTED)
    return { reason, means: 'the injector could not read the pod it was asked about', source: REPORT, fix: [] };
  return undefined;
}
