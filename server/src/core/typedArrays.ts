/** A larger copy of a typed array, the rest zero: how the growing typed arrays of the indexes grow. */
export function grown<T extends Int32Array<ArrayBuffer> | Float64Array<ArrayBuffer>>(from: T, size: number): T {
  const larger = (from instanceof Int32Array ? new Int32Array(size) : new Float64Array(size)) as T;
  larger.set(from);
  return larger;
}

/**
 * Entries grouped into rows by key, in one pass to count and one to place (a counting sort): row `key` holds
 * the entries `order[starts[key]]` to `order[starts[key + 1] - 1]`, in the entries' order.
 */
export function rowsByKey(keys: Int32Array, count: number, keyCount: number): { starts: Int32Array; order: Int32Array } {
  const starts = new Int32Array(keyCount + 1);
  for (let k = 0; k < count; k++) {
    const next = (keys[k] as number) + 1;
    starts[next] = (starts[next] as number) + 1;
  }
  for (let key = 0; key < keyCount; key++) starts[key + 1] = (starts[key + 1] as number) + (starts[key] as number);
  const order = new Int32Array(count);
  // Each row filled from its start, which `next` moves along: a copy, so the starts stay.
  const next = starts.slice(0, keyCount);
  for (let k = 0; k < count; k++) {
    const key = keys[k] as number;
    const at = next[key] as number;
    next[key] = at + 1;
    order[at] = k;
  }
  return { starts, order };
}
