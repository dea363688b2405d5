/**
 * The address ranges of a mesh whose only setting is a pod annotation listing outbound CIDRs left out of the
 * redirection to the proxy (issue 31, gen10net: Kuma's traffic.kuma.io/exclude-outbound-ips, Consul's
 * consul.hashicorp.com/transparent-proxy-exclude-outbound-cidrs; each mesh's network.ts cites its source). No
 * mesh-wide setting is read: pods without the annotation are not judged.
 */
import { comment, lit } from '../fix/steps.js';
import type { ProxyRanges } from './profile.js';

export function excludedOutboundAnnotation(key: string, source: string, outside: string): ProxyRanges {
  return {
    role: 'captured',
    meshWide: () => undefined,
    forPod: (annotations) => {
      const v = annotations[key];
      if (v === undefined) return undefined;
      return {
        name: key,
        include: '*',
        exclude: v
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean)
          .slice(0, 64),
        from: 'annotations of the pod template',
      };
    },
    outside,
    source,
    fix: () => [comment`only the pod annotation ${lit(key)} sets these ranges`],
  };
}
