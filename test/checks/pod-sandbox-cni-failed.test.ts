/**
 * Where pod-sandbox-cni-failed fires, and its near misses (test/helpers/check-tester.ts); the
 * sandbox message parsing of src/k8s/sandbox.ts and what a snapshot keeps of these events.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { cluster, findings } from '../helpers/fixtures.js';
import { sandboxCauses, sandboxMessageShape } from '../../src/k8s/sandbox.js';
import { slim } from '../../src/mesh/keep.js';

checkCases('pod-sandbox-cni-failed', {
  fires: [
    { fixtures: 'fires-istio-agent-unreachable.yaml', findings: ['Deployment store/checkout'] },
    { fixtures: 'fires-istio-openshift-attachment-missing.yaml', findings: ['Deployment ml/cache-deployer'] },
    { fixtures: 'fires-linkerd-plugin-exit-127.yaml', findings: ['Deployment shop/web'] },
    { fixtures: 'fires-kuma-attachment-missing.yaml', findings: ['Deployment orders/router'] },
    { fixtures: 'fires-consul-cni-unauthorized.yaml', findings: ['Deployment catalog/gitea'] },
    { fixtures: 'fires-istio-ambient-no-ztunnel-connection.yaml', findings: ['Deployment shop/portfolios'] },
    { fixtures: 'fires-kuma-cni-no-plugin-named.yaml', findings: ['Deployment orders/foo'] },
    // Issue 31: from the pod's k8s.v1.cni.cncf.io/networks and the attachments read, with no event.
    { fixtures: 'fires-istio-attachment-missing-no-event.yaml', findings: ['Deployment reports/reporter'] },
    { fixtures: 'fires-kuma-attachment-missing-no-event.yaml', findings: ['Deployment payments/ledger'] },
    { fixtures: 'fires-consul-attachment-missing-no-event.yaml', findings: ['Deployment inventory/stock'] },
    // Issue 31: the plugin's binary not where the runtime looks, the agent missing on the node, the plugin's own words.
    { fixtures: 'fires-linkerd-cni-binary-not-on-path.yaml', findings: ['Deployment linkerd/linkerd-destination'] },
    { fixtures: 'fires-istio-cni-binary-gke-bin-dir.yaml', findings: ['Deployment store/search'] },
    { fixtures: 'fires-kuma-cni-install-cni-process.yaml', findings: ['DaemonSet monitoring/cert-exporter'] },
    { fixtures: 'fires-linkerd-cni-interface-mode.yaml', findings: ['Deployment emojivoto/web'] },
  ],
  silent: [
    { fixtures: 'ok-istio-calico-clusterinformation.yaml' },
    { fixtures: 'ok-istio-attachment-created-since.yaml' },
    { fixtures: 'ok-linkerd-cilium-plugin.yaml' },
    { fixtures: 'ok-kuma-init-exit-status.yaml' },
    { fixtures: 'ok-istio-attachment-api-not-served.yaml' },
    { fixtures: 'ok-istio-attachment-running-without.yaml' },
    { fixtures: 'ok-istio-attachment-only-elsewhere.yaml' },
    { fixtures: 'ok-kuma-attachment-present.yaml' },
    { fixtures: 'ok-consul-attachment-other-network.yaml' },
  ],
});

const PLUGINS = ['istio-cni', 'linkerd-cni', 'kuma-cni', 'consul-cni'];

describe('sandboxCauses', () => {
  it('names the plugin of libcni and Multus messages, and the attachment Multus could not find', () => {
    expect(sandboxCauses('plugin type="istio-cni" name="istio-cni" failed (add): x', PLUGINS, ['istio-cni'])).toEqual([
      { kind: 'plugin', name: 'istio-cni' },
    ]);
    // rancher/rancher#41608, istio/istio#42485: Multus delegating to the plugin.
    expect(sandboxCauses('error adding container to network "istio-cni": netplugin failed', PLUGINS, [])).toEqual([
      { kind: 'plugin', name: 'istio-cni' },
    ]);
    expect(
      sandboxCauses(
        'getKubernetesDelegate: cannot find a network-attachment-definition (istio-cni) in namespace (default): x',
        PLUGINS,
        ['istio-cni'],
      ),
    ).toEqual([{ kind: 'attachment', name: 'istio-cni', namespace: 'default' }]);
    expect(sandboxCauses('plugin type="calico" failed (add): x', PLUGINS, [])).toEqual([]);
    expect(sandboxCauses('plugin type="multus" name="multus-cni-network" failed (add): y', PLUGINS, [])).toEqual([]);
  });
});

describe('snapshots', () => {
  const ev = (message: string) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'e', namespace: 'a' },
    involvedObject: { kind: 'Pod', name: 'p', namespace: 'a' },
    reason: 'FailedCreatePodSandBox',
    message,
  });
  it('keeps sandbox failures naming a mesh CNI, bounded, and drops the others', () => {
    const kept = slim(
      'events',
      ev(
        `Failed to create pod sandbox: x: plugin type="linkerd-cni" name="linkerd-cni" failed (add): ${'z'.repeat(9000)}`,
      ),
    );
    expect(String(kept.message).length).toBe(4000);
    expect(kept.reason).toBe('FailedCreatePodSandBox');
    const other = slim('events', ev('Failed to create pod sandbox: x: error getting ClusterInformation: y'));
    expect(other.reason).toBeUndefined();
    expect(
      sandboxMessageShape(['kuma-cni'], []).test('Failed to create pod sandbox: (kuma-cni) in namespace (x)'),
    ).toBe(true);
    // The event recorder's prefix (hashicorp/consul-k8s#4106), and a bare exit status naming no plugin (kumahq/kuma#2046).
    const shape = sandboxMessageShape(['consul-cni'], []);
    expect(
      shape.test(
        '(combined from similar events): Failed to create pod sandbox: x: plugin type="consul-cni" name="consul-cni" failed (add): y',
      ),
    ).toBe(true);
    expect(
      shape.test('Failed to create pod sandbox: rpc error: failed to setup network for sandbox "5c": exit status 1'),
    ).toBe(true);
    expect(shape.test('Failed to create pod sandbox: x: plugin type="calico" failed (add): exit status 1')).toBe(false);
  });
});

describe('messages', () => {
  it('names the plugin, the node and the fix', () => {
    const [f] = findings(cluster('linkerd', ['checks/pod-sandbox-cni-failed/fires-linkerd-plugin-exit-127.yaml']), [
      'pod-sandbox-cni-failed',
    ]);
    expect(f!.message).toContain('on 1 node ip-172-21-16-20');
    expect(f!.message).toContain('failed (add): exit status 127');
    const [k] = findings(cluster('kuma', ['checks/pod-sandbox-cni-failed/fires-kuma-attachment-missing.yaml']), [
      'pod-sandbox-cni-failed',
    ]);
    expect(k!.message).toContain('NetworkAttachmentDefinition kuma-cni in namespace orders');
  });

  it("names the cause from the plugin's own words: no ztunnel connection, refused credentials", () => {
    const one = (base: Parameters<typeof cluster>[0], file: string) =>
      findings(cluster(base, [`checks/pod-sandbox-cni-failed/${file}.yaml`]), ['pod-sandbox-cni-failed'])[0]!;
    const z = one('istio-ambient', 'fires-istio-ambient-no-ztunnel-connection');
    expect(z.message).toContain('has no connection from a ztunnel');
    expect(z.fix).toContain(
      'kubectl get pods -n istio-system -l app=ztunnel -o wide --field-selector spec.nodeName=node-a',
    );
    expect(z.evidence.source).toContain('ztunnelserver.go');
    const c = one('consul', 'fires-consul-cni-unauthorized');
    expect(c.message).toContain('the API server refuses the credentials the plugin uses on the node');
    expect(c.fix.join('\n')).toContain('delete the pod of DaemonSet consul-cni on the node');
    const k = one('kuma', 'fires-kuma-cni-no-plugin-named');
    expect(k.message).toContain('its message names no plugin');
    expect(k.message).toContain('init container kuma-validation');
    expect(k.evidence).toMatchObject({ cause: 'unnamed', name: 'kuma-validation' });
  });

  it('finds a missing attachment from the pod annotation alone, in all three of its forms (issue 31)', () => {
    const one = (base: Parameters<typeof cluster>[0], file: string) =>
      findings(cluster(base, [`checks/pod-sandbox-cni-failed/${file}.yaml`]), ['pod-sandbox-cni-failed'])[0]!;
    const i = one('istio', 'fires-istio-attachment-missing-no-event');
    expect(i.message).toContain('none is istio-cni in namespace reports');
    expect(i.message).toContain('no sandbox event read');
    expect(i.evidence).toMatchObject({
      cause: 'attachment',
      events: 0,
      from: 'pod annotation k8s.v1.cni.cncf.io/networks',
    });
    const k = one('kuma', 'fires-kuma-attachment-missing-no-event');
    expect(k.fix.join('\n')).toContain('kubectl label namespace payments kuma.io/sidecar-injection=disabled');
    const c = one('consul', 'fires-consul-attachment-missing-no-event');
    expect(c.message).toContain('none is consul-cni in namespace inventory');
    expect(c.fix.join('\n')).toContain('type consul-cni and multus true');
  });
});

describe('issue 31: why the plugin fails, beyond its message', () => {
  const one = (name: string) => {
    const fs = findings(cluster(baseOfCase(name), [`checks/pod-sandbox-cni-failed/${name}.yaml`]), [
      'pod-sandbox-cni-failed',
    ]);
    expect(fs).toHaveLength(1);
    return fs[0]!;
  };
  const baseOfCase = (name: string) => (name.includes('kuma') ? 'kuma' : name.includes('istio') ? 'istio' : 'linkerd');

  it('names the directory the runtime reads and the one the agent installs into (rancher-sandbox/rancher-desktop#6170, GKE)', () => {
    const a = one('fires-linkerd-cni-binary-not-on-path');
    expect(a.message).toContain(
      'the container runtime of the node looks for plugin binaries only in /usr/libexec/cni, but DaemonSet linkerd-cni/linkerd-cni installs linkerd-cni into /opt/cni/bin (its hostPath volume cni-bin-dir)',
    );
    expect(a.fix.join('\n')).toContain('destCNIBinDir');
    const b = one('fires-istio-cni-binary-gke-bin-dir');
    expect(b.message).toContain(
      '/home/kubernetes/bin, but DaemonSet kube-system/istio-cni-node installs istio-cni into /opt/cni/bin',
    );
    expect(b.fix.join('\n')).toContain('cniBinDir');
  });

  it("reads the plugin's own words and ties the failure to the agent missing on the node (kumahq/kuma#10461, linkerd/linkerd2#10849)", () => {
    const k = one('fires-kuma-cni-install-cni-process');
    expect(k.message).toContain('before 2.9.0');
    expect(k.message).toContain('has no ready pod on worker-12 (kuma-cni-node-w2m9d not ready (ContainerCreating))');
    expect(k.evidence).toMatchObject({ agentGaps: [{ node: 'worker-12' }] });
    const l = one('fires-linkerd-cni-interface-mode');
    expect(l.message).toContain('no other plugin before it to give the pod an IP address');
  });
});
