/**
 * What iptables itself says when it cannot program a pod's redirection (issue 31: kernel modules and
 * iptables backends). Every mesh's init container runs iptables (or iptables-restore) in the pod's
 * network namespace; the kernel of the node decides whether the tables, targets and matches it asks
 * for exist, and which backend (the legacy x_tables or nf_tables) offers them. The words are
 * iptables' own (netfilter iptables 1.6 and 1.8: libxtables/xtables.c "can't initialize %s table
 * `%s': %s", "Table does not exist (do you need to insmod?)", "Permission denied (you must be
 * root)"; iptables/iptables-restore.c "unable to initialize table '%s'"; iptables/nft.c "Could not
 * fetch rule set generation id"; iptables/xshared.c "Failed to initialize nft"; iptables 1.8
 * "unknown option", "Couldn't load target", "Extension %s revision 0 not supported, missing kernel
 * module?"), seen in the containers' termination messages where the container writes its log there
 * (Linkerd's linkerd-init: terminationMessagePolicy FallbackToLogsOnError) and quoted by the
 * threads: linkerd/linkerd2#7749 and #8596 (legacy, no nat table), #9053 (nf_tables unsupported),
 * #12711 (no ip6tables nat table), #7767 (Permission denied); istio/istio#10358 ("you must be
 * root"), #23009 and #44118 ("unable to initialize table 'nat'"); kumahq/kuma-counter-demo#30
 * (legacy nat table on RHEL 8); kumahq/kuma#5137 (unknown option "--to-ports");
 * hashicorp/consul-k8s#960 (legacy nat table). No mesh's name: the words are the kernel's and
 * iptables', the same under every mesh.
 * Bounded: only the last 64 KiB of a message and lines of at most 2,048 characters are read; the
 * patterns are anchored on iptables' fixed words and bounded.
 */

/** What the node's iptables refused, as iptables says it. */
type IptablesTrouble =
  | {
      /** The backend offers no such table: its module is not loaded, or the kernel has the other backend only. */
      readonly kind: 'table-missing';
      /** The backend iptables ran with; undefined where its words do not say (iptables 1.6 and older are legacy). */
      readonly backend?: 'legacy' | 'nf_tables';
      readonly family: 'IPv4' | 'IPv6';
      /** The table, where its words name it. */
      readonly table?: string;
    }
  | { readonly kind: 'nft-unsupported' }
  | { readonly kind: 'not-root' }
  | { readonly kind: 'denied'; readonly backend?: 'legacy' | 'nf_tables' }
  | { readonly kind: 'extension-missing'; readonly extension: string }
  /** A chain it creates exists already: it ran before in this pod's network namespace. */
  | { readonly kind: 'chain-exists' };

type Rule = { readonly re: RegExp; read(m: RegExpExecArray): IptablesTrouble };

const backendOf = (s: string | undefined) => (s === 'legacy' || s === 'nf_tables' ? s : undefined);
const familyOf = (cmd: string | undefined): 'IPv4' | 'IPv6' => (cmd?.startsWith('ip6') ? 'IPv6' : 'IPv4');
const VERSION = String.raw`v[0-9.]{1,16}(?: \((legacy|nf_tables)\))?`;

const RULES: readonly Rule[] = [
  {
    // iptables v1.8.7 (legacy): can't initialize iptables table `nat': Table does not exist (do you need to insmod?)
    re: new RegExp(
      String.raw`\b(ip6?tables)(?:-[a-z]{1,12}){0,2} ${VERSION}: can't initialize ip6?tables table .([a-z]{1,16}).: Table does not exist`,
    ),
    read: (m) => ({
      kind: 'table-missing',
      ...(backendOf(m[2]) ? { backend: backendOf(m[2]) } : {}),
      family: familyOf(m[1]),
      table: m[3]!,
    }),
  },
  {
    // iptables-restore v1.6.1: iptables-restore: unable to initialize table 'nat'
    // xtables parameter problem: iptables-restore: unable to initialize table 'nat'
    re: new RegExp(
      String.raw`\b(ip6?tables)-restore(?: ${VERSION})?: (?:ip6?tables-restore: )?unable to initialize table '([a-z]{1,16})'`,
    ),
    read: (m) => ({
      kind: 'table-missing',
      ...(backendOf(m[2]) ? { backend: backendOf(m[2]) } : {}),
      family: familyOf(m[1]),
      table: m[3]!,
    }),
  },
  {
    // iptables-save v1.8.7 (legacy): Cannot initialize: iptables who? (do you need to insmod?)
    re: new RegExp(String.raw`\b(ip6?tables)(?:-[a-z]{1,12}){0,2} ${VERSION}: Cannot initialize: ip6?tables who\?`),
    read: (m) => ({ kind: 'table-missing', backend: backendOf(m[2]) ?? 'legacy', family: familyOf(m[1]) }),
  },
  {
    // iptables-nft-save v1.8.7 (nf_tables): Could not fetch rule set generation id: Invalid argument
    // iptables/1.8.7 Failed to initialize nft: Protocol not supported
    re: /\(nf_tables\): Could not fetch rule set generation id: Invalid argument|\bFailed to initialize nft: Protocol not supported/,
    read: () => ({ kind: 'nft-unsupported' }),
  },
  {
    // iptables v1.6.0: can't initialize iptables table `nat': Permission denied (you must be root)
    re: /Permission denied \(you must be root\)/,
    read: () => ({ kind: 'not-root' }),
  },
  {
    // iptables-save v1.8.7 (legacy): Cannot initialize: Permission denied
    // iptables v1.6.0: can't initialize iptables table `nat': Permission denied
    re: new RegExp(
      String.raw`\bip6?tables(?:-[a-z]{1,12}){0,2} ${VERSION}: (?:Cannot initialize|can't initialize ip6?tables table .[a-z]{1,16}.): Permission denied(?! \(you must be root\))`,
    ),
    read: (m) => ({ kind: 'denied', ...(backendOf(m[1]) ? { backend: backendOf(m[1]) } : {}) }),
  },
  {
    // iptables-restore v1.8.4 (legacy): unknown option "--to-ports"; Couldn't load target `REDIRECT':No such file or directory
    // Warning: Extension REDIRECT revision 0 not supported, missing kernel module?
    re: /\bunknown option "(--to-ports|--uid-owner|--gid-owner|--dports)"|\bCouldn't load (?:target|match) `([A-Za-z_]{1,32})'|\bExtension ([A-Za-z_]{1,32}) revision 0 not supported, missing kernel module\?/,
    read: (m) => ({ kind: 'extension-missing', extension: (m[1] ?? m[2] ?? m[3])! }),
  },
  {
    // iptables: Chain already exists. (iptables -N of a chain the pod's network namespace holds: a second run;
    // istio/istio#21030, #42792, #40169)
    re: /\bip6?tables(?:-restore)?(?: v[0-9.]{1,16})?: Chain already exists\b/,
    read: () => ({ kind: 'chain-exists' }),
  },
];

/** The lines a snapshot keeps of an injected container's termination message (src/mesh/keep.ts). */
export const IPTABLES_LINES: readonly RegExp[] = RULES.map((r) => r.re);

/**
 * Where iptables' words begin on a line: its first word naming iptables (iptables, ip6tables-restore,
 * xtables) at or before the match, else the match's own word; what comes before (a logger's time) is not iptables'.
 */
function wordsStart(line: string, at: number): number {
  const head = line.slice(0, at + 1);
  const named = /\b(?:ip6?tables|xtables)/.exec(head);
  if (named) return named.index;
  const sp = head.lastIndexOf(' ', at);
  return sp < 0 ? 0 : sp + 1;
}

/** The first line of a termination message in which iptables says what the node refused, and what. */
export function readIptables(message: string | undefined): { line: string; trouble: IptablesTrouble } | undefined {
  if (!message) return undefined;
  const lines = message.slice(-65536).split(/\r?\n/);
  for (const raw of lines) {
    const line = raw.slice(0, 2048);
    for (const r of RULES) {
      const m = r.re.exec(line);
      if (m) return { line: line.slice(wordsStart(line, m.index)).slice(0, 512), trouble: r.read(m) };
    }
  }
  return undefined;
}

/** The kernel modules a table of a family lives in, for each backend. */
const tableModule = (t: { family: 'IPv4' | 'IPv6'; table?: string; backend?: 'legacy' | 'nf_tables' }) => {
  const table = t.table ?? 'nat';
  if (t.backend === 'nf_tables') return table === 'nat' ? 'nft_chain_nat' : 'nf_tables';
  return `${t.family === 'IPv6' ? 'ip6table' : 'iptable'}_${table}`;
};

/** What the trouble means, for the node, as a clause (no final period); the container's name is the caller's. */
export function iptablesCause(t: IptablesTrouble): string {
  switch (t.kind) {
    case 'table-missing': {
      const table = t.table ? `${t.family} ${t.table} table` : `${t.family} tables`;
      if (t.backend === 'nf_tables')
        return `the node's kernel offers no nf_tables ${table} to the nf_tables backend it runs (${tableModule(t)} not loaded or not built)`;
      return `the node's kernel offers no legacy ${table} to the legacy iptables backend it runs${t.backend ? '' : ' (iptables of this age has no other)'}: ${tableModule(t)} is not loaded, or the node runs iptables on nf_tables only (RHEL 8 and later and their rebuilds do)`;
    }
    case 'nft-unsupported':
      return "the node's kernel does not support the nf_tables backend the container runs (Container-Optimized OS and older kernels): it needs the legacy backend";
    case 'not-root':
      return 'iptables refuses it because it does not run as root (UID 0): it needs root to program the pod iptables';
    case 'denied':
      return 'the node refuses its iptables calls although it runs as root (SELinux, or a runtime or policy withholding NET_ADMIN or NET_RAW)';
    case 'chain-exists':
      return "a chain it creates exists already in the pod's network namespace: it ran there before, and this release does not run twice";
    case 'extension-missing':
      return `the node's kernel lacks the module of an iptables extension its rules use (${t.extension}: xt_REDIRECT for --to-ports and REDIRECT, xt_owner for --uid-owner and --gid-owner, xt_multiport for --dports)`;
  }
}
