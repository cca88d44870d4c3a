/**
 * The handles a "did you mean" weighs for a name: those of the same first letter whose length and letter counts
 * are close enough for the edit distance to be. Indexed by first letter and length, each with its letter
 * counts, so that a name is compared with a few dozen handles of 10,000, not all of them.
 */
export class NearNames {
  readonly #buckets = new Map<string, { readonly slug: string; readonly counts: Int8Array }[]>();
  readonly #seen = new Set<string>();

  /** Takes in a handle (one already in is passed over: several files may claim it). */
  add(slug: string): void {
    if (this.#seen.has(slug)) return;
    this.#seen.add(slug);
    const key = `${slug.charAt(0)}${slug.length}`;
    const bucket = this.#buckets.get(key);
    if (bucket) bucket.push({ slug, counts: letterCounts(slug) });
    else this.#buckets.set(key, [{ slug, counts: letterCounts(slug) }]);
  }

  /** The handles that may be near `name` (a near miss keeps its first letter), for the edit distance to settle. */
  candidates(name: string): string[] {
    const bound = Math.max(2, Math.floor(name.length / 3));
    const counts = letterCounts(name);
    const candidates: string[] = [];
    for (let length = Math.max(1, name.length - bound); length <= name.length + bound; length++) {
      for (const candidate of this.#buckets.get(`${name.charAt(0)}${length}`) ?? []) {
        if (countDistance(counts, candidate.counts) <= 2 * bound) candidates.push(candidate.slug);
      }
    }
    return candidates;
  }
}

function letterCounts(handle: string): Int8Array {
  const counts = new Int8Array(37);
  for (let i = 0; i < handle.length; i++) {
    const code = handle.charCodeAt(i);
    const index = code >= 97 && code <= 122 ? code - 97 : code >= 48 && code <= 57 ? code - 22 : 36;
    counts[index] = (counts[index] ?? 0) + 1;
  }
  return counts;
}

/** A lower bound of the edit distance, times two: each edit changes at most two of the letter counts by one. */
function countDistance(a: Int8Array, b: Int8Array): number {
  let difference = 0;
  for (let i = 0; i < 37; i++) difference += Math.abs((a[i] ?? 0) - (b[i] ?? 0));
  return difference;
}
