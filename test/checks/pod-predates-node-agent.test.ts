/**
 * Where pod-predates-node-agent fires (a meshed pod that started on its node before the mesh's CNI node agent there
 * was ready, with nothing to stop it: no validation container, or one the mesh's release lets pass) and its near
 * misses (a pod started after the agent, an agent whose Ready time is a later transition, a validation that fails
 * without the redirection and passed).
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';

checkCases('pod-predates-node-agent', {
  fires: [
    {
      fixtures: 'fires-linkerd-stable-2.10-cni-no-validator.yaml',
      findings: ['Deployment billing/invoices'],
      said: [{ id: 'before-agent', params: { node: 'node-b', agentReady: '2026-11-22T10:03:10Z' } }],
    },
    {
      fixtures: 'fires-istio-1.5-cni-no-validation.yaml',
      findings: ['Deployment catalog/search'],
      said: [{ id: 'before-agent', params: { agentPod: 'kube-system/istio-cni-node-m4n5b' } }],
    },
    {
      fixtures: 'fires-kuma-cni-agent-replaced.yaml',
      findings: ['Deployment shipping/tracker'],
      said: [{ id: 'before-agent', params: { validation: /^kuma-validation completed all the same/ } }],
    },
    // Consul keeps its init container's name with the plugin: its pod annotation says the plugin never ran (hashicorp/consul-k8s#3060).
    {
      fixtures: 'fires-consul-cni-transparent-proxy-status-enabled.yaml',
      base: 'consul',
      findings: ['Deployment orders/orders'],
      said: [{ id: 'before-agent', params: { validation: /transparent-proxy-status is still enabled/ } }],
    },
  ],
  silent: [
    { fixtures: 'ok-kuma-started-after-agent.yaml' },
    { fixtures: 'ok-consul-cni-transparent-proxy-status-complete.yaml', base: 'consul' },
    { fixtures: 'ok-consul-cni-off-status-enabled.yaml', base: 'consul' },
    { fixtures: 'ok-linkerd-stable-2.10-agent-restarted.yaml' },
    { fixtures: 'ok-istio-validation-passed.yaml' },
  ],
});

describe('pod-predates-node-agent evidence and fix', () => {
  it('dates the pod and the agent, and re-creates the workload', () => {
    const f = findings(cluster('kuma', ['checks/pod-predates-node-agent/fires-kuma-cni-agent-replaced.yaml'])).find(
      (x) => x.id === 'pod-predates-node-agent',
    )!;
    expect(f.evidence).toMatchObject({
      pods: [
        { name: 'tracker-6b7c8d9f5-l3k4j', started: '2026-11-22T09:30:07Z', agentReadySince: '2026-11-22T09:31:02Z' },
      ],
      daemonSet: 'kube-system/kuma-cni-node',
    });
    expect(JSON.stringify(f.fix)).toContain('rollout restart');
  });
});
