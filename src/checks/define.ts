import type { Model } from '../facts/model.js';
import type { CheckMeta, Evidence, FindingInput } from './types.js';
import { CATALOG, type CatalogEntry, type CheckId } from './catalog.js';

export type { CheckMeta, FindingInput } from './types.js';

/** A check: its metadata and a pure run over the model; `E`, the shape of its evidence. */
export interface Check<E extends Evidence = Evidence> extends CheckMeta {
  run(ctx: Model): Iterable<FindingInput<E>>;
}

/** The evidence a check's findings carry (inferred from what its run() yields), for its tests and docs. */
export type EvidenceOf<C> = C extends Check<infer E> ? E : never;

/** A check's metadata, from the catalog (src/checks/catalog.ts). */
export const meta = (id: CheckId): CheckMeta => ({ id, ...(CATALOG[id] as CatalogEntry) });

/** Declare a check (identity function that keeps its type exact, its evidence's shape included). */
export function defineCheck<E extends Evidence>(check: Check<E>): Check<E> {
  return check;
}

/**
 * Where a check's page is published, when a base URL is configured (MESHDOCTOR_DOCS_URL, e.g. your
 * fork's `.../blob/main/docs/checks`): `${base}/${id}.md`. Without one there is no URL: the pages
 * ship with meshdoctor (`meshdoctor checks ID`), and no link points to a site that may not exist.
 */
export const docsUrl = (id: string, base: string | undefined): string | undefined =>
  base ? `${base.replace(/\/+$/, '')}/${id}.md` : undefined;
