/**
 * Where proxy-cannot-start fires, and its near misses (test/helpers/check-tester.ts): the container,
 * the reason from its status and the kubelet's events, and the mesh's own cause and fix; and every
 * runtime fix of every profile renders as safe lines.
 */
import { describe, expect, it } from 'vitest';
import { checkCases } from '../helpers/check-tester.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cluster, findings, FIXTURES } from '../helpers/fixtures.js';
import { render } from '../../src/fix/render.js';
import { guardFix } from '../../src/util/shell.js';
import { PROFILE_LIST } from '../../src/mesh/registry.js';

checkCases('proxy-cannot-start', {
  fires: [
    // Issue 31 (a status read whole): a mesh init container the kubelet ran again in a running pod, failing.
    {
      fixtures: 'fires-linkerd-init-rerun-running-pod.yaml',
      findings: ['Deployment shop/ledger'],
      said: [
        {
          id: 'runs-unhappy',
          params: { container: 'linkerd-init', status: 'CrashLoopBackOff, exit code 1, 9 restarts' },
        },
      ],
    },
    {
      fixtures: 'fires-kuma-init-rerun-running-pod.yaml',
      base: 'kuma',
      findings: ['Deployment orders/billing'],
      said: [{ id: 'runs-unhappy', params: { container: 'kuma-init' } }],
    },
    {
      fixtures: 'fires-istio-init-rerun-running-pod.yaml',
      base: 'istio',
      findings: ['Deployment store/reviews'],
      said: [{ id: 'runs-unhappy', params: { container: 'istio-init', status: 'Error, exit code 1, 9 restarts' } }],
    },
    // Issue 31 round 11 (gen10spec): a field of the pod's own spec that takes away what the container needs.
    {
      fixtures: 'fires-kuma-dnspolicy-none-sidecar-unready.yaml',
      base: 'kuma',
      findings: ['Deployment resolv/quotes'],
    },
    {
      fixtures: 'fires-consul-dataplane-dnspolicy-default.yaml',
      base: 'consul',
      findings: ['Deployment nodedns/ledger'],
    },
    {
      fixtures: 'fires-linkerd-stable-2.10-token-off-manual-inject.yaml',
      base: 'linkerd-stable-2.10',
      findings: ['Deployment manual/batch'],
    },
    {
      fixtures: 'fires-istio-token-off-own-istio-token-not-named.yaml',
      base: 'istio',
      findings: ['Pod thirdparty/probe-agent'],
    },
    // Issue 31 round 9 (gen9events): the Warning events about the pod say what holds it or what it waits for.
    {
      fixtures: 'fires-linkerd-identity-token-failedmount.yaml',
      findings: ['Deployment shop/ledger'],
      said: [{ id: 'cannot-start', params: { container: 'linkerd-proxy', status: 'PodInitializing' } }],
    },
    {
      fixtures: 'fires-istio-1.6-istio-token-failedmount.yaml',
      findings: ['Deployment store/tickets'],
      said: [{ id: 'cannot-start', params: { container: 'istio-proxy' } }],
    },
    {
      fixtures: 'fires-istio-unschedulable-with-proxy-requests.yaml',
      findings: ['Deployment store/search'],
      said: [{ id: 'cannot-start', params: { container: 'istio-init', status: 'Unschedulable' } }],
    },
    {
      fixtures: 'fires-linkerd-identity-issuer-validation-failed.yaml',
      findings: ['Deployment shop/ledger'],
      said: [{ id: 'runs-unhappy', params: { container: 'linkerd-proxy' } }],
    },
    {
      fixtures: 'fires-kuma-dataplane-generation-failed.yaml',
      findings: ['Deployment orders/invoices'],
      said: [{ id: 'runs-unhappy', params: { container: 'kuma-sidecar' } }],
    },
    { fixtures: 'fires-linkerd-init-nft.yaml', findings: ['Deployment shop/orders'] },
    { fixtures: 'fires-linkerd-network-validator.yaml', findings: ['Deployment shop/invoices'] },
    { fixtures: 'fires-istio-validation-excluded.yaml', findings: ['Deployment store/catalog'] },
    { fixtures: 'fires-istio-validation-no-agent.yaml', findings: ['Deployment store/basket'] },
    { fixtures: 'fires-consul-no-service.yaml', findings: ['Deployment catalog/reports'] },
    { fixtures: 'fires-consul-several-services.yaml', findings: ['Deployment catalog/reports'] },
    { fixtures: 'fires-consul-acl-default-serviceaccount.yaml', findings: ['Deployment catalog/billing'] },
    // The client agent published by hostPort without hostNetwork (hashicorp/consul-k8s#27): the likely cause (gen8net).
    { fixtures: 'fires-consul-0.x-agent-hostport.yaml', findings: ['Deployment catalog/ledger'] },
    { fixtures: 'fires-consul-0.x-agent-hostport-tls.yaml', findings: ['Deployment catalog/invoices'] },
    { fixtures: 'fires-consul-0.x-agent-host-network.yaml', findings: ['Deployment catalog/refunds'] },
    { fixtures: 'fires-kuma-sidecar-image.yaml', findings: ['Deployment orders/shipping'] },
    // Issue 31: the ServiceAccount token file a mesh container reads, which the pod does not mount (three meshes).
    { fixtures: 'fires-kuma-sidecar-token-not-mounted.yaml', findings: ['Deployment orders/fulfil'] },
    { fixtures: 'fires-consul-init-token-not-mounted.yaml', findings: ['Deployment catalog/ratings'] },
    {
      fixtures: 'fires-istio-1.5-proxy-first-party-jwt-token-not-mounted.yaml',
      findings: ['Deployment store/tickets'],
    },
    { fixtures: 'fires-kuma-init-nonroot.yaml', findings: ['Deployment orders/payments'] },
    { fixtures: 'fires-consul-dataplane-nonroot-image.yaml', findings: ['Deployment catalog/ledger'] },
    // Issue 31.7: a feature the injected init container uses that the Consul image the pod runs is too old for.
    { fixtures: 'fires-consul-0.x-tproxy-consul-1.9.yaml', findings: ['Deployment catalog/ledger'] },
    { fixtures: 'fires-consul-0.x-metrics-merging-consul-1.9.yaml', findings: ['Deployment catalog/audit'] },
    // gen9skew: an Envoy release the Consul beside it does not support (newer, older), and near misses that are quoted.
    { fixtures: 'fires-consul-0.x-envoy-1.18-consul-1.9.yaml', findings: ['Deployment catalog/gateway'] },
    { fixtures: 'fires-consul-0.x-envoy-1.11-consul-1.9.yaml', findings: ['Deployment catalog/invoices'] },
    { fixtures: 'fires-consul-0.x-envoy-1.16-consul-1.9-other-cause.yaml', findings: ['Deployment catalog/refunds'] },
    {
      fixtures: 'fires-consul-0.x-envoy-1.10-consul-1.7-envoy-version-flag.yaml',
      findings: ['Deployment catalog/ratings'],
    },
    {
      fixtures: 'fires-consul-0.x-envoy-1.14-consul-1.12-not-in-table.yaml',
      findings: ['Deployment catalog/shipping'],
    },
    // gen9skew: a proxy a pod template annotation pins to another release than the injector's.
    { fixtures: 'fires-istio-proxyimage-pinned-newer.yaml', findings: ['Deployment store/basket'] },
    { fixtures: 'fires-istio-proxyimage-pinned-same-release.yaml', findings: ['Deployment store/wishlist'] },
    { fixtures: 'fires-linkerd-stable-2.10-proxy-version-pinned-older.yaml', findings: ['Deployment shop/cart'] },
    // A known bug of the release that injected the pod, older than the tables (Kuma 0.4: no Dataplane behind a headless Service).
    { fixtures: 'fires-kuma-1.x-0.4-headless-service.yaml', findings: ['StatefulSet orders/zk'] },
    { fixtures: 'fires-istio-init-no-net-admin.yaml', findings: ['Deployment store/checkout'] },
    { fixtures: 'fires-istio-init-not-root.yaml', findings: ['Deployment store/invoices'] },
    // Issue 31: what iptables says the node refused (src/mesh/iptables.ts), under any mesh; istio-iptables' exit codes across releases.
    { fixtures: 'fires-linkerd-init-legacy-nat-table.yaml', findings: ['Deployment shop/quotes'] },
    { fixtures: 'fires-linkerd-init-nft-protocol.yaml', findings: ['Deployment shop/ratesvc'] },
    { fixtures: 'fires-kuma-init-unknown-option-logged.yaml', findings: ['Deployment orders/billing'] },
    { fixtures: 'fires-istio-1.5-init-panic-exit-2.yaml', findings: ['Deployment store/reviews'] },
    { fixtures: 'fires-istio-init-exit-255.yaml', findings: ['Deployment store/ratings'] },
    // Issue 31: an injected init container with no runAsUser of its own runs as the pod's user.
    { fixtures: 'fires-linkerd-init-inherits-pod-uid.yaml', findings: ['Deployment shop/fares'] },
    { fixtures: 'fires-kuma-init-inherits-pod-uid.yaml', findings: ['Deployment orders/wallet'] },
    { fixtures: 'fires-istio-init-kernel.yaml', findings: ['Deployment store/search'] },
    { fixtures: 'fires-linkerd-proxy-unknown.yaml', findings: ['Deployment shop/pricing'] },
    { fixtures: 'fires-linkerd-init-ip6tables.yaml', findings: ['Deployment shop/search'] },
    { fixtures: 'fires-istio-native-sidecar-altered.yaml', findings: ['Deployment store/ratings'] },
    { fixtures: 'fires-linkerd-native-sidecar-altered.yaml', findings: ['Deployment shop/carts'] },
    { fixtures: 'fires-kuma-native-sidecar-altered.yaml', findings: ['Deployment orders/returns'] },
    { fixtures: 'fires-linkerd-init-net-raw-dropped.yaml', findings: ['Deployment shop/tracker'] },
    { fixtures: 'fires-istio-proxy-oomkilled.yaml', findings: ['Deployment store/notebooks'] },
    { fixtures: 'fires-istio-proxy-oom-restarts.yaml', findings: ['Deployment store/metrics'] },
    { fixtures: 'fires-consul-init-oomkilled.yaml', findings: ['Deployment catalog/search'] },
    { fixtures: 'fires-istio-proxy-image-public-registry.yaml', findings: ['Deployment store/fieldconfig'] },
    { fixtures: 'fires-istio-private-registry-no-pull-secret.yaml', findings: ['Deployment payments/reviews'] },
    { fixtures: 'fires-linkerd-init-image-x509.yaml', findings: ['Deployment shop/ledger'] },
    { fixtures: 'fires-istio-init-openshift-selinux.yaml', findings: ['Deployment store/details'] },
    // Issue 31: the CNI plugin standalone for Multus and a pod naming no attachment; a container the injector added under another name.
    { fixtures: 'fires-istio-cni-multus-unchained.yaml', findings: ['Deployment store/checkout'] },
    { fixtures: 'fires-istio-cni-multus-annotated.yaml', findings: ['Deployment store/checkout'] },
    { fixtures: 'fires-kuma-cni-multus-no-attachment.yaml', findings: ['Deployment orders/search'] },
    // Issue 31: which reason a failing CNI validation container has, from the cluster: the pod started before the
    // node's agent was ready; Cilium owning the CNI configuration; neither shown (the mesh's own reading stays).
    ...(
      [
        [
          'fires-linkerd-validator-before-agent-ready.yaml',
          'shop/quotes',
          /before the CNI node agent there \(pod linkerd-cni\/linkerd-cni-nnnnn of DaemonSet linkerd-cni\) was ready at 2026-11-22T11:11:52Z/,
        ],
        [
          'fires-kuma-validation-before-agent-ready.yaml',
          'orders/picking',
          /started on node node-new at 2026-11-22T11:30:05Z, before .*kube-system\/kuma-cni-node-nnnnn/,
        ],
        [
          'fires-istio-validation-cilium-exclusive.yaml',
          'store/cart',
          /Cilium is the cluster's CNI plugin \(DaemonSet kube-system\/cilium, quay.io\/cilium\/cilium:v1.16.3\).*cni.exclusive=false/,
        ],
        [
          'fires-linkerd-validator-cilium-exclusive.yaml',
          'shop/stock',
          /though the CNI node agent on node node-x \(pod linkerd-cni\/linkerd-cni-xxxxx\) was ready before the pod started.*Cilium/,
        ],
        [
          'fires-linkerd-validator-agent-ready-first.yaml',
          'shop/rates',
          /^linkerd-cni had not set up the pod's traffic redirection when it started/,
        ],
        // The install's pull secrets, which the injected pod lacks (kumahq/kuma#10944 in test/reports-gen6run.test.ts).
        [
          'fires-linkerd-init-mirror-cp-pull-secret.yaml',
          'shop/coupons',
          /control plane \(Deployment linkerd\/linkerd-destination\) pulls from harbor.corp.example with imagePullSecrets corp-pull/,
        ],
        [
          'fires-consul-init-private-registry-cp-pull-secret.yaml',
          'catalog/orders',
          /Deployment consul\/consul-webhook-cert-manager\) pulls from registry.corp.example/,
        ],
        [
          'fires-linkerd-init-mirror-sa-has-secret.yaml',
          'shop/discounts',
          /^the node cannot pull its image harbor.corp.example\/linkerd\/proxy-init:v2.4.3 \(the kubelet said/,
        ],
      ] as const
    ).map(([fixtures, workload, cause]) => ({
      fixtures,
      findings: [`Deployment ${workload}`],
      said: [{ id: 'cannot-start', params: { cause } }],
    })),
    // Issue 31 (gen8run): every unhappy mesh container ends in a finding: a security profile the runtime cannot apply,
    // EPERM as root, killed by its probes, restarting between two crashes, never ready, another waiting reason.
    ...(
      [
        [
          'fires-kuma-init-seccomp-profile-missing.yaml',
          'Deployment orders/audit',
          'cannot-start',
          /^the container runtime of the node cannot apply the seccomp profile it runs under; its seccompProfile \(type Localhost\) is set in the pod's securityContext, and kuma-init sets none of its own.*cannot load seccomp profile/,
        ],
        [
          'fires-linkerd-init-eperm-as-root.yaml',
          'Deployment shop/scanner',
          'cannot-start',
          /you must be root\)": the kernel refuses its iptables calls with EPERM.*runs as root \(runAsUser 0 in the securityContext of linkerd-init\).*seccompProfile Localhost in the pod's securityContext/,
        ],
        [
          'fires-kuma-sidecar-liveness-killed.yaml',
          'Deployment orders/tracking',
          'cannot-start',
          /^the kubelet kills it because its liveness probe fails \(5 kills in the events read\): the kubelet said "Liveness probe failed: /,
        ],
        [
          'fires-consul-dataplane-never-ready.yaml',
          'Deployment catalog/pricing',
          'runs-unhappy',
          /^it has run for 39 minutes since its last start .* not ready, for a reason meshdoctor does not know; the kubelet said "Readiness probe failed: dial tcp 10.42.1.17:20000: connect: connection refused" \(230 times\)$/,
        ],
        [
          'fires-istio-proxy-poststart-hook.yaml',
          'Deployment store/quotes',
          'cannot-start',
          /^the kubelet holds it in PostStartHookError, for a reason meshdoctor does not know: "Exec lifecycle hook \(\[pilot-agent wait\]\)/,
        ],
        [
          'fires-consul-init-stuck-no-service.yaml',
          'Deployment catalog/batcher',
          'cannot-start',
          /^no Kubernetes Service selects the pod/,
        ],
        [
          'fires-linkerd-init-stuck.yaml',
          'Deployment shop/exporter',
          'cannot-start',
          /^it has run for 15 minutes \(since 2026-11-22T11:45:00Z\) and not exited, so the containers after it never start, for a reason meshdoctor does not know$/,
        ],
        [
          'fires-istio-proxy-exited-in-job.yaml',
          'Job store/nightly-export',
          'runs-unhappy',
          /^it exited and the pod does not restart it \(restartPolicy Never\) with exit code 1, for a reason meshdoctor does not know$/,
        ],
        [
          'fires-istio-proxy-restarting.yaml',
          'Deployment store/ledger',
          'runs-unhappy',
          /^it keeps failing with exit code 1, for a reason meshdoctor does not know$/,
        ],
      ] as const
    ).map(([fixtures, workload, id, cause]) => ({
      fixtures,
      findings: [workload],
      said: [{ id, params: { cause } }],
    })),
  ],
  silent: [
    // Issue 31: a mesh init container run again in a running pod, and it succeeded.
    { fixtures: 'ok-linkerd-init-rerun-succeeded.yaml' },
    // Issue 31 round 9 (gen9events): an app volume the kubelet cannot mount, a pod just created, an old warning.
    { fixtures: 'ok-linkerd-app-volume-failedmount.yaml' },
    { fixtures: 'ok-linkerd-failedmount-pod-just-created.yaml' },
    { fixtures: 'ok-kuma-dataplane-warning-proxy-ready.yaml' },
    { fixtures: 'ok-linkerd-identity-warning-proxies-ready.yaml' },
    { fixtures: 'ok-istio-unschedulable-pod-just-created.yaml' },
    { fixtures: 'ok-istio-1.6-failedmount-over-init-running.yaml' },
    { fixtures: 'ok-istio-proxy-not-ready-briefly.yaml' },
    { fixtures: 'ok-istio-proxy-exited-zero-in-job.yaml' },
    { fixtures: 'ok-linkerd-proxy-restarted-once-or-app-killed.yaml' },
    { fixtures: 'ok-linkerd-recovered-or-app.yaml' },
    { fixtures: 'ok-istio-granted-or-app-refused.yaml' },
    { fixtures: 'ok-consul-native-sidecar.yaml' },
    { fixtures: 'ok-kuma-token-off-proxy-runs.yaml' },
    { fixtures: 'ok-consul-0.x-agent-hostport-running.yaml' },
    { fixtures: 'ok-consul-0.x-metrics-merging-consul-1.10.yaml' },
    { fixtures: 'ok-istio-proxy-oom-once.yaml' },
    { fixtures: 'ok-linkerd-init-iptables-words-completed.yaml' },
  ],
});

const F = (name: string) => `checks/proxy-cannot-start/${name}.yaml`;
const one = (base: Parameters<typeof cluster>[0], name: string) => {
  const [f, ...rest] = findings(cluster(base, [F(name)]), ['proxy-cannot-start']);
  expect(rest).toEqual([]);
  return f!;
};

describe('proxy-cannot-start', () => {
  it('reads what iptables says the node refused, whatever the mesh: the table, the backend, the extension, and the fix for each', () => {
    const legacy = one('linkerd', 'fires-linkerd-init-legacy-nat-table');
    expect(legacy.message).toContain(
      'iptables says "iptables v1.8.7 (legacy): can\'t initialize iptables table `nat\': Table does not exist (do you need to insmod?)"',
    );
    expect(legacy.message).toContain('no legacy IPv4 nat table to the legacy iptables backend it runs: iptable_nat');
    expect(legacy.message).toContain('(node rocky-worker-3: Rocky Linux 9.2 (Blue Onyx)');
    expect(legacy.fix.join('\n')).toContain('proxyInit.iptablesMode=nft');
    expect(legacy.fix.join('\n')).toContain('load iptable_nat on each node at boot');
    expect(legacy.evidence).toMatchObject({ iptables: { kind: 'table-missing', backend: 'legacy', table: 'nat' } });
    const nft = one('linkerd', 'fires-linkerd-init-nft-protocol');
    expect(nft.message).toContain('does not support the nf_tables backend');
    expect(nft.fix.join('\n')).toContain('proxyInit.iptablesMode=legacy');
    // Kuma has no backend setting: the module and the CNI plugin.
    const kuma = one('kuma', 'fires-kuma-init-unknown-option-logged');
    expect(kuma.message).toContain('lacks the module of an iptables extension its rules use (--to-ports: xt_REDIRECT');
    expect(kuma.fix.join('\n')).not.toContain('iptablesMode');
    expect(kuma.fix.join('\n')).toContain('xt_REDIRECT, xt_owner and xt_multiport');
    expect(kuma.fix.join('\n')).toContain('kuma-cni');
  });

  it('names a ServiceAccount token the pod does not mount where the mesh container says it cannot read it, on every mesh', () => {
    for (const [base, name, container] of [
      ['kuma', 'fires-kuma-sidecar-token-not-mounted', 'kuma-sidecar'],
      ['consul', 'fires-consul-init-token-not-mounted', 'consul-connect-inject-init'],
      ['istio-1.5', 'fires-istio-1.5-proxy-first-party-jwt-token-not-mounted', 'istio-proxy'],
    ] as const) {
      const [f] = findings(cluster(base, [`checks/proxy-cannot-start/${name}.yaml`]), ['proxy-cannot-start']);
      expect(f!.message).toContain('the pod sets automountServiceAccountToken: false');
      expect(f!.message).toContain(`${container} mounts none of its own there`);
      expect(f!.message).toContain('/var/run/secrets/kubernetes.io/serviceaccount/token');
      expect(f!.fix.join('\n')).toContain('automountServiceAccountToken');
    }
    // Near miss: the same message where the pod leaves the field unset (its ServiceAccount decides, not read here),
    // or mounts a token of its own at that directory: quoted, not attributed.
    const text = readFileSync(
      join(FIXTURES, 'checks/proxy-cannot-start/fires-kuma-sidecar-token-not-mounted.yaml'),
      'utf8',
    );
    for (const variant of [
      text
        .replaceAll('automountServiceAccountToken: false, ', '')
        .replace('  automountServiceAccountToken: false\n', ''),
      text.replace(
        '- {name: kuma-sidecar, image: "docker.io/kumahq/kuma-dp:2.14.3"}',
        '- {name: kuma-sidecar, image: "docker.io/kumahq/kuma-dp:2.14.3", volumeMounts: [{name: tok, mountPath: /var/run/secrets/kubernetes.io/serviceaccount}]}',
      ),
    ]) {
      expect(variant).not.toBe(text);
      const [f] = findings(cluster('kuma', [variant]), ['proxy-cannot-start']);
      expect(f!.message).not.toContain('automountServiceAccountToken');
      expect(f!.message).toContain('for a reason meshdoctor does not know');
    }
  });

  it('names the pod runAsUser an injected init container inherits for want of its own, and no capability the runtime gives by default', () => {
    for (const [base, name, uid] of [
      ['istio', 'checks/proxy-cannot-start/fires-istio-init-not-root', 1337],
      ['kuma', 'checks/proxy-cannot-start/fires-kuma-init-inherits-pod-uid', 1000],
      ['istio', 'reports/gen7run/istio-1.0-init-inherits-pod-runasuser', 1000],
    ] as const) {
      const [f] = findings(cluster(base, [`${name}.yaml`]), ['proxy-cannot-start']);
      expect(f!.message).toContain(`it runs as UID ${uid} (set in the pod's securityContext)`);
      expect(f!.message).toContain('as injected into this pod has no runAsUser of its own');
    }
    // Linkerd judges no UID (linkerd-init runs as 65534 unless proxyInit.runAsRoot): iptables' own words say it.
    const l5d = one('linkerd', 'fires-linkerd-init-inherits-pod-uid');
    expect(l5d.message).toContain('iptables refuses it because it does not run as root');
    expect(l5d.message).not.toContain('SELinux');
    // Istio 1.0's istio-init: NET_ADMIN added, nothing dropped: NET_RAW is the runtime's default to give, not a gap.
    const [old] = findings(cluster('istio', ['reports/gen7run/istio-1.0-init-inherits-pod-runasuser.yaml']), [
      'proxy-cannot-start',
    ]);
    expect(old!.message).not.toContain('NET_RAW');
  });

  it("reads istio-iptables' exit codes across releases: a panic (2) before 1.11, 255 since, 1 for its own errors", () => {
    const panic = one('istio-1.5', 'fires-istio-1.5-init-panic-exit-2');
    expect(panic.message).toContain('istio-iptables could not program the pod');
    expect(panic.message).toContain('or SELinux, which this node image enforces by default');
    expect(panic.message).toContain('loading the kernel modules its iptables rules need (module_request)');
    expect(panic.fix.join('\n')).toContain('/etc/modules-load.d');
    const exit255 = one('istio', 'fires-istio-init-exit-255');
    expect(exit255.message).toContain('istio-iptables could not program the pod');
    expect(exit255.message).not.toContain('SELinux');
  });

  it('names a CNI plugin standalone for Multus that the pod does not request (istio/istio#48734), and stays out where it does', () => {
    const i = one('istio', 'fires-istio-cni-multus-unchained');
    expect(i.message).toContain(
      'the Istio CNI plugin runs standalone for Multus (DaemonSet kube-system/istio-cni-node env CHAINED_CNI_PLUGIN=false)',
    );
    expect(i.message).toContain('the injector does not add it (istio-sidecar-injector values istio_cni.chained true');
    const k = one('kuma', 'fires-kuma-cni-multus-no-attachment');
    expect(k.message).toContain('this pod names only orders/sriov-net1');
    expect(k.message).toContain('something after it removed the annotation');
    const n = one('istio', 'fires-istio-cni-multus-annotated');
    expect(n.message).not.toContain('standalone');
    expect(n.message).toContain('exit code 126');
  });

  it('names a capability the pod drops by name after the template adds it (linkerd/linkerd2#6254)', () => {
    const f = one('linkerd', 'fires-linkerd-init-net-raw-dropped');
    expect(f.message).toContain('the pod does not grant it NET_RAW');
    expect(f.evidence).toMatchObject({ grants: { drop: ['NET_RAW'] } });
  });

  it('reads OOMKilled as memory at the limit: the proxy crash-looping, running with repeated kills, an init container', () => {
    const a = one('istio', 'fires-istio-proxy-oomkilled');
    expect(a.message).toContain('the kernel kills it for memory (OOMKilled), at its memory limit 128Mi');
    expect(a.fix).toContain(
      'kubectl patch deployment/notebooks -n store --type=merge -p \'{"spec":{"template":{"metadata":{"annotations":{"sidecar.istio.io/proxyMemoryLimit":"256Mi"}}}}}\'',
    );
    const b = one('istio', 'fires-istio-proxy-oom-restarts');
    expect(b.evidence).toMatchObject({ status: { reason: 'OOMKilled', restarts: 14 }, memoryLimit: '256Mi' });
    const c = one('consul', 'fires-consul-init-oomkilled');
    expect(c.message).toContain('at its memory limit 25Mi');
    expect(c.message).not.toContain('waits two minutes');
    expect(c.fix.join('\n')).toContain('connectInject.initContainer.resources');
  });

  it('names SELinux on a RHEL-family node for an unprivileged init container, and the privileged setting', () => {
    const f = one('istio', 'fires-istio-init-openshift-selinux');
    expect(f.message).toContain('(node minishift: CentOS Linux 7 (Core)');
    expect(f.message).toContain(
      'or SELinux, which this node image enforces by default, refuses the unprivileged istio-init',
    );
    expect(f.fix.join('\n')).toContain('global.proxy.privileged=true');
    // A failure whose line names the kernel's own error stays the kernel's.
    const nft = one('linkerd', 'fires-linkerd-init-nft');
    expect(nft.message).not.toContain('SELinux');
  });

  it("reads why an image cannot be pulled from the kubelet's message: credentials, trust, reach", () => {
    const a = one('istio', 'fires-istio-private-registry-no-pull-secret');
    expect(a.message).toContain(
      'registry.example.com refuses the node without credentials, and the pod has no imagePullSecrets',
    );
    expect(a.evidence).toMatchObject({
      registry: 'registry.example.com',
      imagePullSecrets: [],
      serviceAccount: 'default',
    });
    const b = one('linkerd', 'fires-linkerd-init-image-x509');
    expect(b.message).toContain('does not trust the TLS certificate cr.l5d.io presents');
    expect(b.message).not.toContain('mirror');
    const c = one('istio', 'fires-istio-proxy-image-public-registry');
    expect(c.message).toContain('the node cannot reach docker.io');
    expect(c.message).toContain("the app's own images come from dtr.example.com");
    expect(c.evidence.message).toContain('i/o timeout');
  });

  it("reads linkerd-init's termination message: nftables unsupported, so legacy iptables", () => {
    const f = one('linkerd', 'fires-linkerd-init-nft');
    expect(f.message).toMatch(
      /^1 pod of Deployment shop\/orders cannot start: Linkerd's init container linkerd-init keeps failing \(CrashLoopBackOff, exit code 1, 7 restarts\): the node's kernel does not support iptables-nft/,
    );
    expect(f.evidence).toMatchObject({
      container: 'linkerd-init',
      init: true,
      events: { count: 40, reason: 'BackOff' },
    });
    expect(String(f.evidence.line)).toContain('Could not fetch rule set generation id');
    expect(f.fix.join('\n')).toContain('proxyInit.iptablesMode=legacy');
  });

  it("reads the mesh's exit codes: Linkerd's validator 95", () => {
    const f = one('linkerd', 'fires-linkerd-network-validator');
    expect(f.message).toContain('linkerd-cni had not set up');
    expect(f.fix).toContain('kubectl delete pod invoices-6e7f8a9b0-m3n5p -n shop');
  });

  it('names what the cluster lacks: the istio-cni agent skipping the namespace, no Service for Consul', () => {
    const i = one('istio', 'fires-istio-validation-excluded');
    expect(i.message).toContain('the Istio CNI plugin skips namespace store');
    expect(i.evidence).toMatchObject({ needs: [{ configMap: 'istio-system/istio-cni-config' }] });
    const a = one('istio', 'fires-istio-validation-no-agent');
    expect(a.message).toContain("the istio-cni node agent is not ready on the pod's node node-b");
    expect(a.evidence).toMatchObject({ needs: [{ node: 'node-b', cniAgentPods: ['istio-cni-node-bbbbb'] }] });
    const c = one('consul', 'fires-consul-no-service');
    expect(c.message).toContain('no Kubernetes Service selects the pod');
    expect(c.fix).toContain('kubectl expose deployment/reports -n catalog --port=8080');
    const several = one('consul', 'fires-consul-several-services');
    expect(several.evidence).toMatchObject({ needs: [{ servicesSelecting: ['reports', 'reports-metrics'] }] });
    expect(several.fix.join('\n')).toContain(
      'kubectl label service reports-metrics -n catalog consul.hashicorp.com/service-ignore=true',
    );
    const hp = one('consul-0.x', 'fires-consul-0.x-agent-hostport');
    expect(hp.message).toContain(
      'on port 8500, which DaemonSet consul/consul publishes by hostPort, without hostNetwork',
    );
    expect(hp.evidence).toMatchObject({ needs: [{ agentDaemonSet: 'consul/consul', hostPorts: [8500] }] });
    expect(one('consul-0.x', 'fires-consul-0.x-agent-hostport-tls').message).toContain('on port 8501');
    expect(one('consul-0.x', 'fires-consul-0.x-agent-host-network').message).not.toContain('hostPort');
    const acl = one('consul', 'fires-consul-acl-default-serviceaccount');
    expect(acl.message).toContain('refuses the default one');
    expect(acl.fix).toContain('kubectl create serviceaccount billing -n catalog');
  });

  it('an image the node cannot pull: the image, the kubelet event, and how the mesh picks it', () => {
    const f = one('kuma', 'fires-kuma-sidecar-image');
    expect(f.message).toContain(
      "Kuma's proxy kuma-sidecar cannot be pulled (ImagePullBackOff): the node cannot pull its image registry.example.com/kuma/kuma-dp:2.14.3",
    );
    expect(f.evidence).toMatchObject({
      image: 'registry.example.com/kuma/kuma-dp:2.14.3',
      events: { reason: 'Failed', count: 12 },
    });
  });

  it('what the pod grants against what the container needs: the non-root policy, capabilities, the UID', () => {
    const k = one('kuma', 'fires-kuma-init-nonroot');
    expect(k.message).toContain(
      "Kuma's init container kuma-init cannot be created (CreateContainerConfigError): the kubelet refuses to create it: runAsNonRoot: true in the pod's securityContext asks for a non-root user, but it runs as root (runAsUser 0 in the securityContext of kuma-init); Kuma runs it as root",
    );
    expect(k.evidence).toMatchObject({
      refusal: 'runAsUser-root',
      runAsNonRoot: { value: true, from: 'pod' },
      events: { reason: 'Failed', count: 25 },
    });
    expect(k.fix.join('\n')).toContain(
      'move runAsNonRoot: true from the securityContext of the pod template to each app container: payments',
    );
    expect(k.fix.join('\n')).toContain('--cni-enabled');
    const c = one('consul', 'fires-consul-dataplane-nonroot-image');
    expect(c.message).toContain(
      "it has no runAsUser, so it runs as its image's user, root; Consul's template gives it runAsUser 5995",
    );
    expect(c.evidence).toMatchObject({ refusal: 'image-root', needs: { runAsUser: 5995 } });
    const caps = one('istio', 'fires-istio-init-no-net-admin');
    expect(caps.message).toContain('the pod does not grant it NET_ADMIN and NET_RAW');
    expect(caps.evidence).toMatchObject({
      grants: { add: [], drop: ['ALL'] },
      needs: { add: ['NET_ADMIN', 'NET_RAW'] },
    });
    expect(caps.fix).toContain('kubectl get mutatingwebhookconfigurations');
    const uid = one('istio', 'fires-istio-init-not-root');
    expect(uid.message).toContain(
      "it runs as UID 1337 (set in the pod's securityContext), but Istio runs it as root (UID 0)",
    );
  });

  it('names the node where its kernel decides, and quotes a message it does not know', () => {
    const n = one('istio', 'fires-istio-init-kernel');
    expect(n.message).toContain(
      '(node rhel-worker-1: Red Hat Enterprise Linux 8.6 (Ootpa), kernel 4.18.0-372.19.1.el8_6.x86_64, containerd://1.7.0)',
    );
    expect(n.evidence).toMatchObject({
      node: { name: 'rhel-worker-1', kernelVersion: '4.18.0-372.19.1.el8_6.x86_64' },
    });
    const six = one('linkerd', 'fires-linkerd-init-ip6tables');
    expect(six.message).toContain(
      "the node's kernel has no IPv6 nat table (ip6table_nat not loaded), which linkerd-init programs with IPv6 on (values disableIPv6=false); since proxy-init v2.4.1 it fails instead of ignoring it (node ip-10-0-1-17.ec2.internal: Bottlerocket OS 1.29.0 (aws-k8s-1.31), kernel 6.1.119, containerd://1.7.24+bottlerocket)",
    );
    expect(six.fix.join('\n')).toContain('disableIPv6=true');
    const u = one('linkerd', 'fires-linkerd-proxy-unknown');
    expect(u.message).toContain(
      'cannot be created (CreateContainerError): the kubelet cannot create it, for a reason meshdoctor does not know: "context deadline exceeded"',
    );
    expect(u.evidence).toMatchObject({ message: 'context deadline exceeded' });
  });

  it('a native sidecar whose restartPolicy was dropped is the proxy, altered: not a missing one', () => {
    for (const [base, name, w, c] of [
      ['istio', 'fires-istio-native-sidecar-altered', 'store/ratings', 'istio-proxy'],
      ['linkerd', 'fires-linkerd-native-sidecar-altered', 'shop/carts', 'linkerd-proxy'],
      ['kuma', 'fires-kuma-native-sidecar-altered', 'orders/returns', 'kuma-sidecar'],
    ] as const) {
      const all = findings(cluster(base, [F(name)]));
      expect(all.map((x) => x.id)).not.toContain('sidecar-missing');
      const f = one(base, name);
      expect(f.message).toContain(
        `Deployment ${w} cannot start: ${f.mesh === 'kuma' ? 'Kuma' : f.mesh === 'istio' ? 'Istio' : 'Linkerd'}'s proxy ${c} was injected as a native sidecar, but the pod runs it as a plain init container without restartPolicy: Always`,
      );
      expect(f.evidence).toMatchObject({ container: c, altered: 'restartPolicy: Always missing', state: 'running' });
    }
    expect(one('istio', 'fires-istio-native-sidecar-altered').fix.join('\n')).toContain(
      '"sidecar.istio.io/nativeSidecar":"false"',
    );
  });

  it('every runtime fix of every profile is made of safe lines (none withheld)', () => {
    const c = { namespace: 'ns', pod: 'p', container: 'c', controlPlaneNamespace: 'cp' };
    for (const p of PROFILE_LIST) {
      const steps = [
        ...p.runtime.openshift('ns', 'cp'),
        ...p.runtime.image('cp'),
        ...p.runtime.failures.flatMap((f) => f.fix(c)),
      ];
      const lines = render(steps);
      expect(lines.length, p.name).toBeGreaterThan(2);
      expect(
        lines.filter((l) => guardFix(l) !== l),
        p.name,
      ).toEqual([]);
    }
  });
});

describe('proxy-cannot-start: a feature the companion image is too old for (release needs)', () => {
  it('names the feature, the Consul version the pod runs and the one it needs', () => {
    const tproxy = findings(
      cluster('consul-0.x', ['checks/proxy-cannot-start/fires-consul-0.x-tproxy-consul-1.9.yaml']),
    ).filter((f) => f.id === 'proxy-cannot-start');
    expect(tproxy.map((f) => f.message).join('\n')).toMatch(
      /transparent proxy \(connect redirect-traffic\).*1\.10\.0.*1\.9\.5/,
    );
    const merging = findings(
      cluster('consul-0.x', ['checks/proxy-cannot-start/fires-consul-0.x-metrics-merging-consul-1.9.yaml']),
    ).filter((f) => f.id === 'proxy-cannot-start');
    expect(merging.map((f) => f.message).join('\n')).toMatch(/metrics merging \(-prometheus-scrape-path\).*1\.9\.17/);
    expect(merging.map((f) => f.message).join('\n')).not.toMatch(/transparent proxy/);
  });

  it('names the known bug of the release that injected the pod (Kuma 0.4, a headless Service)', () => {
    const fs = findings(cluster('kuma-1.x', ['checks/proxy-cannot-start/fires-kuma-1.x-0.4-headless-service.yaml']));
    const f = fs.find((x) => x.id === 'proxy-cannot-start');
    expect(f?.message).toMatch(/kumahq\/kuma#561.*headless Service orders\/zk.*fixed in Kuma 0\.5\.1/);
  });
});

describe('proxy-cannot-start: a proxy on a release its companion or its injector does not go with (gen9skew)', () => {
  const msg = (base: Parameters<typeof cluster>[0], file: string) =>
    findings(cluster(base, [`checks/proxy-cannot-start/${file}.yaml`]))
      .filter((f) => f.id === 'proxy-cannot-start')
      .map((f) => f.message)
      .join('\n');

  it('names the Envoy release and the Consul release beside it, older or newer than it supports', () => {
    expect(msg('consul-0.x', 'fires-consul-0.x-envoy-1.18-consul-1.9')).toMatch(
      /Envoy v1\.18\.3 .* beside Consul 1\.9\.6 .*Consul 1\.9 supports only Envoy 1\.16\.x, 1\.15\.x, 1\.14\.x, 1\.13\.x/,
    );
    expect(msg('consul-0.x', 'fires-consul-0.x-envoy-1.11-consul-1.9')).toMatch(
      /Envoy v1\.11\.2 .* beside Consul 1\.9\.0/,
    );
  });

  it('blames no pairing for a supported pair, a flag that allows it, or a Consul release outside the table', () => {
    for (const f of [
      'fires-consul-0.x-envoy-1.16-consul-1.9-other-cause',
      'fires-consul-0.x-envoy-1.10-consul-1.7-envoy-version-flag',
      'fires-consul-0.x-envoy-1.14-consul-1.12-not-in-table',
    ]) {
      const m = msg('consul-0.x', f);
      expect(m, f).toMatch(/for a reason meshdoctor does not know/);
      expect(m, f).not.toMatch(/supports only/);
    }
  });

  it('names the pin annotation and how far apart the releases are; a pin of the same release is not blamed', () => {
    expect(msg('istio', 'fires-istio-proxyimage-pinned-newer')).toMatch(
      /pinned by the pod template annotation sidecar\.istio\.io\/proxyImage: docker\.io\/istio\/proxyv2:1\.26\.1.*2 releases newer than 1\.24\.2/,
    );
    expect(msg('linkerd-stable-2.10', 'fires-linkerd-stable-2.10-proxy-version-pinned-older')).toMatch(
      /config\.linkerd\.io\/proxy-version: stable-2\.9\.4.*older than stable-2\.10\.2/,
    );
    expect(msg('istio', 'fires-istio-proxyimage-pinned-same-release')).not.toMatch(/pinned/);
  });
});

describe('proxy-cannot-start: the Warning events about the pod (issue 31, round 9)', () => {
  const one = (file: string, base: Parameters<typeof cluster>[0]) =>
    findings(cluster(base, [`checks/proxy-cannot-start/${file}`]), ['proxy-cannot-start'])[0]!;
  it('names the volume the kubelet cannot mount and quotes its message (Linkerd, Istio 1.6)', () => {
    const l = one('fires-linkerd-identity-token-failedmount.yaml', 'linkerd');
    expect(l.message).toContain('the kubelet cannot mount its volume linkerd-identity-token');
    expect(l.message).toContain('the API server does not have TokenRequest endpoints enabled');
    expect((l.evidence as any).warnings[0]).toMatchObject({ reason: 'FailedMount', component: 'kubelet', count: 31 });
    const i = one('fires-istio-1.6-istio-token-failedmount.yaml', 'istio-1.6');
    expect(i.message).toContain('istio-token');
  });
  it("says what a mesh controller's own warning means, and quotes it (Kuma 2.x, reportingComponent)", () => {
    const k = one('fires-kuma-dataplane-generation-failed.yaml', 'kuma');
    expect(k.message).toContain('could not create the Dataplane of the pod');
    expect(k.message).toContain('FailedToGenerateKumaDataplane (k8s.kuma.io/dataplane-generator, 40 times)');
    expect(k.message).not.toContain('for a reason meshdoctor does not know');
  });
  it('quotes the scheduler and what the injected containers request, deciding nothing more', () => {
    const f = one('fires-istio-unschedulable-with-proxy-requests.yaml', 'istio');
    expect(f.message).toContain('0/3 nodes are available: 3 Insufficient cpu');
    expect(f.message).toContain('istio-proxy requests cpu 100m, memory 128Mi');
    expect(f.message).toContain('whether it would fit without them is not decided here');
  });
  it("quotes a control-plane component's warning tied to every meshed pod (Linkerd's identity issuer)", () => {
    const l = one('fires-linkerd-identity-issuer-validation-failed.yaml', 'linkerd');
    expect(l.message).toContain(
      "Linkerd's linkerd-identity says its identity issuer certificate cannot be used to sign",
    );
    expect(l.message).toContain('IssuerValidationFailed (linkerd-identity, 140 times) on Deployment/linkerd-identity');
  });
});

describe('proxy-cannot-start: an init container run again in a running pod', () => {
  it('says when it ran again, since when the containers run, and that a new pod runs it once', () => {
    const f = one('linkerd', 'fires-linkerd-init-rerun-running-pod');
    expect(f.message).toContain(
      "the kubelet ran it again at 2026-11-21T03:12:00Z, after the pod's containers had been running since 2026-11-10T08:00:10Z",
    );
    expect(f.message).toContain('it said: "iptables: Chain already exists."');
    expect(f.message).not.toContain('kernel modules');
    expect(f.evidence).toMatchObject({
      rerunAt: '2026-11-21T03:12:00Z',
      containersRunningSince: '2026-11-10T08:00:10Z',
    });
    expect(f.fix.join('\n')).toContain('kubectl delete pod ledger-6b7c8d9e0-r3run -n shop');
  });
});

describe('the pod spec field that takes away what the container needs (gen10spec)', () => {
  it('names the field, the name the container dials or the token it reads, and the fix, on every mesh', () => {
    for (const [base, file, field, need, fix] of [
      [
        'kuma',
        'fires-kuma-dnspolicy-none-sidecar-unready',
        'dnsPolicy: None',
        'kuma-control-plane.kuma-system',
        '"dnsPolicy":"ClusterFirst"',
      ],
      [
        'consul',
        'fires-consul-dataplane-dnspolicy-default',
        'dnsPolicy: Default',
        'consul-server.consul.svc',
        '"dnsPolicy":"ClusterFirst"',
      ],
      [
        'linkerd-stable-2.10',
        'fires-linkerd-stable-2.10-token-off-manual-inject',
        'automountServiceAccountToken: false',
        'linkerd-identity-token',
        '"automountServiceAccountToken":true',
      ],
    ] as const) {
      const [f] = findings(cluster(base, [`checks/proxy-cannot-start/${file}.yaml`]), ['proxy-cannot-start']);
      expect(f!.message).toContain(field);
      expect(f!.message).toContain(need);
      expect(f!.fix.join('\n')).toContain(fix);
      expect(f!.evidence).toHaveProperty('podSpecField');
    }
  });
  it('does not name a token the container has of its own, ClusterFirstWithHostNet or a Linux selector', () => {
    const [f] = findings(
      cluster('istio', ['checks/proxy-cannot-start/fires-istio-token-off-own-istio-token-not-named.yaml']),
      ['proxy-cannot-start'],
    );
    expect(f!.message).not.toMatch(/automountServiceAccountToken|dnsPolicy|kubernetes\.io\/os/);
    expect(f!.message).toContain('for a reason meshdoctor does not know');
  });
});

describe('proxy-cannot-start: a pod meant to end whose app has ended', () => {
  it('leaves what its proxy does then (killed by a probe, restarted) to job-never-completes: one cause, one finding', () => {
    const file = 'checks/job-never-completes/fires-consul-dataplane-restarted-after-quitquitquit.yaml';
    expect(findings(cluster('consul', [file]), ['proxy-cannot-start'])).toEqual([]);
    expect(findings(cluster('consul', [file]), ['job-never-completes']).map((f) => f.resource.name)).toEqual([
      'ledger-sync',
    ]);
  });
});
