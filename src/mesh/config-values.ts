/**
 * Mesh configuration kept in a ConfigMap's `values` key (Helm values, YAML or JSON: each profile
 * names its ConfigMaps). Parsed once per object; `yaml` is required on first use only, so commands
 * that never read them do not load it.
 */
import { createRequire } from 'node:module';
import type { K8sObject } from '../util/types.js';
import { isObj, str } from '../util/objects.js';

let yaml: typeof import('yaml') | undefined;
const parsedKeys = new Map<string, WeakMap<object, Record<string, any> | undefined>>();

/** A ConfigMap's `values` key, parsed (YAML; JSON is YAML); undefined when absent or unreadable. */
export function configValues(cm: K8sObject | undefined): Record<string, any> | undefined {
  return configKey(cm, 'values');
}

/** A ConfigMap's `data` key holding a YAML (or JSON) object, parsed once; undefined when absent or unreadable. */
export function configKey(cm: K8sObject | undefined, key: string): Record<string, any> | undefined {
  if (!cm) return undefined;
  let parsed = parsedKeys.get(key);
  if (!parsed) parsedKeys.set(key, (parsed = new WeakMap()));
  if (!parsed.has(cm)) {
    const text = isObj(cm.data) ? str(cm.data[key]) : undefined;
    parsed.set(cm, text === undefined ? undefined : parseYamlObject(text));
  }
  return parsed.get(cm);
}

/** YAML (or JSON) text holding an object, parsed; undefined when unreadable (the defaults apply). */
export function parseYamlObject(text: string): Record<string, any> | undefined {
  let v: unknown;
  try {
    yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml');
    v = yaml.parse(text);
  } catch {
    v = undefined;
  }
  return isObj(v) ? v : undefined;
}

/** A value at a path of nested objects. */
export const valueAt = (o: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((cur, p) => (isObj(cur) ? cur[p] : undefined), o);
