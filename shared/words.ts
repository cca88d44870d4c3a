/** "1 tool", "7 skills": a count with its noun in the right number, for text either side shows a person. */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${groupedDigits(count)} ${count === 1 ? singular : plural}`;
}

/**
 * An integer with commas between groups of three digits, as `toLocaleString("en-US")` writes it, without
 * loading the locale data (its first call took 17 ms of the server's start); other numbers go to it.
 */
export function groupedDigits(count: number): string {
  if (!Number.isSafeInteger(count)) return count.toLocaleString("en-US");
  return String(count).replace(/\B(?=(\d{3})+$)/g, ",");
}
