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

/** Bugs of consul-k8s 0.26 to 0.49 (the row 0.26 to 0.49). */
export const CONSUL_0_26_BUGS: readonly KnownBug[] = [
  {
    // v0.26.0 (transparent proxy on by default) ends the script of consul-connect-inject-init, which runs the
    // consul-k8s image (connect-inject/container_init.go: Image h.ImageConsulK8S), with `consul connect
    // redirect-traffic` but, unlike `consul connect envoy` above it, without the ACL token its `consul-k8s connect-init
    // -acl-auth-method` logged in for: the command asks Consul for the proxy's service with the anonymous token, which
    // may read services only where the chart's DNS or federation policy was attached to it, so elsewhere it gets a 403
    // and the init container exits 1, again and again (hashicorp/consul-k8s#570, the users' report #568). #576 passes
    // -token-file when an auth method is set; the next release after 0.26.0 is 0.33.0 (CHANGELOG.md 0.33.0: "Connect:
    // redirect-traffic command passes ACL token when ACLs are enabled").
    id: 'hashicorp/consul-k8s#570',
    text: 'with ACLs and transparent proxy, the injected consul-connect-inject-init runs consul connect redirect-traffic without the ACL token it logged in for, so unless the anonymous token may read services (Consul DNS or federation) Consul refuses it and the init container exits',
    affected: { from: '0.26.0', to: '0.26.0' },
    fixedIn: '0.33.0',
    symptom: {
      on: 'pod',
      container: 'consul-connect-inject-init',
      shows: 'terminated',
      reason: 'Error',
      versionFrom: 'consul-connect-inject-init',
      when: [
        { container: 'consul-connect-inject-init', holds: 'redirect-traffic' },
        { container: 'consul-connect-inject-init', holds: '-acl-auth-method' },
      ],
    },
    source:
      'hashicorp/consul-k8s@ade3d638 (v0.26.0) connect-inject/container_init.go lines 313-331 (redirect-traffic without -token-file); @2fa81c3d (connect: redirect-traffic command should pass ACL token when ACL are enabled, #576, fixes #570 and #568, in tag v0.33.0 @00909cfd); CHANGELOG.md 0.33.0',
  },
];

/**
 * consul-k8s 1.0.0 to 1.1.1 (hashicorp/consul-k8s#2176, the report #2144): a multi-port pod (annotation
 * consul.hashicorp.com/connect-service naming several services) gets one consul-dataplane-<service> sidecar per
 * service, without transparent proxy (multi-port pods cannot use it). With Consul DNS on (the chart's dns.enabled),
 * control-plane/connect-inject/webhook/consul_dataplane_sidecar.go getContainerSidecarArgs passed
 * -consul-dns-bind-port=8600 to every one of them without asking whether transparent proxy is on, so every sidecar
 * binds the DNS proxy to 127.0.0.1:8600 in the pod's one network namespace: the first wins and the others exit
 * ("failed to start the dns proxy"), again and again. The fix asks consulDNSEnabled(namespace, pod, dns, tproxy):
 * the flag is passed only with transparent proxy on. Backported to 1.0.8 (#2177) and 1.1.2; in 1.2.0.
 * The pods run consul-dataplane images of their own numbers: the injecting release is the image tag of the
 * init container consul-connect-inject-init-<service> (hashicorp/consul-k8s-control-plane:<release>).
 */
const MULTIPORT_DNS: Omit<KnownBug, 'affected' | 'fixedIn' | 'source'> = {
  id: 'hashicorp/consul-k8s#2176',
  text: 'in a multi-port pod with Consul DNS on, every injected consul-dataplane sidecar is told to bind the DNS proxy to port 8600, so all but the first cannot bind it and exit',
  symptom: {
    on: 'pod',
    container: 'consul-dataplane-*',
    shows: 'terminated',
    reason: 'Error',
    versionFrom: 'consul-connect-inject-init-*',
    when: { container: 'consul-dataplane-*', holds: '-consul-dns-bind-port' },
  },
};

/** Bugs of consul-k8s 1.x (the row 1.0 to 2.0). */
export const CONSUL_1_0_BUGS: readonly KnownBug[] = [
  {
    ...MULTIPORT_DNS,
    affected: { from: '1.0.0', to: '1.0.7' },
    fixedIn: '1.0.8',
    source:
      'hashicorp/consul-k8s v1.0.7 control-plane/connect-inject/webhook/consul_dataplane_sidecar.go lines 45-47 (container consul-dataplane-<service>), 315 (-consul-dns-bind-port without the transparent proxy test); @574fee88 (Backport of Disable DNS redirection when tproxy is disabled into release/1.0.x, #2177, in tag v1.0.8); CHANGELOG.md 1.0.8',
  },
  {
    ...MULTIPORT_DNS,
    affected: { from: '1.1.0', to: '1.1.1' },
    fixedIn: '1.1.2',
    source:
      'hashicorp/consul-k8s v1.1.1 control-plane/connect-inject/webhook/consul_dataplane_sidecar.go; @13c166f2 and @d0f56d16 (Disable DNS redirection when tproxy is disabled, #2176, in tags v1.1.2 and v1.2.0); CHANGELOG.md 1.1.2',
  },
];
