/**
 * "Did you mean" for names the user types (check ids, codes, contexts), the way commander suggests
 * flags (commander 14, lib/suggestSimilar.js): the candidates at the smallest optimal-string-
 * alignment distance, at most 2 edits away and more than 40% alike, so that a typo of a check id
 * gets the same help a typo of a flag does.
 */

const MAX_DISTANCE = 3;
/** Longer words are not compared (the distance is quadratic in the length): no suggestion. */
const MAX_LENGTH = 200;

/** Damerau-Levenshtein distance, optimal string alignment (no substring edited twice). */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > MAX_DISTANCE) return Math.max(a.length, b.length);
  const d: number[][] = [];
  for (let i = 0; i <= a.length; i++) d[i] = [i];
  for (let j = 0; j <= b.length; j++) d[0]![j] = j;
  for (let j = 1; j <= b.length; j++) {
    for (let i = 1; i <= a.length; i++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The closest candidates to `word` (sorted), or none. */
export function similar(word: string, candidates: Iterable<string>): string[] {
  if (word.length > MAX_LENGTH) return [];
  let best: string[] = [];
  let bestDistance = MAX_DISTANCE;
  for (const c of new Set(candidates)) {
    if (c.length <= 1 || c.length > MAX_LENGTH) continue;
    const distance = editDistance(word, c);
    const length = Math.max(word.length, c.length);
    if ((length - distance) / length <= 0.4) continue;
    if (distance < bestDistance) {
      bestDistance = distance;
      best = [c];
    } else if (distance === bestDistance) best.push(c);
  }
  return best.sort();
}

/** `; did you mean X?`, `; did you mean one of X, Y?`, or '': to put after `unknown ... "WORD"`. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const s = similar(word, candidates);
  if (s.length === 0) return '';
  return s.length === 1 ? `; did you mean ${s[0]}?` : `; did you mean one of ${s.join(', ')}?`;
}
