/**
 * A few strings held as cheaply as they come: none as undefined, one as itself, more in a Set. Nearly every
 * handle has one claimant and every summary group one member, and a Set of one costs about 150 bytes.
 */
export type Strings = string | Set<string> | undefined;

/** The strings with `value` added: the same Set grown in place, or a new entry when the shape changes. */
export function withString(entry: Strings, value: string): Strings {
  if (entry === undefined) return value;
  if (typeof entry !== "string") return entry.add(value);
  return entry === value ? entry : new Set([entry, value]);
}

/** The strings without `value`: the same Set shrunk in place, or a new entry when the shape changes. */
export function withoutString(entry: Strings, value: string): Strings {
  if (entry === undefined || entry === value) return undefined;
  if (typeof entry === "string") return entry;
  entry.delete(value);
  return entry.size === 1 ? (entry.values().next().value as string) : entry.size === 0 ? undefined : entry;
}

export function stringsOf(entry: Strings): Iterable<string> {
  return entry === undefined ? [] : typeof entry === "string" ? [entry] : entry;
}

export function stringCount(entry: Strings): number {
  return entry === undefined ? 0 : typeof entry === "string" ? 1 : entry.size;
}
