/**
 * Each mesh's releases as data (src/mesh/<mesh>/releases.ts) and the one function that reads them
 * (src/mesh/releases.ts releaseFacts): every row and key names releases of its table and a source;
 * versions are placed by the mesh's own reading, its edge channel and its distributions; a version
 * outside every table is named, never judged by today's rules.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from './helpers/fixtures.js';
import { PROFILE_LIST, profileOf } from '../src/mesh/registry.js';
import { knownBugs, readingOf, releaseFacts, unknownKey } from '../src/mesh/releases.js';
import { releaseNotes } from '../src/run/release-notes.js';

const read = (version: string, from = `container x image example/x:${version}`) => ({ version, from });

describe('release tables', () => {
  for (const p of PROFILE_LIST) {
    const t = p.versions?.releases;
    it(`${p.name}: has a table whose rows and keys name its releases, with sources`, () => {
      expect(t).toBeDefined();
      const order = t!.order;
      expect(new Set(order).size).toBe(order.length);
      for (const r of t!.rows) {
        expect(order).toContain(r.from);
        if (r.to !== undefined) {
          expect(order).toContain(r.to);
          expect(order.indexOf(r.from)).toBeLessThanOrEqual(order.indexOf(r.to));
        }
        // a commit, a tag (stable-2.14.0, v2.14.0, 1.5.0) or a release branch: a pinned reference
        expect(r.source).toMatch(/@[0-9a-f]{8}|@[a-z]|@\d+\.\d+\.\d+/);
      }
      expect(t!.keys.length).toBeGreaterThan(20);
      for (const k of t!.keys) {
        expect(order, k.key).toContain(k.from);
        if (k.to) expect(order.indexOf(k.to)).toBeGreaterThanOrEqual(order.indexOf(k.from));
      }
      expect(t!.keySource).toMatch(/@[0-9a-f]{8}/);
      // The newest release of the table knows every marker today's profile reads.
      const newest = releaseFacts(p, read(order[order.length - 1]!.replace(/^edge$/, 'edge-26.8.3')));
      for (const k of [...p.markers.template, ...p.markers.namespace]) {
        if (k.key.includes('/') && (t!.domains.includes(k.key.split('/')[0]!) || k.key.includes('.sidecar.')))
          expect(newest?.known.has(k.key), k.key).toBe(true);
      }
    });
  }
});

describe('releaseFacts', () => {
  it('Kuma 1.x still reads the annotation kuma.io/sidecar-injection; 2.2 and later do not', () => {
    const old = releaseFacts(profileOf('kuma'), read('1.8.1'));
    expect(old?.release).toBe('1.8');
    expect(old?.reads).toContainEqual({ field: 'annotations', key: 'kuma.io/sidecar-injection', on: 'namespace' });
    expect(releaseFacts(profileOf('kuma'), read('2.14.3'))?.reads).toEqual([]);
  });

  it('consul-k8s: 0.x container names by release, and the injector RBAC of each', () => {
    const c = profileOf('consul');
    expect(releaseFacts(c, read('0.20.0'))?.containers?.proxy).toEqual(['consul-connect-envoy-sidecar']);
    expect(releaseFacts(c, read('0.25.0'))?.containers?.proxy).toEqual(['envoy-sidecar']);
    expect(releaseFacts(c, read('0.25.0'))?.injectorRbac).toEqual([]);
    expect(releaseFacts(c, read('0.33.0'))?.injectorRbac).toBe('today');
    expect(releaseFacts(c, read('1.9.0'))?.containers).toBeUndefined();
  });

  it('Linkerd edge builds belong to the release whose edge tag they follow', () => {
    const l = profileOf('linkerd');
    expect(releaseFacts(l, read('edge-24.2.4'))?.release).toBe('2.15');
    expect(releaseFacts(l, read('edge-24.9.1'))?.release).toBe('2.16');
    expect(releaseFacts(l, read('edge-25.10.7'))?.release).toBe('2.19');
    expect(releaseFacts(l, read('edge-26.1.1'))?.release).toBe('edge');
    // version-2.20 is edge-26.6.3 and one commit (linkerd/linkerd2@eadc1acf): a release row and a channel row.
    expect(releaseFacts(l, read('edge-26.6.3'))?.release).toBe('2.20');
    expect(releaseFacts(l, read('edge-26.6.3'))?.known.has('config.linkerd.io/init-image')).toBe(false);
    expect(releaseFacts(l, read('edge-26.8.3'))?.release).toBe('edge');
    expect(releaseFacts(l, read('stable-2.10.2'))?.release).toBe('2.10');
    // Before the first covered release: named, not judged.
    expect(releaseFacts(l, read('stable-2.9.4'))?.outside).toContain('outside the releases');
    expect(releaseFacts(l, read('edge-21.1.1'))?.outside).toContain('outside the releases');
  });

  it("Linkerd's Kubernetes support places the exact edge build of each release, from the table's channel rows (no second list)", () => {
    const v = profileOf('linkerd').versions!;
    for (const c of v.releases!.channels!) expect(v.release(`${c.prefix}${c.from.join('.')}`)).toBe(c.release);
    expect(v.release('edge-24.8.3')).toBeUndefined(); // a later build of 2.16: its support is not examined
    expect(v.release('stable-2.14.10')).toBe('2.14');
  });

  it("Istio: the standalone injector's build, OpenShift Service Mesh versions, releases past the table", () => {
    const i = profileOf('istio');
    const standalone = releaseFacts(
      i,
      read('1.5.10', 'Deployment istio-system/istio-sidecar-injector runs docker.io/istio/sidecar_injector:1.5.10'),
    );
    expect(standalone?.release).toBe('1.5');
    expect(standalone?.injectorRbac).toEqual([]);
    // Istio 1.5's istiod: its istio-discovery chart's rules (patch, no update), by its own names, not today's.
    const istiod15 = releaseFacts(i, read('1.5.10', 'runs docker.io/istio/pilot:1.5.10'));
    expect(istiod15?.injectorRbac).toEqual([
      expect.objectContaining({ resource: 'mutatingwebhookconfigurations', verbs: ['get', 'list', 'watch', 'patch'] }),
      expect.objectContaining({ resource: 'configmaps' }),
    ]);
    expect(istiod15?.injectorRbacNames).toEqual({
      clusterRole: 'istiod-<namespace>',
      clusterRoleBinding: 'istiod-<namespace>',
    });
    const ossm2 = releaseFacts(i, read('2.4.3', 'runs registry.redhat.io/openshift-service-mesh/pilot-rhel8:2.4.3'));
    expect(ossm2?.release).toBe('1.16');
    expect(ossm2?.text).toContain('OpenShift Service Mesh 2.4.3');
    // Its own chart grants istiod no admissionregistration rule, by a RoleBinding: none judged (test/fixtures/healthy/istio-ossm-2.*.yaml).
    expect(ossm2?.injectorRbac).toEqual([]);
    const ossm1 = releaseFacts(
      i,
      read('1.1.18', 'runs registry.redhat.io/openshift-service-mesh/sidecar-injector-rhel8:1.1.18'),
    );
    expect(ossm1?.release).toBeUndefined();
    expect(ossm1?.outside).toContain('OpenShift Service Mesh 1.1.18');
    const newer = releaseFacts(i, read('1.31.0'));
    expect(newer?.release).toBe('1.30');
    expect(newer?.text).toContain('newer than the tables: judged as Istio 1.30');
    expect(releaseFacts(i, undefined)).toBeUndefined();
  });

  it("Istio's reading of sidecar.istio.io/inject is a row of its table: loose before 1.27, exact from 1.27, the nearest row outside them", () => {
    const t = profileOf('istio').versions!.releases!;
    const key = 'sidecar.istio.io/inject';
    expect(readingOf(t, key, '1.26.3')?.otherwise).toBe('skip');
    expect(readingOf(t, key, '1.27.0')?.otherwise).toBe('invalid');
    expect(readingOf(t, key, '1.4.6')?.otherwise).toBe('skip');
    expect(readingOf(t, key, '1.31.0')?.otherwise).toBe('invalid');
    expect(readingOf(t, 'istio.io/rev', '1.27.0')).toBeUndefined();
    // `meshdoctor checks ID` says which releases each reading applies to, from the same rows.
    const notes = releaseNotes('injection-marker-invalid', [profileOf('istio')])[0]!.lines;
    expect(notes).toContainEqual(
      expect.stringMatching(/^1\.5 to 1\.26: sidecar\.istio\.io\/inject: y, yes, true, on inject/),
    );
    expect(notes).toContainEqual(
      expect.stringMatching(/^1\.27 and later: sidecar\.istio\.io\/inject: true injects, false opts out/),
    );
  });

  it('Istio: the healthy clusters of the oldest and newest release of each range are placed by the table (each gives zero findings: test/meta.test.ts)', () => {
    const i = profileOf('istio');
    const image = (base: string, re: RegExp) =>
      re.exec(readFileSync(join(FIXTURES, 'healthy', `${base}.yaml`), 'utf8'))![0];
    const placed = (base: string, re: RegExp) => {
      const img = image(base, re);
      return releaseFacts(i, read(/:([\d.]+)$/.exec(img)![1]!, `runs ${img}`));
    };
    expect(placed('istio-1.5', /docker\.io\/istio\/sidecar_injector:[\d.]+/)?.release).toBe('1.5');
    expect(placed('istio-1.6', /docker\.io\/istio\/pilot:[\d.]+/)?.release).toBe('1.6');
    expect(placed('istio-1.28', /docker\.io\/istio\/pilot:[\d.]+/)?.release).toBe('1.28');
    expect(placed('istio-ossm-1.1', /\S+sidecar-injector-rhel8:[\d.]+/)?.outside).toContain(
      'OpenShift Service Mesh 1.1.18',
    );
    expect(placed('istio-ossm-2.0', /\S+pilot-rhel8:[\d.]+/)?.release).toBe('1.6');
    expect(placed('istio-ossm-2.5', /\S+pilot-rhel8:[\d.]+/)?.release).toBe('1.18');
    // 1.6 to 1.10: the base chart's ClusterRole, without update on mutatingwebhookconfigurations (1.6.14).
    expect(placed('istio-1.6', /docker\.io\/istio\/pilot:[\d.]+/)?.injectorRbac).toContainEqual(
      expect.objectContaining({ resource: 'mutatingwebhookconfigurations', verbs: ['get', 'list', 'watch', 'patch'] }),
    );
    expect(placed('istio-1.28', /docker\.io\/istio\/pilot:[\d.]+/)?.injectorRbac).toBe('today');
  });

  it('Linkerd, Kuma, consul-k8s: the healthy clusters at the ends of each range are placed by the table (each gives zero findings: test/meta.test.ts)', () => {
    const placed = (mesh: 'linkerd' | 'kuma' | 'consul', base: string, re: RegExp) => {
      const img = re.exec(readFileSync(join(FIXTURES, 'healthy', `${base}.yaml`), 'utf8'))![0];
      return releaseFacts(profileOf(mesh), read(/:v?([\w.-]+)$/.exec(img)![1]!, `runs ${img}`));
    };
    const controller = /(?<=image: )cr\.l5d\.io\/linkerd\/controller:[\w.-]*\d/;
    expect(placed('linkerd', 'linkerd-stable-2.10', controller)?.release).toBe('2.10');
    expect(placed('linkerd', 'linkerd', controller)?.release).toBe('2.14');
    expect(placed('linkerd', 'linkerd-2.20', controller)?.release).toBe('2.20');
    expect(placed('linkerd', 'linkerd-edge', controller)?.release).toBe('edge');
    const cp = /(?<=image: )\S+\/kuma-cp:[\d.]*\d/;
    expect(placed('kuma', 'kuma-1.0', cp)?.release).toBe('1.0');
    expect(placed('kuma', 'kuma-1.0', cp)?.reads).toContainEqual({
      field: 'annotations',
      key: 'kuma.io/sidecar-injection',
      on: 'namespace',
    });
    expect(placed('kuma', 'kuma-1.x', cp)?.release).toBe('1.8');
    expect(placed('kuma', 'kuma', cp)?.release).toBe('2.14');
    const injector = /(?<=image: )hashicorp\/consul-k8s(-control-plane)?:[\d.]*\d/;
    const oldest = placed('consul', 'consul-0.2', injector);
    expect(oldest?.release).toBe('0.2');
    expect(oldest?.containers?.proxy).toEqual(['consul-connect-envoy-sidecar']);
    expect(oldest?.injectorRbac).toEqual([]);
    expect(placed('consul', 'consul-0.x', injector)?.release).toBe('0.25');
    expect(placed('consul', 'consul', injector)?.release).toBe('2.0');
  });

  it('unknownKey: typos, removed keys, later keys, other domains', () => {
    const k = profileOf('kuma');
    const t = k.versions!.releases!;
    const f = releaseFacts(k, read('2.14.0'))!;
    expect(unknownKey(t, f.known, f.release, 'kuma.io/sidecar-injection')).toBeUndefined();
    expect(unknownKey(t, f.known, f.release, 'kuma.io/sidecar-injected')).toBeUndefined(); // written by Kuma
    expect(unknownKey(t, f.known, f.release, 'app.kubernetes.io/name')).toBeUndefined();
    expect(unknownKey(t, f.known, f.release, 'kuma.io/sidecar-injecton')).toMatchObject({
      nearest: ['kuma.io/sidecar-injection'],
      laterOnly: false,
    });
    expect(unknownKey(t, f.known, f.release, 'kuma.io/builtindns')).toMatchObject({ knownIn: '1.2 to 2.1' });
    const old = releaseFacts(k, read('1.3.0'))!;
    expect(unknownKey(t, old.known, old.release, 'kuma.io/workload')).toMatchObject({ laterOnly: true });
  });

  it('unknownKey: a word left out or another prefix of the domain (linkerd/linkerd2#13205), and no guess from unrelated words', () => {
    const l = profileOf('linkerd');
    const t = l.versions!.releases!;
    const f = releaseFacts(l, { version: 'edge-24.10.1', from: 'image cr.l5d.io/linkerd/controller:edge-24.10.1' })!;
    expect(unknownKey(t, f.known, f.release, 'config.linkerd.io/proxy-native-sidecar')).toMatchObject({
      nearest: ['config.alpha.linkerd.io/proxy-enable-native-sidecar'],
    });
    expect(unknownKey(t, f.known, f.release, 'config.linkerd.io/frobnicate-widgets')).toMatchObject({ nearest: [] });
  });
});

describe('releases older than the tables (issue 31.7)', () => {
  it('are named once as outside, and their known bugs are still known', () => {
    const istio = profileOf('istio');
    expect(releaseFacts(istio, read('1.0.3'))?.outside).toContain('outside the releases');
    expect(knownBugs(istio, read('1.0.3'), 'workload').map((b) => b.id)).toEqual(['istio/istio#9571']);
    expect(knownBugs(istio, read('1.0.4'), 'workload')).toEqual([]);
    const kuma = profileOf('kuma');
    expect(knownBugs(kuma, read('0.3.2'), 'pod').map((b) => b.id)).toEqual(['kumahq/kuma#561']);
    expect(knownBugs(kuma, read('0.5.1'), 'pod').map((b) => b.id)).not.toContain('kumahq/kuma#561');
  });
});
