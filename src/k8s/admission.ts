/**
 * What the API server's admission errors say, parsed by their structure (the one parser every
 * check and fact uses). Sources, kubernetes/kubernetes 008b3652 (v1.3x):
 * - staging/src/k8s.io/apiserver/pkg/util/webhook/error.go `ErrCallingWebhook.Error()`:
 *   `failed calling webhook %q: %v` (or `failed calling webhook %q; no further details available`);
 * - .../admission/plugin/webhook/mutating/dispatcher.go and validating/dispatcher.go: the reason is
 *   `failed to call webhook: <client error>` or `received invalid webhook response: ...`, the client
 *   error `Post "<url>": <transport error>`; with failurePolicy Fail the error reaches the caller as
 *   `Internal error occurred: ...` (apierrors.NewInternalError); a JSON patch that does not apply
 *   is `Internal error occurred: <jsonpatch error>` and names no webhook;
 * - .../admission/plugin/webhook/errors/statuserror.go `ToStatusErr`: `admission webhook %q denied
 *   the request: %s` (or `... denied the request without explanation`).
 * Older API servers (<= 1.13) said `failed calling admission webhook %q`, and Go before 1.14 left
 * the URL unquoted (`Post https://...?timeout=30s: dial tcp ...`). Every webhook URL carries
 * `?timeout=Ns`: the transport error is read after the URL, from its END (Go wraps errors
 * outermost first: `dial tcp 10.0.0.1:443: connect: connection refused`).
 */

/** Why the API server could not call a webhook: the transport error at the end of its message. */
export type WebhookFailureCause =
  | 'no-endpoints'
  | 'certificate'
  | 'timeout'
  | 'connection-refused'
  | 'service-not-found'
  | 'bad-request'
  | 'invalid-response'
  | 'proxy'
  | 'egress-refused'
  | 'other';

/** One segment of a Go error chain, classified (undefined: it says nothing known). */
function segmentCause(seg: string): WebhookFailureCause | undefined {
  if (/no endpoints available for service/i.test(seg)) return 'no-endpoints';
  if (/^services? "[^"]{0,253}" not found/i.test(seg)) return 'service-not-found';
  if (/\bi\/o timeout$|context deadline exceeded|Client\.Timeout exceeded|\btimed out\b|handshake timeout/i.test(seg))
    return 'timeout';
  if (/connection refused/i.test(seg)) return 'connection-refused';
  if (/x509|certificate|^tls: |bad certificate/i.test(seg)) return 'certificate';
  if (/the server rejected our request due to an error in our request/i.test(seg)) return 'bad-request';
  return undefined;
}

/**
 * An HTTP proxy answered instead of the webhook: Go's transport reports a CONNECT the proxy refused as the
 * reason phrase of its status line alone (`Service Unavailable`, `Forbidden`, `Bad Gateway`: golang/go
 * src/net/http/transport.go dialConn, `errors.New(text)` of `resp.Status` after its code, since Go 1.x), and a
 * proxy it could not reach as `proxyconnect tcp: dial tcp ...` (the net.OpError of op "proxyconnect"). Go's own
 * errors start in lower case and the REST client's are sentences (`the server could not find the requested
 * resource`): a capitalised phrase with no colon right after the URL is a status line's reason.
 */
const PROXY_ANSWER = /^(?:[A-Z][a-z][A-Za-z'-]{0,29})(?: [A-Za-z'-]{1,30}){0,5}$|^unknown status code$/;

/**
 * A managed control plane's egress refusing the address it was to call (issue 31, gen9path): EKS's API server reaches
 * the cluster through network interfaces in its VPC and answers `Address is not allowed` for an address outside it,
 * the pod address an overlay network (Calico, Weave Net, Cilium cluster-pool) gave the webhook's pod: the reason phrase
 * of the refused CONNECT, seen in istio/istio#45738 (EKS with Weave Net), linkerd/linkerd2#5576 (EKS with Calico),
 * senthilrch/kube-fledged#123, piraeusdatastore/helm-charts#42, kubernetes-sigs/jobset#977; the cure is the pod on the
 * node's network (hostNetwork) or the VPC's own addresses (Calico's EKS install guide, projectcalico/calico#3818).
 */
const EGRESS_REFUSED = /^Address is not allowed$/;

/** A transport error classified from its end: the innermost error first, then outwards. */
export function transportCause(transport: string): WebhookFailureCause {
  const t = transport.trim();
  if (EGRESS_REFUSED.test(t)) return 'egress-refused';
  if (/^proxyconnect (?:tcp|udp)[46]?: /.test(t) || PROXY_ANSWER.test(t)) return 'proxy';
  const segs = transport.slice(0, 4000).split(/: /);
  for (let i = segs.length - 1; i >= 0; i--) {
    const c = segmentCause(segs[i]!.trim());
    if (c) return c;
  }
  return 'other';
}

/** The API server failing to call a webhook. */
export interface WebhookCallError {
  kind: 'call';
  webhook: string;
  /** The URL it posted to, when the message shows it. */
  url?: string;
  /** The error after the URL (the transport error), or the whole reason. */
  transport: string;
  cause: WebhookFailureCause;
}

/** A webhook that answered and refused the object. */
interface WebhookDenial {
  kind: 'denied';
  webhook: string;
  /** Its reason as written, lines kept (Kyverno lists a policy per line; '' without explanation). */
  reason: string;
}

/** A JSON patch the API server could not apply (it names no webhook): the operation and the path it touches. */
export interface PatchError {
  kind: 'patch';
  op: string;
  /** The JSON pointer, decoded into its segments (`~1` is `/`, `~0` is `~`). */
  path: string[];
  detail: string;
}

type AdmissionError = WebhookCallError | WebhookDenial | PatchError;

// Webhook names are DNS names; bounded inputs (4000 characters after the name).
const CALL =
  /failed calling (?:admission )?webhook "([^"\s]{1,253})"(?:: ([^\n]{0,4000})|; no further details available)/;
const DENIED = /admission webhook "([^"\s]{1,253})" denied the request(?::\s([\s\S]{0,4000})| without explanation)/;
const PATCH =
  /(?:jsonpatch )?(add|remove|replace|move|copy|test) operation does not apply: doc is missing (?:path|key): "?(\/[^"\s]{0,1024})"?/;

/**
 * The admission error an event or status message carries, by the API server's structure; undefined
 * for any other message. A call failure wins over a denial quoted inside it.
 */
export function parseAdmissionError(message: string): AdmissionError | undefined {
  const text = message.slice(0, 8000);
  const c = CALL.exec(text);
  if (c) {
    let rest = (c[2] ?? '').trim().replace(/^failed to call webhook: /, '');
    if (
      /^received (?:invalid webhook response|undecodable patch in webhook response)|^unsupported patch type/.test(rest)
    )
      return { kind: 'call', webhook: c[1]!, transport: rest, cause: 'invalid-response' };
    // The URL: quoted (Go >= 1.14) or bare up to the `: ` that ends it (a URL holds no ": ").
    const u = /^(?:Post|POST) (?:"([^"]{1,2048})"|(\S{1,2048}?)): /.exec(rest);
    const url = u ? (u[1] ?? u[2]) : undefined;
    if (u) rest = rest.slice(u[0].length);
    return { kind: 'call', webhook: c[1]!, ...(url ? { url } : {}), transport: rest, cause: transportCause(rest) };
  }
  const d = DENIED.exec(text);
  if (d) return { kind: 'denied', webhook: d[1]!, reason: (d[2] ?? '').trim() };
  const p = PATCH.exec(text);
  if (p)
    return {
      kind: 'patch',
      op: p[1]!,
      path: p[2]!
        .split('/')
        .slice(1, 33)
        .map((x) => x.replace(/~1/g, '/').replace(/~0/g, '~')),
      detail: p[0],
    };
  return undefined;
}

/**
 * A pod-creation failure message as snapshots keep it: whole up to 4000 characters, with the
 * values an "is invalid" message quotes for fields that may hold secrets (env, args, command,
 * annotations, data, probes and hooks; an env variable's name is kept) replaced: `spec.containers[0].env[0].value: Invalid value:
 * "(redacted)"`. Values of other fields (a restartPolicy, a capability, a UID) stay: checks read them.
 */
export function redactAdmissionMessage(message: string, redacted: string, names: readonly string[] = []): string {
  const cut = message.length > 4000 ? `${message.slice(0, 4000)}…` : message;
  // Every match holds "<Invalid|Unsupported|Duplicate> value: ": without it nothing is replaced (and
  // the pattern, slow on long text, is not run: asked of every FailedCreate event by several checks).
  if (!cut.includes(' value: ')) return cut;
  return cut.replace(
    /([A-Za-z0-9_.[\]{}/'-]{1,512}): ((?:Invalid|Unsupported|Duplicate) value): ("(?:[^"\\]|\\.){0,4000}"|[^:,\s]{1,4000})/g,
    (all, path: string, what: string, value: string) =>
      // An env variable's name is a key, no value: kept (istio/istio#9571, an env name made of a label key).
      !/\.env\[\d{1,4}\]\.name$/.test(path) &&
      // A label value that is (the start of) the name of the object the event is on: a name the snapshot keeps anyway,
      // which an injector copied into a label (istio/istio#48562, infobloxopen/konk#616).
      !(path === 'metadata.labels' && nameValue(value, names)) &&
      /(?:^|[.\]])(?:env|envFrom|args|command|annotations|labels|data|stringData|binaryData|value|lifecycle|exec|httpGet|livenessProbe|readinessProbe|startupProbe)(?:[.[]|$)/.test(
        path,
      )
        ? `${path}: ${what}: ${JSON.stringify(redacted)}`
        : all,
  );
}

/** A quoted value that is a name of `names` or its start (a name cut by an injector), at least 8 characters. */
function nameValue(quoted: string, names: readonly string[]): boolean {
  const v = /^"([a-z0-9][a-z0-9._-]{7,252})"$/.exec(quoted)?.[1];
  return v !== undefined && names.some((n) => n.startsWith(v));
}

/** The kinds of item the API server's field errors have (apimachinery pkg/util/validation/field/errors.go ErrorType). */
const ITEM_TYPES =
  'Invalid value|Unsupported value|Duplicate value|Not found|Required value|Forbidden|Too long|Too many|Internal error';

/** One item of an "is invalid" refusal: the field path, its type, the value it quotes (if any) and the reason. */
interface InvalidItem {
  readonly field: string;
  readonly type: string;
  /** The value as quoted (a JSON string decoded; an unquoted value as written); undefined for types that quote none. */
  readonly value?: string;
  readonly detail: string;
}

/**
 * The items of the API server's validation refusal of an object, by their structure: `<Kind> "<name>" is invalid:
 * <item>` or `... is invalid: [<item>, <item>, …]`, each item `<field path>: <type>[: <value>][: <detail>]`
 * (kubernetes staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go Error.Error and ErrorList's
 * aggregate, v1.30.0: the value is quoted for strings, `%#v` otherwise; `Required value` and `Forbidden` quote none).
 * Bounded: 8000 characters read, 32 items. Empty for another message.
 */
export function invalidItems(message: string): InvalidItem[] {
  const x =
    /(?:^|\s|: )(?:Pod|pods|[A-Z][A-Za-z]{1,40}(?:\.[a-z.]{1,60})?) "[^"\n]{1,253}" is invalid: ([\s\S]{1,8000})/.exec(
      message.slice(0, 8000),
    );
  if (!x) return [];
  let body = x[1]!.trim();
  if (body.startsWith('[')) body = body.slice(1).replace(/\]$/, '');
  const start = new RegExp(`(?:^|, )([A-Za-z][A-Za-z0-9_.[\\]{}/'-]{0,511}): (${ITEM_TYPES})(?=$|: |,)`, 'g');
  const starts = [...body.matchAll(start)].slice(0, 32);
  return starts.map((s, i) => {
    const end = i + 1 < starts.length ? starts[i + 1]!.index : body.length;
    const rest = body.slice(s.index + s[0].length, end).replace(/^: /, '');
    let value: string | undefined;
    let detail = rest;
    if (/^(?:Invalid|Unsupported|Duplicate) value$|^Not found$/.test(s[2]!)) {
      const q = /^"((?:[^"\\]|\\.){0,4000})"(?::\s?|$)/.exec(rest) ?? /^([^:\s]{1,400})(?::\s?|$)/.exec(rest);
      if (q) {
        value = q[0].startsWith('"') ? decodeQuoted(q[1]!) : q[1]!;
        detail = rest.slice(q[0].length);
      }
    }
    return { field: s[1]!, type: s[2]!, ...(value !== undefined ? { value } : {}), detail: detail.trim() };
  });
}

const decodeQuoted = (s: string): string => {
  try {
    return JSON.parse(`"${s}"`) as string;
  } catch {
    return s;
  }
};

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

/**
 * Why the API server refuses a label value, in its words (kubernetes staging/src/k8s.io/apimachinery/pkg/util/
 * validation/validation.go IsValidLabelValue, v1.30.0: at most 63 characters, empty or alphanumeric at both ends with
 * `-`, `_` and `.` between); undefined for a valid value.
 */
export function labelValueProblem(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (!/^(?:(?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(value))
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  return undefined;
}
