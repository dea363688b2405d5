/**
 * What each mesh injector may do, by the ClusterRoles and ClusterRoleBindings read, against what
 * its chart grants it for injection (the profile's `injector.rbac`): the permissions it lacks, and
 * where the chart's own ClusterRole and ClusterRoleBinding stand (issue 25). RBAC semantics are
 * src/k8s/rbac.ts; this file knows no mesh.
 */
import { defineFactFamily } from '../k8s/fact.js';
import { ClusterRoles, binds, clusterGrants, roleAllows, serviceAccountUser, type RbacRequest } from '../k8s/rbac.js';
import type { K8sObject } from '../util/types.js';
import { isObj, str } from '../util/objects.js';
import type { MeshName } from '../mesh/names.js';
import type { InjectorPermission } from '../mesh/profile.js';
import { profileOf } from '../mesh/registry.js';
import { INJECTOR_INPUTS, injectors, namespaceRead, type Injector } from './controlplane.js';
import type { Model } from './model.js';
import { releaseOfInjector } from './releases.js';
import { rbacNamesIn } from '../mesh/releases.js';

/** One injector's standing: its ServiceAccount, what it lacks, and the chart's role and binding. */
interface InjectorAccess {
  mesh: MeshName;
  injector: Injector;
  serviceAccount: { namespace: string; name: string };
  /** The permissions it lacks, with the verbs no ClusterRoleBinding grants it. */
  missing: { need: InjectorPermission; verbs: string[] }[];
  /** The ClusterRoleBindings that grant it what it has of them. */
  grantedBy: string[];
  /** The chart template (and tag or commit) the permissions and names come from: its release's. */
  source: string;
  /** The chart's ClusterRole and ClusterRoleBinding for this install, and where they stand. */
  chart: {
    clusterRole: string;
    clusterRoleBinding: string;
    /** The ClusterRole exists. */
    role: boolean;
    /** It grants every missing permission (a binding to it is all that is lacking). */
    roleGrants: boolean;
    /** The ClusterRoleBinding exists. */
    binding: boolean;
    /** It binds that ClusterRole to the injector's ServiceAccount. */
    bindsAccount: boolean;
  };
}

/** The ServiceAccount a Deployment's pods run as (PodSpec serviceAccountName, its deprecated alias, else "default"). */
function accountOf(d: K8sObject): string {
  const spec = isObj(d.spec) && isObj(d.spec.template) && isObj(d.spec.template.spec) ? d.spec.template.spec : {};
  return str(spec.serviceAccountName) || str(spec.serviceAccount) || 'default';
}

export const INJECTOR_ACCESS = defineFactFamily({
  id: 'injector-access',
  inputs: [...INJECTOR_INPUTS, 'clusterrolebindings', 'clusterroles', 'configmaps'],
  compute: (m: Model, mesh: MeshName): InjectorAccess[] => {
    const rbac = profileOf(mesh).injector.rbac;
    if (!rbac || !m.readIn('clusterroles', '') || !m.readIn('clusterrolebindings', '')) return [];
    // Every cluster has the API server's own ClusterRoles (system:*): none at all is a dump
    // without them (or a test cluster without RBAC), never "every role is gone".
    if (!m.list('clusterroles').length) return [];
    const roles = new ClusterRoles(m.list('clusterroles'));
    const bindings = m.list('clusterrolebindings');
    const out: InjectorAccess[] = [];
    for (const inj of injectors(m, mesh)) {
      if (!inj.deployment || !namespaceRead(m, inj.namespace)) continue; // no Deployment, no ServiceAccount to judge
      // Its release's chart RBAC (src/mesh/<mesh>/releases.ts): a release outside the tables is not
      // judged by today's chart, and one whose injector needs no cluster-wide permission has none to miss.
      const release = releaseOfInjector(m, mesh, inj.deployment);
      if (release?.outside) continue;
      const needs =
        !release || release.injectorRbac === 'today' || !release.injectorRbac ? rbac.needs : release.injectorRbac;
      if (!needs.length) continue;
      const account = { namespace: inj.namespace, name: accountOf(inj.deployment) };
      const user = serviceAccountUser(account.namespace, account.name);
      const missing: InjectorAccess['missing'] = [];
      const grantedBy = new Set<string>();
      const requests: { need: InjectorPermission; verb: string; req: RbacRequest }[] = needs.flatMap((need) =>
        need.verbs.map((verb) => ({ need, verb, req: { verb, group: need.group, resource: need.resource } })),
      );
      for (const { need, verb, req } of requests) {
        const grants = clusterGrants(bindings, roles, user, req);
        for (const g of grants) grantedBy.add(g.binding);
        if (grants.length) continue;
        const entry = missing.find((x) => x.need === need);
        if (entry) entry.verbs.push(verb);
        else missing.push({ need, verbs: [verb] });
      }
      // The names its release's chart gives them (Istio 1.6 to 1.10: istiod-<namespace>, from the base chart).
      const names = release?.injectorRbacNames
        ? rbacNamesIn(release.injectorRbacNames, inj.namespace)
        : rbac.names(inj.namespace, inj.name);
      const role = roles.get(names.clusterRole) !== undefined;
      const binding = bindings.find((b) => b.metadata?.name === names.clusterRoleBinding);
      out.push({
        mesh,
        injector: inj,
        serviceAccount: account,
        missing,
        grantedBy: [...grantedBy].sort(),
        source: release?.injectorRbacSource ?? rbac.source,
        chart: {
          ...names,
          role,
          roleGrants:
            role &&
            missing.every((x) =>
              x.verbs.every((verb) =>
                roleAllows(roles, names.clusterRole, { verb, group: x.need.group, resource: x.need.resource }),
              ),
            ),
          binding: binding !== undefined,
          bindsAccount: binds(binding, names.clusterRole, user),
        },
      });
    }
    return out;
  },
});

/**
 * Every injector of the mesh whose RBAC can be judged: ClusterRoles and ClusterRoleBindings read,
 * the injector Deployment read (its ServiceAccount is in its template). Without them: not examined.
 */
export function injectorAccess(m: Model, mesh: MeshName): InjectorAccess[] {
  return m.fact(INJECTOR_ACCESS, mesh);
}
