/**
 * `check -f`: manifests checked against the cluster they are going to, before `kubectl apply`:
 * Helm output on stdin, directories (-R), a Namespace in the same change, offline snapshots, the
 * live path, findings limited to the manifests, and bad input.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overlayManifests } from '../src/run/manifests.js';
import { startApiServer, type ApiServer } from './apiserver/server.js';
import { runCli } from './helpers/cli.js';
import { FIXTURES, baseObjects, cluster, fixtureObjects, overlay, parseObjects } from './helpers/fixtures.js';

const ROOT = join(import.meta.dirname, '..');
const validate = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false }).compile(
  JSON.parse(readFileSync(join(ROOT, 'schema/report.schema.json'), 'utf8')),
);
const LINKERD = join(FIXTURES, 'healthy/linkerd.yaml');
const HELM = readFileSync(join(FIXTURES, 'manifests/helm-shop.yaml'), 'utf8');
const APP = join(FIXTURES, 'manifests/app');
const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-manifests-'));

const json = (stdout: string) => {
  const r = JSON.parse(stdout);
  expect(validate(r), JSON.stringify(validate.errors)).toBe(true);
  return r;
};
const found = (r: any): string[] =>
  r.findings.map(
    (f: any) =>
      `${f.id} ${f.resource.kind} ${f.resource.namespace ? `${f.resource.namespace}/` : ''}${f.resource.name}`,
  );
const write = (name: string, text: string) => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};
const deploy = (name: string, ns?: string, annotations = '{}') => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}${ns ? `, namespace: ${ns}` : ''}}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}, annotations: ${annotations}}
    spec: {containers: [{name: app, image: example/app:1}]}
`;

describe('Helm output on stdin (-f -)', () => {
  it('reports the manifest objects with file#document; comments, empty documents and hooks are ignored', async () => {
    const r = await runCli(['check', '--snapshot', LINKERD, '-n', 'shop', '-f', '-', '-o', 'json'], { stdin: HELM });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0); // a warning only
    const report = json(r.stdout);
    expect(found(report)).toEqual(['pod-opted-out Deployment shop/worker']);
    expect(report.findings[0].source).toEqual({ file: '-', document: 4, line: 42 });
    expect(report.source).toMatchObject({ type: 'file', manifests: ['-'] });
  });

  it('--expect-meshed: an error per workload no mesh would inject (the opted-out one and the hook Pod are not)', async () => {
    const r = await runCli(
      ['check', '--snapshot', LINKERD, '-n', 'legacy', '-f', '-', '--expect-meshed', '-o', 'json'],
      { stdin: HELM },
    );
    expect(r.code).toBe(1);
    const report = json(r.stdout);
    expect(found(report)).toEqual(['will-not-be-meshed Deployment legacy/orders']);
    expect(report.findings[0]).toMatchObject({ source: { file: '-', document: 3 }, affectedPods: 2 });
  });

  it('template-based checks fire for a workload not created yet: its ServiceAccount is missing without the first document', async () => {
    const withoutSa = HELM.split(/^---$/m)
      .filter((d) => !d.includes('kind: ServiceAccount'))
      .join('---');
    const r = await runCli(['check', '--snapshot', LINKERD, '-n', 'shop', '-f', '-', '-o', 'json'], {
      stdin: withoutSa,
    });
    expect(r.code).toBe(1);
    expect(found(json(r.stdout))).toContain('serviceaccount-missing Deployment shop/orders');
  });

  it('table: the source under the message, the manifests in the header', async () => {
    const r = await runCli(['check', '--snapshot', LINKERD, '-n', 'shop', '-f', '-', '-o', 'table'], {
      stdin: HELM,
      env: { COLUMNS: '300' },
    });
    expect(r.stdout).toContain(' · manifests - · meshes: linkerd');
    expect(r.stdout).toMatch(/opts out of injection .*\n {2}from -#4\n/);
  });
});

describe('directories', () => {
  it("without -R, only the directory's own .yaml/.json files; with -R, subdirectories too", async () => {
    const flat = await runCli(['check', '--snapshot', LINKERD, '-f', APP, '--expect-meshed', '-o', 'json']);
    expect(flat.stderr).toBe('');
    const r1 = json(flat.stdout);
    expect(found(r1)).toEqual(['will-not-be-meshed Deployment legacy/api']);
    expect(r1.findings[0].source).toEqual({ file: join(APP, 'api.yaml'), document: 1, line: 1 });
    const deep = json(
      (await runCli(['check', '--snapshot', LINKERD, '-f', APP, '-R', '--expect-meshed', '-o', 'json'])).stdout,
    );
    expect(found(deep)).toEqual(['will-not-be-meshed Deployment legacy/api', 'will-not-be-meshed Job legacy/batch']);
    expect(deep.source.manifests).toEqual([join(APP, 'api.yaml'), join(APP, 'sub/batch.yaml')]);
  });
});

describe('a Namespace annotated in the same change', () => {
  const ns = `apiVersion: v1
kind: Namespace
metadata: {name: legacy, annotations: {linkerd.io/inject: enabled}}
---
`;
  it('counts: the Deployment is judged meshed', async () => {
    const r = await runCli([
      'check',
      '--snapshot',
      LINKERD,
      '-n',
      'legacy',
      '-f',
      write('with-ns.yaml', ns + deploy('api')),
      '--expect-meshed',
      '-o',
      'json',
    ]);
    expect(r.code).toBe(0);
    expect(found(json(r.stdout))).toEqual([]);
  });

  it('without it, the cluster namespace lacks the marker: not meshed, an error with --expect-meshed only', async () => {
    const file = write('without-ns.yaml', deploy('api'));
    const r = await runCli([
      'check',
      '--snapshot',
      LINKERD,
      '-n',
      'legacy',
      '-f',
      file,
      '--expect-meshed',
      '-o',
      'json',
    ]);
    expect(r.code).toBe(1);
    const report = json(r.stdout);
    expect(found(report)).toEqual(['will-not-be-meshed Deployment legacy/api']);
    expect(report.findings[0].fix).toEqual(['kubectl annotate namespace legacy linkerd.io/inject=enabled --overwrite']);
    const plain = await runCli(['check', '--snapshot', LINKERD, '-n', 'legacy', '-f', file, '-o', 'json']);
    expect(plain.code).toBe(0);
    expect(found(json(plain.stdout))).toEqual([]);
  });
});

describe('no cluster access (--snapshot with -f)', () => {
  it("namespace-less objects take the snapshot's namespace, else default; no kubeconfig is read", async () => {
    const r = await runCli(
      ['check', '--snapshot', LINKERD, '-f', write('plain.yaml', deploy('api')), '--expect-meshed', '-o', 'json'],
      {
        env: { KUBECONFIG: join(tmp, 'missing') },
      },
    );
    expect(r.stderr).toBe('');
    expect(found(json(r.stdout))).toEqual(['will-not-be-meshed Deployment default/api']);
  });
});

describe('findings limited to the manifests', () => {
  // The cluster: shop/cart opts out (pod-opted-out) and the Linkerd injector has no ready endpoint.
  const objects = overlay(
    baseObjects('linkerd'),
    fixtureObjects('checks/pod-opted-out/fires-linkerd.yaml'),
    fixtureObjects('checks/webhook-no-endpoints/fires-linkerd-not-ready.yaml'),
  );
  const snapFile = join(tmp, 'broken.json');
  writeFileSync(snapFile, JSON.stringify({ kind: 'List', items: objects }));

  it('a broken cluster workload not in the manifests is not reported; the broken webhook that would inject them is', async () => {
    const r = await runCli([
      'check',
      '--snapshot',
      snapFile,
      '-f',
      write('orders.yaml', deploy('orders', 'shop')),
      '-o',
      'json',
    ]);
    const report = json(r.stdout);
    expect(found(report)).toContain('webhook-no-endpoints Service linkerd/linkerd-proxy-injector');
    expect(found(report).some((f) => f.includes('cart'))).toBe(false);
    expect(report.findings.find((f: any) => f.id === 'webhook-no-endpoints').source).toBeUndefined();
    // Without the manifests, the full report has the cart finding.
    expect(found(json((await runCli(['check', '--snapshot', snapFile, '-o', 'json'])).stdout))).toContain(
      'pod-opted-out Deployment shop/cart',
    );
  });

  it('control-plane findings are left out when no manifest workload would be injected by that mesh', async () => {
    const r = await runCli([
      'check',
      '--snapshot',
      snapFile,
      '-f',
      write('legacy.yaml', deploy('orders', 'legacy')),
      '-o',
      'json',
    ]);
    expect(found(json(r.stdout))).toEqual([]);
  });

  it('a workload replaced by the manifests loses the cluster pods, ReplicaSets and events of its old template', () => {
    const snap = cluster('linkerd', ['checks/pod-opted-out/fires-linkerd.yaml']);
    const cart = parseObjects(deploy('cart', 'shop'))[0]!;
    const after = overlayManifests(
      snap,
      { files: ['m.yaml'], objects: [{ obj: cart, source: { file: 'm.yaml', document: 1 } }] },
      'default',
    );
    const names = (k: 'pods' | 'replicasets' | 'deployments') =>
      after.objects[k]!.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`);
    expect(names('pods').some((n) => n.startsWith('shop/cart-'))).toBe(false);
    expect(names('replicasets').some((n) => n.startsWith('shop/cart-'))).toBe(false);
    expect(names('pods').some((n) => n.startsWith('shop/web-'))).toBe(true); // others stay
    expect(after.objects.deployments!.filter((d) => d.metadata?.name === 'cart')).toEqual([cart]);
    expect(after.manifests).toEqual([
      { ref: { kind: 'Deployment', namespace: 'shop', name: 'cart' }, source: { file: 'm.yaml', document: 1 } },
    ]);
    expect(snap.objects.pods!.some((p) => p.metadata?.name?.startsWith('cart-'))).toBe(true); // the input is not changed
  });
});

describe('live, through the test API server', () => {
  let server: ApiServer;
  let kubeconfig: string;
  beforeAll(async () => {
    server = await startApiServer({
      objects: overlay(baseObjects('linkerd'), fixtureObjects('checks/pod-opted-out/fires-linkerd.yaml')),
      maxPageSize: 7,
    });
    kubeconfig = await server.writeKubeconfig(tmp, { namespace: 'shop' });
  });
  afterAll(() => server.close());

  it('namespace-less objects go to the context namespace, and only it (plus the mesh namespaces) is read', async () => {
    server.requests.length = 0;
    const file = write('cart.yaml', deploy('cart', undefined, '{linkerd.io/inject: disabled}'));
    const r = await runCli(['check', '--kubeconfig', kubeconfig, '-f', file, '-o', 'json']);
    expect(r.stderr).toBe('');
    const report = json(r.stdout);
    expect(found(report)).toEqual(['pod-opted-out Deployment shop/cart']);
    expect(report.findings[0]).toMatchObject({ source: { file, document: 1 }, evidence: { pods: [] } }); // the old pods are not the new template's
    expect(report.source).toMatchObject({ type: 'live', manifests: [file] });
    // Of kube-system, only the kube-apiserver pods (their admission flags), by kubeadm's labels.
    const kubeSystem = server.requests.filter((q) => q.path.startsWith('/api/v1/namespaces/kube-system/'));
    expect(kubeSystem.map((q) => [q.path, q.query.labelSelector])).toEqual([
      ['/api/v1/namespaces/kube-system/pods', 'component=kube-apiserver,tier=control-plane'],
    ]);
    const namespaced = server.requests
      .filter((q) => !kubeSystem.includes(q))
      .map((q) => /\/namespaces\/([^/]+)\/[a-z]+$/.exec(q.path)?.[1])
      .filter(Boolean);
    expect(new Set(namespaced)).toEqual(new Set(['shop', 'linkerd']));
  });

  it('objects in one other namespace: that one is read; in several: every namespace', async () => {
    server.requests.length = 0;
    const one = await runCli([
      'check',
      '--kubeconfig',
      kubeconfig,
      '-f',
      write('legacy-live.yaml', deploy('api', 'legacy')),
      '--expect-meshed',
      '-o',
      'json',
    ]);
    expect(found(json(one.stdout))).toEqual(['will-not-be-meshed Deployment legacy/api']);
    expect(server.requests.some((q) => q.path === '/apis/apps/v1/namespaces/legacy/deployments')).toBe(true);
    expect(server.requests.some((q) => q.path === '/apis/apps/v1/deployments')).toBe(false);
    server.requests.length = 0;
    const two = await runCli([
      'check',
      '--kubeconfig',
      kubeconfig,
      '-f',
      write('two-ns.yaml', `${deploy('api', 'legacy')}---\n${deploy('front')}`),
      '--expect-meshed',
      '-o',
      'json',
    ]);
    expect(found(json(two.stdout))).toEqual(['will-not-be-meshed Deployment legacy/api']); // shop/front is meshed
    expect(server.requests.some((q) => q.path === '/apis/apps/v1/deployments')).toBe(true);
  });
});

describe('bad input: one line on stderr, exit 2, nothing on stdout', () => {
  it.each([
    [
      'invalid YAML',
      ['-f', '-'],
      'kind: Deployment\nmetadata: {name: [unclosed\n',
      /^meshdoctor: cannot read manifests stdin: invalid YAML at line \d+ \(.+\)\n$/,
    ],
    ['empty stdin', ['-f', '-'], '', /^meshdoctor: no Kubernetes objects found in the manifests \(stdin\)\n$/],
    [
      'a missing file',
      ['-f', join(tmp, 'nope.yaml')],
      '',
      /^meshdoctor: cannot read manifests .*nope\.yaml: no such file or directory\n$/,
    ],
    ['stdin twice', ['-f', '-', '-f', '-'], 'x: 1', /^meshdoctor: -f - \(stdin\) can be given only once\n$/],
    [
      'an unknown namespace',
      ['-f', '-'],
      deploy('api', 'nowhere'),
      /^meshdoctor: namespace "nowhere" of Deployment api not found in the cluster nor in the manifests\n$/,
    ],
    ['--expect-meshed without -f', [], '', /^meshdoctor: --expect-meshed needs -f\/--filename\n$/],
  ])('%s', async (_name, args, stdin, message) => {
    const r = await runCli(['check', '--snapshot', LINKERD, '--expect-meshed', ...(args as string[]), '-o', 'json'], {
      stdin: stdin as string,
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message as RegExp);
  });
});
