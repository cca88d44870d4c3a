/** "1 tool", "7 skills": a count with its noun in the right number, for text either side shows a person. */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? singular : plural}`;
}
