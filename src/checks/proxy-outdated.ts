/**
 * proxy-outdated — a workload's pods run an older proxy than the one its mesh's injector injects
 * now: they were created before the control plane was upgraded, and only a new pod gets the new
 * proxy (`linkerd check --proxy`, but per workload and for every mesh).
 *
 * Why: injection happens only when a pod is created, so an upgrade of the control plane leaves
 * every running proxy at its old version until its workload is restarted. Each mesh supports a
 * bounded skew (the profile's `versions.skew`, with its source): Linkerd and Istio one release,
 * Kuma two. Past it the proxies may not understand the control plane's configuration.
 * When: the workload's next pod would be injected by one injector of the mesh, the version that
 * injector injects is read (its proxy image, from the profile), and active pods run an older
 * proxy (their proxy image's tag, or the mesh's version annotation). Versions that do not order
 * (Linkerd's edge and stable builds), digests and custom tags are not compared. An error when the
 * pods trail by more releases than the mesh supports, else a warning.
 * Known false positives: a proxy image pinned on purpose by a pod annotation (Linkerd
 * `config.linkerd.io/proxy-version`, Istio `sidecar.istio.io/proxyImage`): the restart keeps it.
 * Fix: restart the workload, so that its pods are injected again with the current proxy.
 */
import { recreateCommands } from '../fix/commands.js';
import { proxySkew } from '../facts/versions.js';
import { profileOf } from '../mesh/registry.js';
import { plural } from '../util/objects.js';
import { defineCheck, meta } from './define.js';

export default defineCheck({
  ...meta('proxy-outdated'),
  *run(m) {
    for (const w of m.appWorkloads) {
      for (const { mesh } of m.meshes) {
        const skew = proxySkew(m, w, mesh);
        if (!skew) continue;
        const p = profileOf(mesh);
        const allowed = p.versions?.skew;
        const beyond = allowed && skew.releasesBehind !== undefined && skew.releasesBehind > allowed.releases;
        const versions = [...new Set(skew.older.map((o) => o.version))].sort();
        const inj = skew.injector;
        yield {
          mesh,
          ...(beyond ? { severity: 'error' as const } : {}),
          message:
            `${plural(skew.older.length, 'pod')} of ${w.kind} ${w.namespace}/${w.name} ${skew.older.length === 1 ? 'runs' : 'run'} ${p.title} proxy ${versions.join(', ')}, ` +
            `older than the ${skew.expected.version} its injector ${inj.namespace}/${inj.name} injects now: created before the control plane was upgraded` +
            (beyond
              ? `, ${skew.releasesBehind} releases behind (${allowed.text}).`
              : '; a restart gives it the current one.'),
          resource: w.ref,
          affectedPods: skew.older.length,
          evidence: {
            injects: skew.expected,
            pods: skew.older,
            ...(skew.releasesBehind !== undefined ? { releasesBehind: skew.releasesBehind } : {}),
            ...(allowed ? { supportedSkew: { releases: allowed.releases, source: allowed.source } } : {}),
          },
          fix: recreateCommands(w),
        };
      }
    }
  },
});
