/**
 * Slug → the URIs of the files that mention it: what references, rename and a change's dependents read.
 *
 * The bulk, the mentions of the files a workspace's first read took in, is collected into typed arrays and
 * sealed into one row of file numbers per slug. Held as a small array or Set per slug, the 600,000 mentions of
 * 100,000 skills were built while the menu's summaries were compared, and the collector copied them from
 * one young generation to the next: completion then waited up to 15 ms. A slug changed after the seal has its
 * list copied out of its row once, and kept as before: a small array or a Set.
 */
import { hasString, stringsOf, withString, withoutString, type Strings } from "./strings.js";
import { grown, RowsInSteps } from "./typedArrays.js";

export class MentionIndex {
  /** While collecting: each slug's number, each file's URI by number, and the (slug, file) pairs. */
  readonly #slugIds = new Map<string, number>();
  readonly #files: string[] = [];
  #pairSlugs = new Int32Array(1024);
  #pairFiles = new Int32Array(1024);
  #pairCount = 0;
  /** Once sealed: by slug number, its row of file numbers, from `starts[id]` to `starts[id + 1]`. */
  #starts: Int32Array | undefined;
  #rows: Int32Array | undefined;
  /** A seal under way, in steps ({@link sealStep}). */
  #sealing: RowsInSteps | undefined;
  /** Before the seal: files added one by one (an open editor's), beside what is collected. */
  readonly #early = new Map<string, Strings>();
  /** After the seal: the whole list of each slug changed since, which its row no longer answers for. */
  readonly #changed = new Map<string, Strings>();

  get sealed(): boolean {
    return this.#starts !== undefined;
  }

  /** Takes a file's mentions into the bulk (`slugs` unique); after the seal, they are added as changes. */
  collect(uri: string, slugs: Iterable<string>): void {
    if (this.sealed) {
      for (const slug of slugs) this.add(slug, uri);
      return;
    }
    this.#sealing = undefined;
    const file = this.#files.push(uri) - 1;
    for (const slug of slugs) {
      if (this.#pairCount === this.#pairSlugs.length) this.#grow();
      this.#pairSlugs[this.#pairCount] = this.#slugId(slug);
      this.#pairFiles[this.#pairCount] = file;
      this.#pairCount++;
    }
  }

  /** Makes the rows of what was collected: from then on, every mention of a file is a change beside them. */
  seal(): void {
    while (!this.sealStep(Number.MAX_SAFE_INTEGER));
  }

  /**
   * {@link seal} in steps of about `units` mentions: true once sealed. At once, the rows of 100,000 skills'
   * mentions held the thread 10-20 ms. A collect in between begins the rows again.
   */
  sealStep(units: number): boolean {
    if (this.sealed) return true;
    this.#sealing ??= new RowsInSteps(this.#pairSlugs, this.#pairFiles, this.#pairCount, this.#slugIds.size);
    if (!this.#sealing.advance(units)) return false;
    this.#starts = this.#sealing.starts;
    this.#rows = this.#sealing.rows;
    this.#sealing = undefined;
    this.#pairSlugs = new Int32Array(0);
    this.#pairFiles = new Int32Array(0);
    this.#pairCount = 0;
    // A slug with files added early: its whole list, the row's files and those.
    for (const [slug, early] of this.#early) {
      let entry = this.#own(slug);
      for (const uri of stringsOf(early)) entry = withString(entry, uri);
      this.#changed.set(slug, entry);
    }
    this.#early.clear();
    return true;
  }

  add(slug: string, uri: string): void {
    if (!this.sealed) this.#setEntry(this.#early, slug, withString(this.#early.get(slug), uri));
    else this.#changed.set(slug, withString(this.#own(slug), uri));
  }

  /**
   * Takes one file's mention of a slug out. False, with nothing changed, for a mention collected but not sealed
   * yet: the caller collects the rest and seals, then asks again.
   */
  remove(slug: string, uri: string): boolean {
    if (!this.sealed) {
      const early = this.#early.get(slug);
      if (!hasString(early, uri)) return false;
      this.#setEntry(this.#early, slug, withoutString(early, uri));
      return true;
    }
    this.#changed.set(slug, withoutString(this.#own(slug), uri));
    return true;
  }

  /** The URIs that mention a slug, each once. Reads the bulk only once sealed (a caller seals first). */
  uris(slug: string): Iterable<string> {
    if (this.#changed.has(slug)) return stringsOf(this.#changed.get(slug));
    const found: string[] = [];
    const id = this.#slugIds.get(slug);
    if (id !== undefined && this.#starts && this.#rows) {
      for (let k = this.#starts[id] as number; k < (this.#starts[id + 1] as number); k++) found.push(this.#files[this.#rows[k] as number] as string);
    }
    return found;
  }

  /** A slug's list as a changed one: its row's files, copied out the first time. */
  #own(slug: string): Strings {
    if (this.#changed.has(slug)) return this.#changed.get(slug);
    let entry: Strings = undefined;
    for (const uri of this.uris(slug)) entry = withString(entry, uri);
    return entry;
  }

  #slugId(slug: string): number {
    let id = this.#slugIds.get(slug);
    if (id === undefined) {
      id = this.#slugIds.size;
      this.#slugIds.set(slug, id);
    }
    return id;
  }

  #setEntry(map: Map<string, Strings>, slug: string, entry: Strings): void {
    if (entry === undefined) map.delete(slug);
    else map.set(slug, entry);
  }

  #grow(): void {
    const size = 2 * this.#pairSlugs.length;
    this.#pairSlugs = grown(this.#pairSlugs, size);
    this.#pairFiles = grown(this.#pairFiles, size);
  }
}
