/**
 * Where injector-rbac-missing fires, and its near misses (test/helpers/check-tester.ts); its
 * message, evidence and fixes; and the RBAC evaluation it rests on (src/k8s/rbac.ts).
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

const dir = 'checks/injector-rbac-missing';

checkCases('injector-rbac-missing', {
  fires: [
    { fixtures: 'fires-linkerd-binding-deleted.yaml', findings: ['Deployment linkerd/linkerd-proxy-injector'] },
    { fixtures: 'fires-istio-role-changed.yaml', findings: ['Deployment istio-system/istiod'] },
    { fixtures: 'fires-istio-digest-role-changed.yaml', findings: ['Deployment istio-system/istiod'] },
    { fixtures: 'fires-kuma-other-account.yaml', findings: ['Deployment kuma-system/kuma-control-plane'] },
    { fixtures: 'fires-consul-rbac-gone.yaml', findings: ['Deployment consul/consul-connect-injector'] },
    // consul-k8s 0.33 reads the pod's Namespace; the 0.25-era ClusterRole never granted it (src/mesh/consul/releases.ts).
    {
      fixtures: 'fires-consul-0.33-no-namespaces.yaml',
      base: 'consul-0.x',
      findings: ['Deployment consul/consul-connect-injector-webhook-deployment'],
    },
    // Istio 1.6 to 1.10: the base chart's names (istiod-pilot-<ns> to 1.7, istiod-<ns> from 1.8), not today's.
    {
      fixtures: 'fires-istio-1.6-binding-deleted.yaml',
      base: 'istio-1.6',
      findings: ['Deployment istio-system/istiod'],
    },
    {
      fixtures: 'fires-istio-1.10-binding-deleted.yaml',
      base: 'istio-1.6',
      findings: ['Deployment istio-system/istiod'],
    },
    // Istio 1.5 with istiod: its istio-discovery chart's names and rules (istiod-<ns> bound by istiod-<ns>).
    {
      fixtures: 'fires-istio-1.5-istiod-binding-deleted.yaml',
      base: 'istio-1.6',
      findings: ['Deployment istio-system/istiod'],
    },
    // Beside another mesh whose RBAC is fine: only the injector that lacks it.
    {
      fixtures: ['fires-linkerd-binding-deleted.yaml', 'ok-istio-other-binding.yaml'],
      base: 'both',
      findings: ['Deployment linkerd/linkerd-proxy-injector'],
    },
  ],
  silent: [
    { fixtures: 'ok-linkerd-chart-rbac.yaml' },
    { fixtures: 'ok-istio-other-binding.yaml' },
    { fixtures: 'ok-kuma-chart-rbac.yaml' },
    { fixtures: 'ok-consul-group-binding.yaml' },
    // Releases whose injector needs no cluster-wide permission, or outside the tables: consul-k8s 0.25,
    // Istio 1.5's standalone injector, OpenShift Service Mesh 1.x (src/mesh/<mesh>/releases.ts).
    { base: 'consul-0.x' },
    { base: 'istio-1.5' },
    { fixtures: 'ok-ossm-1-injector.yaml', base: 'istio-1.5' },
    { base: 'istio-1.6' },
    { fixtures: 'ok-istio-1.10-chart-rbac.yaml', base: 'istio-1.6' },
    { fixtures: 'ok-istio-1.5-istiod-chart-rbac.yaml', base: 'istio-1.6' },
    // No ClusterRoles at all (a dump without RBAC): not examined, never "everything is gone".
    { base: 'both' },
  ],
});

const one = (base: 'linkerd' | 'istio' | 'kuma' | 'consul', file: string) => {
  const fs = findings(cluster(base, [`${dir}/${file}`]), ['injector-rbac-missing']);
  expect(fs).toHaveLength(1);
  return fs[0]!;
};

describe('injector-rbac-missing: message, evidence, fix', () => {
  it('a deleted binding: names the chart binding and re-creates it to the ClusterRole that still grants', () => {
    const f = one('linkerd', 'fires-linkerd-binding-deleted.yaml');
    expect(f.messageId).toBe('injector-rbac-missing/forbidden');
    expect(f.params).toMatchObject({
      serviceAccount: 'linkerd/linkerd-proxy-injector',
      standing: expect.stringContaining("its chart's ClusterRoleBinding linkerd-linkerd-proxy-injector does not exist"),
    });
    expect(f.evidence).toMatchObject({
      serviceAccount: 'linkerd/linkerd-proxy-injector',
      grantedBy: [],
      chart: {
        clusterRole: 'linkerd-linkerd-proxy-injector',
        clusterRoleExists: true,
        clusterRoleBinding: 'linkerd-linkerd-proxy-injector',
        clusterRoleBindingExists: false,
      },
    });
    expect((f.evidence.missing as { resource: string }[]).map((x) => x.resource)).toEqual([
      'namespaces',
      'pods',
      'replicationcontrollers',
      'deployments',
      'replicasets',
      'daemonsets',
      'statefulsets',
      'jobs',
      'cronjobs',
    ]);
    expect(f.fix).toContain(
      'kubectl create clusterrolebinding linkerd-linkerd-proxy-injector --clusterrole=linkerd-linkerd-proxy-injector --serviceaccount=linkerd:linkerd-proxy-injector',
    );
    expect(f.fix).toContain('kubectl -n linkerd rollout restart deploy/linkerd-proxy-injector');
  });

  it('a trimmed ClusterRole: names only what it lacks, and re-renders the control plane instead of binding again', () => {
    const f = one('istio', 'fires-istio-role-changed.yaml');
    const missing = f.evidence.missing as { apiGroup: string; resource: string; verbs: string[] }[];
    expect(missing).toEqual([
      expect.objectContaining({
        apiGroup: 'admissionregistration.k8s.io',
        resource: 'mutatingwebhookconfigurations',
        verbs: ['get', 'list', 'watch', 'update', 'patch'],
      }),
      expect.objectContaining({ apiGroup: '', resource: 'configmaps', verbs: ['get', 'list', 'watch'] }),
    ]);
    expect(f.params!.standing).toContain(
      'the ClusterRole istiod-clusterrole-istio-system its chart binds it to no longer grants them',
    );
    expect(f.fix.some((l) => l.startsWith('kubectl create clusterrolebinding'))).toBe(false);
    expect(f.fix).toContain('kubectl -n istio-system rollout restart deploy/istiod');
  });

  it('a binding to another ServiceAccount: says the binding no longer binds it', () => {
    const f = one('kuma', 'fires-kuma-other-account.yaml');
    expect(f.params!.standing).toContain(
      "its chart's ClusterRoleBinding kuma-control-plane no longer binds ClusterRole kuma-control-plane to it",
    );
    expect(f.evidence).toMatchObject({
      serviceAccount: 'kuma-system/kuma-control-plane',
      chart: { clusterRoleExists: true, clusterRoleBindingExists: true },
    });
  });

  it('both gone: says the ClusterRoleBinding is missing, and the chart restores both', () => {
    const f = one('consul', 'fires-consul-rbac-gone.yaml');
    expect(f.evidence).toMatchObject({
      missing: [{ apiGroup: '', resource: 'namespaces', verbs: ['get'] }],
      chart: { clusterRole: 'consul-connect-injector', clusterRoleExists: false, clusterRoleBindingExists: false },
    });
    expect(f.fix.some((l) => l.startsWith('kubectl create clusterrolebinding'))).toBe(false);
  });

  it('Istio 1.6 to 1.10: the wording and the fix name the base chart binding of that release, from its row', () => {
    const six = findings(cluster('istio-1.6', [`${dir}/fires-istio-1.6-binding-deleted.yaml`]), [
      'injector-rbac-missing',
    ]);
    expect(six).toHaveLength(1);
    expect(six[0]!.params!.standing).toBe("its chart's ClusterRoleBinding istiod-pilot-istio-system does not exist");
    expect(six[0]!.evidence).toMatchObject({
      serviceAccount: 'istio-system/istiod-service-account',
      chart: { clusterRole: 'istiod-istio-system', clusterRoleExists: true, clusterRoleBindingExists: false },
      rules: expect.stringContaining('@3ddc57b6 (1.6.14)'),
    });
    expect(six[0]!.fix).toContain(
      'kubectl create clusterrolebinding istiod-pilot-istio-system --clusterrole=istiod-istio-system --serviceaccount=istio-system:istiod-service-account',
    );
    expect(six[0]!.message).not.toContain('istiod-clusterrole');
    const ten = findings(cluster('istio-1.6', [`${dir}/fires-istio-1.10-binding-deleted.yaml`]), [
      'injector-rbac-missing',
    ]);
    expect(ten).toHaveLength(1);
    expect(ten[0]!.params!.standing).toBe("its chart's ClusterRoleBinding istiod-istio-system does not exist");
    const five = findings(cluster('istio-1.6', [`${dir}/fires-istio-1.5-istiod-binding-deleted.yaml`]), [
      'injector-rbac-missing',
    ]);
    expect(five).toHaveLength(1);
    expect(five[0]!.params!.standing).toBe("its chart's ClusterRoleBinding istiod-istio-system does not exist");
    expect(five[0]!.evidence).toMatchObject({ rules: expect.stringContaining('@c3c35328 (1.5.0)') });
    expect(ten[0]!.fix).toContain(
      'kubectl create clusterrolebinding istiod-istio-system --clusterrole=istiod-istio-system --serviceaccount=istio-system:istiod-service-account',
    );
  });
});
