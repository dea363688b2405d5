/**
 * What the release tables say of a pod meant to end (issue 31, gen10life): the rows' `ending` (src/mesh/release-table.ts
 * EndingSupport) for the release that judges each part. The proxy's own behaviour (its shutdown call, what undoes it,
 * the native sidecar) is the release the pod's proxy runs; what the control plane does (stopping the proxy, its bugs)
 * is the release of the installed injector. A version the tables cannot place says nothing (not today's rules).
 */
import type { K8sObject } from '../util/types.js';
import type { MeshProfile, VersionRead } from './profile.js';
import type { EndingSupport, ReleaseRow } from './release-table.js';
import { releaseFacts, type ReleaseFacts } from './releases.js';

/** The fields of `ending` the newest rows that say them give. */
function merged(rows: readonly ReleaseRow[]): EndingSupport {
  const out: { -readonly [K in keyof EndingSupport]?: EndingSupport[K] } = {};
  for (const r of rows) {
    const e = r.ending;
    if (!e) continue;
    if (e.stopsProxy) out.stopsProxy = e.stopsProxy;
    if (e.shutdown) out.shutdown = e.shutdown;
    if (e.restartedAfterShutdown) out.restartedAfterShutdown = e.restartedAfterShutdown;
    if (e.native) out.native = e.native;
    if (e.broken) out.broken = e.broken;
  }
  return out;
}

/** What a release does for pods meant to end, with the release as text ("Consul 1.0"). */
export interface EndingRead {
  readonly release: string;
  readonly ending: EndingSupport;
}

function read(p: MeshProfile, v: VersionRead | undefined): EndingRead | undefined {
  const f = releaseFacts(p, v);
  if (!f?.release) return undefined;
  return { release: `${p.title} ${f.release}`, ending: merged(f.rows) };
}

/**
 * The control plane's part: the injectors' release, when every injector read runs one release the tables place
 * (`installed`: each injector Deployment's release facts and version read, src/facts/releases.ts INJECTOR_RELEASES).
 */
export function controlPlaneEnding(
  p: MeshProfile,
  installed: readonly { facts?: ReleaseFacts; version?: string }[],
): { read: EndingRead; version?: string } | undefined {
  const first = installed[0];
  if (!first?.facts?.release || !installed.every((f) => f.facts?.release === first.facts!.release)) return undefined;
  return {
    read: { release: `${p.title} ${first.facts.release}`, ending: merged(first.facts.rows) },
    ...(first.version ? { version: first.version } : {}),
  };
}

/**
 * For one pod of the mesh: the proxy's part by the release its proxy runs (else the control plane's), the control
 * plane's part as given (controlPlaneEnding). Undefined parts were not placed.
 */
export function podEnding(
  p: MeshProfile,
  pod: K8sObject,
  cp: { read: EndingRead; version?: string } | undefined,
): { proxy?: EndingRead; controlPlane?: EndingRead; controlPlaneVersion?: string } {
  const proxy = read(p, p.versions?.proxy(pod)) ?? cp?.read;
  return {
    ...(proxy ? { proxy } : {}),
    ...(cp ? { controlPlane: cp.read } : {}),
    ...(cp?.version ? { controlPlaneVersion: cp.version } : {}),
  };
}

/** The control plane's bug (`broken`) when the version read is among its affected versions. */
export function endingBug(p: MeshProfile, e: EndingSupport, version: string | undefined): EndingSupport['broken'] {
  const b = e.broken;
  if (!b || !version || !p.versions) return undefined;
  const lo = p.versions.compare(version, b.affected.from);
  const hi = p.versions.compare(version, b.affected.to);
  return lo !== undefined && hi !== undefined && lo >= 0 && hi <= 0 ? b : undefined;
}
