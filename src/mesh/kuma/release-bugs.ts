/**
 * Known Kuma release bugs (issue 31.9, gen10bugs), rows of the release table's `bugs`
 * (src/mesh/kuma/releases.ts): the patch versions each affects, the release that fixed it, and what
 * the cluster shows. Read from kumahq/kuma CHANGELOG.md and the fix commits.
 */
import type { KnownBug } from '../release-table.js';

/** Bugs of 1.8 to 2.0 (the row 1.5 to 2.1). */
export const KUMA_1_8_BUGS: readonly KnownBug[] = [
  {
    // injector.go from 1.8.0 (#4621) injects kuma-init for eBPF transparent proxying (the pod annotation
    // kuma.io/transparent-proxying-ebpf: enabled, written by the injector from the control plane's
    // setting or the pod's own) with the limits it has without eBPF (cpu 100m, memory 50M, unchanged to
    // 1.8.8 and 2.0.8): loading the eBPF programs needs more, the kernel kills kuma-init (OOMKilled)
    // and the pod never starts. #5579 gives it 80M under eBPF, in 2.1.0 only (CHANGELOG.md 2.1.0).
    id: 'kumahq/kuma#5579',
    text: 'with eBPF transparent proxying, the injected init container kuma-init keeps the 50M memory limit it has without eBPF, too little under eBPF, so the kernel kills it and the pod never starts',
    affected: { from: '1.8.0', to: '2.0.8' },
    fixedIn: '2.1.0',
    symptom: {
      on: 'pod',
      container: 'kuma-init',
      shows: 'terminated',
      reason: 'OOMKilled',
      when: { annotation: 'kuma.io/transparent-proxying-ebpf', matches: '^enabled$' },
    },
    source:
      'kumahq/kuma@f15239f7 (feat: add initial support for ebpf in init containers, #4621, in tag 1.8.0 @4917202a) pkg/plugins/runtime/k8s/webhooks/injector/injector.go, kuma-init limits 50M at 1.8.8 and 2.0.8 @6ecaf21f; @a0e25cd2 (fix(kuma-cp): increase kuma-init memory limit when using ebpf, #5579, in tag 2.1.0 @b0a9e797) the same file',
  },
];

/**
 * The CNI installer's token (kumahq/kuma#12567): app/cni/pkg/install (from 2.0.0) writes the ServiceAccount token of
 * the kuma-cni pod into the node's kubeconfig for the plugin once, at install; a bound token expires (or its signing
 * key rotates) and the plugin's calls to the API server are refused, so no new pod on that node gets a sandbox
 * ("plugin type=\"kuma-cni\" ... failed (add): ... Unauthorized"). #12592 rewrites it every 60 s
 * (refresh_sa_token_interval), in 2.10.0 and backported to 2.7.11, 2.8.6 and 2.9.3: one row per branch, judged by the
 * kuma-cni release on the pod's node (componentFrom 'cni', src/mesh/kuma/components.ts).
 */
const KUMA_CNI_TOKEN = {
  id: 'kumahq/kuma#12567',
  text: 'the CNI installer writes its ServiceAccount token into the node kubeconfig of the plugin once, so once that bound token expires the plugin is refused by the API server and no new pod on the node gets a sandbox',
  symptom: { on: 'pod', shows: 'sandbox-failed', message: 'Unauthorized', componentFrom: 'cni' },
} as const;
const KUMA_CNI_TOKEN_SOURCE =
  'kumahq/kuma@3e1c5195 (fix(cni): support bound service account token by reloading periodically, #12592, in tag 2.10.0 as @64a72fe5) app/cni/pkg/install/main.go, installer_config.go; backports @c5530fe6 (2.7.11), @e8884d7a (2.8.6), @fbef9908 (2.9.3); the token written once from 2.0.0 (installer_config.go prepareKubeconfig)';

export const KUMA_CNI_BUGS: readonly KnownBug[] = [
  { ...KUMA_CNI_TOKEN, affected: { from: '2.0.0', to: '2.7.10' }, fixedIn: '2.7.11', source: KUMA_CNI_TOKEN_SOURCE },
  { ...KUMA_CNI_TOKEN, affected: { from: '2.8.0', to: '2.8.5' }, fixedIn: '2.8.6', source: KUMA_CNI_TOKEN_SOURCE },
  { ...KUMA_CNI_TOKEN, affected: { from: '2.9.0', to: '2.9.2' }, fixedIn: '2.9.3', source: KUMA_CNI_TOKEN_SOURCE },
];
