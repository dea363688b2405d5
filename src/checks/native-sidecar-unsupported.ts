/**
 * native-sidecar-unsupported — a workload's proxy is (or will be) a native sidecar (an init
 * container with `restartPolicy: Always`), but the API server or some nodes run a Kubernetes
 * version where native sidecars are off.
 *
 * Why: the SidecarContainers feature gate is on by default from 1.29 (beta; GA in 1.33,
 * src/k8s/server.ts NATIVE_SIDECARS_ON with its source). Below it the API server drops the field
 * and the proxy becomes an ordinary init container that never exits, so the pod hangs in
 * initialization; a kubelet below it does not run it as a sidecar either. Meshes turn native
 * sidecars on by default in recent releases (Kuma 2.14, Linkerd 2.20) or by a setting that an
 * upgrade of the mesh carries over to an old cluster.
 * When: the workload's next pod gets the mesh's proxy (or its pods run it), and the mesh's own
 * settings, read, make it native (not Istio's "auto", which turns itself on only for kubelets 1.33
 * and newer); the API server's version or some node's kubelet version is read and older than 1.29.
 * Known false positives: a cluster whose 1.28 control plane and nodes were started with
 * `--feature-gates=SidecarContainers=true` (alpha).
 * Fix: turn the native sidecar off for the workload (the mesh's pod annotation), or upgrade the
 * cluster; where only the control plane's setting decides, change it there.
 */
import { comment, lit, type Step } from '../fix/steps.js';
import { setOnTemplate } from '../fix/commands.js';
import { compareMinor, minorText, NATIVE_SIDECARS_ON } from '../k8s/server.js';
import { clusterVersions, CLUSTER_VERSIONS } from '../facts/versions.js';
import { profileOf } from '../mesh/registry.js';
import { hasNativeSidecar, alteredNativeSidecar } from '../mesh/proxy.js';
import { nameOf, plural } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';
import { APP_WORKLOADS, DECISIONS } from '../facts/model.js';

const MESSAGES = messages({
  'native-off':
    '{workload} gets its {meshTitle} proxy as a native sidecar ({reason}), but {where}: native sidecars are off before Kubernetes {on}, so its pods hang in initialization behind a proxy that never exits.',
});

export default defineCheck({
  ...meta('native-sidecar-unsupported'),
  facts: [APP_WORKLOADS, DECISIONS, CLUSTER_VERSIONS],
  messages: MESSAGES,
  *run(m) {
    const cluster = clusterVersions(m);
    const old = (v: { major: number; minor: number }) => compareMinor(v, NATIVE_SIDECARS_ON) < 0;
    const server = cluster.server && old(cluster.server) ? cluster.server : undefined;
    const nodes = cluster.nodes.filter((n) => n.version && old(n.version));
    if (!server && !nodes.length) return;
    // /version not read: the kubelets bound the API server; below 1.29 at most, it drops restartPolicy itself.
    const bound = cluster.serverBound;
    const serverBelow = !cluster.server && bound && old(bound.atMost) ? bound : undefined;
    const on = minorText(NATIVE_SIDECARS_ON);
    const kubelets = [...new Set(nodes.map((n) => n.version!.text))].sort();
    const where = [
      ...(server ? [`the API server runs ${server.text}`] : []),
      ...(serverBelow
        ? [`the API server, its version not read, runs at most ${serverBelow.atMost.text} by the version skew policy`]
        : []),
      ...(nodes.length
        ? [`${plural(nodes.length, 'node')} ${nodes.length === 1 ? 'runs' : 'run'} kubelet ${kubelets.join(', ')}`]
        : []),
    ].join(' and ');
    for (const w of m.appWorkloads) {
      for (const { mesh } of m.meshes) {
        const p = profileOf(mesh);
        const d = m.decision(w, mesh);
        const running = w.pods.some((pod) => hasNativeSidecar(pod, mesh));
        // Pods whose proxy the API server already turned into an ordinary init container (restartPolicy dropped).
        const demoted = w.pods.filter((pod) => alteredNativeSidecar(pod, mesh)).map(nameOf);
        if (!running && !demoted.length && (!d?.inject || d.unknown)) continue; // its next pod gets no proxy of this mesh
        // The mesh's own settings only: pods running a native sidecar say nothing of the next pod
        // when those settings were not read (a control-plane namespace refused): not examined.
        const native = p.proxy.native.decide(m, w);
        if (!native?.native || native.uncertain) continue;
        const annotation = p.proxy.native.annotation;
        const fix: Step[] = annotation
          ? [
              comment`turn the native sidecar off for this workload, or upgrade the cluster to ${lit(on)} or later`,
              ...setOnTemplate(w, 'annotations', annotation, 'false'),
            ]
          : [
              comment`turn native sidecars off in the ${lit(p.title)} control plane, which has no switch per workload, or upgrade the cluster to ${lit(on)} or later`,
            ];
        yield {
          mesh,
          ...say(MESSAGES, 'native-off', {
            workload: `${w.kind} ${w.namespace}/${w.name}`,
            meshTitle: p.title,
            reason: native.reason,
            where,
            on,
          }),
          resource: w.ref,
          evidence: {
            nativeSidecar: native.reason,
            ...(running ? { runningAsNativeSidecar: true } : {}),
            ...(demoted.length ? { proxyAsPlainInitContainer: demoted } : {}),
            apiServer: cluster.server ? cluster.server.text : null,
            ...(cluster.server ? {} : { apiServerUnread: cluster.serverUnread }),
            ...(bound
              ? { apiServerBound: { atLeast: bound.atLeast.text, atMost: bound.atMost.text, from: bound.from } }
              : {}),
            nodesOlder: nodes.map((n) => ({ node: n.name, kubelet: n.version!.text })),
            nativeSidecarsFrom: on,
          },
          fix,
        };
      }
    }
  },
});
