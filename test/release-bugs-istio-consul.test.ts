/**
 * Every pod-symptom row of Istio's and Consul's known-bug tables (src/mesh/<mesh>/release-bugs.ts, releases.ts `bugs`),
 * derived into clusters (gen12bugs2): a pod injected by the last affected release that shows the row's symptom and
 * every trigger is named by known-release-bug with the row's id and fix release; the same pod at the fixing release,
 * and at the affected release without its triggers, is not. Workload and injector rows have hand fixtures
 * (test/fixtures/checks/known-release-bug/).
 */
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { allBugs } from '../src/mesh/releases.js';
import type { BugTrigger, KnownBug } from '../src/mesh/release-table.js';
import { profileOf } from '../src/mesh/registry.js';
import { cluster, findings } from './helpers/fixtures.js';

type PodSymptom = Extract<KnownBug['symptom'], { on: 'pod' }>;

/** Annotation values tried in turn against a trigger's `matches`: the first that matches is the pod's. */
const VALUES = ['600s', '1m', '', '8080', 'true', 'web,web-admin'];

/** A container name of a row ("consul-dataplane-*" names consul-dataplane-<service>): one container it names. */
const one = (name: string) => (name.endsWith('*') ? `${name.slice(0, -1)}svc` : name);

const MESHES = [
  {
    mesh: 'istio',
    base: 'istio',
    ns: { 'istio-injection': 'enabled' },
    podAnnotations: { 'sidecar.istio.io/status': '{"initContainers":["istio-init"],"containers":["istio-proxy"]}' },
    proxy: { name: 'istio-proxy', image: 'docker.io/istio/proxyv2' },
  },
  {
    mesh: 'consul',
    base: 'consul',
    ns: {},
    podAnnotations: { 'consul.hashicorp.com/connect-inject-status': 'injected' },
    proxy: { name: 'consul-dataplane', image: 'hashicorp/consul-dataplane' },
  },
] as const;

function podCluster(m: (typeof MESHES)[number], bug: KnownBug, version: string, triggers: boolean, n: number) {
  const s = bug.symptom as PodSymptom;
  const ns = `bugs-${m.mesh}-${n}`;
  const name = 'app';
  const labels = { app: name };
  const byName = new Map<string, Record<string, any>>();
  const container = (cname: string) => {
    const c = byName.get(cname) ?? { name: cname, image: 'example/app:1.0' };
    byName.set(cname, c);
    return c;
  };
  container(name);
  // What tells the injecting release: the proxy's image, or the container the row reads it from.
  container(s.versionFrom ? one(s.versionFrom) : m.proxy.name).image =
    `${s.versionFrom ? 'example/injected' : m.proxy.image}:${version}`;
  const annotations: Record<string, string> = { ...m.podAnnotations };
  const extra: unknown[] = [];
  const when: readonly BugTrigger[] = s.when ? (Array.isArray(s.when) ? s.when : [s.when as BugTrigger]) : [];
  for (const t of triggers ? when : []) {
    if (t === 'headless-service')
      extra.push({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: `${name}-headless`, namespace: ns, uid: `svc-${ns}-g12b2` },
        spec: { clusterIP: 'None', selector: labels, ports: [{ port: 80 }] },
      });
    else if (t === 'first-container-without-ports')
      container('metrics').ports = [{ containerPort: 9090, name: 'metrics' }];
    else if ('annotation' in t)
      annotations[t.annotation] = VALUES.find((v) => t.matches === undefined || new RegExp(t.matches).test(v)) ?? 'x';
    else if ('container' in t) {
      const c = container(one(t.container));
      c.args = [...(c.args ?? []), t.holds];
    }
  }
  const failing = one('container' in s ? String(s.container) : '');
  container(failing);
  const status =
    s.shows === 'waiting'
      ? {
          name: failing,
          ready: false,
          restartCount: 3,
          state: { waiting: { reason: typeof s.reason === 'string' ? s.reason : s.reason[0], message: s.message } },
        }
      : {
          name: failing,
          ready: false,
          restartCount: 3,
          state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container' } },
          lastState: {
            terminated: {
              reason: s.reason,
              exitCode: 1,
              ...(s.message !== undefined ? { message: s.message } : {}),
              // A run as long as the row asks (a crash of a serving proxy).
              ...('afterRunning' in s && s.afterRunning !== undefined
                ? {
                    startedAt: '2026-11-22T10:01:00Z',
                    finishedAt: new Date(Date.parse('2026-11-22T10:01:00Z') + s.afterRunning * 1000).toISOString(),
                  }
                : {}),
            },
          },
        };
  const all = [...byName.values()];
  const isInit = (c: Record<string, any>) => /init/.test(String(c.name));
  const spec = { initContainers: all.filter(isInit), containers: all.filter((c) => !isInit(c)) };
  const objects = [
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns, uid: `ns-${ns}-g12b2`, labels: { 'kubernetes.io/metadata.name': ns, ...m.ns } },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: ns, uid: `dep-${ns}-g12b2`, generation: 1 },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name, image: 'example/app:1.0' }] } },
      },
      status: { replicas: 1, unavailableReplicas: 1, observedGeneration: 1 },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${name}-5d8f7c9b6`,
        namespace: ns,
        uid: `rs-${ns}-g12b2`,
        labels: { ...labels, 'pod-template-hash': '5d8f7c9b6' },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'Deployment', name, uid: `dep-${ns}-g12b2`, controller: true },
        ],
      },
      spec: { replicas: 1 },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${name}-5d8f7c9b6-k2m4p`,
        namespace: ns,
        uid: `pod-${ns}-g12b2`,
        creationTimestamp: '2026-11-22T10:00:00Z',
        labels: { ...labels, 'pod-template-hash': '5d8f7c9b6' },
        annotations,
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: `${name}-5d8f7c9b6`,
            uid: `rs-${ns}-g12b2`,
            controller: true,
          },
        ],
      },
      spec,
      status: {
        phase: 'Running',
        containerStatuses: [
          status,
          ...spec.containers
            .filter((c) => c.name !== failing)
            .map((c) => ({ name: c.name, ready: true, restartCount: 0, state: { running: {} } })),
        ],
      },
    },
    ...extra,
  ];
  return cluster(m.base as 'istio' | 'consul', [`${objects.map((o) => YAML.stringify(o)).join('---\n')}\n`]);
}

const named = (fs: ReturnType<typeof findings>, bug: KnownBug) =>
  fs.filter((f) => f.message.includes(bug.id) && f.message.includes(`Fixed in`) && f.message.includes(bug.fixedIn));

for (const m of MESHES) {
  const bugs = allBugs(profileOf(m.mesh).versions?.releases).filter((b) => b.symptom.on === 'pod');
  describe(`known ${m.mesh} bugs of a pod, every row`, () => {
    it('has rows', () => expect(bugs.length).toBeGreaterThan(0));
    bugs.forEach((bug, i) => {
      it(`${bug.id} ${bug.affected.from}-${bug.affected.to}: named at ${bug.affected.to}, not at ${bug.fixedIn} nor without its triggers`, () => {
        const fires = findings(podCluster(m, bug, bug.affected.to, true, i), ['known-release-bug']);
        expect(named(fires, bug), fires.map((f) => f.message).join('\n')).toHaveLength(1);
        const fixed = findings(podCluster(m, bug, bug.fixedIn, true, i), ['known-release-bug']);
        expect(named(fixed, bug)).toEqual([]);
        if ((bug.symptom as PodSymptom).when) {
          const bare = findings(podCluster(m, bug, bug.affected.to, false, i), ['known-release-bug']);
          expect(named(bare, bug)).toEqual([]);
        }
      });
    });
  });
}
