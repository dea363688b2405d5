/**
 * The value types of Consul's pod annotations and namespace labels and what each consul-k8s release's injector does
 * with a value it cannot parse (issue 31, gen10values; read by the generic validator, src/mesh/key-values.ts).
 *
 * The connect injector answers the admission request with the parse error (`admission.Errored(...)`: "error
 * configuring injection sidecar container: parsing annotation %s:%q", "error determining if transparent proxy is
 * enabled", "unable to parse annotation %q", "error unmarshalling sidecar user volumes"): the API server denies the pod
 * (hashicorp/consul-k8s @a507b1d1 control-plane/connect-inject/webhook/mesh_webhook.go Handle,
 * consul_dataplane_sidecar.go, common/common.go TransparentProxyEnabled, ShouldOverwriteProbes).
 *
 * The upstream list is the exception: up to 1.4 the webhook indexes the port of every item (`parts[1]`) and panics on
 * an item without a colon (hashicorp/consul-k8s#2598; v1.4.0 webhook/container_env.go containerEnvVars), so the call
 * fails and the webhook's failurePolicy decides; from 1.5 it skips such an item (d2547f50 #3956, in v1.5.0), and the
 * endpoints controller refuses to register the pod ("upstream structured incorrectly", "invalid upstream local bind
 * port", controllers/endpoints/endpoints_controller.go processUpstreams): the proxy waits for a registration that
 * never comes, and the pod is never ready.
 */
import type { KeyValueRule, ValueType } from '../release-table.js';

const HEAD = 'hashicorp/consul-k8s @a507b1d1 control-plane/connect-inject';
const QUANTITY: ValueType = { kind: 'quantity' };

const quantity = (key: string, from: string): KeyValueRule => ({
  key,
  on: 'annotation',
  type: QUANTITY,
  from,
  onBad: 'refuse',
  says: `error configuring injection sidecar container: parsing annotation ${key}`,
  source: `${HEAD}/webhook/consul_dataplane_sidecar.go resourceRequirements (resource.ParseQuantity), mesh_webhook.go Handle`,
});

const UNREGISTERED =
  "the endpoints controller does not register the pod's service with Consul, so its proxy waits for a registration that never comes and the pod never becomes ready";

export const CONSUL_VALUES: readonly KeyValueRule[] = [
  {
    key: 'consul.hashicorp.com/connect-service-upstreams',
    on: 'annotation',
    type: { kind: 'upstream-list', panicsWithoutColon: true },
    from: '0.2',
    to: '1.4',
    onBad: 'proxy-fails',
    says: 'runtime error: index out of range',
    fails: UNREGISTERED,
    source:
      'hashicorp/consul-k8s v0.10.0 connect-inject/container_env.go, v1.4.0 control-plane/connect-inject/webhook/container_env.go containerEnvVars (parts[1] of every item); hashicorp/consul-k8s#2598',
  },
  {
    key: 'consul.hashicorp.com/connect-service-upstreams',
    on: 'annotation',
    type: { kind: 'upstream-list' },
    from: '1.5',
    onBad: 'proxy-fails',
    says: 'upstream structured incorrectly',
    fails: UNREGISTERED,
    source: `hashicorp/consul-k8s d2547f50 (#3956, in v1.5.0) webhook/container_env.go; ${HEAD}/controllers/endpoints/endpoints_controller.go processUpstreams, processUnlabeledUpstream, processPreparedQueryUpstream`,
  },
  quantity('consul.hashicorp.com/sidecar-proxy-cpu-limit', '0.16'),
  quantity('consul.hashicorp.com/sidecar-proxy-cpu-request', '0.16'),
  quantity('consul.hashicorp.com/sidecar-proxy-memory-limit', '0.16'),
  quantity('consul.hashicorp.com/sidecar-proxy-memory-request', '0.16'),
  {
    key: 'consul.hashicorp.com/transparent-proxy',
    on: 'annotation',
    type: { kind: 'go-bool' },
    from: '0.26',
    onBad: 'refuse',
    says: 'error determining if transparent proxy is enabled: strconv.ParseBool',
    source: `${HEAD}/common/common.go TransparentProxyEnabled, webhook/mesh_webhook.go Handle`,
  },
  {
    key: 'consul.hashicorp.com/transparent-proxy',
    on: 'label',
    where: ['namespace'],
    type: { kind: 'go-bool' },
    from: '0.26',
    onBad: 'refuse',
    says: 'error determining if transparent proxy is enabled: strconv.ParseBool',
    source: `${HEAD}/common/common.go TransparentProxyEnabled (the namespace label, where the pod has no annotation)`,
  },
  {
    key: 'consul.hashicorp.com/transparent-proxy-overwrite-probes',
    on: 'annotation',
    type: { kind: 'go-bool' },
    from: '0.26',
    onBad: 'refuse',
    says: 'error overwriting readiness or liveness probes: strconv.ParseBool',
    source: `${HEAD}/common/common.go ShouldOverwriteProbes, webhook/mesh_webhook.go Handle`,
  },
  {
    key: 'consul.hashicorp.com/consul-envoy-proxy-concurrency',
    on: 'annotation',
    type: { kind: 'uint', bits: 64 },
    from: '0.45',
    onBad: 'refuse',
    says: 'unable to parse annotation "consul.hashicorp.com/consul-envoy-proxy-concurrency"',
    source: `${HEAD}/webhook/consul_dataplane_sidecar.go getContainerSidecarArgs (strconv.ParseUint)`,
  },
  {
    key: 'consul.hashicorp.com/consul-sidecar-user-volume',
    on: 'annotation',
    type: { kind: 'json', of: 'array' },
    from: '0.46',
    onBad: 'refuse',
    says: 'error unmarshalling sidecar user volumes',
    source: `${HEAD}/webhook/mesh_webhook.go Handle (json.Unmarshal into []corev1.Volume)`,
  },
];
