/**
 * Consul's injection decision, as its connect injector makes it (research/consul.md §1, §7, §8).
 * Source: hashicorp/consul-k8s commit a507b1d1e3061996dbed00cde73bba2bf068379f (2.1.0-dev; the
 * same logic at v2.0.3, v1.9.11, v1.0.0 and v0.49.0):
 * - control-plane/connect-inject/webhook/mesh_webhook.go shouldInject: kube-system and
 *   kube-public never; the deny list (-deny-k8s-namespace) wins; then the allow list
 *   (-allow-k8s-namespace, "*" = all; none given = nothing injected); an existing
 *   `consul.hashicorp.com/connect-inject-status` skips; the annotation
 *   `consul.hashicorp.com/connect-inject` decides through Go's strconv.ParseBool, and an
 *   unparsable value is an error: Handle returns admission.Errored ("error checking if should
 *   inject: ..."), the API server denies the pod; else !RequireAnnotation, i.e. -default-inject
 *   (control-plane/subcommand/inject-connect/v1controllers.go; Helm connectInject.default: false).
 * - charts/consul/templates/connect-inject-deployment.yaml: the flags above are written into the
 *   `sidecar-injector` container's `/bin/sh -ec` command (there is no ConfigMap of settings).
 * - container_init.go: with ACLs (-acl-auth-method) a pod with no ServiceAccount token mount is
 *   denied ("unable to find service account token volumeMount").
 */
import { defineFact } from '../../k8s/fact.js';
import { comment } from '../../fix/steps.js';
import { containers, podSpec } from '../../k8s/pods.js';
import type { MeshContext } from '../context.js';
import { arr, annotationsOf, isObj, nameOf } from '../../util/objects.js';
import type { InjectorStep } from '../profile.js';
import { evalWebhook } from '../../k8s/webhook.js';

export const CONSUL_INJECT = 'consul.hashicorp.com/connect-inject';
const CONSUL_STATUS = 'consul.hashicorp.com/connect-inject-status';
/** mesh_webhook.go kubeSystemNamespaces. */
const SYSTEM = ['kube-system', 'kube-public'];
/** Go's strconv.ParseBool. */
export const TRUE = ['1', 't', 'T', 'TRUE', 'true', 'True'];
export const FALSE = ['0', 'f', 'F', 'FALSE', 'false', 'False'];
export const CONSUL_VALID = [...TRUE, ...FALSE];

/** true / false, or 'invalid' (ParseBool fails: the injector denies the pod); undefined when unset. */
export function parseConsul(v: string | undefined): boolean | 'invalid' | undefined {
  if (v === undefined) return undefined;
  if (TRUE.includes(v)) return true;
  if (FALSE.includes(v)) return false;
  return 'invalid';
}

/** The injector flags meshdoctor reads (regular expression sources: snapshots keep these words of command lines). */
export const CONSUL_FLAGS = [
  '-default-inject=\\w+',
  '-(?:allow|deny)-k8s-namespace="?[^"\\s\\\\]*"?',
  '-acl-auth-method',
  '-default-sidecar-proxy-(?:cpu|memory)-(?:request|limit)="?[0-9.]+[a-zA-Z]*"?',
  '-default-enable-consul-dataplane-as-sidecar=\\w+',
  '-enable-cni=\\w+',
  '-default-enable-transparent-proxy=\\w+',
  // consul-k8s up to 0.25: the injector patches the caBundle of this configuration itself (tlsAuto); a name, no secret.
  '-tls-auto=[\\w${}.-]+',
  // The consul-dataplane image it injects (an image reference, never a secret): the version checks.
  '-consul-dataplane-image="?[\\w./:@-]+"?',
];

interface ConsulSettings {
  /** The injector Deployment the flags were read from ('' when none was found: the chart defaults). */
  from: string;
  defaultInject: boolean;
  allow: string[];
  deny: string[];
  acls: boolean;
  resources: Record<string, string>;
  nativeSidecar?: boolean;
  /** -enable-cni (undefined: not among the flags read). */
  cni?: boolean;
  /** -default-enable-transparent-proxy (undefined: not among the flags read; the binary's default is true). */
  transparentProxy?: boolean;
  /**
   * The injector runs with -tls-auto: it makes its own certificate at start and patches the caBundle of the named
   * webhook configuration itself (consul-k8s up to 0.25: subcommand/inject-connect/command.go flagAutoName, v0.25.0;
   * consul-helm v0.31.0 templates/connect-inject-deployment.yaml passes it unless connectInject.certs.secretName is
   * set). From 0.26 the webhook-cert-manager does it (consul-helm v0.32.0 templates/webhook-cert-manager-configmap.yaml).
   */
  tlsAuto?: boolean;
  /**
   * No flags were read because the injector's namespace could not be (a Role that does not reach
   * it): why. The fields are then the chart defaults, which must not decide anything.
   */
  unknown?: string;
}

const unquote = (v: string) => v.replace(/^"|"$/g, '');

/**
 * The injector Deployment's names: `<fullname>-connect-injector` from consul-k8s 0.40, `<fullname>-connect-injector-webhook-deployment`
 * before (consul-helm v0.31.0 templates/connect-inject-deployment.yaml; consul-k8s v0.39.0 and v0.40.0
 * charts/consul/templates/connect-inject-deployment.yaml).
 */
export const isConsulInjectorDeployment = (name: string): boolean =>
  /(^|-)consul-connect-injector(-webhook-deployment)?$/.test(name);

const CONSUL_SETTINGS = defineFact({
  id: 'consul-settings',
  inputs: ['deployments', 'mutatingwebhookconfigurations', 'namespaces', 'pods'],
  compute: (m: MeshContext): ConsulSettings => {
    const defaults: ConsulSettings = {
      from: '',
      defaultInject: false,
      allow: ['*'],
      deny: [],
      acls: false,
      resources: {},
    };
    const install = m.mesh('consul');
    const candidates = [
      ...(install?.webhooks ?? []).flatMap((h) =>
        h.service ? [m.get('deployments', h.service.namespace, h.service.name)] : [],
      ),
      ...(install?.namespaces ?? []).flatMap((ns) =>
        m.inNamespace('deployments', ns).filter((d) => isConsulInjectorDeployment(nameOf(d))),
      ),
    ].filter((d) => d !== undefined);
    for (const d of candidates) {
      const c = containers(podSpec(isObj(d!.spec) ? d!.spec.template : undefined)).find(
        (x) => x.name === 'sidecar-injector',
      );
      const text = c ? [...arr(c.command), ...arr(c.args)].map(String).join(' ') : '';
      const def = /-default-inject=(\w+)/.exec(text);
      // Redacted by an older snapshot, or not the chart's command: nothing read.
      if (!def) continue;
      const all = (flag: string) =>
        [...text.matchAll(new RegExp(`-${flag}="?([^"\\s\\\\]*)"?`, 'g'))].map((x) => unquote(x[1]!));
      const resources: Record<string, string> = {};
      for (const x of text.matchAll(/-default-sidecar-proxy-(cpu|memory)-(request|limit)="?([0-9.]+[a-zA-Z]*)"?/g))
        resources[`${x[2] === 'request' ? 'requests' : 'limits'}.${x[1]}`] = x[3]!;
      const native = /-default-enable-consul-dataplane-as-sidecar=(\w+)/.exec(text)?.[1];
      const bool = (flag: string) => {
        const v = parseConsul(new RegExp(`-${flag}=(\\w+)`).exec(text)?.[1]);
        return typeof v === 'boolean' ? v : undefined;
      };
      const cni = bool('enable-cni');
      const tproxy = bool('default-enable-transparent-proxy');
      return {
        from: `${d!.metadata?.namespace}/${nameOf(d!)}`,
        defaultInject: def[1] === 'true',
        // No -allow-k8s-namespace at all: consul-k8s before 0.12 has no namespace lists (v0.12.0
        // subcommand/inject-connect/command.go adds them; every chart since writes the flag), so nothing is refused.
        allow: /(^|\s)-allow-k8s-namespace[=\s]/.test(text) ? all('allow-k8s-namespace') : ['*'],
        deny: all('deny-k8s-namespace'),
        acls: /-acl-auth-method/.test(text),
        resources,
        ...(native === 'true' || native === 'false' ? { nativeSidecar: native === 'true' } : {}),
        ...(cni !== undefined ? { cni } : {}),
        ...(tproxy !== undefined ? { transparentProxy: tproxy } : {}),
        ...(/(^|\s)-tls-auto=\S/.test(text) ? { tlsAuto: true } : {}),
      };
    }
    // Not read because refused there: unknown, not the chart defaults.
    const refused = m.controlPlaneRefused('consul', ['deployments']);
    return refused ? { ...defaults, unknown: refused } : defaults;
  },
});

/** The flags of the installed injector (the first one found); the chart defaults where none can be read. */
export function consulSettings(m: MeshContext): ConsulSettings {
  return m.fact(CONSUL_SETTINGS);
}

/** The namespace passes the injector's own namespace rules (shouldInject steps 1-3); why not, when it does not. */
export function namespaceRefused(
  s: ConsulSettings,
  ns: string,
): Pick<InjectorStep, 'kind' | 'rule' | 'detail'> | undefined {
  if (SYSTEM.includes(ns))
    return { kind: 'system-namespace', rule: 'kube-system-namespace', detail: `Consul never injects in ${ns}` };
  if (s.deny.includes(ns))
    return {
      kind: 'namespace-setting',
      rule: 'deny-k8s-namespace',
      detail: `the injector runs with -deny-k8s-namespace=${ns} (Helm connectInject.k8sDenyNamespaces)`,
    };
  if (!s.allow.includes('*') && !s.allow.includes(ns))
    return {
      kind: 'namespace-setting',
      rule: 'allow-k8s-namespace',
      detail: s.allow.length
        ? `namespace ${ns} is not among the injector's -allow-k8s-namespace values (${s.allow.join(', ')}; Helm connectInject.k8sAllowNamespaces)`
        : 'the injector runs with no -allow-k8s-namespace at all, so it injects nothing (Helm connectInject.k8sAllowNamespaces)',
    };
  return undefined;
}

/**
 * The injector's namespace lists as configuration (injector-config-excludes): no pod setting gets
 * past them (mesh_webhook.go shouldInject reads them before the annotation, a507b1d), so the fix is
 * the Helm values behind the flags (charts/consul/templates/connect-inject-deployment.yaml writes
 * connectInject.k8sAllowNamespaces / k8sDenyNamespaces as -allow-k8s-namespace / -deny-k8s-namespace).
 */
function namespaceListConfig(s: ConsulSettings, ns: string): NonNullable<InjectorStep['config']> {
  const denied = s.deny.includes(ns);
  return {
    evidence: {
      flag: denied ? '-deny-k8s-namespace' : '-allow-k8s-namespace',
      allowK8sNamespaces: s.allow,
      denyK8sNamespaces: s.deny,
      ...(s.from ? { injector: s.from } : {}),
    },
    fix: denied
      ? [
          comment`remove ${ns} from the Helm value connectInject.k8sDenyNamespaces, the -deny-k8s-namespace flag of the injector, and upgrade the release`,
        ]
      : [
          comment`add ${ns} to the Helm value connectInject.k8sAllowNamespaces, the -allow-k8s-namespace flag of the injector where '*' allows all, and upgrade the release`,
        ],
  };
}

/**
 * -default-inject=true injects this namespace's pods by default: its lists allow it and a webhook's
 * namespaceSelector selects it (a namespace the selector leaves out is left out on purpose).
 */
export function defaultInjects(m: MeshContext, ns: string, nsLabels: Record<string, string>): boolean {
  const s = consulSettings(m);
  if (!s.defaultInject || namespaceRefused(s, ns)) return false;
  const hooks = m.webhooksOf('consul');
  return hooks.length === 0 || hooks.some((h) => evalWebhook(h, nsLabels, {}).namespaceSelector.matched);
}

/** The webhook's decision for a pod it is called for (shouldInject: the first rule that decides wins), then the ACL token rule. */
export function consulInjector(
  m: MeshContext,
  namespace: string,
  template: { metadata?: unknown; spec?: unknown },
): InjectorStep[] {
  const s = consulSettings(m);
  const steps: InjectorStep[] = [];
  const refused = SYSTEM.includes(namespace) || !s.unknown ? namespaceRefused(s, namespace) : undefined;
  if (refused)
    return [
      {
        ...refused,
        ok: false,
        ...(refused.rule === 'kube-system-namespace' ? {} : { config: namespaceListConfig(s, namespace) }),
      },
    ];
  steps.push(
    s.unknown
      ? {
          kind: 'namespace-setting',
          rule: 'namespace',
          ok: true,
          unknown: true,
          detail: `the injector's -allow-k8s-namespace and -deny-k8s-namespace were not examined (${s.unknown})`,
        }
      : {
          kind: 'namespace-setting',
          rule: 'namespace',
          ok: true,
          detail: `namespace ${namespace} is allowed by the injector's -allow-k8s-namespace and -deny-k8s-namespace`,
        },
  );
  const ann = annotationsOf(template);
  if (ann[CONSUL_STATUS])
    return [
      ...steps,
      {
        kind: 'already-injected',
        rule: 'already-injected',
        ok: false,
        detail: `the pod template already has ${CONSUL_STATUS}=${ann[CONSUL_STATUS]}`,
      },
    ];
  const v = ann[CONSUL_INJECT];
  const parsed = parseConsul(v);
  let step: InjectorStep;
  if (parsed === 'invalid')
    step = {
      kind: 'marker',
      rule: 'connect-inject-annotation',
      ok: false,
      detail: `pod template annotation ${CONSUL_INJECT}=${v} is not a value Go's strconv.ParseBool reads (true, false, 1, 0, t, f, ...): the injector denies the pod`,
      denies: true,
    };
  else if (parsed !== undefined)
    step = {
      kind: 'marker',
      rule: 'connect-inject-annotation',
      ok: parsed,
      detail: `pod template annotation ${CONSUL_INJECT}=${v}`,
    };
  else if (s.unknown)
    step = {
      kind: 'injector-setting',
      rule: 'default-inject',
      ok: true,
      unknown: true,
      detail: `no pod template annotation ${CONSUL_INJECT}: the injector's -default-inject decides, and was not examined`,
    };
  else
    step = {
      kind: 'injector-setting',
      rule: 'default-inject',
      ok: s.defaultInject,
      detail: `no pod template annotation ${CONSUL_INJECT}: the injector's -default-inject=${s.defaultInject} decides (Helm connectInject.default${s.from ? '' : ', chart default'})`,
    };
  steps.push(step);
  if (step.ok && s.unknown) {
    // With ACLs the injector denies a pod without a token: whether Consul runs with them was not examined.
    const off = tokenOff(m, namespace, template);
    if (off)
      steps.push({
        kind: 'token',
        rule: 'service-account-token',
        ok: true,
        unknown: true,
        detail: `${off}; whether Consul runs with ACLs (then the injector denies the pod) was not examined`,
      });
    return steps;
  }
  if (!step.ok || !s.acls) return steps;
  const off = tokenOff(m, namespace, template);
  steps.push({
    kind: 'token',
    rule: 'service-account-token',
    ok: !off,
    ...(off ? { denies: true } : {}),
    detail: off
      ? `${off} and Consul runs with ACLs: the injector denies a pod without a ServiceAccount token mount`
      : 'service account token mounted (Consul runs with ACLs)',
  });
  return steps;
}

const SA_TOKEN_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * Why the pod has no ServiceAccount token mount, if it has none. mesh_webhook.go
 * findServiceAccountVolumeMount (a507b1d): any container's volumeMount at the token path will do
 * (a projected token mounted there by hand passes). The ServiceAccount admission plugin, which runs
 * before the webhooks, adds that mount unless the pod's automountServiceAccountToken is false, or
 * the pod leaves it unset and its ServiceAccount's is false.
 */
function tokenOff(m: MeshContext, ns: string, template: { metadata?: unknown; spec?: unknown }): string | undefined {
  const spec = podSpec(template);
  if (containers(spec).some((c) => arr(c.volumeMounts).some((v) => isObj(v) && v.mountPath === SA_TOKEN_PATH)))
    return undefined;
  if (spec.automountServiceAccountToken === false) return 'automountServiceAccountToken is false';
  if (spec.automountServiceAccountToken !== undefined) return undefined;
  const sa =
    (typeof spec.serviceAccountName === 'string' && spec.serviceAccountName) ||
    (typeof spec.serviceAccount === 'string' && spec.serviceAccount) ||
    'default';
  const obj = m.get('serviceaccounts', ns, sa);
  return obj?.automountServiceAccountToken === false
    ? `ServiceAccount ${sa} sets automountServiceAccountToken: false (the pod leaves it unset)`
    : undefined;
}
