/**
 * admission-plugin-disabled — the API server runs without the MutatingAdmissionWebhook admission
 * plugin, so it never calls a mutating webhook: no injector is ever asked, no pod gets a proxy.
 *
 * Why: the quietest way injection stops. Webhooks, Services and injectors are healthy, markers are
 * right, pods run without proxies, and nothing fails: no FailedCreate event, no injector log line,
 * no metric. The cause is a flag on the API server (src/k8s/apiserver.ts has the rules and their
 * sources: default on since 1.10, --disable-admission-plugins turns it off, the deprecated
 * --admission-control turns off whatever it does not list).
 * When: a kube-apiserver pod of kube-system (kubeadm's static pod, mirrored by the kubelet: kind,
 * minikube, kubeadm) or a k3s server node (its k3s.io/node-args annotation) shows flags that turn
 * the plugin off, for the server's version (GET /version, else the pod's image tag), and a mesh
 * is installed. Where no API server shows its flags (EKS, GKE, AKS keep them out of sight, or the
 * pods of kube-system were not read), coverage says the flags were not examined and the check is
 * silent. Flags the API server refuses to start with (a plugin both enabled and disabled,
 * --admission-control beside the new flags) are left alone: that server is not running.
 * Known false positives: a pod whose flags were changed on disk while its mirror pod still shows
 * the old ones (the kubelet replaces the mirror pod within seconds).
 * Fix: take the plugin out of --disable-admission-plugins (or add it to --admission-control) where
 * the API server is configured (the static pod manifest on its node, kubeadm's ClusterConfiguration,
 * k3s's config), then re-create the pods that have no proxy.
 */
import { MUTATING_PLUGIN, mutatingPlugin, type ApiserverInstance, type PluginState } from '../k8s/apiserver.js';
import {
  apiservers,
  serverVersion,
  webhookCallFailures,
  WEBHOOK_CALL_FAILURES,
  APISERVERS,
} from '../facts/apiserver.js';
import { podsMissingProxy, PODS_MISSING_PROXY } from '../facts/controlplane.js';
import { meshTitle } from '../mesh/registry.js';
import { comment, cmd, lit, type Step } from '../fix/steps.js';
import { defineCheck, messages, meta, say } from './define.js';

const MANIFEST = '/etc/kubernetes/manifests/kube-apiserver.yaml';

/** Where the flag is set, and how to change it, for one API server. */
function fixFor(i: ApiserverInstance, s: PluginState): Step[] {
  const change =
    s.by === 'admission-control'
      ? `add ${MUTATING_PLUGIN} to --admission-control, or replace that deprecated flag by --enable-admission-plugins and --disable-admission-plugins, which keep the defaults`
      : s.by === 'not-default'
        ? `add --enable-admission-plugins=${MUTATING_PLUGIN}`
        : `remove ${MUTATING_PLUGIN} from --disable-admission-plugins`;
  if (i.source.kind === 'Node')
    return [
      comment`on k3s server node ${i.source.name}: in the kube-apiserver-arg entries of /etc/rancher/k3s/config.yaml, or the --kube-apiserver-arg flags of the k3s service, ${lit(change)}, then restart k3s on that node: systemctl restart k3s`,
    ];
  return [
    i.node
      ? comment`on node ${i.node}: in ${MANIFEST}, ${lit(change)}, and the kubelet restarts the API server`
      : comment`on the node of pod ${i.source.name}: in ${MANIFEST}, ${lit(change)}, and the kubelet restarts the API server`,
    comment`kubeadm: make the same change under apiServer.extraArgs of the ClusterConfiguration, or kubeadm upgrade puts the flag back`,
  ];
}

const MESSAGES = messages({
  'plugin-off': '{which} ({names}) {run} with {flag}, which turns the {plugin} admission plugin off: {effect}.',
});

export default defineCheck({
  ...meta('admission-plugin-disabled'),
  facts: [PODS_MISSING_PROXY, WEBHOOK_CALL_FAILURES, APISERVERS],
  messages: MESSAGES,
  *run(m) {
    const all = apiservers(m);
    if (!all.length) return; // no API server shows its flags: coverage says "not examined"
    const version = serverVersion(m, all);
    const off = all.flatMap((i) => {
      const s = mutatingPlugin(i.flags, version ?? i.imageVersion);
      return !s.on && s.by !== 'invalid' ? [{ i, s }] : [];
    });
    if (!off.length) return;
    const failures = webhookCallFailures(m);
    for (const { mesh, webhooks } of m.meshes) {
      const first = off[0]!;
      const names = off.map(
        (x) => `${x.i.source.kind} ${x.i.source.namespace ? `${x.i.source.namespace}/` : ''}${x.i.source.name}`,
      );
      const which =
        off.length === all.length
          ? all.length === 1
            ? 'The API server'
            : `All ${all.length} API servers`
          : `${off.length} of ${all.length} API servers`;
      const flag =
        first.s.flag ??
        `no --enable-admission-plugins=${MUTATING_PLUGIN} (version ${version?.gitVersion || `${version?.major}.${version?.minor}`})`;
      const effect =
        off.length === all.length
          ? `no mutating webhook is ever called, so no pod gets the ${meshTitle(mesh)} proxy, and nothing fails or records an event`
          : `pods created through ${off.length === 1 ? 'it' : 'them'} get no ${meshTitle(mesh)} proxy, and nothing fails or records an event`;
      const missing = podsMissingProxy(m, mesh);
      const events = webhooks.reduce((n, h) => n + (failures.get(h.name)?.count ?? 0), 0);
      yield {
        mesh,
        ...say(MESSAGES, 'plugin-off', {
          which,
          names: names.join(', '),
          run: `run${off.length === 1 && all.length === 1 ? 's' : ''}`,
          flag,
          plugin: MUTATING_PLUGIN,
          effect,
        }),
        resource: {
          kind: first.i.source.kind,
          ...(first.i.source.namespace ? { namespace: first.i.source.namespace } : {}),
          name: first.i.source.name,
        },
        affectedPods: missing,
        causeKey: { kind: 'webhook-broken', mesh },
        evidence: {
          plugin: MUTATING_PLUGIN,
          apiservers: all.map((i) => {
            const s = mutatingPlugin(i.flags, version ?? i.imageVersion);
            return {
              source: `${i.source.kind} ${i.source.namespace ? `${i.source.namespace}/` : ''}${i.source.name}`,
              node: i.node ?? null,
              ...(i.mirror !== undefined ? { mirrorPod: i.mirror } : {}),
              flags: i.flags.words,
              pluginOn: s.on,
              decidedBy: s.by,
              ...(i.flags.configFile !== undefined ? { admissionConfigFile: i.flags.configFile } : {}),
            };
          }),
          version: version ? version.gitVersion || `${version.major}.${version.minor}` : null,
          webhooks: webhooks.map((h) => h.name),
          // The signature: pods without a proxy and no failure anywhere.
          podsWithoutProxy: missing,
          webhookFailureEvents: events,
        },
        fix: [
          ...off.flatMap((x) => fixFor(x.i, x.s)),
          cmd`kubectl get --raw /version`,
          comment`then re-create the pods that have no proxy: sidecar-missing names them`,
        ],
      };
    }
  },
});
