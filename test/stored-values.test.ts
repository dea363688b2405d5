/**
 * The mesh's own stored configuration judged against its installed release (issue 31.6/31.7, gen13values: the release
 * tables' `stored` rules, src/facts/stored-values.ts): a refusal or an image pull the stored value caused names it;
 * near misses (the value of the shape the release reads, a field the release does not have, an image of a registry
 * that serves it, a pull that fails for its tag) stay what they were. Real reports: test/reports-gen13values.test.ts,
 * istio/istio#19131 and #51071 (test/reports-blind11.test.ts), kumahq/kuma-website#885 (test/reports-blind9.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { cluster, findings } from './helpers/fixtures.js';
import { isBad } from '../src/facts/stored-values.js';
import { profileOf } from '../src/mesh/registry.js';
import { MESH_NAMES } from '../src/mesh/names.js';

const F = (file: string) => `stored-values/${file}.yaml`;

describe('stored configuration the installed release cannot use', () => {
  it('linkerd/linkerd2#11615 (stable-2.14 on): proxyInit.runAsRoot a string is named with the type the release reads', () => {
    const [f, ...rest] = findings(cluster('linkerd', [F('fires-linkerd-runasroot-string')]), ['webhook-denied']);
    expect(rest).toEqual([]);
    expect(f!.messageId).toBe('webhook-denied/stored-value');
    expect(f!.message).toContain('ConfigMap linkerd/linkerd-config key values holds proxyInit.runAsRoot: "true"');
    expect(f!.message).toContain('a boolean');
    expect(f!.evidence).toMatchObject({ storedValue: 'proxyInit.runAsRoot: "true"', key: 'values' });
    expect(String(f!.evidence.source)).toMatch(/@0bd3f732/);
    expect(f!.causedBy).toBeUndefined();
  });

  const denials: [string, Parameters<typeof cluster>[0], string][] = [
    ['ok-istio-pilot-cni-object', 'istio', 'webhook-denied/denied'],
    ['ok-linkerd-2.10-crtexpiry-time', 'linkerd-stable-2.10', 'webhook-denied/config'],
    ['ok-linkerd-2.10-runasroot-string', 'linkerd-stable-2.10', 'webhook-denied/config'],
  ];
  for (const [file, base, id] of denials)
    it(`${file}: a refusal the stored values do not explain stays ${id}`, () => {
      const fs = findings(cluster(base, [F(file)]), ['webhook-denied']);
      expect(fs.map((f) => f.messageId)).toEqual([id]);
      expect(fs[0]!.evidence).not.toHaveProperty('storedValue');
    });

  const pulls: [string, Parameters<typeof cluster>[0]][] = [
    ['ok-istio-1.5-proxy-init-proxyv2-tag-missing', 'istio-1.5'],
    ['ok-kuma-docker-io-tag-missing', 'kuma-1.x'],
  ];
  for (const [file, base] of pulls)
    it(`${file}: a pull that fails for its tag names no stored value`, () => {
      const fs = findings(cluster(base, [F(file)]), ['proxy-cannot-start']);
      expect(fs.length).toBeGreaterThan(0);
      for (const f of fs) {
        expect(f.message).toContain('no such image or tag');
        expect(f.message).not.toContain('the injector wrote it from');
        expect(f.evidence).not.toHaveProperty('storedValue');
      }
    });

  it('a value is bad only as the rule says: by its type, a pattern it matches, or one it lacks', () => {
    expect(isBad({ type: 'boolean' }, false)).toBe(true);
    expect(isBad({ type: 'boolean' }, { enabled: false })).toBe(false);
    expect(isBad({ type: 'boolean' }, undefined)).toBe(false);
    expect(isBad({ type: 'string' }, true)).toBe(false);
    expect(isBad({ type: 'string', unless: '^\\d{4}-\\d{2}-\\d{2}T' }, '')).toBe(true);
    expect(isBad({ type: 'string', unless: '^\\d{4}-\\d{2}-\\d{2}T' }, '2031-04-09T12:00:00Z')).toBe(false);
    expect(isBad({ matches: '(^|/)proxy_init(:|$)' }, 'proxy_init')).toBe(true);
    expect(isBad({ matches: '(^|/)proxy_init(:|$)' }, 'docker.io/istio/proxy_init:1.4.0')).toBe(true);
    expect(isBad({ matches: '(^|/)proxy_init(:|$)' }, 'proxyv2')).toBe(false);
    expect(isBad({}, 'anything')).toBe(false);
  });

  it('every rule names releases of its table, a source at a tag or commit, and a symptom', () => {
    for (const mesh of MESH_NAMES) {
      const t = profileOf(mesh).versions?.releases;
      for (const r of t?.stored ?? []) {
        expect(t!.order, `${mesh} ${r.path}`).toContain(r.from);
        if (r.to) expect(t!.order.indexOf(r.to)).toBeGreaterThanOrEqual(t!.order.indexOf(r.from));
        expect(r.source).toMatch(/@[0-9a-f]{8}|@[a-z]|@\d+\.\d+\.\d+/);
        expect(Boolean(r.configMap) === Boolean(r.key)).toBe(true);
        if (!r.configMap) expect(r.fails.on).toBe('image');
        for (const re of [r.bad.matches, r.bad.unless, r.fails.on === 'injection' ? r.fails.says : undefined])
          if (re) expect(() => new RegExp(re)).not.toThrow();
      }
    }
  });
});
