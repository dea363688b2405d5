/**
 * injector-rbac-missing — a mesh injector's ServiceAccount lacks a permission its chart grants it
 * for injection: no ClusterRoleBinding gives it (the chart's binding was deleted, or its
 * ClusterRole lost a rule).
 *
 * Why: an injector reads the pod's namespace (all four meshes), its owners (Linkerd's caches), its
 * Mesh (Kuma), its injection template and webhook (Istio). Without the permission Linkerd's injector
 * restarts in a loop (its caches never sync), Kuma's and Consul's refuse every pod, istiod fails
 * to start its injector. The chart's rules are each mesh's profile (`injector.rbac`, with the
 * template and commit); the evaluation is Kubernetes RBAC's own (src/k8s/rbac.ts: verbs, groups,
 * resources, wildcards, aggregated ClusterRoles).
 * When: ClusterRoles and ClusterRoleBindings read (optional inputs: without them nothing is
 * examined, and coverage says so), the injector Deployment read (its ServiceAccount).
 * Known false positives: an injector granted its permissions only by RoleBindings in every
 * namespace (no chart does that for these rules); an install that renamed the chart's objects is
 * judged by the permissions, not the names.
 * Fix: when the chart's ClusterRole exists and grants them, re-create its ClusterRoleBinding to
 * the injector's ServiceAccount; otherwise re-render the control plane. Then restart the injector.
 */
import { cmd, comment } from '../fix/steps.js';
import { injectorAccess, INJECTOR_ACCESS } from '../facts/rbac.js';
import { reinstallCommands } from '../facts/controlplane.js';
import { profileOf } from '../mesh/registry.js';
import { defineCheck, messages, meta, say } from './define.js';

const needText = (group: string, resource: string, verbs: string[]) =>
  `${verbs.join('/')} ${group ? `${resource}.${group}` : resource}`;

const MESSAGES = messages({
  forbidden:
    'The {meshTitle} injector {injector} runs as ServiceAccount {serviceAccount}, which may not {lacks}: {standing}, so {without}.',
});

export default defineCheck({
  ...meta('injector-rbac-missing'),
  facts: [INJECTOR_ACCESS],
  messages: MESSAGES,
  *run(m) {
    for (const { mesh } of m.meshes) {
      const rbac = profileOf(mesh).injector.rbac;
      if (!rbac) continue;
      for (const a of injectorAccess(m, mesh)) {
        if (!a.missing.length) continue;
        const inj = a.injector;
        const sa = `${a.serviceAccount.namespace}/${a.serviceAccount.name}`;
        const lacks = a.missing.map((x) => needText(x.need.group, x.need.resource, x.verbs)).join(', ');
        const c = a.chart;
        const standing = !c.binding
          ? `its chart's ClusterRoleBinding ${c.clusterRoleBinding} does not exist`
          : !c.bindsAccount
            ? `its chart's ClusterRoleBinding ${c.clusterRoleBinding} no longer binds ClusterRole ${c.clusterRole} to it`
            : !c.role
              ? `the ClusterRole ${c.clusterRole} its chart binds it to does not exist`
              : `the ClusterRole ${c.clusterRole} its chart binds it to no longer grants them`;
        const rebind = c.role && c.roleGrants && !c.binding;
        const fix = [
          ...(rebind
            ? [
                comment`re-create the chart's binding of ClusterRole ${c.clusterRole} to the injector's ServiceAccount`,
                cmd`kubectl create clusterrolebinding ${c.clusterRoleBinding} --clusterrole=${c.clusterRole} --serviceaccount=${`${a.serviceAccount.namespace}:${a.serviceAccount.name}`}`,
              ]
            : [
                comment`re-render the control plane: its chart restores ClusterRole ${c.clusterRole} and ClusterRoleBinding ${c.clusterRoleBinding}`,
                ...reinstallCommands(m, mesh, inj.namespace, inj.name),
              ]),
          comment`then restart the injector, so that it starts over with them`,
          cmd`kubectl -n ${inj.namespace} rollout restart ${`deploy/${inj.name}`}`,
        ];
        yield {
          mesh,
          ...say(MESSAGES, 'forbidden', {
            meshTitle: profileOf(mesh).title,
            injector: `${inj.namespace}/${inj.name}`,
            serviceAccount: sa,
            lacks,
            standing,
            without: rbac.without,
          }),
          resource: { kind: 'Deployment', namespace: inj.namespace, name: inj.name },
          evidence: {
            serviceAccount: sa,
            missing: a.missing.map((x) => ({
              apiGroup: x.need.group,
              resource: x.need.resource,
              verbs: x.verbs,
              why: x.need.why,
            })),
            grantedBy: a.grantedBy,
            chart: {
              clusterRole: c.clusterRole,
              clusterRoleExists: c.role,
              clusterRoleBinding: c.clusterRoleBinding,
              clusterRoleBindingExists: c.binding,
            },
            rules: a.source,
          },
          fix,
        };
      }
    }
  },
});
