/**
 * admission-rejects-proxy — an admission layer after the mesh's webhook refuses the injected pod
 * because of the containers the mesh added: Pod Security (a requirement other than the init
 * container's added capabilities, pod-security-blocks-init's), OpenShift's
 * SecurityContextConstraints, a policy engine's webhook (Gatekeeper, Kyverno, any non-mesh
 * webhook whose denial names the injected containers or their capabilities), or a LimitRange.
 *
 * Why: the API server re-runs every mutating admission plugin once a webhook changed the pod and
 * then runs all the validating ones, so each of them judges the injected pod, not the template
 * (kubernetes/apiserver 24a394e5 pkg/admission/plugin/webhook/mutating/dispatcher.go,
 * pkg/admission/reinvocation.go). The controller records the refusal as a FailedCreate event on
 * the ReplicaSet, Job, StatefulSet or DaemonSet:
 * - Pod Security: `violates PodSecurity "restricted:latest": <reason (detail)>, …`
 *   (kubernetes/pod-security-admission 8f84a87c admission/admission.go, policy/check_*.go). A CNI
 *   plugin removes the init container's capabilities, not the rest: seccompProfile (Istio sets
 *   none unless global.proxy.seccompProfile), runAsNonRoot (Kuma's containers set none),
 *   capabilities.drop ALL (Linkerd's proxy drops none unless proxy.capabilities); linkerd/linkerd2#10232.
 * - OpenShift: `unable to validate against any security context constraint: [...]`
 *   (openshift/apiserver-library-go a8019f39 pkg/securitycontextconstraints/sccadmission/admission.go;
 *   the proxy's UID outside the namespace's range, `capability may not be added`): istio/istio#4500,
 *   linkerd/linkerd2#11520.
 * - Policy engines: `admission webhook "validation.gatekeeper.sh" denied the request: [<constraint>]
 *   <msg>` (open-policy-agent/gatekeeper dd8507eb pkg/webhook/policy.go), Kyverno's `resource
 *   Pod/<ns>/<name> was blocked due to the following policies` then `<policy>:` lines
 *   (kyverno/kyverno 111e07bb pkg/webhooks/utils/block.go); deckhouse/deckhouse#7075 (istio-init).
 * - PodSecurityPolicy (before 1.25): `unable to validate against any pod security policy: [...]`
 *   (up to 1.20), `PodSecurityPolicy: unable to admit pod: [...]` / `unable to validate pod: [...]`
 *   (1.21 to 1.24), the same field errors as SCC's (SUSE/scf#2081). A field error names a container
 *   by index: past the template's own containers it was added at admission, and it is named where
 *   the injector adds the only one of that list (istio-validation, istio/istio#22695), else its
 *   candidates are listed. An empty list (`[]`) on an injected workload: validated again after the
 *   webhooks, a policy that would have to change the pod is skipped without an error (v1.24.0
 *   admission.go computeSecurityContext; istio/istio#17318). A template injected before admission
 *   (the mesh CLI, an installer rendering its control plane injected) counts as injected
 *   (linkerd/linkerd2#2819).
 * - The API server's validation: `pods "x" is invalid: [spec.initContainers[1].lifecycle: Forbidden:
 *   ...]` about a container past the template's own (added at admission) or named as the mesh's;
 *   `without restartPolicy=Always` there: a non-mesh mutating webhook called after the mesh's (or
 *   reinvoked) dropped the native sidecar's restartPolicy, and it is named (istio/istio#49221,
 *   #52245; doitintl/kube-secrets-init#53). Every finding lists the admission chain
 *   (src/facts/admission-chain.ts).
 * - LimitRange: `maximum cpu usage per Container is 1, but limit is 2`, `cpu max limit to request
 *   ratio per Container is 4, but provided ratio is 5.000000`, … (kubernetes
 *   plugin/pkg/admission/limitranger/admission.go; every form parsed by structure in
 *   src/k8s/limitrange.ts): the message names no container; it is the mesh's when no container of
 *   the pod template has the value it quotes (the proxy's defaults, or the LimitRange's own
 *   defaults given to a proxy injected without resources), and, for `No limit/request is
 *   specified`, when the LimitRanger defaults that value (a Container max or min always does, the
 *   API server storing `default` from `max` and `defaultRequest` from `min`) and the containers the
 *   mesh injects lack it: they were added after the LimitRanger ran (API servers before 1.15 do not
 *   run it again after a webhook; linkerd/linkerd2#2750, #3748, istio/istio#16126).
 * - The API server's validation refusing a volume or a quoted value, which the template (validated with its workload) did not hold
 *   (a duplicate volume name, a mount path that must be unique): written at admission by a mutating webhook, or by one
 *   run twice (reinvocationPolicy IfNeeded); the field, the value and the webhooks called are named
 *   (linkerd/linkerd2#11254, istio/istio#40993).
 * - SecurityContextDeny (the API server's own plugin, removed in 1.30): `SecurityContext.RunAsUser is forbidden`
 *   names no container; it is the mesh's where the injector sets runAsUser on a container it adds (every mesh's
 *   proxy runs as its own UID), the template's own that set it listed beside (istio/istio#7650, #324).
 * - The API server's validation refusing a pod label the mesh's injector writes from the name of the pod's owner
 *   (`metadata.labels: Invalid value: "<name>": must be no more than 63 characters`; the profiles' runtime.ownerLabels:
 *   Istio's canonical-name, Linkerd's proxy-<kind>), read by the refusal's structure (invalidItems) on an owner of any
 *   kind (a custom resource's event, tied to its pods or inferred): the label, the value's owner and the fix
 *   (istio/istio#48562, #60756, infobloxopen/konk#616); predicted from a long name (istio/istio#25157, `check -f`).
 * - Anything else a workload the mesh injects is refused with, that no other check reads (the webhooks' errors,
 *   ResourceQuota, a missing ServiceAccount) and no layer above recognises: quoted (redacted by the event reader,
 *   bounded), the cause said to be unknown, the injected containers it names and the admission chain given.
 * Predicted (a warning) for Pod Security restricted: a workload the mesh would inject now in a
 * namespace enforcing restricted, whose injected containers (the profile's runtime.injected, the
 * pod template's own securityContext applied) miss a requirement; not the init container without
 * the CNI plugin (pod-security-blocks-init's). Predicted for a LimitRange: its Container items'
 * max, min or maxLimitRequestRatio broken by the resources the injector sets on its containers.
 * When: such events in scope, for owners still missing pods, on a workload a mesh injects (the
 * injection model, or its pods run the proxy) and, except for the LimitRange, naming one of the
 * containers that mesh injects, its proxy's UID or a capability it adds. Events expire (1h).
 * Known false positives: a LimitRange message whose value an app container of another pod
 * template (a Pod-level limit) also reaches.
 * Fix: for that layer: the pod template's securityContext or the mesh's setting (Pod Security),
 * the SCC the mesh documents (OpenShift), an exception in the named constraint or policy (policy
 * engines), the proxy's resources or the LimitRange (LimitRange). The controller retries by itself.
 */
import { choice, cmd, comment, lit, text, type Step } from '../fix/steps.js';
import { failedCreates } from '../k8s/events.js';
import {
  POD_SECURITY_ENFORCE,
  enforcedLevel,
  invalidItems,
  labelValueProblem,
  parseAdmissionError,
  podSecurityViolation,
  type PodSecurityItem,
} from '../k8s/admission.js';
import { containers, initContainers, podSpec } from '../k8s/pods.js';
import { parseQuantity } from '../k8s/quantity.js';
import { defaultedByLimitRanger, isLimitRangeRefusal, limitRangeRefusals } from '../k8s/limitrange.js';
import { formatUnits, nativeSidecar, proxyConfig, quantityUnits, type Resources } from '../facts/resources.js';
import { meshTitle, profileOf, webhookMesh } from '../mesh/registry.js';
import { injectedNames } from '../mesh/proxy.js';
import { meshesAllowed } from '../facts/siblings.js';
import type { Model, Workload } from '../facts/model.js';
import type { MeshName } from '../mesh/names.js';
import type { OwnerLabel, RestrictedRule } from '../mesh/profile.js';
import { printable } from '../util/errors.js';
import { isObj, labelsOf, nameOf, str } from '../util/objects.js';
import { nsLabelsIfRead } from '../facts/sidecarless.js';
import { admissionChainOf, chainEvidence, ADMISSION_CHAIN } from '../facts/admission-chain.js';
import { defineCheck, messages, meta, say, type FindingInput } from './define.js';
import type { Evidence } from './types.js';
import { APP_WORKLOADS, DECISIONS } from '../facts/model.js';
import { APISERVERS, apiservers } from '../facts/apiserver.js';
import { optInPlugin } from '../k8s/apiserver.js';
import { bugsShown, BUGS_SHOWN } from '../facts/known-bugs.js';
import { judgedByPod } from '../k8s/workloads.js';
import { injectorsFor } from '../facts/versions.js';
import { WEBHOOK_TARGETS } from '../facts/controlplane.js';
import { compareSemver } from '../mesh/versions.js';

const MESSAGES = messages({
  'psa-predicted':
    'Namespace {namespace} enforces Pod Security "restricted", which will refuse {mesh}\'s injected {containers} ({reasons}): the next pods of {workload} will not be created.',
  psa: "{enforcer}, which refuses {mesh}'s injected {containers} ({reasons}), so {workload} cannot create its pods.",
  'psp-empty':
    'PodSecurityPolicy admission refuses the injected pods of {workload} and names no field ("[]"): when it validates the pod again after {mesh}\'s webhook, it may no longer change it, so every policy that would have to set a field on the containers {mesh} added is skipped without an error, and none is left.',
  psp: "PodSecurityPolicy admission refuses {mesh}'s injected {containers} in {workload}{why}: no PodSecurityPolicy the pod may use allows {them}, so it cannot create its pods.",
  scc: "OpenShift's SecurityContextConstraints refuse {mesh}'s injected {containers} in {workload}{why}, so it cannot create its pods.",
  'policy-engine': "{layer} refuses the pods of {workload} over {mesh}'s injected {what}{objects}: {reason}",
  limitrange:
    "{limitRanges} in namespace {namespace} refuses the resources of {mesh}'s injected containers, so {workload} cannot create its pods: {items}.",
  'limitrange-unset':
    "{limitRanges} in namespace {namespace} refuses {mesh}'s injected {containers}, which get no {what}: the LimitRanger gave its defaults to the pod's own containers before {mesh}'s webhook added these (an API server before 1.15 does not run it again after a webhook), so {workload} cannot create its pods: {items}.",
  'limitrange-predicted':
    "LimitRange {limitRanges} in namespace {namespace} will refuse the resources of {mesh}'s injected {containers} ({items}): the next pods of {workload} will not be created.",
  'native-sidecar-rewritten':
    "{rewriter} drops restartPolicy: Always from the native sidecar {mesh} injects, and the API server's validation then refuses the pods of {workload}: {fields}.",
  validation:
    "The API server's validation refuses the pods of {workload}: {fields}, a field of a container {whose}{mutating}.",
  'validation-added':
    "The API server's validation refuses the pods of {workload}: {fields}: {what} the pod template did not have (the API server validated it with the workload), so a mutating webhook added them at admission{again}{mutating}.",
  'security-context-deny-predicted':
    "The API server runs the SecurityContextDeny admission plugin ({servers}), which refuses every container that sets securityContext.runAsUser, and {mesh}'s injected {containers} set it ({uids}): the next pods of {workload} will not be created.",
  'security-context-deny':
    "The API server's SecurityContextDeny admission plugin refuses every container that sets securityContext.runAsUser, and {mesh}'s injected {containers} set it ({uids}){own}, so {workload} cannot create its pods.",
  'owner-label':
    '{workload} cannot create its pods: {mesh}\'s injector labels each pod {label}: "{value}", {origin}, and the API server refuses that label value ({reason}){unread}.',
  'owner-label-predicted':
    '{mesh}\'s injector will label the pods of {workload} {label}: "{value}", {origin}, a label value the API server refuses ({reason}): the next pods of {workload} will not be created.',
  unrecognised:
    "{workload}, which {mesh} injects, cannot create its pods: they are refused with a message meshdoctor does not recognise{names}, so which admission layer refuses them, and whether over {mesh}'s containers, is not known: {quote}",
  'validation-known-bug':
    "The API server's validation refuses the pods of {workload}: {fields}, a field of a container {whose}{mutating}. This is a known bug of {meshTitle} {version}, {bug}: {text}. Fixed in {meshTitle} {fixedIn}: upgrade to it or later.",
});

type Said = FindingInput<Evidence, typeof MESSAGES>;

type Layer =
  | 'pod-security'
  | 'openshift-scc'
  | 'pod-security-policy'
  | 'policy-engine'
  | 'validation'
  | 'limitrange'
  | 'security-context-deny'
  | 'owner-label'
  | 'unrecognised';

/**
 * The API server's SecurityContextDeny admission plugin (kubernetes/kubernetes v1.26.0
 * plugin/pkg/admission/securitycontext/scdeny/admission.go; deprecated in 1.27, removed in 1.30): Validate
 * refuses a pod one of whose containers or init containers sets securityContext.runAsUser or seLinuxOptions
 * (`SecurityContext.RunAsUser is forbidden`: no container named), or whose pod securityContext sets
 * supplementalGroups, seLinuxOptions, runAsUser or fsGroup (`pod.Spec.SecurityContext.RunAsUser is forbidden`;
 * `SecurityContext.SupplementalGroups` / `SecurityContext.FSGroup is forbidden` for the pod's before 1.11). It
 * runs after the mutating webhooks, so it judges the containers the injector added (istio/istio#7650, #324).
 */
const SCDENY =
  /(?:^|[\s:])(pod\.Spec\.)?SecurityContext\.(RunAsUser|SELinuxOptions|SupplementalGroups|FSGroup) is forbidden/;
const SCDENY_SOURCE = 'kubernetes/kubernetes v1.26.0 plugin/pkg/admission/securitycontext/scdeny/admission.go';

/**
 * FailedCreate texts another check reads (the webhooks' errors: src/k8s/admission.ts and the webhook checks;
 * ResourceQuota: quota-blocks-proxy; a missing ServiceAccount: serviceaccount-missing): never quoted here as
 * unrecognised.
 */
const READ_ELSEWHERE =
  /exceeded quota|failed quota|serviceaccount "[^"\n]{1,253}" not found|error looking up service account/;

const SCC = /unable to validate against any security context constraint: ([^\n]{0,4000})/;
/**
 * kubernetes plugin/pkg/admission/security/podsecuritypolicy/admission.go (removed in 1.25): the same
 * field errors as SCC's. Up to 1.20 `unable to validate against any pod security policy: [...]`; from
 * 1.21 (v1.24.0) `PodSecurityPolicy: unable to admit pod: [...]` (Admit, re-run after a webhook changed
 * the pod) and `PodSecurityPolicy: unable to validate pod: [...]` (Validate, after the webhooks).
 */
const PSP =
  /(?:unable to validate against any pod security policy|PodSecurityPolicy: unable to (?:admit|validate) pod): ([^\n]{0,4000})/;
/**
 * The API server's own validation of the pod (`pods "x" is invalid: [<path>: <type>: <detail>, …]`,
 * kubernetes staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go): the items about a
 * container, by index.
 */
const INVALID = /is invalid: \[?([\s\S]{0,4000})/;
/** An item of that list about one of the pod's volumes, by index. */
const VOLUME =
  /spec\.volumes\[(\d{1,4})\]((?:\.[A-Za-z][A-Za-z0-9]{0,63}){0,6}): ([A-Z][a-z]+(?: [a-z]+)?)(?:: ([^\n]{0,400}?))?(?=, spec\.|\]?$)/g;
const FIELD =
  /spec\.(initContainers|containers)\[(\d{1,4})\]((?:\.[A-Za-z][A-Za-z0-9]{0,63}(?:\[[^\]]{0,64}\])?){0,8}): ([A-Z][a-z]+(?: [a-z]+)?)(?:: ([^\n]{0,400}?))?(?=, spec\.|\]?$)/g;
interface Match {
  layer: Layer;
  message: string;
  /** Pod Security: the level and its items. */
  psa?: { level: string; items: PodSecurityItem[] };
  /** Policy engine: the webhook and its reason. */
  hook?: string;
  reason?: string;
}

/**
 * kubernetes/kubernetes v1.24.0 plugin/pkg/admission/security/podsecuritypolicy/admission.go
 * (computeSecurityContext): Validate runs it with specMutationAllowed false, and a policy under which
 * the pod validates only once changed (`mutated && !specMutationAllowed`) is skipped without an error;
 * Admit (before the mutating webhooks, plugins.go order) applied its defaults to the template's
 * containers only. Removed in 1.25.
 */
const PSP_VALIDATE_SOURCE =
  'kubernetes/kubernetes v1.24.0 plugin/pkg/admission/security/podsecuritypolicy/admission.go computeSecurityContext (validation: a policy that would mutate the pod is skipped, no error)';

/** The reason of a Pod Security item as a restricted rule. */
function ruleOf(reason: string): RestrictedRule | undefined {
  if (/^allowPrivilegeEscalation/.test(reason)) return 'allowPrivilegeEscalation';
  if (/capabilities$/.test(reason)) return 'capabilities';
  if (/^runAsNonRoot/.test(reason)) return 'runAsNonRoot';
  if (/^runAsUser/.test(reason)) return 'runAsUser';
  if (/^seccompProfile/.test(reason)) return 'seccompProfile';
  if (/^privileged/.test(reason)) return 'privileged';
  return undefined;
}

/** The pod-security-blocks-init item (the init container's added capabilities): that check's. */
const blocksInit = (mesh: MeshName, i: PodSecurityItem) =>
  /capabilities$/.test(i.reason) &&
  /must not include/.test(i.detail) &&
  !!profileOf(mesh).cni &&
  i.containers.includes(profileOf(mesh).cni!.privilegedInit.name);

/**
 * The workload injected by this mesh: the model says a pod created now would be, its pods run its
 * proxy, or its pod template already carries it (injected before admission: `linkerd inject`,
 * `istioctl kube-inject`, a control plane its installer rendered injected, linkerd/linkerd2#2819).
 */
function injects(m: Model, w: Workload, mesh: MeshName): boolean {
  if (m.decision(w, mesh)?.inject) return true;
  const proxy = profileOf(mesh).containers.proxy;
  const has = (spec: Record<string, any>) =>
    [...containers(spec), ...initContainers(spec)].some((c) => c.name === proxy);
  return has(podSpec(w.template)) || w.pods.some((p) => has(podSpec(p)));
}

/** A field error of a PodSecurityPolicy or SCC refusal about a container, by its index in the pod. */
interface ContainerFieldError {
  list: 'containers' | 'initContainers';
  index: number;
  field: string;
  detail: string;
}

/**
 * The container items of a PodSecurityPolicy or SCC refusal (`spec.initContainers[0].securityContext.
 * readOnlyRootFilesystem: Invalid value: false: ReadOnlyRootFilesystem must be set to true`, items
 * separated by spaces inside `[...]`: field.ErrorList as %v), bounded to 16.
 */
function containerFieldErrors(message: string): ContainerFieldError[] {
  const out: ContainerFieldError[] = [];
  const re =
    /spec\.(initContainers|containers)\[(\d{1,4})\]((?:\.[A-Za-z][A-Za-z0-9]{0,63}){0,6}): ((?:Invalid value|Forbidden|Required value|Unsupported value)[^\n]{0,400}?)(?= \.?spec\.| provider |\]|, |$)/g;
  for (const x of message.slice(0, 8000).matchAll(re)) {
    if (out.length >= 16) break;
    out.push({
      list: x[1] as 'containers' | 'initContainers',
      index: Number(x[2]),
      field: `spec.${x[1]}[${x[2]}]${x[3]}`,
      detail: x[4]!.replace(/^Invalid value: (?:"[^"]{0,64}"|[^:]{0,64}): /, ''),
    });
  }
  return out;
}

/**
 * Where the mesh's own setting leaves it uncertain whether the proxy is a native sidecar: what the
 * namespace's other pods running the proxy show (the same injector's last answer there), both where
 * they disagree or there are none. Bounded: 500 pods.
 */
function nativeInNamespace(m: Model, mesh: MeshName, ns: string): boolean[] {
  const proxy = profileOf(mesh).containers.proxy;
  const seen = new Set<boolean>();
  for (const pod of m.list('pods').slice(0, 500)) {
    if (pod.metadata?.namespace !== ns) continue;
    if (initContainers(podSpec(pod)).some((c) => c.name === proxy)) seen.add(true);
    else if (containers(podSpec(pod)).some((c) => c.name === proxy)) seen.add(false);
  }
  return seen.size === 1 ? [...seen] : [false, true];
}

/**
 * The container a refusal's index names in the injected pod: the template's own (by name) where the
 * index is within the template's list, else one the injector added. The injected pod's order past the
 * template is the injector's: a container is named only where the template has none of that list and
 * the injector adds exactly one of it (with the CNI plugin on or off as the mesh's configuration says;
 * both where it could not be read), else the candidates are listed.
 */
function containerAt(
  m: Model,
  w: Workload,
  mesh: MeshName,
  e: ContainerFieldError,
): { name?: string; candidates: string[]; added: boolean } {
  const spec = podSpec(w.template);
  const own = e.list === 'containers' ? containers(spec) : initContainers(spec);
  if (e.index < own.length) return { name: own[e.index]!.name, candidates: [], added: false };
  const p = profileOf(mesh);
  const cni = p.cni?.enabled(m, w)?.enabled;
  const states = cni === undefined ? (p.cni ? [false, true] : [false]) : [cni];
  // A native sidecar proxy sits in initContainers (facts/resources.ts nativeSidecar; both where uncertain).
  const n = nativeSidecar(m, mesh, w);
  const natives = n.uncertain ? nativeInNamespace(m, mesh, w.namespace) : [n.native];
  const lists = states.flatMap((c) =>
    natives.map((native) =>
      p.runtime
        .injected(m, w, c)
        .filter((x) => (x.init || (native && x.name === p.containers.proxy)) === (e.list === 'initContainers'))
        .map((x) => x.name),
    ),
  );
  const candidates = [...new Set(lists.flat())];
  const single = own.length === 0 && lists.every((l) => l.length === 1);
  return { ...(single && candidates.length === 1 ? { name: candidates[0] } : {}), candidates, added: true };
}

/** The words a denial or an SCC message would use for a mesh's injected containers: their names, the capabilities they add, the proxy's UID. */
function signsOf(m: Model, w: Workload, mesh: MeshName): { names: string[]; caps: string[]; uids: number[] } {
  const p = profileOf(mesh);
  const all = [...p.runtime.injected(m, w, false), ...p.runtime.injected(m, w, true)];
  return {
    names: [...injectedNames(p)],
    caps: [...new Set(all.flatMap((c) => c.securityContext.add ?? []))],
    uids: [...new Set(all.flatMap((c) => (c.securityContext.runAsUser ? [c.securityContext.runAsUser] : [])))],
  };
}

const wordIn = (text: string, word: string) =>
  new RegExp(`(^|[^A-Za-z0-9_.-])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9_-])`).test(text);

/** The pod template's containers' values for a resource ("cpu", "memory"): limits and requests, parsed. */
function templateValues(w: Workload, resource: string, kind: 'limits' | 'requests'): (number | undefined)[] {
  const spec = podSpec(w.template);
  return [...containers(spec), ...initContainers(spec)].map((c) => {
    const r = isObj(c.resources) && isObj(c.resources[kind]) ? c.resources[kind][resource] : undefined;
    return typeof r === 'string' || typeof r === 'number' ? parseQuantity(String(r)) : undefined;
  });
}

/**
 * The LimitRange items of a message that the pod template's own containers do not explain
 * (src/k8s/limitrange.ts parses every form the LimitRanger writes), and the containers the mesh
 * injects without a value the LimitRanger would have defaulted: it gives its defaults to every
 * container it sees, so one it refuses for a missing value was added after it ran.
 */
function limitItems(m: Model, message: string, w: Workload, mesh: MeshName): { items: string[]; unset: UnsetValue[] } {
  const out: string[] = [];
  const unset: UnsetValue[] = [];
  const ranges = m.has('limitranges')
    ? m.list('limitranges').filter((lr) => lr.metadata?.namespace === w.namespace)
    : undefined;
  for (const x of limitRangeRefusals(message)) {
    if (out.length >= 16) break;
    if (out.includes(x.text)) continue; // one item per container: the same words twice
    if (x.per !== 'Container') {
      out.push(x.text);
      continue;
    }
    if (x.bound === 'ratio' && x.observed) {
      const limits = templateValues(w, x.resource, 'limits');
      const requests = templateValues(w, x.resource, 'requests');
      const r = Number(x.observed.value);
      if (limits.some((l, i) => l !== undefined && requests[i] && Math.abs(l / requests[i]! - r) < 1e-3)) continue; // an app container's own ratio
    } else if (x.observed && x.observed.of !== 'ratio') {
      const v = parseQuantity(x.observed.value);
      const kind = x.observed.of === 'limit' ? 'limits' : 'requests';
      if (templateValues(w, x.resource, kind).some((t) => t !== undefined && t === v)) continue; // an app container's own value
    } else if (x.missing) {
      const kind = x.missing === 'limit' ? 'limits' : 'requests';
      if (defaultedByLimitRanger(x, ranges) === true) {
        // Every container the LimitRanger saw got its default: the refused one came later.
        const lacking = injectedResources(m, w, mesh)
          ?.filter((c) => c.res[kind][x.resource as 'cpu' | 'memory'] === undefined)
          .map((c) => c.name);
        if (lacking && lacking.length === 0) continue; // the mesh sets it: another webhook's container
        if (lacking) unset.push({ containers: lacking, what: `${x.resource} ${x.missing}` });
      } else if (templateValues(w, x.resource, kind).some((t) => t === undefined)) continue; // an app container lacks it too
    }
    out.push(x.text);
  }
  return { items: out, unset };
}

interface UnsetValue {
  containers: string[];
  what: string;
}

/** A pod template change under spec.securityContext, where the workload's template has a plain path (not for Jobs, CronJobs or Pods). */
function podSecurityContext(w: Workload, path: string, key: string, value: string | boolean): Step[] {
  // A manifest (check -f) is edited in its file, whatever its kind; a live Job's or CronJob's template path is not a plain patch.
  const plain =
    !!w.manifest || (['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet'].includes(w.kind) && !!w.templatePath);
  return plain
    ? [
        {
          kind: 'edit',
          target: {
            kind: w.kind,
            namespace: w.namespace,
            name: w.name,
            ...(w.manifest ? { manifest: w.manifest } : {}),
            templatePath: w.templatePath,
          },
          template: true,
          path,
          changes: [{ key, value }],
        },
      ]
    : [
        comment`in the pod template of ${`${w.kind}/${w.name}`} set ${`${path}.${key}: ${String(value)}`}`,
        cmd`kubectl edit ${w.kind.toLowerCase()} ${w.name} -n ${w.namespace}`,
      ];
}

/** Pod Security: what to change for each item about the injected containers. */
function podSecurityFix(
  m: Model,
  w: Workload,
  mesh: MeshName,
  items: PodSecurityItem[],
  level: string,
  cpNs: string,
): Step[] {
  const p = profileOf(mesh);
  const cniOn = p.cni?.enabled(m, w)?.enabled;
  const out: Step[] = [];
  const seen = new Set<string>();
  const once = (key: string, steps: () => Step[]) => {
    if (seen.has(key)) return;
    seen.add(key);
    out.push(...steps());
  };
  for (const i of items) {
    const rule = ruleOf(i.reason);
    for (const c of i.containers.filter((n) => injectedNames(p).includes(n))) {
      const own = rule ? p.runtime.restrictedFix?.(rule, c, cpNs) : undefined;
      if (rule === 'seccompProfile') {
        once('seccomp', () => [
          ...podSecurityContext(w, 'spec.securityContext.seccompProfile', 'type', 'RuntimeDefault'),
          ...(own ?? []),
        ]);
      } else if (rule === 'runAsNonRoot' && /pod or/.test(i.detail)) {
        once('nonroot', () => [...podSecurityContext(w, 'spec.securityContext', 'runAsNonRoot', true), ...(own ?? [])]);
      } else if (own) {
        once(`${rule}/${c}`, () => own);
      } else if (p.cni && c === p.cni.privilegedInit.name && cniOn !== true) {
        // The init container without the CNI plugin runs as root or privileged: the plugin replaces it.
        once('cni', () => p.cni!.install(cpNs));
      } else {
        once(`${i.reason}/${c}`, () => [
          comment`${meshTitle(mesh)} sets ${i.reason} on ${c} itself: ${printable(i.detail, 200)}`,
        ]);
      }
    }
  }
  if (level === 'restricted')
    out.push(
      choice(
        [],
        [
          {
            label: text`or enforce baseline instead, which lowers Pod Security for every pod in namespace ${w.namespace}`,
            steps: [
              cmd`kubectl label namespace ${w.namespace} ${'pod-security.kubernetes.io/enforce=baseline'} --overwrite`,
            ],
          },
        ],
      ),
    );
  return out;
}

/**
 * The container paths a denial names (`spec.initContainers[1]`, Kyverno's `/spec/initContainers/1/...`)
 * whose index is past the pod template's own containers of that list: containers added at admission.
 */
function addedContainerPaths(reason: string, w: Workload): string[] {
  const spec = podSpec(w.template);
  const count = { containers: containers(spec).length, initContainers: initContainers(spec).length };
  const out = new Set<string>();
  for (const x of reason.matchAll(/spec(?:\.|\/)(initContainers|containers)(?:\[|\/)(\d{1,4})/g)) {
    if (out.size >= 16) break;
    const list = x[1] as 'containers' | 'initContainers';
    if (Number(x[2]) >= count[list]) out.add(`spec.${list}[${x[2]}]`);
  }
  return [...out];
}

/**
 * The image references a refusal quotes that are the mesh's proxy image (the profile's containers.image), and no
 * container of the pod template runs: an image policy (a registry allow-list, a signature check) judging the
 * container the injector added, whose name the message may not give. At most 16 references read.
 */
function proxyImagesIn(text: string, w: Workload, mesh: MeshName): string[] {
  const re = profileOf(mesh).containers.image;
  const spec = podSpec(w.template);
  const own = new Set([...containers(spec), ...initContainers(spec)].map((c) => str(c.image)).filter(Boolean));
  const refs = [
    ...text
      .slice(0, 8000)
      .matchAll(
        /[A-Za-z0-9][A-Za-z0-9.-]{0,252}(?::\d{1,5})?(?:\/[a-z0-9][a-z0-9._-]{0,127}){1,8}(?::[\w][\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?/g,
      ),
  ]
    .slice(0, 16)
    .map((x) => x[0]);
  return [...new Set(refs.filter((r) => re.test(r) && !own.has(r)))];
}

/** The Gatekeeper constraints or Kyverno policies a denial names. */
function policiesOf(hook: string, reason: string): { engine: string; objects: string[] } {
  if (/gatekeeper/.test(hook))
    return {
      engine: 'Gatekeeper',
      objects: [...new Set([...reason.matchAll(/^\[([^\]\n]{1,253})\] /gm)].map((x) => x[1]!))].slice(0, 16),
    };
  if (/kyverno/.test(hook)) {
    const after = reason.split(/was blocked due to the following polic(?:ies|y)/)[1];
    const names = after ? [...after.matchAll(/^([A-Za-z0-9][A-Za-z0-9.-]{0,252}):\s*$/gm)].map((x) => x[1]!) : [];
    const old = [...reason.matchAll(/policy ([A-Za-z0-9][A-Za-z0-9.-]{0,252}) for resource/g)].map((x) => x[1]!);
    return { engine: 'Kyverno', objects: [...new Set([...names, ...old])].slice(0, 16) };
  }
  return { engine: 'the webhook', objects: [] };
}

export default defineCheck({
  ...meta('admission-rejects-proxy'),
  facts: [APP_WORKLOADS, DECISIONS, ADMISSION_CHAIN, APISERVERS, BUGS_SHOWN, WEBHOOK_TARGETS],
  messages: MESSAGES,
  *run(m) {
    const meshes = meshesAllowed(m).filter((x) => m.meshPossible(x));
    if (meshes.length === 0) return;
    const groups = failedCreates(
      m,
      (msg): Match | undefined => {
        // A webhook's denial first: Kyverno's podSecurity rule quotes a "violates PodSecurity" text of its own.
        const d = parseAdmissionError(msg);
        if (d?.kind === 'denied')
          return webhookMesh({ name: d.webhook, configName: '' })
            ? undefined
            : { layer: 'policy-engine', message: msg, hook: d.webhook, reason: d.reason };
        const psa = podSecurityViolation(msg);
        if (psa) return { layer: 'pod-security', message: msg, psa };
        if (SCC.test(msg)) return { layer: 'openshift-scc', message: msg };
        if (PSP.test(msg)) return { layer: 'pod-security-policy', message: msg };
        if (INVALID.test(msg) && /spec\.(?:initContainers|containers|volumes)\[\d/.test(msg))
          return { layer: 'validation', message: msg };
        // A pod label value the API server refuses (an injector's label from its owner's name), by the error's structure.
        if (invalidItems(msg).some((i) => i.field === 'metadata.labels' && i.value !== undefined))
          return { layer: 'owner-label', message: msg };
        if (isLimitRangeRefusal(msg)) return { layer: 'limitrange', message: msg };
        if (SCDENY.test(msg)) return { layer: 'security-context-deny', message: msg };
        // Any other refusal of an injected workload is quoted rather than dropped (finding: the mesh's workloads only).
        if (d || READ_ELSEWHERE.test(msg)) return undefined;
        return { layer: 'unrecognised', message: msg };
      },
      (t) => `${t.layer}/${t.hook ?? ''}`,
      // Events on owners of any kind (a custom resource's): read for the labels an injector writes from the owner's name.
      true,
    );
    const confirmed = new Set<string>();
    for (const g of groups) {
      const w = g.workload;
      // A workload inferred from the event's owner (no pod, a kind not read): only what ties the refusal to the mesh.
      if (!w || (g.inferred && g.match.layer !== 'owner-label')) continue;
      for (const mesh of meshes) {
        if (!injects(m, w, mesh)) continue;
        const f = finding(m, w, mesh, g);
        if (f) {
          confirmed.add(`${g.match.layer}\u0000${mesh}\u0000${w.kind}/${w.namespace}/${w.name}`);
          yield f;
          break; // one mesh's containers per refusal
        }
      }
    }
    // Predicted: an API server whose flags turn SecurityContextDeny on (a kube-apiserver pod of kube-system, a k3s
    // server node), and the containers the injector would add now set runAsUser.
    const denying = apiservers(m)
      .filter((i) => !i.source.namespace || m.seesNamespace(i.source.namespace))
      .flatMap((i) => {
        const s = optInPlugin(i.flags, 'SecurityContextDeny');
        return s.on
          ? [
              {
                source: `${i.source.kind} ${i.source.namespace ? `${i.source.namespace}/` : ''}${i.source.name}`,
                flag: s.flag ?? '',
              },
            ]
          : [];
      });
    if (denying.length)
      for (const w of m.appWorkloads) {
        if (judgedByPod(w)) continue; // its pods were admitted already: only a template predicts the next ones
        for (const mesh of meshes) {
          if (!m.decision(w, mesh)?.inject) continue;
          if (confirmed.has(`security-context-deny\u0000${mesh}\u0000${w.kind}/${w.namespace}/${w.name}`)) continue;
          const f = predictedSecurityContextDeny(m, w, mesh, denying);
          if (f) yield f;
        }
      }
    // Predicted: a label the injector writes from the owner's name that the API server will refuse (a long name).
    for (const w of m.appWorkloads) {
      if (judgedByPod(w)) continue;
      for (const mesh of meshes) {
        if (confirmed.has(`owner-label\u0000${mesh}\u0000${w.kind}/${w.namespace}/${w.name}`)) continue;
        if (!m.decision(w, mesh)?.inject) continue;
        const f = predictedOwnerLabel(m, w, mesh);
        if (f) yield f;
      }
    }
    // Predicted: a namespace enforcing restricted, and the containers the injector would add now miss a requirement;
    // a LimitRange whose bounds the resources the injector gives its containers break.
    if (!m.has('namespaces')) return;
    for (const w of m.appWorkloads) {
      // A bare pod (or an unknown owner's, judged by its pods) has no next pod meshdoctor can predict: whatever
      // admission said, it said when they were created.
      if (judgedByPod(w)) continue;
      const restricted = enforcedLevel(nsLabelsIfRead(m, w.namespace))?.level === 'restricted'; // an invalid value too
      for (const mesh of meshes) {
        const id = `${mesh}\u0000${w.kind}/${w.namespace}/${w.name}`;
        if (!m.decision(w, mesh)?.inject) continue;
        const f = restricted && !confirmed.has(`pod-security\u0000${id}`) ? predicted(m, w, mesh) : undefined;
        if (f) yield f;
        const l = confirmed.has(`limitrange\u0000${id}`) ? undefined : predictedLimitRange(m, w, mesh);
        if (l) yield l;
      }
    }
  },
});

const RESTRICTED_SECCOMP = ['RuntimeDefault', 'Localhost'];

/**
 * The restricted requirements the containers the injector would add now miss, as Pod Security words
 * them (kubernetes/pod-security-admission 8f84a87c policy/check_allowPrivilegeEscalation.go,
 * check_capabilities_restricted.go, check_runAsNonRoot.go, check_runAsUser.go,
 * check_seccompProfile_restricted.go, check_privileged.go), with the pod template's own
 * securityContext (runAsNonRoot, runAsUser, seccompProfile) applied. Without the CNI plugin the
 * init container is pod-security-blocks-init's (its fix, the plugin, removes it): left out here.
 */
function predictedItems(m: Model, w: Workload, mesh: MeshName): PodSecurityItem[] | undefined {
  const p = profileOf(mesh);
  const cni = p.cni ? p.cni.enabled(m, w) : { enabled: false, from: '' };
  if (!cni) return undefined; // which containers the injector adds is not known
  const pod = isObj(podSpec(w.template).securityContext)
    ? (podSpec(w.template).securityContext as Record<string, any>)
    : {};
  const podNonRoot = pod.runAsNonRoot === true;
  const podSeccomp = isObj(pod.seccompProfile) ? str(pod.seccompProfile.type) : undefined;
  const items: PodSecurityItem[] = [];
  const add = (reason: string, c: string, detail: string) =>
    items.push({ reason, detail: `container "${c}" ${detail}`, containers: [c] });
  for (const c of p.runtime.injected(m, w, cni.enabled)) {
    if (!cni.enabled && p.cni && c.name === p.cni.privilegedInit.name) continue;
    const sc = c.securityContext;
    if (sc.privileged === true) add('privileged', c.name, 'must not set securityContext.privileged=true');
    if (sc.allowPrivilegeEscalation !== false)
      add('allowPrivilegeEscalation != false', c.name, 'must set securityContext.allowPrivilegeEscalation=false');
    const extra = (sc.add ?? []).filter((x) => x !== 'NET_BIND_SERVICE');
    if (!(sc.drop ?? []).includes('ALL'))
      add('unrestricted capabilities', c.name, 'must set securityContext.capabilities.drop=["ALL"]');
    if (extra.length)
      add(
        'unrestricted capabilities',
        c.name,
        `must not include ${extra.map((x) => `"${x}"`).join(', ')} in securityContext.capabilities.add`,
      );
    if (sc.runAsNonRoot === false)
      add('runAsNonRoot != true', c.name, 'must not set securityContext.runAsNonRoot=false');
    else if (sc.runAsNonRoot === undefined && !podNonRoot)
      items.push({
        reason: 'runAsNonRoot != true',
        detail: `pod or container "${c.name}" must set securityContext.runAsNonRoot=true`,
        containers: [c.name],
      });
    if (sc.runAsUser === 0) add('runAsUser=0', c.name, 'must not set runAsUser=0');
    if (!RESTRICTED_SECCOMP.includes(sc.seccomp ?? podSeccomp ?? ''))
      items.push({
        reason: 'seccompProfile',
        detail: `pod or container "${c.name}" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
        containers: [c.name],
      });
  }
  return items;
}

/** The predicted finding (a warning: the running pods stay, their replacements will be refused). */
function predicted(m: Model, w: Workload, mesh: MeshName): Said | undefined {
  const items = predictedItems(m, w, mesh);
  if (!items?.length) return undefined;
  const p = profileOf(mesh);
  const cpNs = m.mesh(mesh)?.namespaces[0] ?? p.controlPlane.namespace;
  const named = [...new Set(items.flatMap((i) => i.containers))];
  const reasons = [...new Set(items.map((i) => i.reason))];
  return {
    mesh,
    severity: 'warning',
    ...say(MESSAGES, 'psa-predicted', {
      namespace: w.namespace,
      mesh: meshTitle(mesh),
      containers: named.join(', '),
      reasons: reasons.join('; '),
      workload: `${w.kind} ${w.namespace}/${w.name}`,
    }),
    resource: w.ref,
    affectedPods: Math.max(w.pods.length, 1),
    evidence: {
      layer: 'pod-security',
      namespace: w.namespace,
      level: 'restricted',
      predicted: true,
      violations: items.map((i) => ({ reason: i.reason, detail: i.detail, containers: i.containers })),
      injectedFrom: p.runtime.injectedFrom,
      rule: 'kubernetes/pod-security-admission 8f84a87c policy/check_*.go',
    },
    fix: podSecurityFix(m, w, mesh, items, 'restricted', cpNs),
  };
}

function finding(
  m: Model,
  w: Workload,
  mesh: MeshName,
  g: {
    match: Match;
    count: number;
    last?: string;
    objects: Set<string>;
    missing: number;
    message: string;
    inferred?: boolean;
  },
): Said | undefined {
  const p = profileOf(mesh);
  const cpNs = m.mesh(mesh)?.namespaces[0] ?? p.controlPlane.namespace;
  let { layer } = g.match;
  const msg = g.message;
  const signs = signsOf(m, w, mesh);
  const id = `${w.kind} ${w.namespace}/${w.name}`;
  const events = { count: g.count, lastTimestamp: g.last ?? null, objects: [...g.objects].sort(), message: msg };
  const base = { mesh, resource: w.ref, affectedPods: Math.max(g.missing, 1) };
  const retry = comment`the controller retries by itself once this is done`;
  if (layer === 'pod-security') {
    const v = podSecurityViolation(msg)!;
    const items = v.items.filter((i) => i.containers.some((c) => signs.names.includes(c)) && !blocksInit(mesh, i));
    if (items.length === 0) return undefined;
    const named = [...new Set(items.flatMap((i) => i.containers.filter((c) => signs.names.includes(c))))];
    return {
      ...base,
      ...say(MESSAGES, 'psa', {
        // A namespace read without the enforce label: the API server's PodSecurity default refused (pod-security-blocks-init).
        enforcer:
          (nsLabelsIfRead(m, w.namespace) ?? { [POD_SECURITY_ENFORCE]: '' })[POD_SECURITY_ENFORCE] === undefined
            ? `Pod Security "${v.level}" is enforced in namespace ${w.namespace} by the API server's cluster-wide default (its PodSecurity admission configuration: the namespace has no ${POD_SECURITY_ENFORCE} label)`
            : `Namespace ${w.namespace} enforces Pod Security "${v.level}"`,
        mesh: meshTitle(mesh),
        containers: named.join(', '),
        reasons: items.map((i) => i.reason).join('; '),
        workload: id,
      }),
      evidence: {
        layer,
        namespace: w.namespace,
        level: v.level,
        violations: items.map((i) => ({
          reason: i.reason,
          detail: printable(i.detail, 400),
          containers: i.containers,
        })),
        injectedFrom: p.runtime.injectedFrom,
        rule: 'kubernetes/pod-security-admission 8f84a87c policy/check_*.go',
        admissionChain: chainEvidence(admissionChainOf(m, w)),
        events,
      },
      fix: [...podSecurityFix(m, w, mesh, items, v.level, cpNs), retry],
    };
  }
  if (layer === 'validation') return validationFinding(m, w, mesh, g, signs, base, events, retry);
  if (layer === 'owner-label') {
    const f = ownerLabelFinding(m, w, mesh, g, base, events, retry);
    if (f || g.inferred) return f;
    layer = 'unrecognised'; // a label value the mesh does not write: quoted as before
  }
  if (layer === 'security-context-deny') return securityContextDenyFinding(m, w, mesh, msg, base, events, retry);
  if (layer === 'unrecognised') {
    const names = [
      ...signs.names.filter((n) => wordIn(msg, n)),
      ...proxyImagesIn(msg, w, mesh).map((i) => `proxy image ${i}`),
    ];
    return {
      ...base,
      ...say(MESSAGES, 'unrecognised', {
        workload: id,
        mesh: meshTitle(mesh),
        names: names.length ? ` (it names ${meshTitle(mesh)}'s injected ${names.join(', ')})` : '',
        quote: `"${printable(msg.replace(/\s+/g, ' '), 300)}"`,
      }),
      evidence: {
        layer,
        cause: 'not known: the message names no admission layer meshdoctor reads',
        namesInjected: names,
        admissionChain: chainEvidence(admissionChainOf(m, w)),
        events,
      },
      fix: [
        comment`the full refusal, and the admission webhooks that could have written it`,
        cmd`kubectl get events -n ${w.namespace} --field-selector ${'reason=FailedCreate'}`,
        cmd`kubectl get mutatingwebhookconfigurations,validatingwebhookconfigurations`,
        retry,
      ],
    };
  }
  if (layer === 'openshift-scc' || layer === 'pod-security-policy') {
    const uids = [
      ...msg.matchAll(/runAsUser: Invalid value: (\d{1,10}): must be in the ranges: \[(\d{1,10}), (\d{1,10})\]/g),
    ].map((x) => ({
      uid: Number(x[1]),
      range: [Number(x[2]), Number(x[3])],
    }));
    const caps = [...msg.matchAll(/Invalid value: "([A-Z_]{1,32})": capability may not be added/g)].map((x) => x[1]!);
    const privileged = /Privileged containers are not allowed/.test(msg);
    const ours = uids.filter((u) => signs.uids.includes(u.uid));
    const ourCaps = caps.filter((c) => signs.caps.includes(c));
    // The items about a container the mesh injected: named by the template (injected before admission)
    // or past the template's own containers (added at admission).
    const fieldItems = containerFieldErrors(msg)
      .map((e) => ({ ...e, at: containerAt(m, w, mesh, e) }))
      .filter((e) => e.at.added || (e.at.name !== undefined && signs.names.includes(e.at.name)));
    const injectedNamed = [
      ...new Set(
        fieldItems.flatMap((e) =>
          e.at.name ? [e.at.name] : e.at.candidates.length ? [e.at.candidates.join(' or ')] : [],
        ),
      ),
    ];
    const emptyPsp = layer === 'pod-security-policy' && PSP.exec(msg)?.[1]?.trim() === '[]';
    if (
      ours.length === 0 &&
      ourCaps.length === 0 &&
      fieldItems.length === 0 &&
      !signs.names.some((n) => wordIn(msg, n)) &&
      !emptyPsp
    )
      return undefined;
    const providers = [
      ...new Set([...msg.matchAll(/provider "?([a-z0-9][a-z0-9.-]{0,252})"?: /g)].map((x) => x[1]!)),
    ].slice(0, 16);
    const why = [
      ...ours.map((u) => `UID ${u.uid} is outside the namespace's range ${u.range[0]}-${u.range[1]}`),
      ...(ourCaps.length ? [`${ourCaps.join(', ')} may not be added`] : []),
      ...(privileged ? ['privileged containers are not allowed'] : []),
      ...fieldItems
        .filter(
          (e) =>
            !/capability may not be added|Privileged containers are not allowed|must be in the ranges/.test(e.detail),
        )
        .slice(0, 4)
        .map((e) => `${e.field}: ${printable(e.detail, 160)}`),
    ];
    const whose = injectedNamed.length ? injectedNamed.join(', ') : 'containers';
    const injectedList = signs.names.filter((n) =>
      [...containers(podSpec(w.template)), ...initContainers(podSpec(w.template))].every((c) => c.name !== n),
    );
    if (emptyPsp && fieldItems.length === 0 && ours.length === 0 && ourCaps.length === 0)
      // Validated again after the mutating webhooks, a policy that would have to change the pod (default a
      // field the injected containers lack) is skipped without an error: none left, nothing named.
      return {
        ...base,
        ...say(MESSAGES, 'psp-empty', { workload: id, mesh: meshTitle(mesh) }),
        evidence: {
          layer,
          namespace: w.namespace,
          injected: injectedList,
          rule: PSP_VALIDATE_SOURCE,
          injectedFrom: p.runtime.injectedFrom,
          admissionChain: chainEvidence(admissionChainOf(m, w)),
          events,
        },
        fix: [
          comment`give the containers ${meshTitle(mesh)} injects, in its injection template, the securityContext fields the policy of these pods would set, or inject them before admission with the mesh CLI`,
          comment`PodSecurityPolicy was removed in Kubernetes 1.25`,
          cmd`kubectl get podsecuritypolicies`,
          retry,
        ],
      };
    if (layer === 'pod-security-policy')
      return {
        ...base,
        ...say(MESSAGES, 'psp', {
          mesh: meshTitle(mesh),
          containers: whose,
          workload: id,
          why: why.length ? ` (${why.join('; ')})` : '',
          them: injectedNamed.length === 1 ? 'it' : 'them',
        }),
        evidence: {
          layer,
          namespace: w.namespace,
          uids: ours,
          capabilities: ourCaps,
          privileged,
          ...(fieldItems.length
            ? {
                fields: fieldItems.map((e) => ({
                  field: e.field,
                  detail: printable(e.detail, 200),
                  container: e.at.name ?? null,
                  ...(e.at.name ? {} : { candidates: e.at.candidates }),
                  addedAtAdmission: e.at.added,
                })),
              }
            : {}),
          injectedFrom: p.runtime.injectedFrom,
          admissionChain: chainEvidence(admissionChainOf(m, w)),
          events,
        },
        fix: [
          p.cni?.enabled(m, w)?.enabled
            ? comment`a PodSecurityPolicy that the ServiceAccount of the pods may use must allow what ${meshTitle(mesh)} injects${lit(injectedNamed.length ? `, ${injectedNamed.join(', ')},` : '')} or the injection template must set what the policy requires. PodSecurityPolicy was removed in Kubernetes 1.25`
            : comment`a PodSecurityPolicy that the ServiceAccount of the pods may use must allow what ${meshTitle(mesh)} injects${lit(ourCaps.length ? `, capabilities ${ourCaps.join(', ')},` : '')} or the CNI plugin of the mesh must replace its init container. PodSecurityPolicy was removed in Kubernetes 1.25`,
          cmd`kubectl get podsecuritypolicies`,
          ...(p.cni && !p.cni.enabled(m, w)?.enabled ? p.cni.install(cpNs) : []),
          retry,
        ],
      };
    return {
      ...base,
      ...say(MESSAGES, 'scc', {
        mesh: meshTitle(mesh),
        containers: whose,
        workload: id,
        why: why.length ? ` (${why.join('; ')})` : '',
      }),
      evidence: {
        layer,
        namespace: w.namespace,
        admissionChain: chainEvidence(admissionChainOf(m, w)),
        securityContextConstraints: providers,
        uids: ours,
        capabilities: ourCaps,
        privileged,
        injectedFrom: p.runtime.injectedFrom,
        events,
      },
      fix: [...p.runtime.openshift(w.namespace, cpNs), retry],
    };
  }
  if (layer === 'policy-engine') {
    const hook = g.match.hook!;
    const reason = g.match.reason ?? '';
    const names = signs.names.filter((n) => wordIn(reason, n));
    const caps = signs.caps.filter((c) => wordIn(reason, c));
    const added = addedContainerPaths(reason, w);
    const images = proxyImagesIn(reason, w, mesh);
    if (names.length === 0 && caps.length === 0 && added.length === 0 && images.length === 0) return undefined;
    const { engine, objects } = policiesOf(hook, reason);
    const kind = engine === 'Gatekeeper' ? 'constraint' : engine === 'Kyverno' ? 'policy' : undefined;
    return {
      ...base,
      ...say(MESSAGES, 'policy-engine', {
        layer: engine === 'the webhook' ? `The admission webhook ${hook}` : `${engine} (webhook ${hook})`,
        workload: id,
        mesh: meshTitle(mesh),
        what:
          [...names, ...caps, ...images.map((i) => `proxy image ${i}`)].join(', ') ||
          `containers (${added.join(', ')}: past the pod template's own)`,
        objects: objects.length ? ` (${kind} ${objects.join(', ')})` : '',
        reason: printable(reason.replace(/\s+/g, ' '), 200),
      }),
      evidence: {
        layer,
        webhook: hook,
        engine,
        admissionChain: chainEvidence(admissionChainOf(m, w)),
        ...(kind ? { [`${kind === 'constraint' ? 'constraints' : 'policies'}`]: objects } : {}),
        containers: names,
        capabilities: caps,
        ...(added.length ? { injectedFields: added } : {}),
        ...(images.length ? { proxyImages: images } : {}),
        events,
      },
      fix: [
        comment`exempt the containers ${meshTitle(mesh)} injects, ${signs.names.join(', ')}, from the rule, or the namespace from it, in the ${engine === 'the webhook' ? 'policy behind the webhook' : kind!}`,
        ...(engine === 'Gatekeeper'
          ? objects.map((o) => cmd`kubectl get constraints -o wide --field-selector ${`metadata.name=${o}`}`)
          : []),
        ...(engine === 'Kyverno'
          ? objects.map(
              (o) => cmd`kubectl get clusterpolicy,policy -A --field-selector ${`metadata.name=${o}`} -o yaml`,
            )
          : []),
        ...(engine === 'Kyverno'
          ? [comment`a Kyverno PolicyException can exempt the containers of the mesh without changing the policy`]
          : []),
        retry,
      ],
    };
  }
  // LimitRange
  const { items, unset } = limitItems(m, msg, w, mesh);
  if (items.length === 0) return undefined;
  const ranges = m.list('limitranges').filter((lr) => lr.metadata?.namespace === w.namespace);
  const names = ranges.map(nameOf).sort();
  const ann = p.proxy.resources.annotations;
  const lacking = [...new Set(unset.flatMap((u) => u.containers))];
  const limitRanges = names.length ? `LimitRange ${names.join(', ')}` : 'A LimitRange';
  return {
    ...base,
    ...(lacking.length
      ? say(MESSAGES, 'limitrange-unset', {
          limitRanges,
          namespace: w.namespace,
          mesh: meshTitle(mesh),
          containers: lacking.join(', '),
          what: [...new Set(unset.map((u) => u.what))].join(', '),
          workload: id,
          items: printable(items.join('; '), 300),
        })
      : say(MESSAGES, 'limitrange', {
          limitRanges,
          namespace: w.namespace,
          mesh: meshTitle(mesh),
          workload: id,
          items: printable(items.join('; '), 300),
        })),
    evidence: {
      layer,
      namespace: w.namespace,
      limitRanges: m.has('limitranges') ? names : 'not read',
      violations: items,
      ...(lacking.length ? { injectedWithout: unset } : {}),
      events,
    },
    fix: [
      comment`give the containers ${meshTitle(mesh)} injects resources within the LimitRange${Object.values(ann).length ? lit(`, with the pod template annotations ${Object.values(ann).join(', ')},`) : lit('')} or widen the LimitRange`,
      ...names.map((n) => cmd`kubectl get limitrange ${n} -n ${w.namespace} -o yaml`),
      retry,
    ],
  };
}

/**
 * The resources the injector gives each container it adds (the proxy's from its configuration and the
 * template's annotations, facts/resources.ts proxyConfig; the init container's from the profile), or
 * undefined when which containers it adds is not known.
 */
function injectedResources(m: Model, w: Workload, mesh: MeshName): { name: string; res: Resources }[] | undefined {
  const p = profileOf(mesh);
  const cni = p.cni ? p.cni.enabled(m, w) : { enabled: false, from: '' };
  if (!cni) return undefined;
  const proxy = proxyConfig(m, mesh, w).resources;
  const initR = p.runtime.initResources?.(m);
  const units = (x: Record<string, string>) => ({
    ...(quantityUnits('cpu', x.cpu) !== undefined ? { cpu: quantityUnits('cpu', x.cpu)! } : {}),
    ...(quantityUnits('memory', x.memory) !== undefined ? { memory: quantityUnits('memory', x.memory)! } : {}),
  });
  const init: Resources = initR ? { requests: units(initR.requests), limits: units(initR.limits) } : proxy;
  if (initR)
    for (const r of ['cpu', 'memory'] as const)
      if (init.requests[r] === undefined && init.limits[r] !== undefined) init.requests[r] = init.limits[r];
  return p.runtime.injected(m, w, cni.enabled).map((c) => ({ name: c.name, res: c.init ? init : proxy }));
}

/** A LimitRange item's value for a resource, in units. */
const bound = (item: Record<string, any>, field: string, r: 'cpu' | 'memory') =>
  isObj(item[field]) ? quantityUnits(r, item[field][r]) : undefined;

/**
 * The LimitRange `Container` items of the namespace that the resources the injector gives its
 * containers break, in the LimitRanger's words (kubernetes plugin/pkg/admission/limitranger/
 * admission.go): a limit above `max`, a request below `min`, a limit-to-request ratio above
 * `maxLimitRequestRatio`. Only values the mesh sets (the proxy's from its configuration and the
 * template's annotations, facts/resources.ts proxyConfig; the init container's from the profile);
 * a value it leaves unset gets the LimitRange's default, which the LimitRange fits by its own rules.
 */
function limitRangeItems(
  m: Model,
  w: Workload,
  mesh: MeshName,
): { limitRange: string; container: string; text: string }[] {
  const ranges = m.list('limitranges').filter((lr) => lr.metadata?.namespace === w.namespace);
  if (ranges.length === 0) return [];
  const injected = injectedResources(m, w, mesh);
  if (!injected) return [];
  const out: { limitRange: string; container: string; text: string }[] = [];
  for (const lr of ranges) {
    const spec = isObj(lr.spec) ? lr.spec : {};
    const items: Record<string, any>[] = Array.isArray(spec.limits) ? spec.limits.filter(isObj).slice(0, 32) : [];
    for (const item of items.filter((i) => i.type === 'Container')) {
      for (const { name, res } of injected) {
        for (const r of ['cpu', 'memory'] as const) {
          const limit = res.limits[r];
          const request = res.requests[r];
          const max = bound(item, 'max', r);
          const min = bound(item, 'min', r);
          const ratio = isObj(item.maxLimitRequestRatio) ? parseQuantity(item.maxLimitRequestRatio[r]) : undefined;
          const say = (text: string) => out.push({ limitRange: nameOf(lr), container: name, text });
          if (max !== undefined && limit !== undefined && limit > max)
            say(`maximum ${r} usage per Container is ${formatUnits(r, max)}, but limit is ${formatUnits(r, limit)}`);
          if (min !== undefined && request !== undefined && request < min)
            say(
              `minimum ${r} usage per Container is ${formatUnits(r, min)}, but request is ${formatUnits(r, request)}`,
            );
          if (ratio !== undefined && limit !== undefined && request && limit / request > ratio)
            say(
              `${r} max limit to request ratio per Container is ${ratio}, but provided ratio is ${(limit / request).toFixed(6)}`,
            );
        }
      }
    }
  }
  return out.slice(0, 16);
}

/** The predicted LimitRange finding (a warning: the running pods stay, their replacements will be refused). */
function predictedLimitRange(m: Model, w: Workload, mesh: MeshName): Said | undefined {
  const items = limitRangeItems(m, w, mesh);
  if (items.length === 0) return undefined;
  const p = profileOf(mesh);
  const names = [...new Set(items.map((i) => i.limitRange))].sort();
  const ann = p.proxy.resources.annotations;
  return {
    mesh,
    severity: 'warning',
    ...say(MESSAGES, 'limitrange-predicted', {
      limitRanges: names.join(', '),
      namespace: w.namespace,
      mesh: meshTitle(mesh),
      containers: [...new Set(items.map((i) => i.container))].join(', '),
      items: [...new Set(items.map((i) => i.text))].join('; '),
      workload: `${w.kind} ${w.namespace}/${w.name}`,
    }),
    resource: w.ref,
    affectedPods: Math.max(w.pods.length, 1),
    evidence: { layer: 'limitrange', namespace: w.namespace, limitRanges: names, predicted: true, violations: items },
    fix: [
      comment`give the containers ${meshTitle(mesh)} injects resources within the LimitRange${Object.values(ann).length ? lit(`, with the pod template annotations ${Object.values(ann).join(', ')},`) : lit('')} or widen the LimitRange`,
      ...names.map((n) => cmd`kubectl get limitrange ${n} -n ${w.namespace} -o yaml`),
    ],
  };
}

/** A label value an owner's name gives under a rule: the whole name, or its cut where the release cuts it. */
function fromName(rule: OwnerLabel, name: string, value: string): 'whole' | 'cut' | undefined {
  if (value === name) return 'whole';
  const t = rule.truncated;
  if (!t || name.length <= t.max) return undefined;
  const cut = name.slice(0, t.max);
  return value === (cut.endsWith('-') ? cut.slice(0, -1) : cut) ? 'cut' : undefined;
}

/**
 * The label values the injector of the workload's next pods writes from its name under a rule: the whole name, or its
 * cut where the release cuts it; both where the release is not read (no injector, no version).
 */
function nameValues(m: Model, w: Workload, mesh: MeshName, rule: OwnerLabel): string[] {
  const whole = w.name;
  const t = rule.truncated;
  if (!t) return [whole];
  const c = whole.slice(0, t.max);
  const cut = c.endsWith('-') ? c.slice(0, -1) : c;
  const p = profileOf(mesh);
  const versions = injectorsFor(m, w, mesh).map((i) =>
    i.deployment && p.versions ? p.versions.controlPlane(m, i.deployment)?.version : undefined,
  );
  if (versions.length === 0 || versions.some((v) => v === undefined)) return [whole, cut];
  const out = new Set(versions.map((v) => ((compareSemver(v!, t.since) ?? -1) >= 0 ? cut : whole)));
  return [...out];
}

/**
 * Predicted: the injector will label the workload's next pods with its name (the profile's runtime.ownerLabels), a
 * value the API server refuses (istio/istio#25157: a bare Pod's name over 63 characters, seen only by `check -f`;
 * #60756; infobloxopen/konk#616). Only where the template sets none of the labels the injector copies instead, every
 * release the injectors may run gives an invalid value, and no pod of the workload carries the label already.
 */
function predictedOwnerLabel(m: Model, w: Workload, mesh: MeshName): Said | undefined {
  const own = labelsOf(w.template);
  for (const rule of profileOf(mesh).runtime.ownerLabels ?? []) {
    if (rule.owners !== '*' && !rule.owners.includes(w.kind)) continue;
    if (rule.unless.some((k) => own[k] !== undefined)) continue;
    if (w.pods.some((pod) => labelsOf(pod)[rule.key] !== undefined)) continue; // its pods were labelled: admitted
    const values = nameValues(m, w, mesh, rule);
    const problems = values.map(labelValueProblem);
    if (problems.some((x) => x === undefined)) continue;
    const value = values[0]!;
    const t = w.templatePath ? `{.${w.templatePath.split('/').filter(Boolean).join('.')}.metadata.labels}` : '';
    const id = `${w.kind} ${w.namespace}/${w.name}`;
    return {
      mesh,
      severity: 'warning',
      ...say(MESSAGES, 'owner-label-predicted', {
        mesh: meshTitle(mesh),
        workload: id,
        label: rule.key,
        value: printable(value, 100),
        origin: `its ${w.kind}'s name${value !== w.name ? ` cut to ${rule.truncated!.max} characters` : ''}`,
        reason: problems[0]!,
      }),
      resource: w.ref,
      affectedPods: Math.max(w.pods.length, 1),
      evidence: {
        layer: 'owner-label',
        predicted: true,
        label: rule.key,
        values,
        reason: problems[0]!,
        owner: { kind: w.kind, namespace: w.namespace, name: w.name },
        ...(rule.unless.length ? { copiedInstead: rule.unless } : {}),
        source: rule.source,
        rule: 'kubernetes/apimachinery pkg/util/validation/validation.go IsValidLabelValue (v1.30.0)',
      },
      fix: [
        comment`${lit(rule.fix)}`,
        t
          ? cmd`kubectl get ${`${w.kind.toLowerCase()}/${w.name}`} -n ${w.namespace} -o jsonpath=${t}`
          : comment`the metadata.labels of the manifest`,
      ],
    };
  }
  return undefined;
}

/**
 * The API server refusing a pod label value that the mesh's injector wrote from the name of the pod's owner (the
 * profile's runtime.ownerLabels, cited from each mesh's template or code): the label, the value, the owner it comes
 * from and the fix. Silent where the pod template sets a label the injector copies instead (its own values passed
 * validation with the workload), and for a value no owner's name gives (another webhook's label: `unrecognised`).
 */
function ownerLabelFinding(
  m: Model,
  w: Workload,
  mesh: MeshName,
  g: { message: string; objects: Set<string>; inferred?: boolean },
  base: { mesh: MeshName; resource: Workload['ref']; affectedPods: number },
  events: Record<string, unknown>,
  retry: Step,
): Said | undefined {
  const rules = profileOf(mesh).runtime.ownerLabels ?? [];
  if (rules.length === 0) return undefined;
  const own = labelsOf(w.template);
  // The owners whose name the injector may have written: the workload, then the objects the events were on.
  const objects = [...g.objects].map((o) => ({ kind: o.slice(0, o.indexOf('/')), name: o.slice(o.indexOf('/') + 1) }));
  // A ReplicaSet's controller (an Argo Rollout's, read or not): the injectors name the pod's top owner.
  const above = objects.flatMap((o) => {
    if (o.kind !== 'ReplicaSet') return [];
    const refs = m.get('replicasets', w.namespace, o.name)?.metadata?.ownerReferences;
    const ref = Array.isArray(refs) ? refs.find((r) => isObj(r) && r.controller === true) : undefined;
    return isObj(ref) && typeof ref.kind === 'string' && typeof ref.name === 'string'
      ? [{ kind: ref.kind, name: ref.name }]
      : [];
  });
  const owners = [{ kind: w.kind, name: w.name }, ...above, ...objects];
  for (const item of invalidItems(g.message)) {
    if (item.field !== 'metadata.labels' || item.value === undefined) continue;
    for (const rule of rules) {
      if (rule.unless.some((k) => own[k] !== undefined)) continue; // the injector copies the template's label
      for (const o of owners) {
        if (rule.owners !== '*' && !rule.owners.includes(o.kind)) continue;
        const how = fromName(rule, o.name, item.value);
        if (!how) continue;
        const owner = `${o.kind} ${w.namespace}/${o.name}`;
        const t = w.templatePath ? `{.${w.templatePath.split('/').filter(Boolean).join('.')}.metadata.labels}` : '';
        return {
          ...base,
          ...say(MESSAGES, 'owner-label', {
            workload: `${w.kind} ${w.namespace}/${w.name}`,
            mesh: meshTitle(mesh),
            label: rule.key,
            value: printable(item.value, 100),
            origin: `${o.kind === w.kind && o.name === w.name ? `its ${o.kind}'s name` : `the name of ${owner}`}${how === 'cut' ? ` cut to ${rule.truncated!.max} characters` : ''}`,
            reason: printable(item.detail, 200),
            // A custom resource's pod template is not read: the labels the injector would copy instead are not known.
            unread:
              g.inferred && rule.unless.length
                ? `; ${o.kind} is a kind meshdoctor does not read, so whether its pod template sets ${rule.unless.join(', ')}, which the injector copies instead, is not known`
                : '',
          }),
          evidence: {
            layer: 'owner-label',
            label: rule.key,
            value: item.value,
            reason: item.detail,
            owner: { kind: o.kind, namespace: w.namespace, name: o.name },
            cut: how === 'cut',
            ...(rule.unless.length ? { copiedInstead: rule.unless } : {}),
            ownerRead: !g.inferred,
            source: rule.source,
            admissionChain: chainEvidence(admissionChainOf(m, w)),
            events,
          },
          fix: [
            comment`${lit(rule.fix)}`,
            t
              ? cmd`kubectl get ${`${w.kind.toLowerCase()}/${w.name}`} -n ${w.namespace} -o jsonpath=${t}`
              : cmd`kubectl get ${`${w.kind.toLowerCase()}/${w.name}`} -n ${w.namespace} -o yaml`,
            retry,
          ],
        };
      }
    }
  }
  return undefined;
}

/**
 * The API server's validation refusing a field of a container the pod template does not have (its
 * index is past the template's containers: added at admission) or that names a container the mesh
 * injects: the field, the rule it breaks and the mutating webhooks that could have added it.
 */
function validationFinding(
  m: Model,
  w: Workload,
  mesh: MeshName,
  g: { match: Match; message: string },
  signs: { names: string[] },
  base: { mesh: MeshName; resource: Workload['ref']; affectedPods: number },
  events: Record<string, unknown>,
  retry: Step,
): Said | undefined {
  const spec = podSpec(w.template);
  const count = { containers: containers(spec).length, initContainers: initContainers(spec).length };
  const items: { field: string; type: string; detail: string; added: boolean; by: 'index' | 'named' | 'value' }[] = [];
  // The API server validated the pod template when the workload was created (kubernetes/kubernetes v1.30.0
  // pkg/apis/apps/validation/validation.go ValidatePodTemplateSpecForReplicaSet, and the batch validation for Jobs,
  // call pkg/apis/core/validation ValidatePodTemplateSpec: the containers' and volumes' rules), so a value an item quotes was written at admission, whatever the
  // container index says (an injector that puts its proxy first shifts the app's containers).
  const quoted = (detail: string | undefined) => /^"([^"\n]{1,400})"/.exec(detail ?? '')?.[1];
  for (const x of g.message.matchAll(FIELD)) {
    if (items.length >= 16) break;
    const [, list, index, sub, type, detail] = x;
    const past = Number(index) >= count[list as 'containers' | 'initContainers'];
    const named = signs.names.some((n) => wordIn(detail ?? '', n));
    const foreign = quoted(detail) !== undefined;
    if (!past && !named && !foreign) continue;
    items.push({
      field: `spec.${list}[${index}]${sub}`,
      type: type!,
      detail: printable(detail ?? '', 200),
      added: past || foreign,
      by: foreign ? 'value' : past ? 'index' : 'named',
    });
  }
  // The pod's volumes (`spec.volumes[4].name: Duplicate value: "podinfo"`): the template passed the same validation.
  const duplicates: string[] = [];
  for (const x of g.message.matchAll(VOLUME)) {
    if (items.length >= 16) break;
    const [, index, sub, type, detail] = x;
    const value = quoted(detail);
    if (type === 'Duplicate value' && value) duplicates.push(value);
    items.push({
      field: `spec.volumes[${index}]${sub}`,
      type: type!,
      detail: printable(detail ?? '', 200),
      added: true,
      by: 'value',
    });
  }
  if (items.length === 0) return undefined;
  const chain = admissionChainOf(m, w);
  const mutating = chain.links.filter((l) => l.type === 'mutating');
  const id = `${w.kind} ${w.namespace}/${w.name}`;
  const native = items.some((i) => /^spec\.initContainers\[\d+\]\.restartPolicy$/.test(i.field));
  const p = profileOf(mesh);
  const fields = items.map((i) => `${i.field} (${i.type}${i.detail ? `: ${i.detail}` : ''})`).join('; ');
  // The native sidecar lost `restartPolicy: Always` after the mesh's webhook added it: a webhook the API
  // server calls after it (later in the order, or again: reinvocationPolicy IfNeeded) rewrote the pod with
  // types that do not know the field (istio/istio#49221, #52245; doitintl/kube-secrets-init#53).
  const lost = items.some(
    (i) => i.field.startsWith('spec.initContainers[') && /without restartPolicy=Always/.test(i.detail),
  );
  if (lost) {
    const at = mutating.findIndex((l) => l.mesh === mesh);
    const later = mutating.filter((l, n) => !l.mesh && (n > at || l.reinvocationPolicy === 'IfNeeded'));
    const names = later.map((l) => `${l.configuration}/${l.webhook}`);
    return {
      ...base,
      ...say(MESSAGES, 'native-sidecar-rewritten', {
        rewriter: names.length
          ? `Mutating webhook ${names.join(', ')}, called after ${meshTitle(mesh)}'s,`
          : `A mutating webhook called after ${meshTitle(mesh)}'s`,
        mesh: meshTitle(mesh),
        workload: id,
        fields,
      }),
      evidence: {
        layer: 'validation',
        rewrittenBy: names,
        fields: items,
        templateContainers: count,
        admissionChain: chainEvidence(chain),
        events,
      },
      fix: [
        comment`a webhook built with Kubernetes types older than 1.28 drops restartPolicy from the init containers it returns: upgrade it, or leave these pods out of it with its objectSelector${lit(p.proxy.native.annotation ? `, or inject the proxy as a plain container with the pod template annotation ${p.proxy.native.annotation} set to false` : '')}`,
        ...later.map((l) => cmd`kubectl get mutatingwebhookconfiguration ${l.configuration} -o yaml`),
        retry,
      ],
    };
  }
  const said = {
    workload: id,
    fields,
    whose: items.every((i) => i.added)
      ? 'the pod template does not have, added at admission'
      : `${meshTitle(mesh)} injects`,
    mutating: mutating.length ? ` (mutating webhooks called: ${mutating.map((l) => l.webhook).join(', ')})` : '',
  };
  const validationEvidence = {
    layer: 'validation',
    fields: items,
    templateContainers: count,
    admissionChain: chainEvidence(chain),
    events,
  };
  // A known bug of the injecting release whose refusal this is (the release tables' bugs, src/facts/known-bugs.ts):
  // the release names the cause, also for a release older than the tables (issue 31.7).
  const bug = bugsShown(m).find((b) => b.mesh === mesh && b.workload === w && b.bug.symptom.on === 'workload');
  if (bug)
    return {
      ...base,
      ...say(MESSAGES, 'validation-known-bug', {
        ...said,
        meshTitle: p.title,
        version: bug.version.version,
        bug: bug.bug.id,
        text: bug.bug.text,
        fixedIn: bug.bug.fixedIn,
      }),
      evidence: {
        ...validationEvidence,
        knownBug: { bug: bug.bug.id, version: bug.version, fixedIn: bug.bug.fixedIn, source: bug.bug.source },
      },
      fix: [
        comment`upgrade the ${p.title} control plane to ${bug.bug.fixedIn} or later, which fixes ${bug.bug.id}`,
        retry,
      ],
    };
  if (items.every((i) => i.by === 'value'))
    // Values the template does not hold (a volume, a mount path): a mutating webhook wrote them at admission.
    return {
      ...base,
      ...say(MESSAGES, 'validation-added', {
        workload: id,
        fields,
        what: duplicates.length ? `a second volume named ${duplicates.join(', ')}` : 'values',
        mutating: mutating.length ? ` (mutating webhooks called: ${mutating.map((l) => l.webhook).join(', ')})` : '',
        again: mutating.some((l) => l.reinvocationPolicy === 'IfNeeded')
          ? ', or the same webhook twice: one with reinvocationPolicy IfNeeded runs again after another changed the pod'
          : '',
      }),
      evidence: {
        layer: 'validation',
        fields: items,
        ...(duplicates.length ? { duplicates } : {}),
        templateContainers: count,
        admissionChain: chainEvidence(chain),
        events,
      },
      fix: [
        comment`a mutating webhook listed here added what the API server refuses: exclude these pods from it with its objectSelector, or fix it to add its volume or mount once and under a name of its own`,
        cmd`kubectl get mutatingwebhookconfigurations`,
        retry,
      ],
    };
  return {
    ...base,
    ...say(MESSAGES, 'validation', said),
    evidence: validationEvidence,
    fix: [
      ...(native
        ? [
            comment`this API server does not accept restartPolicy on init containers, native sidecars need Kubernetes 1.28 with the SidecarContainers feature gate, on by default from 1.29: upgrade the control plane, or make ${meshTitle(mesh)} inject its proxy as a plain container${lit(p.proxy.native.annotation ? ` with the annotation ${p.proxy.native.annotation} set to false` : '')}`,
          ]
        : [
            comment`the field of the injected container named above breaks the validation of the API server: the webhook that added it, one of those listed, must set it differently`,
          ]),
      cmd`kubectl get mutatingwebhookconfigurations`,
      retry,
    ],
  };
}

/**
 * SecurityContextDeny refusing a container's runAsUser: the containers the mesh injects that set it (the
 * profile's runtime.injected, with the CNI plugin on or off as the mesh's configuration says, both where it
 * could not be read) and the pod template's own that set it too. The message names no container: the mesh's are
 * named only where its injector sets runAsUser; a pod-level field or seLinuxOptions (which no mesh sets) is not
 * attributed to the mesh.
 */
function securityContextDenyFinding(
  m: Model,
  w: Workload,
  mesh: MeshName,
  msg: string,
  base: { mesh: MeshName; resource: Workload['ref']; affectedPods: number },
  events: Record<string, unknown>,
  retry: Step,
): Said | undefined {
  const x = SCDENY.exec(msg)!;
  const podLevel = Boolean(x[1]) || x[2] === 'SupplementalGroups' || x[2] === 'FSGroup';
  if (podLevel || x[2] !== 'RunAsUser') return undefined;
  const p = profileOf(mesh);
  const ours = injectedRunAsUser(m, w, mesh);
  if (ours.size === 0) return undefined;
  const spec = podSpec(w.template);
  const own = [...initContainers(spec), ...containers(spec)]
    .filter((c) => !ours.has(c.name) && isObj(c.securityContext) && c.securityContext.runAsUser !== undefined)
    .map((c) => String(c.name))
    .slice(0, 16);
  const names = [...ours.keys()].sort();
  return {
    ...base,
    ...say(MESSAGES, 'security-context-deny', {
      mesh: meshTitle(mesh),
      containers: names.join(', '),
      uids: names.map((n) => `${n} runAsUser ${ours.get(n)}`).join(', '),
      own: own.length ? `, as do the pod template's own ${own.join(', ')}` : '',
      workload: `${w.kind} ${w.namespace}/${w.name}`,
    }),
    evidence: {
      layer: 'security-context-deny',
      field: 'securityContext.runAsUser',
      injected: names.map((n) => ({ container: n, runAsUser: ours.get(n)! })),
      templateContainers: own,
      injectedFrom: p.runtime.injectedFrom,
      rule: SCDENY_SOURCE,
      admissionChain: chainEvidence(admissionChainOf(m, w)),
      events,
    },
    fix: [
      comment`take SecurityContextDeny out of the admission plugins of every API server, its --enable-admission-plugins or --admission-control flag: it refuses any container that sets runAsUser, which ${meshTitle(mesh)} needs, and was removed in Kubernetes 1.30`,
      comment`on kubeadm clusters the flag is in /etc/kubernetes/manifests/kube-apiserver.yaml on each control-plane node, Pod Security admission is its replacement`,
      cmd`kubectl -n kube-system get pods -l ${'component=kube-apiserver'} -o yaml`,
      retry,
    ],
  };
}

/**
 * The containers the injector adds that set runAsUser, with the UID (the profile's runtime.injected, with the CNI
 * plugin on or off as the mesh's configuration says, both where it could not be read).
 */
function injectedRunAsUser(m: Model, w: Workload, mesh: MeshName): Map<string, number> {
  const p = profileOf(mesh);
  const cni = p.cni?.enabled(m, w)?.enabled;
  const states = cni === undefined ? (p.cni ? [false, true] : [false]) : [cni];
  const ours = new Map<string, number>();
  for (const c of states.flatMap((s) => p.runtime.injected(m, w, s)))
    if (c.securityContext.runAsUser !== undefined) ours.set(c.name, c.securityContext.runAsUser);
  return ours;
}

/** The predicted SecurityContextDeny refusal (a warning: the running pods stay, their replacements will be refused). */
function predictedSecurityContextDeny(
  m: Model,
  w: Workload,
  mesh: MeshName,
  servers: { source: string; flag: string }[],
): Said | undefined {
  const ours = injectedRunAsUser(m, w, mesh);
  if (ours.size === 0) return undefined;
  const p = profileOf(mesh);
  const names = [...ours.keys()].sort();
  return {
    mesh,
    severity: 'warning',
    ...say(MESSAGES, 'security-context-deny-predicted', {
      servers: servers.map((s) => `${s.source}: ${s.flag}`).join('; '),
      mesh: meshTitle(mesh),
      containers: names.join(', '),
      uids: names.map((n) => `${n} runAsUser ${ours.get(n)}`).join(', '),
      workload: `${w.kind} ${w.namespace}/${w.name}`,
    }),
    resource: w.ref,
    affectedPods: Math.max(w.pods.length, 1),
    evidence: {
      layer: 'security-context-deny',
      predicted: true,
      apiservers: servers,
      field: 'securityContext.runAsUser',
      injected: names.map((n) => ({ container: n, runAsUser: ours.get(n)! })),
      injectedFrom: p.runtime.injectedFrom,
      rule: SCDENY_SOURCE,
    },
    fix: [
      comment`take SecurityContextDeny out of the admission plugins of every API server, its --enable-admission-plugins or --admission-control flag: it refuses any container that sets runAsUser, which ${meshTitle(mesh)} needs, and was removed in Kubernetes 1.30`,
      comment`on kubeadm clusters the flag is in /etc/kubernetes/manifests/kube-apiserver.yaml on each control-plane node, Pod Security admission is its replacement`,
    ],
  };
}
