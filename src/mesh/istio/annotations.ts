/**
 * The pod annotations istiod validates before it injects: an invalid value makes the injection
 * fail, and the webhook's error denies the pod (istioctl analyze: IST0125 InvalidAnnotation).
 * istio/istio@86c9f01f pkg/kube/inject/validate.go#L40-L62 (AnnotationValidation), #L72-L81
 * ("invalid value '%s' for annotation '%s': %v"); inject.go#L457-L460 ("Injection failed due to
 * invalid annotations"); webhook.go#L1271-L1275 (the error becomes the admission response).
 * `proxy.istio.io/config` (a ProxyConfig in YAML) and the interface lists are not judged here.
 */
import { isIP } from 'node:net';
import { parseQuantity } from '../../k8s/quantity.js';

/** Go's strconv.ParseUint(v, 10, bits). */
const uint = (v: string, bits: number) => /^[0-9]+$/.test(v) && Number(v) < 2 ** bits;

/** pkg/kube/inject parsePort: a uint16 after trimming spaces. */
const port = (v: string) => uint(v.trim(), 16);

/** parsePorts: the trimmed value, split at commas, each a port (empty: none). */
function ports(name: string, v: string): string | undefined {
  const t = v.trim();
  if (!t) return undefined;
  const bad = t.split(',').find((p) => !port(p));
  return bad === undefined ? undefined : `${name} invalid: failed parsing port '${bad}'`;
}

/** validateCIDRList: comma-separated prefixes as netip.ParsePrefix reads them (address/bits, no zone). */
function cidrs(name: string, v: string): string | undefined {
  if (!v) return undefined;
  for (const c of v.split(',')) {
    const [addr, bits, more] = c.split('/');
    const family = addr ? isIP(addr) : 0;
    const ok =
      more === undefined &&
      family !== 0 &&
      bits !== undefined &&
      /^(0|[1-9][0-9]*)$/.test(bits) &&
      Number(bits) <= (family === 4 ? 32 : 128);
    if (!ok) return `${name} invalid: failed parsing cidr '${c}'`;
  }
  return undefined;
}

/** Go's strconv.ParseBool. */
const goBool = (v: string) =>
  ['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v);

const RULES: Record<string, (v: string) => string | undefined> = {
  'sidecar.istio.io/interceptionMode': (v) =>
    ['REDIRECT', 'TPROXY', 'NONE'].includes(v) ? undefined : `interceptionMode invalid, use REDIRECT,TPROXY,NONE: ${v}`,
  'status.sidecar.istio.io/port': (v) =>
    port(v) ? undefined : `excludeInboundPorts invalid: failed parsing port '${v}'`,
  'readiness.status.sidecar.istio.io/initialDelaySeconds': (v) =>
    uint(v, 32) ? undefined : 'not an unsigned 32-bit integer',
  'readiness.status.sidecar.istio.io/periodSeconds': (v) =>
    uint(v, 32) ? undefined : 'not an unsigned 32-bit integer',
  'readiness.status.sidecar.istio.io/failureThreshold': (v) =>
    uint(v, 32) ? undefined : 'not an unsigned 32-bit integer',
  'traffic.sidecar.istio.io/includeOutboundIPRanges': (v) => (v === '*' ? undefined : cidrs('includeIPRanges', v)),
  'traffic.sidecar.istio.io/excludeOutboundIPRanges': (v) => cidrs('excludeIPRanges', v),
  'traffic.sidecar.istio.io/includeInboundPorts': (v) => (v === '*' ? undefined : ports('includeInboundPorts', v)),
  'traffic.sidecar.istio.io/excludeInboundPorts': (v) => ports('excludeInboundPorts', v),
  'traffic.sidecar.istio.io/excludeOutboundPorts': (v) => ports('excludeOutboundPorts', v),
  'prometheus.istio.io/merge-metrics': (v) => (goBool(v) ? undefined : 'not a boolean'),
  'sidecar.istio.io/proxyCPU': (v) => (parseQuantity(v) !== undefined ? undefined : 'not a resource quantity'),
  'sidecar.istio.io/proxyMemory': (v) => (parseQuantity(v) !== undefined ? undefined : 'not a resource quantity'),
  'sidecar.istio.io/proxyCPULimit': (v) => (parseQuantity(v) !== undefined ? undefined : 'not a resource quantity'),
  'sidecar.istio.io/proxyMemoryLimit': (v) => (parseQuantity(v) !== undefined ? undefined : 'not a resource quantity'),
};

/** The pod annotations istiod rejects, in key order: key, value and why (its own words where they are fixed). */
export function invalidAnnotations(annotations: Record<string, string>): { key: string; value: string; why: string }[] {
  // Only the keys a rule validates are sorted (asked for every Istio decision: most have none).
  return Object.keys(annotations)
    .filter((key) => Object.hasOwn(RULES, key)) // keys are the cluster's: never an Object member
    .sort()
    .flatMap((key) => {
      const rule = RULES[key];
      const value = annotations[key]!;
      const why = rule ? rule(value) : undefined;
      return why === undefined ? [] : [{ key, value, why }];
    });
}
