/**
 * kuma-validation can pass on a pod kuma-cni never set up (issue 31): kumahq/kuma#16809 (Kuma master after 2.13,
 * filed by a Kuma maintainer, triage/accepted): "When you deploy Kuma with CNI and a pod does not receive the
 * iptables rules, the kuma-validation container still passes, which causes the sidecar to start", reproduced by
 * scaling a node and an application "so it starts on the node where cni is not ready yet". The taint controller of
 * the control plane (a NoSchedule taint on a node whose kuma-cni is not ready) keeps new pods off such nodes where it
 * is on; kumahq/kuma#13572 lists where pods still start before the agent (a node re-added without eviction, the
 * agent failing at first, the controller off or the control plane down).
 */
export const KUMA_VALIDATION_PASSES = {
  why: 'kuma-validation can complete on a pod kuma-cni never set up, so it does not stop such a pod',
  source: 'kumahq/kuma#16809 and #13572',
} as const;
