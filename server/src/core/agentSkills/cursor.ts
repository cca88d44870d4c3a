/**
 * What the cursor stands on in a SKILL.md frontmatter while it is being typed: a key's place, or a key's
 * value. Read from the text of the line and the lines above it, not from parsed YAML, which a half-typed
 * line often breaks.
 */
import type { LineMap, Range } from "../text.js";
import type { KeyPlace } from "./assist.js";

export type FrontmatterCursor =
  /** Typing a key: `range` covers the part already written, which a completion replaces. */
  | { readonly kind: "key"; readonly place: KeyPlace; readonly present: readonly string[]; readonly range: Range }
  /** Typing the value of `key` on its own line (`key: val|`): `range` covers the value written so far. */
  | { readonly kind: "value"; readonly key: string; readonly place: KeyPlace; readonly range: Range };

const KEY_LINE = /^( *)([^\s:#'"-][^:#]*?)[ \t]*:(?:[ \t]|$)/;
const WORD = /[\w-]/;

interface Line {
  readonly start: number;
  readonly text: string;
}

/** The frontmatter's lines, each with its offset in the file. */
function linesOf(source: string, base: number): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (const text of source.split("\n")) {
    lines.push({ start: base + start, text: text.replace(/\r$/, "") });
    start += text.length + 1;
  }
  return lines;
}

function indentOf(text: string): number {
  return /^ */.exec(text)?.[0].length ?? 0;
}

/** The key a line at `indent` belongs under: the nearest line above with less indent, if it is a bare `key:`. */
function parentOf(lines: readonly Line[], index: number, indent: number): string | null | undefined {
  if (indent === 0) return null;
  for (let i = index - 1; i >= 0; i--) {
    const text = lines[i]?.text ?? "";
    if (text.trim() === "" || text.trimStart().startsWith("#")) continue;
    if (indentOf(text) >= indent) continue;
    const match = KEY_LINE.exec(text);
    return match && text.slice(match[0].length).trim() === "" ? (match[2] ?? undefined) : undefined;
  }
  return undefined;
}

/** The keys already written at one level: the top, or the lines under `parent` at `indent`. */
function keysAt(lines: readonly Line[], indent: number, parent: string | null | undefined, except: number): string[] {
  const keys: string[] = [];
  lines.forEach((line, i) => {
    if (i === except || indentOf(line.text) !== indent) return;
    if (parentOf(lines, i, indent) !== parent) return;
    const match = KEY_LINE.exec(line.text);
    if (match?.[2]) keys.push(match[2]);
  });
  return keys;
}

/**
 * Where the cursor at file offset `offset` stands in a frontmatter whose YAML text `source` starts at offset
 * `base`: typing a key at the top or inside `metadata`, or typing a key's value. Undefined elsewhere (a
 * comment, a list item, a nested map other than `metadata`, past the value's first word).
 */
export function frontmatterCursorAt(source: string, base: number, lines: LineMap, offset: number): FrontmatterCursor | undefined {
  if (offset < base || offset > base + source.length) return undefined;
  const all = linesOf(source, base);
  const index = all.findIndex((line) => offset >= line.start && offset <= line.start + line.text.length);
  const line = all[index];
  if (!line) return undefined;
  const column = offset - line.start;
  const before = line.text.slice(0, column);
  let wordEnd = column;
  while (wordEnd < line.text.length && WORD.test(line.text.charAt(wordEnd))) wordEnd++;
  const indent = indentOf(line.text);
  const parent = parentOf(all, index, indent);
  const place: KeyPlace | undefined = parent === null ? "top" : parent === "metadata" ? "metadata" : undefined;
  if (place === undefined) return undefined;

  // Typing a key, or standing in the key of a line that has its colon already: a completion rewrites the key.
  const typingKey = /^ *([\w-]*)$/.exec(before);
  if (typingKey) {
    const start = line.start + column - (typingKey[1] ?? "").length;
    return { kind: "key", place, present: keysAt(all, indent, parent, index), range: lines.rangeOf(start, line.start + wordEnd) };
  }
  const typingValue = /^ *([^\s:#'"-][^:#]*?)[ \t]*:[ \t]+([\w-]*)$/.exec(before);
  if (typingValue?.[1] !== undefined) {
    const start = line.start + column - (typingValue[2] ?? "").length;
    return { kind: "value", key: typingValue[1], place, range: lines.rangeOf(start, line.start + wordEnd) };
  }
  return undefined;
}
