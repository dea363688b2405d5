/**
 * A release older than every table (issue 31.7, gen13bugs): each mesh's healthy cluster of its oldest covered release,
 * its mesh versions rewritten to a release before the tables' first row (Istio 1.3 and 1.1 before 1.5, Kuma 0.7 before
 * 1.0, consul-k8s 0.1 before 0.2, Linkerd stable-2.9 and 2.7 before 2.10), gives no finding at all: no rule that
 * belongs to other releases is applied to it, and no known bug is named where its symptom does not show. The tables
 * place it outside (releaseFacts `outside`, the one sentence the key notes quote), never as their nearest row.
 */
import { describe, expect, it } from 'vitest';
import { NOW, baseObjects, findings, snapshotFrom, type Base } from './helpers/fixtures.js';
import { Model } from '../src/facts/model.js';
import { injectors } from '../src/facts/controlplane.js';
import { profileOf } from '../src/mesh/registry.js';
import { releaseFacts } from '../src/mesh/releases.js';
import type { MeshName } from '../src/mesh/names.js';
import type { K8sObject } from '../src/util/types.js';

const CASES: { base: Base; mesh: MeshName; from: string; to: string }[] = [
  { base: 'istio-1.5', mesh: 'istio', from: '1.5.10', to: '1.3.8' },
  { base: 'istio-1.5', mesh: 'istio', from: '1.5.10', to: '1.1.17' },
  { base: 'kuma-1.0', mesh: 'kuma', from: '1.0.8', to: '0.7.3' },
  { base: 'consul-0.2', mesh: 'consul', from: '0.2.0', to: '0.1.0' },
  { base: 'linkerd-stable-2.10', mesh: 'linkerd', from: 'stable-2.10.2', to: 'stable-2.9.4' },
  { base: 'linkerd-stable-2.10', mesh: 'linkerd', from: 'stable-2.10.2', to: 'stable-2.7.1' },
];

/** The base with every mention of its release (image tags, version labels) turned into the older one. */
const olderCluster = (c: (typeof CASES)[number]) =>
  snapshotFrom(JSON.parse(JSON.stringify(baseObjects(c.base)).split(c.from).join(c.to)) as K8sObject[]);

describe('a release older than every table: no finding, placed outside the tables', () => {
  for (const c of CASES)
    it(`${c.mesh} ${c.to} (the ${c.base} cluster)`, () => {
      const snap = olderCluster(c);
      expect(findings(snap).map((f) => `${f.id}: ${f.message}`)).toEqual([]);
      // The injector's release is read as the older one, and the tables say it is outside them.
      const m = new Model({ snapshot: snap, now: NOW, options: { certExpiryWarningDays: 60, mesh: 'auto' } });
      const p = profileOf(c.mesh);
      const reads = injectors(m, c.mesh).flatMap((i) =>
        i.deployment ? [p.versions!.controlPlane(m, i.deployment)] : [],
      );
      expect(reads.map((r) => r?.version)).toContain(c.to);
      for (const r of reads) {
        const facts = releaseFacts(p, r);
        expect(facts?.outside).toContain('outside the releases');
        expect(facts?.release).toBeUndefined();
      }
    });
});
