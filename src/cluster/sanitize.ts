import type { K8sObject } from '../util/types.js';
import { redactAdmissionMessage } from '../k8s/admission.js';
import { K3S_NODE_ARGS, slimK3sNodeArgs } from '../k8s/apiserver.js';
import { isObj } from '../util/objects.js';
import { POD_TEMPLATE_PATH } from '../k8s/kinds.js';

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
/** Secret keys that may hold certificates (never keys: *.key, key.pem, ca-key.pem are dropped). */
const CERT_KEY =
  /(^|[.-])(crt|cert)(\.pem)?$|^ca\.crt$|^crt\.pem$|^tls\.crt$|^ca-cert\.pem$|^root-cert\.pem$|^cert-chain\.pem$/;

/**
 * Reduce a Secret to what meshdoctor may keep: its metadata (without managedFields), its type,
 * and the public certificates found under certificate-like keys, as PEM text in
 * `certificates`. `data` and `stringData` are dropped whole, so private keys and any other
 * secret value never enter a snapshot, a report or memory beyond this function.
 */
export function sanitizeSecret(obj: K8sObject): K8sObject {
  const md = (obj.metadata ?? {}) as NonNullable<K8sObject['metadata']>;
  const certificates: Record<string, string> = {};
  // An already-sanitized Secret (from meshdoctor's own snapshot) keeps its certificates.
  if (obj.certificates && typeof obj.certificates === 'object') {
    for (const [key, value] of Object.entries(obj.certificates as Record<string, unknown>)) {
      const certs = typeof value === 'string' ? value.match(CERT_BLOCK) : null;
      if (certs) certificates[key] = certs.join('\n') + '\n';
    }
  }
  const data = obj.data;
  if (data && typeof data === 'object') {
    for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
      if (!CERT_KEY.test(key) || typeof value !== 'string') continue;
      const text = Buffer.from(value, 'base64').toString('latin1');
      const certs = text.match(CERT_BLOCK);
      if (certs) certificates[key] = certs.join('\n') + '\n';
    }
  }
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: md.name,
      namespace: md.namespace,
      uid: md.uid,
      creationTimestamp: md.creationTimestamp,
      ...(md.labels ? { labels: md.labels } : {}),
      ...(md.annotations ? { annotations: stripLastApplied(md.annotations) } : {}),
    },
    type: obj.type,
    certificates,
  };
}

/** kubectl's last-applied annotation holds the whole object as applied (a Secret's data in clear): never kept. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function stripLastApplied(a: Record<string, string>): Record<string, string> {
  if (typeof a !== 'object' || a === null) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(a)) if (k !== LAST_APPLIED) out[k] = v;
  return out;
}

/** What stands in for a value that is not kept (an env value, a word of a command line). */
export const REDACTED = '(redacted)';

type Obj = Record<string, any>;

/** Where each kind keeps the pod template its pods are made from (src/k8s/kinds.ts POD_TEMPLATE_PATH), as path segments. */
export const TEMPLATE_PATH: Partial<Record<string, readonly string[]>> = Object.fromEntries(
  Object.entries(POD_TEMPLATE_PATH).map(([k, p]) => [k, p!.split('/').filter(Boolean)]),
);

/**
 * What the meshes' checks read, that a snapshot keeps (src/mesh/keep.ts builds it from the
 * profiles): the reading layer knows no mesh, it is handed this.
 */
export interface KeepPolicy {
  /** Env variables of control planes whose boolean, quantity or `auto` values are kept. */
  env: readonly string[];
  /** The words a command or args list keeps (regular expression sources): the shutdown calls, the injector flags read. */
  words: readonly string[];
  /** The `data` keys kept of a ConfigMap read by name, and a slimmer of their text; undefined: none kept. */
  configMap(
    name: string,
  ): { keys: readonly string[]; slim?: (key: string, text: string) => string | undefined } | undefined;
  /** The injectors' own skip events kept (InjectionSkipped), by the prefix of their message. */
  skipPrefixes: readonly string[];
  /**
   * The containers the meshes inject: their termination messages keep the lines matching `lines`
   * (the failures the checks recognise, e.g. an iptables error); every other container's message goes.
   */
  statusLines: {
    containers: readonly string[];
    lines: readonly RegExp[];
    /** Or a container whose status names one of these images (a mesh's proxy image under a name no profile knows). */
    images?: readonly RegExp[];
  };
  /**
   * Further events about pods that checks read, by reason and message shape: kept only when
   * `involvedObject.fieldPath` names one of `containers` (a kubelet's BackOff or image pull failure
   * of a mesh's container), or, without `containers`, whatever they name (a mesh's own event).
   */
  podEvents: readonly { reason: string; message: RegExp; containers?: readonly string[] }[];
  /** The hostPath volumes of a pod (template) whose host directory is kept, by volume name (a CNI agent's binary directory). */
  hostPathVolumes?: readonly string[];
}

/** slim and keepObject under one keep policy. */
export interface Keeper {
  slim(key: string, obj: K8sObject): K8sObject;
  keepObject(key: string, obj: K8sObject): K8sObject | undefined;
}

/**
 * Whether slim keeps an object's metadata.managedFields: not for pods that have a controller,
 * ReplicaSets and Events (see slim). Readers may skip parsing them when not (parseObject).
 */
export function keepsManagedFields(key: string, obj: Record<string, any>): boolean {
  if (key === 'replicasets' || key === 'events') return false;
  if (key === 'nodes' || key === 'clusterroles' || key === 'clusterrolebindings') return false; // no marker lives there
  if (key !== 'pods') return true;
  const md = obj.metadata;
  const owned =
    isObj(md) &&
    Array.isArray(md.ownerReferences) &&
    md.ownerReferences.some((r) => r && typeof r === 'object' && r.controller === true);
  return !owned;
}

/** The slimmers of a keep policy (docs/snapshot.md: what a snapshot keeps). */
export function keeper(policy: KeepPolicy): Keeper {
  /** The env values the profiles read (their control planes' switches), kept only as the booleans (or "auto") they are. */
  const KEEP_ENV = new Set(policy.env);
  const KEEP_HOST_PATHS = new Set(policy.hostPathVolumes ?? []);
  /**
   * What job-never-completes looks for in a command line (its SHUTDOWN patterns, joined over
   * command and args): these words are all a command or arg keeps, with its line breaks (which
   * end the patterns' `.*`); a word without any becomes REDACTED. Any rule keeping more words
   * (argv[0], flag names, values after `=`) still keeps positional secrets: `--password s3cr3t`,
   * `sh -c "mysql -ps3cr3t"`.
   */
  const SHUTDOWN_WORDS = new RegExp([...policy.words, '[\\n\\r\\u2028\\u2029]'].join('|'), 'g');
  const MAY_HOLD_WORDS = new RegExp(SHUTDOWN_WORDS.source);

  /** ConfigMaps the checks read, by name: the `data` keys each keeps (each profile's configMapKey), and its slimmer. */
  function configMapKeys(name: unknown): {
    keys: readonly string[];
    slim?: (key: string, text: string) => string | undefined;
  } {
    return (typeof name === 'string' && policy.configMap(name)) || { keys: [] };
  }

  /**
   * A list with each object entry slimmed, in place; the other entries go (readers skip them:
   * arr().filter(isObj)); not a list: undefined (readers see none).
   */
  function eachObject(list: unknown, f: (o: Obj) => Obj): Obj[] | undefined {
    if (!Array.isArray(list)) return undefined;
    let all = true;
    for (let i = 0; i < list.length; i++) {
      if (isObj(list[i])) list[i] = f(list[i]);
      else all = false;
    }
    return all ? list : list.filter(isObj);
  }

  function slimMetadata(md: unknown): void {
    if (isObj(md) && isObj(md.annotations) && md.annotations[LAST_APPLIED] !== undefined)
      delete md.annotations[LAST_APPLIED];
  }

  /** A command or args list: each word reduced to the shutdown words it holds (see SHUTDOWN_WORDS). */
  function slimArgv(list: unknown[]): void {
    for (let i = 0; i < list.length; i++) {
      const w = list[i];
      if (w === null || w === undefined) continue; // the check skips them (arr)
      let text: string;
      try {
        text = typeof w === 'string' ? w : String(w); // as the check's join() converts it
      } catch {
        // An object join() cannot convert either ({"toString": "x"}): the check fails on it, as on this.
        list[i] = { toString: REDACTED };
        continue;
      }
      const words = MAY_HOLD_WORDS.test(text) ? text.match(SHUTDOWN_WORDS) : null;
      list[i] = words ? words.map((x) => (x.length === 1 ? '\n' : x)).join(' ') : REDACTED;
    }
  }

  /**
   * Of a container's (or, `container` false, a pod's) securityContext, the fields Pod Security
   * `restricted` and OpenShift's SCCs judge (pod-security-blocks-init, pod-security-rejects-proxy):
   * user, non-root, privilege escalation, privileged, capabilities and the seccomp profile's type.
   * Booleans, numbers and capability names: never a secret. SELinux options, AppArmor, sysctls, ... go.
   */
  function slimSecurityContext(sc: unknown, container: boolean): Obj | undefined {
    if (!isObj(sc)) return undefined;
    const out: Obj = {};
    if (typeof sc.runAsUser === 'number') out.runAsUser = sc.runAsUser;
    const flags = container
      ? (['runAsNonRoot', 'allowPrivilegeEscalation', 'privileged'] as const)
      : (['runAsNonRoot'] as const);
    for (const k of flags) if (typeof sc[k] === 'boolean') out[k] = sc[k];
    if (container && isObj(sc.capabilities)) {
      const names = (v: unknown) =>
        Array.isArray(v) ? v.filter((x) => typeof x === 'string' && /^[A-Za-z_]{1,64}$/.test(x)) : undefined;
      const add = names(sc.capabilities.add);
      const drop = names(sc.capabilities.drop);
      if (add || drop) out.capabilities = { ...(add ? { add } : {}), ...(drop ? { drop } : {}) };
    }
    if (
      isObj(sc.seccompProfile) &&
      typeof sc.seccompProfile.type === 'string' &&
      /^[A-Za-z]{1,32}$/.test(sc.seccompProfile.type)
    )
      out.seccompProfile = { type: sc.seccompProfile.type };
    return Object.keys(out).length ? out : undefined;
  }

  /** A value a kept env variable keeps: a boolean, or a resource quantity ("50m", "512Mi"): never a secret. */
  // "auto": Istio's ENABLE_NATIVE_SIDECARS default from 1.27 (pilot/pkg/features/pilot.go @86c9f01f).
  const KEPT_VALUE = /^(true|false|auto|[0-9]+(\.[0-9]+)?([mkMGT]i?|[mkMGTPE])?)$/;
  /** Or an image reference (registry/repository:tag[@digest]): the proxy image a control plane injects (Kuma's), never a secret. */
  const KEPT_IMAGE = /^[a-z0-9][a-z0-9._/-]{0,250}(:[\w][\w.-]{0,127})?(@sha256:[a-f0-9]{64})?$/;

  /** An env entry: its name; its value redacted but for the profiles' keptEnv switches and quantities (valueFrom: no check reads it). */
  function slimEnv(e: Obj): Obj {
    const keep =
      KEEP_ENV.has(e.name) && typeof e.value === 'string' && (KEPT_VALUE.test(e.value) || KEPT_IMAGE.test(e.value));
    return { name: e.name, value: keep || e.value === undefined ? e.value : REDACTED };
  }

  /** Where the ServiceAccount admission plugin mounts the token (Consul's findServiceAccountVolumeMount looks there). */
  const SA_TOKEN_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

  /**
   * A container: the fields the checks read, as a new object (dropping by `delete` costs more).
   * name, image and restartPolicy (is it a proxy, a native sidecar), resources (quotas, OOM
   * evidence), ports (a webhook's named targetPort), env (istiod's ENABLE_NATIVE_SIDECARS), command
   * and args (job-never-completes), securityContext's user, privilege and seccomp fields (Kuma's sidecar UID rule, Pod
   * Security, SCCs), a volumeMount at the token path (Consul's ACL rule) or of a Secret volume (Kuma's serving
   * certificate). Probes, lifecycle hooks, envFrom, other volumeMounts, workingDir, ...
   * are dropped. A check that starts reading another field adds it here.
   */
  function slimContainer(c: Obj, secretVolumes: ReadonlySet<string> = new Set()): Obj {
    if (Array.isArray(c.command)) slimArgv(c.command);
    if (Array.isArray(c.args)) slimArgv(c.args);
    return {
      name: c.name,
      image: c.image,
      restartPolicy: c.restartPolicy,
      resources: c.resources,
      ports: c.ports,
      env: eachObject(c.env, slimEnv),
      command: Array.isArray(c.command) ? c.command : undefined, // not a list: the check reads none of it
      args: Array.isArray(c.args) ? c.args : undefined,
      // Kuma's injector rejects an app container running as its sidecar's UID; Pod Security and SCCs judge the rest.
      securityContext: slimSecurityContext(c.securityContext, true),
      // Consul's injector with ACLs looks for a mount at the ServiceAccount token path: only that mount's path is kept.
      // A mount of a Secret volume keeps its name, path and subPath: where a control plane reads its serving
      // certificate (Kuma's webhook Secret, named by its Deployment).
      volumeMounts: Array.isArray(c.volumeMounts)
        ? c.volumeMounts
            .filter((v) => isObj(v) && (v.mountPath === SA_TOKEN_PATH || secretVolumes.has(v.name)))
            .map((v: Obj) =>
              secretVolumes.has(v.name)
                ? {
                    name: v.name,
                    mountPath: v.mountPath,
                    ...(typeof v.subPath === 'string' ? { subPath: v.subPath } : {}),
                  }
                : { mountPath: SA_TOKEN_PATH },
            )
        : undefined,
    };
  }

  /**
   * A pod or pod template: the metadata without last-applied; of the spec, the fields the checks
   * read (mesh/pods.ts, linkerd.ts, istio.ts, serviceaccount-missing; the pod's securityContext for
   * Pod Security; the Secret volumes' names, for the Secret a control plane mounts), as a new object:
   * other volumes, ephemeralContainers, affinity, ... are dropped. A check that starts reading another field adds
   * it here; test/snapshot-redaction.test.ts proves the checks see no difference on every fixture.
   */
  function slimPod(pod: unknown): void {
    if (!isObj(pod)) return;
    slimMetadata(pod.metadata);
    const spec = pod.spec;
    if (!isObj(spec)) return;
    // Secret volumes keep their name and the Secret's name only (never an item or a mode): which Secret a mount is.
    const volumes: Obj[] = Array.isArray(spec.volumes)
      ? spec.volumes
          .filter(
            (v): v is Obj =>
              isObj(v) && typeof v.name === 'string' && isObj(v.secret) && typeof v.secret.secretName === 'string',
          )
          .map((v) => ({ name: v.name, secret: { secretName: v.secret.secretName } }))
      : [];
    const secretVolumes = new Set(volumes.map((v) => v.name as string));
    // A kept hostPath volume keeps its name and host directory only (where a CNI agent installs its plugin).
    if (Array.isArray(spec.volumes) && KEEP_HOST_PATHS.size)
      for (const v of spec.volumes.slice(0, 64))
        if (
          isObj(v) &&
          KEEP_HOST_PATHS.has(v.name) &&
          isObj(v.hostPath) &&
          typeof v.hostPath.path === 'string' &&
          /^\/[\w./-]{0,250}$/.test(v.hostPath.path)
        )
          volumes.push({ name: v.name, hostPath: { path: v.hostPath.path } });
    pod.spec = {
      containers: eachObject(spec.containers, (c) => slimContainer(c, secretVolumes)),
      initContainers: eachObject(spec.initContainers, (c) => slimContainer(c, secretVolumes)),
      volumes: volumes.length ? volumes : undefined,
      hostNetwork: spec.hostNetwork,
      // node-agent-incomplete: where a DaemonSet's pods may run (a node's taints, labels) and its priority class.
      nodeSelector: isObj(spec.nodeSelector) ? spec.nodeSelector : undefined,
      tolerations: Array.isArray(spec.tolerations) ? spec.tolerations : undefined,
      affinity:
        isObj(spec.affinity) && isObj(spec.affinity.nodeAffinity)
          ? {
              nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution:
                  spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution,
              },
            }
          : undefined,
      priorityClassName: spec.priorityClassName,
      nodeName: spec.nodeName, // sidecarless-not-enrolled: the node proxy on the pod's node
      serviceAccountName: spec.serviceAccountName,
      serviceAccount: spec.serviceAccount,
      automountServiceAccountToken: spec.automountServiceAccountToken,
      // proxy-cannot-start: which pull Secrets a pod names (their names only, bounded), for an image the registry refuses.
      imagePullSecrets: Array.isArray(spec.imagePullSecrets)
        ? spec.imagePullSecrets
            .slice(0, 20)
            .filter((x: unknown) => isObj(x) && typeof x.name === 'string')
            .map((x: Record<string, any>) => ({ name: String(x.name).slice(0, 253) }))
        : undefined,
      securityContext: slimSecurityContext(spec.securityContext, false),
    };
  }

  const STATUS_CONTAINERS = new Set(policy.statusLines.containers);
  const STATUS_IMAGES = policy.statusLines.images ?? [];
  const STATUS_LINES = policy.statusLines.lines;
  /** A termination message's lines a check recognises (each cut to 512 characters, at most 8), or nothing. */
  function keptLines(message: unknown): string | undefined {
    if (typeof message !== 'string') return undefined;
    const lines = message
      .slice(-65536)
      .split(/\r?\n/)
      .filter((l) => STATUS_LINES.some((re) => re.test(l)))
      .slice(-8)
      .map((l) => l.slice(0, 512));
    return lines.length ? lines.join('\n') : undefined;
  }

  /**
   * The waiting reasons whose message the kubelet writes itself (it cannot create or start the
   * container: kubernetes pkg/kubelet/kuberuntime) or quotes from the runtime when it cannot pull the
   * image (pkg/kubelet/images: the registry's refusal, an untrusted certificate, a timeout), kept,
   * cut, for the containers the meshes inject: proxy-cannot-start reads the non-root refusals and
   * why a pull failed, and quotes the others.
   */
  const KEPT_WAITING = new Set([
    'CreateContainerConfigError',
    'CreateContainerError',
    'RunContainerError',
    'ErrImagePull',
    'ImagePullBackOff',
    'ErrImageNeverPull',
    'InvalidImageName',
  ]);

  /**
   * A pod's container statuses keep no waiting message and no termination message (a crashed app's
   * last log lines), but for the containers the meshes inject, whose termination message keeps
   * the lines of the failures the checks recognise, and whose waiting message keeps the kubelet's
   * own words when it cannot create the container (KEPT_WAITING, 512 characters).
   */
  function slimStatuses(status: unknown): void {
    if (!isObj(status)) return;
    for (const f of ['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses']) {
      const list = status[f];
      if (!Array.isArray(list)) continue;
      for (const cs of list) {
        if (!isObj(cs)) continue;
        const mesh =
          f !== 'ephemeralContainerStatuses' &&
          (STATUS_CONTAINERS.has(cs.name) ||
            (typeof cs.image === 'string' && cs.image.length < 512 && STATUS_IMAGES.some((re) => re.test(cs.image))));
        for (const s of [cs.state, cs.lastState]) {
          if (!isObj(s)) continue;
          for (const k in s) {
            if (!isObj(s[k]) || s[k].message === undefined) continue;
            const kept =
              mesh && k === 'terminated'
                ? keptLines(s[k].message)
                : mesh && k === 'waiting' && KEPT_WAITING.has(s[k].reason) && typeof s[k].message === 'string'
                  ? s[k].message.slice(0, 512)
                  : undefined;
            if (kept === undefined) delete s[k].message;
            else s[k].message = kept;
          }
        }
      }
    }
  }

  /** The reasons of the Events a check reads: FailedCreate on controllers, the injectors' own skip notices, and the pod events of the policy. */
  const POD_EVENTS = policy.podEvents;
  const EVENT_REASONS = new Set([
    'FailedCreate',
    ...(policy.skipPrefixes.length ? ['InjectionSkipped'] : []),
    ...POD_EVENTS.map((e) => e.reason),
  ]);
  const SKIP_PREFIXES = policy.skipPrefixes;

  /** The container an event's fieldPath names (`spec.initContainers{istio-init}`), if any. */
  const fieldContainer = (fieldPath: unknown) =>
    typeof fieldPath === 'string'
      ? /^spec\.(?:initContainers|containers)\{([^{}]{1,253})\}$/.exec(fieldPath)?.[1]
      : undefined;

  /** A pod event of the policy: its reason, its message's shape, and the container it names. */
  const podEventRead = (reason: unknown, message: string, fieldPath: unknown) =>
    POD_EVENTS.some(
      (p) =>
        p.reason === reason &&
        p.message.test(message) &&
        (!p.containers || p.containers.includes(fieldContainer(fieldPath) ?? '')),
    );

  /**
   * An event's message, kept only in the shapes a check parses (and quotes whole in its evidence).
   * Every pod-creation failure (FailedCreate) is kept, whatever its wording, for the checks parse
   * the API server's error by its structure (src/k8s/admission.ts): bounded to 4000 characters,
   * the values it quotes of fields that may hold secrets (env, args, annotations, ...) redacted.
   */
  function eventMessage(reason: unknown, message: unknown, fieldPath: unknown): unknown {
    if (typeof message !== 'string') return undefined; // eventInfo reads strings only
    if (reason === 'FailedCreate') return redactAdmissionMessage(message, REDACTED);
    const read =
      reason === 'InjectionSkipped'
        ? SKIP_PREFIXES.some((p) => message.startsWith(p))
        : podEventRead(reason, message, fieldPath);
    // Bounded as FailedCreate is (a CNI plugin's diagnostic output can run long).
    return read ? message.slice(0, 4000) : REDACTED;
  }

  /** An event kept: FailedCreate and skip notices by reason; the pod events only in the policy's shapes, about the containers it names. */
  function eventKept(e: K8sObject): boolean {
    if (!EVENT_REASONS.has(e.reason as string)) return false;
    if (e.reason === 'FailedCreate' || e.reason === 'InjectionSkipped') return true;
    const io = isObj(e.involvedObject) ? e.involvedObject : {};
    return typeof e.message === 'string' && podEventRead(e.reason, e.message, io.fieldPath);
  }

  /** A time an event carries, when it is one (eventInfo reads the first valid one): else nothing. */
  const eventTime = (v: unknown) => (typeof v === 'string' && !Number.isNaN(new Date(v).getTime()) ? v : undefined);

  /**
   * An Event reduced to what eventInfo reads: its name and namespace, reason, message (see
   * eventMessage), involved object (kind, namespace, name; the fieldPath when it names a container),
   * count, series and times. The event's
   * source, notes, related object, labels and annotations are not kept. An event whose reason no
   * check reads (a kubelet's FailedPostStartHook quotes the hook's command line) keeps its metadata
   * only, and `keepObject` drops it.
   */
  function slimEvent(e: K8sObject): K8sObject {
    const md = isObj(e.metadata) ? e.metadata : {};
    const metadata = {
      name: md.name,
      namespace: md.namespace,
      uid: md.uid,
      creationTimestamp: eventTime(md.creationTimestamp),
    };
    if (!eventKept(e)) return { apiVersion: e.apiVersion, kind: e.kind, metadata };
    const io = isObj(e.involvedObject) ? e.involvedObject : undefined;
    const series = isObj(e.series) ? e.series : undefined;
    const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
    const container = io ? fieldContainer(io.fieldPath) : undefined;
    return {
      apiVersion: e.apiVersion,
      kind: e.kind,
      metadata,
      reason: e.reason,
      message: eventMessage(e.reason, e.message, io?.fieldPath),
      ...(io
        ? {
            involvedObject: {
              kind: io.kind,
              namespace: io.namespace,
              name: io.name,
              ...(container ? { fieldPath: io.fieldPath } : {}),
            },
          }
        : {}),
      count: num(e.count),
      ...(series ? { series: { count: num(series.count), lastObservedTime: eventTime(series.lastObservedTime) } } : {}),
      lastTimestamp: eventTime(e.lastTimestamp),
      eventTime: eventTime(e.eventTime),
      firstTimestamp: eventTime(e.firstTimestamp),
    };
  }

  /**
   * A Node: its name, labels (the managed provider's node pool labels) and providerID, of its
   * annotations only k3s's node-args reduced to the API server's admission flags, and of its status
   * only the kubelet version it reports (status.nodeInfo.kubeletVersion), which the version checks
   * compare, and its OS image, kernel and container runtime (osImage, kernelVersion,
   * containerRuntimeVersion: proxy-cannot-start names them where the node's iptables decide); its
   * taints, unschedulable and Ready condition (node-agent-incomplete). The rest of its status (every
   * image it pulled: the bulk of a large cluster's nodes, addresses, other conditions, capacity) and
   * every other annotation are not kept.
   */
  const NODE_INFO = ['kubeletVersion', 'osImage', 'kernelVersion', 'containerRuntimeVersion'] as const;
  function slimNode(n: K8sObject): K8sObject {
    const md = isObj(n.metadata) ? n.metadata : {};
    const args = isObj(md.annotations) ? md.annotations[K3S_NODE_ARGS] : undefined;
    const spec = isObj(n.spec) ? n.spec : {};
    const info = isObj(n.status) && isObj(n.status.nodeInfo) ? n.status.nodeInfo : undefined;
    return {
      apiVersion: n.apiVersion,
      kind: n.kind,
      metadata: {
        name: md.name,
        uid: md.uid,
        creationTimestamp: md.creationTimestamp,
        ...(isObj(md.labels) ? { labels: md.labels } : {}),
        ...(typeof args === 'string' ? { annotations: { [K3S_NODE_ARGS]: slimK3sNodeArgs(args) } } : {}),
      },
      ...(typeof spec.providerID === 'string' || Array.isArray(spec.taints) || spec.unschedulable === true
        ? {
            spec: {
              ...(typeof spec.providerID === 'string' ? { providerID: spec.providerID } : {}),
              // node-agent-incomplete: taints a node agent must tolerate (key, value, effect only).
              ...(Array.isArray(spec.taints)
                ? {
                    taints: spec.taints
                      .filter(isObj)
                      .slice(0, 64)
                      .map((t) => ({ key: t.key, value: t.value, effect: t.effect })),
                  }
                : {}),
              ...(spec.unschedulable === true ? { unschedulable: true } : {}),
            },
          }
        : {}),
      ...(n.status === undefined
        ? {}
        : {
            status: {
              ...(info && NODE_INFO.some((k) => typeof info[k] === 'string')
                ? {
                    nodeInfo: Object.fromEntries(
                      NODE_INFO.filter((k) => typeof info[k] === 'string').map((k) => [k, info[k].slice(0, 256)]),
                    ),
                  }
                : {}),
              // node-agent-incomplete: whether the node is Ready (its other conditions are not kept).
              ...(isObj(n.status) && Array.isArray(n.status.conditions)
                ? {
                    conditions: (n.status.conditions as unknown[])
                      .filter((c): c is Obj => isObj(c) && c.type === 'Ready')
                      .map((c) => ({ type: c.type, status: c.status })),
                  }
                : {}),
            },
          }),
    };
  }

  /**
   * A NetworkAttachmentDefinition: its name, namespace, uid and creation time only. Its spec.config
   * (a CNI configuration that may name hosts, keys or credentials) is not kept: pod-sandbox-cni-failed
   * only asks whether the attachment a pod names exists.
   */
  function slimAttachment(o: K8sObject): K8sObject {
    const md = isObj(o.metadata) ? o.metadata : {};
    return {
      apiVersion: o.apiVersion,
      kind: o.kind,
      metadata: {
        name: md.name,
        namespace: md.namespace,
        uid: md.uid,
        creationTimestamp: md.creationTimestamp,
      },
    };
  }

  /**
   * What a snapshot keeps of an object read from a list or a file: `slim`'s reduction, or nothing
   * for an Event no check reads (docs/snapshot.md).
   */
  function keepObject(key: string, obj: K8sObject): K8sObject | undefined {
    if (key === 'events' && !eventKept(obj)) return undefined;
    return slim(key, obj);
  }

  /**
   * Keep what the checks read, drop what they do not and what may hold secrets (docs/snapshot.md).
   * Applied in place as objects are read (live and from files), so `snapshot` saves what `check`
   * reads and the dropped fields never all live at once:
   * - every kind: the last-applied-configuration annotation;
   * - pods, and the pod templates of workloads (a CronJob's in its jobTemplate): the pod spec and
   *   container fields the checks read (slimPod, slimContainer), env values redacted but for
   *   ENABLE_NATIVE_SIDECARS, command and args reduced to the shutdown words; container status
   *   messages;
   * - ConfigMaps: `data` but for the keys read of the ConfigMaps read by name (of Istio's injector
   *   `config`, only the policy and selectors); `binaryData`;
   * - `metadata.managedFields` of pods that have a controller and of ReplicaSets (the weight on
   *   large clusters): managedFields only date injection markers, which live on namespaces,
   *   workload controllers and bare pods; those keep theirs;
   * - Events: all but the fields eventInfo reads, messages but in the shapes the checks parse
   *   (slimEvent); `keepObject` drops the events no check reads;
   * - Nodes: name, labels, providerID, k3s's admission flags, the kubelet version, OS image, kernel and container runtime only (slimNode).
   * - NetworkAttachmentDefinitions: name, namespace, uid and creation time only (slimAttachment).
   * Secrets go through sanitizeSecret instead.
   */
  function slim(key: string, obj: K8sObject): K8sObject {
    if (key === 'events') return slimEvent(obj);
    if (key === 'nodes') return slimNode(obj);
    // Multus attachments: only which exist (their spec.config may name hosts and credentials).
    if (key === 'network-attachment-definitions') return slimAttachment(obj);
    const md = obj.metadata;
    if (isObj(md)) {
      slimMetadata(md);
      if (md.managedFields !== undefined && !keepsManagedFields(key, obj)) delete md.managedFields;
    }
    if (key === 'pods') {
      slimPod(obj);
      slimStatuses(obj.status);
    } else if (key === 'configmaps') {
      const keep = configMapKeys(md?.name);
      if (isObj(obj.data)) {
        for (const k in obj.data) {
          if (!keep.keys.includes(k) || typeof obj.data[k] !== 'string') delete obj.data[k];
          else if (keep.slim) {
            const v = keep.slim(k, obj.data[k]);
            if (v === undefined) delete obj.data[k];
            else obj.data[k] = v;
          }
        }
      } else if (obj.data !== undefined) delete obj.data;
      if (obj.binaryData !== undefined) delete obj.binaryData;
    } else {
      const path = TEMPLATE_PATH[key];
      if (path) {
        let at: unknown = obj;
        for (const p of path) at = isObj(at) ? at[p] : undefined;
        slimPod(at);
        if (key === 'cronjobs' && isObj(obj.spec) && isObj(obj.spec.jobTemplate))
          slimMetadata(obj.spec.jobTemplate.metadata);
      }
    }
    return obj;
  }
  return { slim, keepObject };
}
