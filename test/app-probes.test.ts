/**
 * The release tables' probe rows (src/mesh/<mesh>/probes.ts) read through src/mesh/app-probes.ts, derived from EVERY
 * row of every mesh (issue 31, gen12probes): for each probe kind and handler a row leaves alone, a pod of that
 * release whose probe points at the app's port is judged refused (and why: the release, the annotation turning the
 * rewrite off, the install's setting); the same probe rewritten to the row's port, on a port the row's exclude
 * annotation leaves out, or (Linkerd) under a policy that admits unauthenticated clients is not.
 */
import { describe, expect, it } from 'vitest';
import { MESH_NAMES } from '../src/mesh/names.js';
import { profileOf } from '../src/mesh/registry.js';
import { probesThroughProxy, type PodProbeHandling } from '../src/mesh/app-probes.js';
import type { ProbeHandler, ProbeKind } from '../src/mesh/release-table.js';
import type { K8sObject } from '../src/util/types.js';

const KINDS: ProbeKind[] = ['liveness', 'readiness', 'startup'];
const HANDLERS: Exclude<ProbeHandler, 'tcpSocket'>[] = ['httpGet', 'grpc'];

function podWith(kind: ProbeKind, handler: ProbeHandler, port: number, ann: Record<string, string> = {}): K8sObject {
  const probe = handler === 'httpGet' ? { httpGet: { path: '/health', port } } : { grpc: { port } };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'app-1', namespace: 'ns', annotations: ann },
    spec: { containers: [{ name: 'app', ports: [{ containerPort: 8080 }], [`${kind}Probe`]: probe }] },
  };
}

const rowsOf = (mesh: (typeof MESH_NAMES)[number]) =>
  (profileOf(mesh).versions?.releases?.rows ?? []).filter((r) => r.probes);

describe('the probe rows of every mesh and release', () => {
  it('every mesh has probe rows, with a source', () => {
    for (const mesh of MESH_NAMES) {
      expect(rowsOf(mesh).length, mesh).toBeGreaterThan(0);
      for (const r of rowsOf(mesh)) expect(r.source, `${mesh} ${r.from}`).toMatch(/\//);
    }
  });

  for (const mesh of MESH_NAMES)
    for (const row of rowsOf(mesh)) {
      const h = row.probes!;
      const ph: PodProbeHandling = {
        release: `${mesh} ${row.from}`,
        name: row.from,
        version: row.from,
        handling: h,
        source: row.source,
      };
      const p = profileOf(mesh);
      const refusing = h.unrewritten.refusing?.[0];
      const policy = h.unrewritten.policyAnnotation && refusing ? { [h.unrewritten.policyAnnotation]: refusing } : {};
      it(`${mesh} ${row.from}${row.to ? `-${row.to}` : '+'}: left alone fires, rewritten or excluded is silent`, () => {
        for (const kind of KINDS)
          for (const handler of HANDLERS) {
            const at = `${kind} ${handler}`;
            const alone = probesThroughProxy(p, podWith(kind, handler, 8080, policy), ph, undefined);
            const rewrites = h.rewrites && h.rewrites.handlers.includes(handler) && h.rewrites.kinds.includes(kind);
            const authorized = h.unrewritten.authorized?.handlers.includes(handler);
            if (h.unrewritten.refused === 'passes' || authorized) {
              expect(alone, at).toEqual([]);
              continue;
            }
            expect(
              alone.map((x) => x.why),
              at,
            ).toEqual([!h.rewrites ? 'no-rewrite' : rewrites ? 'setting' : 'release']);
            // The rewrite turned off by the pod's annotation.
            if (rewrites && h.rewrites!.annotation && h.rewrites!.off?.length) {
              const off = { ...policy, [h.rewrites!.annotation]: h.rewrites!.off[0]! };
              expect(
                probesThroughProxy(p, podWith(kind, handler, 8080, off), ph, undefined).map((x) => x.why),
                at,
              ).toEqual(['annotation']);
            }
            // Rewritten: the probe points at the row's own port.
            if (rewrites && handler === 'httpGet')
              expect(
                probesThroughProxy(p, podWith(kind, handler, h.rewrites!.port, policy), ph, undefined),
                at,
              ).toEqual([]);
            // The port left out of inbound capture.
            for (const key of h.exclude ?? [])
              expect(
                probesThroughProxy(p, podWith(kind, handler, 8080, { ...policy, [key]: '8080' }), ph, undefined),
                at,
              ).toEqual([]);
            // Linkerd: a policy read that admits unauthenticated clients.
            if (h.unrewritten.policyAnnotation)
              expect(
                probesThroughProxy(
                  p,
                  podWith(kind, handler, 8080, { [h.unrewritten.policyAnnotation]: 'all-unauthenticated' }),
                  ph,
                  undefined,
                ),
                at,
              ).toEqual([]);
          }
      });
    }
});

describe("the mesh's own containers are never the app's", () => {
  // Today's proxy name (the profile's) counts as well as every release's: a release table that lists no
  // container names (Istio's, Kuma's) must not make istio-proxy's or kuma-sidecar's own probe an app's.
  for (const mesh of MESH_NAMES) {
    const p = profileOf(mesh);
    const row = rowsOf(mesh).find((r) => r.probes!.unrewritten.refused !== 'passes');
    if (!row) continue;
    it(`${mesh}: a probe on ${p.containers.proxy} is not judged; the same probe on an app container is`, () => {
      const ph: PodProbeHandling = {
        release: `${mesh} ${row.from}`,
        name: row.from,
        version: row.from,
        handling: row.probes!,
        source: row.source,
      };
      const refusing = row.probes!.unrewritten.refusing?.[0];
      const pa = row.probes!.unrewritten.policyAnnotation;
      const ann = pa && refusing ? { [pa]: refusing } : {};
      let judged = 0;
      for (const kind of KINDS)
        for (const handler of HANDLERS) {
          const app = podWith(kind, handler, 8080, ann);
          const asApp = probesThroughProxy(p, app, ph, undefined);
          const own = structuredClone(app) as any;
          own.spec.containers[0].name = p.containers.proxy;
          expect(probesThroughProxy(p, own, ph, undefined), `${kind} ${handler}`).toEqual([]);
          // The control: where the row judges the app's probe refused, only the container's name differs.
          if (asApp.length) expect(asApp[0]!.probe.container).toBe('app');
          judged += asApp.length;
        }
      expect(judged).toBeGreaterThan(0);
    });
  }
});
