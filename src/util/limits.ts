/**
 * The bounds of one run (docs/limits.md): every read of a file, stdin or HTTP body, every list
 * and every wait is bounded, so hostile input ends in one line and exit 2, never a hang or an
 * exhausted memory. Each bound a user may need to raise has a flag.
 */
export interface Limits {
  /** --request-timeout: one API request, retries included (also an exec credential plugin's run). */
  requestTimeoutMs: number;
  /** --timeout: the whole run (the read of the cluster, then the checks: src/util/deadline.ts). */
  deadlineMs: number;
  /** --max-bytes: one file, stdin, or one HTTP response body after decompression. */
  maxBytes: number;
  /** --max-objects: objects of one kind (also: the objects of all -f manifests together). */
  maxObjects: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: Limits = {
  requestTimeoutMs: 30_000,
  deadlineMs: 300_000,
  maxBytes: 256 * MiB,
  maxObjects: 1_000_000,
};

/** The largest delay a Node timer takes (2^31 - 1 ms, about 24.8 days); larger ones fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Requests in flight at once against one API server (named GETs fan out per webhook). */
export const MAX_CONCURRENT_REQUESTS = 16;

/** Output an exec credential plugin may print (a credential is a few KiB). */
export const MAX_EXEC_OUTPUT_BYTES = 1 * MiB;

/** Nesting depth of a JSON/YAML document meshdoctor walks (Kubernetes objects nest about 20 deep). */
export const MAX_DEPTH = 200;

export const mib = (bytes: number): string =>
  bytes < MiB ? `${Math.ceil(bytes / 1024)} KiB` : `${+(bytes / MiB).toFixed(1)} MiB`;
