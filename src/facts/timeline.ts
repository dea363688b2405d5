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
import type { MountedCertLoad } from '../mesh/profile.js';
import { profileOf } from '../mesh/registry.js';
import { imageTag } from '../mesh/versions.js';
import { secretCerts, type Cert } from '../k8s/x509.js';
import type { K8sObject } from '../util/types.js';
import { arr, isObj, labelsOf, nameOf, nsOf, str, time } from '../util/objects.js';
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
      kind: 'stale-cert';
      /** The injector's container that started before its Secret's current certificate, in a release that reads it only at start. */
      stale: CertLoadedBefore;
      /** The pods' creation times, first and last. */
      firstCreated: Date;
      lastCreated: Date;
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
  // Created after the injector's Secret got a certificate the injector, of a release that reads it only at start,
  // started before (gen9time): it served the older one, which the API server rejects once it expires or the
  // caBundle no longer vouches for it, and failurePolicy Ignore admits the pod without a proxy.
  const injector = profileOf(mesh).controlPlane.injector.container;
  const stale = certsLoadedBefore(m, mesh).find(
    (s) =>
      s.reads === 'at-start' &&
      s.container === injector &&
      created.every((c): c is number => c !== undefined && c >= s.leaf.notBefore.getTime()),
  );
  if (stale)
    return {
      kind: 'stale-cert',
      stale,
      firstCreated: new Date(Math.min(...(created as number[]))),
      lastCreated: new Date(Math.max(...(created as number[]))),
      outages,
    };
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

/** The keys a serving certificate is kept under in the Secrets mesh components mount (kubernetes.io/tls, Linkerd's legacy crt.pem, Istio's cert-chain.pem). */
const SERVING_CERT_KEYS = ['tls.crt', 'crt.pem', 'cert-chain.pem', 'cert.pem'] as const;
/** Bounds: control-plane pods and containers read per mesh. */
const MAX_COMPONENT_PODS = 200;

/**
 * A container of a mesh component that started before the Secret it mounts got its current certificate:
 * it read the certificate at start, so unless its release reloads the file it still serves the older one.
 */
export interface CertLoadedBefore {
  pod: K8sObject;
  namespace: string;
  podName: string;
  container: string;
  /** The container's current start (state.running.startedAt). */
  startedAt: Date;
  secret: string;
  key: string;
  /** The Secret's current certificate (its first, the leaf), issued (notBefore) after `startedAt`. */
  leaf: Cert;
  /** What the mesh's release data says of this container: reads the file at start only, reloads it, or not known. */
  reads: 'at-start' | 'reloads' | 'unknown';
  /** The container's image tag, where it placed the release. */
  version?: string;
  load?: MountedCertLoad;
}

/** The Secrets a container mounts as secret volumes, by name, in mount order (snapshots keep no other volume: src/k8s/kept.ts). */
function mountedSecrets(pod: K8sObject, container: Record<string, unknown>): string[] {
  const spec = isObj(pod.spec) ? pod.spec : {};
  const volumes = new Map(
    arr(spec.volumes)
      .filter(isObj)
      .map((v) => [str(v.name), v]),
  );
  const out: string[] = [];
  for (const mnt of arr(container.volumeMounts).filter(isObj)) {
    if (mnt.subPath !== undefined) continue; // a subPath mount is never updated by the kubelet: not this timeline
    const v = volumes.get(str(mnt.name));
    if (!v) continue;
    if (isObj(v.secret) && str(v.secret.secretName)) out.push(str(v.secret.secretName)!);
  }
  return out;
}

export const CERTS_LOADED_BEFORE = defineFactFamily({
  id: 'certs-loaded-before',
  inputs: ['pods', 'secrets'],
  compute: (m: Model, mesh: MeshName): CertLoadedBefore[] => {
    const p = profileOf(mesh);
    const out: CertLoadedBefore[] = [];
    const pods = m
      .list('pods')
      .filter((pod) => p.controlPlane.isOwnPod(labelsOf(pod), nsOf(pod)))
      .slice(0, MAX_COMPONENT_PODS);
    for (const pod of pods) {
      const ns = nsOf(pod);
      const status = isObj(pod.status) ? pod.status : {};
      const statuses = new Map(
        arr(status.containerStatuses)
          .filter(isObj)
          .map((c) => [str(c.name), c]),
      );
      for (const c of arr(isObj(pod.spec) ? pod.spec.containers : undefined).filter(isObj)) {
        const name = str(c.name);
        if (!name) continue;
        const st = statuses.get(name);
        const running = isObj(st?.state) && isObj(st!.state.running) ? st!.state.running : undefined;
        const startedAt = time(running?.startedAt);
        if (!startedAt) continue;
        for (const secretName of mountedSecrets(pod, c)) {
          const secret = m.get('secrets', ns, secretName);
          if (!secret) continue; // not read, or absent: nothing dated
          const held = SERVING_CERT_KEYS.map((key) => ({ key, certs: secretCerts(secret, key)?.certs ?? [] })).find(
            (x) => x.certs.length,
          );
          const leaf = held?.certs[0];
          // Issued after the start: the file the container read at start held another certificate.
          if (!held || !leaf || leaf.notBefore.getTime() <= startedAt.getTime()) continue;
          const load = p.controlPlane.certLoads?.find((l) => l.container === name);
          const version = imageTag(str(c.image));
          const order = load && version ? p.versions?.compare(version, load.reloadsFrom) : undefined;
          out.push({
            pod,
            namespace: ns,
            podName: nameOf(pod),
            container: name,
            startedAt,
            secret: secretName,
            key: held.key,
            leaf,
            reads: order === undefined ? 'unknown' : order < 0 ? 'at-start' : 'reloads',
            ...(version ? { version } : {}),
            ...(load ? { load } : {}),
          });
          break;
        }
      }
    }
    return out;
  },
});

/** The mesh's component containers that started before their mounted Secret's current certificate was issued. */
export const certsLoadedBefore = (m: Model, mesh: MeshName): CertLoadedBefore[] => m.fact(CERTS_LOADED_BEFORE, mesh);
