/**
 * A few strings held as cheaply as they come: none as undefined, one as itself, a few in an array of their
 * exact size, more in a Set. Nearly every handle has one claimant and every summary group one member; a slug's
 * mentioners are usually a handful, and a Set of two costs about 190 bytes, an array of two 64.
 */
export type Strings = string | readonly string[] | Set<string> | undefined;

/** The most strings kept in an array, replaced on each change: below this a linear search beats hashing. */
const MAX_ARRAY_STRINGS = 8;

/** The strings with `value` added: a Set grown in place, or a new entry when the shape or an array changes. */
export function withString(entry: Strings, value: string): Strings {
  if (entry === undefined) return value;
  if (typeof entry === "string") return entry === value ? entry : [entry, value];
  if (entry instanceof Set) return entry.add(value);
  if (entry.includes(value)) return entry;
  // concat allocates the exact size; a spread or a push leaves room for more, which costs more than a Set.
  return entry.length < MAX_ARRAY_STRINGS ? entry.concat(value) : new Set([...entry, value]);
}

/** The strings without `value`: a Set shrunk in place, or a new entry when the shape or an array changes. */
export function withoutString(entry: Strings, value: string): Strings {
  if (entry === undefined || entry === value) return undefined;
  if (typeof entry === "string") return entry;
  if (entry instanceof Set) {
    entry.delete(value);
    return entry.size === 1 ? (entry.values().next().value as string) : entry.size === 0 ? undefined : entry;
  }
  const at = entry.indexOf(value);
  if (at < 0) return entry;
  if (entry.length === 2) return entry[1 - at];
  return entry.slice(0, at).concat(entry.slice(at + 1));
}

export function hasString(entry: Strings, value: string): boolean {
  return entry === undefined ? false : typeof entry === "string" ? entry === value : entry instanceof Set ? entry.has(value) : entry.includes(value);
}

export function stringsOf(entry: Strings): Iterable<string> {
  return entry === undefined ? [] : typeof entry === "string" ? [entry] : entry;
}

export function stringCount(entry: Strings): number {
  return entry === undefined ? 0 : typeof entry === "string" ? 1 : entry instanceof Set ? entry.size : entry.length;
}
