/**
 * The legacy `gcp` and `azure` auth providers of a kubeconfig user, as @kubernetes/client-node
 * 1.4.0 reads them (dist/gcp_auth.js, dist/azure_auth.js) but without its execSync: the
 * `cmd-path` helper runs asynchronously like an exec plugin (plugin.ts: found on PATH as Go
 * finds it, under --request-timeout, output capped, stderr made printable), and never through a
 * shell.
 *
 * - The kubeconfig's `access-token` is used while it is valid: present, and its `expiry` (an
 *   RFC 3339 date; for azure also `expires-on`, seconds since the epoch) not passed. A date that
 *   does not parse never expires (client-node compares NaN).
 * - Otherwise `cmd-path` runs with `cmd-args` split at whitespace (client-go's gcp provider,
 *   strings.Fields: no shell quoting; client-node handed the line to /bin/sh), and the token is
 *   read from its JSON output at `token-key` (default `{.access_token}`, client-go's default;
 *   client-node had none). Without `cmd-path` an expired token is an error ("Token is expired!").
 *
 * `token-key` is a JSONPath as kubectl writes it, `{.credential.access_token}`: member names
 * with dots or brackets (`{.a['b'].c}`) are read; anything else (filters, wildcards) is refused
 * with one line rather than evaluated.
 */
import { printable } from '../util/errors.js';
import { decodeText } from '../util/io.js';
import type { Limits } from '../util/limits.js';
import { isObj } from '../util/objects.js';
import { runHelper } from './plugin.js';

export interface AuthProvider {
  name: 'gcp' | 'azure';
  /** The provider's `config` entries that are strings. */
  config: Record<string, string>;
}

/** The provider of a user's `auth-provider` meshdoctor handles itself, or undefined (others go to client-node). */
export function authProviderOf(entry: unknown): AuthProvider | undefined {
  if (!isObj(entry) || (entry.name !== 'gcp' && entry.name !== 'azure')) return undefined;
  const config: Record<string, string> = {};
  if (isObj(entry.config)) for (const [k, v] of Object.entries(entry.config)) if (typeof v === 'string') config[k] = v;
  return { name: entry.name, config };
}

/** Whether the kubeconfig's access-token can be used at `now` (client-node's isExpired, negated). */
export function tokenValid(p: AuthProvider, now: number): boolean {
  const c = p.config;
  if (!c['access-token']) return false;
  const expiresOn = p.name === 'azure' ? c['expires-on'] : undefined;
  if (!c.expiry && !expiresOn) return true;
  const expiration = c.expiry ? Date.parse(c.expiry) : parseInt(expiresOn!, 10) * 1000;
  return !(expiration < now);
}

/** The member names of a `{.a.b['c']}` JSONPath, or undefined for any other form. */
export function jsonPathMembers(template: string): string[] | undefined {
  const m = /^\{(.*)\}$/.exec(template.trim());
  if (!m) return undefined;
  const members: string[] = [];
  const re = /\.([A-Za-z0-9_$-]+)|\['([^'\]]*)'\]|\["([^"\]]*)"\]/y;
  const path = m[1]!;
  let at = 0;
  while (at < path.length) {
    re.lastIndex = at;
    const t = re.exec(path);
    if (!t) return undefined;
    members.push(t[1] ?? t[2] ?? t[3]!);
    at = re.lastIndex;
  }
  return members.length ? members : undefined;
}

/**
 * The bearer token of a gcp or azure auth provider: the kubeconfig's while valid at `now`,
 * else the one `cmd-path` prints. Errors are Errors with one line (the caller names the context).
 */
export async function authProviderToken(
  p: AuthProvider,
  limits: Limits,
  signal: AbortSignal | undefined,
  now: number = Date.now(),
): Promise<string> {
  const c = p.config;
  if (tokenValid(p, now)) return c['access-token']!;
  const cmd = c['cmd-path'];
  const what = `the ${p.name} auth provider`;
  if (!cmd)
    throw new Error(
      `${what} has ${c['access-token'] ? 'an expired access-token' : 'no access-token'} and no cmd-path to get one`,
    );
  const tokenKey = c['token-key'] || '{.access_token}';
  const members = jsonPathMembers(tokenKey);
  if (!members)
    throw new Error(
      `${what}'s token-key ${printable(tokenKey, 100)} is not a JSONPath meshdoctor reads (only member names: {.a.b})`,
    );
  const fail = (why: string) => new Error(`${what}'s cmd-path "${printable(cmd, 200)}" ${why}`);
  const out = await runHelper({
    command: cmd,
    args: (c['cmd-args'] ?? '').split(/\s+/).filter(Boolean),
    env: process.env,
    limits,
    signal,
    fail,
  });
  let value: unknown;
  try {
    value = JSON.parse(decodeText(out));
  } catch {
    throw fail('printed no JSON');
  }
  for (const k of members) value = isObj(value) && Object.hasOwn(value, k) ? value[k] : undefined;
  if (typeof value !== 'string' || !value) throw fail(`printed no token at ${printable(tokenKey, 100)}`);
  return value;
}
