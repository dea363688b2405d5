/**
 * The API server calling a mesh's injector through an HTTP proxy: a kube-apiserver pod whose
 * environment sets HTTPS_PROXY (or https_proxy) and whose NO_PROXY does not cover the webhook
 * Service's host `<name>.<namespace>.svc`. The API server builds that URL for a Service webhook
 * and its client takes the proxy from the environment as Go's ProxyFromEnvironment does
 * (src/k8s/apiserver.ts PROXY_ENV has the sources): the CONNECT goes to the proxy, which cannot
 * resolve a cluster's Service name, and answers with an error status (`Service Unavailable`,
 * `Forbidden`) or times out. kubeadm copies the proxy variables of the shell that ran `kubeadm init`
 * into the static pod (linkerd/linkerd2#2847, istio/istio#7266, #12441, #13575). NO_PROXY is
 * matched as Go matches it (src/cluster/proxy.ts bypassesProxy, the one implementation): an IP or
 * CIDR never matches the host name, only `*`, `.svc`, `svc`, `<namespace>.svc` or the name itself.
 * HTTP_PROXY alone does not proxy an https URL (httpproxy since Go 1.11, every supported release).
 */
import { bypassesProxy } from '../cluster/proxy.js';
import { defineFactFamily, inputsOf } from '../k8s/fact.js';
import { APISERVER_NAMESPACE } from '../k8s/apiserver.js';
import type { MeshName } from '../mesh/names.js';
import { APISERVERS, apiservers } from './apiserver.js';
import { WEBHOOK_TARGETS, webhookTargets } from './controlplane.js';
import type { Model } from './model.js';

/** What a snapshot keeps of a value it may not show (src/cluster/sanitize.ts REDACTED). */
const REDACTED = '(redacted)';

export interface ProxiedCall {
  /** The API server pod, kube-system/<name>. */
  apiserver: string;
  /** The variable Go takes the proxy from: HTTPS_PROXY, else https_proxy. */
  proxyVariable: string;
  /** The NO_PROXY variable set (NO_PROXY, else no_proxy), or null. */
  noProxyVariable: string | null;
  /** The Service host the webhook URL names, and its port. */
  host: string;
  port: number;
  /** proxied: NO_PROXY does not cover the host; unknown: a snapshot did not keep NO_PROXY. */
  verdict: 'proxied' | 'unknown';
  target: ReturnType<typeof webhookTargets>[number];
}

/** The first of the variables set (Go's getEnvAny). */
const first = (env: Record<string, string>, ...names: string[]): [string, string] | undefined => {
  for (const n of names) if (env[n]) return [n, env[n]];
  return undefined;
};

export const APISERVER_PROXIED_CALLS = defineFactFamily({
  id: 'apiserver-proxied-calls',
  inputs: inputsOf(APISERVERS, WEBHOOK_TARGETS, ['namespaces']),
  compute: (m: Model, mesh: MeshName): ProxiedCall[] => {
    if (!m.seesNamespace(APISERVER_NAMESPACE)) return [];
    const servers = apiservers(m).filter((i) => i.source.kind === 'Pod' && i.proxyEnv);
    if (!servers.length) return [];
    const out: ProxiedCall[] = [];
    for (const target of webhookTargets(m, mesh)) {
      const host = `${target.name}.${target.namespace}.svc`;
      for (const s of servers) {
        const env = s.proxyEnv!;
        const proxy = first(env, 'HTTPS_PROXY', 'https_proxy');
        if (!proxy) continue;
        const noProxy =
          first(env, 'NO_PROXY', 'no_proxy') ??
          ['NO_PROXY', 'no_proxy'].filter((n) => env[n] !== undefined).map((n): [string, string] => [n, ''])[0];
        const unknown = noProxy?.[1] === REDACTED;
        if (!unknown && noProxy && bypassesProxy(host, String(target.port), noProxy[1])) continue;
        out.push({
          apiserver: `${APISERVER_NAMESPACE}/${s.source.name}`,
          proxyVariable: proxy[0],
          noProxyVariable: noProxy?.[0] ?? null,
          host,
          port: target.port,
          verdict: unknown ? 'unknown' : 'proxied',
          target,
        });
      }
    }
    return out;
  },
});

/** The calls to the mesh's Service webhooks that an API server pod sends through its HTTP proxy. */
export const apiserverProxiedCalls = (m: Model, mesh: MeshName): ProxiedCall[] => m.fact(APISERVER_PROXIED_CALLS, mesh);
