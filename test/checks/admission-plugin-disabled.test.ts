/**
 * Where admission-plugin-disabled fires, and its near misses (test/helpers/check-tester.ts); the
 * flag rules of src/k8s/apiserver.ts one by one; the message, evidence and fix.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';
import { admissionFlags, k3sInstance, mutatingPlugin, podInstance, slimK3sNodeArgs } from '../../src/k8s/apiserver.js';
import { KEEPER } from '../../src/mesh/keep.js';

checkCases('admission-plugin-disabled', {
  fires: [
    { fixtures: 'fires-linkerd-kubeadm.yaml', findings: ['Pod kube-system/kube-apiserver-cp1'] },
    { fixtures: 'fires-istio-admission-control.yaml', findings: ['Pod kube-system/kube-apiserver-master-0'] },
    { fixtures: 'fires-kuma-k3s.yaml', findings: ['Node k3s-server-1'] },
    { fixtures: 'fires-consul-one-of-two.yaml', findings: ['Pod kube-system/kube-apiserver-cp-b'] },
    // Two meshes, one finding each, on the same API server.
    {
      name: 'Linkerd and Istio side by side',
      base: 'both',
      fixtures: 'fires-linkerd-kubeadm.yaml',
      findings: ['Pod kube-system/kube-apiserver-cp1', 'Pod kube-system/kube-apiserver-cp1'],
    },
  ],
  silent: [
    { fixtures: 'ok-linkerd-kubeadm-default.yaml' },
    { fixtures: 'ok-istio-both-lists.yaml' },
    { fixtures: 'ok-kuma-k3s-agent.yaml' },
    { fixtures: 'ok-consul-not-the-apiserver.yaml' },
  ],
});

const v = (minor: number) => ({ major: 1, minor, gitVersion: `v1.${minor}.0` });

describe('the admission flags (src/k8s/apiserver.ts)', () => {
  it('default on since 1.10; --enable-admission-plugins only adds; a flag given twice adds up', () => {
    expect(
      mutatingPlugin(admissionFlags(['kube-apiserver', '--enable-admission-plugins=NodeRestriction']), v(32)),
    ).toEqual({ on: true, by: 'default' });
    expect(mutatingPlugin(admissionFlags([]), v(9)).on).toBe(false);
    expect(mutatingPlugin(admissionFlags([]), undefined)).toEqual({ on: true, by: 'default' });
    const twice = admissionFlags([
      '--disable-admission-plugins=LimitRanger',
      '--disable-admission-plugins',
      'MutatingAdmissionWebhook',
    ]);
    expect(twice.disable).toEqual(['LimitRanger', 'MutatingAdmissionWebhook']);
    expect(mutatingPlugin(twice, v(32))).toMatchObject({ on: false, by: 'disabled' });
  });

  it('the deprecated --admission-control lists what runs; beside the new flags, or a plugin both on and off, the server does not start', () => {
    expect(
      mutatingPlugin(admissionFlags(['--admission-control=ServiceAccount,MutatingAdmissionWebhook']), v(32)),
    ).toMatchObject({
      on: true,
      by: 'admission-control',
    });
    expect(mutatingPlugin(admissionFlags(['--admission-control=ServiceAccount']), v(32))).toMatchObject({
      on: false,
      by: 'admission-control',
    });
    expect(
      mutatingPlugin(admissionFlags(['--admission-control=ServiceAccount', '--enable-admission-plugins=X']), v(32)).by,
    ).toBe('invalid');
    const both = admissionFlags([
      '--enable-admission-plugins=MutatingAdmissionWebhook',
      '--disable-admission-plugins=MutatingAdmissionWebhook',
    ]);
    expect(mutatingPlugin(both, v(32)).by).toBe('invalid');
  });

  it('reads no other flag, and a config file is evidence, not a switch', () => {
    const f = admissionFlags([
      '--enable-admission-plugins-x=MutatingAdmissionWebhook',
      '--admission-control-config-file=/etc/k/a.yaml',
      '--token=secret',
    ]);
    expect(f).toEqual({
      enable: [],
      disable: [],
      configFile: '/etc/k/a.yaml',
      words: ['--admission-control-config-file=/etc/k/a.yaml'],
    });
    expect(mutatingPlugin(f, v(32)).on).toBe(true);
  });

  it('a kube-apiserver pod: kube-system, kubeadm labels, active; its image tag gives a version', () => {
    const pod = (ns: string, phase = 'Running') => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'kube-apiserver-a',
        namespace: ns,
        labels: { component: 'kube-apiserver', tier: 'control-plane' },
      },
      spec: {
        nodeName: 'a',
        containers: [
          { name: 'kube-apiserver', image: 'registry.k8s.io/kube-apiserver:v1.31.4', command: ['kube-apiserver'] },
        ],
      },
      status: { phase },
    });
    expect(podInstance(pod('kube-system'))).toMatchObject({
      node: 'a',
      mirror: false,
      imageVersion: { major: 1, minor: 31 },
    });
    expect(podInstance(pod('default'))).toBeUndefined();
    expect(podInstance(pod('kube-system', 'Failed'))).toBeUndefined();
  });

  it("k3s: a server node's node-args, the values after --kube-apiserver-arg; snapshots keep only the admission ones", () => {
    const args = JSON.stringify([
      'server',
      '--token',
      's3cret',
      '--kube-apiserver-arg',
      'disable-admission-plugins=MutatingAdmissionWebhook',
      '--kube-apiserver-arg',
      'audit-log-path=/x',
    ]);
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 's1', annotations: { 'k3s.io/node-args': args } },
    };
    expect(k3sInstance(node)?.flags.disable).toEqual(['MutatingAdmissionWebhook']);
    const slim = slimK3sNodeArgs(args);
    expect(JSON.parse(slim)).toEqual([
      'server',
      '--kube-apiserver-arg',
      'disable-admission-plugins=MutatingAdmissionWebhook',
    ]);
    expect(slimK3sNodeArgs('not json')).toBe('[]');
    expect(
      k3sInstance({
        ...node,
        metadata: { name: 'a1', annotations: { 'k3s.io/node-args': JSON.stringify(['agent']) } },
      }),
    ).toBeUndefined();
  });
});

describe('admission-plugin-disabled: message, evidence, fix', () => {
  it('names the API server and the flag, shows the signature (no failure events), and says where to change the flag', () => {
    const [f] = findings(cluster('linkerd', ['checks/admission-plugin-disabled/fires-linkerd-kubeadm.yaml']), [
      'admission-plugin-disabled',
    ]);
    expect(f!.message).toContain(
      'The API server (Pod kube-system/kube-apiserver-cp1) runs with --disable-admission-plugins=MutatingAdmissionWebhook',
    );
    expect(f!.severity).toBe('error');
    expect(f!.evidence).toMatchObject({
      plugin: 'MutatingAdmissionWebhook',
      apiservers: [
        {
          source: 'Pod kube-system/kube-apiserver-cp1',
          node: 'cp1',
          mirrorPod: true,
          pluginOn: false,
          decidedBy: 'disabled',
        },
      ],
      version: 'v1.32.13',
      webhookFailureEvents: 0,
    });
    expect(f!.fix.join('\n')).toContain('/etc/kubernetes/manifests/kube-apiserver.yaml');
    expect(f!.fix.join('\n')).toContain('on node cp1');
  });

  it('one API server of two: says so, and fixes that one only', () => {
    const [f] = findings(cluster('consul', ['checks/admission-plugin-disabled/fires-consul-one-of-two.yaml']), [
      'admission-plugin-disabled',
    ]);
    expect(f!.message).toMatch(/^1 of 2 API servers \(Pod kube-system\/kube-apiserver-cp-b\)/);
    expect(f!.fix.join('\n')).toContain('on node cp-b');
    expect(f!.fix.join('\n')).not.toContain('on node cp-a');
  });

  it('k3s: the fix is in its config, on that node', () => {
    const [f] = findings(cluster('kuma', ['checks/admission-plugin-disabled/fires-kuma-k3s.yaml']), [
      'admission-plugin-disabled',
    ]);
    expect(f!.fix.join('\n')).toContain('/etc/rancher/k3s/config.yaml');
  });
});

describe('what snapshots keep of a command line', () => {
  it('the admission flags and a value word made of plugin names only; nothing else', () => {
    const command = [
      'kube-apiserver',
      '--token-auth-file=/etc/k/tokens.csv',
      '--disable-admission-plugins',
      'DefaultStorageClass,MutatingAdmissionWebhook',
      '--etcd-keyfile',
      'Hunter2',
      'Secret,MutatingAdmissionWebhook',
      '--enable-admission-plugins=NodeRestriction',
    ];
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'kube-apiserver-a', namespace: 'kube-system' },
      spec: { containers: [{ name: 'kube-apiserver', command }] },
    };
    const kept = (KEEPER.slim('pods', structuredClone(pod)).spec as any).containers[0].command;
    expect(kept).toEqual([
      '(redacted)',
      '(redacted)',
      '--disable-admission-plugins',
      'DefaultStorageClass,MutatingAdmissionWebhook',
      '(redacted)',
      '(redacted)',
      'MutatingAdmissionWebhook',
      '--enable-admission-plugins=NodeRestriction',
    ]);
  });
});
