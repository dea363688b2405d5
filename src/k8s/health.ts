/** Pod and container health from status: readiness, restarts, waiting reasons, OOM kills. */
import type { K8sObject } from '../util/types.js';
import { arr, isObj, nameOf, str, time } from '../util/objects.js';
import { containers, podSpec } from './pods.js';
import { parseQuantity } from './quantity.js';

/** Waiting reasons that mean a container cannot start (not a normal rollout step). */
const BROKEN_WAITING = new Set([
  'CrashLoopBackOff',
  'ImagePullBackOff',
  'ErrImagePull',
  'CreateContainerConfigError',
  'CreateContainerError',
  'InvalidImageName',
  'RunContainerError',
]);

interface PodHealth {
  name: string;
  phase?: string;
  ready: boolean;
  restarts: number;
  waiting?: string;
  lastTermination?: { container: string; reason?: string; exitCode?: number; finishedAt?: string };
  /** A container cannot start or keeps crashing. */
  broken: boolean;
}

/** A timestamp in ms (0 when missing), for ordering. */
export const ms = (t: unknown): number => time(t)?.getTime() ?? 0;

export const statuses = (pod: K8sObject): Record<string, any>[] =>
  arr(isObj(pod.status) ? pod.status.containerStatuses : undefined).filter(isObj);

/** A pod's health for evidence: phase, Ready, restarts, waiting reason, last termination. */
export function podHealth(pod: K8sObject): PodHealth {
  const st = isObj(pod.status) ? pod.status : {};
  const cs = statuses(pod);
  const readyCond = arr(st.conditions).find((c) => isObj(c) && c.type === 'Ready');
  const ready = readyCond ? readyCond.status === 'True' : cs.length > 0 && cs.every((c) => c.ready === true);
  const waiting = cs.map((c) => str(c.state?.waiting?.reason)).find(Boolean);
  const term = cs
    .map((c) => ({
      c,
      t: isObj(c.lastState?.terminated)
        ? c.lastState.terminated
        : isObj(c.state?.terminated)
          ? c.state.terminated
          : undefined,
    }))
    .filter((x) => x.t)
    .sort((a, b) => ms(b.t.finishedAt) - ms(a.t.finishedAt))[0];
  return {
    name: nameOf(pod),
    ...(str(st.phase) ? { phase: str(st.phase) } : {}),
    ready,
    restarts: cs.reduce((n, c) => n + (typeof c.restartCount === 'number' ? c.restartCount : 0), 0),
    ...(waiting ? { waiting } : {}),
    ...(term
      ? {
          lastTermination: {
            container: String(term.c.name ?? ''),
            ...(str(term.t.reason) ? { reason: str(term.t.reason) } : {}),
            ...(typeof term.t.exitCode === 'number' ? { exitCode: term.t.exitCode } : {}),
            ...(str(term.t.finishedAt) ? { finishedAt: str(term.t.finishedAt) } : {}),
          },
        }
      : {}),
    broken: cs.some((c) => BROKEN_WAITING.has(str(c.state?.waiting?.reason) ?? '')),
  };
}

export interface OomKill {
  pod: string;
  container: string;
  restarts: number;
  finishedAt?: string;
  /** The container is running and ready now. */
  readyNow: boolean;
  memoryLimit?: string;
  memoryRequest?: string;
}

/** Containers of these pods whose current or last termination was OOMKilled. */
export function oomKills(pods: K8sObject[]): OomKill[] {
  const out: OomKill[] = [];
  for (const pod of pods) {
    for (const cs of statuses(pod)) {
      const t = [cs.lastState?.terminated, cs.state?.terminated].find((x) => isObj(x) && x.reason === 'OOMKilled');
      if (!t) continue;
      const spec = containers(podSpec(pod as { spec?: unknown })).find((c) => c.name === cs.name);
      const res = isObj(spec?.resources) ? spec!.resources : {};
      const limit = str(res.limits?.memory);
      const request = str(res.requests?.memory);
      out.push({
        pod: nameOf(pod),
        container: String(cs.name ?? ''),
        restarts: typeof cs.restartCount === 'number' ? cs.restartCount : 0,
        ...(str(t.finishedAt) ? { finishedAt: str(t.finishedAt) } : {}),
        readyNow: cs.ready === true && isObj(cs.state?.running),
        ...(limit ? { memoryLimit: limit } : {}),
        ...(request ? { memoryRequest: request } : {}),
      });
    }
  }
  return out;
}

/** Twice a memory quantity, rounded up to whole Mi ("250Mi" -> "500Mi"). */
export function doubledMemory(q: string): string | undefined {
  const b = parseQuantity(q);
  return b === undefined || b <= 0 ? undefined : `${Math.ceil((2 * b) / 1024 ** 2)}Mi`;
}
