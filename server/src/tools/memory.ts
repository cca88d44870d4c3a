import { ToolArgumentError } from "./types.js";
import { escapeRegExp, locateFile, matchCount, queryWords, readText } from "./workspace.js";

/** One line of the memory log. */
export interface MemoryLine {
  readonly line: number;
  readonly text: string;
}

/** What `grep_memory` answers. */
export interface MemoryAnswer {
  readonly matches: readonly MemoryLine[];
  readonly total: number;
  readonly note?: string;
}

const MAX_MATCHES = 20;
const MAX_LINE_CHARS = 400;

/**
 * A nested quantifier like `(a+)+` can take exponential time on one line: such a pattern (or one that does not
 * compile) is searched for as plain text instead.
 */
function compilePattern(pattern: string): { readonly regex: RegExp; readonly literal: boolean } {
  const risky = /\([^)]*[+*}][^)]*\)\s*[+*{]/.test(pattern);
  if (!risky) {
    try {
      return { regex: new RegExp(pattern, "iu"), literal: false };
    } catch {
      // Not a regular expression: plain text.
    }
  }
  return { regex: new RegExp(escapeRegExp(pattern), "iu"), literal: true };
}

/**
 * Searches the memory log line by line for a regular expression (case-insensitive) or plain words. When the
 * whole pattern matches no line, the lines holding most of its words are answered instead, marked as such.
 */
export async function grepMemory(args: { readonly pattern: string }, folders: readonly string[], memoryFile: string): Promise<MemoryAnswer> {
  if (args.pattern.trim() === "") throw new ToolArgumentError("pattern is empty: give words or a regular expression to look for.");
  const file = await locateFile(memoryFile, folders);
  if (!file) return { matches: [], total: 0, note: `There is no memory log: no ${memoryFile} in the workspace folders.` };
  const lines = (await readText(file)).split(/\r?\n/);
  const clip = (text: string) => (text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS - 1)}…` : text);
  const { regex, literal } = compilePattern(args.pattern);
  const exact: MemoryLine[] = [];
  lines.forEach((text, index) => {
    if (text.trim() !== "" && regex.test(text)) exact.push({ line: index + 1, text: clip(text) });
  });
  const literalNote = literal && /[\\^$.|?*+()[\]{}]/.test(args.pattern) ? " The pattern was searched as plain text." : "";
  if (exact.length > 0) {
    const more = exact.length > MAX_MATCHES ? ` Showing the last ${MAX_MATCHES} of ${exact.length}: use a narrower pattern.` : "";
    return { matches: exact.slice(-MAX_MATCHES), total: exact.length, ...(more || literalNote ? { note: `${more}${literalNote}`.trim() } : {}) };
  }
  const words = queryWords(args.pattern);
  const partial = words.length < 2 ? [] : lines
    .map((text, index) => ({ line: index + 1, text, score: matchCount(words, text) }))
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || b.line - a.line)
    .slice(0, MAX_MATCHES)
    .map(({ line, text }) => ({ line, text: clip(text) }));
  if (partial.length > 0) {
    return { matches: partial, total: 0, note: `No line matches ${JSON.stringify(args.pattern)} as a whole; these lines hold some of its words.${literalNote}` };
  }
  return { matches: [], total: 0, note: `No line of the memory log matches ${JSON.stringify(args.pattern)}.${literalNote}` };
}
