/**
 * The pairs a similarity join found, kept by group so that later changes read and update them. They live in
 * typed arrays, out of the collector's way: one array per group, grown pair by pair as the pairs came from the
 * join thread, had the server's main thread collect its young generation every 80 ms at 100,000 summaries, each
 * collection copying the arrays made since the last (3 to 11 ms while completion waited).
 */
import { grown, RowsInSteps } from "./typedArrays.js";

/** The pairs of a join as they come: group ids and scores in growing typed arrays, nothing made per pair. */
export class PairCollector {
  #firsts = new Int32Array(1024);
  #seconds = new Int32Array(1024);
  #scores = new Float64Array(1024);
  #count = 0;

  add(first: number, second: number, score: number): void {
    if (this.#count === this.#firsts.length) this.#grow();
    this.#firsts[this.#count] = first;
    this.#seconds[this.#count] = second;
    this.#scores[this.#count] = score;
    this.#count++;
  }

  /** Each group's row, both directions of every pair; group ids are below `groupCount`. */
  lists(groupCount: number): NeighbourLists {
    const making = this.listsInSteps(groupCount);
    for (;;) {
      const lists = making.advance(Number.MAX_SAFE_INTEGER);
      if (lists) return lists;
    }
  }

  /** {@link lists} in steps; no pair may be added meanwhile. */
  listsInSteps(groupCount: number): ListsInSteps {
    return new ListsInSteps(this.#firsts, this.#seconds, this.#scores, this.#count, groupCount);
  }

  #grow(): void {
    const size = 2 * this.#firsts.length;
    this.#firsts = grown(this.#firsts, size);
    this.#seconds = grown(this.#seconds, size);
    this.#scores = grown(this.#scores, size);
  }
}

/**
 * The rows of {@link PairCollector.lists}, made in steps: at once, the lists of 100,000 summaries' pairs held
 * the thread 15-20 ms.
 */
export class ListsInSteps {
  readonly #firsts: Int32Array;
  readonly #seconds: Int32Array;
  readonly #scores: Float64Array;
  readonly #count: number;
  readonly #groupCount: number;
  /** Entry 2k is pair k seen from its first group, 2k + 1 from its second: the other end is entry e ^ 1. */
  readonly #ends: Int32Array;
  #rows: RowsInSteps | undefined;
  #ids: Int32Array | undefined;
  #rowScores: Float64Array | undefined;
  #at = 0;

  constructor(firsts: Int32Array, seconds: Int32Array, scores: Float64Array, count: number, groupCount: number) {
    this.#firsts = firsts;
    this.#seconds = seconds;
    this.#scores = scores;
    this.#count = count;
    this.#groupCount = groupCount;
    this.#ends = new Int32Array(2 * count);
  }

  /** About `units` entries further: the lists once made. */
  advance(units: number): NeighbourLists | undefined {
    const ends = this.#ends;
    const entries = ends.length;
    if (!this.#rows) {
      const to = Math.min(this.#count, this.#at + units);
      for (let k = this.#at; k < to; k++) {
        ends[2 * k] = this.#firsts[k] as number;
        ends[2 * k + 1] = this.#seconds[k] as number;
      }
      this.#at = to;
      if (to < this.#count) return undefined;
      this.#rows = new RowsInSteps(ends, undefined, entries, this.#groupCount);
      this.#at = 0;
      return undefined;
    }
    if (!this.#ids) {
      if (!this.#rows.advance(units)) return undefined;
      this.#ids = new Int32Array(entries);
      this.#rowScores = new Float64Array(entries);
      return undefined;
    }
    const order = this.#rows.rows;
    const ids = this.#ids;
    const scores = this.#rowScores as Float64Array;
    const to = Math.min(entries, this.#at + units);
    for (let at = this.#at; at < to; at++) {
      const entry = order[at] as number;
      ids[at] = ends[entry ^ 1] as number;
      scores[at] = this.#scores[entry >> 1] as number;
    }
    this.#at = to;
    return to < entries ? undefined : new NeighbourLists(this.#rows.starts, ids, scores);
  }
}

/**
 * Each group's neighbours (group ids and scores): the join's rows in two flat arrays, and the rows a change
 * touched since, each copied out into an interleaved list of its own that replaces the join's.
 */
export class NeighbourLists {
  readonly #starts: Int32Array;
  readonly #ids: Int32Array;
  readonly #scores: Float64Array;
  /** Rows changed since the join, ids and scores interleaved. */
  readonly #changed = new Map<number, number[]>();

  constructor(starts: Int32Array, ids: Int32Array, scores: Float64Array) {
    this.#starts = starts;
    this.#ids = ids;
    this.#scores = scores;
  }

  /** Calls `visit` for each neighbour of the group. */
  forEach(id: number, visit: (other: number, score: number) => void): void {
    const changed = this.#changed.get(id);
    if (changed) {
      for (let k = 0; k < changed.length; k += 2) visit(changed[k] as number, changed[k + 1] as number);
      return;
    }
    const end = this.#end(id);
    for (let k = this.#start(id); k < end; k++) visit(this.#ids[k] as number, this.#scores[k] as number);
  }

  /** The number of the group's neighbours. */
  count(id: number): number {
    const changed = this.#changed.get(id);
    return changed ? changed.length / 2 : this.#end(id) - this.#start(id);
  }

  /** Sets a group's whole row (a new group's, found by a probe; empty for a group gone). */
  replace(id: number, interleaved: number[]): void {
    this.#changed.set(id, interleaved);
  }

  add(id: number, other: number, score: number): void {
    this.#own(id).push(other, score);
  }

  /** Removes `other` from the group's row. */
  remove(id: number, other: number): void {
    const list = this.#own(id);
    for (let k = 0; k < list.length; k += 2) {
      if (list[k] !== other) continue;
      list[k] = list[list.length - 2] as number;
      list[k + 1] = list[list.length - 1] as number;
      list.length -= 2;
      return;
    }
  }

  /** The group's row as a list of its own, copied out of the join's the first time. */
  #own(id: number): number[] {
    let list = this.#changed.get(id);
    if (list) return list;
    list = [];
    this.forEach(id, (other, score) => (list as number[]).push(other, score));
    this.#changed.set(id, list);
    return list;
  }

  /** A group made after the join has no row there (its id past the starts): its rows are changed ones. */
  #start(id: number): number {
    return id + 1 < this.#starts.length ? (this.#starts[id] as number) : 0;
  }

  #end(id: number): number {
    return id + 1 < this.#starts.length ? (this.#starts[id + 1] as number) : 0;
  }
}

/**
 * Each group's closest other groups, kept as the pairs come (in typed arrays: nothing made per pair), so that
 * once the last pair is in, every group's closest are known without reading its row. Ordered by score, then by
 * the group's first key: a group holds at least one member, so the `limit` closest members of all lie in the
 * `limit` closest groups. `totals` counts the members of all the groups met.
 */
export class NearestGroups {
  readonly limit: number;
  readonly totals: Int32Array;
  readonly #ids: Int32Array;
  readonly #scores: Float64Array;
  readonly #lengths: Uint8Array;
  readonly #firstKey: (id: number) => string;
  readonly #memberCount: (id: number) => number;

  constructor(groupCount: number, limit: number, firstKey: (id: number) => string, memberCount: (id: number) => number) {
    this.limit = limit;
    this.totals = new Int32Array(groupCount);
    this.#ids = new Int32Array(groupCount * limit);
    this.#scores = new Float64Array(groupCount * limit);
    this.#lengths = new Uint8Array(groupCount);
    this.#firstKey = firstKey;
    this.#memberCount = memberCount;
  }

  /** Offers `other` as a neighbour of `id`. */
  offer(id: number, other: number, score: number): void {
    this.totals[id] = (this.totals[id] as number) + this.#memberCount(other);
    const limit = this.limit;
    const base = id * limit;
    const length = this.#lengths[id] as number;
    let at = length;
    // From the last kept: most offers to a full list come after it, and leave at the first comparison.
    while (at > 0 && this.#before(score, other, this.#scores[base + at - 1] as number, this.#ids[base + at - 1] as number)) at--;
    if (at === limit) return;
    const end = Math.min(length, limit - 1);
    // A few moves by hand: two calls to copyWithin a pair cost more than the moves themselves.
    const ids = this.#ids;
    const scores = this.#scores;
    for (let k = base + end; k > base + at; k--) {
      ids[k] = ids[k - 1] as number;
      scores[k] = scores[k - 1] as number;
    }
    ids[base + at] = other;
    scores[base + at] = score;
    this.#lengths[id] = end + 1;
  }

  /** Calls `visit` for each of the group's closest groups, closest first. */
  forEach(id: number, visit: (other: number, score: number) => void): void {
    const base = id * this.limit;
    const length = this.#lengths[id] as number;
    for (let k = 0; k < length; k++) visit(this.#ids[base + k] as number, this.#scores[base + k] as number);
  }

  /** True when (score, other) comes before (keptScore, kept). */
  #before(score: number, other: number, keptScore: number, kept: number): boolean {
    return score > keptScore || (score === keptScore && this.#firstKey(other) < this.#firstKey(kept));
  }
}
