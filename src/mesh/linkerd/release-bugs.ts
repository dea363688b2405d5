/**
 * Known Linkerd release bugs (issue 31.9, gen10bugs), rows of the release table's `bugs`
 * (src/mesh/linkerd/releases.ts): the patch versions each affects, the release that fixed it, and
 * what the cluster shows. Read from linkerd/linkerd2 CHANGES.md and the fix commits.
 */
import type { KnownBug } from '../release-table.js';

/** Bugs of releases before the table's first row (2.10): its `olderBugs`. */
export const LINKERD_OLDER_BUGS: readonly KnownBug[] = [
  {
    // cli/cmd/upgrade.go setFlagsFromInstall (stable-2.7.0 and 2.7.1) sets each flag of the original install from
    // the string the ConfigMap linkerd-config recorded: a string slice is recorded as "[4222]", which the upgrade
    // read back as one value, so `linkerd upgrade` of an install made with --skip-outbound-ports or
    // --skip-inbound-ports renders linkerd-init (of the control plane and of every pod the injector injects from the
    // upgraded config) with "--outbound-ports-to-ignore 443,[4222]": its iptables commands fail and the pods crash-loop
    // in init (linkerd/linkerd2#4257, upgrading 2.6.1 to 2.7.1). #4258 trims the brackets (stable-2.8.0).
    id: 'linkerd/linkerd2#4257',
    text: 'after linkerd upgrade of an install made with --skip-outbound-ports or --skip-inbound-ports, the injected linkerd-init is given the skipped ports as a bracketed list its iptables commands refuse, so it fails and the pod never starts',
    affected: { from: 'stable-2.7.0', to: 'stable-2.7.1' },
    fixedIn: 'stable-2.8.0',
    symptom: {
      on: 'pod',
      container: 'linkerd-init',
      shows: 'terminated',
      reason: 'Error',
      when: { container: 'linkerd-init', holds: '[' },
    },
    source:
      'linkerd/linkerd2@7d07504b (Upgrade crashes proxy-init when skipping ports, #4258, fixes #4257, in tag stable-2.8.0) cli/cmd/upgrade.go setFlagsFromInstall',
  },
];

/** Bugs of stable-2.11 to stable-2.13 (the row 2.10 to 2.14). */
export const LINKERD_2_11_BUGS: readonly KnownBug[] = [
  {
    // charts/partials/templates/_proxy.tpl from stable-2.11.0 (#5967) gives the proxy a postStart hook
    // `/usr/lib/linkerd/linkerd-await` (proxy.await, on by default) without --port: it polls the admin
    // server on its default port 4191, while config.linkerd.io/admin-port binds it elsewhere; after
    // its timeout the hook fails, the kubelet kills the proxy (PostStartHookError, then
    // CrashLoopBackOff) and the pod's other containers never start. #11031 passes --port (edge-23.6.3,
    // stable-2.14.0; CHANGES.md stable-2.14.0: "Fixed proxy startup failure when using the
    // config.linkerd.io/admin-port annotation").
    id: 'linkerd/linkerd2#11031',
    text: 'with config.linkerd.io/admin-port set to another port than 4191, the postStart hook linkerd-await of the injected proxy waits on the default admin port 4191 until it times out, so the kubelet kills the proxy again and again',
    affected: { from: 'stable-2.11.0', to: 'stable-2.13.7' },
    fixedIn: 'stable-2.14.0',
    symptom: {
      on: 'pod',
      container: 'linkerd-proxy',
      shows: 'waiting',
      reason: ['PostStartHookError', 'CrashLoopBackOff'],
      message: '',
      when: [
        { annotation: 'config.linkerd.io/admin-port', matches: '^(?!4191$)' },
        { container: 'linkerd-proxy', holds: 'linkerd-await' },
      ],
    },
    source:
      'linkerd/linkerd2@1071ec2e (Add support for awaiting proxy readiness, #5967, in tag stable-2.11.0 @02064b02) charts/partials/templates/_proxy.tpl postStart; @18755e45 (Fix support of config.linkerd.io/admin-port annotation, #11031, in tag edge-23.6.3 and stable-2.14.0 @a4bec904) the same file: --port={{.Values.proxy.ports.admin}}',
  },
];

/**
 * Bugs of the CNI plugin linkerd-cni released from linkerd/linkerd2-proxy-init (cni-plugin/vX.Y.Z tags; the
 * linkerd2-cni chart runs it as cr.l5d.io/linkerd/cni-plugin:vX.Y.Z): judged by the release of the linkerd-cni pod on
 * the pod's node (componentFrom 'cni', src/mesh/linkerd/components.ts), in its own numbers.
 */
export const LINKERD_CNI_BUGS: readonly KnownBug[] = [
  {
    // cni-plugin/main.go cmdAdd (cni-plugin v1.0.0 to v1.4.0) set up the pod's iptables only when a container of
    // pod.Spec.Containers was named linkerd-proxy: a proxy injected as a native sidecar (config.alpha.linkerd.io/
    // proxy-enable-native-sidecar, proxy.nativeSidecar, from edge-23.11.4) is an init container, so the plugin left the
    // pod without redirection and the injected linkerd-network-validator fails ("Failed to validate networking
    // configuration"), again and again (Init:CrashLoopBackOff). linkerd/linkerd2-proxy-init#362 looks in the init
    // containers too (containsLinkerdProxy), in cni-plugin v1.5.0.
    id: 'linkerd/linkerd2#11597',
    text: 'with the CNI plugin, a proxy injected as a native sidecar (an init container) is not seen by linkerd-cni, which then writes no iptables rules for the pod, so the injected linkerd-network-validator fails again and again',
    affected: { from: '1.0.0', to: '1.4.0' },
    fixedIn: 'v1.5.0',
    symptom: {
      on: 'pod',
      container: 'linkerd-network-validator',
      shows: 'waiting',
      reason: 'CrashLoopBackOff',
      message: '',
      componentFrom: 'cni',
      when: { nativeSidecar: 'linkerd-proxy' },
    },
    source:
      'linkerd/linkerd2-proxy-init@295008c4 (Fix linkerd-cni when using native sidecars, #362, fixes linkerd/linkerd2#11597, in tag cni-plugin/v1.5.0) cni-plugin/main.go cmdAdd, containsLinkerdProxy',
  },
  {
    // The installer (cni-plugin/deployment/scripts/install-cni.sh) writes the ServiceAccount token of its pod into the
    // host's ZZZ-linkerd-cni-kubeconfig once, when it installs: a bound token (expirationSeconds 3607, kept valid
    // longer only while the API server extends it, not after a signing key rotation such as AKS's) expires, the file
    // is not rewritten, and the plugin's calls to the API server fail, so the kubelet cannot create the sandbox of any
    // new pod on that node ("plugin type=\"linkerd-cni\" ... failed (add): Unauthorized"). #440 rewrites the file when
    // the token changes (cni-plugin v1.6.0, fixes linkerd/linkerd2#12573); #478 watches the right file (v1.6.1); #494
    // (v1.6.2, "Fixes linkerd/linkerd2#12573") kills both watchers on cleanup, so a rolled-out linkerd-cni pod no longer
    // leaves the old plugin behind with its revoked token (the same Unauthorized).
    id: 'linkerd/linkerd2#12573',
    text: 'the CNI installer writes its ServiceAccount token into the node kubeconfig of the plugin once and never again, so once that token expires or its signing key rotates the plugin is refused by the API server and no new pod on the node gets a sandbox',
    affected: { from: '1.0.0', to: '1.6.1' },
    fixedIn: 'v1.6.2',
    symptom: { on: 'pod', shows: 'sandbox-failed', message: 'Unauthorized', componentFrom: 'cni' },
    source:
      'linkerd/linkerd2-proxy-init@f2245560 (Detect SA token rotation, #440, fixes linkerd/linkerd2#12573, in tag cni-plugin/v1.6.0) cni-plugin/deployment/scripts/install-cni.sh; @e76e1eb (fix(linkerd-cni): improve SA token rotation detection, #478, in tag cni-plugin/v1.6.1); @d213597 (fix(linkerd-cni): fix cleanup logic, #494, in tag cni-plugin/v1.6.2)',
  },
];

/** Bugs of stable-2.10 and 2.11 (the row 2.10 to 2.14). */
export const LINKERD_2_10_BUGS: readonly KnownBug[] = [
  {
    // charts/partials/templates/_proxy-init.tpl gives linkerd-init allowPrivilegeEscalation: true when
    // proxyInit.closeWaitTimeoutSecs (stable-2.10.0) or proxyInit.runAsRoot (stable-2.11.2) is set, while the
    // control plane's own PodSecurityPolicy (enablePSP) keeps allowPrivilegeEscalation false: the PSP admission refuses
    // every injected pod ("PodSecurityPolicy: unable to admit pod: [spec.initContainers[0].securityContext.
    // allowPrivilegeEscalation: Invalid value: true: Allowing privilege escalation for containers is not allowed]").
    // #8402 allows it in the PSP under either value (edge-22.5.1), backported as #8862 to stable-2.11.4.
    id: 'linkerd/linkerd2#8402',
    text: 'with enablePSP and proxyInit.runAsRoot or proxyInit.closeWaitTimeoutSecs, the injected linkerd-init asks for privilege escalation that the control plane PodSecurityPolicy does not allow, so the PodSecurityPolicy admission refuses every injected pod',
    affected: { from: 'stable-2.10.0', to: 'stable-2.11.3' },
    fixedIn: 'stable-2.11.4',
    symptom: {
      on: 'workload',
      shows: 'create-refused',
      message: 'Allowing privilege escalation for containers is not allowed',
      about: 'matches',
      own: true,
      pattern:
        'PodSecurityPolicy: unable to admit pod: \\[.*spec\\.initContainers\\[\\d+\\]\\.securityContext\\.allowPrivilegeEscalation: Invalid value: true',
    },
    source:
      'linkerd/linkerd2@705eb2c6 (Fix PSP when proxyInit.runAsRoot is true, #8402, in tag edge-22.5.1) charts/linkerd-control-plane/templates/psp.yaml; backport @00119b11 (#8862, in tag stable-2.11.4); _proxy-init.tpl at stable-2.10.0 and stable-2.11.2',
  },
  {
    // charts/partials/templates/_proxy-init.tpl from stable-2.11.2 to stable-2.12.2 sets allowPrivilegeEscalation: true
    // on linkerd-init whenever proxyInit.runAsRoot is true (the default of 2.11.x), though running as root needs no
    // escalation: a policy engine that refuses privilege escalation (Gatekeeper psp-allow-privilege-escalation-container:
    // "Privilege escalation container is not allowed: linkerd-init") refuses every injected pod. #9873 keys it on
    // proxyInit.privileged instead (stable-2.12.3), fixing #9718.
    id: 'linkerd/linkerd2#9718',
    text: 'with proxyInit.runAsRoot (the 2.11 default), the injected linkerd-init asks for privilege escalation it does not need, so a policy that refuses privilege escalation refuses every injected pod',
    affected: { from: 'stable-2.11.2', to: 'stable-2.12.2' },
    fixedIn: 'stable-2.12.3',
    symptom: {
      on: 'workload',
      shows: 'create-refused',
      message: 'Privilege escalation container is not allowed',
      about: 'matches',
      pattern: 'Privilege escalation container is not allowed: linkerd-init(?![\\w-])',
    },
    source:
      'linkerd/linkerd2@adb6c22f (Introduce value to run proxy-init as privileged, #9873, fixes #9718, in tag stable-2.12.3) charts/partials/templates/_proxy-init.tpl; the same file at stable-2.11.2 and stable-2.12.2 (or closeWaitTimeoutSecs runAsRoot)',
  },
];

/** Bugs of stable-2.12 and of the edge releases before stable-2.13 (the row 2.10 to 2.14). */
export const LINKERD_2_12_BUGS: readonly KnownBug[] = [
  {
    // edge-22.7.3 (#8887, linkerd2-proxy-init#66) added proxyInit.iptablesMode with nft as the default:
    // charts/partials/templates/_proxy-init.tpl renders linkerd-init with `--firewall-bin-path iptables-nft` unless the
    // value says legacy, so on a host whose kernel lacks the nft modules the init container fails and every injected
    // pod stays in Init (linkerd/linkerd2#9053). #9097 makes legacy the default (edge-22.8.1, before stable-2.12.0):
    // "if the host does not have support for nft modules, the init container will crash".
    id: 'linkerd/linkerd2#9053',
    text: 'the injected linkerd-init uses iptables-nft by default, so on nodes whose kernel lacks the nft modules it fails and the pod never starts',
    affected: { from: 'edge-22.7.3', to: 'edge-22.7.3' },
    fixedIn: 'edge-22.8.1',
    symptom: {
      on: 'pod',
      container: 'linkerd-init',
      shows: 'terminated',
      reason: 'Error',
      when: { container: 'linkerd-init', holds: 'iptables-nft' },
    },
    source:
      'linkerd/linkerd2@9dd51d38 (Add iptablesMode flag to proxy-init, #8887, in tag edge-22.7.3) charts/partials/templates/_proxy-init.tpl; @e4f7788c (Change default iptables mode to legacy, #9097, fixes #9053, in tag edge-22.8.1) the same file',
  },
  {
    // edge-23.1.1 added seccompProfile RuntimeDefault to the containers' securityContext (#9719, Pod Security
    // Admission) without allowing it in the control plane's own PodSecurityPolicy (enablePSP): the PSP admission refuses
    // the control plane's pods ("PodSecurityPolicy: unable to admit pod: [pod.metadata.annotations[container.seccomp.
    // security.alpha.kubernetes.io/linkerd-proxy]: Forbidden: seccomp may not be set"). #10208 allows runtime/default in
    // the PSP and sets the pod's seccompProfile (edge-23.1.2, stable-2.13.0).
    id: 'linkerd/linkerd2#10150',
    text: 'with enablePSP, the injected containers ask for the seccomp profile RuntimeDefault that the control plane PodSecurityPolicy does not allow, so the PodSecurityPolicy admission refuses the control plane pods',
    affected: { from: 'edge-23.1.1', to: 'edge-23.1.1' },
    fixedIn: 'edge-23.1.2',
    symptom: {
      on: 'workload',
      shows: 'create-refused',
      message: 'seccomp may not be set',
      about: 'matches',
      pattern:
        'container\\.seccomp\\.security\\.alpha\\.kubernetes\\.io/(linkerd-proxy|linkerd-init|linkerd-network-validator)\\]: Forbidden: seccomp may not be set',
      own: true,
    },
    source:
      'linkerd/linkerd2@cf665ef5 (Fix PSP, #10208, fixes #10150, in tag edge-23.1.2) charts/linkerd-control-plane/templates/psp.yaml; seccompProfile from #9719 (@faf0ff62, edge-23.1.1) charts/partials/templates/_proxy.tpl',
  },
  {
    // charts/partials/templates/_network-validator.tpl (edge-22.10.3, #9678) renders linkerd-network-validator, the
    // CNI mode's init container, without resources: a namespace whose ResourceQuota tracks limits or requests refuses
    // every injected pod ("must specify limits.cpu,limits.memory"). #10254 gives it 50m/10Mi (edge-23.2.1, before
    // stable-2.13.0).
    id: 'linkerd/linkerd2#10254',
    text: 'with the CNI plugin, the injected init container linkerd-network-validator sets no resources, so a namespace whose ResourceQuota tracks limits or requests refuses every injected pod',
    affected: { from: 'edge-22.10.3', to: 'edge-23.1.2' },
    fixedIn: 'edge-23.2.1',
    symptom: { on: 'workload', shows: 'create-refused', message: 'must specify ' },
    source:
      'linkerd/linkerd2@41a8225b (network-validator: use limits and requests for ResourceQuota interop, #10254, in tag edge-23.2.1) charts/partials/templates/_network-validator.tpl; added by @309e8d12 (#9678, edge-22.10.3)',
  },
  {
    // charts/partials/templates/_proxy-init.tpl at stable-2.12.0 and 2.12.1 renders linkerd-init, when not run as
    // root, with runAsNonRoot: true and runAsUser: {{.Values.proxyInit.runAsUser}}: values carried over from 2.11
    // (helm upgrade --reuse-values) lack proxyInit.runAsUser, which renders 0, and the kubelet refuses the container
    // ("container's runAsUser breaks non-root policy", CreateContainerConfigError), so no injected pod starts. #9486
    // renders 65534 for 0 (stable-2.12.2).
    id: 'linkerd/linkerd2#9486',
    text: 'with values that lack proxyInit.runAsUser (carried over from 2.11), the injected linkerd-init is rendered with runAsNonRoot: true and runAsUser: 0, which the kubelet refuses to start',
    affected: { from: 'stable-2.12.0', to: 'stable-2.12.1' },
    fixedIn: 'stable-2.12.2',
    symptom: {
      on: 'pod',
      container: 'linkerd-init',
      shows: 'waiting',
      reason: 'CreateContainerConfigError',
      message: 'runAsUser breaks non-root policy',
    },
    source:
      'linkerd/linkerd2@79bd212d (helm: Do not encode runAsUser: 0 when runAsNonRoot is set, #9486, in tag stable-2.12.2) charts/partials/templates/_proxy-init.tpl; @b6536470 (#9201, stable-2.12.0) added the value proxyInit.runAsUser',
  },
];
