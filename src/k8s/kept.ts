/**
 * What a snapshot keeps of each kind (issue 32 item 3): ONE declaration of the fields the checks
 * read, per kind, beside the kinds themselves (KINDS). src/cluster/sanitize.ts compiles and
 * applies it (as objects are read, live and from files: `slim`, `keepObject`, `sanitizeSecret`);
 * docs/snapshot.md's table of kept paths is generated from it (scripts/snapshot-doc.ts);
 * test/kept.test.ts records every field the checks read on every fixture and fails on one this
 * declaration does not keep. A check that starts reading another field adds it here.
 *
 * A declaration (`Keep`) is, at each path:
 * - `'all'`: kept as the API returns it (the whole subtree);
 * - `'string' | 'number' | 'boolean' | 'object' | 'array'`: kept when of that type, else dropped;
 * - `'true'`: kept only when `true`; `'none'`: never kept;
 * - `{ string: n }`: a string, cut to n characters; `{ match: re }`: a string matching re;
 *   `{ is: v }`: a constant (what stands there whatever was read);
 * - `{ fields, rest?, drop?, required?, omitEmpty?, scope? }`: an object: with `rest` the object
 *   is kept (in place) with `fields` reduced as declared and `drop` removed; without, a new object
 *   of `fields` only. `required`: the fields without which the object is not kept (a list drops
 *   it). `omitEmpty`: not kept when nothing of it is.  `scope: 'podSpec'`: the rules below see this pod spec (a mount names its volume);
 * - `{ each, max?, where?, omitEmpty? }`: a list, each entry reduced (entries not kept go), at
 *   most `max` kept, only entries whose fields equal `where`'s;
 * - `{ rule }`: a named reduction (RULES says what it keeps; sanitize.ts implements it: the
 *   redactions, and the policy the meshes hand the reading layer, src/mesh/keep.ts).
 */
import { K3S_NODE_ARGS } from './apiserver.js';
import { KIND_KEYS, POD_TEMPLATE_PATH, type KindKey } from './kinds.js';

/** The named reductions: what each keeps (docs/snapshot.md quotes these). */
export const RULES = {
  argv: 'each word reduced to the words a check looks for (shutdown calls, the flags a profile reads), else `"(redacted)"`',
  envValue:
    '`"(redacted)"`, but for the control-plane switches the profiles read, when a boolean, `auto`, a quantity or an image reference; of `NO_PROXY`/`no_proxy` only the entries that can match a Service host `<name>.<namespace>.svc` (`*`, `.svc`, `ns.svc`, ...)',
  volumes:
    "a Secret volume's `name` and `secret.secretName` (never an item or a mode); a hostPath volume the meshes name (a CNI agent's `cni-bin-dir`): `name` and `hostPath.path`; no other volume",
  secretMounts:
    'the mounts of a Secret volume (`name`, `mountPath`, `subPath`), a mount at the ServiceAccount token path (`mountPath`), and of every other mount its volume `name` only (at most 64)',
  injectedStatusMessages:
    "state messages dropped but the transport error a terminated message names (`dial tcp ADDR: connect: connection refused`, `no such host`, `i/o timeout`: only that phrase, 300 characters), and of a container a mesh injects (or a known bug's symptom names) the terminated message's recognised failure lines (at most 8 of 512 characters) and the waiting message the kubelet writes when it cannot create, start or pull it (512 characters); of a pod of a mesh's control-plane component (its labels in the profiles' component tables), the waiting message the kubelet writes (512 characters), never its termination message (the component's log)",
  noStatusMessages: 'state messages dropped',
  configMapData: 'only the keys the profiles read of the ConfigMaps they read by name, reduced by the profile',
  eventMessage:
    '`FailedCreate`: bounded to 4000 characters, the quoted values of fields that may hold secrets redacted; others: kept (4000 characters) in the shapes a check parses, else `"(redacted)"`',
  containerFieldPath: 'kept when it names a container (`spec.containers{name}`)',
  time: 'kept when it is a time',
  k3sArgs: "reduced to the role word and the API server's admission flags",
  certificates: "the PEM `CERTIFICATE` blocks of certificate-like keys of `data`: never a key's value",
} as const;

export type RuleName = keyof typeof RULES;

export type Keep =
  | 'all'
  | 'string'
  | 'number'
  | 'boolean'
  | 'object'
  | 'array'
  | 'true'
  | 'none'
  | { readonly string: number }
  | { readonly match: RegExp }
  | { readonly is: string }
  | KeepFields
  | KeepList
  | { readonly rule: RuleName };

export interface KeepFields {
  readonly fields: Readonly<Record<string, Keep>>;
  readonly rest?: true;
  readonly drop?: readonly string[];
  readonly required?: readonly string[];
  readonly omitEmpty?: true;
  readonly scope?: 'podSpec';
}

interface KeepList {
  readonly each: Keep;
  readonly max?: number;
  /** Entries whose field has this value (or one of these values). */
  readonly where?: Readonly<Record<string, string | readonly string[]>>;
  readonly omitEmpty?: true;
}

/**
 * A kind's declaration: what is kept of its objects (`keep`); `unread`: what is kept of an object
 * no check reads (`read` says which are: an Event's reason and message shape), which
 * `keepObject` drops; `managedFields`: whether `metadata.managedFields` is kept (it dates the
 * injection markers, which live on namespaces, workload controllers and bare pods).
 */
export interface KindKeep {
  readonly keep: Keep;
  readonly read?: 'event';
  readonly unread?: Keep;
  readonly managedFields: 'kept' | 'dropped' | 'unless-controlled';
}

/** kubectl's last-applied annotation holds the whole object as applied (a Secret's data in clear): never kept. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** Metadata as read: all of it but the last-applied annotation (managedFields: per kind). */
const META: KeepFields = { rest: true, fields: { annotations: { rest: true, fields: {}, drop: [LAST_APPLIED] } } };

/** Capability names only (never a secret). */
const CAPS: KeepList = { each: { match: /^[A-Za-z_]{1,64}$/ } };

/**
 * Of a container's securityContext, the fields Pod Security `restricted` and OpenShift's SCCs
 * judge (pod-security-blocks-init, pod-security-rejects-proxy, Kuma's sidecar UID rule):
 * booleans, numbers and capability names. SELinux options, AppArmor, sysctls, ... go.
 */
const CONTAINER_SC: KeepFields = {
  omitEmpty: true,
  fields: {
    runAsUser: 'number',
    runAsNonRoot: 'boolean',
    allowPrivilegeEscalation: 'boolean',
    privileged: 'boolean',
    capabilities: { omitEmpty: true, fields: { add: CAPS, drop: CAPS } },
    seccompProfile: { omitEmpty: true, fields: { type: { match: /^[A-Za-z]{1,32}$/ } } },
  },
};

/** A pod's own securityContext: what Pod Security judges there. */
const POD_SC: KeepFields = {
  omitEmpty: true,
  fields: {
    runAsUser: 'number',
    runAsNonRoot: 'boolean',
    seccompProfile: CONTAINER_SC.fields.seccompProfile!,
  },
};

/**
 * A container: name, image and restartPolicy (is it a proxy, a native sidecar), resources (quotas,
 * OOM evidence), ports (a webhook's named targetPort), env names (values: envValue), command and
 * args (job-never-completes, the injectors' flags), securityContext, and the mounts a check reads.
 */
/**
 * A container's probe (app-probe-through-proxy, issue 31 gen12probes): its handler and where it points, never an exec
 * probe's command (its presence only) nor an httpGet probe's headers.
 */
const PROBE: KeepFields = {
  fields: {
    httpGet: { fields: { path: 'string', port: 'all', scheme: 'string' } },
    tcpSocket: { fields: { port: 'all' } },
    grpc: { fields: { port: 'all' } },
    exec: { fields: {} },
    // The budget the kubelet gives it (app-probe-through-proxy judges a probe from the container's status after it).
    initialDelaySeconds: 'number',
    periodSeconds: 'number',
    failureThreshold: 'number',
  },
};

const CONTAINER: KeepFields = {
  fields: {
    name: 'all',
    image: 'all',
    restartPolicy: 'all',
    resources: 'all',
    ports: 'all',
    env: { each: { fields: { name: 'all', value: { rule: 'envValue' } } } },
    command: { rule: 'argv' },
    args: { rule: 'argv' },
    securityContext: CONTAINER_SC,
    volumeMounts: { rule: 'secretMounts' },
    // proxy-hold-stuck: the proxy's postStart hook (a mesh's hold) and the words of its command the profiles read.
    lifecycle: { fields: { postStart: { fields: { exec: { fields: { command: { rule: 'argv' } } } } } } },
    livenessProbe: PROBE,
    readinessProbe: PROBE,
    startupProbe: PROBE,
  },
};

/**
 * A pod spec (a pod's, a workload's template): the fields the checks read (mesh/pods.ts, the
 * profiles, serviceaccount-missing, Pod Security, node-agent-incomplete, proxy-cannot-start, ...).
 */
const POD_SPEC: KeepFields = {
  scope: 'podSpec',
  fields: {
    containers: { each: CONTAINER },
    initContainers: { each: CONTAINER },
    // Which Secret a control plane mounts (the Secret volumes' names only, never an item or a mode),
    // and where a CNI agent installs its plugin (the hostPath volumes the meshes name).
    volumes: { rule: 'volumes' },
    hostNetwork: 'all',
    // proxy-cannot-start, pod-spec-starves-proxy (src/facts/pod-needs.ts): the resolver the pod gives the mesh's
    // containers, and the OS it asks for.
    dnsPolicy: 'string',
    dnsConfig: {
      fields: { nameservers: { max: 3, each: 'string' }, searches: { max: 32, each: 'string' } },
      omitEmpty: true,
    },
    os: { fields: { name: 'string' }, omitEmpty: true },
    // node-agent-incomplete: where a DaemonSet's pods may run and its priority class.
    nodeSelector: 'object',
    tolerations: 'array',
    affinity: {
      required: ['nodeAffinity'],
      fields: { nodeAffinity: { fields: { requiredDuringSchedulingIgnoredDuringExecution: 'all' } } },
    },
    priorityClassName: 'all',
    // app-starts-before-proxy: a pod that never restarts its containers keeps an app's one failure as its state.
    restartPolicy: 'all',
    nodeName: 'all', // sidecarless-not-enrolled: the node proxy on the pod's node
    serviceAccountName: 'all',
    serviceAccount: 'all',
    automountServiceAccountToken: 'all',
    // proxy-cannot-start: which pull Secrets a pod names (their names only).
    imagePullSecrets: { max: 20, each: { required: ['name'], fields: { name: { string: 253 } } } },
    securityContext: POD_SC,
  },
};

const STATUSES: KeepFields = {
  rest: true,
  fields: {
    containerStatuses: { each: { rule: 'injectedStatusMessages' } },
    initContainerStatuses: { each: { rule: 'injectedStatusMessages' } },
    ephemeralContainerStatuses: { each: { rule: 'noStatusMessages' } },
  },
};

/** An object of a kind no check reduces further: as the API returns it, but last-applied. */
const WHOLE: KindKeep = { keep: { rest: true, fields: { metadata: META } }, managedFields: 'kept' };

/** A workload: the object, its pod template (POD_TEMPLATE_PATH) reduced as a pod's metadata and spec. */
function workload(key: KindKey): Keep {
  const path = POD_TEMPLATE_PATH[key]!.split('/').filter(Boolean);
  let at: KeepFields = { rest: true, fields: { metadata: META, spec: POD_SPEC } };
  for (let i = path.length - 1; i >= 0; i--) {
    // A CronJob's jobTemplate is a template too: its metadata loses last-applied.
    if (path[i] === 'jobTemplate') at = { rest: true, fields: { metadata: META, ...at.fields } };
    at = { rest: true, fields: { [path[i]!]: at } };
  }
  // The object's own metadata, beside its spec.
  return { rest: true, fields: { metadata: META, ...at.fields } };
}

const EVENT_META: KeepFields = {
  fields: { name: 'all', namespace: 'all', uid: 'all', creationTimestamp: { rule: 'time' } },
};

const KEPT: Partial<Record<KindKey, KindKeep>> = {
  pods: {
    keep: { rest: true, fields: { metadata: META, spec: POD_SPEC, status: STATUSES } },
    managedFields: 'unless-controlled',
  },
  replicasets: { keep: workload('replicasets'), managedFields: 'dropped' },
  deployments: { keep: workload('deployments'), managedFields: 'kept' },
  statefulsets: { keep: workload('statefulsets'), managedFields: 'kept' },
  daemonsets: { keep: workload('daemonsets'), managedFields: 'kept' },
  jobs: { keep: workload('jobs'), managedFields: 'kept' },
  cronjobs: { keep: workload('cronjobs'), managedFields: 'kept' },
  configmaps: {
    keep: { rest: true, fields: { metadata: META, data: { rule: 'configMapData' }, binaryData: 'none' } },
    managedFields: 'kept',
  },
  // Reduced at once to the public certificates (sanitizeSecret): data and stringData never kept.
  secrets: {
    keep: {
      fields: {
        apiVersion: { is: 'v1' },
        kind: { is: 'Secret' },
        metadata: {
          fields: {
            name: 'all',
            namespace: 'all',
            uid: 'all',
            creationTimestamp: 'all',
            labels: 'all',
            annotations: { rest: true, fields: {}, drop: [LAST_APPLIED] },
          },
        },
        type: 'all',
        certificates: { rule: 'certificates' },
      },
    },
    managedFields: 'dropped',
  },
  // Only the events a check reads (their reason and message shape), reduced to what eventInfo reads.
  events: {
    read: 'event',
    keep: {
      fields: {
        apiVersion: 'all',
        kind: 'all',
        metadata: EVENT_META,
        type: 'all',
        reason: 'all',
        message: { rule: 'eventMessage' },
        source: { fields: { component: 'all' } },
        reportingComponent: 'all',
        involvedObject: {
          fields: { kind: 'all', namespace: 'all', name: 'all', fieldPath: { rule: 'containerFieldPath' } },
        },
        count: 'number',
        series: { fields: { count: 'number', lastObservedTime: { rule: 'time' } } },
        lastTimestamp: { rule: 'time' },
        eventTime: { rule: 'time' },
        firstTimestamp: { rule: 'time' },
      },
    },
    unread: { fields: { apiVersion: 'all', kind: 'all', metadata: EVENT_META } },
    managedFields: 'dropped',
  },
  // The kubelet versions, the managed provider, k3s's admission flags, node-agent-incomplete's
  // taints and readiness, and the nodes' InternalIP addresses: not the images a node pulled (the bulk of a large cluster's nodes).
  nodes: {
    keep: {
      fields: {
        apiVersion: 'all',
        kind: 'all',
        metadata: {
          fields: {
            name: 'all',
            namespace: 'all', // none: a Node is not namespaced (read by code common to every kind)
            uid: 'all',
            creationTimestamp: 'all',
            labels: 'object',
            annotations: { omitEmpty: true, fields: { [K3S_NODE_ARGS]: { rule: 'k3sArgs' } } },
          },
        },
        spec: {
          omitEmpty: true,
          fields: {
            providerID: 'string',
            taints: { max: 64, each: { fields: { key: 'all', value: 'all', effect: 'all' } } },
            unschedulable: 'true',
            // The nodes' pod ranges, against the meshes' configured ranges (mesh-ranges-miss-cluster).
            podCIDR: { string: 64 },
            podCIDRs: { max: 4, each: { string: 64 } },
          },
        },
        status: {
          fields: {
            nodeInfo: {
              omitEmpty: true,
              fields: {
                kubeletVersion: { string: 256 },
                osImage: { string: 256 },
                kernelVersion: { string: 256 },
                containerRuntimeVersion: { string: 256 },
              },
            },
            // The kubelet's reason and message: a node not Ready for want of a pod network (src/k8s/pod-network.ts).
            conditions: {
              where: { type: 'Ready' },
              each: { fields: { type: 'all', status: 'all', reason: { string: 128 }, message: { string: 1024 } } },
            },
            // The nodes' network, beside which a pod address is judged (src/k8s/pod-network.ts); an ExternalIP or
            // none, beside the Hostname every node reports, tells a private GKE node (webhook-port-blocked).
            addresses: {
              where: { type: ['InternalIP', 'ExternalIP', 'Hostname'] },
              max: 8,
              each: { fields: { type: 'all', address: { string: 64 } } },
            },
          },
        },
      },
    },
    managedFields: 'dropped',
  },
  clusterroles: { keep: WHOLE.keep, managedFields: 'dropped' },
  clusterrolebindings: { keep: WHOLE.keep, managedFields: 'dropped' },
  // Only which attachments exist: their spec.config may name hosts and credentials.
  'network-attachment-definitions': {
    keep: {
      fields: {
        apiVersion: 'all',
        kind: 'all',
        metadata: { fields: { name: 'all', namespace: 'all', uid: 'all', creationTimestamp: 'all' } },
      },
    },
    managedFields: 'dropped',
  },
};

/** Every kind's declaration (the kinds not reduced further are kept WHOLE). */
export const KEEP: Readonly<Record<KindKey, KindKeep>> = Object.fromEntries(
  KIND_KEYS.map((k) => [k, KEPT[k] ?? WHOLE]),
) as Record<KindKey, KindKeep>;

/** Whether a kind's objects are kept whole (but last-applied): no path list to give. */
export const keptWhole = (k: KindKeep) => k.keep === WHOLE.keep;
