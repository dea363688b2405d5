/**
 * Why linkerd-proxy's postStart hook (proxy-await: `linkerd-await --timeout=2m`, charts/partials/templates/_proxy.tpl)
 * cannot complete, where the pod shows it (issue 31):
 * - The hook polls another admin port than the proxy's: linkerd-await polls 127.0.0.1:<--port>/ready, default 4191
 *   (linkerd/linkerd-await src/main.rs `-p, --port`, default_value "4191"), and the injector wrote the hook without
 *   `--port` while the pod's config.linkerd.io/admin-port moved the proxy's admin server: linkerd/linkerd2#10981
 *   (bug: "Changing the proxy admin-port through an annotation breaks pod initialization", the hook exiting 69,
 *   "linkerd-proxy failed to become ready within 120s timeout").
 * - With linkerd-cni and no init container in the pod (Linkerd before the network validator of 2.13,
 *   linkerd/linkerd2#9678, or a pod injected without it), the kubelet publishes the pod's IP only after the hook
 *   returns (kubernetes/kubernetes#85966; with an init container it is published once that one finished), and a
 *   cluster network plugin that sets up a pod's routes or policy from its IP in the API (Calico: projectcalico/
 *   calico#3499) leaves the proxy without its control plane until the hook times out: linkerd/linkerd2#9310 and
 *   linkerd/linkerd2 discussion 8458 (a no-op init container fixes it).
 */
import { comment } from '../../fix/steps.js';
import { setOnTemplate } from '../../fix/commands.js';
import type { MeshContext } from '../context.js';
import type { HoldStuck } from '../profile.js';
import type { Workload } from '../../k8s/workloads.js';
import { annotationOf, isObj } from '../../util/objects.js';
import { containers, initContainers, podSpec } from '../../k8s/pods.js';
import type { K8sObject } from '../../util/types.js';

const ADMIN = 'config.linkerd.io/admin-port';
const AWAIT = 'config.linkerd.io/proxy-await';

/** The postStart command of linkerd-proxy, as the pod has it. */
function hookCommand(pod: K8sObject): string[] | undefined {
  const c = containers(podSpec(pod)).find((x) => x.name === 'linkerd-proxy');
  const exec = isObj(c?.lifecycle) && isObj(c.lifecycle.postStart) ? c.lifecycle.postStart.exec : undefined;
  return isObj(exec) && Array.isArray(exec.command) ? exec.command.map(String).slice(0, 20) : undefined;
}

export function linkerdHoldStuck(values: (m: MeshContext) => Record<string, any> | undefined) {
  return (m: MeshContext, pod: K8sObject, w: Workload): HoldStuck | undefined => {
    const cmdline = hookCommand(pod);
    if (!cmdline || !cmdline.some((a) => a.endsWith('linkerd-await'))) return undefined;
    const port = annotationOf(pod, ADMIN);
    const polled = cmdline.find((a) => /^(--port|-p)(=|$)/.test(a));
    if (port && /^\d{1,5}$/.test(port) && port !== '4191' && !polled)
      return {
        cause: `the pod moves the proxy's admin server to port ${port} (${ADMIN}), but the hook runs linkerd-await without --port, so it polls the default 4191, where nothing answers, until its timeout (linkerd/linkerd2#10981)`,
        source: 'linkerd/linkerd2#10981; linkerd/linkerd-await src/main.rs',
        fix: [
          comment`the hook of this release cannot follow a moved admin port: remove the admin port annotation from the pod template, or turn proxy-await off for this workload, or upgrade Linkerd to a release whose hook passes the port`,
          ...setOnTemplate(w, 'annotations', AWAIT, 'disabled'),
        ],
      };
    // The pod itself shows the plugin: the injector adds linkerd-init unless linkerd-cni is on, so an injected pod
    // with no init container at all was injected for linkerd-cni (issue 31, gen9path: linkerd-config not read or its
    // values changed since).
    const noInit = initContainers(podSpec(pod)).length === 0;
    const from =
      values(m)?.cniEnabled === true
        ? 'linkerd-config cniEnabled'
        : 'the injector added no linkerd-init, which it adds unless linkerd-cni is on';
    if (noInit)
      return {
        cause: `linkerd-cni is on (${from}) and the pod has no init container, so the kubelet publishes its IP only after the hook returns (kubernetes/kubernetes#85966): a cluster network plugin that sets up a pod's network from its IP in the API (Calico) leaves the proxy without its control plane until linkerd-await times out (linkerd/linkerd2#9310)`,
        source: 'linkerd/linkerd2#9310, #9678; kubernetes/kubernetes#85966; projectcalico/calico#3499',
        fix: [
          comment`give the pod an init container, which lets the kubelet publish its IP before the hook: Linkerd 2.13 and later inject linkerd-network-validator with linkerd-cni, or add a no-op init container to the template, or turn proxy-await off for this workload`,
          ...setOnTemplate(w, 'annotations', AWAIT, 'disabled'),
        ],
      };
    return undefined;
  };
}
