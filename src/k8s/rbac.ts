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
 *   (read at e52383c4 and 003e8629): see ClusterRoles.
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

/** A rule's identity for de-duplication (the controller's equality.Semantic.DeepEqual): its JSON with keys sorted. */
function ruleKey(rule: unknown): string {
  return JSON.stringify(rule, (_, v: unknown) =>
    isObj(v) && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}

/**
 * The ClusterRoles by name, and the rules of one, aggregated as the API server's ClusterRole
 * aggregation controller does (kubernetes/kubernetes
 * pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go syncClusterRole, the
 * same in the first version, e52383c4, glog and Update, and a current one, 003e8629, server-side
 * apply; no release tag could be resolved here, the repository being too large to fetch): a ClusterRole with an aggregationRule gets the rules of
 * every other ClusterRole its selectors match, as those are stored (an aggregated one's being its
 * own aggregate), each rule once (ruleExists); the controller runs until nothing changes.
 *
 * Here that end state is one fixed point over the roles, computed once, linear in the roles and
 * rules: the "selects" graph is cut into strongly connected components (roles that aggregate each
 * other, directly or through others, end with the same rules), taken sinks first, and each
 * component's members share one de-duplicated list: the rules stored in its members and those of
 * every component they select. A role's stored rules count too (a cluster whose controller has not
 * run yet, or a snapshot taken between two of its writes), so a grant is never missed, only, where
 * the controller has not finished, found a little early.
 */
export class ClusterRoles {
  private readonly byName = new Map<string, K8sObject>();
  private effective: Map<string, unknown[]> | undefined;

  constructor(readonly roles: readonly K8sObject[]) {
    for (const r of roles) this.byName.set(nameOf(r), r);
  }

  get(name: string): K8sObject | undefined {
    return this.byName.get(name);
  }

  /** The rules a ClusterRole grants: as aggregated (see the class), [] for a role that does not exist. */
  rules(name: string): unknown[] {
    this.effective ??= this.aggregate();
    return this.effective.get(name) ?? [];
  }

  private aggregate(): Map<string, unknown[]> {
    const names = [...this.byName.keys()].sort();
    const roles = names.map((n) => this.byName.get(n)!);
    // The roles each aggregated role selects (each once, never itself), in name order as the controller lists them.
    const selects: number[][] = roles.map((role, i) => {
      const selectors = isObj(role.aggregationRule) ? arr(role.aggregationRule.clusterRoleSelectors) : [];
      if (!selectors.length) return [];
      const out: number[] = [];
      roles.forEach((other, j) => {
        if (j !== i && selectors.some((sel) => isObj(sel) && evalSelector(sel, labelsOf(other)).matched)) out.push(j);
      });
      return out;
    });
    // Tarjan's strongly connected components, iterative (a chain of a million roles needs no call stack);
    // a component is complete when its root is popped, after every component it reaches.
    const order = new Array<number>(names.length).fill(-1);
    const low = new Array<number>(names.length).fill(0);
    const onStack = new Array<boolean>(names.length).fill(false);
    const stack: number[] = [];
    const component = new Array<number>(names.length).fill(-1);
    const rulesOf: unknown[][] = [];
    let counter = 0;
    for (let root = 0; root < names.length; root++) {
      if (order[root] !== -1) continue;
      const frames: [node: number, next: number][] = [[root, 0]];
      order[root] = low[root] = counter++;
      stack.push(root);
      onStack[root] = true;
      while (frames.length) {
        const frame = frames[frames.length - 1]!;
        const [v, next] = frame;
        if (next < selects[v]!.length) {
          frame[1]++;
          const w = selects[v]![next]!;
          if (order[w] === -1) {
            order[w] = low[w] = counter++;
            stack.push(w);
            onStack[w] = true;
            frames.push([w, 0]);
          } else if (onStack[w]) low[v] = Math.min(low[v]!, order[w]!);
          continue;
        }
        frames.pop();
        if (frames.length) {
          const parent = frames[frames.length - 1]![0];
          low[parent] = Math.min(low[parent]!, low[v]!);
        }
        if (low[v] !== order[v]) continue;
        // v is the root of a component: its members, then their rules and those of the components they select.
        const members: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = false;
          component[w] = rulesOf.length;
          members.push(w);
        } while (w !== v);
        const id = rulesOf.length;
        const seen = new Set<string>();
        const out: unknown[] = [];
        const add = (rules: readonly unknown[]) => {
          for (const r of rules) {
            const k = ruleKey(r);
            if (!seen.has(k)) {
              seen.add(k);
              out.push(r);
            }
          }
        };
        members.sort((a, b) => a - b);
        for (const m of members) add(arr(roles[m]!.rules));
        const reached = new Set<number>();
        for (const m of members)
          for (const t of selects[m]!)
            if (component[t] !== id && !reached.has(component[t]!)) reached.add(component[t]!);
        for (const c of [...reached].sort((a, b) => a - b)) add(rulesOf[c]!);
        rulesOf.push(out);
      }
    }
    return new Map(names.map((n, i) => [n, rulesOf[component[i]!]!]));
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
