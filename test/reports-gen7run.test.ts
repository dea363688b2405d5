/**
 * Real user reports (issue 31, items 1, 3, 4: why an injected mesh container cannot run, the proxy's own network
 * path, the mesh's node agents), each rebuilt as an overlay on the healthy cluster of its mesh and release
 * (test/fixtures/reports/gen7run/, the thread in each file's header). Each must name the confirmed cause: the check
 * and the words that make it the cause. Named 2/8 before this round's mechanisms (commit 2b8d066), 8/8 after: what iptables says
 * the node refused (src/mesh/iptables.ts), istio-iptables' exit codes across releases and SELinux module loading, an
 * injected init container inheriting the pod's user (proxy-cannot-start), an agent pod the scheduler cannot place
 * (node-agent-incomplete).
 */
import { type ReportCase, reportCases } from './helpers/reports.js';

const CASES: ReportCase[] = [
  {
    file: 'istio-1.0-init-inherits-pod-runasuser',
    report: 'istio/istio#10358',
    id: 'proxy-cannot-start',
    says: ['istio-init', 'UID 1000', "the pod's securityContext", /no runAsUser of its own/],
    // Istio 1.0's template added NET_ADMIN only: the pod lacking NET_RAW is no gap of that release.
    never: [/NET_RAW/],
  },
  {
    file: 'istio-1.1-init-root-vs-pod-runasnonroot',
    report: 'banzaicloud/istio-operator#249',
    id: 'proxy-cannot-start',
    says: ['istio-init', 'runAsNonRoot: true', "the pod's securityContext", 'root'],
  },
  {
    file: 'linkerd-2.11-init-legacy-nat-missing',
    report: 'linkerd/linkerd2#7749',
    id: 'proxy-cannot-start',
    says: ['linkerd-init', /legacy/, /nat table/],
  },
  {
    file: 'istio-1.5-init-nat-centos8-modules',
    report: 'istio/istio#23009',
    id: 'proxy-cannot-start',
    says: ['istio-init', 'kernel modules', 'CentOS Linux 8'],
  },
  {
    file: 'istio-init-oke-oracle-linux-8-modules',
    report: 'oracle-terraform-modules/terraform-oci-oke#1009',
    id: 'proxy-cannot-start',
    says: ['istio-init', 'kernel modules', 'Oracle Linux Server 8.7'],
  },
  {
    file: 'istio-1.6-init-selinux-module-request',
    report: 'istio/istio#24101',
    id: 'proxy-cannot-start',
    says: ['istio-init', 'SELinux', 'CentOS Linux 7', 'loading the kernel modules', 'module_request'],
  },
  {
    file: 'istio-init-rke2-rhel-selinux-modules',
    report: 'rancher/rke2#504',
    id: 'proxy-cannot-start',
    says: ['istio-init', 'SELinux', 'Red Hat Enterprise Linux 8.2', 'loading the kernel modules', 'module_request'],
  },
  {
    file: 'istio-ambient-ztunnel-pending-no-priority-class',
    report: 'istio/istio#47867',
    id: 'node-agent-incomplete',
    says: ['ztunnel', 'node-c', 'Insufficient memory', 'priority class'],
  },
];

const OPEN: string[] = [];

reportCases('gen7run', 'real reports: the confirmed cause is named', CASES, OPEN);
