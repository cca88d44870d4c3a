/**
 * Menu competition: two advertised, enabled skills whose summaries are so alike that a small model choosing
 * from one-liners cannot tell them apart. The measure (docs/routing.md) is the cosine of two summaries' sets of
 * content words: lower-cased, English function words and the words every menu entry shares ("the user", "use")
 * dropped, light suffix stemming (`meetings` → `meet`). It depends on the two summaries only, never on the rest
 * of the workspace, so a change to one summary changes only the pairs it is in.
 *
 * Finding the pairs is in similarityIndex.ts; the diagnostics they give, in menuCompetition.ts.
 */
import { detached } from "./text.js";

/**
 * Summaries at or above this cosine get `menu-similar`. For two summaries of equal length it means that 70% of
 * their content words are the same: three of four, four of five, seven of ten. Calibrated on the pairs in
 * test/unit/similarity.test.ts: rewordings of one job score 0.75 to 1; jobs that share a domain score 0.25 to
 * 0.67 ("Check the weather for a city" and "… the traffic …" share two words of three: the one they differ in
 * is the one a model routes by); the 21 pairs of the examples' menu score at most 0.26. There is no way to
 * silence one warning, so the line errs towards fewer false alarms.
 */
export const MENU_SIMILARITY_THRESHOLD = 0.7;

/**
 * Summaries with fewer content words are not compared: with one word the cosine is 0 or 1, all or nothing, and
 * a one-word summary ("A test skill.") wants a better summary before it wants a comparison.
 */
export const MIN_SUMMARY_TERMS = 2;

/** At most this many `menu-similar` warnings on one skill, the closest first; the last says how many more. */
export const MAX_SIMILAR_REPORTED = 5;

/** English function words, and words that every menu entry shares (each is about the user and a request). */
const STOP_WORDS = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below between both but by can " +
    "could did do does doing down during each either else etc ever every few for from further had has have having he her here hers " +
    "herself him himself his how however i if in into is it its itself just least less like may me might more most much must my " +
    "myself neither no nor not now of off often on once one ones only or other others our ours ourselves out over own per rather same " +
    "shall she should so some such than that the their theirs them themselves then there these they this those though through to " +
    "too under until up upon us very via was we were what whatever when whenever where whether which while who whom whose why will " +
    "with within without would yet you your yours yourself yourselves something anything everything nothing thing things way " +
    "user users skill skills use used uses using agent assistant request requests need needs want wants ask asks asked"
  ).split(" "),
);

const VOWEL = /[aeiouy]/;

/**
 * A light suffix stemmer, enough to match a word with its plural and its -ing/-ed forms (`files`/`file`,
 * `meetings`/`meeting`, `planned`/`planning`/`plan`, `prepare`/`preparing`). Not Porter: summaries are short
 * and a wrong merge costs a false warning, so it strips only suffixes whose removal leaves a vowel.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith("ies")) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith("s") && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  for (const suffix of ["ing", "ed"]) {
    const base = w.slice(0, -suffix.length);
    if (w.endsWith(suffix) && base.length >= 3 && VOWEL.test(base)) {
      // planned → plann → plan; but not "fall" → "fal"
      w = /([^aeiouslz])\1$/.test(base) ? base.slice(0, -1) : base;
      break;
    }
  }
  if (w.length > 3 && w.endsWith("e")) w = w.slice(0, -1);
  return w;
}

/** The terms of a summary: its content words, stemmed, unique, sorted. */
export function summaryTerms(text: string): string[] {
  const terms = new Set<string>();
  for (const word of text.toLowerCase().match(WORD) ?? []) {
    const term = termOf(word);
    if (term !== "") terms.add(term);
  }
  return [...terms].sort();
}

const WORD = /[\p{L}\p{N}]+/gu;
const LETTER = /\p{L}/u;

/**
 * Each word's term as {@link summaryTerms} finds it ("" for none), remembered: a library's summaries share a
 * vocabulary of a few thousand words, and stemming each of 100,000 summaries' words again was most of their cost.
 */
const termsOfWords = new Map<string, string>();
/** Past this many words the memory starts again: it is a saving, not a registry. */
const MAX_REMEMBERED_WORDS = 100_000;

/** A lower-cased word's term, "" for none (a function word, a number, a single character). */
export function termOf(word: string): string {
  const known = termsOfWords.get(word);
  if (known !== undefined) return known;
  let term = "";
  if (word.length >= 2 && !STOP_WORDS.has(word) && LETTER.test(word)) {
    const stemmed = stem(word);
    if (!STOP_WORDS.has(stemmed)) term = stemmed;
  }
  if (termsOfWords.size >= MAX_REMEMBERED_WORDS) termsOfWords.clear();
  // Copies, not slices: a long word cut from a summary would keep the summary alive here.
  term = detached(term);
  termsOfWords.set(detached(word), term);
  return term;
}

/** The cosine of two sorted term sets (as binary vectors): shared terms / √(|a|·|b|); 0 when either is empty. */
export function termSimilarity(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  let shared = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    const x = a[i] ?? "";
    const y = b[j] ?? "";
    if (x === y) {
      shared++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return shared / Math.sqrt(a.length * b.length);
}

/** The similarity of two summaries, 0 to 1 (see {@link summaryTerms}). */
export function summarySimilarity(a: string, b: string): number {
  return termSimilarity(summaryTerms(a), summaryTerms(b));
}
