/**
 * Real user reports of a release's own bug that the cluster shows (issue 31, gen12bugs1: known bugs of a release, as
 * data), Linkerd's: the control plane's own PodSecurityPolicy refusing the linkerd-init its chart renders under
 * proxyInit.runAsRoot (stable-2.10.0 to 2.11.3, #8402 and its backport #8862), and the linkerd-init rendered with
 * runAsNonRoot and runAsUser 0 from values carried over from 2.11 (stable-2.12.0 and 2.12.1, #9201 and #9486). Each is
 * rebuilt as an overlay on the healthy Linkerd cluster (test/fixtures/reports/gen12bugs1/, the thread in each file's
 * header) and must name the bug, the release that fixed it and what the cluster showed.
 * The control plane's PodSecurityPolicy not allowing the seccomp profile edge-23.1.1 sets (#10150).
 * And the CNI installer writing its ServiceAccount token into the node's plugin kubeconfig once (cni-plugin before
 * v1.6.2, #12573), judged by the release of the linkerd-cni pod on the failing pod's node.
 * Named 0/5 before (345c222), 5/5 after: known-release-bug reads the release tables' rows (src/mesh/linkerd/
 * release-bugs.ts), judges the mesh's own control-plane workloads too, a node agent's bug by the agent's release on
 * the pod's node (componentFrom), and a sandbox failure in the mesh's CNI plugin as a pod's symptom.
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'linkerd-2.11.3-psp-runasroot-destination-refused',
    report: 'linkerd/linkerd2#8402',
    id: 'known-release-bug',
    says: ['linkerd/linkerd2#8402', 'stable-2.11.4', 'Allowing privilege escalation for containers is not allowed'],
  },
  {
    file: 'linkerd-2.11.3-psp-runasroot-identity-refused',
    report: 'linkerd/linkerd2#8862',
    id: 'known-release-bug',
    says: ['linkerd/linkerd2#8402', 'Deployment linkerd/linkerd-identity', 'stable-2.11.4'],
  },
  {
    file: 'linkerd-2.12.0-init-runasuser-zero-identity',
    report: 'linkerd/linkerd2#9201',
    id: 'known-release-bug',
    says: ['linkerd/linkerd2#9486', 'runAsUser breaks non-root policy', 'stable-2.12.2'],
  },
  {
    file: 'linkerd-cni-token-rotated-aks-sandbox-unauthorized',
    report: 'linkerd/linkerd2#12573',
    id: 'known-release-bug',
    says: ['linkerd/linkerd2#12573', 'v1.2.2', 'failed (add): Unauthorized', 'v1.6.2'],
  },
  {
    file: 'linkerd-edge-23.1.1-psp-seccomp-identity-refused',
    report: 'linkerd/linkerd2#10150',
    id: 'known-release-bug',
    says: ['linkerd/linkerd2#10150', 'edge-23.1.2', 'seccomp may not be set'],
  },
];

const OPEN: string[] = [];

reportCases(
  'gen12bugs1',
  'real reports of a release bug the cluster shows: the bug and its fixed release are named',
  CASES,
  OPEN,
);
