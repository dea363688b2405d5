/**
 * What a snapshot keeps of the objects it reads, as the profiles need it (docs/snapshot.md): the
 * control planes' env switches, the words of command lines the checks look for, the ConfigMap keys
 * read by name, the injectors' own skip events, the failure lines of the injected containers'
 * termination messages and the kubelet's events about those containers. The reading layer (src/cluster/sanitize.ts) is
 * handed this; it knows no mesh.
 */
import { keeper, type KeepPolicy } from '../cluster/sanitize.js';
import { APP_PROBE_FAILED, POD_EVENTS_READ, PROBE_FAILED, PROBE_KILLED } from '../k8s/events.js';
import { injectedNames } from './proxy.js';
import { PROFILE_LIST } from './registry.js';
import { allBugs } from './releases.js';
import { ADMISSION_WORDS } from '../k8s/apiserver.js';
import { SANDBOX_REASON, sandboxMessageShape } from '../k8s/sandbox.js';
import { CNI_BIN_VOLUME } from './cni-install.js';
import { IPTABLES_LINES } from './iptables.js';
import { SA_TOKEN_LINE } from '../k8s/sa-token.js';
import { VOLUME_WARNINGS } from '../k8s/warnings.js';

/** Every container name a mesh injects: their statuses and the kubelet's events about them are kept. */
const INJECTED = [...new Set(PROFILE_LIST.flatMap(injectedNames))];

/** The containers a known bug's symptom names (a helper container some releases inject, as Linkerd 2.12's noop): their statuses too. */
const BUG_CONTAINERS = PROFILE_LIST.flatMap((p) =>
  allBugs(p.versions?.releases).flatMap((b) => (b.symptom.shows === 'waiting' ? [b.symptom.container] : [])),
);

/** The sandbox failures kept: those naming a mesh's CNI plugin or attachment. */
const SANDBOX_SHAPE = sandboxMessageShape(
  PROFILE_LIST.flatMap((p) => (p.cni ? [p.cni.pluginType] : [])),
  PROFILE_LIST.flatMap((p) => (p.cni?.attachment ? [p.cni.attachment.name] : [])),
);

/** The label sets of every mesh's control-plane components (the profiles' `components`), for their pods' messages. */
const COMPONENT_LABELS = PROFILE_LIST.flatMap((p) => (p.components ?? []).flatMap((c) => c.podLabels));

const KEEP_POLICY: KeepPolicy = {
  env: PROFILE_LIST.flatMap((p) => p.controlPlane.reads.env ?? []),
  // And the API server's admission flags (its static pod's command line: admission-plugin-disabled).
  words: [
    ...PROFILE_LIST.flatMap((p) => [...p.jobs.shutdownWords, ...(p.controlPlane.reads.args ?? [])]),
    ...ADMISSION_WORDS,
    // The command-line texts a known bug's trigger looks for in a container (known-release-bug).
    ...PROFILE_LIST.flatMap((p) =>
      allBugs(p.versions?.releases).flatMap((b) => {
        const when = 'when' in b.symptom ? b.symptom.when : undefined;
        return (Array.isArray(when) ? when : when ? [when] : []).flatMap((t: unknown) =>
          typeof t === 'object' && t !== null && 'holds' in t
            ? [
                // A whole word of the command line, not a piece of a longer one (linkerd-awaitx is not linkerd-await).
                `(?<![\\w-])${String((t as { holds: string }).holds).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`,
              ]
            : [],
        );
      }),
    ),
    // The flags and subcommands of the release tables' companion needs (proxy-cannot-start).
    ...PROFILE_LIST.flatMap((p) =>
      (p.versions?.releases?.rows ?? []).flatMap((r) =>
        (r.needs ?? []).map((n) => n.command.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
      ),
    ),
    // The flags that allow a proxy and companion pair only with them (the release tables' pairs: proxy-cannot-start).
    ...PROFILE_LIST.flatMap((p) =>
      (p.versions?.releases?.rows ?? []).flatMap((r) =>
        (r.pairs ?? []).flatMap((x) => (x.onlyWith ?? []).map((o) => o.flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))),
      ),
    ),
  ],
  configMap: (name) => {
    for (const p of PROFILE_LIST) {
      const key = p.controlPlane.reads.configMapKeys(name);
      if (key)
        return {
          keys: typeof key === 'string' ? [key] : key,
          ...(p.controlPlane.reads.slimConfigMap
            ? { slim: (k, t) => p.controlPlane.reads.slimConfigMap!(name, k, t) }
            : {}),
        };
    }
    return undefined;
  },
  componentPod: (labels) => COMPONENT_LABELS.some((set) => Object.entries(set).every(([k, v]) => labels[k] === v)),
  skipPrefixes: PROFILE_LIST.flatMap((p) => (p.injector.skippedEventPrefix ? [p.injector.skippedEventPrefix] : [])),
  statusLines: {
    containers: [...new Set([...INJECTED, ...BUG_CONTAINERS])],
    lines: [
      ...PROFILE_LIST.flatMap((p) => p.runtime.failures.flatMap((f) => (f.line ? [f.line] : []))),
      // What iptables says the node refused, under any mesh (proxy-cannot-start, issue 31).
      ...IPTABLES_LINES,
      // The ServiceAccount token file it cannot read (proxy-cannot-start): a path, never the token.
      SA_TOKEN_LINE,
    ],
  },
  podEvents: [
    ...POD_EVENTS_READ.map((e) => ({ ...e, containers: INJECTED })),
    // The proxy not ready yet, and an app container killed for a failed probe (app-starts-before-proxy).
    { ...PROBE_FAILED, containers: INJECTED },
    PROBE_KILLED,
    // The app's probe failures in the kubelet's own words, never an exec probe's output (app-probe-through-proxy).
    APP_PROBE_FAILED,
    // The kubelet failing a pod's sandbox in a mesh's CNI plugin or its Multus attachment (pod-sandbox-cni-failed).
    { reason: SANDBOX_REASON, message: SANDBOX_SHAPE },
  ],
  // Warning events kept whole: the kubelet's volume warnings and the meshes' own (src/k8s/warnings.ts).
  warnings: [...VOLUME_WARNINGS, ...PROFILE_LIST.flatMap((p) => (p.injector.warnings ?? []).map((w) => w.reason))],
  // The host directory the meshes' CNI agents install their plugin's binary into (pod-sandbox-cni-failed).
  hostPathVolumes: [CNI_BIN_VOLUME],
};

/** slim and keepObject under the meshes' keep policy. */
export const KEEPER = keeper(KEEP_POLICY);

/** What a snapshot keeps of an object read (slim), and nothing of an Event no check reads (keepObject). */
export const { slim, keepObject } = KEEPER;
