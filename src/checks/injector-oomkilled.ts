/**
 * injector-oomkilled — a container of a mesh's injector pods was OOMKilled.
 *
 * Why: the injector's memory grows with the cluster (pods, namespaces, watches it caches;
 * linkerd/linkerd2#10386 at ~3k pods). Past its limit it is OOMKilled, restarts, crash-loops,
 * and while it is down the webhook has no endpoints: the root of a whole chain of un-injected
 * pods. Reported as the cause (causeKey injector-oom) of injector-unavailable.
 * When: the container's current or last termination reason is OOMKilled. A warning instead of
 * an error when the container is Ready now and the kill is more than a day old, or when another
 * replica stayed ready (HA: the webhook kept its endpoint).
 * Known false positives: a single old OOM kill after a one-off spike (the warning case).
 * Fix: raise the memory limit (double it, rounded up to Mi) with kubectl for now, and in the
 * Helm values so that the next upgrade keeps it.
 */
import { profileOf } from '../mesh/registry.js';
import { doubledMemory, oomKills, podHealth, type OomKill } from '../k8s/health.js';
import { injectors, namespaceRead, podsMissingProxy, PODS_MISSING_PROXY, INJECTORS } from '../facts/controlplane.js';
import { nameOf, plural, time } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';
import { cmd, lit, type Step } from '../fix/steps.js';

const DAY_MS = 24 * 3600 * 1000;

const MESSAGES = messages({
  oomkilled:
    'Injector {injector} container {container} was OOMKilled (memory limit {memoryLimit}, {restarts} restarts){more}; {effect}.',
});

export default defineCheck({
  ...meta('injector-oomkilled'),
  facts: [PODS_MISSING_PROXY, INJECTORS],
  messages: MESSAGES,
  *run(m) {
    for (const { mesh } of m.meshes) {
      for (const inj of injectors(m, mesh)) {
        if (!namespaceRead(m, inj.namespace)) continue; // the control plane's namespace was not read
        if (!inj.deployment) continue; // pods of no Deployment read (its name would be a guess): injector-unavailable says so
        const kills = oomKills(inj.pods);
        if (!kills.length) continue;
        const byContainer = new Map<string, OomKill>();
        for (const k of kills) if (!byContainer.has(k.container)) byContainer.set(k.container, k);
        const fix: Step[] = [];
        for (const k of byContainer.values()) {
          const [flag, current] = k.memoryLimit
            ? ['limits', k.memoryLimit]
            : k.memoryRequest
              ? ['requests', k.memoryRequest]
              : ['limits', undefined];
          const next = (current && doubledMemory(current)) ?? '512Mi';
          fix.push(
            cmd`kubectl -n ${inj.namespace} set resources ${`deploy/${inj.name}`} -c ${k.container} --${lit(flag)}=memory=${next}`,
          );
          if (k.container !== profileOf(mesh).controlPlane.injector.container) continue; // the Helm values below size the injector container only
          fix.push(...profileOf(mesh).install.memoryFix(inj.namespace, inj.name, next, m));
        }
        const old = kills.every(
          (k) => k.readyNow && m.now.getTime() - (time(k.finishedAt)?.getTime() ?? m.now.getTime()) > DAY_MS,
        );
        // Another replica that is ready now keeps serving the webhook while a killed one restarts.
        const killed = new Set(kills.map((k) => k.pod));
        const othersReady = inj.pods.some((p) => !killed.has(nameOf(p)) && podHealth(p).ready);
        const first = kills[0]!;
        const effect = othersReady
          ? 'other replicas kept serving the webhook, but they share the same limit'
          : 'each kill restarts it, and with no other ready replica the injection webhook has no endpoint meanwhile';
        yield {
          mesh,
          ...(old || othersReady ? { severity: 'warning' as const } : {}),
          ...say(MESSAGES, 'oomkilled', {
            injector: `${inj.namespace}/${inj.name}`,
            container: first.container,
            memoryLimit: first.memoryLimit ?? 'none',
            restarts: first.restarts,
            more: kills.length > 1 ? ` along with ${plural(kills.length - 1, 'more container')}` : '',
            effect,
          }),
          resource: { kind: 'Deployment', namespace: inj.namespace, name: inj.name },
          affectedPods: podsMissingProxy(m, mesh),
          causeKey: { kind: 'injector-oom', mesh },
          evidence: {
            deployment: `${inj.namespace}/${inj.name}`,
            oomKilled: kills.map(({ readyNow: _r, ...k }) => ({
              ...k,
              memoryLimit: k.memoryLimit ?? null,
              memoryRequest: k.memoryRequest ?? null,
            })),
          },
          fix,
        };
      }
    }
  },
});
