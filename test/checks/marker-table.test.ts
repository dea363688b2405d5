/**
 * The marker tables and the one engine reading them (src/mesh/marker-table.ts,
 * src/facts/marker-problems.ts): the mistakes made the same way with every mesh's markers are
 * found for every mesh, from its table alone.
 */
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { PROFILE_LIST } from '../../src/mesh/registry.js';
import * as table from '../../src/mesh/marker-table.js';
import { cluster, findings, ids } from '../helpers/fixtures.js';

const F = (file: string) => `checks/injection-marker-invalid/${file}`;
const run = (snap: ReturnType<typeof cluster>) => findings(snap, ['injection-marker-invalid']);
const byResource = (fs: ReturnType<typeof findings>, name: string) => fs.find((f) => f.resource.name === name)!;

describe('a marker where nothing reads it: the controller own metadata, a CronJob jobTemplate', () => {
  it('Istio: a label on the Deployment, a revision label on the Deployment, a label on the jobTemplate', () => {
    const fs = run(cluster('istio', [F('fires-istio-misplaced.yaml')]));
    expect(ids(fs).sort()).toEqual([
      'injection-marker-invalid CronJob plain/nightly',
      'injection-marker-invalid Deployment plain/ownlabel',
      'injection-marker-invalid Deployment plain/ownrev',
    ]);
    expect(byResource(fs, 'ownlabel').message).toBe(
      'Deployment plain/ownlabel has label sidecar.istio.io/inject=true on its own metadata, but Istio reads it only from the pod template, so its pods are not injected.',
    );
    expect(byResource(fs, 'ownlabel').fix).toEqual([
      `kubectl patch deployment/ownlabel -n plain --type=merge -p '{"spec":{"template":{"metadata":{"labels":{"sidecar.istio.io/inject":"true"}}}}}'`,
      'kubectl label deployment/ownlabel -n plain sidecar.istio.io/inject-',
    ]);
    // The revision moves as it is: it selects its revision's webhook on its own.
    expect(byResource(fs, 'ownrev').fix[0]).toBe(
      `kubectl patch deployment/ownrev -n plain --type=merge -p '{"spec":{"template":{"metadata":{"labels":{"istio.io/rev":"default"}}}}}'`,
    );
    expect(byResource(fs, 'nightly').message).toBe(
      'CronJob plain/nightly has label sidecar.istio.io/inject=true on spec.jobTemplate.metadata, which labels its Jobs, not their pods, so its pods are not injected.',
    );
    expect(byResource(fs, 'nightly').fix[1]).toBe(
      `kubectl patch cronjob/nightly -n plain --type=json -p '[{"op":"remove","path":"/spec/jobTemplate/metadata/labels/sidecar.istio.io~1inject"}]'`,
    );
  });

  it('Kuma: the fix adds the namespace label its pods webhook needs (2.11+), then the pod label', () => {
    const fs = run(cluster('kuma', [F('fires-kuma-misplaced.yaml')]));
    expect(ids(fs).sort()).toEqual([
      'injection-marker-invalid CronJob plain/nightly',
      'injection-marker-invalid Deployment plain/ownlabel',
    ]);
    const own = byResource(fs, 'ownlabel');
    expect(own.evidence).toMatchObject({ namespaceLabel: 'kuma.io/sidecar-injection=disabled' });
    expect(own.fix).toEqual([
      'kubectl label namespace plain kuma.io/sidecar-injection=disabled --overwrite',
      `kubectl patch deployment/ownlabel -n plain --type=merge -p '{"spec":{"template":{"metadata":{"labels":{"kuma.io/sidecar-injection":"enabled"}}}}}'`,
      'kubectl label deployment/ownlabel -n plain kuma.io/sidecar-injection-',
    ]);
  });

  it('Consul: the annotation on a CronJob jobTemplate', () => {
    const fs = run(cluster('consul', [F('fires-consul-misplaced.yaml')]));
    expect(ids(fs)).toEqual(['injection-marker-invalid CronJob batch/nightly']);
    expect(byResource(fs, 'nightly').message).toContain(
      'on spec.jobTemplate.metadata, which annotates its Jobs, not their pods',
    );
  });

  it('near misses: where the namespace enables the mesh, the template has its own marker, or the metadata opts out', () => {
    expect(ids(run(cluster('istio', [F('ok-istio-misplaced.yaml')])))).toEqual([]);
    expect(ids(run(cluster('kuma', [F('ok-kuma-misplaced.yaml')])))).toEqual([]);
  });

  it('every mesh, from its table alone: its `ask` marker on a Deployment own metadata in a namespace that does not enable it', () => {
    for (const p of PROFILE_LIST) {
      const { field, key, value } = p.markers.ask;
      const doc = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'plain', uid: 'dep-plain-web', [field]: { [key]: value } },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'x' }] } },
        },
      };
      const nsDoc = {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'plain', uid: 'ns-plain', labels: { 'kubernetes.io/metadata.name': 'plain' } },
      };
      const fs = run(cluster(p.name, [YAML.stringify(nsDoc) + '---\n' + YAML.stringify(doc)]));
      expect(ids(fs), p.name).toEqual(['injection-marker-invalid Deployment plain/web']);
      expect(fs[0]!.mesh).toBe(p.name);
      expect(fs[0]!.message, p.name).toContain(
        `${table.markerText(p.markers.ask, value)} on its own metadata, but ${p.title} reads it only from the pod template`,
      );
    }
  });
});

describe('marker tables: one reading for every mesh', () => {
  const template = (labels: Record<string, string>, annotations: Record<string, string> = {}) => ({
    metadata: { labels, annotations },
  });

  it("each mesh's ask reads as asking, its opt-out as an opt-out, and the two are the same key", () => {
    for (const p of PROFILE_LIST) {
      const t = p.markers;
      const put = (s: table.MarkerSetting) =>
        s.field === 'labels' ? template({ [s.key]: s.value }) : template({}, { [s.key]: s.value });
      expect(table.templateAsks(t, put(t.ask)), p.name).toBe(true);
      expect(table.templateOptOut(t, put(t.ask)), p.name).toBeUndefined();
      expect(table.templateOptOut(t, put(t.optOut)), p.name).toMatchObject({
        key: t.optOut.key,
        value: t.optOut.value,
      });
      expect(table.templateAsks(t, put(t.optOut)), p.name).toBe(false);
      expect(table.templateAsking(t, put(t.ask)), p.name).toBe(table.markerText(t.ask, t.ask.value));
    }
  });

  it('the precedence of the table: Istio label over annotation; Istio revision selects alone, not the annotation', () => {
    const istio = PROFILE_LIST.find((p) => p.name === 'istio')!.markers;
    expect(
      table.templateOptOut(
        istio,
        template({ 'sidecar.istio.io/inject': 'false' }, { 'sidecar.istio.io/inject': 'true' }),
      ),
    ).toMatchObject({
      from: 'label',
    });
    expect(table.templateAsks(istio, template({}, { 'sidecar.istio.io/inject': 'true' }))).toBe(false);
    expect(
      table.templateAsks(istio, template({ 'istio.io/rev': 'canary' }, { 'sidecar.istio.io/inject': 'true' })),
    ).toBe(true);
    expect(
      table.namespaceMarker(istio, template({ 'istio-injection': 'disabled', 'istio.io/rev': 'canary' }) as never),
    ).toEqual({
      enabled: false,
      present: true,
      text: 'label istio-injection=disabled',
    });
  });

  it('a stray key makes a namespace marker present but not enabling (Linkerd label, Kuma annotation)', () => {
    const linkerd = PROFILE_LIST.find((p) => p.name === 'linkerd')!.markers;
    const kuma = PROFILE_LIST.find((p) => p.name === 'kuma')!.markers;
    expect(table.namespaceMarker(linkerd, template({ 'linkerd.io/inject': 'enabled' }) as never)).toEqual({
      enabled: false,
      present: true,
    });
    expect(table.namespaceMarker(kuma, template({}, { 'kuma.io/sidecar-injection': 'enabled' }) as never)).toEqual({
      enabled: false,
      present: true,
    });
    expect(table.namespaceMarker(kuma, template({}) as never)).toEqual({ enabled: false, present: false });
  });
});
