/**
 * Known consul-k8s release bugs (issue 31.9, gen10bugs), rows of the release table's `bugs`
 * (src/mesh/consul/releases.ts): the patch versions each affects, the release that fixed it, and
 * what the cluster shows. Read from hashicorp/consul-k8s CHANGELOG.md and the fix commits.
 */
import type { KnownBug } from '../release-table.js';

/** Bugs of consul-k8s 0.10 to 0.23 (the row 0.10 to 0.23). */
export const CONSUL_0_10_BUGS: readonly KnownBug[] = [
  {
    // v0.10.0 adds the lifecycle sidecar (connect-inject/lifecycle_sidecar.go), run as the image's user
    // consul-k8s, with -token-file=/consul/connect-inject/acl-token when ACLs use the auth method: the
    // init container's `consul login` writes that file as root with mode 0600, so the sidecar's Consul
    // client cannot load it and the command exits 1 (subcommand/lifecycle-sidecar/command.go
    // APIClient), again and again. #182 makes the init container chmod 444 the file (v0.10.1;
    // CHANGELOG.md 0.10.1: "Fix bug where the new lifecycle sidecar didn't have permissions to read
    // the ACL token file").
    id: 'hashicorp/consul-k8s#182',
    text: 'with ACLs and the auth method, the injected init container writes the ACL token file readable by root only, and the lifecycle sidecar, which runs as another user, cannot read it and exits',
    affected: { from: '0.10.0', to: '0.10.0' },
    fixedIn: '0.10.1',
    symptom: {
      on: 'pod',
      container: 'consul-connect-lifecycle-sidecar',
      shows: 'terminated',
      reason: 'Error',
      versionFrom: 'consul-connect-lifecycle-sidecar',
      when: { container: 'consul-connect-lifecycle-sidecar', holds: '-token-file' },
    },
    source:
      'hashicorp/consul-k8s@5ec736a7 (v0.10.0) connect-inject/lifecycle_sidecar.go, container_init.go, subcommand/lifecycle-sidecar/command.go; @02de5b68 (acl-token file readable by lifecycle sidecar, #182, in tag v0.10.1 @a110fe58) connect-inject/container_init.go',
  },
];
