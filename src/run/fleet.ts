/**
 * A fleet: every selected context of the merged kubeconfig (`--all-contexts`, `--contexts a,b`),
 * each read and checked by the very same single-cluster run, a bounded number at a time; or the
 * snapshots `snapshot --all-contexts --output-dir DIR` wrote, read back offline. A context that
 * cannot be read is named with the reason and never stops the others (docs/cli.md "A fleet").
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UserError, errorMessage, printable } from '../util/errors.js';
import { readFileBounded, decodeText, statPath } from '../util/io.js';
import { isObj, str } from '../util/objects.js';
import type { RunResult } from './result.js';

/** One cluster of a fleet run: its report, or why it could not be read. */
export interface FleetEntry {
  /** The kubeconfig context (offline: the one the snapshot was taken from). */
  context: string;
  /** Its API server as messages show it (no credentials), when the kubeconfig names one. */
  server?: string;
  /** The single-cluster run, unchanged. */
  result?: RunResult & { errors: string[] };
  /** Why the context could not be read (refused, timed out, unauthorized, exec plugin failed): nothing of it was examined. */
  unreachable?: string;
}

export interface FleetResult {
  clusters: FleetEntry[];
}

/**
 * `fn` over every item with at most `limit` in flight, results in the items' order. `fn` must not
 * throw (a fleet entry carries its own failure).
 */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

/** Most clusters one fleet run takes: a larger fleet is refused, never cut silently. */
const MAX_FLEET_CONTEXTS = 200;

/**
 * The contexts `--contexts` names, from those the kubeconfig defines: each must exist (a typo is an
 * error, not a cluster silently left out); with `--all-contexts`, every one.
 */
export function selectContexts(
  defined: readonly { name: string; server?: string }[],
  wanted: readonly string[] | undefined,
): { name: string; server?: string }[] {
  if (!wanted?.length) {
    if (!defined.length) throw new UserError('the kubeconfig defines no context');
    if (defined.length > MAX_FLEET_CONTEXTS)
      throw new UserError(
        `the kubeconfig defines ${defined.length} contexts, more than ${MAX_FLEET_CONTEXTS} for --all-contexts: name the ones to check with --contexts`,
      );
    return [...defined];
  }
  if (wanted.length > MAX_FLEET_CONTEXTS)
    throw new UserError(`--contexts names ${wanted.length} contexts, more than ${MAX_FLEET_CONTEXTS}`);
  const byName = new Map(defined.map((c) => [c.name, c]));
  const missing = wanted.filter((w) => !byName.has(w));
  if (missing.length)
    throw new UserError(
      `context ${missing.map((m) => `"${printable(m, 200)}"`).join(', ')} not found in kubeconfig (contexts: ${defined
        .slice(0, 20)
        .map((c) => printable(c.name, 100))
        .join(', ')}${defined.length > 20 ? ` and ${defined.length - 20} more` : ''})`,
    );
  return [...new Set(wanted)].map((w) => byName.get(w)!);
}

/** The index of a fleet snapshot directory, beside one snapshot file per context. */
export const FLEET_INDEX = 'meshdoctor-fleet.json';
export const FLEET_KIND = 'MeshdoctorFleet';

export interface FleetIndexEntry {
  context: string;
  server?: string;
  /** The snapshot file, relative to the directory. */
  file?: string;
  unreachable?: string;
}

/**
 * A file name for a context's snapshot: context names hold `/` and `:` (an EKS ARN), so anything but
 * letters, digits, `.`, `_` and `-` is written %XX; never a hidden or empty name; unique in the index.
 */
export function snapshotFileName(context: string, taken: Set<string>): string {
  let base = [...Buffer.from(context, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9_-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('')
    .slice(0, 180);
  if (!base) base = 'context';
  let name = `${base}.json`;
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}.json`;
  taken.add(name);
  return name;
}

/** `--snapshot DIR` where DIR holds a fleet index: its entries (files resolved), else undefined. */
export function readFleetIndex(paths: readonly string[] | undefined, maxBytes: number): FleetIndexEntry[] | undefined {
  if (paths?.length !== 1 || paths[0] === '-') return undefined;
  const dir = paths[0]!;
  const index = join(dir, FLEET_INDEX);
  if (!existsSync(index) || !statPath(dir, '--snapshot').isDirectory()) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(decodeText(readFileBounded(index, Math.min(maxBytes, 16 << 20), 'fleet index')));
  } catch (e) {
    throw new UserError(`cannot read the fleet index ${index}: ${printable(errorMessage(e), 300)}`);
  }
  if (!isObj(doc) || doc.kind !== FLEET_KIND || !Array.isArray(doc.clusters))
    throw new UserError(`${index} is not a fleet index (kind ${FLEET_KIND} with clusters)`);
  return doc.clusters.slice(0, 1000).flatMap((c): FleetIndexEntry[] => {
    if (!isObj(c) || !str(c.context)) return [];
    const file = str(c.file);
    if (file !== undefined && (file.includes('/') || file.includes('\\') || file.startsWith('.')))
      throw new UserError(
        `${index}: the file of context "${printable(str(c.context)!, 200)}" is not a name in the directory`,
      );
    return [
      {
        context: str(c.context)!,
        ...(str(c.server) ? { server: str(c.server)! } : {}),
        ...(file ? { file: join(dir, file) } : {}),
        ...(str(c.unreachable) ? { unreachable: str(c.unreachable)! } : {}),
      },
    ];
  });
}
