/**
 * Known Linkerd release bugs (issue 31.9, gen10bugs), rows of the release table's `bugs`
 * (src/mesh/linkerd/releases.ts): the patch versions each affects, the release that fixed it, and
 * what the cluster shows. Read from linkerd/linkerd2 CHANGES.md and the fix commits.
 */
import type { KnownBug } from '../release-table.js';

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
