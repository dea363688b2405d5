/**
 * waitForDataplaneReady with kuma-cni waits for itself (issue 31): kumahq/kuma#9431 (Kuma 2.6, filed by a Kuma
 * maintainer from users' reports; the maintainer's analysis in the thread): the kuma-sidecar postStart hook
 * (`kuma-dp wait`, added by waitForDataplaneReady: pkg/plugins/runtime/k8s/containers/factory.go, 2.4.0) waits for
 * the Dataplane; kuma-cp's pod controller creates the Dataplane only from a pod with an IP; the kubelet does not
 * publish the pod's IP while a postStart hook runs (kubernetes/kubernetes#85966); with kuma-cni the pod has none
 * until the hook times out and kuma-sidecar is restarted ("the pod hangs in a ContainerCreating status with no IP
 * address assigned"). kumahq/kuma#9699 (merged March 2024) added a validation init container so that the pod's IP
 * is published before the hook. A native sidecar (KUMA_EXPERIMENTAL_SIDECAR_CONTAINERS) holds the app with a
 * startup probe, no hook. The setting is the pod annotation kuma.io/wait-for-dataplane-ready or the control plane's
 * KUMA_RUNTIME_KUBERNETES_INJECTOR_SIDECAR_CONTAINER_WAIT_FOR_DATAPLANE_READY.
 */
import { cmd, comment } from '../../fix/steps.js';
import { setOnTemplate } from '../../fix/commands.js';
import type { MeshContext } from '../context.js';
import type { HoldStuck } from '../profile.js';
import type { Workload } from '../../k8s/workloads.js';

const CNI_ENV = 'KUMA_RUNTIME_KUBERNETES_INJECTOR_CNI_ENABLED';
const WAIT = 'kuma.io/wait-for-dataplane-ready';

export function kumaHoldStuck(env: (m: MeshContext) => Record<string, string>) {
  return (m: MeshContext, _pod: unknown, w: Workload, ns: string): HoldStuck | undefined => {
    const raw = env(m)[CNI_ENV];
    if (!raw || !/^(1|t|T|TRUE|true|True)$/.test(raw)) return undefined;
    return {
      cause: `the control plane runs with the CNI plugin (${CNI_ENV}=${raw}): kuma-cp creates the Dataplane of a pod only once the pod has an IP, and the kubelet publishes the IP only after the postStart hook returns (kubernetes/kubernetes#85966), so with kuma-cni the hook waits for a Dataplane that waits for it (kumahq/kuma#9431) until it times out and kuma-sidecar is restarted`,
      source: 'kumahq/kuma#9431, #9699; kubernetes/kubernetes#85966',
      fix: [
        comment`do not hold the app with the postStart hook while kuma-cni is on: turn the wait off for this workload`,
        ...setOnTemplate(w, 'annotations', WAIT, 'false'),
        comment`or run kuma-sidecar as a native sidecar, which holds the app with a startup probe instead of the hook: the control plane env KUMA_EXPERIMENTAL_SIDECAR_CONTAINERS=true in namespace ${ns}, Kubernetes 1.29 or later`,
        cmd`kubectl -n ${ns} set env deployment/kuma-control-plane KUMA_EXPERIMENTAL_SIDECAR_CONTAINERS=true`,
      ],
    };
  };
}
