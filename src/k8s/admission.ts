/** What the API server's admission errors say. */

export type WebhookFailureCause =
  'no-endpoints' | 'certificate' | 'timeout' | 'connection-refused' | 'service-not-found' | 'other';

/** Why the API server could not call a webhook, from its error text (order matters). */
export function webhookFailureCause(message: string): WebhookFailureCause {
  if (/no endpoints available for service/i.test(message)) return 'no-endpoints';
  if (/x509|certificate signed by unknown authority|certificate has expired|not yet valid|tls: /i.test(message))
    return 'certificate';
  if (/context deadline exceeded|timeout|timed out/i.test(message)) return 'timeout';
  if (/connection refused/i.test(message)) return 'connection-refused';
  if (/service "[^"]*" not found/i.test(message)) return 'service-not-found';
  return 'other';
}

/**
 * The port the API server dialled, from a webhook call error (`dial tcp 10.228.0.5:15017: i/o timeout`): the
 * endpoint's targetPort, not the Service port of the URL (istio/istio#20890, #30139). Undefined when the text has none.
 */
export function dialledPort(message: string): number | undefined {
  const m = /dial tcp (?:\[[0-9a-fA-F:.]+\]|[0-9.]+):(\d{1,5}):/.exec(message);
  const port = m ? Number(m[1]) : NaN;
  return port > 0 && port < 65536 ? port : undefined;
}

/** What a webhook's failurePolicy does when the injector cannot be reached. */
export function failureEffect(policies: Iterable<'Ignore' | 'Fail'>): string {
  const set = new Set(policies);
  const parts: string[] = [];
  if (set.has('Ignore')) parts.push('failurePolicy Ignore: pods are created silently without a proxy');
  if (set.has('Fail')) parts.push('failurePolicy Fail: pod creation is blocked');
  return parts.join('; ');
}

/** One `reason (detail)` of a Pod Security violation, with the containers its detail names. */
export interface PodSecurityItem {
  readonly reason: string;
  readonly detail: string;
  readonly containers: readonly string[];
}

/**
 * A Pod Security violation: `violates PodSecurity "<level>:<version>": <reason (detail)>, …`
 * (kubernetes/pod-security-admission 8f84a87c admission/admission.go; policy/checks.go
 * ForbiddenDetail joins the `reason (detail)` pairs with ", "; a detail names its containers as
 * `container "a"` or `containers "a", "b"`). Undefined for another message. Bounded: 32 items.
 */
export function podSecurityViolation(message: string): { level: string; items: PodSecurityItem[] } | undefined {
  const x = /violates PodSecurity "([a-z]{1,16})(?::[^"]{0,32})?": ([^\n]{0,4000})/.exec(message);
  if (!x) return undefined;
  const items: PodSecurityItem[] = [];
  for (const it of x[2]!.matchAll(/([A-Za-z][^(),]{0,80}) \(([^()]{0,1000})\)(?:, |$|\])/g)) {
    if (items.length >= 32) break;
    const detail = it[2]!;
    const containers = [...detail.matchAll(/containers? ((?:"[^"]{1,253}"(?:, )?)+)/g)].flatMap((c) =>
      [...c[1]!.matchAll(/"([^"]+)"/g)].map((n) => n[1]!),
    );
    items.push({ reason: it[1]!.trim(), detail, containers: [...new Set(containers)] });
  }
  return { level: x[1]!, items };
}

/** The Pod Security level a namespace's label enforces, and the label's value when it is not a level. */
interface EnforcedLevel {
  level: 'privileged' | 'baseline' | 'restricted';
  /** The label's value, when it is not a level (the level is then `restricted`). */
  invalid?: string;
}

export const POD_SECURITY_ENFORCE = 'pod-security.kubernetes.io/enforce';

/**
 * The level Pod Security admission enforces for a namespace's labels, as it reads them
 * (kubernetes/pod-security-admission v0.36.2 = 39b45cd1, the staging copy of kubernetes/kubernetes
 * staging/src/k8s.io/pod-security-admission: api/helpers.go ParseLevel: a value other than exactly
 * `privileged`, `baseline` or `restricted` (`Baseline`, `privilege`, `true`, an empty value) is
 * taken as `restricted`, with an error; PolicyToEvaluate keeps that level for enforce (it fails open
 * to privileged for audit and warn only), and admission/admission.go EvaluatePod logs the error and
 * enforces it; an invalid enforce-version is taken as `latest`, which changes no level here). Such a
 * value is refused when a Namespace is created or its labels are changed, so it is one set before
 * PodSecurity ran. Undefined without the label: the cluster's default policy (AdmissionConfiguration,
 * not readable through the API) decides, `privileged` unless set otherwise.
 */
export function enforcedLevel(labels: Record<string, string> | undefined): EnforcedLevel | undefined {
  const v = labels?.[POD_SECURITY_ENFORCE];
  if (v === undefined) return undefined;
  if (v === 'privileged' || v === 'baseline' || v === 'restricted') return { level: v };
  return { level: 'restricted', invalid: v };
}
