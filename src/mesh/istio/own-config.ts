/**
 * A denial that says Istio's injector could not parse what its own template rendered: the
 * template (ConfigMap istio-sidecar-injector[-<revision>], key `config`) is broken, not the pod.
 *
 * Source: istio/istio pkg/kube/inject/inject.go, `injectionData` (later `RunTemplate`): the template
 * is rendered, then parsed with ghodss/sigs.k8s.io yaml (`yaml.Unmarshal` / `applyOverlayYAML`);
 * that error came back raw through 1.2 (`error converting YAML to JSON: yaml: line 3: ...`, quoted
 * by istio/istio#7762 on 1.0 and #15152 on 1.2.0) and is prefixed `failed parsing generated
 * injected YAML (check Istio sidecar injector configuration): ` from 1.3 on (#18107 on 1.3.3; newer
 * trees drop the word Istio). webhook.go returns it as the denial (`toAdmissionResponse(err)`).
 * The pod itself is decoded as JSON first (`could not unmarshal raw object` / `json: ...`), and an
 * annotation the injector refuses is `invalid value '...' for annotation '...'`: neither matches.
 */
import type { InjectorOwnConfig } from '../profile.js';
import { injectorConfigName, serviceRevision } from './install.js';

const RENDERED =
  /^(?:failed parsing generated injected YAML \(check (?:Istio )?sidecar injector configuration\):\s*)?(?:error converting YAML to JSON|error unmarshaling JSON)\b/i;

/** The injector ConfigMap of the webhook's revision, when the denial is a template that renders unparseable YAML. */
export function istioOwnConfig(reason: string, service: string | undefined): InjectorOwnConfig | undefined {
  const r = reason.trim();
  if (!RENDERED.test(r) || /\bannotation\b/i.test(r)) return undefined;
  return {
    configMap: injectorConfigName(service ? serviceRevision(service) : undefined),
    key: 'config',
    does: 'renders its injection template from',
  };
}
