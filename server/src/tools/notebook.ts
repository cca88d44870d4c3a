import { ToolArgumentError } from "./types.js";
import { escapeRegExp, locateFile, matchCount, queryWords, readText } from "./workspace.js";

/** One entry of the notebook: a list item or a paragraph line, under its headings. */
export interface NotebookEntry {
  readonly section: string;
  readonly text: string;
  readonly line: number;
}

/** What `check_notebook` answers. */
export interface NotebookAnswer {
  readonly entries: readonly NotebookEntry[];
  readonly notebook?: string;
  readonly note?: string;
}

const MAX_ENTRIES = 8;

/** Splits a Markdown notebook into entries, each with the path of headings above it. */
export function notebookEntries(text: string): NotebookEntry[] {
  const entries: NotebookEntry[] = [];
  const headings: string[] = [];
  let inFence = false;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line.startsWith("```")) inFence = !inFence;
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading && !inFence) {
      const level = (heading[1] ?? "#").length;
      headings.length = level - 1;
      headings[level - 1] = (heading[2] ?? "").trim();
      return;
    }
    const content = line.replace(/^([-*+]|\d+[.)])\s+/, "").trim();
    if (content === "" || line.startsWith("```") || /^---+$/.test(line)) return;
    entries.push({ section: headings.filter(Boolean).join(" › "), text: content, line: index + 1 });
  });
  return entries;
}

/** Searches the notebook's entries for the query's words; the best eight, best first. */
export async function checkNotebook(args: { readonly query: string }, folders: readonly string[], notebookFile: string): Promise<NotebookAnswer> {
  const words = queryWords(args.query);
  if (words.length === 0) throw new ToolArgumentError(`The query ${JSON.stringify(args.query)} has no words to look for.`);
  const file = await locateFile(notebookFile, folders);
  if (!file) {
    return { entries: [], note: `There is no notebook: no ${notebookFile} in the workspace folders. Nothing is known from it.` };
  }
  const entries = notebookEntries(await readText(file));
  // Whole words rank above parts of words: "pan" should find "PAN number" before "company".
  const whole = words.map((word) => new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(word)}`, "iu"));
  const scored = entries
    .map((entry, order) => {
      const text = `${entry.section} ${entry.text}`;
      return { entry, order, score: matchCount(words, text) + whole.filter((pattern) => pattern.test(text)).length };
    })
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order);
  const found = scored.slice(0, MAX_ENTRIES).map((hit) => hit.entry);
  return found.length > 0
    ? { entries: found, notebook: notebookFile }
    : { entries: [], notebook: notebookFile, note: `The notebook has nothing about ${words.map((word) => `"${word}"`).join(" or ")}.` };
}
