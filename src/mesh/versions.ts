/**
 * The pieces the profiles read versions with (src/mesh/<mesh>/support.ts): image tags, semantic
 * versions, a container of a pod or of a Deployment's template. Mesh-free.
 */
import { podSpec } from '../k8s/pods.js';
import type { K8sObject } from '../util/types.js';
import { isObj, str } from '../util/objects.js';

/**
 * The tag of an image reference (`cr.l5d.io/linkerd/proxy:stable-2.14.10` -> `stable-2.14.10`),
 * the part before a digest when both are given; undefined for a digest-only or untagged image.
 */
export function imageTag(image: string | undefined): string | undefined {
  if (!image) return undefined;
  const noDigest = image.split('@')[0]!;
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  if (colon <= slash) return undefined;
  const tag = noDigest.slice(colon + 1);
  return /^[\w][\w.-]{0,127}$/.test(tag) ? tag : undefined;
}

/** The leading x.y[.z] of a version (`v1.28.1`, `1.27.1-distroless`, `2.0.3`): three numbers, or undefined. */
export function semver(text: string | undefined): [number, number, number] | undefined {
  const m = typeof text === 'string' ? /^v?(\d{1,6})\.(\d{1,6})(?:\.(\d{1,6}))?(?![\d])/.exec(text) : null;
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

/** Order of two x.y.z versions; undefined when either is not one. */
export function compareSemver(a: string, b: string): number | undefined {
  const x = semver(a);
  const y = semver(b);
  if (!x || !y) return undefined;
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/** "1.28" of "1.28.1" (a support table's row); undefined when not a version. */
export function minorRelease(text: string): string | undefined {
  const v = semver(text);
  return v ? `${v[0]}.${v[1]}` : undefined;
}

/** A container (or init container: a native sidecar) of a pod, by name. */
export function podContainer(pod: K8sObject, name: string): Record<string, any> | undefined {
  const spec = podSpec(pod as { spec?: unknown });
  // As [...containers(spec), ...initContainers(spec)].find(...), without the copies (asked per pod).
  for (const list of [spec.containers, spec.initContainers])
    if (Array.isArray(list)) for (const c of list) if (isObj(c) && c.name === name) return c;
  return undefined;
}

/** A container of a Deployment's pod template, by name. */
export function templateContainer(deployment: K8sObject, name: string): Record<string, any> | undefined {
  const template =
    isObj(deployment.spec) && isObj(deployment.spec.template) ? (deployment.spec.template as K8sObject) : undefined;
  return template ? podContainer(template, name) : undefined;
}

/** "Deployment ns/name" of an object, for evidence. */
export const deploymentText = (d: K8sObject): string =>
  `Deployment ${str(d.metadata?.namespace) ?? ''}/${str(d.metadata?.name) ?? ''}`;

/** The version of a container's image tag, with where it was read (undefined: no container, no tag, or the tag is not a version). */
export function containerVersion(
  c: Record<string, any> | undefined,
  where: string,
  valid: (tag: string) => boolean = (t) => !!semver(t),
): { version: string; from: string } | undefined {
  const image = str(c?.image);
  const tag = imageTag(image);
  return tag && valid(tag) ? { version: tag, from: `${where} image ${image}` } : undefined;
}
