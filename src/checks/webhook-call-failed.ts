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
 * Fix: repair the link the error names; the controller retries by itself.
 */
import { type WebhookFailureCause, dialledPort, webhookFailureCause } from '../k8s/admission.js';
import type { Provider } from '../k8s/providers.js';
import { firewallSteps, provider as clusterProvider } from '../facts/webhook-path.js';
import { OWNER_KINDS, eventInfo, missingPods, workloadOfObject } from '../k8s/events.js';
import { KINDS } from '../k8s/kinds.js';
import { injectorAt, injectorPodSelector, reinstallCommands, webhookTargets } from '../facts/controlplane.js';
import type { ResourceRef } from '../util/types.js';
import type { MeshName } from '../mesh/names.js';
import { time } from '../util/objects.js';
import { profileOf, webhookMesh } from '../mesh/registry.js';
import { defineCheck, meta } from './define.js';
import { cmd, comment, lit, type Step } from '../fix/steps.js';

const CAUSE_TEXT: Record<WebhookFailureCause, string> = {
  'no-endpoints': 'its Service has no endpoints',
  certificate: "the API server rejects the webhook's TLS certificate",
  timeout: 'the call timed out',
  'connection-refused': 'the connection was refused',
  'service-not-found': 'its Service does not exist',
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

/** The mesh of a webhook named in an event (the one rule every caller uses: webhookMesh). */
const meshOfHook = (name: string): MeshName | undefined => webhookMesh({ name, configName: '' });

interface Group {
  mesh: MeshName;
  hook: string;
  resource: ResourceRef;
  objects: Set<string>;
  count: number;
  last?: string;
  message: string;
  missing: number;
}

export default defineCheck({
  ...meta('webhook-call-failed'),
  *run(m) {
    const groups = new Map<string, Group>();
    for (const e of m.list('events')) {
      const ev = eventInfo(e);
      const key = OWNER_KINDS[ev.kind];
      if (ev.reason !== 'FailedCreate' || !key || !m.inScope(ev.namespace)) continue;
      const hook = /failed calling webhook "([a-z0-9.-]+)"/.exec(ev.message)?.[1]; // webhook names are DNS names
      const mesh = hook ? meshOfHook(hook) : undefined;
      // Not a mesh webhook, or a mesh left out by --mesh. Where the webhook configurations cannot be
      // read (namespace-only permissions), the event naming the mesh's webhook is the evidence of its install.
      if (!hook || !mesh || !m.meshPossible(mesh)) continue;
      const missing = missingPods(ev.kind, m.get(key, ev.namespace, ev.name));
      if (missing === 0) continue; // the owner has created its pods since: the failure is over
      const w = workloadOfObject(m, ev.kind, ev.namespace, ev.name);
      const resource = w?.ref ?? { kind: KINDS[key].kind, namespace: ev.namespace, name: ev.name };
      const id = `${mesh}/${resource.kind}/${resource.namespace}/${resource.name}`;
      const g = groups.get(id) ?? {
        mesh,
        hook,
        resource,
        objects: new Set<string>(),
        count: 0,
        message: ev.message,
        missing: 0,
      };
      g.objects.add(`${ev.kind}/${ev.name}`);
      g.count += ev.count;
      g.missing += missing ?? 0;
      if (!g.last || (time(ev.lastTimestamp)?.getTime() ?? 0) > (time(g.last)?.getTime() ?? 0)) {
        Object.assign(g, { hook, message: ev.message, ...(ev.lastTimestamp ? { last: ev.lastTimestamp } : {}) });
      }
      groups.set(id, g);
    }
    for (const g of groups.values()) {
      const cause = webhookFailureCause(g.message);
      const backend = webhookTargets(m, g.mesh).find((b) => b.webhooks.some((h) => h.name === g.hook));
      const hookObj = backend?.webhooks.find((h) => h.name === g.hook);
      const p = profileOf(g.mesh);
      const cpNs = backend?.namespace ?? m.mesh(g.mesh)?.namespaces[0] ?? p.controlPlane.namespace;
      const svc = backend?.name ?? p.controlPlane.injector.name;
      // The injector's Deployment as read (never a name guessed from the Service's); with the
      // webhook configurations unread, the name an install gives it.
      const dep = backend
        ? backend.injector.deployment
          ? backend.injector.name
          : undefined
        : p.controlPlane.injector.name;
      const at = dep ? { args: [['deploy/', { value: dep }]] } : injectorAt(g.mesh, undefined, backend?.service);
      const selector = injectorPodSelector(g.mesh, backend?.service);
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
          cmd`kubectl get mutatingwebhookconfiguration ${hookObj?.configName ?? p.controlPlane.webhooks.defaultConfig} -o jsonpath=${`{.webhooks[?(@.name=="${g.hook}")].clientConfig.caBundle}`} | base64 -d | openssl x509 -noout -subject -enddate`,
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
          ...reinstallCommands(m, g.mesh, cpNs, dep ?? backend?.injector.name),
        ],
        other: [logs],
      };
      const r = g.resource;
      yield {
        mesh: g.mesh,
        message: `${r.kind} ${r.namespace}/${r.name} cannot create pods: the API server failed calling webhook ${g.hook} because ${CAUSE_TEXT[cause]}${reach ? ` (TCP port ${reach.port} of the injector's pods must be reachable from the API server)` : ''}.`,
        resource: r,
        affectedPods: g.missing,
        causedBy: { kind: 'webhook-broken', mesh: g.mesh },
        evidence: {
          webhook: g.hook,
          ...(hookObj ? { failurePolicy: hookObj.failurePolicy } : {}),
          cause,
          ...(reach ? { portToOpen: reach.port, portFrom: reach.from, ...(provider ? { provider } : {}) } : {}),
          count: g.count,
          lastTimestamp: g.last ?? null,
          objects: [...g.objects].sort(),
          message: g.message,
        },
        fix: fixes[cause],
      };
    }
  },
});
