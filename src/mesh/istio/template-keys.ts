/**
 * The keys of Istio's domain the installed injection templates read (issue 31.6): istiod renders
 * the templates of its ConfigMap istio-sidecar-injector[-<revision>] (`config`: `template` up to
 * 1.9, `templates` from 1.10), and the resource annotations are read by the template alone
 * (`isset .ObjectMeta.Annotations \`sidecar.istio.io/proxyCPULimit\``; no Go code of
 * pkg/kube/inject reads them: istio/istio@ae959de3 (1.5.9), @86c9f01f). So the installed template
 * is the key table of those keys: a template that does not mention one does not read it (a fork's
 * template behind Istio's, rancher/rancher#28950), and a key it mentions is read whatever
 * istio/api's tables list (they trail the code: sidecar.istio.io/capNetBindService, read by the
 * 1.5 template, listed by no annotations.yaml; sidecar.istio.io/statsCompression, istio/istio#52082).
 * Snapshots keep the keys the templates mention, not the templates (index.ts slimConfigMap).
 */
import type { MeshContext } from '../context.js';
import { isObj, nameOf } from '../../util/objects.js';
import { parseYamlObject } from '../config-values.js';

/** A key of Istio's domain in template text: an optional sub-prefix, then sidecar.istio.io/, proxy.istio.io/ or istio.io/. */
const KEY =
  /\b(?:[a-z0-9-]{1,63}\.){0,3}(?:sidecar\.istio\.io|proxy\.istio\.io|istio\.io)\/[A-Za-z0-9][A-Za-z0-9._-]{0,62}/g;

/** The injector ConfigMap's name (data.ts ISTIO_CONFIG, which imports the version readers this module serves). */
const ISTIO_CONFIG = 'istio-sidecar-injector';

/** At most this many keys are kept per ConfigMap. */
const MAX_KEYS = 256;

/** The keys of the domain a parsed `config` mentions in its templates (`template`, `templates`); undefined: it has none. */
export function templateKeysOf(cfg: Record<string, unknown>): string[] | undefined {
  if (Array.isArray(cfg.templateKeys))
    return cfg.templateKeys.filter((k): k is string => typeof k === 'string').slice(0, MAX_KEYS);
  const texts = [
    ...(typeof cfg.template === 'string' ? [cfg.template] : []),
    ...(isObj(cfg.templates) ? Object.values(cfg.templates).filter((t): t is string => typeof t === 'string') : []),
  ];
  if (!texts.length) return undefined;
  const keys = new Set<string>();
  for (const t of texts.slice(0, 32))
    for (const k of t.slice(0, 1 << 20).match(KEY) ?? []) if (keys.size < MAX_KEYS) keys.add(k);
  return [...keys].sort();
}

/**
 * The keys every installed injection template of the mesh's namespaces reads (the union), with the
 * ConfigMaps read; undefined when no such ConfigMap was read or one of them keeps no template (then
 * the tables alone judge).
 */
export function installedTemplateKeys(m: MeshContext): { keys: ReadonlySet<string>; from: string } | undefined {
  const namespaces = m.mesh('istio')?.namespaces ?? [];
  const keys = new Set<string>();
  const from: string[] = [];
  for (const ns of namespaces.slice(0, 8)) {
    for (const cm of m.inNamespace('configmaps', ns).slice(0, 256)) {
      const name = nameOf(cm);
      if (name !== ISTIO_CONFIG && !name.startsWith(`${ISTIO_CONFIG}-`)) continue;
      const text = isObj(cm.data) ? cm.data.config : undefined;
      const cfg = typeof text === 'string' ? parseYamlObject(text) : undefined;
      const found = cfg ? templateKeysOf(cfg) : undefined;
      if (!found) return undefined;
      for (const k of found) keys.add(k);
      from.push(`ConfigMap ${ns}/${name}`);
    }
  }
  return from.length ? { keys, from: from.join(', ') } : undefined;
}
