/**
 * deploy/: the CronJob's memory limit against the measured peaks of docs/performance.md (issue "Hostile input,
 * round 2", item 20), its pods opted out of every mesh meshdoctor knows, judged by meshdoctor's
 * own injection decision as `check -f` makes it (item 21), and the RBAC files' shape: Secrets by
 * name, only in Roles of the mesh namespaces, exactly what the profiles fetch (item 19; the real
 * API server test is test/deploy-rbac.test.ts).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KINDS } from '../src/k8s/kinds.js';
import { namedObjects } from '../src/mesh/read-plan.js';
import { parseQuantity } from '../src/k8s/quantity.js';
import { overlayManifests, readManifests } from '../src/run/manifests.js';
import { MESH_NAMES } from '../src/mesh/names.js';
import { makeModel } from '../src/run/run.js';
import type { K8sObject } from '../src/util/types.js';
import { NOW, baseObjects, parseObjects, snapshotFrom } from './helpers/fixtures.js';

const ROOT = join(import.meta.dirname, '..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const CRONJOB = 'deploy/cronjob.yaml';
const cronjob = () => parseObjects(read(CRONJOB)).find((o) => o.kind === 'CronJob') as any;
const podTemplate = () => cronjob().spec.jobTemplate.spec.template;

describe('the CronJob memory limit', () => {
  /** The Performance table (docs/performance.md): the peak RSS (MB) of meshdoctor's live runs on real-size objects, by pods. */
  const livePeaks = () => {
    const rows = read('docs/performance.md')
      .split('\n')
      .filter((l) => /^\| live, real kube-apiserver, real-size/.test(l))
      .map((l) => l.split('|').map((c) => c.trim()));
    const header = read('docs/performance.md')
      .split('\n')
      .find((l) => l.startsWith('| input | pods |'))!
      .split('|')
      .map((c) => c.trim());
    const rss = header.indexOf('RSS MB meshdoctor / floor');
    const pods = header.indexOf('pods');
    expect(rss).toBeGreaterThan(0);
    return rows.map((r) => ({ pods: Number(r[pods]), mb: Number(r[rss]!.split('/')[0]) }));
  };

  it('is at least the largest measured peak (docs/performance.md) with a fifth to spare, and the request at most the limit', () => {
    const peaks = livePeaks();
    expect(peaks.length).toBeGreaterThanOrEqual(2);
    const largest = peaks.reduce((a, b) => (b.mb > a.mb ? b : a));
    expect(largest.pods).toBeGreaterThanOrEqual(50_000);
    const { requests, limits } = podTemplate().spec.containers[0].resources;
    const limit = parseQuantity(limits.memory)!;
    expect(limit).toBeGreaterThanOrEqual(largest.mb * 1e6 * 1.2);
    expect(parseQuantity(requests.memory)!).toBeLessThanOrEqual(limit);
  });

  it('the comment says how the peak scales and what happens when the limit is too small', () => {
    const text = read(CRONJOB);
    const peaks = livePeaks().filter((p) => p.pods === 5_000 || p.pods === 50_000);
    for (const p of peaks) expect(text).toContain(`${p.mb} MB at ${p.pods.toLocaleString('en-US')}`);
    for (const s of [
      'per 10,000 pods',
      'OOMKilled',
      'backoffLimit',
      'BackoffLimitExceeded',
      'kubectl -n meshdoctor get jobs',
    ])
      expect(text).toContain(s);
  });
});

describe("the CronJob's pods are injected by no mesh", () => {
  /**
   * A cluster running all four meshes, each injecting every pod of namespace meshdoctor by default:
   * the namespace marked for Linkerd, Istio and Kuma, Consul's injector set to -default-inject=true.
   */
  const cluster = (): K8sObject[] =>
    baseObjects('linkerd+istio+kuma+consul' as never).map((o) =>
      o.kind === 'Deployment' && JSON.stringify(o).includes('-default-inject=false')
        ? JSON.parse(JSON.stringify(o).replace('-default-inject=false', '-default-inject=true'))
        : o,
    );
  const ENABLED_NAMESPACE = {
    labels: { 'istio-injection': 'enabled', 'kuma.io/sidecar-injection': 'enabled' },
    annotations: { 'linkerd.io/inject': 'enabled' },
  };

  /** What each mesh decides for the CronJob of these manifests, as `check -f` overlays them on the cluster. */
  async function decisions(edit: (objects: K8sObject[]) => void = () => {}) {
    const m = await readManifests([join(ROOT, CRONJOB)], false, async () => '');
    for (const { obj } of m.objects) {
      if (obj.kind === 'Namespace') {
        obj.metadata!.labels = { ...obj.metadata!.labels, ...ENABLED_NAMESPACE.labels };
        obj.metadata!.annotations = { ...obj.metadata!.annotations, ...ENABLED_NAMESPACE.annotations };
      }
    }
    edit(m.objects.map((x) => x.obj));
    const model = makeModel(overlayManifests(snapshotFrom(cluster()), m, 'default'), {
      mesh: 'auto',
      certExpiryWarningDays: 60,
      now: NOW,
    });
    expect(model.meshes.map((x) => x.mesh).sort()).toEqual([...MESH_NAMES].sort());
    const w = model.manifestWorkloads.find((x) => x.kind === 'CronJob')!;
    expect(w.ref).toEqual({ kind: 'CronJob', namespace: 'meshdoctor', name: 'meshdoctor' });
    return Object.fromEntries(model.decisions(w).map((d) => [d.mesh, d.inject]));
  }

  it('in a namespace every mesh injects by default', async () => {
    expect(await decisions()).toEqual({ linkerd: false, istio: false, kuma: false, consul: false });
  });

  it('the control: the same template without its opt-outs is injected by all four', async () => {
    const stripped = await decisions((objects) => {
      const t = (objects.find((o) => o.kind === 'CronJob') as any).spec.jobTemplate.spec.template;
      t.metadata.labels = { 'app.kubernetes.io/name': 'meshdoctor' };
      t.metadata.annotations = {};
    });
    expect(stripped).toEqual({ linkerd: true, istio: true, kuma: true, consul: true });
  });
});

describe('the RBAC files', () => {
  const clusterRbac = parseObjects(read('deploy/rbac.yaml')) as any[];
  const yamlIn = (dir: string) =>
    readdirSync(join(ROOT, dir))
      .filter((f) => f.endsWith('.yaml'))
      .sort();
  const meshFiles = yamlIn('deploy/mesh-rbac');
  const secretFiles = yamlIn('deploy/mesh-rbac/secrets');
  const meshRbac = meshFiles.flatMap((f) => parseObjects(read(`deploy/mesh-rbac/${f}`))) as any[];
  const secretRbac = secretFiles.flatMap((f) => parseObjects(read(`deploy/mesh-rbac/secrets/${f}`))) as any[];
  const rules = (o: any) =>
    o.rules as { apiGroups: string[]; resources: string[]; resourceNames?: string[]; verbs: string[] }[];

  it('one file per mesh (and one opt-in file per mesh whose checks read a Secret), each a Role and its RoleBinding to the CronJob ServiceAccount in that mesh namespace', () => {
    expect(meshFiles).toEqual(MESH_NAMES.map((m) => `${m}.yaml`).sort());
    expect(secretFiles).toEqual(['consul.yaml', 'kuma.yaml', 'linkerd.yaml']);
    for (const f of [...meshFiles, ...secretFiles.map((x) => `secrets/${x}`)]) {
      const docs = parseObjects(read(`deploy/mesh-rbac/${f}`)) as any[];
      expect(docs.map((d) => d.kind)).toEqual(['Role', 'RoleBinding']);
      const [role, binding] = docs;
      expect(binding.metadata.namespace).toBe(role.metadata.namespace);
      expect(binding.roleRef).toEqual({
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'Role',
        name: role.metadata.name,
      });
      expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'meshdoctor', namespace: 'meshdoctor' }]);
    }
    // The opt-in Roles and bindings have names of their own: applied beside the default, they replace nothing.
    for (const o of secretRbac)
      expect(meshRbac.some((d) => d.kind === o.kind && d.metadata.name === o.metadata.name)).toBe(false);
  });

  it('no ClusterRole names ConfigMaps or Secrets; the default Roles no Secret; every Role rule is a get (and watch) by name', () => {
    for (const r of clusterRbac.filter((o) => o.kind === 'ClusterRole').flatMap(rules)) {
      if (!r.resources) {
        // The one rule for a URL that is no resource: GET /metrics of the API server.
        expect(r).toEqual({ nonResourceURLs: ['/metrics'], verbs: ['get'] });
        continue;
      }
      expect(r.resources).not.toContain('secrets');
      expect(r.resources).not.toContain('configmaps');
      expect(r.resources).not.toContain('*');
    }
    for (const r of meshRbac.filter((o) => o.kind === 'Role').flatMap(rules))
      expect(r.resources).not.toContain('secrets');
    for (const r of secretRbac.filter((o) => o.kind === 'Role').flatMap(rules))
      expect(r.resources).toEqual(['secrets']);
    for (const r of [...meshRbac, ...secretRbac].filter((o) => o.kind === 'Role').flatMap(rules)) {
      // get, and watch (meshdoctor watch follows each object by name): nothing that lists or writes
      expect(r.verbs).toEqual(['get', 'watch']);
      expect(r.resourceNames?.length).toBeGreaterThan(0);
    }
  });

  it("the Roles grant exactly the named objects meshdoctor fetches in each mesh's usual namespace (Secrets: the opt-in files), and the ClusterRole every kind it lists", () => {
    const namespaces = ['linkerd', 'istio-system', 'kuma-system', 'consul'].map((n) => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: n },
    }));
    const hooks = baseObjects('linkerd+istio+kuma+consul' as never).filter(
      (o) => o.kind === 'MutatingWebhookConfiguration',
    );
    const fetched = namedObjects(namespaces, hooks).map((r) => `${r.namespace} ${r.key}/${r.name}`);
    const granted = (objects: any[]) =>
      objects
        .filter((o) => o.kind === 'Role')
        .flatMap((o) =>
          rules(o).flatMap((r) =>
            r.resources.flatMap((res) => r.resourceNames!.map((n) => `${o.metadata.namespace} ${res}/${n}`)),
          ),
        );
    expect(granted(meshRbac).sort()).toEqual([...new Set(fetched.filter((f) => !f.includes(' secrets/')))].sort());
    expect(granted(secretRbac).sort()).toEqual([...new Set(fetched.filter((f) => f.includes(' secrets/')))].sort());
    expect(fetched.some((f) => f.includes('secrets/istio-ca-secret'))).toBe(false);
    const listed = new Set(
      clusterRbac.find((o) => o.metadata.name === 'meshdoctor-reader').rules.flatMap((r: any) => r.resources),
    );
    for (const k of Object.values(KINDS)) expect(listed.has(k.plural), k.plural).toBe(!k.byName);
  });

  it('the CronJob and the watch read no Secret (--no-secrets), as the default Roles grant none', () => {
    expect(podTemplate().spec.containers[0].args).toContain('--no-secrets');
    const watch = parseObjects(read('deploy/watch.yaml')).find((o) => o.kind === 'Deployment') as any;
    expect(watch.spec.template.spec.containers[0].args).toContain('--no-secrets');
  });
});

/**
 * Pod Security Admission's restricted profile (kubernetes/kubernetes v1.32
 * staging/src/k8s.io/pod-security-admission/policy: check_runAsNonRoot.go, check_seccompProfile_restricted.go,
 * check_capabilities_restricted.go, check_allowPrivilegeEscalation.go, and the baseline checks
 * the restricted level includes): what meshdoctor's pods must hold in a namespace that enforces it.
 * The real API server admits them too (test/deploy-rbac.test.ts).
 */
describe('the deploy namespace enforces Pod Security restricted, and the pods meet it', () => {
  const templates = () => [
    { file: 'deploy/cronjob.yaml', spec: podTemplate().spec },
    {
      file: 'deploy/watch.yaml',
      spec: (parseObjects(read('deploy/watch.yaml')).find((o) => o.kind === 'Deployment') as any).spec.template.spec,
    },
  ];

  it('the Namespace of both files is labelled enforce: restricted', () => {
    for (const file of ['deploy/cronjob.yaml', 'deploy/watch.yaml']) {
      const ns = parseObjects(read(file)).find((o) => o.kind === 'Namespace') as any;
      expect(ns.metadata.labels['pod-security.kubernetes.io/enforce'], file).toBe('restricted');
    }
  });

  it('runAsNonRoot, seccomp RuntimeDefault, every capability dropped, no privilege escalation, no host namespaces', () => {
    for (const { file, spec } of templates()) {
      expect(spec.securityContext.runAsNonRoot, file).toBe(true);
      expect(spec.securityContext.seccompProfile, file).toEqual({ type: 'RuntimeDefault' });
      expect(spec.hostNetwork ?? false, file).toBe(false);
      expect(spec.hostPID ?? false, file).toBe(false);
      expect(spec.hostIPC ?? false, file).toBe(false);
      for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
        expect(c.securityContext.allowPrivilegeEscalation, file).toBe(false);
        expect(c.securityContext.capabilities.drop, file).toEqual(['ALL']);
        expect(c.securityContext.capabilities.add ?? [], file).toEqual([]);
        expect(c.securityContext.privileged ?? false, file).toBe(false);
        expect(c.securityContext.runAsUser ?? spec.securityContext.runAsUser, file).not.toBe(0);
      }
      // restricted allows only these volume types: the pods use emptyDir and the projected token.
      for (const v of spec.volumes ?? [])
        expect(
          Object.keys(v).filter((k) => k !== 'name'),
          file,
        ).toEqual(['emptyDir']);
    }
  });
});
