import { isControlPlaneCause } from '../facts/causes.js';
import type { Finding, RunResult } from '../run/result.js';
import { controlChars } from '../util/errors.js';
import { agree, plural } from '../util/objects.js';

/**
 * Untrusted text (names, annotation values, event messages) made safe for a terminal: ANSI/CSI
 * and OSC sequences (colors, cursor moves, OSC 8 links, title changes), other C0/C1 controls,
 * carriage returns and every invisible format character (Unicode Cf: bidi overrides and isolates,
 * zero-width characters, U+FEFF, the soft hyphen, tags; the set of util/errors.ts hasControl) are
 * removed; newlines (and U+2028, U+2029) become spaces.
 */

const CSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]/g;

const OSC = /\u001b\][\s\S]*?(?:\u0007|\u001b\\|\u009c)|\u009d[\s\S]*?(?:\u0007|\u001b\\|\u009c)/g;

const OTHER_ESC = /\u001b[@-_]?/g;

const CONTROL = controlChars();

export function clean(s: string): string {
  return s
    .replace(OSC, '')
    .replace(CSI, '')
    .replace(OTHER_ESC, '')
    .replace(/\r?\n|[\u2028\u2029]/g, ' ')
    .replace(CONTROL, '');
}

/** Kinds whose pods are their own: a finding about one counts the pods it runs. */
const POD_OWNERS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob', 'ReplicaSet', 'Pod']);

/**
 * The pods a finding affects, said so that they are not taken for its resource's own: "2 pods" of a
 * workload are its pods; an injector or webhook finding counts the app pods left without a proxy
 * ("2 app pods without a proxy"), a namespace or quota finding the pods it affects ("1 pod affected").
 * '' when none are counted.
 */
export function podsText(f: Pick<Finding, 'affectedPods' | 'resource' | 'cause'>): string {
  const n = f.affectedPods;
  if (!n) return '';
  if (f.cause && isControlPlaneCause(f.cause)) return `${plural(n, 'app pod')} without a proxy`;
  return POD_OWNERS.has(f.resource.kind) ? plural(n, 'pod') : `${plural(n, 'pod')} affected`;
}

/**
 * What a report says when it lists no finding. Never "every workload is injected" when findings
 * were suppressed (it says how many) or when some checks could not look.
 */
export function nothingFound(result: Pick<RunResult, 'coverage' | 'summary' | 'selection'>): string {
  const s = result.summary;
  const quiet = s.suppressed;
  const sel = result.selection;
  if (sel && sel.workloads.selected === 0)
    return `No workload in scope matches ${selectionText(sel)}: nothing was checked.`;
  if (!result.coverage.complete || result.coverage.unavailable.some((u) => u.declined)) {
    return quiet
      ? `The ${plural(s.checksRun, 'check')} that ran found only ${plural(quiet, 'suppressed finding')} (listed below).`
      : `The ${plural(s.checksRun, 'check')} that ran found nothing.`;
  }
  return quiet
    ? `No findings, but ${plural(quiet, 'finding')} ${agree(quiet, 'was', 'were')} suppressed (listed below).`
    : `No findings: every ${sel ? 'selected workload' : 'workload in scope'} is injected as configured.`;
}

/** `-l app=cart --field-selector metadata.namespace=shop`, as given (made safe for a terminal). */
export function selectionText(sel: NonNullable<RunResult['selection']>): string {
  return [
    sel.selector !== undefined ? `-l ${clean(sel.selector)}` : '',
    sel.fieldSelector !== undefined ? `--field-selector ${clean(sel.fieldSelector)}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/**
 * `check -n`: the one line for what was found beside the namespace and is not its concern (another
 * mesh's control plane): "elsewhere: 3 errors (linkerd), not about namespace store:
 * injector-oomkilled, ...; meshdoctor check -A shows them". Never part of the verdict.
 */
export function elsewhereText(e: NonNullable<RunResult['elsewhere']>): string {
  const counts = [
    e.error ? plural(e.error, 'error') : '',
    e.warning ? plural(e.warning, 'warning') : '',
    e.info ? `${e.info} info` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const ids = [...new Set(e.findings.map((f) => f.id))];
  const shown = ids.slice(0, 5).join(', ') + (ids.length > 5 ? `, and ${ids.length - 5} more` : '');
  const whose = e.meshes.map((m) => clean(m)).join(', ');
  return `elsewhere: ${counts} (${whose}), not about namespace ${clean(e.namespace)}: ${shown}; meshdoctor check -A shows them`;
}
