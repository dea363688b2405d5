/**
 * mesh-key-unknown — an annotation or label under a mesh's own prefixes (linkerd.io,
 * config.linkerd.io, sidecar.istio.io, istio.io, kuma.io, consul.hashicorp.com, ...) on a pod
 * template or a namespace that the installed release does not know: a typo or a key of another
 * release, which nothing reads.
 *
 * Why: meshes read only the exact keys of their release; `config.linkerd.io/proxy-cpu-requests`
 * or `sidecar.istio.io/proxyCpu` are ignored silently, and a key an older release read (Kuma 1.x's
 * `kuma.io/builtindns`, consul-k8s 0.x's `connect-service-protocol`) does nothing after an
 * upgrade. The known keys per release come from each mesh's source at every release tag
 * (src/mesh/<mesh>/releases.ts `keys`, `keySource`): Linkerd pkg/k8s/labels.go and its charts,
 * istio/api annotation/annotations.yaml and label/labels.yaml, Kuma metadata/annotations.go and
 * labels.go, consul-k8s connect-inject constants.
 * When: the mesh is installed and its tables cover the release its injectors run (their version,
 * read as the other version checks read it). Where a version was not read or is outside the
 * tables, only keys no release knows are named, and the evidence says so once. Keys only a later
 * release knows stay silent (a table may trail the code by a release). Never the mesh's own
 * namespaces or workloads, never keys outside the mesh's prefixes (other tools' labels), never
 * pods (the keys the mesh writes onto them are in its tables anyway).
 * Known false positives: a key the mesh's code reads that its key table does not list.
 * Fix: rename the key to the nearest key the release knows (when exactly one is within two
 * edits), else remove it; re-create the pods for a template change.
 */
import { namespaceChange, recreateCommands, removeFromTemplate, setOnTemplate } from '../fix/commands.js';
import { comment } from '../fix/steps.js';
import { knownKeys, KNOWN_KEYS } from '../facts/releases.js';
import { unknownKey } from '../mesh/releases.js';
import { profileOf } from '../mesh/registry.js';
import { annotationsOf, labelsOf, nameOf } from '../util/objects.js';
import { defineCheck, messages, meta, say } from './define.js';
import { APP_WORKLOADS } from '../facts/model.js';

const UNKNOWN = '{subject} {key}, a key {release} does not know: nothing reads it.';
const DROPPED = '{subject} {key}, a key {meshTitle} read in {knownIn} but {release} no longer does: nothing reads it.';
const MESSAGES = messages({
  'not-in-template':
    '{subject} {key}, which the injection template of {release} ({from}) does not read: it sets nothing (a template behind the release, or edited).',
  unknown: UNKNOWN,
  'unknown-meant': `${UNKNOWN} It was probably meant as {meant}.`,
  'unknown-nearest': `${UNKNOWN} The nearest keys it knows: {nearest}.`,
  dropped: DROPPED,
  'dropped-meant': `${DROPPED} It was probably meant as {meant}.`,
  'dropped-nearest': `${DROPPED} The nearest keys it knows: {nearest}.`,
});

/** At most this many keys per object are judged (bounded: the object's metadata is untrusted). */
const MAX_KEYS = 256;

const FIELDS = [
  ['labels', 'label'],
  ['annotations', 'annotation'],
] as const;

export default defineCheck({
  ...meta('mesh-key-unknown'),
  facts: [APP_WORKLOADS, KNOWN_KEYS],
  messages: MESSAGES,
  *run(m) {
    for (const { mesh } of m.meshes) {
      const p = profileOf(mesh);
      const t = p.versions?.releases;
      const k = knownKeys(m, mesh);
      if (!t || !k) continue;
      const release = k.releases.length ? `${p.title} ${k.releases.join(', ')}` : p.title;
      const judge = (key: string) => {
        const u = unknownKey(t, k.known, k.releases.length === 1 ? k.releases[0] : undefined, key);
        // A key only the template reads, which the installed template does not mention: named whatever the tables say.
        return u && (!u.laterOnly || k.template?.lacks.includes(key)) ? u : undefined;
      };
      /** What the finding says: the key, whether an earlier release read it, and the nearest keys the release knows. */
      const sayKey = (subject: string, key: string, u: NonNullable<ReturnType<typeof judge>>) => {
        const base = { subject, key, release };
        if (k.template?.lacks.includes(key))
          return say(MESSAGES, 'not-in-template', { ...base, from: k.template.from });
        const meant = u.nearest.length === 1 ? `${u.nearest[0]}${u.does ? ` (${u.does})` : ''}` : undefined;
        const nearest = u.nearest.length > 1 ? u.nearest.join(', ') : undefined;
        if (u.knownIn) {
          const d = { ...base, meshTitle: p.title, knownIn: u.knownIn };
          return meant
            ? say(MESSAGES, 'dropped-meant', { ...d, meant })
            : nearest
              ? say(MESSAGES, 'dropped-nearest', { ...d, nearest })
              : say(MESSAGES, 'dropped', d);
        }
        return meant
          ? say(MESSAGES, 'unknown-meant', { ...base, meant })
          : nearest
            ? say(MESSAGES, 'unknown-nearest', { ...base, nearest })
            : say(MESSAGES, 'unknown', base);
      };
      const evidence = (key: string, where: string, value: string, u: NonNullable<ReturnType<typeof judge>>) => ({
        key: `${where} ${key}=${value}`,
        release,
        ...(u.nearest.length ? { nearest: u.nearest } : {}),
        ...(u.does ? { nearestDoes: u.does } : {}),
        ...(u.knownIn ? { knownIn: u.knownIn } : {}),
        keyTable: t.keySource,
        ...(k.template ? { templates: k.template.from } : {}),
        ...(k.template?.lacks.includes(key) ? { templateOnly: k.template.source } : {}),
        ...(k.note ? { note: k.note } : {}),
      });
      for (const ns of m.list('namespaces')) {
        const name = nameOf(ns);
        if (!name || !m.inScope(name) || p.controlPlane.isNamespace(ns) || p.controlPlane.ownNamespaces.includes(name))
          continue;
        for (const [field, word] of FIELDS) {
          const map = field === 'labels' ? labelsOf(ns) : annotationsOf(ns);
          for (const key of Object.keys(map).sort().slice(0, MAX_KEYS)) {
            const u = judge(key);
            if (!u) continue;
            const value = map[key] ?? '';
            const rename = u.nearest.length === 1 ? [{ key: u.nearest[0]!, value }] : [];
            yield {
              mesh,
              ...sayKey(`Namespace ${name} has ${word}`, key, u),
              resource: { kind: 'Namespace', name },
              evidence: evidence(key, word, value, u),
              fix: [
                ...(rename.length
                  ? []
                  : [comment`no key of ${release} is within two edits of ${key}: remove it, or write the key meant`]),
                ...namespaceChange(m, name, field, [...rename, { key }]),
              ],
            };
          }
        }
      }
      for (const w of m.appWorkloads) {
        if (p.controlPlane.isWorkload(labelsOf(w.template))) continue;
        for (const [field, word] of FIELDS) {
          const map = field === 'labels' ? labelsOf(w.template) : annotationsOf(w.template);
          for (const key of Object.keys(map).sort().slice(0, MAX_KEYS)) {
            const u = judge(key);
            if (!u) continue;
            const value = map[key] ?? '';
            yield {
              mesh,
              ...sayKey(`${w.kind} ${w.namespace}/${w.name} has pod template ${word}`, key, u),
              resource: w.ref,
              evidence: evidence(key, `pod template ${word}`, value, u),
              fix: k.template?.lacks.includes(key)
                ? [
                    comment`the injection template of ${release} does not read ${key}: bring the template of the injector ConfigMap to the release template, or set the value for every proxy in the install values`,
                    ...recreateCommands(w),
                  ]
                : [
                    ...(u.nearest.length === 1
                      ? setOnTemplate(w, field, u.nearest[0]!, value)
                      : [
                          comment`no key of ${release} is within two edits of ${key}: remove it, or write the key meant`,
                        ]),
                    ...removeFromTemplate(w, field, key),
                    ...recreateCommands(w),
                  ],
            };
          }
        }
      }
    }
  },
});
