/**
 * A denial that says Linkerd's proxy injector could not read its own configuration: the files it
 * reads per request under /var/run/linkerd/config, mounted from ConfigMap linkerd-config (chart
 * templates/proxy-injector.yaml, volume `config`).
 *
 * Source: linkerd/linkerd2 pkg/config/config.go: `Values(path)` (stable-2.10 on: key `values`, Helm
 * values as YAML) and, before, `Global`/`Proxy` (keys `global`, `proxy`, protobuf JSON) return
 * `failed to read config file: <err>` or `failed to unmarshal JSON from: <path>: <err>`;
 * controller/proxy-injector/webhook.go returns that error, and controller/webhook/server.go answers
 * Allowed false with it as the message. Seen as a denial in linkerd/linkerd2#11615 (2.14, a chart
 * value of the wrong type: `failed to unmarshal JSON from: /var/run/linkerd/config/values: ...`).
 */
import type { InjectorOwnConfig } from '../profile.js';

const MOUNT = '/var/run/linkerd/config/';
const OWN = /^failed to (?:unmarshal JSON from|read config file): /i;

/** ConfigMap linkerd-config and the key the injector read, when the denial is its own configuration failing. */
export function linkerdOwnConfig(reason: string): InjectorOwnConfig | undefined {
  const r = reason.trim();
  if (!OWN.test(r)) return undefined;
  const at = r.indexOf(MOUNT);
  if (at < 0) return undefined;
  const key = /^[A-Za-z0-9_-]{1,63}/.exec(r.slice(at + MOUNT.length))?.[0];
  if (!key) return undefined;
  return { configMap: 'linkerd-config', key, does: 'reads its configuration from' };
}
