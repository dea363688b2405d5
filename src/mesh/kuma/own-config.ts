/**
 * A denial that says Kuma's injector could not apply a ContainerPatch the pod names (annotation
 * kuma.io/container-patches): the patch's value, not the pod, is what fails.
 *
 * Source: kumahq/kuma@fa5bf900 (1.7.0) pkg/plugins/resources/k8s/native/api/v1alpha1/container_patch.go lines 45-47
 * ("Value must be a string representing a valid json object ... String has to be escaped with \" to be valid a json
 * object") and line 73 (`json.RawMessage(o.Value)`: the value is copied into the JSON patch as is), and
 * pkg/plugins/runtime/k8s/webhooks/injector/injector.go line 321 (`could not apply patches %q`; @948e6a43, 2.9.0, line
 * 473): a value that is no JSON document fails when the patch is marshalled (`json: error calling MarshalJSON for type
 * *json.RawMessage: invalid character ...`), and the webhook answers with that error. Seen in kumahq/kuma-website#885
 * (1.7: `value: "500m"`). A patch whose path or operation does not apply fails with another error (not this one).
 * Meshdoctor does not read ContainerPatches: the name comes from the denial.
 */
import type { InjectorOwnConfig } from '../profile.js';

const PATCHES = /^could not apply patches \[([^\]]{1,500})\]: (.{0,2000})$/is;
const NOT_JSON =
  /\bjson: (?:error calling MarshalJSON for type \*json\.RawMessage: )?invalid character|unexpected end of JSON input|looking for beginning of value/i;

/** The ContainerPatch whose operation value is no JSON document, when the denial says so. */
export function kumaOwnConfig(reason: string): InjectorOwnConfig | undefined {
  const x = PATCHES.exec(reason.trim());
  if (!x || !NOT_JSON.test(x[2] ?? '')) return undefined;
  const names = [...(x[1] ?? '').matchAll(/"([a-z0-9][a-z0-9.-]{0,252})"/g)].map((n) => n[1]!);
  if (!names.length) return undefined;
  return {
    configMap: names.join(', '),
    kind: names.length > 1 ? 'ContainerPatches' : 'ContainerPatch',
    key: 'the value of its sidecarPatch or initPatch operations',
    does: 'applies the JSON patch operations of',
    means:
      'must be a JSON document written inside the YAML string (a string quoted twice: value: \'"500m"\'), and one of them is not valid JSON',
  };
}
