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
