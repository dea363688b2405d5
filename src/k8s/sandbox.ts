/**
 * The kubelet's FailedCreatePodSandBox events (kubernetes pkg/kubelet/kuberuntime/kuberuntime_manager.go:
 * reason FailedCreatePodSandBox, "Failed to create pod sandbox: %v") and the CNI plugin or Multus
 * network attachment their message names. The runtime's wording (containerd, CRI-O, dockershim) and
 * libcni's (`plugin type="T" name="N" failed (add): ...`), Multus's (`error adding container to network "N"`,
 * `cannot find a network-attachment-definition (N) in namespace (NS)`,
 * `network-attachment-definitions.k8s.cni.cncf.io "N" not found`, `no network available in the name N in cni dir`).
 */

import { arr, isObj, str } from '../util/objects.js';

export const SANDBOX_REASON = 'FailedCreatePodSandBox';

/** What a sandbox failure message names: a plugin that failed, or an attachment Multus could not find. */
export interface SandboxCause {
  kind: 'plugin' | 'attachment';
  name: string;
  /** The namespace Multus looked in, for an attachment (`default/istio-cni` names another). */
  namespace?: string;
}

const PLUGIN = [
  /plugin type="([^"\s]{1,63})"(?: name="[^"]{0,253}")? failed \((?:add|ADD)\)/g,
  /error adding container to network "([^"\s]{1,253})"/g,
  /no network available in the name ([^\s"]{1,253}) in cni dir/g,
];
const ATTACHMENT = [
  /network-attachment-definition \(([^()\s]{1,253})\) in namespace \(([^()\s]{1,63})\)/,
  /network-attachment-definitions\.k8s\.cni\.cncf\.io "([^"\s]{1,253})" not found/,
];

/** The causes a sandbox failure message names among `plugins` (types) and `attachments` (names), first found first. */
export function sandboxCauses(
  message: string,
  plugins: readonly string[],
  attachments: readonly string[],
): SandboxCause[] {
  const text = message.slice(0, 20000);
  for (const re of ATTACHMENT) {
    const m = re.exec(text);
    if (m && attachments.includes(m[1]!))
      return [{ kind: 'attachment', name: m[1]!, ...(m[2] ? { namespace: m[2] } : {}) }];
  }
  const out: SandboxCause[] = [];
  for (const re of PLUGIN) {
    for (const m of text.matchAll(re)) {
      if (plugins.includes(m[1]!) && !out.some((c) => c.name === m[1])) out.push({ kind: 'plugin', name: m[1]! });
      if (out.length >= 4) break;
    }
  }
  return out;
}

/**
 * A sandbox failure message naming one of these plugins or attachments, or naming no plugin at all
 * (the runtime's bare "exit status N": pod-sandbox-cni-failed attributes it by the pod's injected
 * init container), what a snapshot keeps of these events. The kubelet's event recorder may prefix
 * a message "(combined from similar events): " (client-go tools/record events_cache.go).
 */
export function sandboxMessageShape(plugins: readonly string[], attachments: readonly string[]): RegExp {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const names = [...new Set([...plugins, ...attachments])].map(esc).join('|');
  return new RegExp(
    `^(?:\\(combined from similar events\\): )?Failed to create pod sandbox: (?:[\\s\\S]*(?:plugin type="(?:${names})"|network "(?:${names})"|\\((?:${names})\\) in namespace|"(?:${names})" not found|in the name (?:${names}) in cni dir)|(?![\\s\\S]*plugin type=)[\\s\\S]{0,2000}network[^:]{0,400}: exit status \\d{1,3}\\s*$)`,
  );
}

/** The failure part of a sandbox message, bounded and on one line: what follows `failed (add): ` or the Multus error. */
export function sandboxQuote(message: string, max = 300): string {
  const one = message.replace(/\s+/g, ' ');
  // The innermost error: Multus's own, else the last plugin's (Multus wraps the plugin it delegates to).
  const multus = one.search(/getKubernetesDelegate: |GetCNIConfigFromFile: /);
  const at =
    multus >= 0
      ? multus
      : one.lastIndexOf('failed (add): ') >= 0
        ? one.lastIndexOf('failed (add): ')
        : one.lastIndexOf('failed (ADD): ');
  const from = at >= 0 ? one.slice(at) : one;
  return from.length > max ? `${from.slice(0, max)}...` : from;
}

/** The pod annotation naming the Multus attachments of a pod (k8snetworkplumbingwg multus-cni). */
export const NETWORKS = 'k8s.v1.cni.cncf.io/networks';

/**
 * The attachments a pod names in its Multus annotation, each with the namespace Multus looks in
 * (bounded). Multus's forms: `name`, `ns/name`, `name@iface`, or a JSON list of `{name, namespace}`
 * (k8snetworkplumbingwg multus-cni pkg/k8sclient parsePodNetworkAnnotation).
 */
export function namedAttachments(value: string | undefined, podNs: string): { name: string; namespace: string }[] {
  if (!value) return [];
  const text = value.slice(0, 4000).trim();
  const out: { name: string; namespace: string }[] = [];
  if (text.startsWith('[')) {
    let list: unknown;
    try {
      list = JSON.parse(text);
    } catch {
      return [];
    }
    for (const e of arr(list).filter(isObj).slice(0, 32)) {
      const name = str(e.name);
      if (name) out.push({ name, namespace: str(e.namespace) ?? podNs });
    }
    return out;
  }
  for (const part of text.split(',').slice(0, 32)) {
    const m = /^\s*(?:([^/@\s]{1,253})\/)?([^/@\s]{1,253})(?:@[^\s]{1,64})?\s*$/.exec(part);
    if (m) out.push({ name: m[2]!, namespace: m[1] ?? podNs });
  }
  return out;
}

/**
 * A plugin binary the container runtime did not find: libcni's "failed to find plugin %q in path %s"
 * (containernetworking/cni pkg/invoke/find.go FindInPath, quoted by libcni/api.go addNetwork inside
 * "plugin type=... failed (add): "). The runtime's own plugin directories, as it printed them.
 */
export function pluginNotFound(message: string): { plugin: string; path: string[] } | undefined {
  const m = /failed to find plugin "([^"\s]{1,63})" in path \[([^\]]{0,1000})\]/.exec(message.slice(0, 20000));
  if (!m) return undefined;
  return {
    plugin: m[1]!,
    path: m[2]!.split(/\s+/).filter(Boolean).slice(0, 8),
  };
}
