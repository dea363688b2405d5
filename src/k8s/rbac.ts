/**
 * Kubernetes RBAC, as the authorizer decides it, for the ClusterRoles and ClusterRoleBindings a
 * snapshot holds: whether a ServiceAccount may make a request cluster-wide, and which binding
 * grants it. Mesh-free: the requests an injector makes are its profile's (src/mesh/<mesh>/).
 *
 * Sources (kubernetes/kubernetes; the index copies read, not tied to a release tag):
 * - rule matching: pkg/apis/rbac/v1/evaluation_helpers.go @03bf11a3 (VerbMatches, APIGroupMatches,
 *   ResourceMatches with `*` and `* /subresource`, ResourceNameMatches: an empty list matches every name);
 * - subjects: pkg/registry/rbac/validation/rule.go @05c351a9 (appliesToUser: User by name, Group by
 *   membership, ServiceAccount by namespace/name; a ClusterRoleBinding's ServiceAccount subject
 *   needs its namespace; VisitRulesFor reads ClusterRoleBindings for every request, RoleBindings
 *   only in the request's namespace);
 * - a ServiceAccount's groups: kubernetes/apiserver v0.33.0 (9529108a)
 *   pkg/authentication/serviceaccount/util.go MakeGroupNames (system:serviceaccounts,
 *   system:serviceaccounts:<ns>) and pkg/authentication/group/authenticated_group_adder.go
 *   (system:authenticated);
 * - aggregated ClusterRoles: pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go
 *   @003e8629 (a ClusterRole with an aggregationRule gets the rules of every other ClusterRole its
 *   selectors match; a cluster whose controller has not run yet holds them only in the roles).
 */
import type { K8sObject } from '../util/types.js';
import { arr, isObj, labelsOf, nameOf, str } from '../util/objects.js';
import { evalSelector } from './selectors.js';

/** One request: a verb on a resource (`pods`, or `pods/status`) of an API group, optionally one object by name. */
export interface RbacRequest {
  verb: string;
  group: string;
  resource: string;
  name?: string;
}

/** A user as the authorizer sees it. */
interface RbacUser {
  name: string;
  groups: readonly string[];
}

/** The user a ServiceAccount's token authenticates as. */
export const serviceAccountUser = (namespace: string, name: string): RbacUser => ({
  name: `system:serviceaccount:${namespace}:${name}`,
  groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
});

const strings = (v: unknown): string[] => arr(v).filter((x): x is string => typeof x === 'string');

/** Whether one PolicyRule allows a resource request (evaluation_helpers.go). */
function ruleAllows(rule: unknown, req: RbacRequest): boolean {
  if (!isObj(rule)) return false;
  const verbs = strings(rule.verbs);
  if (!verbs.some((v) => v === '*' || v === req.verb)) return false;
  if (!strings(rule.apiGroups).some((g) => g === '*' || g === req.group)) return false;
  const slash = req.resource.indexOf('/');
  const sub = slash < 0 ? '' : req.resource.slice(slash + 1);
  const resources = strings(rule.resources);
  if (!resources.some((r) => r === '*' || r === req.resource || (sub !== '' && r === `*/${sub}`))) return false;
  const names = strings(rule.resourceNames);
  return names.length === 0 || (req.name !== undefined && names.includes(req.name));
}

/** Whether a binding's subject is the user (rule.go appliesToUser; a ClusterRoleBinding has no namespace to default to). */
function appliesTo(subject: unknown, user: RbacUser, bindingNamespace: string): boolean {
  if (!isObj(subject)) return false;
  const name = str(subject.name);
  switch (subject.kind) {
    case 'User':
      return name === user.name;
    case 'Group':
      return name !== undefined && user.groups.includes(name);
    case 'ServiceAccount': {
      const ns = str(subject.namespace) || bindingNamespace;
      return !!ns && name !== undefined && user.name === `system:serviceaccount:${ns}:${name}`;
    }
    default:
      return false;
  }
}

/** The ClusterRoles by name, and the rules of one, aggregated. */
export class ClusterRoles {
  private readonly byName = new Map<string, K8sObject>();
  private readonly effective = new Map<string, unknown[]>();

  constructor(readonly roles: readonly K8sObject[]) {
    for (const r of roles) this.byName.set(nameOf(r), r);
  }

  get(name: string): K8sObject | undefined {
    return this.byName.get(name);
  }

  /**
   * The rules a ClusterRole grants: its own, plus, for an aggregated one, those of every other
   * ClusterRole its selectors match (recursively, each role once: a cycle adds nothing).
   */
  rules(name: string, visiting = new Set<string>()): unknown[] {
    const done = this.effective.get(name);
    if (done) return done;
    const role = this.byName.get(name);
    if (!role) return [];
    const own = arr(role.rules);
    const selectors = isObj(role.aggregationRule) ? arr(role.aggregationRule.clusterRoleSelectors) : [];
    if (!selectors.length || visiting.has(name)) return own;
    visiting.add(name);
    const out = [...own];
    for (const other of [...this.roles].sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : 1))) {
      const n = nameOf(other);
      if (n === name) continue;
      if (selectors.some((s) => isObj(s) && evalSelector(s, labelsOf(other)).matched))
        out.push(...this.rules(n, visiting));
    }
    visiting.delete(name);
    this.effective.set(name, out);
    return out;
  }
}

/** A ClusterRoleBinding that grants a request to a user, and the ClusterRole it binds. */
interface Grant {
  binding: string;
  clusterRole: string;
}

/**
 * The ClusterRoleBindings that grant this request cluster-wide to the user (rule.go VisitRulesFor,
 * the ClusterRoleBinding half): those whose subjects include the user and whose ClusterRole (as
 * aggregated) has a rule allowing it. A binding to a Role, or to a ClusterRole that does not exist,
 * grants nothing.
 */
export function clusterGrants(
  bindings: readonly K8sObject[],
  roles: ClusterRoles,
  user: RbacUser,
  req: RbacRequest,
): Grant[] {
  const out: Grant[] = [];
  for (const b of bindings) {
    const ref = isObj(b.roleRef) ? b.roleRef : undefined;
    if (ref?.kind !== 'ClusterRole' || typeof ref.name !== 'string') continue;
    if (!arr(b.subjects).some((s) => appliesTo(s, user, ''))) continue;
    if (roles.rules(ref.name).some((r) => ruleAllows(r, req))) out.push({ binding: nameOf(b), clusterRole: ref.name });
  }
  return out.sort((a, b) => (a.binding < b.binding ? -1 : a.binding > b.binding ? 1 : 0));
}

/** Whether a ClusterRole (as aggregated) allows a request, whoever it is bound to. */
export const roleAllows = (roles: ClusterRoles, name: string, req: RbacRequest): boolean =>
  roles.rules(name).some((r) => ruleAllows(r, req));

/** Whether a ClusterRoleBinding binds this ClusterRole to the user. */
export function binds(binding: K8sObject | undefined, clusterRole: string, user: RbacUser): boolean {
  const ref = isObj(binding?.roleRef) ? binding!.roleRef : undefined;
  return (
    ref?.kind === 'ClusterRole' &&
    ref.name === clusterRole &&
    arr(binding!.subjects).some((s) => appliesTo(s, user, ''))
  );
}
