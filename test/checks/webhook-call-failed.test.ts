/**
 * Where webhook-call-failed fires, and its near misses (test/helpers/check-tester.ts). Its evidence, fixes and
 * links to other findings: test/checks/control-plane.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('webhook-call-failed', {
  fires: [
    { fixtures: 'fires-consul.yaml', findings: ['Deployment catalog/products'] },
    // A certificate whose host is only its subject Common Name (Kubernetes 1.19 on refuses it): named as such.
    {
      fixtures: 'fires-consul-legacy-common-name.yaml',
      findings: ['Deployment catalog/products'],
      said: [
        {
          id: 'call-failed',
          params: {
            because:
              "the API server rejects the webhook's TLS certificate: the certificate names the host only in its subject Common Name, without a subjectAltName, which API servers from Kubernetes 1.19 on no longer accept (Go 1.15); re-issue it with the host as a subjectAltName",
          },
        },
      ],
    },
    // The nodes' CNI agent refused by a Fail webhook while the nodes wait for it (linkerd/linkerd2#3104): a deadlock.
    {
      fixtures: 'fires-linkerd-stable-2.10-ha-calico-node-deadlock.yaml',
      findings: ['DaemonSet kube-system/calico-node'],
      said: [{ id: 'node-network-deadlock', params: { product: 'Calico', notReady: '3 of 3 nodes' } }],
    },
    // Its near miss: the same refusal with the nodes Ready is the plain call failure.
    {
      fixtures: 'fires-linkerd-stable-2.10-ha-calico-node-nodes-ready.yaml',
      findings: ['DaemonSet kube-system/calico-node'],
      said: [{ id: 'call-failed', params: { hook: 'linkerd-proxy-injector.linkerd.io' } }],
    },
    { fixtures: 'fires-istio.yaml', findings: ['Job payments/backfill', 'Deployment store/frontend'] },
    // A TLS rejection after the injector's Secret got a certificate issued after the injector started (gen9time).
    {
      fixtures: 'fires-linkerd-stable-2.10-injector-2.9.0-regenerated-unknown-authority.yaml',
      findings: ['Deployment shop/cart'],
    },
    {
      fixtures: 'fires-linkerd-stable-2.10-injector-2.9.2-cert-manager-renewed-expired.yaml',
      findings: ['Deployment shop/cart'],
    },
    {
      fixtures: 'fires-linkerd-stable-2.10-injector-2.9.2-started-after-renewal.yaml',
      findings: ['Deployment shop/cart'],
    },
    { fixtures: 'fires-kuma-cp-started-before-renewed-tls-cert.yaml', findings: ['Deployment orders/ledger'] },
    { fixtures: 'fires-kuma.yaml', findings: ['Deployment orders/api'] },
    // EKS refusing an overlay address (issue 31, gen9path): not the API server's HTTP proxy.
    {
      fixtures: 'fires-istio-eks-address-not-allowed.yaml',
      findings: ['Deployment store/frontend'],
      said: [{ id: 'call-failed', params: { because: /Address is not allowed/ } }],
    },
    // An HTTP proxy answered the call (its CONNECT refused): the cause is named from the error, the API server's pods unread.
    {
      fixtures: 'fires-istio-proxy-forbidden.yaml',
      findings: ['Deployment store/frontend'],
      said: [{ id: 'call-failed', params: { hook: 'namespace.sidecar-injector.istio.io' } }],
    },

    { fixtures: 'fires-kuma-service-not-found.yaml', findings: ['Deployment orders/api'] },
    { fixtures: 'fires-linkerd-service-not-found.yaml', findings: ['Deployment shop/web'] },
    { fixtures: 'fires-istio-gke-timeout.yaml', findings: ['Deployment store/frontend'] },
    { fixtures: 'fires-kuma-eks-timeout.yaml', findings: ['Deployment orders/api'] },
    { fixtures: 'fires-linkerd-cronjob.yaml', findings: ['CronJob shop/report'] },
    { fixtures: 'fires-linkerd-refused-old-wording.yaml', findings: ['Deployment shop/web'] },
    { fixtures: 'fires-consul-patch.yaml', findings: ['Deployment catalog/products'] },
    { fixtures: 'fires-istio-patch.yaml', findings: ['Deployment store/frontend'] },
    // Another admission layer's webhook failing for a workload a mesh injects (open-policy-agent/opa#1822, kyverno/kyverno#3390).
    { fixtures: 'fires-istio-other-layer.yaml', findings: ['Deployment store/details'] },
    { fixtures: 'fires-linkerd-kyverno-timeout.yaml', findings: ['Deployment shop/api'] },
    // An opt-out written as an annotation the webhook's objectSelector cannot see (istio/istio#35271).
    { fixtures: 'fires-istio-optout-annotation.yaml', findings: ['Deployment store/export'] },
    { fixtures: 'fires-istio-rev-optout-annotation.yaml', findings: ['Deployment payments/reconciler'] },
    { fixtures: 'fires-istio-1.5-optout-annotation.yaml', findings: ['Deployment store/export'] },
  ],
  silent: [
    { fixtures: 'ok-istio.yaml' },
    { fixtures: 'ok-linkerd-injection-skipped.yaml' },
    { fixtures: 'ok-patch-and-others.yaml' },
  ],
});

const run = (mesh: 'linkerd' | 'istio' | 'consul', file: string) =>
  findings(cluster(mesh, [`checks/webhook-call-failed/${file}.yaml`]), ['webhook-call-failed']);

describe('webhook-call-failed: another admission layer', () => {
  it('names the other webhook, its configuration and Service, and says the mesh is not the cause', () => {
    const [f] = run('istio', 'fires-istio-other-layer');
    expect(f!.message).toContain(
      'failed calling webhook istio.openpolicyagent.org (MutatingWebhookConfiguration opa-istio-admission-controller, failurePolicy Fail), which is not Istio',
    );
    expect(f!.message).toContain('its Service has no endpoints');
    expect(f!.evidence).toMatchObject({
      layer: 'MutatingWebhookConfiguration opa-istio-admission-controller',
      service: 'opa-istio/admission-controller',
    });
    const [k] = run('linkerd', 'fires-linkerd-kyverno-timeout');
    expect(k!.message).toContain(
      'validate.kyverno.svc-fail (ValidatingWebhookConfiguration kyverno-resource-validating-webhook-cfg',
    );
    expect(k!.message).toContain('the call timed out');
  });
});

describe('webhook-call-failed: the error read by its structure', () => {
  it("the older wording's refused connection is a refused connection, not the URL's ?timeout=30s", () => {
    const [f] = run('linkerd', 'fires-linkerd-refused-old-wording');
    expect(f!.evidence).toMatchObject({
      webhook: 'linkerd-proxy-injector.linkerd.io',
      cause: 'connection-refused',
      url: 'https://linkerd-proxy-injector.linkerd.svc:443/?timeout=30s',
      transportError: 'dial tcp 10.3.192.109:443: connect: connection refused',
    });
    expect(f!.message).toContain('because the connection was refused');
  });

  it('a patch that names no webhook is attributed by the annotation it touches', () => {
    const [c] = run('consul', 'fires-consul-patch');
    expect(c!.mesh).toBe('consul');
    expect(c!.evidence).toMatchObject({
      webhook: null,
      cause: 'patch',
      operation: 'add',
      path: '/metadata/annotations/consul.hashicorp.com~1connect-inject-status',
      touches: 'annotation consul.hashicorp.com/connect-inject-status',
    });
    expect(c!.message).toContain("the API server could not apply Consul's injection patch");
    const [i] = run('istio', 'fires-istio-patch');
    expect(i!.evidence).toMatchObject({ touches: 'annotation sidecar.istio.io/status' });
    expect(i!.fix.join('\n')).toContain('logs');
  });
});

describe('webhook-call-failed: a Service not found is named from the error URL (istio/istio#16481)', () => {
  const msg = (base: Parameters<typeof cluster>[0], file: string) =>
    findings(cluster(base, [`checks/webhook-call-failed/${file}`]), ['webhook-call-failed'])[0]!.message;
  it('names the Service, and its namespace only where that is missing too', () => {
    const kuma = msg('kuma', 'fires-kuma-service-not-found.yaml');
    expect(kuma).toContain('its Service kuma-system/kuma-control-plane does not exist');
    expect(kuma).not.toContain('nor does namespace');
    expect(msg('linkerd', 'fires-linkerd-service-not-found.yaml')).toContain(
      'its Service linkerd-old/linkerd-proxy-injector does not exist (nor does namespace linkerd-old',
    );
  });
});

describe('webhook-call-failed: an opt-out annotation the webhook selector cannot see', () => {
  const run = (base: 'istio' | 'istio-1.5', file: string) =>
    findings(cluster(base, [`checks/webhook-call-failed/${file}`]), ['webhook-call-failed']);
  it('names the annotation and the label that keeps the call from being made, first in the fix', () => {
    for (const [file, hook] of [
      ['fires-istio-optout-annotation.yaml', 'namespace.sidecar-injector.istio.io'],
      ['fires-istio-rev-optout-annotation.yaml', 'rev.namespace.sidecar-injector.istio.io'],
    ] as const) {
      const [f] = run('istio', file);
      expect(f!.message).toContain(
        `Its pod template sets sidecar.istio.io/inject=false as an annotation, which the webhook's objectSelector cannot see (it reads labels only): as a pod template label it keeps the API server from calling ${hook} for these pods.`,
      );
      expect(f!.evidence.annotationNotSelected).toBe('sidecar.istio.io/inject=false');
      expect(f!.fix.join('\n')).toMatch(/labels/);
    }
  });
  it('says nothing of it where no label would leave the pod out (a webhook without an objectSelector)', () => {
    const [f] = run('istio-1.5', 'fires-istio-1.5-optout-annotation.yaml');
    expect(f!.message).not.toMatch(/annotation/);
    expect(f!.evidence.annotationNotSelected).toBeUndefined();
  });
});

describe('a proxy in the way (gen8net)', () => {
  it('quotes the answer and says the API server pods were not read', () => {
    const f = findings(cluster('istio', ['checks/webhook-call-failed/fires-istio-proxy-forbidden.yaml'])).find(
      (x) => x.id === 'webhook-call-failed',
    )!;
    expect(f.message).toContain('the HTTP proxy answered "Forbidden" instead of the injector');
    expect(f.message).toContain('no kube-apiserver pod read shows that environment');
    expect(f.evidence).toMatchObject({ cause: 'proxy' });
    expect(f.fix.map((x) => JSON.stringify(x)).join('\n')).toContain('NO_PROXY');
  });
  it('names the kube-apiserver pod whose environment sends the call, and an unreachable proxy', () => {
    const f = findings(
      cluster('kuma', ['checks/webhook-port-blocked/fires-kuma-apiserver-proxy-cluster-local.yaml']),
    ).find((x) => x.id === 'webhook-call-failed')!;
    expect(f.message).toContain(
      'HTTPS_PROXY of Pod kube-system/kube-apiserver-cp-1 with no NO_PROXY entry covering kuma-control-plane.kuma-system.svc',
    );
    expect(f.message).toContain('could not reach the HTTP proxy it sends the call to ("proxyconnect tcp: dial tcp');
  });
});

describe('webhook-call-failed: a TLS rejection after the injector started before its current certificate', () => {
  const msg = (base: 'linkerd-stable-2.10' | 'kuma', file: string) =>
    findings(cluster(base, [`checks/webhook-call-failed/${file}.yaml`]), ['webhook-call-failed'])[0]!.message;
  it('names the start, the Secret, the issue time and the release that reads it only at start', () => {
    for (const file of [
      'fires-linkerd-stable-2.10-injector-2.9.0-regenerated-unknown-authority',
      'fires-linkerd-stable-2.10-injector-2.9.2-cert-manager-renewed-expired',
    ]) {
      const m = msg('linkerd-stable-2.10', file);
      expect(m).toContain('before Secret linkerd/linkerd-proxy-injector-k8s-tls got its current certificate');
      expect(m).toMatch(/Linkerd stable-2\.9\.[02] reads it only at start; it reloads the file from stable-2\.9\.3/);
      expect(m).toContain('restart it');
    }
  });
  it('says "may" where the release data does not say whether the file is reloaded (Kuma)', () => {
    const m = msg('kuma', 'fires-kuma-cp-started-before-renewed-tls-cert');
    expect(m).toContain('before Secret kuma-system/kuma-tls-cert got its current certificate');
    expect(m).toContain('may still serve');
    expect(m).toContain('not in meshdoctor');
  });
  it('claims no stale certificate for an injector started after the renewal', () => {
    const m = msg('linkerd-stable-2.10', 'fires-linkerd-stable-2.10-injector-2.9.2-started-after-renewal');
    expect(m).not.toContain('before Secret');
    expect(m).toContain("rejects the webhook's TLS certificate.");
  });
});
