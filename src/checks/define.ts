import type { Model } from '../facts/model.js';
import { staticInputs, type AnyFact } from '../k8s/fact.js';
import type { KindKey } from '../k8s/kinds.js';
import type { CheckMeta, Evidence, FindingInput, Messages, Param, ParamsOf } from './types.js';
import { CATALOG, type CatalogEntry, type CheckId } from './catalog.js';

export type { CheckMeta, FindingInput } from './types.js';

/**
 * A check: its metadata, its messages and a pure run over the model; `E`, the shape of its
 * evidence; `M`, its messages (id -> template), whose ids and params its findings must use.
 * `Check` alone (M `any`) is any check, whatever its messages: what the registry and the runner hold.
 */
export interface Check<E extends Evidence = Evidence, M extends Messages = any> extends CheckMeta {
  /** Its messages by id (templates with `{param}` slots); absent: a check not converted yet. */
  messages?: M;
  /**
   * The facts (src/k8s/fact.ts) it asks for whose inputs it reads: with its own reads (the catalog's
   * `inputs` and `optionalInputs`), they make its inputs (`derivedInputs`, applied by defineCheck).
   */
  facts?: readonly AnyFact[];
  run(ctx: Model): Iterable<FindingInput<E, NoInfer<M>>>;
}

/** The evidence a check's findings carry (inferred from what its run() yields), for its tests and docs. */
export type EvidenceOf<C> = C extends Check<infer E> ? E : never;

/** A check's metadata, from the catalog (src/checks/catalog.ts). */
export const meta = (id: CheckId): CheckMeta => ({ id, ...(CATALOG[id] as CatalogEntry) });

/**
 * A check's inputs, derived in this one place (issue 32 item 3): `inputs`, the kinds it cannot run
 * without (the runner skips it when one was not read), as its catalog entry says; `optionalInputs`,
 * its own further reads (the catalog's) and the inputs of every fact it declares (`facts`), but
 * the required ones, in that order. What reads a check's inputs (the read plan, coverage, the
 * watch's held findings, the RBAC and bench tables) reads these; test/declared-inputs.test.ts
 * checks that a check reads nothing beyond them, and declares no fact or own read it does not need.
 */
export function derivedInputs(
  own: { inputs: readonly KindKey[]; optionalInputs?: readonly KindKey[] },
  facts: readonly AnyFact[] = [],
): { inputs: readonly KindKey[]; optionalInputs?: readonly KindKey[] } {
  const required = new Set(own.inputs);
  const optional = [...new Set([...(own.optionalInputs ?? []), ...facts.flatMap((f) => staticInputs(f))])].filter(
    (k) => !required.has(k),
  );
  return { inputs: own.inputs, ...(optional.length || own.optionalInputs ? { optionalInputs: optional } : {}) };
}

/**
 * Declare a check (keeps its type exact, its evidence's shape included): its inputs become the
 * derived ones (`derivedInputs`: its own reads and those of the facts it declares).
 */
export function defineCheck<E extends Evidence, const M extends Messages = Record<never, string>>(
  check: Check<E, M>,
): Check<E, M> {
  return check.facts?.length ? { ...check, ...derivedInputs(check, check.facts) } : check;
}

/**
 * A check's messages, declared once beside it (`const MESSAGES = messages({ id: 'text {param}' })`,
 * then `defineCheck({ ..., messages: MESSAGES, ... })`): kept as literal types, so that `say` knows
 * each template's slots.
 */
export const messages = <const M extends Messages>(m: M): M => m;

/**
 * What a finding says, as data: one of the check's message ids and its params (`...say(MESSAGES,
 * 'no-marker', { namespace })`). An id the check does not declare, a slot without its param or a
 * param without its slot is a compile error here, at the finding.
 */
export const say = <const M extends Messages, K extends keyof M & string>(
  _messages: M,
  messageId: K,
  params: ParamsOf<M[K]>,
): { messageId: K; params: ParamsOf<M[K]> } => ({ messageId, params });

/** A template's `{param}` slots. */
const SLOT = /\{([A-Za-z0-9_]+)\}/g;

/** The names of a template's slots, in order of first appearance. */
export const slotsOf = (template: string): string[] => [...new Set([...template.matchAll(SLOT)].map((m) => m[1]!))];

/**
 * The text of a finding: its own (a check not converted yet), or its message's template with each
 * slot replaced by its param. An id the check does not declare, or a slot without its param, is an
 * error (the types make either a compile error; this guards what they cannot see).
 */
export function renderMessage(
  check: { id: string; messages?: Messages },
  f: { message?: string; messageId?: string; params?: Readonly<Record<string, Param>> },
): string {
  if (f.messageId === undefined) return f.message ?? '';
  const template = check.messages?.[f.messageId];
  if (template === undefined) throw new Error(`check ${check.id}: no message ${f.messageId}`);
  return template.replace(SLOT, (_, name: string) => {
    const v = f.params?.[name];
    if (v === undefined) throw new Error(`check ${check.id}: message ${f.messageId} lacks param ${name}`);
    return String(v);
  });
}

/**
 * Where a check's page is published, when a base URL is configured (MESHDOCTOR_DOCS_URL, e.g. your
 * fork's `.../blob/main/docs/checks`): `${base}/${id}.md`. Without one there is no URL: the pages
 * ship with meshdoctor (`meshdoctor checks ID`), and no link points to a site that may not exist.
 */
export const docsUrl = (id: string, base: string | undefined): string | undefined =>
  base ? `${base.replace(/\/+$/, '')}/${id}.md` : undefined;

/** A finding's params as the report carries them: its template's slots, in their order. */
export function paramsOf(
  check: { messages?: Messages },
  f: { messageId?: string; params?: Readonly<Record<string, Param>> },
): Record<string, Param> {
  const template = f.messageId === undefined ? undefined : check.messages?.[f.messageId];
  return Object.fromEntries((template ? slotsOf(template) : []).map((s) => [s, f.params?.[s] ?? '']));
}
