/**
 * Where node-agent-incomplete fires, and its near misses (test/helpers/check-tester.ts); the
 * scheduling rules of src/k8s/scheduling.ts; the message, evidence and fix.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';
import { nodeReady, selectionMisses, untolerated } from '../../src/k8s/scheduling.js';

checkCases('node-agent-incomplete', {
  fires: [
    // Issue 31 (gen9path): the order the cluster's CNI agent and the mesh's wrote a node's CNI configuration.
    {
      fixtures: 'fires-linkerd-stable-2.10-calico-replaced-after-cni.yaml',
      findings: ['Pod linkerd-cni/linkerd-cni-t5y6u'],
      said: [
        {
          id: 'chain-rewritten',
          params: {
            node: 'worker-b',
            product: 'Calico',
            primaryPod: 'kube-system/calico-node-9zx7q',
            readds: /does not add it back/,
          },
        },
      ],
    },
    {
      fixtures: 'fires-linkerd-cni-calico-restarted-validator-fails.yaml',
      findings: ['Pod linkerd-cni/linkerd-cni-6rj8v'],
      said: [
        {
          id: 'chain-rewritten',
          params: { node: 'k8s-worker-03', effect: /linkerd-network-validator CrashLoopBackOff, exit code 95/ },
        },
      ],
    },
    {
      fixtures: 'fires-istio-cni-calico-restarted-validation-fails.yaml',
      findings: ['Pod istio-system/istio-cni-node-k2j4h'],
      said: [
        {
          id: 'chain-rewritten',
          params: { node: 'node-3', effect: /istio-validation CrashLoopBackOff, exit code 126/ },
        },
      ],
    },
    {
      fixtures: 'fires-kuma-cni-calico-rewrote-window.yaml',
      findings: ['Pod kube-system/kuma-cni-node-7hw2k'],
      said: [
        {
          id: 'chain-window',
          params: { exit: 'last exit code 1 at 2026-11-22T14:16:57Z', pods: /orders\/quotes-5d6c7b8a9-p9o8i/ },
        },
      ],
    },
    {
      fixtures: 'fires-kuma-cni-started-before-calico.yaml',
      findings: ['Pod kube-system/kuma-cni-node-2k9sd'],
      said: [{ id: 'agent-before-primary', params: { restarts: '2 times', product: 'Calico' } }],
    },
    { fixtures: 'fires-istio-cni-priority-class.yaml', findings: ['DaemonSet istio-system/istio-cni-node'] },
    { fixtures: 'fires-istio-ambient-noexecute-taint.yaml', findings: ['DaemonSet istio-system/istio-cni-node'] },
    { fixtures: 'fires-linkerd-cni-image-pull.yaml', findings: ['DaemonSet linkerd-cni/linkerd-cni'] },
    { fixtures: 'fires-kuma-cni-node-selector.yaml', findings: ['DaemonSet kube-system/kuma-cni-node'] },
    { fixtures: 'fires-consul-cni-quota-scope.yaml', findings: ['DaemonSet consul/consul-cni'] },
    // Issue 31 (gen8agents): Consul's client agents before consul-k8s 1.0, their DaemonSet found by its selector.
    {
      fixtures: 'fires-consul-0.x-client-agent-tainted-node.yaml',
      findings: ['DaemonSet consul/consul-consul'],
      said: [{ id: 'no-ready-pod', params: { agent: 'client agent', affected: /HOST_IP:8500/ } }],
    },
    { fixtures: 'fires-linkerd-cni-tainted-node.yaml', findings: ['DaemonSet linkerd-cni/linkerd-cni'] },
    // Issue 31: an agent pod the scheduler cannot place (its node named by the DaemonSet controller's node affinity).
    {
      fixtures: 'fires-linkerd-cni-unschedulable-no-priority.yaml',
      findings: ['DaemonSet linkerd-cni/linkerd-cni'],
      said: [
        {
          id: 'no-ready-pod',
          params: {
            nodes:
              /^node-b \(linkerd-cni-bbbbb Pending, not placed by the scheduler: "0\/2 nodes are available: 1 Insufficient cpu.*; the DaemonSet sets no priority class/,
          },
        },
      ],
    },
    {
      fixtures: 'fires-kuma-cni-unschedulable-with-priority.yaml',
      findings: ['DaemonSet kube-system/kuma-cni-node'],
      said: [
        {
          id: 'no-ready-pod',
          params: {
            nodes:
              /^node-gpu \(kuma-cni-node-bbbbb Pending, not placed by the scheduler: "0\/2 nodes are available: 1 Too many pods[^;]*\)$/,
          },
        },
      ],
    },
    {
      fixtures: 'fires-istio-ambient-ztunnel-unschedulable.yaml',
      findings: ['DaemonSet istio-system/ztunnel'],
      said: [
        {
          id: 'no-ready-pod',
          params: {
            nodes:
              /^node-c \(ztunnel-zzzzz Pending, not placed by the scheduler: .*Insufficient memory.*sets no priority class/,
          },
        },
      ],
    },
    // Cilium owning the CNI configuration (cni.exclusive) beside an agent that runs and is never ready.
    ...(
      [
        [
          'fires-kuma-cni-cilium-exclusive.yaml',
          'DaemonSet kube-system/kuma-cni-node',
          'quay.io/cilium/cilium:v1.16.3',
        ],
        ['fires-consul-cni-cilium-exclusive.yaml', 'DaemonSet consul/consul-cni', 'registry.corp.example/mirror'],
        ['fires-istio-ambient-cni-cilium-exclusive.yaml', 'DaemonSet istio-system/istio-cni-node', 'v1.17.2'],
      ] as const
    ).map(([fixtures, finding, image]) => ({
      fixtures,
      findings: [finding],
      said: [
        {
          id: 'no-ready-pod',
          params: {
            exclusive: new RegExp(
              `Cilium is the cluster's CNI plugin \\(DaemonSet kube-system/cilium, [^)]*${image.replace(/[.]/g, '\\.')}.*unless cni\\.exclusive=false`,
            ),
          },
        },
      ],
    })),
    // Near miss: a crash-looping agent beside Cilium is its own failure.
    {
      fixtures: 'fires-istio-ambient-cni-crashloop-beside-cilium.yaml',
      findings: ['DaemonSet istio-system/istio-cni-node'],
      said: [
        {
          id: 'no-ready-pod',
          params: { exclusive: '', nodes: 'node-b (istio-cni-node-bbbbb not ready (CrashLoopBackOff))' },
        },
      ],
    },
  ],
  silent: [
    { fixtures: 'ok-consul-0.x-client-agent-tolerates.yaml' },
    { fixtures: 'ok-linkerd-cni-calico-restarted-watcher-repaired.yaml' },
    { fixtures: 'ok-linkerd-stable-2.10-calico-before-cni.yaml' },
    { fixtures: 'ok-istio-ambient-complete.yaml' },
    { fixtures: 'ok-linkerd-cni-tainted-node-unused.yaml' },
    { fixtures: 'ok-kuma-cni-node-not-ready.yaml' },
    { fixtures: 'ok-consul-cni-starting.yaml' },
    { fixtures: 'ok-linkerd-cni-unschedulable-starting.yaml' },
    { fixtures: 'ok-istio-ambient-cni-ready-beside-cilium.yaml' },
  ],
});

const node = (spec: object, labels: Record<string, string> = {}, ready = 'True') => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'n1', labels },
  spec,
  status: { conditions: [{ type: 'Ready', status: ready }] },
});

describe('scheduling (src/k8s/scheduling.ts)', () => {
  it("taints: the template's tolerations and the DaemonSet controller's own", () => {
    const n = node({
      taints: [
        { key: 'dedicated', value: 'infra', effect: 'NoExecute' },
        { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' },
        { key: 'soft', effect: 'PreferNoSchedule' },
      ],
    });
    expect(untolerated(n, {}).map((t) => t.key)).toEqual(['dedicated']);
    expect(untolerated(n, { tolerations: [{ effect: 'NoSchedule', operator: 'Exists' }] }).length).toBe(1);
    expect(untolerated(n, { tolerations: [{ operator: 'Exists' }] })).toEqual([]);
    expect(untolerated(n, { tolerations: [{ key: 'dedicated', value: 'infra' }] })).toEqual([]);
    expect(untolerated(n, { tolerations: [{ key: 'dedicated', value: 'other' }] }).length).toBe(1);
  });

  it('node selection: nodeSelector, required node affinity; Ready', () => {
    const n = node({}, { pool: 'gpu', 'kubernetes.io/os': 'linux' });
    expect(selectionMisses(n, { nodeSelector: { pool: 'general' } })).toBe('nodeSelector pool=general');
    expect(selectionMisses(n, { nodeSelector: { 'kubernetes.io/os': 'linux' } })).toBeUndefined();
    const aff = (op: string, values?: string[]) => ({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: op, ...(values ? { values } : {}) }] }],
          },
        },
      },
    });
    expect(selectionMisses(n, aff('NotIn', ['gpu']))).toBe('required node affinity');
    expect(selectionMisses(n, aff('In', ['gpu']))).toBeUndefined();
    expect(selectionMisses(n, aff('DoesNotExist'))).toBe('required node affinity');
    expect(nodeReady(n)).toBe(true);
    expect(nodeReady(node({}, {}, 'Unknown'))).toBe(false);
  });
});

describe('node-agent-incomplete findings', () => {
  it('a taint: names the node, the agent and the pods there; the fix adds a toleration and re-creates them', () => {
    const [f] = findings(
      cluster('istio-ambient', ['checks/node-agent-incomplete/fires-istio-ambient-noexecute-taint.yaml']),
      ['node-agent-incomplete'],
    );
    expect(f!.message).toContain('node-c (taint dedicated=infra:NoExecute not tolerated)');
    expect(f!.message).toContain('shop/web-5d8f7c9b4-ccccc');
    expect(f!.affectedPods).toBe(1);
    const text = f!.fix.join('\n');
    expect(text).toContain('patch daemonset istio-cni-node');
    expect(text).toContain('rollout restart');
    expect(text).not.toContain('withheld');
  });

  it('a priority class the API server admits only under a quota: the quota to apply', () => {
    for (const [base, file, pc] of [
      ['istio', 'fires-istio-cni-priority-class.yaml', 'system-node-critical'],
      ['consul', 'fires-consul-cni-quota-scope.yaml', 'system-node-critical'],
    ] as const) {
      const [f] = findings(cluster(base, [`checks/node-agent-incomplete/${file}`]), ['node-agent-incomplete']);
      expect(f!.message).toContain('0 of');
      expect(f!.evidence).toMatchObject({ failedCreate: { priorityClass: pc } });
      expect(f!.fix.join('\n')).toContain('ResourceQuota');
      expect(f!.fix.join('\n')).not.toContain('withheld');
    }
  });

  it('an agent pod failing on the node: its reason, and the pod waiting in its validation container', () => {
    const [f] = findings(cluster('linkerd', ['checks/node-agent-incomplete/fires-linkerd-cni-image-pull.yaml']), [
      'node-agent-incomplete',
    ]);
    expect(f!.message).toContain('node-b (linkerd-cni-bbbbb not ready (ImagePullBackOff))');
    expect(f!.message).toContain('shop/web-5b7c9d8f4-ddddd');
  });
});

describe('node-agent-incomplete: a CNI plugin owning the nodes configuration', () => {
  it('the evidence names the owner and that its setting was not read; the fix sets it and restarts the agent', () => {
    const snap = cluster('kuma', ['checks/node-agent-incomplete/fires-kuma-cni-cilium-exclusive.yaml']);
    const [f] = findings(snap, ['node-agent-incomplete']);
    expect(f!.evidence.exclusiveCni).toMatchObject({
      product: 'Cilium',
      daemonSet: 'kube-system/cilium',
      settingRead: false,
    });
    const text = JSON.stringify(f!.fix);
    expect(text).toContain('cni.exclusive=false');
    expect(text).toContain('rollout restart daemonset');
  });
});
