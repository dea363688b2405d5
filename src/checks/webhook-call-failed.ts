/**
 * webhook-call-failed — FailedCreate events show the API server failing to call a mesh
 * injection webhook, so a controller cannot create its pods.
 *
 * Why: with failurePolicy Fail (Istio; Linkerd HA) a broken injector blocks pod creation and
 * the only trace is the owner's event: `failed calling webhook "<name>": ...`. The error text
 * tells which link broke: no endpoints, TLS (x509), timeout (often a NetworkPolicy), connection
 * refused, or a missing Service; the fix follows that cause.
 * When: FailedCreate on a ReplicaSet, Job, StatefulSet or DaemonSet in scope naming a mesh
 * webhook. Silent when the owner has since created all its pods (the failure is over). Events
 * expire (1h by default), so an old failure may already be gone. Needs events only: with
 * namespace-only permissions (webhook configurations unreadable) the event naming the mesh's
 * webhook is itself the evidence that the mesh is installed (a Fail webhook may have left no pod
 * to show it); the fix then names the mesh's conventional namespace and injector.
 * Known false positives: a failure that resolved between the event and the snapshot while the
 * owner's status still lags.
 * A timeout or a refused connection names the port to open: the webhook Service's targetPort as
 * the injector's container port (istiod 15017, Linkerd 8443, Kuma 5443, Consul 8080), since the
 * API server dials the pod, not the Service's 443 (istio/istio#20890, #19066, #36955; kumahq/kuma#6841),
 * and the provider's rule where the cluster shows it (an AWS security group, a GKE private
 * cluster's control-plane firewall rule: istio.io docs/setup/platform-setup/gke), from the one
 * provider fact and with the one firewall fix webhook-port-blocked gives (facts/webhook-path.ts).
 * The message is read by the API server's structure (src/k8s/admission.ts parseAdmissionError):
 * the cause is the transport error after the URL, read from its end, so the `?timeout=30s` of
 * every webhook URL never turns a refused connection or a missing Service into a timeout. A JSON
 * patch of the injector the API server cannot apply names no webhook: it is attributed by the
 * annotation or label it touches (src/mesh/touched.ts; hashicorp/consul-k8s#20).
 * Another admission layer's webhook (not a mesh's) failing the same way is reported for a workload a
 * mesh injects, named with its configuration and Service: the mesh is not the cause, and no pod of it is
 * created until that webhook answers (open-policy-agent/opa#1822, kyverno/kyverno#3390).
 * A workload whose pod template carries, as an annotation, a key and value the failing webhook's
 * objectSelector would leave out as a label (an opt-out such as `sidecar.istio.io/inject: "false"`
 * under a selector `NotIn ["false"]` on that label) is told so: an objectSelector reads labels only,
 * so the annotation never keeps the API server from calling the webhook (k8s/webhook.ts
 * annotationsSelectorsMiss; istio/istio#35271), and the label is the first fix.
 * An HTTP proxy in the way (gen8net): Go reports a CONNECT the proxy refused as the status line's reason
 * alone (`Post "https://...svc:443/...": Service Unavailable`, `Forbidden`) and an unreachable proxy as
 * `proxyconnect tcp: ...` (src/k8s/admission.ts, cause `proxy`); the message quotes it and names the
 * kube-apiserver pod whose HTTPS_PROXY sends the call there where it was read (src/facts/apiserver-proxy.ts),
 * else says the API server's environment is not among the objects read (istio/istio#12441, #10983).
 * A TLS rejection (cause `certificate`) after the injector's Secret got a certificate issued after the injector's
 * container started names that timeline (facts/timeline.ts certsLoadedBefore, gen9time): the injector serves the
 * certificate it loaded at start; the release data says whether that release reads it only at start, reloads it, or
 * is not known (then "may"). linkerd/linkerd2#5888, #5341, #5272.
 * Fix: repair the link the error names; the controller retries by itself.
 */
import {
  type PatchError,
  type WebhookCallError,
  type WebhookFailureCause,
  dialledPort,
  parseAdmissionError,
} from '../k8s/admission.js';
import { meshOfKey } from '../mesh/touched.js';
import type { Model, Workload } from '../facts/model.js';
import { printable } from '../util/errors.js';
import type { Provider } from '../k8s/providers.js';
import { firewallSteps, provider as clusterProvider, PROVIDER } from '../facts/webhook-path.js';
import { failedCreates, WORKLOAD_INDEX } from '../k8s/events.js';
import {
  injectorAt,
  injectorPodSelector,
  reinstallCommands,
  webhookTargets,
  WEBHOOK_TARGETS,
} from '../facts/controlplane.js';
import type { ResourceRef } from '../util/types.js';
import type { MeshName } from '../mesh/names.js';
import { meshTitle, profileOf, webhookMesh } from '../mesh/registry.js';
import { annotationsSelectorsMiss } from '../k8s/webhook.js';
import { newPodLabels } from '../k8s/pod-labels.js';
import { setOnTemplate } from '../fix/commands.js';
import { nsLabelsIfRead } from '../facts/sidecarless.js';
import { isObj, plural, str } from '../util/objects.js';
import { nodeNetworkNotReady, podNetworkAgentOf } from '../k8s/pod-network.js';
import { defineCheck, messages, meta, say } from './define.js';

const MESSAGES = messages({
  'call-failed':
    '{workload} cannot create pods: the API server failed calling webhook {hook} because {because}{reach}.{unseen}',
  'patch-failed':
    "{workload} cannot create pods: the API server could not apply {mesh}'s injection patch ({op} {pointer}, the {touched}): {detail}.",
  'node-network-deadlock':
    "{workload}, the nodes' pod network ({product}), cannot create pods: the API server failed calling webhook {hook} (failurePolicy Fail) because {because}. Without it {notReady} are not Ready ({nodeReason}), so {injector}: a deadlock that does not end by itself.",
  'other-layer':
    "{workload} cannot create pods: the API server failed calling webhook {hook} ({where}), which is not {mesh}'s injector but another admission layer, because {because}. {mesh} is not the cause: no pod of it, with or without a proxy, is created until that webhook answers.",
});

/**
 * A key and value the workload's pod template holds as an annotation that the webhook's objectSelector
 * would leave out as a label (istio/istio#35271): the annotation cannot keep the call from being made.
 */
function unseenAnnotation(
  m: Model,
  w: Workload | undefined,
  hook: Parameters<typeof annotationsSelectorsMiss>[0][number] | undefined,
) {
  if (!w || !hook) return undefined;
  const ns = nsLabelsIfRead(m, w.namespace);
  if (!ns) return undefined; // the namespace's labels decide the call too: unread, nothing is claimed
  const meta = isObj(w.template.metadata) ? w.template.metadata : {};
  const ann = isObj(meta.annotations) ? meta.annotations : {};
  return annotationsSelectorsMiss([hook], ns, newPodLabels(w), ann)[0];
}
import { cmd, comment, lit, type Step } from '../fix/steps.js';
import { DECISIONS } from '../facts/model.js';
import { APISERVER_PROXIED_CALLS, apiserverProxiedCalls } from '../facts/apiserver-proxy.js';
import { APISERVER_NAMESPACE, APISERVER_SELECTOR } from '../k8s/apiserver.js';
import { certsLoadedBefore, CERTS_LOADED_BEFORE, type CertLoadedBefore } from '../facts/timeline.js';

/**
 * A TLS rejection after the injector's Secret got a new certificate the injector's container started before
 * (facts/timeline.ts certsLoadedBefore, gen9time): the injector serves the certificate it loaded at start, not the
 * Secret's. Said with what the mesh's release data says of that container (reads at start only, or reloads the
 * file); the injector's pods in a namespace `check -n` cannot see are not read.
 */
function servedBeforeRenewal(
  m: Model,
  mesh: MeshName,
  ns: string,
  last: string | undefined,
): { because: string; stale: CertLoadedBefore } | undefined {
  const p = profileOf(mesh);
  if (!m.seesNamespace(ns)) return undefined;
  const lastAt = last ? Date.parse(last) : NaN;
  const stale = certsLoadedBefore(m, mesh).find(
    (s) =>
      s.namespace === ns &&
      s.container === p.controlPlane.injector.container &&
      // the failure is seen after the renewal (or not dated): not a rejection of a certificate older than both
      (Number.isNaN(lastAt) || s.leaf.notBefore.getTime() <= lastAt),
  );
  if (!stale) return undefined;
  const release = stale.version ? `${p.title} ${stale.version}` : `This ${p.title} release`;
  const reads =
    stale.reads === 'at-start'
      ? ` (${release} reads it only at start; it reloads the file from ${stale.load!.reloadsFrom})`
      : stale.reads === 'reloads'
        ? ` (${release} reloads the file when it changes, from ${stale.load!.reloadsFrom}, yet the failures came after the renewal)`
        : '';
  return {
    stale,
    because: `: Pod ${ns}/${stale.podName} (container ${stale.container}) started ${stale.startedAt.toISOString()}, before Secret ${ns}/${stale.secret} got its current certificate (issued ${stale.leaf.notBefore.toISOString()}, valid until ${stale.leaf.notAfter.toISOString()}), so it ${stale.reads === 'unknown' ? 'may still serve' : 'still serves'} the certificate it loaded at start${reads}${stale.reads === 'unknown' ? ` (whether this ${p.title} release reloads the file is not in meshdoctor's release data)` : ''}; restart it to load the renewed one`,
  };
}

/**
 * Go 1.15 stopped reading a certificate's subject Common Name as its host when it has no subjectAltName (crypto/x509
 * verify.go: "x509: certificate relies on legacy Common Name field, use SANs or temporarily enable Common Name matching
 * with GODEBUG=x509ignoreCN=0"); Kubernetes 1.19 is the first API server built with it (CHANGELOG-1.19: the legacy
 * behaviour is disabled by default). An injector certificate issued the old way is refused from then on.
 */
function cnOnly(transport: string | undefined, explained = false): string {
  if (transport && /legacy Common Name field/i.test(transport))
    return ': the certificate names the host only in its subject Common Name, without a subjectAltName, which API servers from Kubernetes 1.19 on no longer accept (Go 1.15); re-issue it with the host as a subjectAltName';
  // crypto/x509 verify.go UnknownAuthorityError: no certificate of the roots the client was given (the webhook's
  // clientConfig.caBundle, k8s.io/apiserver pkg/util/webhook/authentication.go restConfigFromKubeconfig) signed it.
  if (!explained && transport && /certificate signed by unknown authority/i.test(transport))
    return ": no CA of the webhook configuration's caBundle signed the certificate the injector serves (x509: certificate signed by unknown authority): one of them was replaced without the other (a re-applied install that reset the caBundle, a certificate regenerated by a reinstall or a restart); make them agree again: an injector that patches its own caBundle does so when it starts, so restart it, else set the caBundle to the CA that signed its certificate";
  return '';
}

const CAUSE_TEXT: Record<WebhookFailureCause, string> = {
  'no-endpoints': 'its Service has no endpoints',
  certificate: "the API server rejects the webhook's TLS certificate",
  timeout: 'the call timed out',
  'connection-refused': 'the connection was refused',
  'service-not-found': 'its Service does not exist',
  'bad-request': 'the webhook answered that the request was malformed (HTTP 400)',
  'invalid-response': 'its answer was not a valid admission response',
  proxy: 'an HTTP proxy answered instead of the injector',
  'egress-refused':
    'the control plane refused the address of the injector\'s pod ("Address is not allowed": a managed control plane such as EKS reaches only addresses of the cluster\'s VPC, and an overlay network gives pods addresses outside it)',
  other: 'the call failed',
};

/**
 * The port the API server must reach on the injector's pods: the container port the webhook
 * Service's targetPort resolves to, as read; else the one the error shows it dialled (not the
 * Service's own port); else the one installs use.
 */
function portToOpen(
  message: string,
  backend: ReturnType<typeof webhookTargets>[number] | undefined,
  fallback: number,
): { port: number; from: string } {
  if (backend?.containerPort) return { port: backend.containerPort, from: 'the Service targetPort' };
  const target = backend?.servicePort?.targetPort;
  if (typeof target === 'number') return { port: target, from: 'the Service targetPort' };
  const dialled = dialledPort(message);
  if (dialled && dialled !== backend?.port) return { port: dialled, from: 'the address the API server dialled' };
  return { port: fallback, from: "the mesh's default" };
}

/**
 * Where the port is opened: a NetworkPolicy, and the provider's own rule where the cluster shows
 * the provider (the one fix webhook-port-blocked gives too: facts/webhook-path.ts firewallSteps).
 */
function openPort(p: Provider | undefined, port: number, ns: string, service: string): Step[] {
  return [
    comment`a NetworkPolicy in ${ns} must admit the API server to TCP port ${port} of the injector pods`,
    cmd`kubectl -n ${ns} get networkpolicy`,
    ...firewallSteps(p, port, service),
  ];
}

/**
 * Why a proxy answered: the API server pods whose environment sends the call to it, where they were read
 * (src/facts/apiserver-proxy.ts), else what the answer itself shows. The proxy's answer is quoted as the
 * API server wrote it (a status line's reason, or the proxyconnect error).
 */
function proxyBecause(m: Model, mesh: MeshName, hook: string, transport: string): string {
  const quoted = printable(transport, 200);
  // proxyconnect: the proxy itself could not be reached; else it answered the CONNECT with an error status.
  const answer = /^proxyconnect /.test(transport.trim())
    ? `the API server could not reach the HTTP proxy it sends the call to ("${quoted}")`
    : `the HTTP proxy answered "${quoted}" instead of the injector`;
  const calls = apiserverProxiedCalls(m, mesh).filter((c) => c.target.webhooks.some((h) => h.name === hook));
  const c = calls[0];
  if (!c)
    return `the call went through an HTTP proxy and ${answer}: the API server takes HTTPS_PROXY from its environment for webhook calls unless NO_PROXY covers the Service host, and no kube-apiserver pod read shows that environment`;
  const others = calls.length > 1 ? ` (and ${plural(calls.length - 1, 'other API server pod')})` : '';
  const noProxy =
    c.verdict === 'unknown'
      ? `whose ${c.noProxyVariable} the snapshot did not keep`
      : `with no ${c.noProxyVariable ?? 'NO_PROXY'} entry covering ${c.host}`;
  return `the API server sent the call through the HTTP proxy of its environment, ${c.proxyVariable} of Pod ${c.apiserver}${others} ${noProxy}, and ${answer}`;
}

/** The mesh of a webhook named in an event (the one rule every caller uses: webhookMesh). */
const meshOfHook = (name: string): MeshName | undefined => webhookMesh({ name, configName: '' });

/** What an event says of a mesh's injection webhook: a failed call (named), or a patch of its injector that did not apply (named by what it touches). */
type Match =
  | { mesh: MeshName; hook: string; call: WebhookCallError }
  | { mesh: MeshName; patch: PatchError; touched: string }
  | { foreign: true; hook: string; call: WebhookCallError };

/** The one mesh a JSON patch error is about: the annotation or label key it touches (`/metadata/annotations/<key>`). */
function patchMesh(e: PatchError): { mesh: MeshName; touched: string } | undefined {
  const [top, field, key] = e.path;
  if (top !== 'metadata' || (field !== 'annotations' && field !== 'labels') || !key) return undefined;
  const mesh = meshOfKey(key);
  return mesh ? { mesh, touched: `${field === 'labels' ? 'label' : 'annotation'} ${key}` } : undefined;
}

/** Its evidence: the webhook named (null: a patch, named by what it touches), the cause, the events. */
type CallEvidence = { webhook: string | null; cause: WebhookFailureCause | 'patch'; [more: string]: unknown };

export default defineCheck<CallEvidence, typeof MESSAGES>({
  ...meta('webhook-call-failed'),
  facts: [WORKLOAD_INDEX, DECISIONS, PROVIDER, WEBHOOK_TARGETS, APISERVER_PROXIED_CALLS, CERTS_LOADED_BEFORE],
  messages: MESSAGES,
  *run(m) {
    const groups = failedCreates(
      m,
      (msg): Match | undefined => {
        // The one parser of the API server's admission errors (src/k8s/admission.ts).
        const e = parseAdmissionError(msg);
        if (e?.kind === 'call') {
          const mesh = meshOfHook(e.webhook);
          // A mesh left out by --mesh. Where the webhook configurations cannot be read (namespace-only
          // permissions), the event naming the mesh's webhook is the evidence of its install.
          if (mesh) return m.meshPossible(mesh) ? { mesh, hook: e.webhook, call: e } : undefined;
          // Another admission layer's webhook (a policy engine, another injector): kept, and reported
          // below only for a workload a mesh injects (open-policy-agent/opa#1822).
          return { foreign: true, hook: e.webhook, call: e };
        }
        if (e?.kind === 'patch') {
          const t = patchMesh(e);
          return t && m.meshPossible(t.mesh) ? { ...t, patch: e } : undefined;
        }
        return undefined;
      },
      (t) => ('foreign' in t ? `other:${t.hook}` : t.mesh),
    );
    for (const g of groups) {
      const t = g.match;
      if ('foreign' in t) {
        const f = foreignFinding(m, g, t);
        if (f) yield f;
        continue;
      }
      if ('patch' in t) {
        yield patchFinding(m, g, t);
        continue;
      }
      const cause = t.call.cause;
      const backend = webhookTargets(m, t.mesh).find((b) => b.webhooks.some((h) => h.name === t.hook));
      const hookObj = backend?.webhooks.find((h) => h.name === t.hook);
      const p = profileOf(t.mesh);
      const cpNs = backend?.namespace ?? m.mesh(t.mesh)?.namespaces[0] ?? p.controlPlane.namespace;
      const svc = backend?.name ?? p.controlPlane.injector.name;
      // The injector's Deployment as read (never a name guessed from the Service's); with the
      // webhook configurations unread, the name an install gives it.
      const dep = backend
        ? backend.injector.deployment
          ? backend.injector.name
          : undefined
        : p.controlPlane.injector.name;
      const at = dep ? { args: [['deploy/', { value: dep }]] } : injectorAt(t.mesh, undefined, backend?.service);
      const selector = injectorPodSelector(t.mesh, backend?.service);
      const logs = cmd`kubectl -n ${cpNs} logs ${at} -c ${p.controlPlane.injector.container} --tail=100`;
      const reach =
        cause === 'timeout' || cause === 'connection-refused'
          ? portToOpen(g.message, backend, p.controlPlane.injector.webhookPort)
          : undefined;
      // The one provider fact (nodes' labels, else the node names of the pods read).
      const provider = reach ? clusterProvider(m) : undefined;
      const open = reach ? openPort(provider, reach.port, cpNs, svc) : [];
      const fixes: Record<WebhookFailureCause, Step[]> = {
        'no-endpoints': [
          ...(dep ? [cmd`kubectl -n ${cpNs} rollout status ${`deploy/${dep}`}`] : []),
          cmd`kubectl -n ${cpNs} describe pods -l ${selector}`,
        ],
        certificate: [
          cmd`kubectl get mutatingwebhookconfiguration ${hookObj?.configName ?? p.controlPlane.webhooks.defaultConfig} -o jsonpath=${`{.webhooks[?(@.name=="${t.hook}")].clientConfig.caBundle}`} | base64 -d | openssl x509 -noout -subject -enddate`,
          comment`after renewing the certificate: the injector loads it at start${lit(p.install.restartReloads)}`,
          dep
            ? cmd`kubectl -n ${cpNs} rollout restart ${`deploy/${dep}`}`
            : cmd`kubectl -n ${cpNs} delete pods -l ${selector}`,
        ],
        timeout: [...open, logs],
        'connection-refused': [
          comment`nothing accepted TCP port ${reach?.port ?? p.controlPlane.injector.webhookPort} at the address dialled: the injector must listen there, or a firewall rejects the API server`,
          cmd`kubectl -n ${cpNs} get endpointslices -l ${`kubernetes.io/service-name=${svc}`} -o wide`,
          ...open,
          logs,
        ],
        'service-not-found': [
          cmd`kubectl -n ${cpNs} get service ${svc}`,
          ...reinstallCommands(m, t.mesh, cpNs, dep ?? backend?.injector.name),
        ],
        'bad-request': [logs],
        'invalid-response': [logs],
        proxy: [
          comment`the API server takes HTTPS_PROXY from its environment for webhook calls too: add .svc to NO_PROXY and no_proxy of the kube-apiserver container, in /etc/kubernetes/manifests/kube-apiserver.yaml on each control-plane node for kubeadm, and the kubelet restarts it. A proxy outside the cluster cannot reach a Service`,
          cmd`kubectl -n ${APISERVER_NAMESPACE} get pods -l ${APISERVER_SELECTOR} -o name`,
        ],
        'egress-refused': [
          comment`the managed control plane reaches pods only at addresses of the cloud network: run the injector with hostNetwork: true, or give pods the addresses of the cloud network with its own CNI plugin, aws-node on EKS`,
          cmd`kubectl -n ${cpNs} get pods -l ${selector} -o wide`,
        ],
        other: [logs],
      };
      const r = g.resource;
      // The Service the API server looked up, from the error's URL (https://<name>.<namespace>.svc:<port>/...),
      // else the webhook's clientConfig: which one does not exist, and whether its namespace does.
      const missing = cause === 'service-not-found' ? missingService(m, t.call.url, hookObj?.service) : undefined;
      if (missing && (missing.namespace !== cpNs || missing.name !== svc))
        fixes['service-not-found'].unshift(cmd`kubectl -n ${missing.namespace} get service ${missing.name}`);
      const renewed = cause === 'certificate' ? servedBeforeRenewal(m, t.mesh, cpNs, g.last) : undefined;
      const because = missing
        ? `its Service ${missing.namespace}/${missing.name} does not exist${missing.namespaceMissing ? ` (nor does namespace ${missing.namespace}: the webhook configuration points where nothing is installed)` : ''}`
        : cause === 'proxy'
          ? proxyBecause(m, t.mesh, t.hook, t.call.transport)
          : CAUSE_TEXT[cause] +
            (renewed?.because ?? '') +
            (cause === 'certificate' ? cnOnly(t.call.transport, !!renewed) : '');
      const unseen = unseenAnnotation(m, g.workload, hookObj);
      const deadlock = hookObj?.failurePolicy === 'Fail' ? nodeNetworkDeadlock(m, g.workload, backend) : undefined;
      if (deadlock) {
        const config = hookObj?.configName ?? p.controlPlane.webhooks.defaultConfig;
        yield {
          mesh: t.mesh,
          ...say(MESSAGES, 'node-network-deadlock', {
            workload: `${r.kind} ${r.namespace}/${r.name}`,
            product: deadlock.product,
            hook: t.hook,
            because,
            notReady: deadlock.notReady,
            nodeReason: deadlock.reason,
            injector: deadlock.injector,
          }),
          resource: r,
          affectedPods: g.missing,
          causedBy: { kind: 'webhook-broken', mesh: t.mesh },
          evidence: {
            webhook: t.hook,
            failurePolicy: 'Fail',
            cause,
            podNetwork: deadlock.product,
            nodesNotReady: deadlock.nodes,
            nodeCondition: deadlock.condition,
            ...(deadlock.injectorPods.length ? { injectorPods: deadlock.injectorPods } : {}),
            count: g.count,
            lastTimestamp: g.last ?? null,
            objects: [...g.objects].sort(),
            message: g.message,
          },
          fix: [
            comment`break the deadlock first: with failurePolicy Ignore on webhook ${t.hook} the API server admits ${r.name} while the injector is down, and pods it admits then have no proxy until re-created, or delete configuration ${config} and re-create it with the mesh once the nodes are Ready`,
            cmd`kubectl edit mutatingwebhookconfiguration ${config}`,
            comment`for good: leave kube-system out of the webhook, a namespaceSelector with kubernetes.io/metadata.name NotIn kube-system, the label the API server sets on every namespace, as the charts of some meshes do by default`,
            cmd`kubectl get nodes`,
          ],
        };
        continue;
      }
      yield {
        mesh: t.mesh,
        ...say(MESSAGES, 'call-failed', {
          workload: `${r.kind} ${r.namespace}/${r.name}`,
          hook: t.hook,
          because,
          reach: reach ? ` (TCP port ${reach.port} of the injector's pods must be reachable from the API server)` : '',
          unseen: unseen
            ? ` Its pod template sets ${unseen.key}=${unseen.value} as an annotation, which the webhook's objectSelector cannot see (it reads labels only): as a pod template label it keeps the API server from calling ${t.hook} for these pods.`
            : '',
        }),
        resource: r,
        affectedPods: g.missing,
        causedBy: { kind: 'webhook-broken', mesh: t.mesh },
        evidence: {
          webhook: t.hook,
          ...(hookObj ? { failurePolicy: hookObj.failurePolicy } : {}),
          cause,
          ...(t.call.url ? { url: t.call.url } : {}),
          transportError: printable(t.call.transport, 400),
          ...(unseen ? { annotationNotSelected: `${unseen.key}=${unseen.value}` } : {}),
          ...(renewed
            ? {
                servedBeforeRenewal: {
                  pod: `${renewed.stale.namespace}/${renewed.stale.podName}`,
                  container: renewed.stale.container,
                  startedAt: renewed.stale.startedAt.toISOString(),
                  secret: `${renewed.stale.namespace}/${renewed.stale.secret}`,
                  certificateIssued: renewed.stale.leaf.notBefore.toISOString(),
                  reads: renewed.stale.reads,
                  ...(renewed.stale.version ? { version: renewed.stale.version } : {}),
                },
              }
            : {}),
          ...(reach ? { portToOpen: reach.port, portFrom: reach.from, ...(provider ? { provider } : {}) } : {}),
          count: g.count,
          lastTimestamp: g.last ?? null,
          objects: [...g.objects].sort(),
          message: g.message,
        },
        fix: [
          ...(unseen && g.workload
            ? [
                comment`the label, unlike the annotation, leaves these pods out of webhook ${t.hook}`,
                ...setOnTemplate(g.workload, 'labels', unseen.key, unseen.value),
              ]
            : []),
          ...fixes[cause],
        ],
      };
    }
  },
});

/** A JSON patch of the mesh's injector that the API server could not apply to the pod. */
function patchFinding(
  m: Model,
  g: { resource: ResourceRef; count: number; last?: string; objects: Set<string>; missing: number; message: string },
  t: { mesh: MeshName; patch: PatchError; touched: string },
) {
  const p = profileOf(t.mesh);
  const backend = webhookTargets(m, t.mesh)[0];
  const cpNs = backend?.namespace ?? m.mesh(t.mesh)?.namespaces[0] ?? p.controlPlane.namespace;
  const at = backend
    ? injectorAt(t.mesh, backend.injector, backend.service)
    : { args: [['deploy/', { value: p.controlPlane.injector.name }]] };
  const r = g.resource;
  const pointer = `/${t.patch.path.map((x) => x.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
  return {
    mesh: t.mesh,
    ...say(MESSAGES, 'patch-failed', {
      workload: `${r.kind} ${r.namespace}/${r.name}`,
      mesh: meshTitle(t.mesh),
      op: t.patch.op,
      pointer,
      touched: t.touched,
      detail: printable(t.patch.detail, 200),
    }),
    resource: r,
    affectedPods: g.missing,
    causedBy: { kind: 'webhook-broken', mesh: t.mesh } as const,
    evidence: {
      webhook: null,
      cause: 'patch' as const,
      operation: t.patch.op,
      path: pointer,
      touches: t.touched,
      count: g.count,
      lastTimestamp: g.last ?? null,
      objects: [...g.objects].sort(),
      message: g.message,
    },
    fix: [
      comment`the patch the injector of ${meshTitle(t.mesh)} answered does not fit the pod the API server holds: the pod template lacks the map it adds to, as an injector release that assumes one does, or a mutating webhook called before it changed the pod`,
      cmd`kubectl -n ${cpNs} logs ${at} -c ${p.controlPlane.injector.container} --tail=200`,
      cmd`kubectl get mutatingwebhookconfigurations`,
    ],
  };
}

/** A webhook configuration that holds the named webhook, read (mutating first, as the API server calls them). */
function configOf(
  m: Model,
  hook: string,
): { kind: string; name: string; service?: { namespace: string; name: string }; failurePolicy?: string } | undefined {
  for (const [key, kind] of [
    ['mutatingwebhookconfigurations', 'MutatingWebhookConfiguration'],
    ['validatingwebhookconfigurations', 'ValidatingWebhookConfiguration'],
  ] as const) {
    if (!m.has(key)) continue;
    for (const c of m.list(key)) {
      const hooks = Array.isArray(c.webhooks) ? c.webhooks.slice(0, 64) : [];
      const h = hooks.find((x: any) => x && typeof x === 'object' && x.name === hook) as
        Record<string, any> | undefined;
      if (!h) continue;
      const svc = h.clientConfig?.service;
      return {
        kind,
        name: String(c.metadata?.name ?? ''),
        ...(svc && typeof svc.name === 'string' && typeof svc.namespace === 'string'
          ? { service: { namespace: svc.namespace, name: svc.name } }
          : {}),
        ...(typeof h.failurePolicy === 'string' ? { failurePolicy: h.failurePolicy } : {}),
      };
    }
  }
  return undefined;
}

/**
 * Another admission layer's webhook (not a mesh's injector) failing for the pods of a workload a
 * mesh injects: no pod of it, meshed or not, is created until that webhook answers, and the mesh's
 * own injection is not the cause. Named with its configuration and Service as read; silent for a
 * workload no mesh injects (not meshdoctor's to judge).
 */
function foreignFinding(
  m: Model,
  g: {
    resource: ResourceRef;
    workload?: Workload;
    count: number;
    last?: string;
    objects: Set<string>;
    missing: number;
    message: string;
  },
  t: { hook: string; call: WebhookCallError },
) {
  const w = g.workload;
  if (!w) return undefined;
  const mesh = m.meshes.map((x) => x.mesh).find((x) => m.meshPossible(x) && m.decision(w, x)?.inject);
  if (!mesh) return undefined;
  const cfg = configOf(m, t.hook);
  const cause = t.call.cause;
  const r = g.resource;
  const where = cfg
    ? `${cfg.kind} ${cfg.name}${cfg.failurePolicy ? `, failurePolicy ${cfg.failurePolicy}` : ''}`
    : 'its configuration not read';
  const svc = cfg?.service;
  return {
    mesh,
    ...say(MESSAGES, 'other-layer', {
      workload: `${r.kind} ${r.namespace}/${r.name}`,
      hook: t.hook,
      where,
      mesh: meshTitle(mesh),
      because: CAUSE_TEXT[cause],
    }),
    resource: r,
    affectedPods: g.missing,
    evidence: {
      webhook: t.hook,
      cause,
      layer: cfg ? `${cfg.kind} ${cfg.name}` : null,
      ...(cfg?.failurePolicy ? { failurePolicy: cfg.failurePolicy } : {}),
      ...(svc ? { service: `${svc.namespace}/${svc.name}` } : {}),
      ...(t.call.url ? { url: t.call.url } : {}),
      transportError: printable(t.call.transport, 400),
      count: g.count,
      lastTimestamp: g.last ?? null,
      objects: [...g.objects].sort(),
      message: g.message,
    },
    fix: [
      comment`the webhook ${t.hook} belongs to another admission layer: repair it, or if it is no longer used, remove its configuration`,
      ...(svc
        ? [
            cmd`kubectl -n ${svc.namespace} get service ${svc.name}`,
            cmd`kubectl -n ${svc.namespace} get endpointslices -l ${`kubernetes.io/service-name=${svc.name}`} -o wide`,
          ]
        : []),
      ...(cfg
        ? [
            cmd`kubectl get ${cfg.kind === 'MutatingWebhookConfiguration' ? 'mutatingwebhookconfiguration' : 'validatingwebhookconfiguration'} ${cfg.name} -o yaml`,
          ]
        : [cmd`kubectl get mutatingwebhookconfigurations,validatingwebhookconfigurations`]),
    ],
  };
}

/**
 * The Service a `service "x" not found` call error is about: the host of the URL the API server
 * called (`<name>.<namespace>.svc`, kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/util/webhook
 * serviceresolver.go builds it from clientConfig.service), else the webhook's own clientConfig. Whether
 * its namespace exists is said only where namespaces were read.
 */
function missingService(
  m: Model,
  url: string | undefined,
  service: { namespace: string; name: string } | undefined,
): { namespace: string; name: string; namespaceMissing: boolean } | undefined {
  const host = url
    ? /^https?:\/\/([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)\.([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)\.svc(?:[.:/]|$)/.exec(url)
    : null;
  const at = host ? { name: host[1]!, namespace: host[3]! } : service;
  if (!at?.name || !at.namespace) return undefined;
  return { ...at, namespaceMissing: m.has('namespaces') && !m.namespace(at.namespace) };
}

/**
 * The failing workload is the nodes' pod network agent (a DaemonSet running a CNI plugin: src/k8s/pod-network.ts)
 * and nodes are not Ready for want of a network (the kubelet's `NetworkReady=false` / `NetworkPluginNotReady` /
 * `cni config uninitialized`): the injector needs a Ready node, which needs the agent, which needs the injector
 * (hashicorp/consul-k8s#715, #847: aws-node on new EKS nodes under Consul's webhooks). Undefined otherwise.
 */
function nodeNetworkDeadlock(
  m: Model,
  w: Workload | undefined,
  backend: ReturnType<typeof webhookTargets>[number] | undefined,
):
  | {
      product: string;
      notReady: string;
      reason: string;
      condition: string;
      nodes: string[];
      injector: string;
      injectorPods: { pod: string; phase?: string; scheduled?: string }[];
    }
  | undefined {
  if (!w?.obj || w.kind !== 'DaemonSet' || !m.has('nodes')) return undefined;
  const agent = podNetworkAgentOf(w.obj);
  if (!agent) return undefined;
  const nodes = m.list('nodes').slice(0, 5000);
  const down = nodes.flatMap((n) => {
    const why = nodeNetworkNotReady(n);
    return why ? [{ name: str(n.metadata?.name) ?? '', why }] : [];
  });
  if (down.length === 0) return undefined;
  const pods = (backend?.injector.pods ?? []).slice(0, 16).map((pod) => {
    const st = isObj(pod.status) ? pod.status : {};
    const sched = Array.isArray(st.conditions)
      ? st.conditions.find((c: unknown) => isObj(c) && c.type === 'PodScheduled' && c.status === 'False')
      : undefined;
    return {
      pod: str(pod.metadata?.name) ?? '',
      ...(str(st.phase) ? { phase: str(st.phase)! } : {}),
      ...(isObj(sched) && str(sched.message) ? { scheduled: printable(str(sched.message)!, 200) } : {}),
    };
  });
  const unscheduled = pods.find((x) => x.scheduled);
  return {
    product: agent.product,
    notReady: `${down.length} of ${plural(nodes.length, 'node')}`,
    reason: down[0]!.why.reason,
    condition: printable(down[0]!.why.message, 300),
    nodes: down.slice(0, 16).map((d) => d.name),
    injector: unscheduled
      ? `the injector's pod ${unscheduled.pod} cannot be scheduled either (${unscheduled.scheduled})`
      : 'the injector, which needs a Ready node, cannot run either',
    injectorPods: pods,
  };
}
