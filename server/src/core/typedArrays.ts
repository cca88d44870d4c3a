/** A larger copy of a typed array, the rest zero: how the growing typed arrays of the indexes grow. */
export function grown<T extends Int32Array<ArrayBuffer> | Float64Array<ArrayBuffer>>(from: T, size: number): T {
  const larger = (from instanceof Int32Array ? new Int32Array(size) : new Float64Array(size)) as T;
  larger.set(from);
  return larger;
}

/**
 * Entries grouped into rows by key, in one pass to count and one to place (a counting sort), in steps: stopped
 * after about `units` entries and taken up again, so that no step holds the thread long. Row `key` holds
 * `rows[starts[key]]` to `rows[starts[key + 1] - 1]`, in the entries' order: their values, or without values
 * their numbers.
 */
export class RowsInSteps {
  readonly starts: Int32Array;
  readonly rows: Int32Array;
  readonly #keys: Int32Array;
  readonly #values: Int32Array | undefined;
  readonly #count: number;
  readonly #keyCount: number;
  /** Each row's next place, once the starts are summed. */
  #next: Int32Array | undefined;
  #pass: "count" | "sum" | "place" | "done" = "count";
  #at = 0;

  constructor(keys: Int32Array, values: Int32Array | undefined, count: number, keyCount: number) {
    this.#keys = keys;
    this.#values = values;
    this.#count = count;
    this.#keyCount = keyCount;
    this.starts = new Int32Array(keyCount + 1);
    this.rows = new Int32Array(count);
  }

  /** About `units` entries (or keys) further: true once every row is made. */
  advance(units: number): boolean {
    const { starts } = this;
    const keys = this.#keys;
    let budget = units;
    if (this.#pass === "count") {
      const to = Math.min(this.#count, this.#at + budget);
      for (let k = this.#at; k < to; k++) {
        const next = (keys[k] as number) + 1;
        starts[next] = (starts[next] as number) + 1;
      }
      budget -= to - this.#at;
      this.#at = to;
      if (to < this.#count) return false;
      this.#pass = "sum";
      this.#at = 0;
    }
    if (this.#pass === "sum") {
      const to = Math.min(this.#keyCount, this.#at + budget);
      for (let key = this.#at; key < to; key++) starts[key + 1] = (starts[key + 1] as number) + (starts[key] as number);
      budget -= to - this.#at;
      this.#at = to;
      if (to < this.#keyCount) return false;
      this.#next = starts.slice(0, this.#keyCount);
      this.#pass = "place";
      this.#at = 0;
    }
    if (this.#pass === "place") {
      const next = this.#next as Int32Array;
      const values = this.#values;
      const to = Math.min(this.#count, this.#at + budget);
      for (let k = this.#at; k < to; k++) {
        const key = keys[k] as number;
        const at = next[key] as number;
        next[key] = at + 1;
        this.rows[at] = values ? (values[k] as number) : k;
      }
      budget -= to - this.#at;
      this.#at = to;
      if (to < this.#count) return false;
      this.#next = undefined;
      this.#pass = "done";
    }
    return true;
  }
}
