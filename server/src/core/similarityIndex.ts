/**
 * Finding the summaries that are alike (see {@link ./similarity.ts} for the measure): all-pairs similarity
 * search, O(n²) if done naively, and a real menu makes it hard, because its summaries share their words: a few
 * hundred words in Zipf's proportions, and the fixed words of a few phrasings ("Prepare the user for … — the …
 * and which … to bring"), which always come together however rare each is.
 *
 * Two parts, for the two questions asked:
 * - Every pair at once (the workspace's first comparison): {@link SimilarityJoin}, a one-shot join in the
 *   AllPairs family, in steps, its index thrown away when done.
 * - One summary's neighbours after a change: the pairs found are kept per summary, and a changed summary is
 *   compared through per-term lists, reading only its rarest terms' lists.
 * Both are exact: every pair at or above the threshold, none below.
 */
import { NearestGroups, NeighbourLists, PairCollector, type ListsInSteps } from "./neighbourLists.js";
import { MENU_SIMILARITY_THRESHOLD, MIN_SUMMARY_TERMS, summaryTerms, termOf } from "./similarity.js";
import { stringCount, stringsOf, withoutString, withString, type Strings } from "./strings.js";
import { RangeTable } from "./text.js";
import { grown } from "./typedArrays.js";

/** A summary close to another one, with their score. */
export interface SimilarNeighbour {
  readonly key: string;
  readonly score: number;
}

/** A summary's closest neighbours, and how many there are in all. */
export interface Closest {
  readonly closest: readonly SimilarNeighbour[];
  readonly total: number;
}

/** The pairs of a join found elsewhere, handed to the index ({@link SimilarityIndex.startLinkElsewhere}). */
export interface PairIntake {
  /**
   * Copies about `units` sets into {@link sets}: true once all are. The copy is made in steps, as one it held the
   * calling thread 15-25 ms at 100,000 summaries.
   */
  copy(units: number): boolean;
  /** The sets to join, flat, once copied: whoever finds the pairs makes the join's input from them ({@link joinInputOf}). */
  readonly sets: JoinSets;
  /** Takes the pairs `from` to `to` of a batch of (a, b, shared terms) triples, a and b the input's set numbers. */
  accept(pairs: Int32Array, from: number, to: number): void;
  /**
   * Every pair is in: links the index, in steps of about `units` pairs; true once linked. Made at once, the lists
   * of 100,000 summaries' pairs held the calling thread 15-20 ms.
   */
  finish(units: number): boolean;
  /** Gives up: the index is unlinked, as before (a join can start again). */
  abandon(): void;
}

/** The summaries that have one set of terms: compared once, for all of them. */
interface Group {
  readonly id: number;
  /** The hash of its terms ({@link termsHash}): where {@link SimilarityIndex}'s table of groups keeps it. */
  readonly hash: number;
  /** Term ids, sorted ascending: an array of small integers holds them in half the memory of an Int32Array. */
  readonly terms: readonly number[];
  /** Its keys: nearly every group has one. */
  members: Strings;
  /** The members in key order, made when first asked for after a change (for groups of several). */
  sorted: string[] | undefined;
}

const EPSILON = 1e-9;

const NO_NEIGHBOURS: Closest = Object.freeze({ closest: Object.freeze([]), total: 0 });

/** The most words a summary index remembers before it starts again (a saving, not a registry). */
const MAX_REMEMBERED_WORDS = 100_000;

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** An ASCII letter or digit: what the words of a summary are made of, for an ASCII summary. */
function isAsciiWordCode(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
}

/** The terms a pair of summaries of n and m terms must share to score at or above t. */
function sharedNeeded(t: number, n: number, m: number): number {
  return Math.min(n, m, Math.max(1, Math.ceil(t * Math.sqrt(n * m) - EPSILON)));
}

/** The sizes a summary of n terms can be close to: a cosine of t needs t²·n ≤ m ≤ n / t². */
function partnerSizes(t: number, n: number): { lowest: number; highest: number } {
  return { lowest: Math.max(MIN_SUMMARY_TERMS, Math.ceil(t * t * n - EPSILON)), highest: Math.floor(n / (t * t) + EPSILON) };
}

/**
 * The summaries under comparison, by key. Summaries with the same terms form one group, compared once: 10,000
 * copies of a template summary are one entry, not 50 million pairs.
 *
 * Until {@link link} (or {@link build}) a group's neighbours are found on demand from the per-term lists. After
 * it, every group keeps its neighbours, and each change compares the changed group alone: a summary of n terms
 * that shares s with another holds one of any n − s + 1 of its own terms, so reading the lists of its n − s + 1
 * rarest terms (for the least s any partner size needs) finds every partner.
 */
export class SimilarityIndex {
  readonly #threshold: number;
  readonly #groupOf = new Map<string, Group>();
  /**
   * The groups by the hash of their terms, a list where several share one. Keyed by the terms joined as text, each
   * group held a string of its own, and 100,000 of them were a good part of what the collector copied while the
   * summaries were first read.
   */
  readonly #groups = new Map<number, Group | Group[]>();
  readonly #byId: (Group | undefined)[] = [];
  readonly #freeIds: number[] = [];
  readonly #termIds = new Map<string, number>();
  /** By term id: the groups that hold it. */
  readonly #termGroups: number[][] = [];
  /** Once linked: each group's neighbours. */
  #neighbours: NeighbourLists | undefined;
  /** The pairs of a join under way, as they come. */
  #collecting: PairCollector | undefined;
  /** Each group's closest, kept as the pairs came (see {@link link}): valid until the first change after. */
  #nearest: NearestGroups | undefined;
  /** A join under way, here or elsewhere: the index must not change until it ends. */
  #joining: SimilarityJoin | PairIntake | undefined;
  /** By group id: the last probe that met it. */
  #marks = new Int32Array(64);
  /**
   * By group id, three words: its term count, then bit (term id mod 64) set for each of its terms, so that a
   * probe passes over most candidates without reading their terms (see {@link #probe}).
   */
  #shapes = new Int32Array(3 * 64);
  #stamp = 0;
  /** By term id: 1 while a probe holds it. */
  #held = new Uint8Array(64);
  /** A summary's term ids while it is read ({@link setSummary}). */
  #scratch = new Int32Array(64);
  /** Lower-cased ASCII words, found by their letters in the summary: each one's term id, -1 for none. */
  readonly #wordIds = new RangeTable<number>(true, MAX_REMEMBERED_WORDS);

  constructor(threshold = MENU_SIMILARITY_THRESHOLD) {
    this.#threshold = threshold;
  }

  get size(): number {
    return this.#groupOf.size;
  }

  has(key: string): boolean {
    return this.#groupOf.has(key);
  }

  /** True once every group knows its neighbours (after {@link link}). */
  get linked(): boolean {
    return this.#neighbours !== undefined;
  }

  /** Indexes many summaries and finds every pair at once. */
  build(summaries: Iterable<readonly [key: string, summary: string]>): void {
    for (const [key, summary] of summaries) this.set(key, summary);
    this.link();
  }

  /**
   * Finds every pair at once, so that later questions and changes read and update the pairs found. With
   * `nearest`, each summary's closest that many are kept as the pairs come, and {@link closest} up to that limit
   * reads them until the first change.
   */
  link(nearest = 0): void {
    const join = this.startLink(nearest);
    while (!join.advance(Number.MAX_SAFE_INTEGER));
  }

  /** {@link link} in steps: call `advance` on the answer until it says it is done; no change may come between. */
  startLink(nearest = 0): SimilarityJoin {
    if (this.#joining instanceof SimilarityJoin) return this.#joining;
    if (this.#joining) throw new Error("The similarity index's pairs are being found elsewhere.");
    const live = this.#liveGroups();
    const found = this.#beginLink(nearest);
    const join = new SimilarityJoin(
      joinInput(this.#threshold, live.map((group) => group.terms), this.#termGroups.map((groups) => groups.length)),
      (a, b, score) => found(live[a] as Group, live[b] as Group, score),
      () => this.#endLink(),
    );
    this.#joining = join;
    return join;
  }

  /**
   * {@link link} with the pairs found elsewhere (on other threads): the answer copies the join's input, in steps,
   * into arrays from `allocate` (shared memory, say), and takes the pairs found; no change may come between its
   * start and its end or abandon.
   */
  startLinkElsewhere(nearest = 0, allocate: Int32Allocator = ordinaryArrays): PairIntake {
    if (this.#joining) throw new Error("The similarity index's pairs are being found already.");
    const found = this.#beginLink(nearest);
    // Only copied here: ordering the sets and ranking their terms, a pass that paused this thread for 200 ms at
    // 100,000 summaries, is the finder's (on its own thread).
    const copy = new JoinSetsCopy(this.#threshold, this.#byId, this.#termGroups, allocate);
    const live = copy.live;
    let listing: ListsInSteps | undefined;
    const intake: PairIntake = {
      copy: (units) => copy.advance(units),
      get sets() {
        return copy.sets;
      },
      accept: (pairs, from, to) => {
        if (this.#joining !== intake) throw new Error("Pairs came for a similarity join that has ended.");
        for (let k = 3 * from; k < 3 * to; k += 3) {
          const first = live[pairs[k] as number] as Group;
          const second = live[pairs[k + 1] as number] as Group;
          found(first, second, pairScore(pairs[k + 2] as number, first.terms.length, second.terms.length));
        }
      },
      finish: (units) => {
        if (this.#joining !== intake) return this.#neighbours !== undefined;
        listing ??= (this.#collecting as PairCollector).listsInSteps(this.#byId.length);
        const lists = listing.advance(units);
        if (lists) this.#endLink(lists);
        return lists !== undefined;
      },
      abandon: () => {
        if (this.#joining !== intake) return;
        this.#joining = undefined;
        this.#collecting = undefined;
        this.#nearest = undefined;
      },
    };
    this.#joining = intake;
    return intake;
  }

  /** Starts collecting a join's pairs: answers what takes each pair found. */
  #beginLink(nearest: number): (first: Group, second: Group, score: number) => void {
    this.#neighbours = undefined;
    const collected = new PairCollector();
    const kept = nearest > 0 ? new NearestGroups(this.#byId.length, nearest, (id) => firstKey(this.#byId[id] as Group), (id) => stringCount((this.#byId[id] as Group).members)) : undefined;
    this.#collecting = collected;
    this.#nearest = kept;
    return (first, second, score) => {
      collected.add(first.id, second.id, score);
      kept?.offer(first.id, second.id, score);
      kept?.offer(second.id, first.id, score);
    };
  }

  /** The join's end: the index is linked with the lists of its pairs (made at once when not given). */
  #endLink(lists?: NeighbourLists): void {
    this.#joining = undefined;
    this.#neighbours = lists ?? this.#collecting?.lists(this.#byId.length);
    this.#collecting = undefined;
  }

  #liveGroups(): Group[] {
    return this.#byId.filter((group): group is Group => group !== undefined);
  }

  /** Adds, replaces or (with undefined) removes the summary under a key. */
  set(key: string, summary: string | undefined): void {
    this.setTerms(key, summary === undefined ? undefined : summaryTerms(summary));
  }

  /** {@link set} with the summary's terms already found ({@link summaryTerms}). */
  setTerms(key: string, words: readonly string[] | undefined): void {
    this.#unset(key);
    if (words === undefined || words.length < MIN_SUMMARY_TERMS) return;
    this.#place(key, words.map((term) => this.#termId(term)).sort((a, b) => a - b));
  }

  /**
   * {@link set}, reading a summary's words in place when they are ASCII: each word's term id is remembered by
   * its letters, so a summary of known words is indexed without a string made for any of them. A summary with a
   * letter or digit past ASCII takes {@link set}'s way; both give the same terms.
   */
  setSummary(key: string, summary: string | undefined): void {
    const count = summary === undefined ? 0 : this.#asciiTermIds(summary);
    if (count < 0) {
      this.set(key, summary);
      return;
    }
    this.#unset(key);
    if (count < MIN_SUMMARY_TERMS) return;
    const terms = new Array<number>(count);
    for (let k = 0; k < count; k++) terms[k] = this.#scratch[k] as number;
    this.#place(key, terms);
  }

  #unset(key: string): void {
    if (this.#joining) throw new Error("The similarity index changed while its pairs were being found.");
    this.#nearest = undefined;
    const previous = this.#groupOf.get(key);
    if (!previous) return;
    this.#groupOf.delete(key);
    previous.members = withoutString(previous.members, key);
    previous.sorted = undefined;
    if (previous.members === undefined) this.#removeGroup(previous);
  }

  /**
   * The term ids of a text's words into the scratch array, unique and ascending; their count, or -1 for a text
   * with a letter or digit past ASCII (lower-casing it may change its length, and its words are Unicode's).
   */
  #asciiTermIds(text: string): number {
    let count = 0;
    for (let i = 0; i < text.length; ) {
      const code = text.charCodeAt(i);
      // Past ASCII, only a character that is no letter or digit (a dash, a quote) parts words here alike.
      if (code >= 128 && (code >= 0xd800 && code <= 0xdfff ? true : LETTER_OR_DIGIT.test(text.charAt(i)))) return -1;
      if (!isAsciiWordCode(code)) {
        i++;
        continue;
      }
      const start = i;
      while (i < text.length && isAsciiWordCode(text.charCodeAt(i))) i++;
      const id = this.#wordTermId(text, start, i);
      if (id < 0) continue;
      if (count === this.#scratch.length) this.#scratch = grown(this.#scratch, 2 * count);
      // Kept ascending and unique: a summary has a few dozen words at most, moved up one by one (a call to
      // copyWithin for each word cost more than the moves).
      const scratch = this.#scratch;
      let at = count;
      while (at > 0 && (scratch[at - 1] as number) > id) at--;
      if (at > 0 && scratch[at - 1] === id) continue;
      for (let k = count; k > at; k--) scratch[k] = scratch[k - 1] as number;
      scratch[at] = id;
      count++;
    }
    return count;
  }

  /** The term id of the lower-cased word `text[start, end)` (ASCII letters and digits), -1 for none. */
  #wordTermId(text: string, start: number, end: number): number {
    const known = this.#wordIds.get(text, start, end);
    if (known !== undefined) return known;
    const word = text.slice(start, end).toLowerCase();
    const term = termOf(word);
    const id = term === "" ? -1 : this.#termId(term);
    this.#wordIds.add(word, id);
    return id;
  }

  /** Puts a key's sorted term ids in their group. */
  #place(key: string, terms: readonly number[]): void {
    const hash = termsHash(terms);
    const sharing = this.#groups.get(hash);
    const group = (sharing && withTerms(sharing, terms)) ?? this.#addGroup(hash, terms, sharing);
    group.members = withString(group.members, key);
    group.sorted = undefined;
    this.#groupOf.set(key, group);
  }

  /** `sharing`: the groups already under the terms' hash. */
  #addGroup(hash: number, terms: readonly number[], sharing: Group | Group[] | undefined): Group {
    const id = this.#freeIds.pop() ?? this.#byId.length;
    const group: Group = { id, hash, terms, members: undefined, sorted: undefined };
    if (sharing === undefined) this.#groups.set(hash, group);
    else if (Array.isArray(sharing)) sharing.push(group);
    else this.#groups.set(hash, [sharing, group]);
    this.#byId[id] = group;
    if (id >= this.#marks.length) {
      const length = Math.max(id + 1, this.#marks.length * 2);
      this.#marks = grown(this.#marks, length);
      this.#shapes = grown(this.#shapes, 3 * length);
    }
    this.#shapes[3 * id] = terms.length;
    writeTermBits(terms, 0, terms.length, this.#shapes, 3 * id + 1);
    const neighbours = this.#neighbours;
    if (neighbours) {
      const found: number[] = [];
      this.#probe(group, (other, score) => found.push(other.id, score));
      neighbours.replace(id, found);
      for (let k = 0; k < found.length; k += 2) neighbours.add(found[k] as number, id, found[k + 1] as number);
    }
    for (const term of terms) (this.#termGroups[term] as number[]).push(id);
    return group;
  }

  #removeGroup(group: Group): void {
    for (const term of group.terms) removeValue(this.#termGroups[term] as number[], group.id);
    const neighbours = this.#neighbours;
    if (neighbours) {
      neighbours.forEach(group.id, (other) => neighbours.remove(other, group.id));
      neighbours.replace(group.id, []);
    }
    const sharing = this.#groups.get(group.hash);
    if (!Array.isArray(sharing)) this.#groups.delete(group.hash);
    else {
      const rest = sharing.filter((other) => other !== group);
      if (rest.length === 1) this.#groups.set(group.hash, rest[0] as Group);
      else this.#groups.set(group.hash, rest);
    }
    this.#byId[group.id] = undefined;
    this.#freeIds.push(group.id);
  }

  /** Every key whose summary scores at or above the threshold with this key's, closest first (then by key). */
  neighbours(key: string): SimilarNeighbour[] {
    const group = this.#groupOf.get(key);
    if (!group) return [];
    const found: SimilarNeighbour[] = [];
    for (const member of stringsOf(group.members)) if (member !== key) found.push({ key: member, score: 1 });
    this.#eachNeighbour(group, (other, score) => {
      for (const member of stringsOf(other.members)) found.push({ key: member, score });
    });
    return found.sort(byScoreThenKey);
  }

  /** The `limit` closest neighbours (as {@link neighbours} orders them) and the count of all, without listing them all. */
  closest(key: string, limit: number): Closest {
    const group = this.#groupOf.get(key);
    if (!group) return { closest: [], total: 0 };
    const nearest = this.#nearest;
    if (nearest && limit <= nearest.limit) {
      const each = (visit: (other: Group, score: number) => void) => nearest.forEach(group.id, (other, score) => visit(this.#byId[other] as Group, score));
      return this.#closestOf(key, group, limit, each, nearest.totals[group.id]);
    }
    return this.#closestOf(key, group, limit, (visit) => this.#eachNeighbour(group, visit));
  }

  /** The keys with a neighbour, once linked: read from the kept pairs, without asking each. */
  keysWithNeighbours(): Set<string> {
    const keys = this.keysWithNeighboursInSteps();
    for (;;) {
      const found = keys(Number.MAX_SAFE_INTEGER);
      if (found) return found;
    }
  }

  /**
   * {@link keysWithNeighbours} in steps: the answer reads about `units` groups a call, then answers the keys. No
   * change may come between. At once, the keys of 100,000 summaries held the thread about 17 ms.
   */
  keysWithNeighboursInSteps(): (units: number) => Set<string> | undefined {
    const neighbours = this.#neighbours;
    if (!neighbours) throw new Error("The similarity index was asked who has neighbours before its pairs were found.");
    const keys = new Set<string>();
    const byId = this.#byId;
    let at = 0;
    return (units) => {
      for (let left = units; left > 0; left--) {
        if (at === byId.length) return keys;
        const group = byId[at++];
        if (group === undefined) continue;
        const members = group.members;
        if (typeof members === "string") {
          if (neighbours.count(group.id) > 0) keys.add(members);
        } else for (const key of stringsOf(members)) keys.add(key);
      }
      return undefined;
    };
  }

  /** {@link closest} for every key, with one question per group of identical summaries rather than one per key. */
  allClosest(limit: number): Map<string, Closest> {
    const all = new Map<string, Closest>();
    for (const group of this.#byId) {
      if (group === undefined) continue;
      // Found once for all the group's members (a probe, before linking).
      const found: [Group, number][] = [];
      this.#eachNeighbour(group, (other, score) => found.push([other, score]));
      for (const key of stringsOf(group.members)) all.set(key, this.#closestOf(key, group, limit, (visit) => found.forEach(([other, score]) => visit(other, score))));
    }
    return all;
  }

  /**
   * The closest of a key in `group`, from its neighbours as `each` visits them (the closest groups only, when
   * `othersTotal` gives the members of all of them).
   */
  #closestOf(key: string, group: Group, limit: number, each: (visit: (other: Group, score: number) => void) => void, othersTotal?: number): Closest {
    const nearest = new Nearest(limit);
    const own = stringCount(group.members) - 1;
    if (own > 0) for (const member of sortedMembers(group)) if (member !== key && !nearest.offer(member, 1)) break;
    let others = 0;
    each((other, score) => {
      const members = other.members;
      // Nearly every group has one member: offered as it is.
      if (typeof members === "string") {
        others++;
        nearest.offer(members, score);
      } else {
        others += stringCount(members);
        // In key order: past the first passed over, so is the rest.
        for (const member of sortedMembers(other)) if (!nearest.offer(member, score)) break;
      }
    });
    const total = own + (othersTotal ?? others);
    // Most summaries have no neighbour: they share one answer.
    return total === 0 ? NO_NEIGHBOURS : { closest: nearest.closest, total };
  }

  /** Calls `found` once for each other group at or above the threshold: the pairs kept, or a probe before linking. */
  #eachNeighbour(group: Group, found: (other: Group, score: number) => void): void {
    if (this.#joining) throw new Error("The similarity index was asked for neighbours while its pairs were being found.");
    if (this.#neighbours) this.#neighbours.forEach(group.id, (other, score) => found(this.#byId[other] as Group, score));
    else this.#probe(group, found);
  }

  /** Compares one group with every other through the lists of its rarest terms (see the class comment). */
  #probe(group: Group, found: (other: Group, score: number) => void): void {
    const t = this.#threshold;
    const n = group.terms.length;
    const { lowest, highest } = partnerSizes(t, n);
    const lists = [...group.terms].map((term) => this.#termGroups[term] as number[]).sort((a, b) => a.length - b.length);
    const read = n - sharedNeeded(t, n, lowest) + 1;
    const marks = this.#marks;
    const shapes = this.#shapes;
    const held = this.#held;
    const stamp = ++this.#stamp;
    const low = shapes[3 * group.id + 1] as number;
    const high = shapes[3 * group.id + 2] as number;
    marks[group.id] = stamp;
    for (const term of group.terms) held[term] = 1;
    for (let l = 0; l < read; l++) {
      const list = lists[l] as number[];
      for (const id of list) {
        if (marks[id] === stamp) continue;
        marks[id] = stamp;
        const m = shapes[3 * id] as number;
        if (m < lowest || m > highest) continue;
        // A bound on the terms shared from the two words per group, as in the join: a bit one group has and the
        // other lacks stands for a term the other lacks. In a menu of shared words it passes over nearly every
        // candidate, and the group itself is read only for the rest.
        const needed = sharedNeeded(t, n, m);
        const otherLow = shapes[3 * id + 1] as number;
        const otherHigh = shapes[3 * id + 2] as number;
        if (n - bitCount(low & ~otherLow, high & ~otherHigh) < needed) continue;
        if (m - bitCount(otherLow & ~low, otherHigh & ~high) < needed) continue;
        const other = this.#byId[id] as Group;
        let shared = 0;
        for (const term of other.terms) shared += held[term] as number;
        if (shared >= needed) found(other, shared / Math.sqrt(n * m));
      }
    }
    for (const term of group.terms) held[term] = 0;
  }

  #termId(term: string): number {
    let id = this.#termIds.get(term);
    if (id === undefined) {
      id = this.#termGroups.length;
      this.#termIds.set(term, id);
      this.#termGroups.push([]);
      // Zero between probes, so a larger one need not copy it.
      if (id >= this.#held.length) this.#held = new Uint8Array(this.#held.length * 2);
    }
    return id;
  }
}

/**
 * A join's input, flat, so that another thread can take it as it is: the sets in the join's order (smallest
 * first), each as its term ranks (rarest first), ascending.
 */
export interface JoinInput {
  readonly threshold: number;
  /** Positions in the order → the caller's set number. */
  readonly order: Int32Array;
  /** By position: the set's term ranks from `offsets[p]` to `offsets[p + 1]`, in one array. */
  readonly ranks: Int32Array;
  readonly offsets: Int32Array;
  /** Ranks are below this. */
  readonly termCount: number;
}

/**
 * The sets of a join as they are, flat, in the caller's numbering: set `i` has the term ids from `starts[i]` to
 * `starts[i + 1]` of `terms`; `frequency` gives by term id how many sets hold it. Cheap to make, and to send to a
 * thread as it is.
 */
export interface JoinSets {
  readonly threshold: number;
  readonly terms: Int32Array;
  readonly starts: Int32Array;
  readonly frequency: Int32Array;
}

export function joinSets(threshold: number, sets: readonly ArrayLike<number>[], frequency: readonly number[]): JoinSets {
  const starts = new Int32Array(sets.length + 1);
  let total = 0;
  sets.forEach((set, i) => {
    starts[i] = total;
    total += set.length;
  });
  starts[sets.length] = total;
  const terms = new Int32Array(total);
  sets.forEach((set, i) => terms.set(set, starts[i] as number));
  return { threshold, terms, starts, frequency: Int32Array.from(frequency) };
}

/**
 * The live groups' term sets copied into a {@link JoinSets} in steps: first the groups are listed and their sizes
 * summed, then their terms are copied. The groups must not change meanwhile.
 */
class JoinSetsCopy {
  /** The live groups, in id order: set `i` of the copy is `live[i]`. */
  readonly live: Group[] = [];
  readonly #threshold: number;
  readonly #byId: readonly (Group | undefined)[];
  readonly #termGroups: readonly (readonly number[])[];
  readonly #allocate: Int32Allocator;
  #listed = 0;
  #total = 0;
  #copied = 0;
  #terms: Int32Array | undefined;
  #starts: Int32Array | undefined;
  #sets: JoinSets | undefined;

  constructor(threshold: number, byId: readonly (Group | undefined)[], termGroups: readonly (readonly number[])[], allocate: Int32Allocator) {
    this.#threshold = threshold;
    this.#byId = byId;
    this.#termGroups = termGroups;
    this.#allocate = allocate;
  }

  get sets(): JoinSets {
    if (!this.#sets) throw new Error("The join's sets are still being copied.");
    return this.#sets;
  }

  /** About `units` groups listed or copied (listing one costs a tenth of copying it); true once done. */
  advance(units: number): boolean {
    if (this.#sets) return true;
    let budget = units;
    const live = this.live;
    for (; this.#listed < this.#byId.length && budget > 0; this.#listed++) {
      const group = this.#byId[this.#listed];
      if (this.#listed % 10 === 0) budget--;
      if (!group) continue;
      live.push(group);
      this.#total += group.terms.length;
    }
    if (budget === 0) return false;
    const terms = (this.#terms ??= this.#allocate(this.#total));
    const starts = (this.#starts ??= this.#allocate(live.length + 1));
    let at = this.#copied === 0 ? 0 : (starts[this.#copied] as number);
    for (; this.#copied < live.length && budget > 0; this.#copied++, budget--) {
      const set = (live[this.#copied] as Group).terms;
      starts[this.#copied] = at;
      for (let k = 0; k < set.length; k++) terms[at + k] = set[k] as number;
      at += set.length;
    }
    if (this.#copied < live.length) {
      starts[this.#copied] = at;
      return false;
    }
    starts[live.length] = at;
    const frequency = this.#allocate(this.#termGroups.length);
    this.#termGroups.forEach((groups, term) => (frequency[term] = groups.length));
    this.#sets = { threshold: this.#threshold, terms, starts, frequency };
    return true;
  }
}

/** The number of sets in a join. */
export function setCount(sets: JoinSets): number {
  return sets.starts.length - 1;
}

/** The join's input for `sets` (term ids, any order), `frequency` giving by term id how many sets hold it. */
export function joinInput(threshold: number, sets: readonly ArrayLike<number>[], frequency: readonly number[]): JoinInput {
  return joinInputOf(joinSets(threshold, sets, frequency));
}

/** The join's input: the sets smallest first, each set's terms as ranks (rarest first), ascending. */
export function joinInputOf(sets: JoinSets): JoinInput {
  const { threshold, terms, starts, frequency } = sets;
  const count = setCount(sets);
  const byRarity = Array.from(frequency, (_, term) => term).sort((a, b) => (frequency[a] as number) - (frequency[b] as number) || a - b);
  const rank = new Int32Array(frequency.length);
  byRarity.forEach((term, place) => (rank[term] = place));
  // Smallest first, equal sizes in number order: counted out by size, where a sort with a comparison took a
  // joining thread 100 ms and more at 100,000 sets before it was warm.
  let largest = 0;
  for (let i = 0; i < count; i++) largest = Math.max(largest, (starts[i + 1] as number) - (starts[i] as number));
  const firstOfSize = new Int32Array(largest + 2);
  for (let i = 0; i < count; i++) {
    const after = (starts[i + 1] as number) - (starts[i] as number) + 1;
    firstOfSize[after] = (firstOfSize[after] as number) + 1;
  }
  for (let size = 1; size <= largest + 1; size++) firstOfSize[size] = (firstOfSize[size] as number) + (firstOfSize[size - 1] as number);
  const order = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const size = (starts[i + 1] as number) - (starts[i] as number);
    const position = firstOfSize[size] as number;
    order[position] = i;
    firstOfSize[size] = position + 1;
  }
  const offsets = new Int32Array(count + 1);
  const ranks = new Int32Array(terms.length);
  let at = 0;
  for (let position = 0; position < count; position++) {
    const number = order[position] as number;
    offsets[position] = at;
    const from = starts[number] as number;
    const to = starts[number + 1] as number;
    // Ranks in ascending order, each put in place as it comes: a set holds a few terms.
    for (let k = from; k < to; k++) {
      const value = rank[terms[k] as number] as number;
      let place = at + (k - from);
      for (; place > at && (ranks[place - 1] as number) > value; place--) ranks[place] = ranks[place - 1] as number;
      ranks[place] = value;
    }
    at += to - from;
  }
  offsets[count] = at;
  return { threshold, order, ranks, offsets, termCount: frequency.length };
}

/** Makes an Int32Array of a length, zeroed: where the join's index keeps its arrays (memory shared between threads, say). */
export type Int32Allocator = (length: number) => Int32Array;

const ordinaryArrays: Int32Allocator = (length) => new Int32Array(length);

/**
 * The join's prefix index: by subset size c, key → the positions indexed under it, in increasing position
 * order, with the place of the key's last term in each (see {@link SimilarityJoin}).
 */
export class JoinIndex {
  /** By part, then subset size: part k holds the keys ≡ k modulo the parts. */
  readonly #tables: readonly PostingTable[];
  readonly #parts: number;
  /** The one part {@link add} fills, or -1 for all. */
  readonly #part: number;

  private constructor(tables: readonly PostingTable[], parts: number, part: number) {
    this.#tables = tables;
    this.#parts = parts;
    this.#part = part;
  }

  /** An empty index, filled a position at a time in increasing order by {@link add}. */
  static empty(allocate: Int32Allocator = ordinaryArrays): JoinIndex {
    return new JoinIndex([0, 1, 2, 3].map(() => new PostingTable(allocate)), 1, -1);
  }

  /**
   * Every position indexed, in one go: then any position can be probed, in any order, by any number of probers.
   * With `parts`, only the keys of part `part` (key ≡ part modulo parts): several threads build the parts at once,
   * and {@link of} puts them together.
   */
  static whole(input: JoinInput, allocate: Int32Allocator = ordinaryArrays, part = 0, parts = 1): JoinIndex {
    const building = JoinIndex.laidOut(input, allocate, part, parts);
    building.fillTo(input.order.length);
    return building.index;
  }

  /**
   * {@link whole}, laid out at once and filled by the answer's `fillTo` in increasing position order: a position
   * can be probed (on another thread, say) once every position before it is filled, while later ones are.
   */
  static laidOut(input: JoinInput, allocate: Int32Allocator = ordinaryArrays, part = 0, parts = 1): { index: JoinIndex; fillTo: (position: number) => void } {
    const count = input.order.length;
    // Every entry is known: each key's list is laid out once, at its exact size (counted first), where lists
    // grown by doubling held twice the memory and left as much again behind them.
    const tables = [0, 1, 2, 3].map((c) =>
      PostingTable.laidOut(allocate, (add) => {
        for (let position = 0; position < count; position++) eachEntry(input, position, c, part, parts, add);
      }),
    );
    let filled = 0;
    const fillTo = (to: number) => {
      for (; filled < Math.min(to, count); filled++) {
        for (let c = 1; c <= 3; c++) eachEntry(input, filled, c, part, parts, (tables[c] as (typeof tables)[number]).add);
      }
    };
    return { index: new JoinIndex(tables.map(({ table }) => table), 1, parts === 1 ? -1 : part), fillTo };
  }

  /** The index over the parts' {@link arrays} (made on other threads, say), in part order: for probing only. */
  static of(parts: readonly (readonly Int32Array[])[]): JoinIndex {
    const tables: PostingTable[] = [];
    for (let c = 0; c <= 3; c++) {
      for (const arrays of parts) tables.push(PostingTable.of(arrays[2 * c] as Int32Array, arrays[2 * c + 1] as Int32Array));
    }
    return new JoinIndex(tables, parts.length, -1);
  }

  /** The arrays the index (or its part) is made of, for {@link of}. */
  get arrays(): Int32Array[] {
    return this.#tables.flatMap((table) => table.arrays);
  }

  /** The table that holds a key of subset size c. */
  table(c: number, key: number): PostingTable {
    const parts = this.#parts;
    return this.#tables[parts === 1 ? c : c * parts + (key % parts)] as PostingTable;
  }

  /** Indexes a set for the larger (or equal) sets that come after it, under each subset size they probe with. */
  add(input: JoinInput, position: number): void {
    for (let c = 1; c <= 3; c++) {
      const postings = this.#tables[c] as PostingTable;
      eachEntry(input, position, c, 0, 1, (key, at, place) => postings.add(key, at, place));
    }
  }

  clear(): void {
    for (const table of this.#tables) table.clear();
  }
}

/**
 * Calls `add` with (key, position, place) for each c-subset a set is indexed under: the subsets of its first
 * terms, as many as its larger partners keyed by c-subsets need (r ≥ ⌈t·m⌉); with `parts`, only the keys of
 * part `part`.
 */
function eachEntry(input: JoinInput, position: number, c: number, part: number, parts: number, add: (key: number, position: number, place: number) => void): void {
  const t = input.threshold;
  const start = input.offsets[position] as number;
  const m = (input.offsets[position + 1] as number) - start;
  if (m < MIN_SUMMARY_TERMS || c === 0) return;
  const { highest } = partnerSizes(t, m);
  let length = 0;
  for (let n = m; n <= highest; n++) {
    const needed = sharedNeeded(t, n, m);
    if (pairSubsetSize(n, needed) === c) length = Math.max(length, Math.min(m, m - needed + c));
  }
  if (length < c) return;
  if (parts === 1) eachSubset(input.ranks, start, length, c, (key, place) => add(key, position, place));
  else
    eachSubset(input.ranks, start, length, c, (key, place) => {
      if (key % parts === part) add(key, position, place);
    });
}

/**
 * Compares a position's set with those before it through a {@link JoinIndex}, reading only the index's
 * entries of earlier positions: so an index of every position serves any order of probes, and several probers
 * (threads) can share out the positions. Each pair is found once, by its later position.
 */
export class JoinProber {
  readonly #input: JoinInput;
  readonly #index: JoinIndex;
  /**
   * By position, four words: its term count, two words with bit (rank mod 64) set for each of its terms (see
   * {@link probe}), and the last probe that met it: in one array, the worst case's join below took about 6% less
   * than with three.
   */
  readonly #meta: Int32Array;
  readonly #held: Uint8Array;
  /** Scratch tables by partner size, for the set being compared. */
  readonly #needs: Int32Array;
  readonly #subsets: Int32Array;
  readonly #ownDepth: Int32Array;
  readonly #otherDepth: Int32Array;
  /** By size: the first position of a larger set (positions are in size order). */
  readonly #pastSize: Int32Array;
  /** By subset size c and then place: the first position too large for a key of that place ({@link probe}). */
  readonly #limits: Int32Array[];

  constructor(input: JoinInput, index: JoinIndex) {
    this.#input = input;
    this.#index = index;
    const count = input.order.length;
    this.#meta = new Int32Array(4 * count);
    for (let position = 0; position < count; position++) {
      const from = input.offsets[position] as number;
      const to = input.offsets[position + 1] as number;
      this.#meta[4 * position] = to - from;
      writeTermBits(input.ranks, from, to, this.#meta, 4 * position + 1);
    }
    this.#held = new Uint8Array(input.termCount);
    const largest = count === 0 ? 0 : (input.offsets[count] as number) - (input.offsets[count - 1] as number);
    this.#needs = new Int32Array(largest + 1);
    this.#subsets = new Int32Array(largest + 1);
    this.#ownDepth = new Int32Array(largest + 1);
    this.#otherDepth = new Int32Array(largest + 1);
    this.#pastSize = new Int32Array(largest + 1);
    for (let size = 0, position = 0; size <= largest; size++) {
      while (position < count && (input.offsets[position + 1] as number) - (input.offsets[position] as number) <= size) position++;
      this.#pastSize[size] = position;
    }
    this.#limits = [0, 1, 2, 3].map(() => new Int32Array(largest + 1));
  }

  /** Calls `found` with (position, earlier position, shared terms) for each earlier set at or above the threshold. */
  probe(position: number, found: (position: number, other: number, shared: number) => void): void {
    const input = this.#input;
    const t = input.threshold;
    const ranks = input.ranks;
    const offsets = input.offsets;
    const start = offsets[position] as number;
    const n = (offsets[position + 1] as number) - start;
    const { lowest } = partnerSizes(t, n);
    // By partner size: the terms the pair must share, its subset size, and how deep each side's key may lie.
    const needs = this.#needs;
    const subsets = this.#subsets;
    const ownDepth = this.#ownDepth;
    const otherDepth = this.#otherDepth;
    // For each subset size, the longest prefix a smaller partner needs with it.
    const lengths = [0, 0, 0, 0];
    for (let m = lowest; m <= n; m++) {
      const needed = sharedNeeded(t, n, m);
      const c = pairSubsetSize(n, needed);
      needs[m] = needed;
      subsets[m] = c;
      ownDepth[m] = n - needed + c - 1;
      otherDepth[m] = m - needed + c - 1;
      lengths[c] = Math.max(lengths[c] as number, Math.min(n, n - needed + c));
    }
    // A key deeper in this set serves only smaller partners (the deeper, the more terms a larger one must
    // share after it), and smaller partners come first: so a key's entries stop at the first position too large
    // for its place, and an index's long lists are cut short rather than read and passed over.
    const pastSize = this.#pastSize;
    for (let c = 1; c <= 3; c++) {
      const limits = this.#limits[c] as Int32Array;
      for (let place = 0, m = n; place < (lengths[c] as number); place++) {
        while (m >= lowest && (subsets[m] !== c || (ownDepth[m] as number) < place)) m--;
        limits[place] = Math.min(position, m < lowest ? 0 : (pastSize[m] as number));
      }
    }
    const meta = this.#meta;
    const held = this.#held;
    // Positions are in size order: those before this one hold sets too small to pair with this probe's.
    const smallest = lowest > 0 ? (pastSize[lowest - 1] as number) : 0;
    const low = meta[4 * position + 1] as number;
    const high = meta[4 * position + 2] as number;
    const stamp = position + 1;
    for (let k = 0; k < n; k++) held[ranks[start + k] as number] = 1;
    for (let c = 1; c <= 3; c++) {
      const length = lengths[c] as number;
      if (length < c) continue;
      const index = this.#index;
      const limits = this.#limits[c] as Int32Array;
      eachSubset(ranks, start, length, c, (key, place) => {
        const limit = limits[place] as number;
        if (limit === 0) return;
        const postings = index.table(c, key);
        const at = postings.slot(key);
        if (at < 0) return;
        const slots = postings.slots;
        const data = postings.data;
        // The newest block that starts before the limit, found from the slot alone when it is not the newest.
        const newest = (slots[at + 2] as number) < limit;
        for (let block = (slots[at + (newest ? 1 : 3)] as number); block >= 0; block = data[block] as number) {
          // A block's entries rise: one that starts at or past the limit holds nothing before it.
          if ((data[block + BLOCK_HEADER] as number) >= limit) continue;
          const end = block + BLOCK_HEADER + 2 * (data[block + 2] as number);
          // The entries of sets too small are passed over at once, found by halving. They are few (1 in 700 on
          // 100,000 summaries from 50 words), yet that join took 7.6-8.0 s with this against 10.0-10.6 s without,
          // and no longer on realistic summaries. (Written out here and below, the search took as long as the
          // function: one thread's probes 6.2-7.4 s against 6.4-7.1 s, 7 alternating runs.)
          let e = block + BLOCK_HEADER;
          if ((data[e] as number) < smallest) e = firstEntryFrom(data, e, end, smallest);
          // Positions are in size order, so the entries come in runs of one partner size: what the pair's sizes
          // decide (its subset size, how deep either key may lie) is read once a run, and a run whose sizes this
          // key cannot serve is passed over by halving. An entry then costs its candidate's memory only when its
          // place fits: on 100,000 summaries from 50 words, one thread's probes took 6.4-6.6 s against 8.0-8.2 s
          // reading each candidate's size and mark first.
          while (e < end) {
            const first = data[e] as number;
            if (first >= limit) break;
            const m = meta[first << 2] as number;
            const runEnd = Math.min(limit, pastSize[m] as number);
            if (subsets[m] !== c || place > (ownDepth[m] as number)) {
              e = firstEntryFrom(data, e, end, runEnd);
              continue;
            }
            const depth = otherDepth[m] as number;
            const needed = needs[m] as number;
            const spare = m - needed;
            for (; e < end; e += 2) {
              const other = data[e] as number;
              if (other >= runEnd) break;
              // Both places lie within the pair's prefixes.
              if ((data[e + 1] as number) > depth) continue;
              const at = other << 2;
              if (meta[at + 3] === stamp) continue;
              meta[at + 3] = stamp;
              // Each bit one set has and the other lacks stands for at least one term the other lacks: a bound on
              // the terms they share from two words per set, before the candidate's terms are read.
              const otherLow = meta[at + 1] as number;
              const otherHigh = meta[at + 2] as number;
              if (n - bitCount(low & ~otherLow, high & ~otherHigh) < needed) continue;
              if (m - bitCount(otherLow & ~low, otherHigh & ~high) < needed) continue;
              // A candidate fails once it has missed more terms than the pair can spare: most do, and early.
              const from = offsets[other] as number;
              let missed = 0;
              for (let k = 0; k < m && missed <= spare; k++) missed += 1 - (held[ranks[from + k] as number] as number);
              if (missed <= spare) found(position, other, m - missed);
            }
          }
        }
      });
    }
    for (let k = 0; k < n; k++) held[ranks[start + k] as number] = 0;
  }
}

/** The first entry from `from` (before `end`) of a block's rising entries whose position is `position` or more, found by halving. */
function firstEntryFrom(data: Int32Array, from: number, end: number, position: number): number {
  let below = 0;
  let above = (end - from) >> 1;
  while (below < above) {
    const middle = (below + above) >> 1;
    if ((data[from + 2 * middle] as number) < position) below = middle + 1;
    else above = middle;
  }
  return from + 2 * below;
}

/** Writes at `into[at]` and `into[at + 1]` two words with bit (term mod 64) set for each of the terms from `from` to `to`. */
function writeTermBits(terms: ArrayLike<number>, from: number, to: number, into: Int32Array, at: number): void {
  let low = 0;
  let high = 0;
  for (let k = from; k < to; k++) {
    const term = terms[k] as number;
    if (term & 32) high |= 1 << (term & 31);
    else low |= 1 << (term & 31);
  }
  into[at] = low;
  into[at + 1] = high;
}

/** The number of bits set in two 32-bit words: counted together, the words' counts summed before the last steps. */
function bitCount(first: number, second: number): number {
  const a = first - ((first >>> 1) & 0x55555555);
  const b = second - ((second >>> 1) & 0x55555555);
  // Each four bits now count at most 8, each eight at most 16, and the sum of all at most 64: nothing overflows.
  const x = (a & 0x33333333) + ((a >>> 2) & 0x33333333) + (b & 0x33333333) + ((b >>> 2) & 0x33333333);
  const y = (x & 0x0f0f0f0f) + ((x >>> 4) & 0x0f0f0f0f);
  return Math.imul(y, 0x01010101) >>> 24;
}

/** The score of a pair of sets of n and m terms that share `shared`. */
export function pairScore(shared: number, n: number, m: number): number {
  return shared / Math.sqrt(n * m);
}

/**
 * Every pair at or above the threshold among a fixed set of term sets, found once each, in steps (a step: one
 * set compared with those before it, then indexed). The AllPairs scheme, with term subsets for keys:
 * - Terms take one order, rarest first. Sets are taken smallest first, so a set meets only smaller or equal ones.
 * - A pair of sizes m ≤ n at or above t shares s ≥ r = ⌈t·√(nm)⌉ terms. Its first c shared terms in that order
 *   lie among the first n − r + c terms of the larger set and the first m − r + c of the smaller, since each
 *   has at most n − s (m − s) other terms before them. So a set is indexed under the c-subsets of its first terms
 *   (as many as its larger partners need, r ≥ ⌈t·m⌉), with the place of each subset's last term, and probes the
 *   subsets of its own first n − r + c: every pair shares a key, and an entry whose place is too deep for the
 *   pair's sizes is passed over on sight.
 * - Keys are pairs or triples of terms rather than single terms (c is set by the larger set's size): a single
 *   rare term is common enough in a menu of shared words to list most sets, a triple rarely is.
 * - Candidates are verified exactly: the probe's terms are marked in an array over term ranks, and a candidate's
 *   shared count is one pass over its terms.
 * The same input can be joined on other threads instead ({@link JoinIndex.whole} and {@link JoinProber}).
 */
export class SimilarityJoin {
  readonly input: JoinInput;
  readonly #index = JoinIndex.empty();
  readonly #prober: JoinProber;
  readonly #report: (position: number, other: number, shared: number) => void;
  readonly #done: () => void;
  #cursor = 0;

  /** `found` is called once per pair with the two sets' numbers (their places in the input's sets); `done` once at the end. */
  constructor(input: JoinInput, found: (a: number, b: number, score: number) => void, done: () => void) {
    this.input = input;
    this.#done = done;
    this.#prober = new JoinProber(input, this.#index);
    const { order, offsets } = input;
    this.#report = (position, other, shared) =>
      found(
        order[position] as number,
        order[other] as number,
        pairScore(shared, (offsets[position + 1] as number) - (offsets[position] as number), (offsets[other + 1] as number) - (offsets[other] as number)),
      );
  }

  /** Compares up to `steps` more sets; true when every pair has been found. */
  advance(steps: number): boolean {
    const count = this.input.order.length;
    const end = Math.min(count, this.#cursor + steps);
    for (; this.#cursor < end; this.#cursor++) {
      this.#prober.probe(this.#cursor, this.#report);
      this.#index.add(this.input, this.#cursor);
    }
    if (this.#cursor < count) return false;
    this.#index.clear();
    this.#done();
    return true;
  }
}

/** A block's header in {@link PostingTable}'s data: the previous block's offset, its capacity, its count. */
const BLOCK_HEADER = 3;

/** The position an entry of a laid-out table reads until it is written: past every position, so a probe stops at it. */
const UNWRITTEN = 0x7fffffff;

/** A slot of {@link PostingTable}'s keys: the key, its newest block, that block's first position, the block before it. */
const SLOT = 4;

/**
 * Key → list of (position, place) for the join, in typed arrays: an open-addressing table of keys, each slot
 * holding its newest block of entries; a key's blocks double in size and chain to the older ones, so a long
 * list is read from a few contiguous runs. At 50,000 summaries a Map of small arrays held about 125 MB while
 * the join ran, and its garbage was most of the join's collection time; single entries chained one by one
 * made the worst case's long lists twice as slow to read. A slot also holds what a probe asks first (does the
 * newest block start past my limit, and what comes before it), so that a key whose entries are all too late
 * costs one read of memory, not three.
 */
class PostingTable {
  readonly #allocator: Int32Allocator;
  /** {@link SLOT} words a slot; a free slot's key is -1. */
  #slots: Int32Array;
  #size = 0;
  /** Blocks: [previous block or -1, capacity, count, then capacity × (position, place)]. */
  data: Int32Array;
  #used = 0;

  constructor(allocate: Int32Allocator) {
    this.#allocator = allocate;
    this.#slots = PostingTable.#freeSlots(allocate, 1024);
    this.data = allocate(4096);
  }

  static #freeSlots(allocate: Int32Allocator, count: number): Int32Array {
    const slots = allocate(SLOT * count);
    for (let at = 0; at < slots.length; at += SLOT) slots[at] = -1;
    return slots;
  }

  /**
   * A table of every entry at once, each key's entries in one block of their exact size, laid out from a first
   * pass of `eachEntry` that counts them; the same entries are then written by the answer's `add`, in increasing
   * position order. Until a key's entries are all written its block reads as complete, its unwritten
   * positions past every position (see {@link UNWRITTEN}): a probe of a position p reads only entries before p,
   * so it can run on another thread as soon as every position before p is filled.
   */
  static laidOut(allocate: Int32Allocator, eachEntry: (add: (key: number, position: number, place: number) => void) => void): { table: PostingTable; add: (key: number, position: number, place: number) => void } {
    const table = new PostingTable(allocate);
    // While counting, a key's head holds its count, and its first position is kept as it comes.
    eachEntry((key, position) => table.#count(key, position));
    const slots = table.#slots;
    let total = 0;
    for (let at = 0; at < slots.length; at += SLOT) if (slots[at] !== -1) total += BLOCK_HEADER + 2 * (slots[at + 1] as number);
    const data = allocate(total);
    data.fill(UNWRITTEN);
    // Where the next entry of each key goes, by slot: kept apart, since readers take the header's count as final.
    const next = new Int32Array(slots.length / SLOT);
    for (let at = 0, offset = 0; at < slots.length; at += SLOT) {
      if (slots[at] === -1) continue;
      const count = slots[at + 1] as number;
      data[offset] = -1;
      data[offset + 1] = count;
      data[offset + 2] = count;
      slots[at + 1] = offset;
      slots[at + 3] = -1;
      next[at / SLOT] = offset + BLOCK_HEADER;
      offset += BLOCK_HEADER + 2 * count;
    }
    table.data = data;
    table.#used = total;
    const add = (key: number, position: number, place: number) => {
      const slot = table.slot(key) / SLOT;
      const at = next[slot] as number;
      data[at + 1] = place;
      data[at] = position;
      next[slot] = at + 2;
    };
    return { table, add };
  }

  /** A table over another's {@link arrays}, to read. */
  static of(slots: Int32Array, data: Int32Array): PostingTable {
    const table = new PostingTable(() => new Int32Array(0));
    table.#slots = slots;
    table.data = data;
    return table;
  }

  get arrays(): [slots: Int32Array, data: Int32Array] {
    return [this.#slots, this.data];
  }

  /** The slots: a key's at {@link slot} holds it, its newest block, that block's first position and the block before. */
  get slots(): Int32Array {
    return this.#slots;
  }

  /** The offset in {@link slots} of the slot that holds `key`, or -1. */
  slot(key: number): number {
    const slots = this.#slots;
    const mask = slots.length - 1;
    for (let at = slotOf(key, mask); ; at = (at + SLOT) & mask) {
      const held = slots[at] as number;
      if (held === key) return at;
      if (held === -1) return -1;
    }
  }

  /** Adds an entry under a key (keys are non-negative), in increasing position order. */
  add(key: number, position: number, place: number): void {
    const at = this.#slotOf(key);
    const slots = this.#slots;
    let block = slots[at + 1] as number;
    if (block === -1 || this.data[block + 2] === this.data[block + 1]) {
      const capacity = block === -1 ? 2 : 2 * (this.data[block + 1] as number);
      const fresh = this.#allocate(BLOCK_HEADER + 2 * capacity);
      this.data[fresh] = block;
      this.data[fresh + 1] = capacity;
      this.data[fresh + 2] = 0;
      slots[at + 1] = fresh;
      slots[at + 2] = position;
      slots[at + 3] = block;
      block = fresh;
    }
    const data = this.data;
    const count = data[block + 2] as number;
    data[block + BLOCK_HEADER + 2 * count] = position;
    data[block + BLOCK_HEADER + 2 * count + 1] = place;
    data[block + 2] = count + 1;
  }

  /** The slot of a key, the key added (its head -1) if new. */
  #slotOf(key: number): number {
    // Filled up to three quarters: a slot is four words, so a key's run of slots is mostly one cache line, and the
    // table takes the memory the keys and heads took apart at half full (40 MB at 100,000 realistic summaries).
    if (4 * SLOT * (this.#size + 1) > 3 * this.#slots.length) this.#rehash(Math.max(1024, (2 * this.#slots.length) / SLOT));
    const slots = this.#slots;
    const mask = slots.length - 1;
    let at = slotOf(key, mask);
    while (slots[at] !== key && slots[at] !== -1) at = (at + SLOT) & mask;
    if (slots[at] === -1) {
      slots[at] = key;
      slots[at + 1] = -1;
      slots[at + 3] = -1;
      this.#size++;
    }
    return at;
  }

  /** Counts an entry under a key, its head holding the count and its slot the first position ({@link laidOut}). */
  #count(key: number, position: number): void {
    const at = this.#slotOf(key);
    const count = this.#slots[at + 1] as number;
    this.#slots[at + 1] = count === -1 ? 1 : count + 1;
    if (count === -1) this.#slots[at + 2] = position;
  }

  clear(): void {
    this.#slots = new Int32Array(0);
    this.data = new Int32Array(0);
    this.#size = 0;
    this.#used = 0;
  }

  #allocate(length: number): number {
    if (this.#used + length > this.data.length) {
      const data = this.#allocator(Math.max(4096, 2 * this.data.length, this.#used + length));
      data.set(this.data.subarray(0, this.#used));
      this.data = data;
    }
    const at = this.#used;
    this.#used += length;
    return at;
  }

  /** Moves the keys to a table of `count` slots. */
  #rehash(count: number): void {
    const old = this.#slots;
    const slots = PostingTable.#freeSlots(this.#allocator, count);
    const mask = slots.length - 1;
    for (let from = 0; from < old.length; from += SLOT) {
      const key = old[from] as number;
      if (key === -1) continue;
      let at = slotOf(key, mask);
      while (slots[at] !== -1) at = (at + SLOT) & mask;
      // Word by word: a view of each slot to copy from took most of the rehash.
      slots[at] = key;
      slots[at + 1] = old[from + 1] as number;
      slots[at + 2] = old[from + 2] as number;
      slots[at + 3] = old[from + 3] as number;
    }
    this.#slots = slots;
  }
}

/** A key's first slot in {@link PostingTable}'s slots (`mask`: their length less one). */
function slotOf(key: number, mask: number): number {
  const h = Math.imul(key, 0x9e3779b1);
  return (h ^ (h >>> 16)) & mask & -SLOT;
}

/**
 * The subset size that keys a pair whose larger set has n terms. Measured on the bench's 100,000 realistic
 * summaries: triples below 13 terms read half the entries pairs did, and their index stays small because a
 * short summary has few triples in its prefix; past 24 terms even pairs are too many per summary.
 */
function subsetSize(n: number): number {
  return n <= 12 ? 3 : n <= 24 ? 2 : 1;
}

/** The subset size of a pair: {@link subsetSize}, never more than the terms the pair must share. */
function pairSubsetSize(larger: number, shared: number): number {
  return Math.min(subsetSize(larger), shared);
}

/**
 * Calls `visit` with the key of every c-subset of the first `length` terms at `start`, and the place of the
 * subset's last term. Keys are small integers (V8 hashes them fastest), a hash of the terms: subsets that
 * collide share a list, harmless since every candidate is verified term by term.
 */
function eachSubset(ranks: Int32Array, start: number, length: number, c: number, visit: (key: number, place: number) => void): void {
  for (let k = c - 1; k < length; k++) {
    const last = ranks[start + k] as number;
    if (c === 1) {
      visit(last, k);
      continue;
    }
    for (let j = c - 2; j < k; j++) {
      const middle = Math.imul((ranks[start + j] as number) + 1, 0x9e3779b1) ^ Math.imul(last + 1, 0x85ebca6b);
      if (c === 2) visit(mix(middle), k);
      else for (let i = 0; i < j; i++) visit(mix(middle ^ Math.imul((ranks[start + i] as number) + 1, 0xc2b2ae35)), k);
    }
  }
}

function mix(hash: number): number {
  const h = Math.imul(hash ^ (hash >>> 15), 0x2c1b3c6d);
  return (h ^ (h >>> 12)) & 0x3fffffff;
}

/** A hash of sorted term ids (FNV-1a over the ids); exported for the tests that make two sets share one. */
export function termsHash(terms: readonly number[]): number {
  let hash = 0x811c9dc5 | 0;
  for (let k = 0; k < terms.length; k++) hash = Math.imul(hash ^ (terms[k] as number), 0x01000193);
  return hash;
}

/** The group among those under one hash that has exactly these terms, if there is one. */
function withTerms(sharing: Group | Group[], terms: readonly number[]): Group | undefined {
  if (!Array.isArray(sharing)) return sameTerms(sharing.terms, terms) ? sharing : undefined;
  return sharing.find((group) => sameTerms(group.terms, terms));
}

function sameTerms(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** Removes one occurrence of a value from an unordered list, by moving the last entry into its place. */
function removeValue(list: number[], value: number): void {
  const at = list.indexOf(value);
  if (at < 0) return;
  list[at] = list[list.length - 1] as number;
  list.length--;
}

/** A group's members in key order, made when first asked for after a change (for a group of several). */
function sortedMembers(group: Group): readonly string[] {
  const members = group.members;
  if (typeof members !== "object") return members === undefined ? [] : [members];
  group.sorted ??= [...members].sort();
  return group.sorted;
}

/** A group's first member in key order. */
function firstKey(group: Group): string {
  const members = group.members;
  return typeof members === "string" ? members : (sortedMembers(group)[0] ?? "");
}

/** Keeps the closest `limit` neighbours offered, in order. */
class Nearest {
  readonly closest: SimilarNeighbour[] = [];
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** False when the offer comes after the last of a full list (and so would any later key at that score). */
  offer(key: string, score: number): boolean {
    const closest = this.closest;
    const last = closest[this.#limit - 1];
    // Once full, most offers come after the last kept: passed over without an object made for them, and the
    // keys (long URIs, alike for most of their length) compared only when the scores tie.
    if (last && (score < last.score || (score === last.score && key >= last.key))) return false;
    const candidate = { key, score };
    let at = closest.length;
    while (at > 0 && byScoreThenKey(candidate, closest[at - 1] ?? candidate) < 0) at--;
    if (at === closest.length) closest.push(candidate);
    else closest.splice(at, 0, candidate);
    if (closest.length > this.#limit) closest.pop();
    return true;
  }
}

function byScoreThenKey(a: SimilarNeighbour, b: SimilarNeighbour): number {
  return b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}
