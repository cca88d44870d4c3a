/** A larger copy of a typed array, the rest zero: how the growing typed arrays of the indexes grow. */
export function grown<T extends Int32Array<ArrayBuffer> | Float64Array<ArrayBuffer>>(from: T, size: number): T {
  const larger = (from instanceof Int32Array ? new Int32Array(size) : new Float64Array(size)) as T;
  larger.set(from);
  return larger;
}
