/**
 * Cause links between findings, as typed values: a finding that is the root of others carries its
 * cause (`causeKey`), a finding it explains names the same cause (`causedBy`). The report links
 * them by the cause's key (a string in the JSON report), never by parsing one back.
 */
import type { MeshName } from '../mesh/names.js';
import type { ResourceRef } from '../util/types.js';

export type Cause =
  /**
   * A mesh's control plane: its webhook cannot be called, its injector is down, OOMKilled, or
   * locked out by its own webhook (it cannot create its pods): every pod of the mesh is affected.
   */
  | {
      readonly kind: 'webhook-broken' | 'injector-down' | 'injector-oom' | 'injector-locked-out';
      readonly mesh: MeshName;
    }
  /**
   * A component of a mesh's control plane that does not run (control-plane-down): the pods it serves show it (issue 31,
   * gen10cp). `component` is its id in the profile's table.
   */
  | { readonly kind: 'component-down'; readonly mesh: MeshName; readonly component: string }
  /**
   * One workload's (or namespace's) own cause: an invalid marker, a turned-off ServiceAccount token, a known key's
   * value its injector refuses or crashes on.
   */
  | {
      readonly kind: 'marker-invalid' | 'token-off' | 'value-invalid';
      readonly mesh: MeshName;
      readonly resource: ResourceRef;
    };

const refText = (r: ResourceRef) => `${r.kind}/${r.namespace ?? ''}/${r.name}`;

/** The key a cause is linked by: `webhook-broken:linkerd`, `marker-invalid:kuma:Deployment/shop/web`. */
export const causeKey = (c: Cause): string =>
  'resource' in c
    ? `${c.kind}:${c.mesh}:${refText(c.resource)}`
    : 'component' in c
      ? `${c.kind}:${c.mesh}:${c.component}`
      : `${c.kind}:${c.mesh}`;

/** A cause in a mesh's control plane (it stops every pod the mesh would inject), not one workload's own. */
export const isControlPlaneCause = (c: Cause): boolean => !('resource' in c);
