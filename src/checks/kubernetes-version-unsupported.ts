/**
 * kubernetes-version-unsupported — the API server (GET /version) or the nodes (their kubelet
 * version) run a Kubernetes version outside the range the installed mesh release supports, by the
 * mesh's own support table (each profile's `versions.kubernetes`, with the page or file it comes
 * from).
 *
 * Why: a mesh release is built and tested against a range of Kubernetes versions; past it the
 * injector may use APIs the server no longer serves, or fields it does not know yet (Linkerd's
 * `linkerd check` refuses a server below its minimum).
 * When: the control plane's version is read from its injector Deployment and the table places its
 * release; the API server's version or the nodes' were read. An unknown release or version is not
 * examined, never a finding.
 * Known false positives: a provider's build of Kubernetes that backports what the mesh needs.
 * Fix: upgrade the mesh to a release whose range covers the cluster (the table names them), or the
 * cluster into the mesh's range.
 */
import { comment, lit } from '../fix/steps.js';
import { compareMinor, kubeVersion, minorText, type KubeVersion } from '../k8s/server.js';
import { injectors, INJECTORS } from '../facts/controlplane.js';
import { clusterVersions, CLUSTER_VERSIONS } from '../facts/versions.js';
import { profileOf } from '../mesh/registry.js';
import { plural } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';

const minor = (text: string): KubeVersion => kubeVersion(text)!;

const MESSAGES = messages({
  'outside-range': '{meshTitle} {version} ({injector}) supports Kubernetes {min} to {max}, but {what}.',
});

export default defineCheck({
  ...meta('kubernetes-version-unsupported'),
  facts: [INJECTORS, CLUSTER_VERSIONS],
  messages: MESSAGES,
  *run(m) {
    const cluster = clusterVersions(m);
    for (const { mesh } of m.meshes) {
      const p = profileOf(mesh);
      const table = p.versions?.kubernetes;
      if (!table) continue;
      const seen = new Set<string>();
      for (const inj of injectors(m, mesh)) {
        if (!inj.deployment) continue;
        const cp = p.versions!.controlPlane(m, inj.deployment);
        const release = cp ? p.versions!.release(cp.version) : undefined;
        const row = release ? table.find((r) => r.release === release) : undefined;
        if (!cp || !row) continue; // a release the table does not place: not examined
        if (seen.has(`${cp.version}`)) continue; // one finding per control plane version (Istio's revisions share a release)
        const [lo, hi] = [minor(row.min), minor(row.max)];
        const outside = (v: KubeVersion) => compareMinor(v, lo) < 0 || compareMinor(v, hi) > 0;
        const server = cluster.server && outside(cluster.server) ? cluster.server : undefined;
        const nodes = cluster.nodes.filter((n) => n.version && outside(n.version));
        if (!server && !nodes.length) continue;
        seen.add(cp.version);
        const kubelets = [...new Set(nodes.map((n) => n.version!.text))].sort();
        const what = [
          ...(server ? [`the API server runs ${server.text}`] : []),
          ...(nodes.length
            ? [`${plural(nodes.length, 'node')} ${nodes.length === 1 ? 'runs' : 'run'} kubelet ${kubelets.join(', ')}`]
            : []),
        ].join(' and ');
        const target = server ?? nodes[0]!.version!;
        const fitting = table
          .filter((r) => compareMinor(target, minor(r.min)) >= 0 && compareMinor(target, minor(r.max)) <= 0)
          .map((r) => r.release);
        yield {
          mesh,
          ...say(MESSAGES, 'outside-range', {
            meshTitle: p.title,
            version: cp.version,
            injector: `${inj.namespace}/${inj.name}`,
            min: row.min,
            max: row.max,
            what,
          }),
          resource: { kind: 'Deployment', namespace: inj.namespace, name: inj.name },
          evidence: {
            controlPlane: cp,
            release: row.release,
            supported: { min: row.min, max: row.max, source: row.source },
            apiServer: cluster.server ? cluster.server.text : null,
            ...(cluster.server ? {} : { apiServerUnread: cluster.serverUnread }),
            ...(cluster.serverBound
              ? {
                  apiServerBound: {
                    atLeast: cluster.serverBound.atLeast.text,
                    atMost: cluster.serverBound.atMost.text,
                    from: cluster.serverBound.from,
                  },
                }
              : {}),
            nodesOutside: nodes.map((n) => ({ node: n.name, kubelet: n.version!.text })),
            releasesSupporting: fitting,
          },
          fix: [
            fitting.length
              ? comment`upgrade ${lit(p.title)} to a release that supports Kubernetes ${lit(minorText(target))}: ${lit(fitting.join(', '))}`
              : comment`no ${lit(p.title)} release in the support table supports Kubernetes ${lit(minorText(target))} yet: keep the cluster in range`,
            comment`or bring the cluster into ${lit(row.min)} to ${lit(row.max)}`,
          ],
        };
      }
    }
  },
});
