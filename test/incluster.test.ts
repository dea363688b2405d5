/**
 * Running in the cluster: deploy/cronjob.yaml is consistent with deploy/rbac.yaml and with the
 * CLI, and the in-cluster config (service-account token, CA and namespace files plus
 * KUBERNETES_SERVICE_HOST/PORT) reads the cluster live. The service-account directory is moved
 * to a temp dir with the MESHDOCTOR_SERVICEACCOUNT_DIR testing hook; the run is a child process
 * (bin/meshdoctor.js, dist/) so that its environment is exactly the pod's.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from './apiserver/server.js';
import { runCli } from './helpers/cli.js';
import { baseObjects, fixtureObjects, overlay, parseObjects } from './helpers/fixtures.js';

const ROOT = join(import.meta.dirname, '..');
const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
const docs = parseObjects(readFileSync(join(ROOT, 'deploy/cronjob.yaml'), 'utf8')) as any[];
const rbac = parseObjects(readFileSync(join(ROOT, 'deploy/rbac.yaml'), 'utf8')) as any[];
const run = promisify(execFile);

describe('deploy/cronjob.yaml', () => {
  const find = (kind: string) => docs.find((d) => d.kind === kind);
  const cron = find('CronJob');
  const pod = cron.spec.jobTemplate.spec.template.spec;
  const container = pod.containers[0];

  it('Namespace, ServiceAccount, ClusterRoleBinding to the ClusterRole of deploy/rbac.yaml, CronJob', () => {
    expect(docs.map((d) => d.kind)).toEqual(['Namespace', 'ServiceAccount', 'ClusterRoleBinding', 'CronJob']);
    const ns = find('Namespace').metadata.name;
    const sa = find('ServiceAccount');
    expect(sa.metadata.namespace).toBe(ns);
    const binding = find('ClusterRoleBinding');
    expect(binding.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'meshdoctor-reader',
    });
    expect(rbac.some((r) => r.kind === 'ClusterRole' && r.metadata.name === binding.roleRef.name)).toBe(true);
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: sa.metadata.name, namespace: ns }]);
    expect(cron.metadata.namespace).toBe(ns);
    expect(pod.serviceAccountName).toBe(sa.metadata.name);
    expect(pod.automountServiceAccountToken).toBe(true);
  });

  it('runs an image built from this repository (never a package fetched at run time), non-root, read-only', () => {
    // Supply chain: the ServiceAccount reads the meshes' CA Secrets; `npx meshdoctor@x` would run
    // whatever a registry serves under that name.
    expect(JSON.stringify(container)).not.toMatch(/\bnpx\b|npm (i|install)\b/);
    expect(container.command).toBeUndefined();
    // A placeholder nobody can publish (.invalid is reserved, RFC 2606), tagged with this version.
    expect(container.image).toBe(`meshdoctor.invalid/meshdoctor:${version}`);
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    expect(container.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources.limits.memory).toBeDefined();
  });

  it("the Dockerfile builds from the lockfile and runs as the CronJob's user, with its arguments", () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const lines = dockerfile.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(lines.some((l) => /^RUN npm ci\b/.test(l))).toBe(true);
    expect(lines.some((l) => /npx|npm (i|install)\b/.test(l))).toBe(false);
    expect(lines).toContain(`USER ${pod.securityContext.runAsUser}:${pod.securityContext.runAsGroup}`);
    expect(lines).toContain('ENTRYPOINT ["node", "/app/bin/meshdoctor.js"]');
    expect(lines.find((l) => l.startsWith('CMD '))).toBe(`CMD ${JSON.stringify(container.args).replaceAll(',', ', ')}`);
    // Every path the image needs at run time is copied from the build or the repository.
    for (const p of ['node_modules', 'dist', 'package.json', 'bin'])
      expect(dockerfile).toMatch(new RegExp(`COPY (--from=build /src/)?${p}`));
  });

  it('its meshdoctor arguments are valid and print JSON that never fails the job on findings', async () => {
    const args = container.args;
    expect(args).toEqual(['check', '-A', '-o', 'json', '--fail-on', 'none', '--no-secrets']);
    const r = await runCli([...args, '--snapshot', join(ROOT, 'demo/cluster.json')]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).findings.length).toBeGreaterThan(0);
  });
});

describe('in-cluster config (service account) against the test API server', () => {
  let server: ApiServer;
  const tmp = mkdtempSync(join(tmpdir(), 'meshdoctor-incluster-'));
  const sa = join(tmp, 'serviceaccount');
  const home = join(tmp, 'home'); // empty: no ~/.kube/config
  const bin = join(ROOT, 'bin/meshdoctor.js');
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    server = await startApiServer({
      objects: overlay(baseObjects('linkerd'), fixtureObjects('checks/pod-opted-out/fires-linkerd.yaml')),
    });
    mkdirSync(sa);
    mkdirSync(home);
    writeFileSync(join(sa, 'token'), server.token + '\n');
    writeFileSync(join(sa, 'ca.crt'), server.caPem);
    writeFileSync(join(sa, 'namespace'), 'shop');
    const port = new URL(server.url).port;
    // Only what a pod has: no KUBECONFIG, a HOME without .kube.
    env = {
      PATH: process.env.PATH,
      HOME: home,
      KUBERNETES_SERVICE_HOST: '127.0.0.1',
      KUBERNETES_SERVICE_PORT: port,
      MESHDOCTOR_SERVICEACCOUNT_DIR: sa,
    };
  });
  afterAll(() => server?.close());

  it('reads live with the token and CA, in the namespace of the namespace file', async () => {
    server.requests.length = 0;
    const r = await run(process.execPath, [bin, 'check', '-o', 'json'], { env });
    const report = JSON.parse(r.stdout);
    expect(report.source).toMatchObject({ type: 'live', context: 'in-cluster', server: server.url });
    expect(report.scope).toEqual({ allNamespaces: false, namespace: 'shop' });
    expect(report.findings.map((f: any) => `${f.id} ${f.resource.namespace}/${f.resource.name}`)).toEqual([
      'pod-opted-out shop/cart',
    ]);
    expect(server.requests.length).toBeGreaterThan(5);
    expect(server.requests.every((q) => q.headers.authorization === `Bearer ${server.token}`)).toBe(true);
  });

  it('without the service-account token it is not "in a cluster": one line, exit 2', async () => {
    const r = await run(process.execPath, [bin, 'check', '-o', 'json'], {
      env: { ...env, MESHDOCTOR_SERVICEACCOUNT_DIR: join(tmp, 'nowhere') },
    }).catch((e) => e);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'meshdoctor: cannot load kubeconfig: no --kubeconfig, KUBECONFIG or ~/.kube/config, and not running in a cluster\n',
    );
  });
});
