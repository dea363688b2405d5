/**
 * `watch` evaluates new Models over objects it keeps between evaluations: a Deployment's object
 * (and its pod template) stays the same while its pods come and go. Nothing computed from one
 * snapshot may be cached on such an object and reused for the next.
 */
import { describe, expect, it } from 'vitest';
import { newPodLabels } from '../../src/k8s/pod-labels.js';
import { makeModel } from '../../src/run/run.js';
import type { K8sObject } from '../../src/util/types.js';
import type { Snapshot } from '../../src/k8s/snapshot.js';

const deployment: K8sObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { namespace: 'shop', name: 'cart', uid: 'd1' },
  spec: {
    replicas: 1,
    template: { metadata: { labels: { app: 'cart' } }, spec: { containers: [{ name: 'app', image: 'cart' }] } },
  },
};
const replicaSet: K8sObject = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: {
    namespace: 'shop',
    name: 'cart-7d9f',
    uid: 'r1',
    ownerReferences: [{ kind: 'Deployment', name: 'cart', uid: 'd1', controller: true }],
  },
};
const pod: K8sObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    namespace: 'shop',
    name: 'cart-7d9f-x',
    uid: 'p1',
    labels: { app: 'cart', 'pod-template-hash': '7d9f' },
    ownerReferences: [{ kind: 'ReplicaSet', name: 'cart-7d9f', uid: 'r1', controller: true }],
  },
  spec: { containers: [{ name: 'app', image: 'cart' }] },
  status: { phase: 'Running' },
};

const snapshot = (pods: K8sObject[]): Snapshot => ({
  source: { type: 'live', readAt: '2026-11-22T12:00:00Z' },
  scope: { allNamespaces: true },
  objects: { deployments: [deployment], replicasets: [replicaSet], pods },
  unavailable: {},
});

const cart = (s: Snapshot) => {
  const m = makeModel(s, { mesh: 'auto', certExpiryWarningDays: 60 });
  return m.workloads.find((w) => w.name === 'cart')!;
};

describe('caches across snapshots that share objects', () => {
  it("a new pod's labels come from the pods of this snapshot, not of an earlier one with the same Deployment object", () => {
    // Before its first pod, the Deployment's pod-template-hash is unknown (a placeholder) ...
    expect(newPodLabels(cart(snapshot([])))['pod-template-hash']).toBe('unknown');
    // ... and once a pod carries it, a new Model over the very same Deployment object sees it.
    expect(newPodLabels(cart(snapshot([pod])))['pod-template-hash']).toBe('7d9f');
  });
});
