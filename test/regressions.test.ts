/**
 * Regressions found by an independent review: each test fails on the code before its fix.
 */
import { render } from '../src/fix/render.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recreateCommands, removeFromTemplate } from '../src/fix/commands.js';
import type { Workload } from '../src/facts/model.js';
import { runCli } from './helpers/cli.js';
import { FIXTURES, NOW, cluster, findings, ids } from './helpers/fixtures.js';

const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-regress-'));
const LINKERD = join(FIXTURES, 'healthy/linkerd.yaml');
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

describe('CLI flags reach the checks', () => {
  it('--cert-expiry-warning is the window the expiry checks use (the fixtures expire in 2036)', async () => {
    const wide = JSON.parse(
      (await runCli(['check', '-A', '--snapshot', LINKERD, '-o', 'json', '--cert-expiry-warning', '10000'])).stdout,
    );
    expect(wide.findings.map((f: any) => f.id).sort()).toEqual([
      'identity-cert-expiring',
      'identity-cert-expiring',
      'webhook-ca-expiring',
    ]);
    const normal = JSON.parse((await runCli(['check', '-A', '--snapshot', LINKERD, '-o', 'json'])).stdout);
    expect(normal.findings).toEqual([]);
  });
});

describe('certificates', () => {
  it('a serving certificate with an empty subject (cert-manager, SANs only) is a certificate, named by its SAN', async () => {
    // Dates pinned to the fixtures' NOW: this test once minted its certificate from the wall clock.
    const { generateCA, generateLeaf } = await import('./helpers/certs.js');
    const day = 86_400_000;
    const ca = await generateCA({
      keyType: 'ecdsa',
      commonName: 'webhook-ca',
      notBefore: new Date(NOW.getTime() - day),
      notAfter: new Date(NOW.getTime() + 300 * day),
    });
    const snapWith = async (notBefore: Date) => {
      const leaf = await generateLeaf({
        ca,
        keyType: 'ecdsa',
        commonName: '',
        dnsNames: ['linkerd-proxy-injector.linkerd.svc'],
        notBefore,
        notAfter: new Date(NOW.getTime() + 300 * day),
      });
      const snap = cluster('linkerd', [
        `
apiVersion: v1
kind: Secret
metadata: {name: linkerd-proxy-injector-k8s-tls, namespace: linkerd, annotations: {cert-manager.io/certificate-name: linkerd-proxy-injector}}
type: kubernetes.io/tls
data: {tls.crt: ${b64(leaf.certPem)}, tls.key: ${b64('not a real key')}}
`,
      ]);
      const hook = snap.objects.mutatingwebhookconfigurations!.find(
        (o) => o.metadata?.name === 'linkerd-proxy-injector-webhook-config',
      ) as any;
      // The leaf itself as the bundle (self-contained), as cert-manager's SAN-only certificates often are.
      hook.webhooks[0].clientConfig.caBundle = b64(leaf.certPem);
      return snap;
    };
    expect(
      findings(await snapWith(new Date(NOW.getTime() - day)), [
        'webhook-cert-mismatch',
        'webhook-ca-invalid',
        'webhook-ca-expired',
      ]),
    ).toEqual([]);
    // Not valid yet at NOW: the message names the certificate by its SAN, not by a blank subject.
    const early = findings(await snapWith(new Date(NOW.getTime() + day)), ['webhook-ca-invalid']);
    expect(early.map((f) => f.id)).toEqual(['webhook-ca-invalid']);
    expect(early[0]!.message).toContain('(no subject, DNS:linkerd-proxy-injector.linkerd.svc is not valid until');
    expect(early[0]!.message).not.toMatch(/\( is/);
  });

  it('a cert-manager issuer (48h, renewed 25h before expiry) warns only once its renewal is overdue', async () => {
    const { generateCA, generateLeaf } = await import('./helpers/certs.js');
    const issued = new Date(NOW.getTime() - 20 * 3600e3);
    const anchor = await generateCA({ keyType: 'ecdsa', commonName: 'root.linkerd.cluster.local' });
    const issuer = await generateLeaf({
      ca: anchor,
      keyType: 'ecdsa',
      dnsNames: ['identity.linkerd.cluster.local'],
      notBefore: issued,
      notAfter: new Date(issued.getTime() + 48 * 3600e3),
    });
    const secret = (notes: string) => `
apiVersion: v1
kind: Secret
metadata: {name: linkerd-identity-issuer, namespace: linkerd${notes}}
type: kubernetes.io/tls
data: {tls.crt: ${b64(issuer.certPem)}, ca.crt: ${b64(anchor.certPem)}}
`;
    const managed = secret(', annotations: {cert-manager.io/certificate-name: linkerd-identity-issuer}');
    // 28h left of 48h: cert-manager has not had to renew yet.
    expect(findings(cluster('linkerd', [managed]), ['identity-cert-expiring'])).toEqual([]);
    // 10h left: past a third of its life, the renewal is overdue.
    const late = new Date(NOW.getTime() + 18 * 3600e3);
    expect(ids(findings(cluster('linkerd', [managed]), ['identity-cert-expiring'], { now: late }))).toEqual([
      'identity-cert-expiring Secret linkerd/linkerd-identity-issuer',
    ]);
    // The same certificate without cert-manager: 28h left is within 60 days.
    expect(ids(findings(cluster('linkerd', [secret('')]), ['identity-cert-expiring']))).toEqual([
      'identity-cert-expiring Secret linkerd/linkerd-identity-issuer',
    ]);
  });
});

describe('fix commands work on a real cluster', () => {
  const w = (kind: string, pods: { name: string; phase?: string }[], templatePath = ''): Workload => ({
    ref: { kind, namespace: 'shop', name: 'app' },
    kind,
    namespace: 'shop',
    name: 'app',
    template: {},
    templatePath,
    pods: pods.map((p) => ({ metadata: { name: p.name }, status: { phase: p.phase ?? 'Running' } })),
  });

  it('a running Job is re-created without its generated selector; a finished one is left alone', () => {
    expect(render(recreateCommands(w('Job', [{ name: 'app-x' }], '/spec/template')))).toEqual([
      'kubectl get job app -n shop -o yaml > app.yaml',
      '# edit app.yaml before replacing the Job with it: keep the template as it is under spec.template.metadata, and drop spec.selector and the controller-uid labels',
      'kubectl replace --force -f app.yaml',
    ]);
    expect(render(recreateCommands(w('Job', [{ name: 'app-x', phase: 'Succeeded' }], '/spec/template')))).toEqual([]);
  });

  it('pods of a controller meshdoctor does not know are deleted by name, the controller edited with kubectl edit', () => {
    const rollout = w('Rollout', [{ name: 'app-1' }, { name: 'app-2' }, { name: 'app-0', phase: 'Succeeded' }]);
    expect(render(recreateCommands(rollout))).toEqual([
      '# Rollout app is a kind meshdoctor does not read: if it re-creates its pods once they are deleted, this gives new ones',
      'kubectl delete pod -n shop app-1 app-2',
    ]);
    expect(render(removeFromTemplate(rollout, 'annotations', 'linkerd.io/inject'))).toEqual([
      '# Rollout/app is a kind meshdoctor does not read, so where it keeps the pod template of its pods is not known: there, remove annotations linkerd.io/inject',
      'kubectl edit rollout/app -n shop',
    ]);
  });

  it('the Linkerd Helm value for the injector memory is proxyInjectorResources', () => {
    const fs = findings(cluster('linkerd', ['checks/injector-oomkilled/fires-linkerd-chain.yaml']), [
      'injector-oomkilled',
    ]);
    expect(fs[0]!.fix.join('\n')).toContain('--set proxyInjectorResources.memory.limit=500Mi');
  });
});

describe('no misleading findings', () => {
  it('namespace-not-enabled does not suggest a marker the mesh would ignore (cert-manager, local-path-storage)', () => {
    const app = (ns: string) => `
apiVersion: v1
kind: Namespace
metadata: {name: ${ns}}
---
apiVersion: v1
kind: Pod
metadata: {name: app, namespace: ${ns}}
spec: {containers: [{name: app, image: app}]}
status: {phase: Running}
`;
    expect(
      findings(cluster('linkerd', [app('cert-manager')], { allNamespaces: false, namespace: 'cert-manager' }), [
        'namespace-not-enabled',
      ]),
    ).toEqual([]);
    expect(
      findings(
        cluster('istio', [app('local-path-storage')], { allNamespaces: false, namespace: 'local-path-storage' }),
        ['namespace-not-enabled'],
      ),
    ).toEqual([]);
    expect(
      ids(
        findings(cluster('istio', [app('tools')], { allNamespaces: false, namespace: 'tools' }), [
          'namespace-not-enabled',
        ]),
      ),
    ).toEqual(['namespace-not-enabled Namespace tools']);
  });

  it('an OOM kill on one of several ready injector replicas is a warning that says the others served', () => {
    const replica = 'checks/sidecar-missing/ok-second-injector-replica.yaml';
    const [f] = findings(cluster('linkerd', ['checks/sidecar-missing/fires-linkerd-during-outage.yaml', replica]), [
      'injector-oomkilled',
    ]);
    expect(f!.severity).toBe('warning');
    expect(f!.message).toMatch(/other replicas kept serving the webhook/);
  });
});

describe('markers in the wrong place', () => {
  it("linkerd.io/inject on a CronJob's jobTemplate metadata is reported", () => {
    const cj = `
apiVersion: v1
kind: Namespace
metadata: {name: jobs}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: jobs}
spec:
  schedule: "0 1 * * *"
  jobTemplate:
    metadata: {annotations: {linkerd.io/inject: enabled}}
    spec: {template: {metadata: {}, spec: {containers: [{name: n, image: n}]}}}
`;
    const fs = findings(cluster('linkerd', [cj]), ['injection-marker-invalid']);
    expect(ids(fs)).toEqual(['injection-marker-invalid CronJob jobs/nightly']);
    expect(fs[0]!.fix[0]).toBe(
      `kubectl patch cronjob/nightly -n jobs --type=merge -p '{"spec":{"jobTemplate":{"spec":{"template":{"metadata":{"annotations":{"linkerd.io/inject":"enabled"}}}}}}}'`,
    );
  });
});

describe('odd input', () => {
  it('a self-referencing YAML alias is an error, not a stack overflow', async () => {
    const p = join(tmp, 'alias.yaml');
    writeFileSync(p, '- &a [*a]\n');
    const r = await runCli(['check', '--snapshot', p]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no Kubernetes objects found/);
  });

  it('-n with a namespace that does not exist is an error, not "no findings"', async () => {
    const r = await runCli(['check', '-n', 'shpo', '--snapshot', LINKERD]);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toBe('meshdoctor: namespace "shpo" not found\n');
  });
});

describe('slimming on read', () => {
  it('drops managedFields of controller-owned pods, ReplicaSets and Events only', async () => {
    const { slim } = await import('../src/mesh/keep.js');
    const mf = [{ manager: 'kubectl', time: '2026-01-01T00:00:00Z' }];
    const owned = {
      kind: 'Pod',
      metadata: {
        name: 'a',
        ownerReferences: [{ kind: 'ReplicaSet', name: 'r', controller: true }],
        managedFields: mf,
      },
    };
    const bare = { kind: 'Pod', metadata: { name: 'b', managedFields: mf } };
    const ns = { kind: 'Namespace', metadata: { name: 'shop', managedFields: mf } };
    expect(slim('pods', structuredClone(owned)).metadata!.managedFields).toBeUndefined();
    expect(slim('pods', structuredClone(bare)).metadata!.managedFields).toEqual(mf);
    expect(slim('namespaces', structuredClone(ns)).metadata!.managedFields).toEqual(mf);
    expect(slim('replicasets', { metadata: { managedFields: mf } }).metadata!.managedFields).toBeUndefined();
    expect(slim('events', { metadata: { managedFields: mf } }).metadata!.managedFields).toBeUndefined();
  });
});
