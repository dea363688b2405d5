/**
 * OpenShift Service Mesh's member roll (issue 31, gen9refs): a namespace belongs to a control plane
 * when the ServiceMeshMemberRoll `default` in the control plane's namespace lists it (spec.members), or
 * a ServiceMeshMember `default` in the namespace names the control plane; the operator's member roll
 * controller then labels it `maistra.io/member-of=<control plane namespace>`, and the injector webhooks
 * select only namespaces so labelled. Sources, maistra/istio-operator@8143614c:
 * resources/helm/v2.5/istio-control/istio-discovery/templates/mutatingwebhook.yaml and
 * resources/helm/v1.1/istio/charts/sidecarInjectorWebhook/templates/mutatingwebhook.yaml (namespaceSelector
 * `maistra.io/member-of In [<namespace>]`), pkg/controller/common/metadata.go (MemberOfKey), the
 * member roll controller (pkg/controller/servicemesh/memberroll). The control plane's injection policy
 * is disabled (spec.proxy.injection.autoInject false, the product default): a pod opts in with the
 * annotation `sidecar.istio.io/inject: "true"`, which the injector reads once the webhook is called.
 * User reports: maistra/istio#35 (Maistra 0.12, a namespace left out of the member roll; the maintainer:
 * "Verify that maistra.io/member-of label exists on default namespace"), openshift/openshift-docs#68434
 * (OSSM-1397: a removed member-of label was not restored before 2.5).
 * Meshdoctor reads neither kind: a namespace without the label is a namespace the roll does not list
 * (or one whose label was removed), which the webhooks' own selector shows.
 */
import { cmd, comment, type Step } from '../../fix/steps.js';
import { hasControl } from '../../util/errors.js';
import { annotationsOf, isObj } from '../../util/objects.js';
import type { MeshContext } from '../context.js';
import type { Template } from '../types.js';

export const MEMBER_OF = 'maistra.io/member-of';
const INJECT = 'sidecar.istio.io/inject';

export const MEMBER_ROLL_SOURCE =
  'maistra/istio-operator@8143614c resources/helm/v2.5/istio-control/istio-discovery/templates/mutatingwebhook.yaml (namespaceSelector maistra.io/member-of), pkg/controller/servicemesh/memberroll';

/** The control-plane namespaces an installed webhook requires as the value of maistra.io/member-of. */
export function memberRollPlanes(m: MeshContext): string[] {
  const out = new Set<string>();
  for (const h of m.webhooksOf('istio')) {
    const sel = h.namespaceSelector;
    const exprs = isObj(sel) && Array.isArray(sel.matchExpressions) ? sel.matchExpressions.slice(0, 32) : [];
    for (const e of exprs)
      if (isObj(e) && e.key === MEMBER_OF && e.operator === 'In' && Array.isArray(e.values))
        for (const v of e.values.slice(0, 8)) if (typeof v === 'string') out.add(v);
  }
  return [...out].sort();
}

/** Under a member roll, the pod template's own opt-in: the annotation sidecar.istio.io/inject "true". */
export function memberRollAsks(m: MeshContext, template: Template): boolean {
  return annotationsOf(template)[INJECT] === 'true' && memberRollPlanes(m).length > 0;
}

/** The fix making namespace `ns` a member of the control plane in `plane`: the member roll lists it. */
export function joinMemberRoll(ns: string, plane: string): Step[] {
  return [
    comment`add ${ns} to the members of the ServiceMeshMemberRoll default in ${plane}: the operator then labels it ${`${MEMBER_OF}=${plane}`}, which the injector webhook selects`,
    // JSON escapes a control character, which would hide it from the renderer's check: no command then.
    ...(hasControl(ns)
      ? []
      : [
          cmd`oc patch servicemeshmemberroll default -n ${plane} --type=json -p ${JSON.stringify([{ op: 'add', path: '/spec/members/-', value: ns }])}`,
        ]),
    comment`if the member roll already lists it, the label was removed: the operator restores it from 2.5 on any change to the namespace, earlier releases only when the member roll changes`,
  ];
}
