/**
 * What a snapshot keeps (docs/snapshot.md): the declaration of the fields the checks read
 * (src/k8s/kept.ts KEEP, one per kind), compiled once per keep policy into reducers applied as
 * objects are read, live and from files. This file holds no per-kind code: it implements the
 * declaration's node types and its named rules (RULES: the redactions), the latter under the
 * policy the meshes hand it (src/mesh/keep.ts); it knows no mesh.
 */
import type { K8sObject } from '../util/types.js';
import { redactAdmissionMessage } from '../k8s/admission.js';
import { slimK3sNodeArgs } from '../k8s/apiserver.js';
import { isObj } from '../util/objects.js';
import { POD_TEMPLATE_PATH } from '../k8s/kinds.js';
import { KEEP, type Keep, type KeepFields, type KindKeep, type RuleName } from '../k8s/kept.js';
import { networkFailure } from '../k8s/network-error.js';

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
/** Secret keys that may hold certificates (never keys: *.key, key.pem, ca-key.pem are dropped). */
const CERT_KEY =
  /(^|[.-])(crt|cert)(\.pem)?$|^ca\.crt$|^crt\.pem$|^tls\.crt$|^ca-cert\.pem$|^root-cert\.pem$|^cert-chain\.pem$/;

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
  statusLines: { containers: readonly string[]; lines: readonly RegExp[] };
  /**
   * Whether a pod's labels are those of a mesh's control-plane component (the profiles' component tables): its
   * containers' waiting messages, the kubelet's words when it cannot create, start or pull them, are kept cut
   * (control-plane-down and injector-unavailable quote why it does not run); their termination messages are not.
   */
  componentPod(labels: Readonly<Record<string, unknown>>): boolean;
  /**
   * Further events about pods that checks read, by reason and message shape: kept only when
   * `involvedObject.fieldPath` names one of `containers` (a kubelet's BackOff or image pull failure
   * of a mesh's container), or, without `containers`, whatever they name (a mesh's own event).
   */
  podEvents: readonly { reason: string; message: RegExp; containers?: readonly string[] }[];
  /**
   * Warning events kept whole (type Warning, whatever they are about), by reason: the kubelet's volume warnings and the
   * meshes' own controllers' warnings (src/k8s/warnings.ts), quoted where a mesh pod is unhappy.
   */
  warnings?: readonly string[];
  /** The hostPath volumes of a pod (template) whose host directory is kept, by volume name (a CNI agent's binary directory). */
  hostPathVolumes?: readonly string[];
}

/** slim and keepObject under one keep policy. */
export interface Keeper {
  slim(key: string, obj: K8sObject): K8sObject;
  keepObject(key: string, obj: K8sObject): K8sObject | undefined;
}

/**
 * Whether slim keeps an object's metadata.managedFields (KEEP's `managedFields`): not for pods
 * that have a controller, ReplicaSets, Events, Nodes, ... Readers may skip parsing them when not
 * (parseObject).
 */
export function keepsManagedFields(key: string, obj: Record<string, any>): boolean {
  const kept = (KEEP as Partial<Record<string, KindKeep>>)[key]?.managedFields ?? 'kept';
  if (kept !== 'unless-controlled') return kept === 'kept';
  const md = obj.metadata;
  const owned =
    isObj(md) &&
    Array.isArray(md.ownerReferences) &&
    md.ownerReferences.some((r) => r && typeof r === 'object' && r.controller === true);
  return !owned;
}

/** What a reducer sees beside its value: the object being slimmed, and the pod spec it is in. */
interface Ctx {
  root: Obj;
  podSpec: Obj | undefined;
  /** The names of podSpec's Secret volumes (computed once per pod spec). */
  secretVolumesOf: Obj | undefined;
  secretVolumes: ReadonlySet<string>;
}

/** A compiled declaration: the value kept (the same object, reduced in place, or a new one), undefined for none. */
type Reducer = (value: any, parent: any, ctx: Ctx) => unknown;

const keepAll: Reducer = (v) => v;
const dropAll: Reducer = () => undefined;

/** Compile a declaration (src/k8s/kept.ts) into a reducer, the named rules bound to `rules`. */
function compile(k: Keep, rules: Readonly<Record<RuleName, Reducer>>): Reducer {
  if (typeof k === 'string') {
    switch (k) {
      case 'all':
        return keepAll;
      case 'none':
        return dropAll;
      // One function per type, each comparing with a literal (applied to every pod's containers).
      case 'string':
        return (v) => (typeof v === 'string' ? v : undefined);
      case 'number':
        return (v) => (typeof v === 'number' ? v : undefined);
      case 'boolean':
        return (v) => (typeof v === 'boolean' ? v : undefined);
      case 'object':
        return (v) => (isObj(v) ? v : undefined);
      case 'array':
        return (v) => (Array.isArray(v) ? v : undefined);
      case 'true':
        return (v) => (v === true ? true : undefined);
    }
  }
  if ('rule' in k) return rules[k.rule];
  if ('string' in k) {
    const n = k.string;
    return (v) => (typeof v === 'string' ? (v.length > n ? v.slice(0, n) : v) : undefined);
  }
  if ('match' in k) {
    const re = new RegExp(k.match.source, k.match.flags.replace(/[gy]/g, ''));
    return (v) => (typeof v === 'string' && re.test(v) ? v : undefined);
  }
  if ('is' in k) {
    const c = k.is;
    return () => c;
  }
  if ('each' in k) {
    const each = compile(k.each, rules);
    const max = k.max ?? Infinity;
    const where = k.where ? Object.entries(k.where) : undefined;
    const omitEmpty = !!k.omitEmpty;
    // In place: the entries kept move up, the list is cut to them.
    return (v, _p, ctx) => {
      if (!Array.isArray(v)) return undefined;
      let n = 0;
      for (let i = 0; i < v.length && n < max; i++) {
        const e = v[i];
        if (where && !(isObj(e) && where.every(([f, x]) => (Array.isArray(x) ? x.includes(e[f]) : e[f] === x))))
          continue;
        const r = each(e, v, ctx);
        if (r !== undefined) v[n++] = r;
      }
      if (n !== v.length) v.length = n;
      return omitEmpty && n === 0 ? undefined : v;
    };
  }
  return compileObject(k, rules);
}

/**
 * An object node, compiled to a function of its own whose field names are literals (as the
 * hand-written slimmers were: one shape per node, no lookup by a computed name on the hot path
 * of a 20k-pod read): in place (`rest`) or as a new object of its declared fields. The names come
 * from the declaration (src/k8s/kept.ts), never from the cluster; JSON.stringify quotes them.
 */
function compileObject(k: KeepFields, rules: Readonly<Record<RuleName, Reducer>>): Reducer {
  const rest = !!k.rest;
  const entries = Object.entries(k.fields).filter(([, f]) => !(rest && f === 'all'));
  const fns = entries.map(([, f]) => compile(f, rules));
  const src: string[] = ['if (!isObj(v)) return undefined;', 'let x, r;'];
  if (k.scope === 'podSpec') src.push('ctx.podSpec = v;');
  if (rest) {
    entries.forEach(([name], i) => {
      const at = `v[${JSON.stringify(name)}]`;
      src.push(
        `x = ${at};`,
        `if (x !== undefined) { r = f[${i}](x, v, ctx); if (r === undefined) delete ${at}; else if (r !== x) ${at} = r; }`,
      );
    });
    for (const d of k.drop ?? [])
      src.push(`if (v[${JSON.stringify(d)}] !== undefined) delete v[${JSON.stringify(d)}];`);
    src.push('return v;');
  } else {
    src.push('const out = {};', 'let any = false;');
    entries.forEach(([name, decl], i) => {
      const at = JSON.stringify(name);
      src.push(
        decl === 'all' ? `r = v[${at}];` : `r = f[${i}](v[${at}], v, ctx);`,
        `if (r !== undefined) { out[${at}] = r; any = true; }`,
      );
    });
    for (const q of k.required ?? []) src.push(`if (out[${JSON.stringify(q)}] === undefined) return undefined;`);
    src.push(k.omitEmpty ? 'return any ? out : undefined;' : 'return out;');
  }
  // Generated from the declaration only (see above): no text from the cluster enters it.
  const make = new Function('isObj', 'f', `return function keep(v, _p, ctx) {\n${src.join('\n')}\n};`) as (
    isObj: (v: unknown) => boolean,
    f: readonly Reducer[],
  ) => Reducer;
  return make(isObj, fns);
}

/** The PEM certificates of a Secret: those it already holds (meshdoctor's own snapshot), then those under certificate-like keys of its data. */
const certificatesOf: Reducer = (value, secret) => {
  const certificates: Record<string, string> = {};
  if (isObj(value)) {
    for (const [key, v] of Object.entries(value)) {
      const certs = typeof v === 'string' ? v.match(CERT_BLOCK) : null;
      if (certs) certificates[key] = certs.join('\n') + '\n';
    }
  }
  const data = isObj(secret) ? secret.data : undefined;
  if (isObj(data)) {
    for (const [key, v] of Object.entries(data)) {
      if (!CERT_KEY.test(key) || typeof v !== 'string') continue;
      const text = Buffer.from(v, 'base64').toString('latin1');
      const certs = text.match(CERT_BLOCK);
      if (certs) certificates[key] = certs.join('\n') + '\n';
    }
  }
  return certificates;
};

/** The rules that need no policy. */
const STATIC_RULES = {
  certificates: certificatesOf,
  time: (v) => (typeof v === 'string' && !Number.isNaN(new Date(v).getTime()) ? v : undefined),
  k3sArgs: (v) => (typeof v === 'string' ? slimK3sNodeArgs(v) : undefined),
} satisfies Partial<Record<RuleName, Reducer>>;

const secretReducer = compile(KEEP.secrets.keep, STATIC_RULES as unknown as Record<RuleName, Reducer>);

/**
 * Reduce a Secret to what meshdoctor may keep (KEEP.secrets): its metadata (without managedFields
 * and last-applied), its type, and the public certificates found under certificate-like keys, as
 * PEM text in `certificates`. `data` and `stringData` are dropped whole, so private keys and any
 * other secret value never enter a snapshot, a report or memory beyond this function.
 */
export function sanitizeSecret(obj: K8sObject): K8sObject {
  const ctx: Ctx = { root: obj, podSpec: undefined, secretVolumesOf: undefined, secretVolumes: new Set() };
  return (secretReducer(obj, undefined, ctx) ?? { apiVersion: 'v1', kind: 'Secret', certificates: {} }) as K8sObject;
}

/** The slimmers of a keep policy (docs/snapshot.md: what a snapshot keeps). */
export function keeper(policy: KeepPolicy): Keeper {
  /** The env values the profiles read (their control planes' switches), kept only as the booleans (or "auto") they are. */
  const KEEP_ENV = new Set(policy.env);
  /**
   * What job-never-completes looks for in a command line (its SHUTDOWN patterns, joined over
   * command and args): these words are all a command or arg keeps, with its line breaks (which
   * end the patterns' `.*`); a word without any becomes REDACTED. Any rule keeping more words
   * (argv[0], flag names, values after `=`) still keeps positional secrets: `--password s3cr3t`,
   * `sh -c "mysql -ps3cr3t"`.
   */
  const SHUTDOWN_WORDS = new RegExp([...policy.words, '[\\n\\r\\u2028\\u2029]'].join('|'), 'g');
  const MAY_HOLD_WORDS = new RegExp(SHUTDOWN_WORDS.source);

  /** A command or args list: each word reduced to the shutdown words it holds (see SHUTDOWN_WORDS). */
  const argv: Reducer = (list) => {
    if (!Array.isArray(list)) return undefined; // not a list: the check reads none of it
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
    return list;
  };

  /** A value a kept env variable keeps: a boolean, or a resource quantity ("50m", "512Mi"): never a secret. */
  // "auto": Istio's ENABLE_NATIVE_SIDECARS default from 1.27 (pilot/pkg/features/pilot.go @86c9f01f).
  const KEPT_VALUE = /^(true|false|auto|[0-9]+(\.[0-9]+)?([mkMGT]i?|[mkMGTPE])?)$/;
  /** Or an image reference (registry/repository:tag[@digest]): the proxy image a control plane injects (Kuma's), never a secret. */
  const KEPT_IMAGE = /^[a-z0-9][a-z0-9._/-]{0,250}(:[\w][\w.-]{0,127})?(@sha256:[a-f0-9]{64})?$/;

  /**
   * A NO_PROXY entry that can match a webhook Service's host, `<name>.<namespace>.svc` (Go's
   * httpproxy: `*`, a domain and its subdomains, `.domain` or `*.domain` its subdomains, an optional
   * port): names of the cluster, never a secret. Addresses, CIDRs and other domains cannot match
   * that host name and are dropped.
   */
  const SVC_NO_PROXY = /^(?:\*|(?:\*?\.)?(?:[a-z0-9-]{1,63}\.){0,2}svc(?::\d{1,5})?)$/i;

  /** An env entry's value: redacted but for the profiles' keptEnv switches and quantities (valueFrom: no check reads it). */
  const envValue: Reducer = (v, e) => {
    // NO_PROXY: only its entries that can match a Service's host (webhook-port-blocked asks whether the
    // API server calls the injector through its proxy); '' when none can.
    if ((e.name === 'NO_PROXY' || e.name === 'no_proxy') && typeof v === 'string')
      return v
        .split(',')
        .slice(0, 200)
        .map((x) => x.trim())
        .filter((x) => SVC_NO_PROXY.test(x))
        .join(',');
    return v === undefined ||
      (KEEP_ENV.has(e.name) && typeof v === 'string' && (KEPT_VALUE.test(v) || KEPT_IMAGE.test(v)))
      ? v
      : REDACTED;
  };

  /** Where the ServiceAccount admission plugin mounts the token (Consul's findServiceAccountVolumeMount looks there). */
  const SA_TOKEN_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

  /** The names of a pod spec's Secret volumes. */
  function secretVolumes(ctx: Ctx): ReadonlySet<string> {
    if (ctx.secretVolumesOf === ctx.podSpec) return ctx.secretVolumes;
    const out = new Set<string>();
    const vols = ctx.podSpec?.volumes;
    if (Array.isArray(vols))
      for (const v of vols)
        if (isObj(v) && typeof v.name === 'string' && isObj(v.secret) && typeof v.secret.secretName === 'string')
          out.add(v.name);
    ctx.secretVolumesOf = ctx.podSpec;
    ctx.secretVolumes = out;
    return out;
  }

  /**
   * Consul's injector with ACLs looks for a mount at the ServiceAccount token path: only that
   * mount's path is kept. A mount of a Secret volume keeps its name, path and subPath: where a
   * control plane reads its serving certificate (Kuma's webhook Secret, named by its Deployment).
   */
  const secretMounts: Reducer = (list, _c, ctx) => {
    if (!Array.isArray(list)) return undefined;
    const secret = secretVolumes(ctx);
    // Every other mount keeps its volume's name only (which volumes a container mounts: a kubelet volume warning names
    // the volume it cannot mount, src/facts/pod-warnings.ts).
    // One pass, the first 64 mounts kept; a mount already reduced to its name (a snapshot read again) is kept as it is.
    const out: Obj[] = [];
    for (let i = 0; i < list.length && out.length < 64; i++) {
      const v = list[i];
      if (!isObj(v) || !(v.mountPath === SA_TOKEN_PATH || secret.has(v.name) || typeof v.name === 'string')) continue;
      out.push(
        secret.has(v.name)
          ? { name: v.name, mountPath: v.mountPath, ...(typeof v.subPath === 'string' ? { subPath: v.subPath } : {}) }
          : v.mountPath === SA_TOKEN_PATH
            ? { mountPath: SA_TOKEN_PATH }
            : nameOnly(v)
              ? v
              : { name: String(v.name).slice(0, 253) },
      );
    }
    return out;
  };
  /** Whether a mount is `{ name }` alone, a name of at most 253 characters: what secretMounts would make of it. */
  const nameOnly = (v: Obj): boolean => {
    if (typeof v.name !== 'string' || v.name.length > 253) return false;
    let n = 0;
    for (const k in v) if (k !== 'name' || ++n > 1) return false;
    return n === 1;
  };

  const STATUS_CONTAINERS = new Set(policy.statusLines.containers);
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
   * The waiting messages the kubelet writes itself (it cannot create or start the container, a lifecycle hook failed,
   * it backs off a restart: kubernetes pkg/kubelet/kuberuntime) or quotes from the runtime when it cannot pull the
   * image (pkg/kubelet/images: the registry's refusal, an untrusted certificate, a timeout), kept, cut, for the
   * containers the meshes inject: every reason but the two of a container not tried yet (issue 31: every unhappy
   * mesh container ends in a finding that quotes the kubelet). proxy-cannot-start reads the non-root refusals, the
   * security profiles and why a pull failed, and quotes the others.
   */
  const keptWaiting = (reason: unknown) =>
    typeof reason === 'string' && reason !== 'ContainerCreating' && reason !== 'PodInitializing';

  /**
   * A container status keeps no waiting message and no termination message (a crashed app's last
   * log lines) but the transport error it names (src/k8s/network-error.ts: only that phrase,
   * init-before-proxy quotes it), and for a container the meshes inject (`injected`), whose termination message keeps
   * the lines of the failures the checks recognise, and whose waiting message keeps the kubelet's
   * own words when it cannot create, start or pull it (keptWaiting, 512 characters).
   */
  const statusMessages =
    (injected: boolean): Reducer =>
    (cs, _parent, ctx) => {
      if (!isObj(cs)) return cs;
      const mesh = injected && STATUS_CONTAINERS.has(cs.name);
      // Most statuses hold no message: the pod's labels are asked (componentPod) only for a waiting message it decides.
      messagesOf(cs.state, injected, mesh, ctx);
      messagesOf(cs.lastState, injected, mesh, ctx);
      return cs;
    };
  /** Whether the pod being slimmed is a control-plane component's (its labels, policy.componentPod). */
  const componentRoot = (ctx: Ctx): boolean => {
    const md = isObj(ctx.root.metadata) ? ctx.root.metadata : undefined;
    return isObj(md?.labels) && policy.componentPod(md!.labels as Record<string, unknown>);
  };
  /** The messages of one state of a container status (`state` or `lastState`), as statusMessages keeps them. */
  function messagesOf(s: unknown, injected: boolean, mesh: boolean, ctx: Ctx): void {
    if (!isObj(s)) return;
    for (const k in s) {
      const v = s[k];
      if (!isObj(v) || v.message === undefined) continue;
      const waiting = k === 'waiting' && keptWaiting(v.reason) && typeof v.message === 'string';
      const kept =
        injected && waiting && componentRoot(ctx)
          ? v.message.slice(0, 512)
          : mesh && k === 'terminated'
            ? keptLines(v.message)
            : injected && k === 'terminated'
              ? networkFailure(v.message)
              : mesh && waiting
                ? v.message.slice(0, 512)
                : undefined;
      if (kept === undefined) delete v.message;
      else v.message = kept;
    }
  }

  /** ConfigMaps the checks read, by name: the `data` keys each keeps (each profile's configMapKey), and its slimmer. */
  const configMapData: Reducer = (data, _cm, ctx) => {
    if (!isObj(data)) return undefined;
    const name = isObj(ctx.root.metadata) ? ctx.root.metadata.name : undefined;
    const keep = (typeof name === 'string' && policy.configMap(name)) || { keys: [] };
    for (const k in data) {
      if (!keep.keys.includes(k) || typeof data[k] !== 'string') delete data[k];
      else if (keep.slim) {
        const v = keep.slim(k, data[k]);
        if (v === undefined) delete data[k];
        else data[k] = v;
      }
    }
    return data;
  };

  /** The reasons of the Events a check reads: FailedCreate on controllers, the injectors' own skip notices, and the pod events of the policy. */
  const POD_EVENTS = policy.podEvents;
  const EVENT_REASONS = new Set([
    'FailedCreate',
    ...(policy.skipPrefixes.length ? ['InjectionSkipped'] : []),
    ...POD_EVENTS.map((e) => e.reason),
    ...(policy.warnings ?? []),
  ]);
  const WARNINGS = new Set(policy.warnings ?? []);
  /** A Warning event of a reason the policy keeps whole. */
  const warningKept = (e: K8sObject) => e.type === 'Warning' && WARNINGS.has(e.reason as string);
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
  const eventMessage: Reducer = (message, e) => {
    if (typeof message !== 'string') return undefined; // eventInfo reads strings only
    const reason = e.reason;
    if (reason === 'FailedCreate') {
      // A label value that is (the start of) the involved object's name stays: the snapshot keeps that name.
      const name = isObj(e.involvedObject) ? e.involvedObject.name : undefined;
      return redactAdmissionMessage(message, REDACTED, typeof name === 'string' ? [name] : []);
    }
    if (warningKept(e)) return message.slice(0, 4000);
    const fieldPath = isObj(e.involvedObject) ? e.involvedObject.fieldPath : undefined;
    const read =
      reason === 'InjectionSkipped'
        ? SKIP_PREFIXES.some((p) => message.startsWith(p))
        : podEventRead(reason, message, fieldPath);
    // Bounded as FailedCreate is (a CNI plugin's diagnostic output can run long).
    return read ? message.slice(0, 4000) : REDACTED;
  };

  /** An event kept: FailedCreate and skip notices by reason; the pod events only in the policy's shapes, about the containers it names. */
  function eventKept(e: K8sObject): boolean {
    if (!EVENT_REASONS.has(e.reason as string)) return false;
    if (e.reason === 'FailedCreate' || e.reason === 'InjectionSkipped') return true;
    if (warningKept(e)) return true;
    const io = isObj(e.involvedObject) ? e.involvedObject : {};
    return typeof e.message === 'string' && podEventRead(e.reason, e.message, io.fieldPath);
  }

  const KEEP_HOST_PATHS = new Set(policy.hostPathVolumes ?? []);
  /**
   * A pod spec's volumes: a Secret volume keeps its name and the Secret's name only (never an item
   * or a mode): which Secret a mount is; a hostPath volume the policy names keeps its name and host
   * directory (where a CNI agent installs its plugin). Every other volume goes.
   */
  const volumes: Reducer = (list) => {
    if (!Array.isArray(list)) return undefined;
    const out: Obj[] = [];
    for (const v of list) {
      if (!isObj(v) || typeof v.name !== 'string') continue;
      if (isObj(v.secret) && typeof v.secret.secretName === 'string')
        out.push({ name: v.name, secret: { secretName: v.secret.secretName } });
      else if (
        KEEP_HOST_PATHS.has(v.name) &&
        isObj(v.hostPath) &&
        typeof v.hostPath.path === 'string' &&
        /^\/[\w./-]{0,250}$/.test(v.hostPath.path)
      )
        out.push({ name: v.name, hostPath: { path: v.hostPath.path } });
    }
    return out.length ? out : undefined;
  };

  const RULES: Record<RuleName, Reducer> = {
    volumes,
    ...STATIC_RULES,
    argv,
    envValue,
    secretMounts,
    injectedStatusMessages: statusMessages(true),
    noStatusMessages: statusMessages(false),
    configMapData,
    eventMessage,
    containerFieldPath: (v) => (fieldContainer(v) ? v : undefined),
  };

  /** Each kind's declaration, compiled: what is kept of an object read, and of one no check reads. */
  interface Plan {
    keep: Reducer;
    unread?: Reducer;
    read?: (o: K8sObject) => boolean;
    managedFields: KindKeep['managedFields'];
  }
  const plan = (k: KindKeep): Plan => ({
    keep: compile(k.keep, RULES),
    ...(k.unread ? { unread: compile(k.unread, RULES) } : {}),
    ...(k.read === 'event' ? { read: eventKept } : {}),
    managedFields: k.managedFields,
  });
  const PLANS = new Map(Object.entries(KEEP).map(([key, k]) => [key, plan(k)]));
  /** A kind the table lacks (a test's, a future one's): as a kind kept whole. */
  const OTHER = plan(KEEP.namespaces);
  const ctx: Ctx = { root: {}, podSpec: undefined, secretVolumesOf: undefined, secretVolumes: new Set() };

  /**
   * Keep what the checks read (src/k8s/kept.ts KEEP), drop what they do not and what may hold
   * secrets (docs/snapshot.md). Applied in place as objects are read (live and from files), so
   * `snapshot` saves what `check` reads and the dropped fields never all live at once.
   */
  function slim(key: string, obj: K8sObject): K8sObject {
    const p = PLANS.get(key) ?? OTHER;
    if (p.managedFields !== 'kept') {
      const md = obj.metadata;
      if (isObj(md) && md.managedFields !== undefined && !keepsManagedFields(key, obj)) delete md.managedFields;
    }
    ctx.root = obj;
    ctx.podSpec = undefined;
    ctx.secretVolumesOf = undefined;
    const reduce = p.read && p.unread && !p.read(obj) ? p.unread : p.keep;
    const out = reduce(obj, undefined, ctx);
    ctx.root = {};
    ctx.podSpec = undefined;
    ctx.secretVolumesOf = undefined;
    return (out ?? {}) as K8sObject;
  }

  /**
   * What a snapshot keeps of an object read from a list or a file: `slim`'s reduction, or nothing
   * for an object no check reads (an Event: docs/snapshot.md).
   */
  function keepObject(key: string, obj: K8sObject): K8sObject | undefined {
    const p = PLANS.get(key);
    if (p?.read && !p.read(obj)) return undefined;
    return slim(key, obj);
  }
  return { slim, keepObject };
}
