/**
 * The mesh's timeline, as the cluster's own timestamps tell it (issue 31 item 5): when its injector
 * could not admit pods (down, or not yet ready after the install) and when its trust root was last
 * regenerated (a reinstall). One fact, shared by the checks that place a pod on it: a pod created
 * inside an injector window under failurePolicy Ignore was admitted without a proxy
 * (sidecar-missing), and so was a pod created before the webhook configuration that injects it now existed (an
 * install order, a GitOps sync that applied the workloads before the mesh, an installer that deletes and re-creates
 * it); a proxy started before the current trust root cannot verify the proxies
 * started after it (proxy-predates-trust-root). Mesh-generic: the profile names the containers,
 * the identity sources and the issuer. Times are the objects' own (creationTimestamp, container
 * startedAt/finishedAt, conditions' lastTransitionTime, certificates' notBefore), never the wall
 * clock: "now" is the Model's.
 */
import { defineFactFamily } from '../k8s/fact.js';
import type { MeshName } from '../mesh/names.js';
import { profileOf } from '../mesh/registry.js';
import type { K8sObject } from '../util/types.js';
import { arr, isObj, nameOf, nsOf, time } from '../util/objects.js';
import { injectorFirstReady, injectorOutages, type InjectorOutage } from './controlplane.js';
import type { Model } from './model.js';

/** A window in which the injector could not have injected a pod created then. */
type InjectorWindow =
  | {
      kind: 'before-webhook';
      /** The MutatingWebhookConfiguration that holds the webhook calling the pods' injector now, and its creation. */
      configuration: string;
      createdAt: Date;
      /** The pods' creation times, first and last. */
      firstCreated: Date;
      lastCreated: Date;
      outages: InjectorOutage[];
    }
  | {
      kind: 'injector-down';
      outage: InjectorOutage;
      /** Every outage the injector's pods show, for evidence. */
      outages: InjectorOutage[];
    }
  | {
      kind: 'before-injector-ready';
      deployment: string;
      installedAt: Date;
      readyAt: Date;
      /** The pods' creation times, first and last. */
      firstCreated: Date;
      lastCreated: Date;
      outages: InjectorOutage[];
    };

/** The injector outage a pod was created in, if any. */
export function outageAt(outages: InjectorOutage[], pod: K8sObject): InjectorOutage | undefined {
  const created = time(pod.metadata?.creationTimestamp)?.getTime();
  if (created === undefined) return undefined;
  // creationTimestamp has one-second resolution: a pod of the outage's first second counts.
  return outages.find(
    (o) => created >= Math.floor(o.from.getTime() / 1000) * 1000 && created <= (o.to?.getTime() ?? Infinity),
  );
}

/**
 * The injector window every one of `pods` was created in: before the webhook configuration that
 * calls their injector now was created (whatever its failurePolicy: no webhook of it existed to be
 * called), an outage of the injector (all of them inside one, or each in one), else, under
 * failurePolicy Ignore, the time before the injector was first ready after its install. Undefined
 * when some pod falls outside every window, or the objects do not date it: nothing is then claimed.
 * A configuration is dated by its own creationTimestamp: one deleted and re-created (istioctl's
 * install deletes the default revision tag's before installing and re-creates it after, istio/istio
 * operator/cmd/mesh/install.go `revtag.DeleteTagWebhooks`, 1.12 to 1.2x, istio/istio#40134) is
 * dated by its last creation, when it came back.
 */
export function injectorWindow(
  m: Model,
  mesh: MeshName,
  pods: K8sObject[],
  failurePolicy: string | undefined,
  webhookConfig?: K8sObject,
): InjectorWindow | undefined {
  if (!pods.length) return undefined;
  const outages = injectorOutages(m, mesh);
  const created = pods.map((p) => time(p.metadata?.creationTimestamp)?.getTime());
  const configAt = time(webhookConfig?.metadata?.creationTimestamp);
  // creationTimestamp has one-second resolution: a pod of the configuration's own second is not claimed.
  if (
    configAt &&
    created.every((c): c is number => c !== undefined && c < Math.floor(configAt.getTime() / 1000) * 1000)
  )
    return {
      kind: 'before-webhook',
      configuration: nameOf(webhookConfig!),
      createdAt: configAt,
      firstCreated: new Date(Math.min(...created)),
      lastCreated: new Date(Math.max(...created)),
      outages,
    };
  const perPod = new Map<K8sObject, InjectorOutage>();
  for (const p of pods) {
    const o = outageAt(outages, p);
    if (o) perPod.set(p, o);
  }
  if (perPod.size === pods.length) return { kind: 'injector-down', outage: perPod.get(pods[0]!)!, outages };
  // A webhook that fails closed refuses pods while its injector is not ready: none is admitted without it.
  if (failurePolicy !== 'Ignore') return undefined;
  const first = injectorFirstReady(m, mesh);
  if (!first) return undefined;
  if (!created.every((c): c is number => c !== undefined && c < first.readyAt.getTime())) return undefined;
  return {
    kind: 'before-injector-ready',
    ...first,
    firstCreated: new Date(Math.min(...created)),
    lastCreated: new Date(Math.max(...created)),
    outages,
  };
}

/**
 * When a pod's proxy got its trust anchors: at admission, when the injector wrote them into the
 * proxy's configuration (Linkerd inlines LINKERD2_PROXY_IDENTITY_TRUST_ANCHORS into the injected
 * container; only its own control plane's pods read the ConfigMap at start: linkerd/linkerd2
 * charts/partials/templates/_proxy.tpl `loadTrustBundleFromConfigMap`, stable-2.14): the pod's
 * creationTimestamp, else its start. A container restart keeps what admission wrote.
 */
export function proxyConfiguredAt(pod: K8sObject): { at: Date; from: string } | undefined {
  const created = time(pod.metadata?.creationTimestamp);
  if (created) return { at: created, from: 'pod creationTimestamp (injection)' };
  const start = time(isObj(pod.status) ? pod.status.startTime : undefined);
  return start ? { at: start, from: 'pod status.startTime' } : undefined;
}

/** The mesh's current trust root and what shows it was regenerated (a reinstall). */
interface TrustRootRegenerated {
  /** Where the trust anchors are kept, as "ConfigMap ns/name". */
  source: { kind: 'ConfigMap' | 'Secret'; namespace: string; name: string };
  key: string;
  /** The earliest notBefore of the current anchors: a proxy started before it trusts none of them. */
  validFrom: Date;
  anchors: { label: string; notBefore: string; fingerprint256: string }[];
  /** The objects re-created with the new root: the anchors' own object, the issuer's Deployment (name: creation). */
  recreated: { object: string; createdAt: Date }[];
}

export const TRUST_ROOT = defineFactFamily({
  id: 'trust-root',
  inputs: ['configmaps', 'deployments', 'replicasets', 'secrets'],
  compute: (m: Model, mesh: MeshName): TrustRootRegenerated | undefined => {
    const identity = profileOf(mesh).identity;
    if (!identity) return undefined;
    for (const src of identity.sources(m)) {
      if (src.role !== 'trust anchor' || !src.certs.length) continue;
      const validFrom = Math.min(...src.certs.map((c) => c.notBefore.getTime()));
      const recreated: TrustRootRegenerated['recreated'] = [];
      const own = time(src.obj.metadata?.creationTimestamp);
      if (own) recreated.push({ object: `${src.ref.kind} ${src.ref.namespace}/${src.ref.name}`, createdAt: own });
      const issuer = m.list('deployments').find((d) => nsOf(d) === src.ref.namespace && nameOf(d) === identity.issuer);
      const issuerAt = time(issuer?.metadata?.creationTimestamp);
      if (issuerAt)
        recreated.push({ object: `Deployment ${src.ref.namespace}/${identity.issuer}`, createdAt: issuerAt });
      // An upgrade that replaced the anchors in place (`linkerd upgrade --identity-trust-anchors-file`,
      // linkerd/linkerd2#8664, linkerd/website#1392) keeps both objects and rolls the issuer out: its newest
      // ReplicaSet, created at or after the anchors' notBefore, is the rollout that loaded them.
      const uid = issuer?.metadata?.uid;
      const rollout = uid
        ? m
            .list('replicasets')
            .filter(
              (r) =>
                nsOf(r) === src.ref.namespace &&
                arr(r.metadata?.ownerReferences).some((o) => isObj(o) && o.uid === uid),
            )
            .map((r) => ({ r, at: time(r.metadata?.creationTimestamp) }))
            .filter((x): x is { r: K8sObject; at: Date } => !!x.at && x.at.getTime() >= validFrom)
            .sort((a, b) => b.at.getTime() - a.at.getTime())[0]
        : undefined;
      if (rollout)
        recreated.push({ object: `ReplicaSet ${src.ref.namespace}/${nameOf(rollout.r)}`, createdAt: rollout.at });
      if (!recreated.length) continue; // no creation time to corroborate a reinstall
      return {
        source: src.ref,
        key: src.key,
        validFrom: new Date(validFrom),
        anchors: src.certs.map((c) => ({
          label: c.label,
          notBefore: c.notBefore.toISOString(),
          fingerprint256: c.fingerprint256,
        })),
        recreated,
      };
    }
    return undefined;
  },
});

/**
 * When the mesh's trust root was regenerated, where its identity sources show it: every current
 * trust anchor became valid at `validFrom`, and the anchors' object or the identity issuer's
 * Deployment was created then or later (the install that generated them), or the issuer's newest
 * ReplicaSet was (an upgrade that replaced the anchors in place and rolled the issuer out). An anchor rotation that
 * keeps the old anchor in the bundle leaves an older notBefore there: then nothing is claimed.
 */
export function trustRootRegenerated(m: Model, mesh: MeshName): TrustRootRegenerated | undefined {
  return m.fact(TRUST_ROOT, mesh);
}

/** A window as evidence. */
export const outageEvidence = (o: InjectorOutage) => ({
  from: o.from.toISOString(),
  to: o.to?.toISOString() ?? null,
  ...(o.reason ? { reason: o.reason } : {}),
});
