/**
 * Where webhook-excludes-namespace fires, and its near misses (test/helpers/check-tester.ts); what it says, as
 * message ids and params. Its evidence, fixes and links to other findings: test/checks/injection.test.ts,
 * test/checks/istio-injector.test.ts, test/checks/kuma-consul.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

const BOTH = '; Linkerd and Istio are both installed and nothing shows which one it should use: choose one, never both';

checkCases('webhook-excludes-namespace', {
  fires: [
    // OpenShift Service Mesh: a namespace in no member roll, its pod template opting in (gen9refs, maistra/istio#35).
    { fixtures: 'fires-ossm-2-not-member.yaml', findings: ['Namespace reviews'] },
    { fixtures: 'fires-ossm-1.1-not-member.yaml', base: 'istio-ossm-1.1', findings: ['Namespace reviews'] },
    {
      fixtures: 'fires-both-meshes.yaml',
      findings: ['Namespace edge', 'Namespace edge', 'Namespace relay'],
      // edge asks both meshes, each excluded: which one to choose is said at the end of both.
      said: [
        { id: 'namespace-selector', params: { namespace: 'edge', meshTitle: 'Linkerd', choose: BOTH } },
        {
          id: 'revision-unserved',
          params: { namespace: 'edge', meshTitle: 'Istio', revision: 'canary', choose: BOTH },
        },
        {
          id: 'namespace-selector',
          params: { namespace: 'relay', workloads: '2 workloads', their: 'their', choose: '' },
        },
      ],
    },
    {
      fixtures: 'fires-consul.yaml',
      findings: ['Namespace monitoring'],
      said: [{ id: 'namespace-selector', params: { meshTitle: 'Consul', workloads: '1 workload', their: 'its' } }],
    },
    {
      fixtures: 'fires-consul-match-condition-not-evaluated.yaml',
      findings: ['Deployment catalog/ledger'],
      said: [
        {
          id: 'match-condition-not-evaluated',
          params: { podsRun: 'its pod runs', conditions: /^controllers-only \(request\.userInfo\.username == / },
        },
      ],
    },
    {
      fixtures: 'fires-istio-match-condition.yaml',
      findings: ['Deployment store/cart'],
      said: [
        { id: 'match-condition-false', params: { matchConditions: 'matchCondition', conditions: /^mesh-not-off \(/ } },
      ],
    },
    {
      fixtures: 'fires-kuma-match-condition.yaml',
      findings: [
        'Deployment billing/invoicer',
        'Deployment orders/api',
        'Deployment orders/ledger',
        'Deployment orders/notes',
        'Job orders/reindex',
      ],
      said: [
        { id: 'match-condition-refuses', params: { webhook: 'pods-kuma-injector.kuma.io', fail: 'fails' } },
        'match-condition-refuses',
        { id: 'match-condition-false', params: { workload: 'Deployment orders/ledger' } },
        'match-condition-refuses',
        { id: 'match-condition-refuses', params: { workload: 'Job orders/reindex' } },
      ],
    },
    {
      fixtures: 'fires-linkerd-match-condition.yaml',
      findings: ['Deployment shop/gateway'],
      said: [{ id: 'match-condition-false', params: { webhook: 'linkerd-proxy-injector.linkerd.io' } }],
    },
    {
      fixtures: 'fires-istio-namespace-opt-out.yaml',
      findings: ['Namespace legacy'],
      said: [{ id: 'namespace-opts-out', params: { marker: 'label istio-injection=disabled' } }],
    },
    {
      fixtures: 'fires-istio-tags.yaml',
      findings: ['Namespace orders', 'Deployment tools/runner'],
      said: [
        { id: 'pod-revision-unserved', params: { revision: 'gone', revisionLabel: 'istio.io/rev' } },
        { id: 'revision-unserved', params: { namespace: 'orders', revision: 'stable' } },
      ],
    },
    {
      fixtures: 'fires-istio.yaml',
      findings: ['Namespace canary', 'Namespace local-path-storage'],
      said: [
        { id: 'revision-unserved', params: { revision: 'canary' } },
        { id: 'namespace-never-injected', params: { namespace: 'local-path-storage', meshTitle: 'Istio' } },
      ],
    },
    {
      fixtures: 'fires-kuma.yaml',
      findings: ['Namespace shipping'],
      said: [
        {
          id: 'namespace-selector',
          params: {
            namespace: 'shipping',
            meshTitle: 'Kuma',
            withMarker: '',
            needs: 'kuma.io/sidecar-injection=disabled',
          },
        },
      ],
    },
    {
      fixtures: 'fires-linkerd-object-selector.yaml',
      findings: ['Deployment shop/gateway'],
      said: [{ id: 'object-selector', params: { workload: 'Deployment shop/gateway', meshTitle: 'Linkerd' } }],
    },
    {
      fixtures: 'fires-linkerd.yaml',
      findings: ['Namespace batch', 'Namespace cert-manager'],
      said: [
        {
          id: 'namespace-selector',
          params: {
            namespace: 'batch',
            workloads: '2 workloads',
            withMarker: ' with annotation linkerd.io/inject=enabled',
            needs: 'config.linkerd.io/admission-webhooks removed',
          },
        },
        { id: 'no-webhook-can-select', params: { namespace: 'cert-manager' } },
      ],
    },
  ],
  silent: [
    { fixtures: 'ok-ossm-2-member-no-opt-in.yaml' },
    { fixtures: 'ok-ossm-2-not-member-opted-out.yaml' },
    { fixtures: 'ok-istio-disabled-beside-rev.yaml' },
    { fixtures: 'ok-consul-match-condition-not-evaluated.yaml' },
    { fixtures: 'ok-istio.yaml' },
    { fixtures: 'ok-linkerd-match-condition-holds.yaml' },
    { fixtures: 'ok-linkerd.yaml' },
  ],
});

describe('webhook-excludes-namespace: what it says', () => {
  it('a matchCondition that fails to evaluate under failurePolicy Ignore skips the webhook: its own message', () => {
    const snap = cluster('kuma', ['checks/webhook-excludes-namespace/fires-kuma-match-condition.yaml']);
    for (const c of snap.objects.mutatingwebhookconfigurations ?? [])
      for (const h of (c.webhooks ?? []) as { failurePolicy?: string }[]) h.failurePolicy = 'Ignore';
    const notes = findings(snap, ['webhook-excludes-namespace']).find((f) => f.resource.name === 'notes')!;
    expect(notes.messageId).toBe('webhook-excludes-namespace/match-condition-error-skips');
    expect(notes.params).toMatchObject({ workload: 'Deployment orders/notes', fail: 'fails' });
    expect(notes.message).toContain(
      'which under failurePolicy Ignore skips the webhook, so its pods are not injected.',
    );
  });

  it('a revision-only install and a namespace with the default label: both markers named, and the fix moves it to the revision', () => {
    const overlay = [
      'apiVersion: v1',
      'kind: Namespace',
      'metadata: {name: billing, uid: ns-billing, labels: {kubernetes.io/metadata.name: billing, istio-injection: enabled}}',
      '---',
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: invoices, namespace: billing, uid: dep-invoices}',
      'spec:',
      '  replicas: 1',
      '  selector: {matchLabels: {app: invoices}}',
      '  template:',
      '    metadata: {labels: {app: invoices}}',
      '    spec: {containers: [{name: invoices, image: invoices:1}]}',
      '',
    ].join('\n');
    const snap = cluster('istio-revisions', [overlay]);
    // The control: the healthy cluster's own configurations: the default-label webhooks are deactivated
    // or absent, so only the revision label selects.
    const [f, ...rest] = findings(snap, ['webhook-excludes-namespace']).filter((x) => x.resource.name === 'billing');
    expect(rest).toEqual([]);
    expect(f!.messageId).toBe('webhook-excludes-namespace/namespace-selector');
    expect(f!.params).toMatchObject({
      withMarker: ' with label istio-injection=enabled',
      needs: expect.stringMatching(/^istio\.io\/rev=/),
    });
    expect(f!.fix.join('\n')).toMatch(/kubectl label namespace billing istio\.io\/rev=\S+/);
  });

  it('the rendered text of a namespace both meshes would inject: the choice said at its end', () => {
    const fs = findings(cluster('both', ['checks/webhook-excludes-namespace/fires-both-meshes.yaml']), [
      'webhook-excludes-namespace',
    ]).filter((f) => f.resource.name === 'edge');
    expect(fs.map((f) => f.message).sort()).toEqual([
      `Namespace edge asks Istio to inject 1 workload, but no installed webhook serves its revision canary, so its pods are not injected${BOTH}.`,
      `Namespace edge asks Linkerd to inject 1 workload with annotation linkerd.io/inject=enabled, but its labels match the namespaceSelector of no Linkerd injection webhook (one selects it once it has config.linkerd.io/admission-webhooks removed), so its pods are not injected${BOTH}.`,
    ]);
  });
});
