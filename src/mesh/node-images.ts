/**
 * Node images whose OS runs iptables on the nf_tables backend and does not load the legacy x_tables modules
 * (ip_tables, iptable_nat) by default (issue 31: what the node offers against what a mesh's init container needs).
 * An init container that runs iptables-legacy only finds no legacy nat table on such a node unless those modules
 * were loaded there, and a container loads none itself (no /lib/modules in its image; SELinux denies
 * module_request). Read from the Node's status.nodeInfo.osImage, as the kubelet reports the OS (/etc/os-release
 * PRETTY_NAME). No mesh's name: the node's OS is the same under every mesh.
 * Sources (trackers and vendors' docs, each naming the OS and the backend):
 * - RHEL CoreOS (OpenShift 4): istio/istio.io content/en/docs/setup/platform-setup/openshift/index.md
 *   @ 2019 (istio/istio.io#5423: "OpenShift 4.1 and above use nftables, which is incompatible with the Istio
 *   proxy-init container"); istio/istio#13986 (a Red Hat maintainer: "OpenShift 4 uses nftables");
 *   openshift-cloud-functions/knative-operators#42 (OCP 4.1-rc.3).
 * - RHEL 8 and later: maistra/istio#32 ("RHEL8 is based on nftables rather than iptables"); istio/istio#28897
 *   (RedHat 8, kernel 4.18.0-240.el8).
 * - Its rebuilds from 8 on (CentOS, CentOS Stream, Rocky Linux, AlmaLinux, Oracle Linux): istio/istio#38224
 *   ("CentOS 8 doesn't seem to have any way to use iptables-legacy"; modprobe ip_tables fixes it), #23009 (AlmaLinux
 *   8.5: loading iptable_nat at boot fixes it), oracle-terraform-modules/terraform-oci-oke#1009 (Oracle Linux 8 and
 *   9 fail where 7.9 works).
 * Bounded: the image name is read up to its first 120 characters; the patterns are anchored and bounded.
 */

interface NftOnlyImage {
  /** The OS family, as the finding names it. */
  readonly name: string;
  /** Matches osImage from its start; group 1 is the major version where the family has older legacy releases. */
  readonly re: RegExp;
  /** The first major version on nf_tables only, where group 1 is read. */
  readonly since?: number;
  readonly source: string;
}

const NFT_ONLY: readonly NftOnlyImage[] = [
  {
    name: 'Red Hat Enterprise Linux CoreOS of OpenShift 4',
    re: /^Red Hat Enterprise Linux CoreOS\b/,
    // istio/istio.io#5423 (docs/setup/platform-setup/openshift), istio/istio#13986
    source: 'OpenShift 4.1 and later run nftables (the trackers in the header of src/mesh/node-images.ts)',
  },
  {
    name: 'Red Hat Enterprise Linux 8 and later',
    re: /^Red Hat Enterprise Linux(?: Server)? (\d{1,2})(?:\.\d{1,3})?\b/,
    since: 8,
    // maistra/istio#32, istio/istio#28897
    source: 'RHEL 8 and later run iptables on nf_tables (the trackers in the header of src/mesh/node-images.ts)',
  },
  {
    name: 'the rebuilds of Red Hat Enterprise Linux 8 and later',
    re: /^(?:CentOS Linux|CentOS Stream|Rocky Linux|AlmaLinux|Oracle Linux Server) (\d{1,2})(?:\.\d{1,3})?\b/,
    since: 8,
    // istio/istio#38224, #23009, oracle-terraform-modules/terraform-oci-oke#1009
    source: 'the RHEL 8 rebuilds run iptables on nf_tables (the trackers in the header of src/mesh/node-images.ts)',
  },
];

/** The node image family, where its osImage is one whose OS runs iptables on nf_tables without the legacy modules. */
export function nftOnlyImage(osImage: string | null | undefined): { name: string; source: string } | undefined {
  if (!osImage) return undefined;
  const s = osImage.slice(0, 120);
  for (const i of NFT_ONLY) {
    const m = i.re.exec(s);
    if (!m) continue;
    if (i.since !== undefined && !(Number(m[1]) >= i.since)) continue;
    return { name: i.name, source: i.source };
  }
  return undefined;
}
