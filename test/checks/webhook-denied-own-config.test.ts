/**
 * webhook-denied telling an injector failing on its OWN configuration (profile install.ownConfig) from a denial about
 * the pod: real reports istio/istio#7244 and #7762 (1.0, raw parse error), #15152 (1.2.0), #18107 (1.3.3, prefixed),
 * linkerd/linkerd2#11615 (2.14, values of the wrong type); near misses where the reason is about the pod.
 */
import { describe, expect, it } from 'vitest';
import { cluster, findings } from '../helpers/fixtures.js';
import { profileOf } from '../../src/mesh/registry.js';

const F = (file: string) => `checks/webhook-denied/${file}.yaml`;

describe('webhook-denied: the injector cannot parse its own configuration', () => {
  const cases: [string, Parameters<typeof cluster>[0], string, string][] = [
    ['fires-istio-1.5-own-template-remote-chart', 'istio-1.5', 'istio-system/istio-sidecar-injector', 'config'],
    ['fires-istio-own-template-prefixed', 'istio', 'istio-system/istio-sidecar-injector', 'config'],
    ['fires-linkerd-own-values', 'linkerd', 'linkerd/linkerd-config', 'values'],
  ];
  for (const [file, base, configMap, key] of cases)
    it(`${file}: names ${configMap} key ${key}, and restores it from the chart`, () => {
      const [f, ...rest] = findings(cluster(base, [F(file)]), ['webhook-denied']);
      expect(rest).toEqual([]);
      expect(f!.messageId).toBe('webhook-denied/config');
      expect(f!.message).toContain(`ConfigMap ${configMap} key ${key}`);
      expect(f!.message).not.toContain('not read');
      expect(f!.evidence).toMatchObject({ configMap, key, configMapRead: true });
      expect(f!.evidence).not.toHaveProperty('annotation');
      expect(f!.causedBy).toBeUndefined();
      const fix = JSON.stringify(f!.fix);
      expect(fix).toContain('restore it from the chart');
      expect(fix).not.toContain('annotations');
    });

  it('a denial about the pod stays a denial about the pod (near misses)', () => {
    const [f] = findings(cluster('istio', [F('fires-istio-annotation')]), ['webhook-denied']);
    expect(f!.messageId).toBe('webhook-denied/denied');
    const istio = profileOf('istio').install.ownConfig!;
    const linkerd = profileOf('linkerd').install.ownConfig!;
    // The pod itself failing to decode, an annotation refused, a template function failing on an annotation value.
    for (const r of [
      'could not unmarshal raw object: json: cannot unmarshal string into Go value',
      "invalid value 'x' for annotation 'sidecar.istio.io/interceptionMode': interceptionMode invalid",
      'failed to run injection template: template: inject:12: executing "inject" at <annotation>: error',
      'error converting YAML to JSON: yaml: line 2: mapping values are not allowed, annotation proxy.istio.io/config',
      'json: cannot unmarshal string into Go struct field',
    ])
      expect(istio(r, 'istiod')).toBeUndefined();
    for (const r of [
      'failed to unmarshal JSON from: /etc/other/values: error',
      'error unmarshaling JSON: while decoding JSON',
      'pods "x" is forbidden',
    ])
      expect(linkerd(r, undefined)).toBeUndefined();
    // A revision's own ConfigMap; the pre-2.10 Linkerd keys.
    expect(istio('error converting YAML to JSON: yaml: line 3: x', 'istiod-canary')?.configMap).toBe(
      'istio-sidecar-injector-canary',
    );
    expect(linkerd('failed to unmarshal JSON from: /var/run/linkerd/config/proxy: unknown field', undefined)?.key).toBe(
      'proxy',
    );
    expect(
      linkerd('failed to read config file: open /var/run/linkerd/config/values: no such file or directory', undefined)
        ?.key,
    ).toBe('values');
    // Meshes whose injector reads no configuration per request (Kuma, Consul): nothing is claimed.
    // Kuma: a ContainerPatch whose operation value is no JSON (kumahq/kuma-website#885), not another patch failure.
    const kuma = profileOf('kuma').install.ownConfig!;
    expect(
      kuma(
        'could not apply patches ["container-patch"]: json: error calling MarshalJSON for type *json.RawMessage: invalid character \'m\' after top-level value',
        undefined,
      ),
    ).toMatchObject({ kind: 'ContainerPatch', configMap: 'container-patch' });
    for (const r of [
      'could not apply patches ["p"]: add operation does not apply: doc is missing path: "/resources/limits/cpu"',
      'could not get ContainerPatch p',
      'invalid character in annotation kuma.io/x',
    ])
      expect(kuma(r, undefined)).toBeUndefined();
    expect(profileOf('consul').install.ownConfig).toBeUndefined();
  });
});
