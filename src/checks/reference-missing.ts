/**
 * reference-missing — a mesh marker or setting names an object that must exist, and it does not.
 *
 * Why: a value that names an object (Kuma's `kuma.io/mesh` a Mesh, `kuma.io/container-patches`
 * ContainerPatches; with ACLs, a Consul service name the pod's ServiceAccount) is accepted by the API
 * server whatever it names, and fails later: the injector refuses the pod, or admits it without a
 * proxy, or the proxy cannot register. Each mesh keeps one table of its references by release
 * (src/mesh/<mesh>/references.ts); the facts layer resolves them (src/facts/references.ts).
 * When: workloads that ask the mesh for injection. A missing object only where its kind was read in
 * its namespace, listed whole; a name that must equal the one in use (the pod's ServiceAccount) by
 * comparison. Where the kind is not read (a mesh's own resources, a kind read only by name) the
 * finding says it was not examined, and only while the workload shows the symptom: it wants pods and
 * has none, some run without the mesh's proxy, or some are not ready. A workload whose pods run meshed stays silent.
 * A kind this run could not read there (a refused list, a namespace outside `-n`) is the coverage's to name, not a
 * finding's: reading everything might show the object.
 * Addresses (issue 31, gen12refs): a value that is host[:port] names a Service resolved as the pod's resolver does
 * (a name without a namespace in the pod's own namespace), or as the control plane's registry does (extension
 * providers); the finding names where a Service of that name is, or that its namespace does not exist. The mesh's
 * own configuration (the mesh ConfigMap's discoveryAddress) is judged once, on its ConfigMap, with the pods whose proxy
 * is not ready. IP addresses and names that may be external are not judged; a namespace outside this run is not read.
 * Known false positives: an object created since the snapshot.
 * Fix: the command listing the objects of the kind, then create the missing one or correct the
 * marker; for a Consul service name, the annotation naming the ServiceAccount in use.
 */
import { podStates, desiredPods } from '../facts/model.js';
import { CONFIG_REFERENCES, REFERENCES } from '../facts/references.js';
import { profileOf } from '../mesh/registry.js';
import { arr, isObj, nameOf } from '../util/objects.js';
import type { K8sObject } from '../util/types.js';

/** The pod's Ready condition is True, or it completed. */
const ready = (pod: K8sObject): boolean => {
  const st = isObj(pod.status) ? pod.status : {};
  if (st.phase === 'Succeeded') return true;
  return arr(st.conditions).some((c) => isObj(c) && c.type === 'Ready' && c.status === 'True');
};
import { defineCheck, messages, meta, say } from './define.js';

/** Where a missing Service's name is, and whether its namespace exists, in words (empty when neither). */
const elsewhereText = (
  t: { name: string; namespace?: string },
  r: { noNamespace?: boolean; elsewhere?: readonly string[] },
) =>
  [
    ...(r.noNamespace ? [`; namespace ${t.namespace} does not exist`] : []),
    ...(r.elsewhere?.length
      ? [
          `; a Service ${t.name} is in namespace ${r.elsewhere.join(', ')}, so the address lacks or misnames its namespace`,
        ]
      : []),
  ].join('');

/** At most this many pods are scanned, and three named, for proxies that are not ready. */
const MAX_PODS = 2000;

const MESSAGES = messages({
  missing: '{workload} has {said}, naming {title} {name}{place}, but there is none ({read}): {effect}.',
  'config-address-missing':
    '{said}, naming Service {name} in namespace {namespace}, but there is none ({read}){elsewhere}: {effect}{seen}.',
  'config-registry-name':
    '{said}, which the control plane looks up as a hostname of its service registry: Service {namespace}/{name} is registered as {registryName}, and no Service as {value} (ServiceEntries were not read): {effect}.',
  'address-missing':
    '{workload} has {said}, an address naming Service {name} in namespace {namespace}, but there is none ({read}){elsewhere}: {effect}.',
  mismatch:
    '{workload} has {said}, which must name the {title} its pods run as, but they run as {title} {actual} ({field}): {effect}.',
  'not-read':
    '{workload} has {said}, naming {title} {name}{place}, and {symptom}; {why}, so whether {title} {name} exists was not examined. If it does not, {effect}.',
});

export default defineCheck({
  ...meta('reference-missing'),
  facts: [REFERENCES, CONFIG_REFERENCES],
  messages: MESSAGES,
  *run(m) {
    for (const w of m.appWorkloads) {
      const refs = m.fact(REFERENCES, w);
      if (refs.length === 0) continue;
      const workload = `${w.kind} ${w.namespace}/${w.name}`;
      const states = podStates(w);
      const want = desiredPods(w);
      for (const r of refs) {
        const { ref } = r;
        const t = ref.target;
        const base = {
          mesh: r.mesh,
          resource: w.ref,
          fix: ref.fix,
        };
        const evidence = {
          marker: ref.said,
          names: { kind: t.title, ...(t.namespace ? { namespace: t.namespace } : {}), name: t.name },
          state: r.state,
          source: ref.source,
          pods: states.active.map(nameOf),
        };
        const place = t.namespace ? ` in namespace ${t.namespace}` : '';
        if (r.state === 'mismatch' && ref.mustBe) {
          yield {
            ...base,
            ...say(MESSAGES, 'mismatch', {
              workload,
              said: ref.said,
              title: t.title,
              actual: ref.mustBe.name,
              field: `spec.${ref.mustBe.field}`,
              effect: ref.missing,
            }),
            affectedPods: Math.max(want, 1),
            evidence: { ...evidence, inUse: ref.mustBe.name },
          };
        } else if (r.state === 'missing' && ref.address !== undefined) {
          const elsewhere = elsewhereText(t, r);
          yield {
            ...base,
            ...(ref.severity ? { severity: ref.severity } : {}),
            ...say(MESSAGES, 'address-missing', {
              workload,
              said: ref.said,
              name: t.name,
              namespace: t.namespace ?? '',
              read: r.why,
              elsewhere,
              effect: ref.missing,
            }),
            affectedPods: Math.max(want, 1),
            evidence: {
              ...evidence,
              address: ref.address,
              ...(r.elsewhere?.length ? { sameNameIn: r.elsewhere } : {}),
              ...(r.noNamespace ? { namespaceExists: false } : {}),
            },
          };
        } else if (r.state === 'missing') {
          yield {
            ...base,
            ...say(MESSAGES, 'missing', {
              workload,
              said: ref.said,
              title: t.title,
              name: t.name,
              place,
              read: r.why,
              effect: ref.missing,
            }),
            affectedPods: Math.max(want, 1),
            evidence,
          };
        } else if (r.state === 'not-read' && !r.unreadHere) {
          // A kind meshdoctor never reads is said, with the symptom; one this run could not read is the coverage's.
          const proxy = profileOf(r.mesh).containers.proxy;
          const unmeshed = states.unmeshed.length;
          const notReady = states.active.filter((pod) => !ready(pod)).length;
          const symptom =
            want > 0 && states.active.length === 0
              ? `it has no pods (${want} wanted)`
              : unmeshed > 0
                ? `${unmeshed} of its ${states.active.length} pods run without ${proxy}`
                : notReady > 0
                  ? `${notReady} of its ${states.active.length} pods are not ready`
                  : undefined;
          if (!symptom) continue;
          yield {
            ...base,
            severity: 'warning' as const,
            ...say(MESSAGES, 'not-read', {
              workload,
              said: ref.said,
              title: t.title,
              name: t.name,
              place,
              symptom,
              why: r.why,
              effect: ref.missing,
            }),
            affectedPods: Math.max(unmeshed, notReady, want > 0 && states.active.length === 0 ? want : 0, 1),
            evidence: { ...evidence, examined: false },
          };
        }
      }
    }
    // The meshes' own configuration (every proxy of the mesh or revision reads it): once, on its object.
    for (const r of m.fact(CONFIG_REFERENCES)) {
      if (r.state !== 'missing') continue;
      const { ref } = r;
      const t = ref.target;
      const proxy = profileOf(r.mesh).containers.proxy;
      const notReady: string[] = [];
      let n = 0;
      // The proxies that cannot start without it (an address they dial to start), not those of a provider.
      const dialled =
        ref.severity === undefined && ref.registryName === undefined && ref.key.endsWith('discoveryAddress');
      for (const pod of dialled ? m.list('pods').slice(0, MAX_PODS) : []) {
        const ns = pod.metadata?.namespace ?? '';
        if (!m.seesNamespace(ns)) continue;
        const st = isObj(pod.status) ? pod.status : {};
        const c = arr(st.containerStatuses).find((x) => isObj(x) && x.name === proxy);
        if (!isObj(c) || c.ready === true) continue;
        n++;
        if (notReady.length < 3) notReady.push(`${ns}/${nameOf(pod)}`);
      }
      const seen = n ? `; seen: ${n} pods whose ${proxy} is not ready, ${notReady.join(', ')}` : '';
      yield {
        mesh: r.mesh,
        ...(ref.severity ? { severity: ref.severity } : {}),
        ...(ref.registryName
          ? say(MESSAGES, 'config-registry-name', {
              said: ref.said.charAt(0).toUpperCase() + ref.said.slice(1),
              name: t.name,
              namespace: t.namespace ?? '',
              registryName: ref.registryName,
              value: ref.value,
              effect: ref.missing,
            })
          : say(MESSAGES, 'config-address-missing', {
              said: ref.said.charAt(0).toUpperCase() + ref.said.slice(1),
              name: t.name,
              namespace: t.namespace ?? '',
              read: r.why,
              elsewhere: elsewhereText(t, r),
              effect: ref.missing,
              seen,
            })),
        resource: ref.object,
        affectedPods: Math.max(n, 1),
        evidence: {
          marker: ref.said,
          names: { kind: t.title, ...(t.namespace ? { namespace: t.namespace } : {}), name: t.name },
          state: r.state,
          source: ref.source,
          pods: notReady,
          address: ref.address,
          ...(r.elsewhere?.length ? { sameNameIn: r.elsewhere } : {}),
          ...(r.noNamespace ? { namespaceExists: false } : {}),
          ...(n ? { proxiesNotReady: n } : {}),
        },
        fix: ref.fix,
      };
    }
  },
});
