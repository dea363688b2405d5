/**
 * A check named by the user (an id or a code, in any case), and the "did you mean" for one that
 * names none. Reads the catalog only: `meshdoctor checks ID` loads no check.
 */
import { didYouMean } from '../util/suggest.js';
import { CHECK_META } from './catalog.js';

/** Whether `word` names a check: its id or code, case aside. */
export const namesCheck = (word: string, c: { id: string; code: string }): boolean =>
  word.toLowerCase() === c.id || word.toLowerCase() === c.code.toLowerCase();

/** `unknown check "pod-opted-ot"; did you mean pod-opted-out?`: ids are compared in lower case, codes in upper. */
export function unknownCheck(word: string): string {
  const ids = didYouMean(
    word.toLowerCase(),
    CHECK_META.map((c) => c.id),
  );
  return `unknown check "${word}"${
    ids ||
    didYouMean(
      word.toUpperCase(),
      CHECK_META.map((c) => c.code),
    )
  }`;
}
