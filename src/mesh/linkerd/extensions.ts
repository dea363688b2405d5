/**
 * Linkerd's extensions that are meshed through their namespace's annotation only (issue 31 items 5 and 12, gen13ext).
 * From stable-2.10.0 to stable-2.11.x the linkerd-viz and linkerd-jaeger charts put `linkerd.io/inject: enabled` on
 * the Namespace they render (viz/charts/linkerd-viz/templates/namespace.yaml, jaeger/charts/linkerd-jaeger/templates/
 * namespace.yaml at linkerd/linkerd2@2a704f5f stable-2.10.2 and @a55e3598 stable-2.11.5), and that Namespace is rendered
 * only with `installNamespace: true`; their pod templates carry no marker (viz metrics-api.yaml, jaeger
 * jaeger-injector.yaml at the same tags). Installed with Helm into a namespace Helm creates (--create-namespace,
 * installNamespace=false), their pods get no proxy and the extension does not work (linkerd/linkerd2#7946); their own
 * checks say so ("linkerd-viz pods are injected": viz/pkg/healthcheck/healthcheck.go#L139, "jaeger extension pods are
 * injected": jaeger/cmd/check.go#L75 at stable-2.10.2). From stable-2.12.0 the pod templates carry the annotation
 * themselves (viz/charts/linkerd-viz/templates/metrics-api.yaml#L32, jaeger-injector.yaml#L26 at
 * linkerd/linkerd2@c4d02486): such a pod that lacks the proxy asks for it, and the injection checks judge it. The
 * multicluster extension's gateway template carries the annotation in every release
 * (multicluster/charts/linkerd-multicluster/templates/gateway.yaml#L74 at stable-2.10.0): not listed.
 */
const EXTENSION = 'linkerd.io/extension';
const BY_NAMESPACE: Record<string, string> = {
  viz: 'linkerd/linkerd2@2a704f5f viz/charts/linkerd-viz/templates/namespace.yaml (stable-2.10.0 to stable-2.11.x; pod templates from stable-2.12.0)',
  jaeger:
    'linkerd/linkerd2@2a704f5f jaeger/charts/linkerd-jaeger/templates/namespace.yaml (stable-2.10.0 to stable-2.11.x; pod templates from stable-2.12.0)',
};

const WHERE = 'its charts of stable-2.10 and stable-2.11 set it on the Namespace they render, not on its pod templates';

export function linkerdMeshedByNamespace(labels: Record<string, string>) {
  const extension = labels[EXTENSION];
  const source = extension !== undefined ? BY_NAMESPACE[extension] : undefined;
  return extension !== undefined && source !== undefined ? { extension, where: WHERE, source } : undefined;
}
