/**
 * Menu competition: two advertised, enabled skills whose summaries are so alike that a small model choosing
 * from one-liners cannot tell them apart. The measure (docs/routing.md) is the cosine of two summaries' sets of
 * content words: lower-cased, English function words and the words every menu entry shares ("the user", "use")
 * dropped, light suffix stemming (`meetings` → `meet`). It depends on the two summaries only, never on the rest
 * of the workspace, so a change to one summary changes only the pairs it is in.
 *
 * Finding the pairs is all-pairs similarity search, O(n²) if done naively. {@link SimilarityIndex} is exact and
 * answers one summary's neighbours by reading the posting lists of the pairs among its rarest terms (prefix
 * filtering on term pairs), then bounds each candidate's overlap before computing its score.
 */
import type { CoreDiagnostic } from "./diagnostics.js";
import { DiagnosticCodes } from "./diagnostics.js";
import type { SkillFile } from "./skillFile.js";

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
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (word.length < 2 || STOP_WORDS.has(word) || !/\p{L}/u.test(word)) continue;
    const stemmed = stem(word);
    if (!STOP_WORDS.has(stemmed)) terms.add(stemmed);
  }
  return [...terms].sort();
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

/** A summary close to another one, with their score. */
export interface SimilarNeighbour {
  readonly key: string;
  readonly score: number;
}

/** The summaries that have one set of terms: compared once, for all of them. */
interface Group {
  readonly id: number;
  /** The term ids, joined: the group's key. */
  readonly signature: string;
  /** Term ids, sorted ascending (for merging). */
  readonly terms: Int32Array;
  /** The term ids in the index's term order, rarest first (see {@link SimilarityIndex}). */
  readonly ordered: Int32Array;
  readonly members: Set<string>;
  /** The members in key order, made when first asked for after a change. */
  sorted: string[] | undefined;
}

const EPSILON = 1e-9;

/** A summary's closest neighbours, and how many there are in all. */
export interface Closest {
  readonly closest: readonly SimilarNeighbour[];
  readonly total: number;
}

/**
 * Subsets of this many terms key the posting lists, by the size of the larger summary of a pair (see
 * {@link SimilarityIndex}). Measured on the 10,000 summaries of the bench's realistic and worst workspaces:
 * triples for short summaries read fewer entries but held half as much memory again, for no less time.
 */
function subsetSize(largerSize: number): number {
  return largerSize <= 24 ? 2 : 1;
}

/**
 * The summaries under comparison, by key, found by prefix filtering (the AllPairs family of similarity joins),
 * generalised from single terms to term subsets. Terms have one fixed order, rarest first. A pair of sizes n and
 * m at or above the threshold t shares s ≥ r = ⌈t·√(nm)⌉ terms; its first c shared terms in that order lie among
 * the first n − r + c terms of one side and the first m − r + c of the other, since each side has at most n − s
 * (m − s) other terms before them. So each summary is indexed under the c-subsets of its first terms, with the
 * place of the last, and probes the same subsets of its own: a pair shares at least one such key, and a key
 * whose terms lie too deep for the pair's sizes is skipped. With c = 1 (plain prefix filtering) a summary of
 * common words probes long lists of everything holding one of them, which made a workspace whose summaries share
 * a small vocabulary read lists of nearly every summary; a pair of terms is rarer than either. Summaries of
 * more than 24 terms use single terms (their pairs would be too many); c is a function of the pair's sizes, so
 * both sides agree. Any fixed order is correct; `build` ranks terms by frequency once, and a term first seen
 * later is ranked before all others, as a new word is rare.
 *
 * Summaries with the same terms form one group, compared once: 10,000 copies of a template summary are one
 * entry, not 50 million pairs. Group ids are dense integers and posting lists plain arrays, so candidates are
 * marked in typed arrays rather than maps.
 */
export class SimilarityIndex {
  readonly #threshold: number;
  readonly #groupOf = new Map<string, Group>();
  readonly #groups = new Map<string, Group>();
  readonly #byId: (Group | undefined)[] = [];
  readonly #freeIds: number[] = [];
  readonly #termIds = new Map<string, number>();
  /** By term id: its place in the term order (lower is earlier). */
  readonly #rank: number[] = [];
  /** By term id: the one bit of 64 that stands for it in a signature. */
  readonly #bits: number[] = [];
  /**
   * By subset size c (1 to 3), then summary size, then subset key: the groups of that size indexed under it,
   * as pairs (group id, place of its last term). Split by size, a probe reads only the lists of the partner
   * sizes it can meet, each with the prefix that size needs.
   */
  readonly #postings: Map<number, Map<number, number[]>>[] = [new Map(), new Map(), new Map(), new Map()];
  /** By summary size: for each subset size c, how many of its first terms it indexes and probes (0: none). */
  readonly #prefixes = new Map<number, Int32Array>();
  #nextRank = -1;
  /** By group id: the last query that accepted it. */
  #marks = new Int32Array(64);
  /** By group id, two 32-bit words: the bits of its terms, an upper bound on what it shares with a probe. */
  #signatures = new Int32Array(128);
  #stamp = 0;

  constructor(threshold = MENU_SIMILARITY_THRESHOLD) {
    this.#threshold = threshold;
  }

  get size(): number {
    return this.#groupOf.size;
  }

  has(key: string): boolean {
    return this.#groupOf.has(key);
  }

  /** Indexes many summaries at once, ranking their terms by how many summaries hold each (rarest first). */
  build(summaries: Iterable<readonly [key: string, summary: string]>): void {
    const all = [...summaries].map(([key, summary]) => [key, summaryTerms(summary)] as const);
    const frequency = new Map<string, number>();
    for (const [, terms] of all) countTerms(terms, frequency);
    this.rankTerms(frequency);
    for (const [key, terms] of all) this.#set(key, terms);
  }

  /**
   * Ranks the terms not seen before by how many summaries hold each ({@link countTerms}), rarest first: what
   * {@link build} does before it indexes, for a caller that indexes in steps (with {@link setTerms}).
   */
  rankTerms(frequency: ReadonlyMap<string, number>): void {
    const fresh = [...frequency].filter(([term]) => !this.#termIds.has(term)).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : -1));
    for (const [term] of fresh) this.#termId(term);
  }

  /** Adds, replaces or (with undefined) removes the summary under a key. */
  set(key: string, summary: string | undefined): void {
    this.#set(key, summary === undefined ? undefined : summaryTerms(summary));
  }

  /** {@link set} with the summary's terms already found ({@link summaryTerms}). */
  setTerms(key: string, terms: readonly string[] | undefined): void {
    this.#set(key, terms);
  }

  #set(key: string, words: readonly string[] | undefined): void {
    const previous = this.#groupOf.get(key);
    if (previous) {
      this.#groupOf.delete(key);
      previous.members.delete(key);
      previous.sorted = undefined;
      if (previous.members.size === 0) this.#removeGroup(previous);
    }
    if (words === undefined || words.length < MIN_SUMMARY_TERMS) return;
    const ids = words.map((term) => this.#termId(term));
    const terms = Int32Array.from(ids).sort();
    const signature = terms.join(",");
    const group = this.#groups.get(signature) ?? this.#addGroup(signature, terms, ids);
    group.members.add(key);
    group.sorted = undefined;
    this.#groupOf.set(key, group);
  }

  #addGroup(signature: string, terms: Int32Array, ids: number[]): Group {
    const rank = this.#rank;
    const ordered = Int32Array.from(ids.sort((a, b) => (rank[a] as number) - (rank[b] as number)));
    const id = this.#freeIds.pop() ?? this.#byId.length;
    const group: Group = { id, signature, terms, ordered, members: new Set(), sorted: undefined };
    this.#groups.set(signature, group);
    this.#byId[id] = group;
    if (id >= this.#marks.length) {
      const length = Math.max(id + 1, this.#marks.length * 2);
      const grow = (from: Int32Array, size: number) => {
        const grown = new Int32Array(size);
        grown.set(from);
        return grown;
      };
      this.#marks = grow(this.#marks, length);
      this.#signatures = grow(this.#signatures, length * 2);
    }
    let low = 0;
    let high = 0;
    for (const term of terms) {
      const bit = this.#bits[term] as number;
      if (bit < 32) low |= 1 << bit;
      else high |= 1 << (bit - 32);
    }
    this.#signatures[2 * id] = low;
    this.#signatures[2 * id + 1] = high;
    this.#eachIndexKey(group, (postings, key, place) => {
      const posting = postings.get(key);
      if (posting) posting.push(id, place);
      else postings.set(key, [id, place]);
    });
    return group;
  }

  #removeGroup(group: Group): void {
    this.#eachIndexKey(group, (postings, key) => {
      const posting = postings.get(key);
      if (!posting) return;
      for (let at = 0; at < posting.length; at += 2) {
        if (posting[at] !== group.id) continue;
        posting[at] = posting[posting.length - 2] as number;
        posting[at + 1] = posting[posting.length - 1] as number;
        posting.length -= 2;
        break;
      }
      if (posting.length === 0) postings.delete(key);
    });
    this.#groups.delete(group.signature);
    this.#byId[group.id] = undefined;
    this.#freeIds.push(group.id);
  }

  /** For each subset size c, how many of its first terms a summary of n terms indexes: the most any partner size needs. */
  #prefixesOf(n: number): Int32Array {
    let prefixes = this.#prefixes.get(n);
    if (prefixes) return prefixes;
    prefixes = new Int32Array(4);
    const t = this.#threshold;
    const lowest = Math.max(MIN_SUMMARY_TERMS, Math.ceil(t * t * n - EPSILON));
    const highest = Math.floor(n / (t * t) + EPSILON);
    for (let m = lowest; m <= highest; m++) {
      const { shared, c } = pairNeeds(t, n, m);
      prefixes[c] = Math.max(prefixes[c] as number, n - shared + c);
    }
    this.#prefixes.set(n, prefixes);
    return prefixes;
  }

  /** Calls `visit` with the posting lists, key and place of the last term of every subset a group is indexed under. */
  #eachIndexKey(group: Group, visit: (postings: Map<number, number[]>, key: number, place: number) => void): void {
    const n = group.ordered.length;
    const prefixes = this.#prefixesOf(n);
    for (let c = 1; c <= 3; c++) {
      if ((prefixes[c] as number) === 0) continue;
      const bySize = this.#postings[c] as Map<number, Map<number, number[]>>;
      let postings = bySize.get(n);
      if (!postings) bySize.set(n, (postings = new Map()));
      const lists = postings;
      eachSubset(group.ordered, prefixes[c] as number, c, (key, place) => visit(lists, key, place));
    }
  }

  /** Every key whose summary scores at or above the threshold with this key's, closest first (then by key). */
  neighbours(key: string): SimilarNeighbour[] {
    const group = this.#groupOf.get(key);
    if (!group) return [];
    const found: SimilarNeighbour[] = [];
    for (const member of group.members) if (member !== key) found.push({ key: member, score: 1 });
    this.#scan(group, (other, score) => {
      for (const member of other.members) found.push({ key: member, score });
    });
    return found.sort(byScoreThenKey);
  }

  /** The `limit` closest neighbours (as {@link neighbours} orders them) and the count of all, without listing them all. */
  closest(key: string, limit: number): Closest {
    const group = this.#groupOf.get(key);
    if (!group) return { closest: [], total: 0 };
    const others: [Group, number][] = [];
    this.#scan(group, (other, score) => others.push([other, score]));
    return this.#closestOf(key, group, others, limit);
  }

  /** {@link closest} for every key, with one query per group of identical summaries rather than one per key. */
  allClosest(limit: number): Map<string, Closest> {
    const all = new Map<string, Closest>();
    for (const group of this.#groups.values()) this.#groupClosest(group, limit, all);
    return all;
  }

  /** {@link closest} for the key and every other key with the same terms, at the cost of one query, into `into`. */
  closestOfGroup(key: string, limit: number, into: Map<string, Closest>): void {
    const group = this.#groupOf.get(key);
    if (group) this.#groupClosest(group, limit, into);
  }

  #groupClosest(group: Group, limit: number, into: Map<string, Closest>): void {
    const others: [Group, number][] = [];
    this.#scan(group, (other, score) => others.push([other, score]));
    for (const key of group.members) into.set(key, this.#closestOf(key, group, others, limit));
  }

  #closestOf(key: string, group: Group, others: readonly (readonly [Group, number])[], limit: number): Closest {
    const nearest = new Nearest(limit);
    let total = group.members.size - 1;
    for (const member of this.#sorted(group, limit + 1)) if (member !== key) nearest.offer(member, 1);
    for (const [other, score] of others) {
      total += other.members.size;
      for (const member of this.#sorted(other, limit)) nearest.offer(member, score);
    }
    return { closest: nearest.closest, total };
  }

  /** A group's first `count` members in key order. */
  #sorted(group: Group, count: number): readonly string[] {
    group.sorted ??= [...group.members].sort();
    return group.sorted.length <= count ? group.sorted : group.sorted.slice(0, count);
  }

  /**
   * Calls `found` once for each other group at or above the threshold, in no particular order. Each candidate
   * met in the lists of one partner size is judged on sight from typed arrays, without reading its terms: the
   * places of the key's last term on both sides (within n − r + c and m − r + c, see the class comment) and its
   * 64-bit signature (it shares at most the terms of this group whose
   * bit it has). Only the few left are compared term by term.
   */
  #scan(group: Group, found: (other: Group, score: number) => void): void {
    const t = this.#threshold;
    const n = group.terms.length;
    const marks = this.#marks;
    const signatures = this.#signatures;
    const words = new Int32Array(n);
    const masks = new Int32Array(n);
    group.terms.forEach((term, k) => {
      const bit = this.#bits[term] as number;
      words[k] = bit < 32 ? 0 : 1;
      masks[k] = 1 << bit % 32;
    });
    const lowest = Math.max(MIN_SUMMARY_TERMS, Math.ceil(t * t * n - EPSILON));
    const highest = Math.floor(n / (t * t) + EPSILON);
    const stamp = ++this.#stamp;
    marks[group.id] = stamp;
    const candidates: number[] = [];
    for (let m = lowest; m <= highest; m++) {
      const { shared, c } = pairNeeds(t, n, m);
      const postings = this.#postings[c]?.get(m);
      if (!postings || postings.size === 0) continue;
      const deepest = m - shared + c - 1;
      eachSubset(group.ordered, n - shared + c, c, (key) => {
        const posting = postings.get(key);
        if (!posting) return;
        for (let k = 0; k < posting.length; k += 2) {
          const id = posting[k] as number;
          if (marks[id] === stamp || (posting[k + 1] as number) > deepest) continue;
          let possible = 0;
          for (let b = 0; b < n; b++) if ((signatures[2 * id + (words[b] as number)] as number) & (masks[b] as number)) possible++;
          if (possible < shared) continue;
          marks[id] = stamp;
          candidates.push(id);
        }
      });
    }
    const byId = this.#byId;
    const t2 = t * t;
    for (const id of candidates) {
      const other = byId[id];
      if (!other) continue;
      const m = other.terms.length;
      const shared = sharedCount(group.terms, other.terms);
      if (shared * shared >= t2 * n * m - EPSILON) found(other, shared / Math.sqrt(n * m));
    }
  }

  #termId(term: string): number {
    let id = this.#termIds.get(term);
    if (id === undefined) {
      id = this.#rank.length;
      this.#termIds.set(term, id);
      this.#rank.push(this.#nextRank--);
      let hash = 2166136261;
      for (let i = 0; i < term.length; i++) hash = Math.imul(hash ^ term.charCodeAt(i), 16777619);
      this.#bits.push((hash >>> 0) % 64);
    }
    return id;
  }
}

/**
 * Calls `visit` with the key of every c-subset of the first `length` terms, and the place of the subset's last
 * term. Keys are small integers (V8 hashes them fastest): a triple keeps 10 bits of each term id, a pair 15, so
 * subsets of terms past those ids may share a list, a harmless collision since every candidate is checked term
 * by term.
 */
function eachSubset(ordered: Int32Array, length: number, c: number, visit: (key: number, place: number) => void): void {
  const end = Math.min(length, ordered.length);
  for (let k = c - 1; k < end; k++) {
    const last = ordered[k] as number;
    if (c === 1) {
      visit(last, k);
      continue;
    }
    for (let j = c - 2; j < k; j++) {
      const middle = ordered[j] as number;
      if (c === 2) visit(((middle & 0x7fff) << 15) | (last & 0x7fff), k);
      else {
        const tail = ((middle & 0x3ff) << 10) | (last & 0x3ff);
        for (let i = 0; i < j; i++) visit((((ordered[i] as number) & 0x3ff) << 20) | tail, k);
      }
    }
  }
}

/**
 * What a pair of summaries of n and m terms needs: the shared terms for a cosine at or above t, and the size of
 * the term subsets that find it (never more than it shares).
 */
function pairNeeds(t: number, n: number, m: number): { shared: number; c: number } {
  const shared = Math.min(n, m, Math.max(1, Math.ceil(t * Math.sqrt(n * m) - EPSILON)));
  return { shared, c: Math.min(subsetSize(Math.max(n, m)), shared) };
}

/** Adds one summary's terms to a count of how many summaries hold each term. */
export function countTerms(terms: readonly string[], into: Map<string, number>): void {
  for (const term of terms) into.set(term, (into.get(term) ?? 0) + 1);
}

/** Keeps the closest `limit` neighbours offered, in order. */
class Nearest {
  readonly closest: SimilarNeighbour[] = [];
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  offer(key: string, score: number): void {
    const candidate = { key, score };
    const closest = this.closest;
    const last = closest[this.#limit - 1];
    if (last && byScoreThenKey(candidate, last) >= 0) return;
    let at = closest.length;
    while (at > 0 && byScoreThenKey(candidate, closest[at - 1] ?? candidate) < 0) at--;
    closest.splice(at, 0, candidate);
    if (closest.length > this.#limit) closest.pop();
  }
}

function byScoreThenKey(a: SimilarNeighbour, b: SimilarNeighbour): number {
  return b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

function sharedCount(a: Int32Array, b: Int32Array): number {
  let shared = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    const x = a[i] ?? 0;
    const y = b[j] ?? 0;
    if (x === y) {
      shared++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return shared;
}

/** True for a skill that competes on the default menu: a valid handle, enabled, advertised, with a summary. */
export function competesOnMenu(skill: SkillFile | undefined): skill is SkillFile {
  return skill !== undefined && skill.validHandle && skill.enabled && skill.advertised && (skill.summary?.trim() ?? "") !== "";
}

/** What of a skill the `menu-similar` diagnostics of its neighbours show: its summary and where it stands. */
function menuKey(skill: SkillFile | undefined): string | undefined {
  if (!competesOnMenu(skill)) return undefined;
  const start = skill.summaryRange?.start;
  return `${skill.summary ?? ""}\u0000${start?.line ?? 0}:${start?.character ?? 0}`;
}

/** Neighbours kept per skill: one more than shown, in case one is dropped (a second file with the same handle). */
const LIMIT = MAX_SIMILAR_REPORTED + 1;

/**
 * The `menu-similar` diagnostics of a namespace. Nothing is indexed until asked: by the first skill that
 * competes on the menu being diagnosed (then the whole index is built at once), or by {@link start}, which
 * builds it in steps ({@link advance}) while every other diagnostic is answered without it. Until it is ready
 * no skill has a `menu-similar` warning; from then on the index follows every change, and a change answers the
 * skills whose diagnostics it may change: the changed skill's neighbours before and after, nobody else.
 */
export class MenuCompetition {
  readonly #skills: () => Iterable<SkillFile>;
  readonly #lookup: (uri: string) => SkillFile | undefined;
  readonly #index = new SimilarityIndex();
  /** Each competing skill's closest neighbours, until a change near it. */
  readonly #closest = new Map<string, Closest>();
  #state: "idle" | "deferred" | "building" | "ready" = "idle";
  /** While building: the skills still to read, then to index (their terms), then to query. */
  #toRead: string[] = [];
  readonly #toIndex = new Map<string, readonly string[] | undefined>();
  /** While reading: how many summaries hold each term, for the term order. */
  #frequency = new Map<string, number>();
  #toQuery: string[] = [];
  #phase: "read" | "rank" | "index" | "query" = "read";
  #indexing: IterableIterator<[string, readonly string[] | undefined]> | undefined;
  #cursor = 0;

  /** `skills` lists the namespace's skills when the index is first needed; `lookup` finds one by URI. */
  constructor(skills: () => Iterable<SkillFile>, lookup: (uri: string) => SkillFile | undefined) {
    this.#skills = skills;
    this.#lookup = lookup;
  }

  /** True once every pair is known: from then on the warnings are complete and kept exact. */
  get ready(): boolean {
    return this.#state === "ready";
  }

  /** Until {@link start}, diagnosing a skill builds nothing: its warnings are left out rather than computed on the spot. */
  defer(): void {
    if (this.#state === "idle") this.#state = "deferred";
  }

  /** Begins building the index in steps over the namespace's skills as they are now (later changes are followed). */
  start(): void {
    if (this.#state !== "idle" && this.#state !== "deferred") return;
    this.#state = "building";
    this.#phase = "read";
    this.#toRead = [];
    for (const skill of this.#skills()) if (competesOnMenu(skill)) this.#toRead.push(skill.uri);
    this.#cursor = 0;
  }

  /**
   * Does about `units` units of the building (a unit: one summary read, indexed or queried). Answers undefined
   * while there is more to do; once the index is ready, the URIs of the skills that now have warnings.
   */
  advance(units: number): Set<string> | undefined {
    if (this.#state !== "building") return this.#state === "ready" ? new Set() : undefined;
    let budget = units;
    while (budget > 0) {
      if (this.#phase === "read") {
        const uri = this.#toRead[this.#cursor++];
        if (uri === undefined) {
          this.#phase = "rank";
          continue;
        }
        budget--;
        // A change since the start already put the skill's current terms in.
        if (this.#toIndex.has(uri)) continue;
        const terms = termsOf(this.#lookup(uri));
        this.#toIndex.set(uri, terms);
        if (terms) countTerms(terms, this.#frequency);
      } else if (this.#phase === "rank") {
        this.#toRead = [];
        budget -= Math.ceil(this.#frequency.size / 64);
        this.#index.rankTerms(this.#frequency);
        this.#frequency = new Map();
        this.#phase = "index";
      } else if (this.#phase === "index") {
        // One live iterator: a skill deleted once visited and set again by a change comes round again at the end.
        this.#indexing ??= this.#toIndex.entries();
        const next = this.#indexing.next();
        if (next.done) {
          this.#indexing = undefined;
          this.#phase = "query";
          this.#toQuery = [];
          for (const skill of this.#skills()) if (this.#index.has(skill.uri)) this.#toQuery.push(skill.uri);
          this.#cursor = 0;
          continue;
        }
        budget--;
        const [uri, terms] = next.value;
        this.#toIndex.delete(uri);
        this.#index.setTerms(uri, terms);
      } else {
        const uri = this.#toQuery[this.#cursor++];
        if (uri === undefined) return this.#finish();
        if (this.#closest.has(uri)) continue;
        budget--;
        this.#index.closestOfGroup(uri, LIMIT, this.#closest);
      }
    }
    return undefined;
  }

  /** The building's end: the skills with a warning to show. */
  #finish(): Set<string> {
    this.#state = "ready";
    this.#toQuery = [];
    const warned = new Set<string>();
    for (const [uri, found] of this.#closest) if (found.total > 0) warned.add(uri);
    return warned;
  }

  /** Follows a skill's change (undefined: absent before, or removed). Answers the other URIs to diagnose again. */
  change(uri: string, previous: SkillFile | undefined, next: SkillFile | undefined): string[] {
    if (this.#state === "idle" || this.#state === "deferred") return [];
    const before = menuKey(previous);
    const after = menuKey(next);
    if (before === after) return [];
    if (this.#state === "building" && (this.#phase === "read" || this.#phase === "rank" || !this.#index.has(uri))) {
      // Not indexed yet: the current terms wait their turn (a skill removed waits as nothing).
      if (this.#phase === "read" || this.#phase === "rank" || this.#phase === "index") {
        this.#toIndex.set(uri, after === undefined ? undefined : termsOf(next));
        return [];
      }
    }
    const affected = new Set(this.#index.neighbours(uri).map((neighbour) => neighbour.key));
    this.#index.set(uri, after === undefined ? undefined : next?.summary);
    for (const neighbour of this.#index.neighbours(uri)) affected.add(neighbour.key);
    this.#closest.delete(uri);
    for (const key of affected) this.#closest.delete(key);
    if (this.#state === "building") {
      // Queried again in its turn (a new skill joins the queue); nobody shows a warning before the end.
      if (after !== undefined) this.#toQuery.push(uri);
      for (const key of affected) this.#toQuery.push(key);
      return [];
    }
    affected.delete(uri);
    return [...affected];
  }

  /** The skill's `menu-similar` warnings, one per close neighbour (at most {@link MAX_SIMILAR_REPORTED}). */
  diagnose(skill: SkillFile, lookup: (uri: string) => SkillFile | undefined): CoreDiagnostic[] {
    if (!competesOnMenu(skill)) return [];
    if (this.#state === "idle") this.#activate();
    if (this.#state !== "ready") return [];
    let found = this.#closest.get(skill.uri);
    if (!found) {
      found = this.#index.closest(skill.uri, LIMIT);
      this.#closest.set(skill.uri, found);
    }
    const { closest, total } = found;
    const neighbours = closest
      .map((neighbour) => ({ ...neighbour, skill: lookup(neighbour.key) }))
      // Two files with one handle are a duplicate-handle error already.
      .filter((neighbour): neighbour is SimilarNeighbour & { skill: SkillFile } => competesOnMenu(neighbour.skill) && neighbour.skill.slug !== skill.slug);
    const dropped = closest.length - neighbours.length;
    const range = skill.summaryRange ?? skill.lines.rangeOf(0, 0);
    const shown = neighbours.slice(0, MAX_SIMILAR_REPORTED);
    return shown.map((neighbour, index) => {
      const more = index === shown.length - 1 ? total - dropped - shown.length : 0;
      const other = neighbour.skill;
      return {
        range,
        severity: "warning" as const,
        code: DiagnosticCodes.menuSimilar,
        message:
          `The summary of @${skill.slug} is so like @${other.slug}'s (similarity ${neighbour.score.toFixed(2)}; the warning starts at ${MENU_SIMILARITY_THRESHOLD.toFixed(2)}) ` +
          `that a small planner may not tell them apart and pick either for the same request. Say what sets each apart, or take one off the menu ` +
          `(advertised: false) and mention it from the other.${more > 0 ? ` ${more} more skill${more === 1 ? " is" : "s are"} as close.` : ""}`,
        related: [{ uri: other.uri, range: other.summaryRange ?? other.lines.rangeOf(0, 0), message: `@${other.slug}'s summary` }],
      };
    });
  }

  #activate(): void {
    this.#state = "ready";
    const summaries: [string, string][] = [];
    for (const skill of this.#skills()) if (competesOnMenu(skill)) summaries.push([skill.uri, skill.summary ?? ""]);
    this.#index.build(summaries);
    // One query per group of identical summaries fills every skill's neighbours: diagnosing a whole workspace then reads them.
    for (const [uri, found] of this.#index.allClosest(LIMIT)) this.#closest.set(uri, found);
  }
}

function termsOf(skill: SkillFile | undefined): readonly string[] | undefined {
  return competesOnMenu(skill) ? summaryTerms(skill.summary ?? "") : undefined;
}
