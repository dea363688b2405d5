/** The registry of checks, sorted by code. Adding a check: import it here (docs/contributing.md "Adding a check"). */

import type { Check } from './define.js';
import namespaceNotEnabled from './namespace-not-enabled.js';
import podOptedOut from './pod-opted-out.js';
import referenceMissing from './reference-missing.js';
import optInOverruled from './opt-in-overruled.js';
import podPredatesEnablement from './pod-predates-enablement.js';
import sidecarMissing from './sidecar-missing.js';
import injectionMarkerInvalid from './injection-marker-invalid.js';
import webhookExcludesNamespace from './webhook-excludes-namespace.js';
import serviceaccountMissing from './serviceaccount-missing.js';
import quotaBlocksProxy from './quota-blocks-proxy.js';
import jobNeverCompletes from './job-never-completes.js';
import hostNetworkPod from './host-network-pod.js';
import podSpecStarvesProxy from './pod-spec-starves-proxy.js';
import appPortTakenByProxy from './app-port-taken-by-proxy.js';
import willNotBeMeshed from './will-not-be-meshed.js';
import webhookCaExpired from './webhook-ca-expired.js';
import webhookCaExpiring from './webhook-ca-expiring.js';
import webhookCaInvalid from './webhook-ca-invalid.js';
import webhookCertMismatch from './webhook-cert-mismatch.js';
import identityCertExpiring from './identity-cert-expiring.js';
import identityCertExpired from './identity-cert-expired.js';
import webhookMissing from './webhook-missing.js';
import webhookNoEndpoints from './webhook-no-endpoints.js';
import injectorUnavailable from './injector-unavailable.js';
import injectorOomkilled from './injector-oomkilled.js';
import webhookCallFailed from './webhook-call-failed.js';
import proxyMissingBesideMeshed from './proxy-missing-beside-meshed.js';
import injectorConfigExcludes from './injector-config-excludes.js';
import dataplaneModeConflict from './dataplane-mode-conflict.js';
import sidecarlessNotEnrolled from './sidecarless-not-enrolled.js';
import webhookDenied from './webhook-denied.js';
import podSecurityBlocksInit from './pod-security-blocks-init.js';
import injectionSkipped from './injection-skipped.js';
import admissionRejectsProxy from './admission-rejects-proxy.js';
import proxyRemoved from './proxy-removed.js';
import initRewritten from './init-rewritten.js';
import optoutNotRead from './optout-not-read.js';
import proxyCannotStart from './proxy-cannot-start.js';
import appStartsBeforeProxy from './app-starts-before-proxy.js';
import initBeforeProxy from './init-before-proxy.js';
import webhookBlocksInjector from './webhook-blocks-injector.js';
import injectorRbacMissing from './injector-rbac-missing.js';
import meshKeyUnknown from './mesh-key-unknown.js';
import meshKeyValueInvalid from './mesh-key-value-invalid.js';
import meshRangesMissCluster from './mesh-ranges-miss-cluster.js';
import clusterDnsUnavailable from './cluster-dns-unavailable.js';
import appProbeThroughProxy from './app-probe-through-proxy.js';
import kubernetesVersionUnsupported from './kubernetes-version-unsupported.js';
import proxyOutdated from './proxy-outdated.js';
import knownReleaseBug from './known-release-bug.js';
import nativeSidecarUnsupported from './native-sidecar-unsupported.js';
import webhookOverlap from './webhook-overlap.js';
import webhookStale from './webhook-stale.js';
import admissionPluginDisabled from './admission-plugin-disabled.js';
import webhookPortBlocked from './webhook-port-blocked.js';
import webhookFailingOpen from './webhook-failing-open.js';
import webhookRejecting from './webhook-rejecting.js';
import webhookNearTimeout from './webhook-near-timeout.js';
import proxyEgressBlocked from './proxy-egress-blocked.js';
import podSandboxCniFailed from './pod-sandbox-cni-failed.js';
import nodeAgentIncomplete from './node-agent-incomplete.js';
import proxyPredatesTrustRoot from './proxy-predates-trust-root.js';
import componentCertNotReloaded from './component-cert-not-reloaded.js';
import podPredatesNodeAgent from './pod-predates-node-agent.js';
import proxyHoldStuck from './proxy-hold-stuck.js';
import controlPlaneDown from './control-plane-down.js';

export const CHECKS: readonly Check[] = [
  namespaceNotEnabled,
  podOptedOut,
  optInOverruled,
  podPredatesEnablement,
  sidecarMissing,
  injectionMarkerInvalid,
  webhookExcludesNamespace,
  serviceaccountMissing,
  quotaBlocksProxy,
  jobNeverCompletes,
  hostNetworkPod,
  podSpecStarvesProxy,
  appPortTakenByProxy,
  willNotBeMeshed,
  webhookCaExpired,
  webhookCaExpiring,
  webhookCaInvalid,
  webhookCertMismatch,
  identityCertExpiring,
  identityCertExpired,
  webhookMissing,
  webhookNoEndpoints,
  injectorUnavailable,
  injectorOomkilled,
  webhookCallFailed,
  proxyMissingBesideMeshed,
  injectorConfigExcludes,
  dataplaneModeConflict,
  sidecarlessNotEnrolled,
  webhookDenied,
  podSecurityBlocksInit,
  injectionSkipped,
  admissionRejectsProxy,
  proxyRemoved,
  initRewritten,
  optoutNotRead,
  proxyCannotStart,
  appStartsBeforeProxy,
  initBeforeProxy,
  webhookBlocksInjector,
  injectorRbacMissing,
  meshKeyUnknown,
  meshKeyValueInvalid,
  meshRangesMissCluster,
  clusterDnsUnavailable,
  appProbeThroughProxy,
  kubernetesVersionUnsupported,
  proxyOutdated,
  knownReleaseBug,
  nativeSidecarUnsupported,
  webhookOverlap,
  webhookStale,
  admissionPluginDisabled,
  webhookPortBlocked,
  webhookFailingOpen,
  webhookRejecting,
  webhookNearTimeout,
  proxyEgressBlocked,
  podSandboxCniFailed,
  nodeAgentIncomplete,
  proxyPredatesTrustRoot,
  componentCertNotReloaded,
  podPredatesNodeAgent,
  proxyHoldStuck,
  referenceMissing,
  controlPlaneDown,
].sort((a, b) => (a.code < b.code ? -1 : 1));
