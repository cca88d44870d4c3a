/**
 * The handles a "did you mean" weighs for a name: those of the same first letter whose length and letter counts
 * are close enough for the edit distance to be. Indexed by first letter and length, each with its letter
 * counts, so that a name is compared with a few dozen handles of 10,000, not all of them.
 */
export class NearNames {
  /**
   * The handles by first letter and length, each bucket's letter counts made when a name first asks for it: most
   * buckets never are. Counted as they came, the 10,000 handles of a listing took 10-13 ms before the first open
   * editor naming an unknown skill was answered.
   */
  readonly #buckets = new Map<number, Bucket>();

  /** Takes in a handle (one already in is passed over: several files may claim it). */
  add(slug: string): void {
    const key = bucketKey(slug.charCodeAt(0), slug.length);
    const bucket = this.#buckets.get(key);
    if (!bucket) this.#buckets.set(key, { slugs: [slug], counts: undefined });
    else if (bucket.counts === undefined) bucket.slugs.push(slug);
    else if (!bucket.slugs.includes(slug)) {
      // Asked about already: counted again at the next ask.
      bucket.slugs.push(slug);
      bucket.counts = undefined;
    }
  }

  /** The handles that may be near `name` (a near miss keeps its first letter), for the edit distance to settle. */
  candidates(name: string): string[] {
    const bound = Math.max(2, Math.floor(name.length / 3));
    const counts = letterCounts(name);
    const first = name.charCodeAt(0);
    const candidates: string[] = [];
    for (let length = Math.max(1, name.length - bound); length <= name.length + bound; length++) {
      const bucket = this.#buckets.get(bucketKey(first, length));
      if (!bucket) continue;
      const bucketCounts = (bucket.counts ??= countBucket(bucket));
      for (let at = 0; at < bucket.slugs.length; at++) {
        if (countDistance(counts, bucketCounts, at * LETTERS) <= 2 * bound) candidates.push(bucket.slugs[at] as string);
      }
    }
    return candidates;
  }
}

/** Handles of one first letter and length (each once after it is first counted); `counts`: their letter counts, one after another. */
interface Bucket {
  slugs: string[];
  counts: Int8Array | undefined;
}

/** The letters counted: a to z, 0 to 9, and any other character as one. */
const LETTERS = 37;

function bucketKey(firstCode: number, length: number): number {
  // An empty name (no first letter) has a bucket of its own.
  return (Number.isNaN(firstCode) ? -1 : firstCode) * 65_536 + length;
}

/** Counts a bucket's letters, each handle once (a handle may have been added by several files). */
function countBucket(bucket: Bucket): Int8Array {
  bucket.slugs = [...new Set(bucket.slugs)];
  const counts = new Int8Array(bucket.slugs.length * LETTERS);
  bucket.slugs.forEach((slug, at) => addLetterCounts(slug, counts, at * LETTERS));
  return counts;
}

function letterCounts(handle: string): Int8Array {
  const counts = new Int8Array(LETTERS);
  addLetterCounts(handle, counts, 0);
  return counts;
}

function addLetterCounts(handle: string, counts: Int8Array, offset: number): void {
  for (let i = 0; i < handle.length; i++) {
    const code = handle.charCodeAt(i);
    const index = code >= 97 && code <= 122 ? code - 97 : code >= 48 && code <= 57 ? code - 22 : 36;
    counts[offset + index] = (counts[offset + index] ?? 0) + 1;
  }
}

/** A lower bound of the edit distance, times two: each edit changes at most two of the letter counts by one. */
function countDistance(a: Int8Array, b: Int8Array, offset: number): number {
  let difference = 0;
  for (let i = 0; i < LETTERS; i++) difference += Math.abs((a[i] ?? 0) - (b[offset + i] ?? 0));
  return difference;
}
