/**
 * Where admission-rejects-proxy fires, and its near misses (test/helpers/check-tester.ts): each
 * layer names itself, its object and its own fix; Pod Security's capability refusals of the init
 * container stay pod-security-blocks-init's.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings, ids } from '../helpers/fixtures.js';
import { admissionChain } from '../../src/k8s/webhook.js';

checkCases('admission-rejects-proxy', {
  fires: [
    // store/api refused (its event); store/frontend predicted from the namespace label.
    {
      fixtures: 'fires-istio-restricted-seccomp.yaml',
      findings: ['Deployment store/api', 'Deployment store/frontend'],
    },
    // No enforce label on the namespace: the API server's own PodSecurity default (linkerd/linkerd2#11667's class).
    { fixtures: 'fires-istio-restricted-cluster-default.yaml', findings: ['Deployment store/api'] },
    { fixtures: 'fires-linkerd-restricted-proxy-capabilities.yaml', findings: ['Deployment shop/cart'] },
    { fixtures: 'fires-kuma-openshift-scc.yaml', findings: ['Deployment orders/backend'] },
    { fixtures: 'fires-istio-gatekeeper.yaml', findings: ['Deployment store/search'] },
    { fixtures: 'fires-linkerd-kyverno.yaml', findings: ['Deployment shop/mailer'] },
    // reviews confirmed by its event; products and sync-prices predicted from the LimitRange.
    {
      fixtures: 'fires-consul-limitrange.yaml',
      findings: ['Deployment catalog/reviews', 'Deployment catalog/products', 'Job catalog/sync-prices'],
    },
    { fixtures: 'fires-istio-limitrange-predicted.yaml', findings: ['Deployment store/frontend'] },
    // The LimitRanger's forms by structure (src/k8s/limitrange.ts): a value missing that it would have defaulted.
    { fixtures: 'fires-linkerd-limitrange-min-no-request.yaml', findings: ['Deployment shop/helloworld'] },
    {
      fixtures: 'fires-linkerd-stable-2.10-limitrange-min-init.yaml',
      findings: ['Deployment ingress-nginx/nginx-ingress-controller'],
    },
    // ratings refused (no limit after the annotation); frontend predicted (the default proxy's ratio, 20).
    {
      fixtures: 'fires-istio-1.5-limitrange-ratio-no-limit.yaml',
      findings: ['Deployment store/ratings', 'Deployment store/frontend'],
    },
    { fixtures: 'fires-istio-native-sidecar-dropped.yaml', findings: ['Job store/example-job'] },
    { fixtures: 'fires-linkerd-native-sidecar-dropped.yaml', findings: ['Deployment shop/ledger'] },
    { fixtures: 'fires-istio-psp.yaml', findings: ['Deployment store/sleep'] },
    { fixtures: 'fires-kuma-psp-root-uid.yaml', findings: ['Deployment orders/ledger'] },
    { fixtures: 'fires-consul-psp-empty.yaml', findings: ['Deployment catalog/ledger'] },
    { fixtures: 'fires-kuma-kyverno-path.yaml', findings: ['Deployment orders/reports'] },
    {
      fixtures: 'fires-linkerd-restricted-predicted.yaml',
      findings: ['Deployment shop/web', 'StatefulSet shop/db', 'CronJob shop/report'],
    },
    // SecurityContextDeny: the runAsUser each mesh's injector sets (istio/istio#7650).
    { fixtures: 'fires-istio-securitycontextdeny.yaml', findings: ['Deployment store/details'] },
    { fixtures: 'fires-linkerd-securitycontextdeny.yaml', findings: ['Deployment shop/inventory'] },
    { fixtures: 'fires-kuma-securitycontextdeny.yaml', findings: ['Deployment orders/payments'] },
    // A refusal of an injected workload that no layer meshdoctor reads explains: quoted, never dropped.
    { fixtures: 'fires-linkerd-unrecognised.yaml', findings: ['Deployment shop/billing'] },
    { fixtures: 'fires-istio-unrecognised-names-proxy.yaml', findings: ['Deployment store/search'] },
    // An image policy naming only the proxy's image reference (kyverno/kyverno#4521's policy).
    { fixtures: 'fires-linkerd-kyverno-verify-image.yaml', findings: ['Deployment shop/mailroom'] },
    // What the API server's validation refuses that the template does not hold: a volume, a mount path.
    { fixtures: 'fires-kuma-duplicate-volume.yaml', findings: ['Deployment orders/archive'] },
    { fixtures: 'fires-consul-mount-added-twice.yaml', findings: ['Deployment catalog/exporter'] },
    // SecurityContextDeny predicted from the API server's flags, before any pod is refused.
    {
      fixtures: 'fires-linkerd-securitycontextdeny-predicted.yaml',
      findings: ['Deployment shop/web', 'StatefulSet shop/db', 'CronJob shop/report'],
    },
    {
      fixtures: 'fires-istio-securitycontextdeny-admission-control.yaml',
      findings: ['Deployment store/frontend', 'Deployment payments/ledger', 'Job payments/migrate-v14'],
    },
    // A pod label the injector writes from the owner's name, refused (issue 31, gen13events): on an owner of a kind
    // not read, tied to its running pods or inferred from the ReplicaSet; predicted from a name, also by `check -f`.
    {
      fixtures: 'fires-istio-owner-label-rollout-replicaset.yaml',
      findings: ['ReplicaSet store/checkout-experience-recommendations-ranking-service-blue-green-canary-6d5f8c7b9'],
    },
    {
      fixtures: 'fires-istio-owner-label-custom-resource-pods.yaml',
      findings: ['TFJob store/image-classification-resnet50-distributed-training-run-2026-11-22'],
    },
    {
      fixtures: 'fires-linkerd-owner-label-predicted.yaml',
      findings: ['Deployment shop/identity-platform-tenant-west-ab-konk-service-kubectl-apiservice'],
    },
    {
      name: 'check -f of a bare Pod named over 63 characters (istio/istio#25157)',
      base: 'istio-1.6',
      manifests: 'fires-istio-1.6-owner-label-bare-pod-manifest.yaml',
      findings: ['Pod store/xxxxxxxcxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
    },
  ],
  silent: [
    { fixtures: 'ok-istio-owner-label-custom-resource-not-injected.yaml' },
    { fixtures: 'ok-linkerd-owner-label-custom-resource.yaml' },
    { fixtures: 'ok-istio-owner-label-another-webhooks-value.yaml' },
    { fixtures: 'ok-istio-owner-label-long-name-cut-valid.yaml' },
    { fixtures: 'ok-validation-app-fields.yaml' },
    { fixtures: 'ok-linkerd-not-the-proxy.yaml' },
    { fixtures: 'ok-linkerd-restricted-hardened.yaml' },
    { fixtures: 'ok-istio-limitrange-fits.yaml' },
    { fixtures: 'ok-istio-1.5-limitrange-no-limit-not-the-proxy.yaml' },
    { fixtures: 'ok-linkerd-limitrange-ratio-app-without-limit.yaml' },
    { fixtures: 'ok-istio-psp-app-container.yaml' },
    { fixtures: 'ok-linkerd-psp-empty-not-injected.yaml' },
    { fixtures: 'ok-istio-securitycontextdeny-pod-fsgroup.yaml' },
    { fixtures: 'ok-linkerd-unrecognised-not-injected.yaml' },
    { fixtures: 'ok-linkerd-kyverno-app-image.yaml' },
    { fixtures: 'ok-linkerd-duplicate-volume-not-injected.yaml' },
    { fixtures: 'ok-kuma-securitycontextdeny-disabled.yaml' },
  ],
});

const F = (name: string) => `checks/admission-rejects-proxy/${name}.yaml`;
const one = (base: Parameters<typeof cluster>[0], name: string) => {
  const [f, ...rest] = findings(cluster(base, [F(name)]), ['admission-rejects-proxy']);
  expect(rest).toEqual([]);
  return f!;
};

describe('admission-rejects-proxy', () => {
  it('Pod Security from the cluster default: says so, never that the namespace enforces it', () => {
    const f = one('istio', 'fires-istio-restricted-cluster-default');
    expect(f.message).toBe(
      'Pod Security "restricted" is enforced in namespace store by the API server\'s cluster-wide default (its PodSecurity admission configuration: the namespace has no pod-security.kubernetes.io/enforce label), which refuses Istio\'s injected istio-validation, istio-proxy (seccompProfile), so Deployment store/api cannot create its pods.',
    );
  });
  it('Pod Security restricted: names the requirement, and fixes the pod template rather than advising a CNI plugin', () => {
    const f = findings(cluster('istio', [F('fires-istio-restricted-seccomp')]), ['admission-rejects-proxy']).find(
      (x) => x.resource.name === 'api',
    )!;
    expect(f.message).toBe(
      'Namespace store enforces Pod Security "restricted", which refuses Istio\'s injected istio-validation, istio-proxy (seccompProfile), so Deployment store/api cannot create its pods.',
    );
    expect(f.evidence).toMatchObject({
      layer: 'pod-security',
      level: 'restricted',
      violations: [{ reason: 'seccompProfile' }],
    });
    expect(f.fix[0]).toBe(
      `kubectl patch deployment/api -n store --type=merge -p '{"spec":{"template":{"spec":{"securityContext":{"seccompProfile":{"type":"RuntimeDefault"}}}}}}'`,
    );
    expect(f.fix.join('\n')).toContain('global.proxy.seccompProfile.type=RuntimeDefault');
    expect(f.fix.join('\n')).not.toMatch(/cni/i);
    const l = one('linkerd', 'fires-linkerd-restricted-proxy-capabilities');
    expect(l.fix.join('\n')).toContain('proxy.capabilities.drop={ALL}');
    expect(l.fix.join('\n')).not.toMatch(/install-cni/);
  });

  it('OpenShift: names the SCCs, the UID and the capability, with the mesh documented fix', () => {
    const f = one('kuma', 'fires-kuma-openshift-scc');
    expect(f.message).toContain(
      "UID 5678 is outside the namespace's range 1000680000-1000689999; NET_ADMIN may not be added",
    );
    expect(f.evidence).toMatchObject({
      layer: 'openshift-scc',
      securityContextConstraints: ['anyuid', 'restricted-v2', 'privileged'],
      capabilities: ['NET_ADMIN'],
    });
  });

  it('policy engines: the engine, the constraint or policy, and the injected container or capability', () => {
    const g = one('istio', 'fires-istio-gatekeeper');
    expect(g.message).toMatch(
      /^Gatekeeper \(webhook validation\.gatekeeper\.sh\) refuses the pods of Deployment store\/search over Istio's injected istio-init.* \(constraint psp-capabilities\)/,
    );
    expect(g.evidence).toMatchObject({
      layer: 'policy-engine',
      engine: 'Gatekeeper',
      constraints: ['psp-capabilities'],
    });
    const k = one('linkerd', 'fires-linkerd-kyverno');
    expect(k.evidence).toMatchObject({
      engine: 'Kyverno',
      policies: ['disallow-net-admin'],
      capabilities: ['NET_ADMIN', 'NET_RAW'],
    });
  });

  it('LimitRange: predicted from the LimitRange and the resources the injector gives its containers', () => {
    const f = one('istio', 'fires-istio-limitrange-predicted');
    expect(f.severity).toBe('warning');
    expect(f.message).toBe(
      "LimitRange per-container in namespace store will refuse the resources of Istio's injected istio-init, istio-proxy (maximum cpu usage per Container is 1, but limit is 2): the next pods of Deployment store/frontend will not be created.",
    );
    expect(f.evidence).toMatchObject({ layer: 'limitrange', predicted: true, limitRanges: ['per-container'] });
  });

  it('LimitRange: names the LimitRange and the limit the injected containers exceed', () => {
    const f = findings(cluster('consul', [F('fires-consul-limitrange')]), ['admission-rejects-proxy']).find(
      (x) => x.resource.name === 'reviews',
    )!;
    expect(f.message).toContain('LimitRange small in namespace catalog refuses the resources of Consul');
    expect(f.evidence).toMatchObject({
      layer: 'limitrange',
      limitRanges: ['small'],
      violations: ['maximum memory usage per Container is 128Mi, but limit is 150Mi'],
    });
    expect(f.fix).toContain('kubectl get limitrange small -n catalog -o yaml');
  });

  it('leaves the init container capabilities to pod-security-blocks-init', () => {
    const got = ids(
      findings(cluster('linkerd', [F('ok-linkerd-not-the-proxy')]), [
        'pod-security-blocks-init',
        'admission-rejects-proxy',
      ]),
    );
    expect(got).toEqual(['pod-security-blocks-init Deployment shop/worker']);
  });

  it('every fix line of every layer is one safe line (none withheld)', () => {
    const cases = [
      ['istio', 'fires-istio-restricted-seccomp'],
      ['linkerd', 'fires-linkerd-restricted-proxy-capabilities'],
      ['kuma', 'fires-kuma-openshift-scc'],
      ['istio', 'fires-istio-gatekeeper'],
      ['linkerd', 'fires-linkerd-kyverno'],
      ['consul', 'fires-consul-limitrange'],
    ] as const;
    for (const [base, name] of cases) {
      const lines = findings(cluster(base, [F(name)]), ['admission-rejects-proxy'])[0]!.fix;
      expect(lines.length, name).toBeGreaterThan(1);
      expect(
        lines.filter((l) => l.startsWith('# fix withheld')),
        name,
      ).toEqual([]);
    }
  });

  it('predicts restricted refusals from the namespace and the injected security contexts, as a warning with the fix', () => {
    const all = findings(cluster('linkerd', [F('fires-linkerd-restricted-predicted')]), ['admission-rejects-proxy']);
    const web = all.find((f) => f.resource.name === 'web')!;
    expect(web.severity).toBe('warning');
    expect(web.message).toBe(
      'Namespace shop enforces Pod Security "restricted", which will refuse Linkerd\'s injected linkerd-proxy (unrestricted capabilities): the next pods of Deployment shop/web will not be created.',
    );
    expect(web.evidence).toMatchObject({
      predicted: true,
      violations: [{ reason: 'unrestricted capabilities', containers: ['linkerd-proxy'] }],
    });
    expect(web.fix.join('\n')).toContain('proxy.capabilities.drop={ALL}');
  });
});

describe('admission-rejects-proxy: every admission layer, named with its field and the chain', () => {
  it('a webhook called after the mesh drops restartPolicy from the native sidecar (istio/istio#49221, #52245; kube-secrets-init#53)', () => {
    const i = one('istio', 'fires-istio-native-sidecar-dropped');
    expect(i.message).toContain(
      "Mutating webhook azure-wi-webhook-mutating-webhook-configuration/mutation.azure-workload-identity.io, called after Istio's, drops restartPolicy: Always from the native sidecar Istio injects",
    );
    expect(i.evidence).toMatchObject({
      layer: 'validation',
      rewrittenBy: ['azure-wi-webhook-mutating-webhook-configuration/mutation.azure-workload-identity.io'],
      templateContainers: { initContainers: 0 },
      admissionChain: {
        webhooks: [
          'mutating azure-wi-webhook-mutating-webhook-configuration/mutation.azure-workload-identity.io (Fail, reinvocation IfNeeded)',
          'mutating istio-sidecar-injector/namespace.sidecar-injector.istio.io (Fail, reinvocation Never) [istio]',
        ],
      },
    });
    expect((i.evidence.fields as { field: string }[]).map((f) => f.field)).toEqual([
      'spec.initContainers[1].lifecycle',
      'spec.initContainers[1].readinessProbe',
      'spec.initContainers[1].startupProbe',
    ]);
    expect(i.fix[0]).toContain('sidecar.istio.io/nativeSidecar set to false');
    const l = one('linkerd', 'fires-linkerd-native-sidecar-dropped');
    // Sorted after Linkerd's configuration by name: called after it, with no reinvocation needed.
    expect(l.evidence).toMatchObject({ rewrittenBy: ['secrets-init-webhook/secrets-init.doit-intl.com'] });
    expect(l.fix).toContain('kubectl get mutatingwebhookconfiguration secrets-init-webhook -o yaml');
  });

  it('a policy engine naming an injected container only by its path (Kyverno)', () => {
    const f = one('kuma', 'fires-kuma-kyverno-path');
    expect(f.evidence).toMatchObject({
      layer: 'policy-engine',
      engine: 'Kyverno',
      policies: ['require-run-as-nonroot'],
      injectedFields: ['spec.containers[1]'],
    });
    expect(f.message).toContain("over Kuma's injected containers (spec.containers[1]: past the pod template's own)");
  });

  it('PodSecurityPolicy names itself, the capabilities and the injected container at the index it quotes (SUSE/scf#2081)', () => {
    const f = one('istio', 'fires-istio-psp');
    expect(f.message).toBe(
      "PodSecurityPolicy admission refuses Istio's injected istio-init in Deployment store/sleep (NET_ADMIN, NET_RAW may not be added): no PodSecurityPolicy the pod may use allows it, so it cannot create its pods.",
    );
    expect(f.evidence).toMatchObject({ layer: 'pod-security-policy', capabilities: ['NET_ADMIN', 'NET_RAW'] });
    expect(f.fix.every((l) => !l.startsWith('# fix withheld'))).toBe(true);
  });
});

describe('admissionChain (src/k8s/webhook.ts): the API server order and matching', () => {
  const hook = (name: string, extra: object = {}) => ({
    name,
    rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
    ...extra,
  });
  const config = (kind: string, name: string, webhooks: object[]) => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    metadata: { name },
    webhooks,
  });
  it('mutating configurations by name then webhook order, validating after; selectors, scope and operations decide', () => {
    const chain = admissionChain(
      [
        config('MutatingWebhookConfiguration', 'zeta', [hook('z1.io', { reinvocationPolicy: 'IfNeeded' })]),
        config('MutatingWebhookConfiguration', 'alpha', [
          hook('a2.io'),
          hook('a1.io', { objectSelector: { matchLabels: { skip: 'me' } } }),
          hook('a3.io', { matchConditions: [{ name: 'c', expression: 'size(object.spec.containers) > 0' }] }),
        ]),
        config('MutatingWebhookConfiguration', 'cluster-only', [
          hook('c.io', {
            rules: [
              { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], scope: 'Cluster' },
            ],
          }),
        ]),
        config('MutatingWebhookConfiguration', 'updates', [
          hook('u.io', {
            rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['pods'] }],
          }),
        ]),
      ],
      [config('ValidatingWebhookConfiguration', 'aaa', [hook('v.io', { failurePolicy: 'Ignore' })])],
      { 'kubernetes.io/metadata.name': 'shop' },
      { app: 'web' },
    );
    expect(chain.map((e) => `${e.type} ${e.configuration}/${e.webhook}`)).toEqual([
      'mutating alpha/a2.io',
      'mutating alpha/a3.io',
      'mutating zeta/z1.io',
      'validating aaa/v.io',
    ]);
    expect(chain[1]).toMatchObject({ matchConditions: 1, reinvocationPolicy: 'Never' });
    expect(chain[2]).toMatchObject({ reinvocationPolicy: 'IfNeeded' });
    expect(chain[3]).toEqual({ type: 'validating', configuration: 'aaa', webhook: 'v.io', failurePolicy: 'Ignore' });
  });
});

describe('admission-rejects-proxy: SecurityContextDeny and refusals it does not recognise', () => {
  it('SecurityContextDeny: names the plugin, the field and the injected containers that set it, for every mesh', () => {
    const i = one('istio', 'fires-istio-securitycontextdeny');
    expect(i.message).toContain("The API server's SecurityContextDeny admission plugin refuses every container");
    expect(i.message).toContain('istio-proxy runAsUser 1337');
    expect(i.evidence).toMatchObject({ layer: 'security-context-deny', field: 'securityContext.runAsUser' });
    expect(i.fix.join('\n')).toContain('SecurityContextDeny');
    expect(one('linkerd', 'fires-linkerd-securitycontextdeny').message).toContain('linkerd-proxy runAsUser 2102');
    expect(one('kuma', 'fires-kuma-securitycontextdeny').message).toContain('kuma-sidecar runAsUser 5678');
  });
  it('an unrecognised refusal is quoted, bounded, with the cause said to be unknown and the injected container it names', () => {
    const u = one('linkerd', 'fires-linkerd-unrecognised');
    expect(u.message).toContain('pod node label selector conflicts with its namespace node label selector');
    expect(u.message).toContain('is not known');
    expect(u.evidence).toMatchObject({ layer: 'unrecognised', namesInjected: [] });
    const n = one('istio', 'fires-istio-unrecognised-names-proxy');
    expect(n.message).toContain("(it names Istio's injected istio-proxy, proxy image docker.io/istio/proxyv2)");
    expect(n.evidence).toMatchObject({ namesInjected: ['istio-proxy', 'proxy image docker.io/istio/proxyv2'] });
  });
  it('an image policy that names only the proxy image reference: the policy and the image', () => {
    const k = one('linkerd', 'fires-linkerd-kyverno-verify-image');
    expect(k.message).toContain("over Linkerd's injected proxy image cr.l5d.io/linkerd/proxy:edge-24.11.8");
    expect(k.evidence).toMatchObject({ engine: 'Kyverno', policies: ['verify-signatures'] });
  });
});

describe('admission-rejects-proxy: what validation refuses that the template does not hold', () => {
  it('a second volume named like the template own, and a mount path no template holds, with the webhooks', () => {
    const k = one('kuma', 'fires-kuma-duplicate-volume');
    expect(k.message).toContain('a second volume named certs the pod template did not have');
    expect(k.evidence).toMatchObject({ layer: 'validation', duplicates: ['certs'] });
    const c = one('consul', 'fires-consul-mount-added-twice');
    expect(c.message).toContain('values the pod template did not have');
    expect(c.message).toContain('"/vault/secrets"');
  });
});

describe('admission-rejects-proxy: SecurityContextDeny predicted from the API server flags', () => {
  it('names the API server, its flag and the injected UIDs, as a warning', () => {
    const all = findings(cluster('linkerd', [F('fires-linkerd-securitycontextdeny-predicted')]), [
      'admission-rejects-proxy',
    ]);
    const web = all.find((f) => f.resource.name === 'web')!;
    expect(web.severity).toBe('warning');
    expect(web.message).toContain(
      'Pod kube-system/kube-apiserver-cp1: --enable-admission-plugins=NodeRestriction,SecurityContextDeny',
    );
    expect(web.message).toContain('linkerd-proxy runAsUser 2102');
    expect(web.evidence).toMatchObject({ layer: 'security-context-deny', predicted: true });
  });
});
