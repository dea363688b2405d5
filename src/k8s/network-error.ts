/**
 * The transport error in a container's termination message: the words Go's net package and curl
 * write when a connection fails (`dial tcp 10.0.12.7:443: connect: connection refused`, `lookup db on
 * 10.96.0.10:53: no such host`, `i/o timeout`; curl's `Failed to connect to db port 5432: Connection
 * refused`, libpq's `connection to server at "db", port 5432 failed: Connection refused`, busybox
 * wget's `can't connect to remote host (10.0.0.1): Connection refused`), and nothing else of the
 * message. An app's termination message is its last log lines, which may hold anything (URLs with credentials, tokens): only this phrase is quoted by a check and
 * kept by a snapshot (src/cluster/sanitize.ts), so a snapshot and a live run quote the same words.
 */

const TOKEN = String.raw`[^\s"'\\]{1,253}`;
const NET = new RegExp(
  String.raw`(?:dial (?:tcp|udp)[46]? ${TOKEN}: |lookup ${TOKEN}(?: on ${TOKEN})?: |Failed to connect to ${TOKEN} port \d{1,5}(?: after \d+ ms)?: |connection to server at "${TOKEN}",? port \d{1,5} failed: |can't connect to remote host \(${TOKEN}\): |(?:connect|read|write): )*` +
    String.raw`(?:connection refused|i/o timeout|no such host|no route to host|network is unreachable|connection reset by peer|connection timed out|Could not resolve host: ${TOKEN})`,
  'gi',
);

/** The last transport error a message names (at most 300 characters), or undefined. Bounded: the last 64 KiB are read. */
export function networkFailure(message: unknown): string | undefined {
  if (typeof message !== 'string') return undefined;
  let last: string | undefined;
  for (const m of message.slice(-65536).matchAll(NET)) last = m[0];
  return last?.slice(0, 300);
}
