/**
 * What Istio's injected sidecar dials over the pod network before it is ready (issue 31): istiod's
 * Service `istiod[-<revision>]` on 15012, the secure xDS and the certificate authority
 * (istio/istio@86c9f01fd735fb01d8192f5bcaf0d424afb7f14c
 * manifests/charts/istio-control/istio-discovery/templates/service.yaml: port 15012 `https-dns`,
 * "mTLS with k8s-signed cert", selector `app: istiod`; files/injection-template.yaml: CA_ADDR
 * `istiod[-<rev>].<istioNamespace>.svc:15012`, the default discoveryAddress). 15010 (plaintext xDS)
 * and 15014 (monitoring) are not dialled by a default sidecar; 15017 is the webhook, reached by the
 * API server. Without 15012 pilot-agent logs `dial tcp <istiod>:15012: i/o timeout` and the
 * readiness probe keeps failing: "Envoy proxy is NOT ready" (istio/istio#35569, #31717, #32945).
 */
import { cmd, comment, type Step } from '../../fix/steps.js';
import { configValues, valueAt } from '../config-values.js';
import type { ProxyNetwork, ProxyRanges, RangeSetting } from '../profile.js';
import { istioPodNeeds } from './pod-needs.js';

const SOURCE =
  'istio/istio@86c9f01f manifests/charts/istio-control/istio-discovery/templates/service.yaml, files/injection-template.yaml (CA_ADDR)';

/**
 * The outbound ranges istio-init (or the CNI plugin) redirects to the sidecar (issue 31, gen10net): values
 * global.proxy.includeIPRanges ("*" by default) and excludeIPRanges ("" by default) of the injector's ConfigMap
 * istio-sidecar-injector[-<revision>] key values, replaced per pod by the annotations
 * traffic.sidecar.istio.io/includeOutboundIPRanges and excludeOutboundIPRanges
 * (istio/istio@86c9f01f manifests/charts/istio-control/istio-discovery/values.yaml, files/injection-template.yaml
 * `-i` and `-x` of istio-init: annotation, else the value). A destination outside them leaves the pod without the
 * sidecar: plain text, no routing, and refused by a peer whose PeerAuthentication is STRICT.
 */
const CAPTURE_SOURCE =
  'istio/istio@86c9f01f manifests/charts/istio-control/istio-discovery/values.yaml global.proxy.includeIPRanges/excludeIPRanges, files/injection-template.yaml';
const INCLUDE = 'traffic.sidecar.istio.io/includeOutboundIPRanges';
const EXCLUDE = 'traffic.sidecar.istio.io/excludeOutboundIPRanges';

const list = (v: unknown): string[] =>
  typeof v === 'string'
    ? v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
        .slice(0, 64)
    : [];
const include = (v: unknown): readonly string[] | '*' => (typeof v !== 'string' || v.trim() === '*' ? '*' : list(v));

export const istioRanges: ProxyRanges = {
  role: 'captured',
  meshWide: (m, namespaces) => {
    for (const ns of namespaces.slice(0, 8)) {
      const cms = m
        .inNamespace('configmaps', ns)
        .filter((c) => /^istio-sidecar-injector(?:-|$)/.test(String(c.metadata?.name ?? '')))
        .sort((a, b) => String(a.metadata?.name).localeCompare(String(b.metadata?.name)));
      for (const cm of cms) {
        const values = configValues(cm);
        if (!values) continue;
        const inc = valueAt(values, 'global', 'proxy', 'includeIPRanges');
        const exc = valueAt(values, 'global', 'proxy', 'excludeIPRanges');
        return {
          name: 'global.proxy.includeIPRanges and excludeIPRanges',
          include: include(inc),
          exclude: list(exc),
          from: `values of ConfigMap ${ns}/${String(cm.metadata?.name)}`,
        };
      }
    }
    return undefined;
  },
  forPod: (annotations, meshWide): RangeSetting | undefined => {
    const inc = annotations[INCLUDE];
    const exc = annotations[EXCLUDE];
    if (inc === undefined && exc === undefined) return undefined;
    return {
      name: [inc !== undefined ? INCLUDE : '', exc !== undefined ? EXCLUDE : ''].filter(Boolean).join(' and '),
      include: inc !== undefined ? include(inc) : (meshWide?.include ?? '*'),
      exclude: exc !== undefined ? list(exc) : (meshWide?.exclude ?? []),
      from: 'annotations of the pod template',
    };
  },
  outside:
    'connections to those addresses leave the pod without the sidecar: plain text, none of the mesh routing, and refused by a destination whose PeerAuthentication is STRICT',
  source: CAPTURE_SOURCE,
  fix: (setting, add, ns): Step[] => {
    const inc = setting.include === '*' ? '*' : [...setting.include, ...add].join('\\,');
    const exc = setting.exclude.filter((x) => !add.includes(x)).join('\\,');
    return [
      comment`istio-init reads the ranges when a pod is created: set them on the istiod install, then restart the meshed workloads`,
      cmd`helm upgrade istiod istio/istiod -n ${ns} --reuse-values ${{
        args: [
          ['--set=global.proxy.includeIPRanges=', { value: inc }],
          ['--set=global.proxy.excludeIPRanges=', { value: exc }],
        ],
      }}`,
    ];
  },
};

export const istioNetwork: ProxyNetwork = {
  endpoints: [
    {
      role: 'xDS configuration and workload certificates',
      service: 'istiod',
      servicePrefix: true,
      ports: [15012],
      podLabels: { app: 'istiod' },
      from: 'the istio-proxy sidecar',
      source: SOURCE,
    },
  ],
  symptom: 'istio-proxy never becomes ready ("Envoy proxy is NOT ready", "dial tcp ...:15012: i/o timeout" in its log)',
  podSpec: istioPodNeeds,
};
