/**
 * pod-security-blocks-init — a namespace enforcing Pod Security `baseline` or `restricted`
 * rejects the init container a mesh injects without its CNI plugin, so the workload's injected
 * pods cannot be created.
 *
 * Why: without the CNI plugin the injector adds an init container that programs iptables with
 * `capabilities.add: [NET_ADMIN, NET_RAW]` (Istio `istio-init`, Linkerd `linkerd-init`, Kuma
 * `kuma-init`; Consul's `consul-connect-inject-init` adds NET_ADMIN, and only with transparent
 * proxy on: each profile's `cni`, whose `privilegedFor` says where a setting decides). Pod Security admission runs after the mutating webhooks and checks the
 * injected pod: `baseline` allows only the default capabilities (kubernetes/kubernetes
 * staging/src/k8s.io/pod-security-admission/policy/check_capabilities_baseline.go at 003effe9:
 * AUDIT_WRITE, CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, MKNOD, NET_BIND_SERVICE, SETFCAP, SETGID,
 * SETPCAP, SETUID, SYS_CHROOT; reason "non-default capabilities"), `restricted` only
 * NET_BIND_SERVICE (check_capabilities_restricted.go at 422c8fc5; reason "unrestricted
 * capabilities"). The pod is refused: FailedCreate `pods "…" is forbidden: violates PodSecurity
 * "baseline:latest": non-default capabilities (container "istio-init" must not include "NET_ADMIN",
 * "NET_RAW" in securityContext.capabilities.add)` (admission.go). With the CNI plugin the injector
 * adds a validation container without capabilities instead (Istio `istio-validation` when
 * `pilot.cni.enabled`, Linkerd `linkerd-network-validator` when `cniEnabled`, Kuma
 * `kuma-validation`; Consul's init container keeps its name and drops its capabilities).
 * This check claims the capabilities only. `restricted` also requires runAsNonRoot, a non-zero
 * runAsUser, allowPrivilegeEscalation false, capabilities.drop ALL and a RuntimeDefault or
 * Localhost seccomp profile for every container (check_runAsNonRoot.go, check_runAsUser.go,
 * check_allowPrivilegeEscalation.go, check_capabilities_restricted.go,
 * check_seccompProfile_restricted.go): the CNI plugin removes only the capability violation, and
 * the evidence says so.
 * When: predicted (a warning: the running pods stay, their replacements are refused), before any pod fails, for app workloads in scope that a mesh would inject now
 * (the injection model) in a namespace labelled `pod-security.kubernetes.io/enforce: baseline |
 * restricted`, or with a value that is no level (`Baseline`, `privilege`, empty), which Pod Security
 * enforces as restricted (src/k8s/admission.ts enforcedLevel), when the mesh's own configuration says its injector does not use the CNI plugin;
 * confirmed by such FailedCreate events naming the mesh's init container in a capabilities item
 * about a capability it adds (also when the namespace or the configuration could not be read); a
 * refusal of it for another requirement is admission-rejects-proxy's (the plugin would not help).
 * A refusal in a namespace without the enforce label (namespaces read) is the API server's own
 * default: its PodSecurity admission configuration (`PodSecurityConfiguration.defaults.enforce`,
 * kubernetes/kubernetes staging/src/k8s.io/pod-security-admission/admission/api/types.go), which
 * is not readable through the API; Talos configures `enforce: baseline` for every namespace but
 * kube-system (siderolabs/talos machine config `cluster.apiServer.admissionControl`;
 * linkerd/linkerd2#11667, #11706). The finding says the level comes from that default, not from a
 * namespace label (a namespace label overrides it, so the fix stays the same).
 * Known false positives: a namespace exempted in the API server's PodSecurity admission
 * configuration (not readable through the API).
 * Where the plugin's node DaemonSet runs (ready pods) while the mesh's configuration says the injector
 * does not use it, the message says so: the injector still adds the privileged init container
 * (istio/istio#54968, after the 1.22 change of how the CNI is turned on).
 * Fix: install the mesh's CNI plugin and turn it on for the injector, or lower the namespace's
 * enforced level to `privileged`: alternatives, as comments (one of them, never both). The
 * controller retries by itself.
 */
import { choice, cmd, comment, text } from '../fix/steps.js';
import { failedCreates } from '../k8s/events.js';
import { POD_SECURITY_ENFORCE, enforcedLevel, podSecurityViolation, type PodSecurityItem } from '../k8s/admission.js';
import { printable } from '../util/errors.js';
import { initContainers, podSpec } from '../k8s/pods.js';
import { meshTitle, profileOf } from '../mesh/registry.js';
import { meshesAllowed } from '../facts/siblings.js';
import { nsLabelsIfRead } from '../facts/sidecarless.js';
import type { Model, Workload } from '../facts/model.js';
import type { Evidence, FindingInput } from './types.js';
import type { MeshName } from '../mesh/names.js';
import { nameOf } from '../util/objects.js';
import type { CniPlugin } from '../mesh/profile.js';
import { defineCheck, messages, meta, say } from './define.js';
import { APP_WORKLOADS, DECISIONS } from '../facts/model.js';

const MESSAGES = messages({
  refused:
    "{enforcer}, which rejects {mesh}'s init container {init} (it adds {caps}), so {workload} cannot create its injected pods.{unused}",
  'predicted-agent':
    "{enforcer}, which rejects {mesh}'s init container {init} (it adds {caps}), so the next injected pods of {workload} will be refused.{unused}",
  predicted:
    "{enforcer}, which rejects {mesh}'s init container {init} (it adds {caps}) without {mesh}'s CNI plugin, so the next injected pods of {workload} will be refused.",
});

const ENFORCE = POD_SECURITY_ENFORCE;
const REJECTING = ['baseline', 'restricted'];
const PSA_SOURCE = 'kubernetes/kubernetes staging/src/k8s.io/pod-security-admission/policy';
const RULE: Record<string, string> = {
  baseline: `${PSA_SOURCE}/check_capabilities_baseline.go (non-default capabilities)`,
  restricted: `${PSA_SOURCE}/check_capabilities_restricted.go (unrestricted capabilities)`,
};
const RESTRICTED_ALSO =
  'restricted also requires runAsNonRoot, a non-zero runAsUser, allowPrivilegeEscalation false, capabilities.drop ALL and a RuntimeDefault or Localhost seccomp profile for every container; the CNI plugin removes only the capability violation';

/** A `non-default capabilities` or `unrestricted capabilities` item about a capability added (not one left undropped). */
const addsCapability = (i: PodSecurityItem) => /capabilities$/.test(i.reason) && /must not include/.test(i.detail);

/** What the mesh's injected pods show: its validation container (CNI on), its privileged init container (off), or nothing. */
function cniFromPods(m: Model, cni: CniPlugin): { enabled: boolean; from: string } | undefined {
  // A plugin that keeps the init container's name: the pods' container names tell nothing.
  if (!cni.validationInit || cni.validationInit === cni.privilegedInit.name) return undefined;
  let off: string | undefined;
  for (const p of m.list('pods')) {
    const names = initContainers(podSpec(p)).map((c) => c.name);
    if (names.includes(cni.validationInit))
      return {
        enabled: true,
        from: `pod ${p.metadata?.namespace}/${nameOf(p)} has init container ${cni.validationInit}`,
      };
    if (!off && names.includes(cni.privilegedInit.name))
      off = `pod ${p.metadata?.namespace}/${nameOf(p)} has init container ${cni.privilegedInit.name}`;
  }
  return off ? { enabled: false, from: off } : undefined;
}

/** The plugin's node DaemonSet, as namespace/name, where one by that name has ready pods (bounded: the first 500 DaemonSets). */
function runningDaemonSet(m: Model, name: string): string | undefined {
  const ds = m
    .list('daemonsets')
    .slice(0, 500)
    .find(
      (d) =>
        nameOf(d) === name &&
        m.seesNamespace(d.metadata?.namespace ?? '') &&
        Number((d.status as Record<string, unknown> | undefined)?.numberReady ?? 0) > 0,
    );
  return ds ? `${ds.metadata?.namespace ?? ''}/${name}` : undefined;
}

function finding(
  m: Model,
  mesh: MeshName,
  ref: { kind: string; namespace: string; name: string },
  level: string | undefined,
  cniState: { enabled: boolean; from: string } | undefined,
  events: { count: number; last?: string; message: string; objects: Set<string>; missing: number } | undefined,
  w: Workload | undefined,
  privilegedFrom?: string,
  invalidLabel?: string,
): FindingInput<Evidence, typeof MESSAGES> {
  const p = profileOf(mesh);
  const cni = p.cni!;
  const init = cni.privilegedInit;
  const caps = init.capabilities.join(', ');
  const id = `${ref.kind} ${ref.namespace}/${ref.name}`;
  const lvl = level ?? 'baseline or restricted';
  // Who enforces the level: the namespace's label, or (a refusal in a namespace read without one) the
  // API server's PodSecurity admission configuration, its cluster-wide default.
  const labels = nsLabelsIfRead(m, ref.namespace);
  const byDefault = !!events && labels !== undefined && enforcedLevel(labels) === undefined;
  const enforcer = byDefault
    ? `Pod Security "${lvl}" is enforced in namespace ${ref.namespace} by the API server's cluster-wide default (its PodSecurity admission configuration: the namespace has no ${ENFORCE} label)`
    : `Namespace ${ref.namespace} enforces Pod Security "${lvl}"${invalidLabel !== undefined ? ` (its label ${ENFORCE}="${printable(invalidLabel, 63)}" is not a level: Pod Security admission enforces restricted for it)` : ''}`;
  const cpNs = m.mesh(mesh)?.namespaces[0] ?? p.controlPlane.namespace;
  // The plugin's node agent runs, yet the injector is not configured for it: it still injects the
  // privileged init container (istio/istio#54968: "If you have istio-init, you are NOT using istio-cni").
  const agent = cniState?.enabled === false ? runningDaemonSet(m, cni.daemonSet) : undefined;
  const unused = agent
    ? ` ${meshTitle(mesh)}'s CNI plugin runs (DaemonSet ${agent}), but the injector is not configured for it (${cniState!.from}: off), so it still injects ${init.name}.`
    : '';
  return {
    mesh,
    // Predicted: running pods are not affected; their next ones will be.
    ...(events ? {} : { severity: 'warning' as const }),
    ...say(MESSAGES, events ? 'refused' : agent ? 'predicted-agent' : 'predicted', {
      enforcer,
      mesh: meshTitle(mesh),
      init: init.name,
      caps,
      workload: id,
      unused,
    }),
    resource: ref,
    affectedPods: events ? Math.max(events.missing, 1) : Math.max(w ? w.pods.length : 0, 1),
    evidence: {
      namespace: ref.namespace,
      enforce: level ?? null,
      enforcedBy: byDefault
        ? 'cluster default (PodSecurity admission configuration)'
        : labels === undefined
          ? 'not read'
          : 'namespace label',
      ...(invalidLabel !== undefined ? { enforceLabel: printable(invalidLabel, 63) } : {}),
      initContainer: init.name,
      capabilities: [...init.capabilities],
      ...(privilegedFrom ? { capabilitiesFrom: privilegedFrom } : {}),
      ...(level ? { rule: RULE[level] } : {}),
      cniPlugin: cniState ? { enabled: cniState.enabled, from: cniState.from } : 'not read',
      cniDaemonSet: agent ? { name: agent, running: true } : cni.daemonSet,
      ...(level === 'restricted' ? { note: RESTRICTED_ALSO } : {}),
      ...(events
        ? {
            events: {
              count: events.count,
              lastTimestamp: events.last ?? null,
              objects: [...events.objects].sort(),
              message: events.message,
            },
          }
        : { predicted: true }),
    },
    fix: [
      ...cni.install(cpNs),
      choice(
        [],
        [
          {
            label: text`or let namespace ${ref.namespace} admit ${init.name}, which lowers Pod Security for every pod in it`,
            steps: [cmd`kubectl label namespace ${ref.namespace} ${`${ENFORCE}=privileged`} --overwrite`],
          },
        ],
      ),
      ...(events ? [comment`the controller retries by itself once one of them is done`] : []),
    ],
  };
}

export default defineCheck({
  ...meta('pod-security-blocks-init'),
  facts: [APP_WORKLOADS, DECISIONS],
  messages: MESSAGES,
  *run(m) {
    const meshes = meshesAllowed(m).filter((x) => profileOf(x).cni && m.meshPossible(x));
    // Confirmed: FailedCreate events naming a mesh's privileged init container in a PodSecurity violation.
    const confirmed = failedCreates(
      m,
      (msg) => {
        // A webhook's denial quoting a Pod Security text (Kyverno's podSecurity rule) is a policy engine's: admission-rejects-proxy.
        const v = /admission webhook "[^"]*" denied the request/.test(msg) ? undefined : podSecurityViolation(msg);
        if (!v) return undefined;
        // Only a capability the init container adds is this check's (its fix is the CNI plugin); a
        // restricted violation naming it for another reason (seccomp, runAsNonRoot: Consul's init
        // container keeps its name with the plugin on) is admission-rejects-proxy's.
        const mesh = meshes.find((y) =>
          v.items.some((i) => addsCapability(i) && i.containers.includes(profileOf(y).cni!.privilegedInit.name)),
        );
        return mesh ? { mesh, level: v.level } : undefined;
      },
      (t) => t.mesh,
    );
    const seen = new Set<string>();
    for (const g of confirmed) {
      const { mesh, level } = g.match;
      seen.add(`${mesh}\u0000${g.resource.kind}/${g.resource.namespace}/${g.resource.name}`);
      const cniState = profileOf(mesh).cni!.enabled(m, g.workload) ?? cniFromPods(m, profileOf(mesh).cni!);
      yield finding(m, mesh, g.resource, REJECTING.includes(level) ? level : undefined, cniState, g, g.workload);
    }
    // Predicted: the namespace enforces a level that rejects the init container the injector would add now.
    if (!m.has('namespaces')) return;
    for (const w of m.appWorkloads) {
      // As Pod Security reads the label: a value that is not a level is restricted (k8s/admission.ts).
      const enforced = enforcedLevel(nsLabelsIfRead(m, w.namespace));
      if (!enforced || !REJECTING.includes(enforced.level)) continue;
      const level = enforced.level;
      for (const mesh of meshes) {
        if (seen.has(`${mesh}\u0000${w.kind}/${w.namespace}/${w.name}`)) continue; // confirmed above
        if (!m.decision(w, mesh)?.inject) continue; // no proxy, no init container
        const cni = profileOf(mesh).cni!;
        // The injected pods show how injection went when they were created; the control plane's own
        // setting (its Deployment) decides now, and where it could not be read nothing tells.
        const cniState =
          cni.enabled(m, w) ?? (m.controlPlaneRefused(mesh, ['deployments']) ? undefined : cniFromPods(m, cni));
        if (cniState?.enabled !== false) continue; // the CNI plugin is on, or nothing tells
        const privileged = cni.privilegedFor?.(m, w);
        if (privileged && !privileged.privileged) continue; // a setting keeps the capabilities off this workload's init container
        yield finding(m, mesh, w.ref, level, cniState, undefined, w, privileged?.from, enforced.invalid);
      }
    }
  },
});
