/**
 * The generated objects as users hand them to `meshdoctor check --snapshot`: what
 * `kubectl get pods,deployments,... -A -o json` prints (a List, items with kind and apiVersion,
 * indented by 4 spaces as kubectl indents) and the same as `-o yaml`. Written an object at a time:
 * a 50k-pod List is larger than a V8 string may be.
 */
import { writeSync } from 'node:fs';
import { stringify } from 'yaml';
import { kindOf } from '../src/k8s/kinds.js';
import { namedObjects } from '../src/mesh/read-plan.js';
import type { K8sObject } from '../src/util/types.js';

function writer(fd: number) {
  let bytes = 0;
  const out = (s: string) => {
    const buf = Buffer.from(s);
    for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off);
    bytes += buf.length;
  };
  return { out, bytes: () => bytes };
}

/**
 * The objects a user would dump: every kind meshdoctor reads, ConfigMaps and Secrets only those
 * of the mesh namespaces it reads (a dump of every Secret is not what anyone should pass around).
 */
export function dumpable(objects: K8sObject[]): K8sObject[] {
  const ns = objects.filter((o) => o.kind === 'Namespace');
  const mwc = objects.filter((o) => o.kind === 'MutatingWebhookConfiguration');
  const named = new Set(namedObjects(ns, mwc).map((r) => `${r.key}/${r.namespace}/${r.name}`));
  return objects.filter((o) => {
    const info = kindOf(o.kind);
    return info && (!info.byName || named.has(`${info.key}/${o.metadata?.namespace}/${o.metadata?.name}`));
  });
}

/**
 * A kubectl List as JSON; returns the bytes written. `indent` 4 is kubectl's own `-o json`
 * layout (it triples the bytes of deeply nested objects such as managedFields); 0 (the default)
 * is the same List compact, one item a line, as `kubectl get -o json | jq -c` and client
 * libraries write it.
 */
export function writeKubectlJson(objects: K8sObject[], fd: number, indent: 0 | 4 = 0): number {
  const w = writer(fd);
  if (indent === 0) {
    w.out('{"apiVersion":"v1","items":[\n');
    for (let i = 0; i < objects.length; i++)
      w.out(`${JSON.stringify(objects[i])}${i < objects.length - 1 ? ',' : ''}\n`);
    w.out('],"kind":"List","metadata":{"resourceVersion":""}}\n');
    return w.bytes();
  }
  w.out('{\n    "apiVersion": "v1",\n    "items": [\n');
  for (let i = 0; i < objects.length; i++) {
    const text = JSON.stringify(objects[i], null, 4).replace(/\n/g, '\n        ');
    w.out(`        ${text}${i < objects.length - 1 ? ',' : ''}\n`);
  }
  w.out('    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n');
  return w.bytes();
}

/** kubectl's `-o yaml` List; returns the bytes written. */
export function writeKubectlYaml(objects: K8sObject[], fd: number): number {
  const w = writer(fd);
  w.out('apiVersion: v1\nitems:\n');
  for (const o of objects) {
    const text = stringify(o, { lineWidth: 0 }).trimEnd();
    w.out(`- ${text.replace(/\n/g, '\n  ')}\n`);
  }
  w.out('kind: List\nmetadata:\n  resourceVersion: ""\n');
  return w.bytes();
}
