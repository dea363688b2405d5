/**
 * The value of Kuma's `kuma.io/mesh` marker (pod label or annotation, namespace label or annotation):
 * the name of the Mesh the pods join. Kuma renders Mesh names into DNS hostnames and its own
 * `<name>.<namespace>` resource names, so a name that is not an RFC 1035 label breaks the
 * proxies that join it. Sources, kumahq/kuma: pkg/plugins/runtime/k8s/metadata/labels.go
 * (KumaMeshLabel); commit 87e9189eb5 (#13003, in 2.10.x): a Mesh whose name breaks RFC 1035 is
 * only a deprecation warning; commit 6461d2ab39 (#18026): pkg/core/validators ValidateRFC1035Name
 * (apimachinery NameIsDNS1035Label) rejects it in the Mesh validator, on the admission webhook.
 * Releases before that accept such a Mesh, and a dot breaks the dataplane: kumahq/kuma#12954
 * (2.9.3, Mesh aa.a: kuma-sidecar never ready, accepted as a bug) and #387 (a mesh some.mesh:
 * kuma-dp cannot start, "that character has a special meaning internally").
 */
import { removeFromTemplate } from '../../fix/commands.js';
import { cmd, comment } from '../../fix/steps.js';
import type { MarkerProblemDraft, NamespaceProblemContext, WorkloadProblemContext } from '../profile.js';

const KUMA_MESH = 'kuma.io/mesh';

/** apimachinery IsDNS1035Label: a lowercase letter first, then letters, digits and hyphens, ending alphanumeric, at most 63. */
const RFC1035 = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Why a Mesh name that is not an RFC 1035 label fails, for messages (a clause), or undefined when it is one. */
function meshNameProblem(v: string): string | undefined {
  if (v === '' || RFC1035.test(v)) return undefined;
  return v.includes('.')
    ? 'a Mesh name with a dot, which Kuma uses in its own resource names: the proxies joining it cannot start, and Kuma releases enforcing RFC 1035 names reject such a Mesh'
    : 'not an RFC 1035 label (a lowercase letter first, then letters, digits or hyphens), which Kuma needs of a Mesh name for the hostnames it renders: Kuma 2.10 on warns about such a Mesh and later releases reject it';
}

const SOURCE = 'kumahq/kuma 6461d2ab39 pkg/core/validators ValidateRFC1035Name; kumahq/kuma#12954';

const FIX = [
  comment`name a Mesh whose name is an RFC 1035 label, made of lowercase letters, digits and hyphens, a letter first, then set the marker to it`,
  cmd`kubectl get meshes`,
];

/** The first label or annotation kuma.io/mesh whose value is not a Mesh name, and why. */
function badMeshName(c: {
  labels: Record<string, string>;
  annotations: Record<string, string>;
}): { field: 'labels' | 'annotations'; word: string; value: string; why: string } | undefined {
  for (const field of ['labels', 'annotations'] as const) {
    const value = c[field][KUMA_MESH];
    const why = value === undefined ? undefined : meshNameProblem(value);
    if (value !== undefined && why) return { field, word: field === 'labels' ? 'label' : 'annotation', value, why };
  }
  return undefined;
}

export function meshNameWorkloadProblems(c: WorkloadProblemContext): MarkerProblemDraft[] {
  const { w, id, where } = c;
  const bad = badMeshName(c);
  if (!bad) return [];
  const { field, word, value, why } = bad;
  return [
    {
      message: `${id} has ${where} ${word} ${KUMA_MESH}=${value}: ${why}.`,
      evidence: { marker: `${where} ${word} ${KUMA_MESH}=${value}`, rule: 'RFC 1035 label', source: SOURCE },
      fix: FIX,
      remove: removeFromTemplate(w, field, KUMA_MESH),
      // The pods are injected all the same: not why a proxy is missing.
      notWhyMissing: true,
    },
  ];
}

export function meshNameNamespaceProblems(c: NamespaceProblemContext): MarkerProblemDraft[] {
  const bad = badMeshName(c);
  if (!bad) return [];
  const { field, word, value, why } = bad;
  return [
    {
      message: `Namespace ${c.ns} has ${word} ${KUMA_MESH}=${value}: ${why}.`,
      evidence: { marker: `${word} ${KUMA_MESH}=${value}`, rule: 'RFC 1035 label', source: SOURCE },
      fix: FIX,
      remove: c.unset(field, KUMA_MESH),
      notWhyMissing: true,
    },
  ];
}
