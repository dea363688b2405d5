/**
 * Linkerd's injected containers as admission judges them and as they run (issue 24). Sources,
 * linkerd/linkerd2 at b24cd4059841f8cee2fb7a9c2ac23a693c583579 unless said otherwise:
 * - charts/partials/templates/_proxy-init.tpl: `linkerd-init` adds NET_ADMIN and NET_RAW (drops
 *   nothing unless proxyInit.capabilities.drop), allowPrivilegeEscalation false, privileged false,
 *   runAsNonRoot true, runAsUser proxyInit.runAsUser (65534; 0 and runAsNonRoot false with
 *   proxyInit.runAsRoot), seccompProfile RuntimeDefault, terminationMessagePolicy
 *   FallbackToLogsOnError (its log lines are its termination message).
 * - _network-validator.tpl: with cniEnabled, `linkerd-network-validator` drops ALL, runs as 65534,
 *   runAsNonRoot true, RuntimeDefault; no FallbackToLogsOnError.
 * - _proxy.tpl: `linkerd-proxy` allowPrivilegeEscalation false, runAsNonRoot true, runAsUser
 *   proxy.uid (values.yaml: 2102), RuntimeDefault, and no capability dropped unless
 *   proxy.capabilities says so (_capabilities.tpl): Pod Security restricted refuses it for that alone.
 * - linkerd/linkerd2-proxy-init at 183e791d99dcc6d4fa765b7331cbaec7ce40c2de validator/src/main.rs:
 *   the validator exits 95 when traffic is not redirected ("Failed to validate networking
 *   configuration"), which cni-repair-controller/src/lib.rs reads the same way.
 */
import { choice, cmd, comment, lit, text, type Step } from '../../fix/steps.js';
import type { MeshContext } from '../context.js';
import type { Workload } from '../../k8s/workloads.js';
import { valueAt } from '../config-values.js';
import type { InjectedContainer, MeshProfile } from '../profile.js';
import { proxyPlace } from '../start-order.js';
import { linkerdHoldStuck } from './hold-stuck.js';
import { setOnTemplate } from '../../fix/commands.js';
import { annotationOf } from '../../util/objects.js';

/**
 * Start order (issue 31), linkerd/linkerd2 b24cd405: charts/patch/templates/patch.json adds the
 * proxy at spec/containers/0 with proxy.await (values.yaml `await: true`, per pod
 * config.linkerd.io/proxy-await: pkg/inject/inject.go), else at the end; _proxy.tpl gives it the
 * postStart hook linkerd-await, or as a native sidecar a startupProbe on /ready. The annotation
 * came in stable-2.11 (1071ec2e, linkerd/linkerd2#5967).
 */
const AWAIT = 'config.linkerd.io/proxy-await';

const num = (v: unknown, d: number) => (typeof v === 'number' ? v : d);
const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;

/** The CLI and Helm ways to set values on the installed control plane. */
export const upgrade = (why: string, ns: string, ...sets: string[]): Step[] => [
  choice(text`${lit(why)}: run the one line for your install method`, [
    {
      label: text`linkerd CLI`,
      steps: [cmd`linkerd upgrade ${{ args: sets.map((s) => ['--set=', { value: s }]) }} | kubectl apply -f -`],
    },
    {
      label: text`Helm`,
      steps: [
        cmd`helm upgrade linkerd-control-plane linkerd/linkerd-control-plane -n ${ns} --reuse-values ${{ args: sets.map((s) => ['--set=', { value: s }]) }}`,
      ],
    },
  ]),
];

export function linkerdRuntime(values: (m: MeshContext) => Record<string, any> | undefined): MeshProfile['runtime'] {
  return {
    injected: (m: MeshContext, _w: Workload, cni: boolean): InjectedContainer[] => {
      const v = values(m);
      const init = valueAt(v, 'proxyInit') as Record<string, any> | undefined;
      const root = valueAt(init, 'runAsRoot') === true;
      const privileged = valueAt(init, 'privileged') === true || num(valueAt(init, 'closeWaitTimeoutSecs'), 0) > 0;
      const out: InjectedContainer[] = cni
        ? [
            {
              name: 'linkerd-network-validator',
              init: true,
              securityContext: {
                allowPrivilegeEscalation: false,
                drop: ['ALL'],
                runAsUser: 65534,
                runAsNonRoot: true,
                seccomp: 'RuntimeDefault',
              },
            },
          ]
        : [
            {
              name: 'linkerd-init',
              init: true,
              securityContext: {
                allowPrivilegeEscalation: privileged,
                privileged,
                add: ['NET_ADMIN', 'NET_RAW'],
                ...(strings(valueAt(init, 'capabilities', 'drop'))
                  ? { drop: strings(valueAt(init, 'capabilities', 'drop'))! }
                  : {}),
                runAsUser: root ? 0 : num(valueAt(init, 'runAsUser'), 65534) || 65534,
                runAsNonRoot: !root,
                seccomp: 'RuntimeDefault',
              },
            },
          ];
      const drop = strings(valueAt(v, 'proxy', 'capabilities', 'drop'));
      out.push({
        name: 'linkerd-proxy',
        init: false,
        securityContext: {
          allowPrivilegeEscalation: false,
          ...(drop ? { drop } : {}),
          runAsUser: num(valueAt(v, 'proxy', 'uid'), 2102),
          runAsNonRoot: true,
          seccomp: 'RuntimeDefault',
        },
      });
      return out;
    },
    injectedFrom:
      'linkerd/linkerd2 b24cd405 charts/partials/templates/_proxy.tpl, _proxy-init.tpl, _network-validator.tpl',
    // The proxy injector labels each pod with its top owner's name, uncut (pkg/inject/inject.go populateMeta: the
    // owner the API names for the pod, a Deployment for a ReplicaSet's pods; no label for other kinds).
    ownerLabels: (
      [
        ['Deployment', 'deployment'],
        ['ReplicationController', 'replicationcontroller'],
        ['ReplicaSet', 'replicaset'],
        ['Job', 'job'],
        ['DaemonSet', 'daemonset'],
        ['StatefulSet', 'statefulset'],
      ] as const
    ).map(([kind, word]) => ({
      key: `linkerd.io/proxy-${word}`,
      owners: [kind],
      unless: [],
      fix: `rename the ${kind} to 63 characters or fewer: the proxy injector writes its whole name into the label linkerd.io/proxy-${word}, whatever the pod template says`,
      source: 'linkerd/linkerd2 b24cd405 pkg/inject/inject.go populateMeta, pkg/k8s/labels.go',
    })),
    // linkerd-init's own resources, linkerd-config values proxyInit.resources (charts/partials/templates/_proxy-init.tpl
    // `partials.resources .Values.proxyInit.resources` to edge-24.6.3; from edge-24.6.4 the proxy's, linkerd/linkerd2
    // f05d1e9e #12741, the values field deprecated): read where the values hold them, else the proxy's.
    initResources: (m) => {
      const r = valueAt(values(m), 'proxyInit', 'resources');
      const q = (x: unknown) => (typeof x === 'string' || typeof x === 'number' ? String(x) : undefined);
      const pick = (field: 'limit' | 'request') =>
        Object.fromEntries(
          (['cpu', 'memory'] as const).flatMap((k) => {
            const v = q(valueAt(r, k, field));
            return v ? [[k, v]] : [];
          }),
        );
      const limits = pick('limit');
      const requests = pick('request');
      return Object.keys(limits).length || Object.keys(requests).length
        ? { requests, limits, from: 'linkerd-config values proxyInit.resources' }
        : undefined;
    },
    restrictedFix: (rule, container, ns) =>
      rule === 'capabilities' && container === 'linkerd-proxy'
        ? upgrade(
            'make the injector drop every capability of linkerd-proxy, values proxy.capabilities.drop',
            ns,
            'proxy.capabilities.drop={ALL}',
          )
        : undefined,
    // Linkerd documents no OpenShift install (linkerd/website 93f00175); its maintainers point at
    // linkerd-cni (linkerd/linkerd2#4851) and users move the proxy's UID into the namespace's range
    // with config.linkerd.io/proxy-uid (linkerd/linkerd2#10879, #11520).
    openshift: (ns) => [
      comment`linkerd-init needs NET_ADMIN and NET_RAW and linkerd-proxy runs as UID 2102: the SCCs allowed to the ServiceAccount of the pods refuse them`,
      comment`install linkerd-cni with linkerd install-cni so that no linkerd-init is injected, and set the pod template annotation config.linkerd.io/proxy-uid to a UID in the range of the namespace`,
      cmd`kubectl get namespace ${ns} -o jsonpath=${'{.metadata.annotations.openshift\\.io/sa\\.scc\\.uid-range}'}`,
    ],
    failures: [
      {
        container: 'linkerd-network-validator',
        exitCode: 95,
        cause:
          'linkerd-cni had not set up the pod\'s traffic redirection when it started ("Failed to validate networking configuration"): the pod started before linkerd-cni was ready on its node, or another CNI plugin replaced linkerd-cni\'s configuration (Cilium with cni.exclusive=true)',
        source: 'linkerd/linkerd2-proxy-init 183e791d validator/src/main.rs (exit 95); linkerd/linkerd2#11325, #11597',
        fix: (c) => [
          comment`delete the pod: its replacement is set up by linkerd-cni once it runs on the node. To have that done automatically, enable the repair controller of linkerd-cni: chart linkerd2-cni, repairController.enabled=true`,
          cmd`kubectl delete pod ${c.pod} -n ${c.namespace}`,
        ],
      },
      {
        container: 'linkerd-init',
        line: /\(legacy\): Cannot initialize: iptables who\? \(do you need to insmod\?\)/,
        node: true,
        cause:
          "the node's kernel has no legacy iptables (the nat table's modules are not loaded): linkerd-init runs iptables-legacy",
        source: 'linkerd/linkerd2#8596, #8732; values.yaml proxyInit.iptablesMode',
        fix: (c) =>
          upgrade(
            'run linkerd-init with nftables, or install linkerd-cni instead',
            c.controlPlaneNamespace,
            'proxyInit.iptablesMode=nft',
          ),
      },
      {
        container: 'linkerd-init',
        line: /\(nf_tables\): Could not fetch rule set generation id: Invalid argument/,
        node: true,
        cause:
          "the node's kernel does not support iptables-nft (GKE's Container-Optimized OS, older kernels): linkerd-init runs iptables-nft",
        source: 'linkerd/linkerd2#9053; values.yaml proxyInit.iptablesMode (nft by default since edge-25.8.2)',
        fix: (c) =>
          upgrade(
            'run linkerd-init with legacy iptables, or install linkerd-cni instead',
            c.controlPlaneNamespace,
            'proxyInit.iptablesMode=legacy',
          ),
      },
      {
        container: 'linkerd-init',
        line: /ip6tables[a-z-]{0,16} v[0-9.]{1,16}(?: \((?:legacy|nf_tables)\))?: can't initialize ip6tables table `nat': Table does not exist/,
        node: true,
        cause:
          "the node's kernel has no IPv6 nat table (ip6table_nat not loaded), which linkerd-init programs with IPv6 on (values disableIPv6=false); since proxy-init v2.4.1 it fails instead of ignoring it",
        source:
          'linkerd/linkerd2 b24cd405 charts/linkerd-control-plane/values.yaml disableIPv6, _proxy-init.tpl --ipv6; linkerd/linkerd2-proxy-init#388, linkerd/linkerd2#12711',
        fix: (c) =>
          upgrade(
            'load ip6table_nat on the nodes, or route only IPv4 through the proxy',
            c.controlPlaneNamespace,
            'disableIPv6=true',
          ),
      },
      {
        container: 'linkerd-init',
        // Not "Permission denied (you must be root)": that is the UID, which src/mesh/iptables.ts reads.
        line: /iptables(?:-nft)?-save v[0-9.]{1,16} \((?:legacy|nf_tables)\): Cannot initialize: Permission denied(?! \(you must be root\))/,
        node: true,
        cause: 'the node refuses linkerd-init its iptables calls (SELinux, or a runtime that withholds NET_ADMIN)',
        source: 'linkerd/linkerd2#7767, #2768',
        fix: () => [
          comment`install linkerd-cni so that the pods need no iptables of their own: linkerd install-cni, then linkerd upgrade --linkerd-cni-enabled, or allow the iptables calls of the container on the nodes`,
        ],
      },
    ],
    // charts/linkerd-control-plane/values.yaml proxyInit.iptablesMode ("legacy" or "nft"; since stable-2.12.0,
    // edge-22.7.1: linkerd/linkerd2#9053, linkerd/website#1429), which picks linkerd-init's iptables binaries.
    iptablesBackend: (to, ns) =>
      upgrade(
        to === 'legacy'
          ? 'run linkerd-init with legacy iptables, proxyInit.iptablesMode, since stable-2.12'
          : 'run linkerd-init with nftables, proxyInit.iptablesMode, since stable-2.12',
        ns,
        `proxyInit.iptablesMode=${to === 'legacy' ? 'legacy' : 'nft'}`,
      ),
    // charts/partials/templates/_proxy-init.tpl: privileged is values proxyInit.privileged (added by
    // linkerd/linkerd2#9873, stable-2.12.3, for SELinux nodes; default false).
    privileged: (ns) =>
      upgrade(
        'run linkerd-init privileged, which SELinux lets program the pod iptables',
        ns,
        'proxyInit.privileged=true',
      ),
    startOrder: {
      // The injector appends linkerd-init after the pod's own init containers (linkerd/linkerd2#1760, PR #1763,
      // edge-18.10.3; the patch adds /spec/initContainers/-); the CNI plugin redirects from the pod's start.
      // linkerd-init and the CNI plugin leave --proxy-uid alone (charts/partials/templates/_proxy-init.tpl,
      // values.yaml proxy.uid 2102); linkerd/linkerd2#4788 and #8100: skip the outbound ports it dials.
      initTraffic: {
        proxyUid: 2102,
        exclude: [
          { key: 'config.linkerd.io/skip-outbound-ports', takes: 'the ports it dials' },
          { key: 'config.linkerd.io/skip-subnets', takes: 'the address ranges it dials' },
        ],
        native: [
          'config.beta.linkerd.io/proxy-enable-native-sidecar',
          'config.linkerd.io/proxy-enable-native-sidecar',
          'config.alpha.linkerd.io/proxy-enable-native-sidecar',
        ],
        source:
          'linkerd/linkerd2 charts/partials/templates/_proxy-init.tpl (--proxy-uid), values.yaml proxy.uid 2102; pkg/inject patch /spec/initContainers/- (PR #1763)',
      },
      held: (_m, pod) => {
        const place = proxyPlace(pod, 'linkerd-proxy');
        const off = annotationOf(pod, AWAIT) === 'disabled';
        if (place === 'native')
          return off
            ? { held: false, how: `linkerd-proxy is a native sidecar without a startup probe: ${AWAIT}=disabled` }
            : {
                held: true,
                how: 'linkerd-proxy is a native sidecar: the kubelet starts the app after its startup probe',
              };
        if (place === 'first')
          return {
            held: true,
            how: 'linkerd-proxy is the first container: proxy-await, its postStart hook waits for it',
          };
        if (place === 'later')
          return {
            held: false,
            how: off
              ? `linkerd-proxy is not the first container: the pod says ${AWAIT}=disabled`
              : 'linkerd-proxy is not the first container: proxy.await was off when the pod was injected',
          };
        return undefined;
      },
      stuck: linkerdHoldStuck(values),
      setting: `${AWAIT} (Linkerd stable-2.11 and later, on by default)`,
      since: 'stable-2.11.0',
      source: 'linkerd/linkerd2 b24cd405 charts/patch/templates/patch.json, charts/partials/templates/_proxy.tpl',
      fix: (w, ns) => [
        comment`hold the app until linkerd-proxy is ready, for this workload`,
        ...setOnTemplate(w, 'annotations', AWAIT, 'enabled'),
        ...upgrade('or for every pod of the mesh', ns, 'proxy.await=true'),
      ],
    },
    image: (ns) => [
      comment`the proxy image is the linkerd-config value proxy.image.name, cr.l5d.io/linkerd/proxy by default, with the version of the control plane, or the pod template annotations config.linkerd.io/proxy-image and config.linkerd.io/proxy-version`,
      cmd`kubectl get configmap linkerd-config -n ${ns} -o jsonpath=${'{.data.values}'}`,
    ],
  };
}
