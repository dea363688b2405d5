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
 * pods trail by more releases than the mesh supports, else a warning. Also (issue 31, gen9skew) pods
 * running a NEWER proxy than the injector injects, by more releases than the mesh lets a data plane
 * lead (the skew's `ahead`: Istio none, Linkerd one, Kuma two; a mesh without one is not judged): an
 * error. A proxy pinned by a pod template annotation (the profile's `versions.pins`: Linkerd
 * `config.linkerd.io/proxy-version` and `proxy-image`, Istio `sidecar.istio.io/proxyImage`) is said
 * to be pinned: a restart keeps the pin.
 * Fix: restart the workload, so that its pods are injected again with the current proxy; where a
 * pin holds the proxy back (or ahead), remove the pin from the pod template.
 */
import { recreateCommands, removeFromTemplate } from '../fix/commands.js';
import type { Step } from '../fix/steps.js';
import { cmd, comment } from '../fix/steps.js';
import { injectors, WEBHOOK_TARGETS } from '../facts/controlplane.js';
import { proxySkew } from '../facts/versions.js';
import { profileOf } from '../mesh/registry.js';
import { plural } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';
import { APP_WORKLOADS, DECISIONS } from '../facts/model.js';

const MESSAGES = messages({
  behind:
    '{pods} of {workload} {run} {meshTitle} proxy {versions}, older than the {expected} its injector {injector} injects now: created before the control plane was upgraded; a restart gives it the current one.',
  beyond:
    '{pods} of {workload} {run} {meshTitle} proxy {versions}, older than the {expected} its injector {injector} injects now: created before the control plane was upgraded, {releasesBehind} releases behind ({skew}).',
  pinned:
    '{pods} of {workload} {run} {meshTitle} proxy {versions}, older than the {expected} its injector {injector} injects now, because the pod template annotation {pins} pins it{apart}: a restart keeps the pin; remove it.',
  ahead:
    '{pods} of {workload} {run} {meshTitle} proxy {versions}, {releasesAhead} releases newer than the {expected} its injector {injector} injects now{pinned} ({skew}): the control plane may send it configuration it does not expect.',
  servers:
    '{object} runs {meshTitle} servers {servers}, but the control plane {injector} runs {controlPlane}, which is compatible only with servers {compatible}: its injected proxies and it cannot be relied on to work with these servers; upgrade the servers or use the control plane release that matches them.',
});

/** Its evidence: a workload's older proxies (injects, pods), or servers its control plane is not compatible with. */
type OutdatedEvidence = { [more: string]: unknown };

export default defineCheck<OutdatedEvidence, typeof MESSAGES>({
  ...meta('proxy-outdated'),
  facts: [APP_WORKLOADS, DECISIONS, WEBHOOK_TARGETS],
  messages: MESSAGES,
  *run(m) {
    for (const w of m.appWorkloads) {
      for (const { mesh } of m.meshes) {
        const skew = proxySkew(m, w, mesh);
        if (!skew) continue;
        const p = profileOf(mesh);
        const allowed = p.versions?.skew;
        // A pod template annotation pins the proxy (the profile's versions.pins): a restart keeps it, the fix removes it.
        const pins = skew.pins.map((x) => `${x.key}: ${x.value}`).join(', ');
        const unpin: Step[] = skew.pins.length
          ? [
              comment`remove the pin so that the injector injects the proxy of its own release`,
              ...skew.pins.flatMap((x) => removeFromTemplate(w, 'annotations', x.key)),
            ]
          : recreateCommands(w);
        if (!skew.older.length) {
          // Only newer proxies: judged where the mesh says how far a data plane may lead (its skew's `ahead`).
          const ahead = allowed?.ahead;
          if (ahead === undefined || skew.releasesAhead === undefined || skew.releasesAhead <= ahead) continue;
          const newer = [...new Set(skew.newer.map((o) => o.version))].sort();
          yield {
            mesh,
            severity: 'error' as const,
            ...say(MESSAGES, 'ahead', {
              pods: plural(skew.newer.length, 'pod'),
              workload: `${w.kind} ${w.namespace}/${w.name}`,
              run: skew.newer.length === 1 ? 'runs' : 'run',
              meshTitle: p.title,
              versions: newer.join(', '),
              releasesAhead: String(skew.releasesAhead),
              expected: skew.expected.version,
              injector: `${skew.injector.namespace}/${skew.injector.name}`,
              pinned: pins ? `, pinned by the pod template annotation ${pins}` : '',
              skew: allowed!.text,
            }),
            resource: w.ref,
            affectedPods: skew.newer.length,
            evidence: {
              injects: skew.expected,
              pods: skew.newer,
              releasesAhead: skew.releasesAhead,
              supportedSkew: { releases: allowed!.releases, ahead, source: allowed!.source },
              ...(skew.pins.length ? { pins: skew.pins } : {}),
            },
            fix: unpin,
          };
          continue;
        }
        const beyond = allowed && skew.releasesBehind !== undefined && skew.releasesBehind > allowed.releases;
        const versions = [...new Set(skew.older.map((o) => o.version))].sort();
        const inj = skew.injector;
        yield {
          mesh,
          ...(beyond ? { severity: 'error' as const } : {}),
          ...(() => {
            const common = {
              pods: plural(skew.older.length, 'pod'),
              workload: `${w.kind} ${w.namespace}/${w.name}`,
              run: skew.older.length === 1 ? 'runs' : 'run',
              meshTitle: p.title,
              versions: versions.join(', '),
              expected: skew.expected.version,
              injector: `${inj.namespace}/${inj.name}`,
            };
            if (pins)
              return say(MESSAGES, 'pinned', {
                ...common,
                pins,
                apart:
                  skew.releasesBehind !== undefined
                    ? `, ${plural(skew.releasesBehind, 'release')} behind${allowed ? ` (${allowed.text})` : ''}`
                    : '',
              });
            return beyond
              ? say(MESSAGES, 'beyond', {
                  ...common,
                  releasesBehind: String(skew.releasesBehind),
                  skew: allowed.text,
                })
              : say(MESSAGES, 'behind', common);
          })(),
          resource: w.ref,
          affectedPods: skew.older.length,
          evidence: {
            injects: skew.expected,
            pods: skew.older,
            ...(skew.releasesBehind !== undefined ? { releasesBehind: skew.releasesBehind } : {}),
            ...(allowed ? { supportedSkew: { releases: allowed.releases, source: allowed.source } } : {}),
            ...(skew.pins.length ? { pins: skew.pins } : {}),
          },
          fix: unpin,
        };
      }
    }
    // Servers the control plane depends on, apart from it (Consul's), on a release its own
    // compatibility table does not pair with the control plane's (hashicorp/consul-k8s#1809).
    for (const { mesh } of m.meshes) {
      const p = profileOf(mesh);
      if (!p.versions?.servers) continue;
      for (const inj of injectors(m, mesh)) {
        if (!inj.deployment) continue;
        const cp = p.versions.controlPlane(m, inj.deployment);
        if (!cp) continue;
        const s = p.versions.servers(m, cp.version);
        if (!s || s.supported.includes(p.versions.release(s.version) ?? '')) continue;
        yield {
          mesh,
          severity: 'error' as const,
          ...say(MESSAGES, 'servers', {
            object: `${s.object.kind} ${s.object.namespace}/${s.object.name}`,
            meshTitle: p.title,
            servers: s.version,
            injector: `${inj.namespace}/${inj.name}`,
            controlPlane: cp.version,
            compatible: s.supported.map((x) => `${x}.x`).join(', '),
          }),
          resource: s.object,
          affectedPods: 0,
          evidence: {
            servers: s.version,
            controlPlane: cp,
            compatibleServers: s.supported,
            source: s.source,
          },
          fix: [
            comment`upgrade the servers to ${s.supported.map((x) => `${x}.x`).join(' or ')}, or install the control plane release compatible with ${s.version}`,
            cmd`kubectl -n ${s.object.namespace!} get statefulset ${s.object.name} -o wide`,
          ],
        };
        break;
      }
    }
  },
});
