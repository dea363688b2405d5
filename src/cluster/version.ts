/**
 * `GET /version`: the Kubernetes version the API server runs (issue 25), read once beside the
 * objects when a selected check declares it (CheckMeta.serverInputs). One small document, read
 * over the same transport and bounds as the lists (http.ts). Never fatal: a server that refuses it
 * (403: RBAC's system:public-info-viewer grants it to everyone by default, a hardened cluster may
 * not) or answers something that is no version document leaves it unread, and the checks that
 * compare versions say so ("not examined").
 */
import { SERVER_PATHS, serverVersionOf, type ServerInfo } from '../k8s/server.js';
import { get, KindFailure, statusFailure, type Conn } from './http.js';

/** The server's version, or why it could not be read (nothing for a 404). Throws only what `get` throws as fatal (401, unreachable, aborted). */
export async function readServerVersion(conn: Conn): Promise<ServerInfo> {
  // Whether this answer alone makes the server an API server is not for /version to decide (any
  // web server can answer JSON there): the objects' lists decide it, as before it was read. The
  // caller reads it when nothing else is in flight, so the flags put back are the lists' own.
  const answered = conn.answered;
  const notFound = conn.notFound;
  try {
    const reply = await get(conn, SERVER_PATHS.version);
    // 404: no version document here at all (a proxy or test server in front of the objects, never
    // a kube-apiserver): nothing to examine and no permission to grant, so nothing is recorded.
    if (reply.status === 404) return {};
    if (reply.status < 200 || reply.status >= 300) return { unavailable: { version: statusFailure(conn, reply).reason } };
    const version = serverVersionOf(reply.json);
    return version ? { version } : { unavailable: { version: 'the API server sent no version (no gitVersion) at /version' } };
  } catch (e) {
    if (!(e instanceof KindFailure)) throw e;
    return { unavailable: { version: e.reason } };
  } finally {
    conn.answered = answered;
    conn.notFound = notFound;
  }
}
