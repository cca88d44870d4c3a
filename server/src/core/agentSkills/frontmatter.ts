/**
 * A SKILL.md frontmatter as plain values with their ranges, read from YAML: what the checker, completion and
 * hover work on. Keeping it apart from the YAML library's nodes lets a test or another parser build it too.
 */
import { isAlias, isMap, isScalar, isSeq, parseDocument, Scalar, type Node, type Pair } from "yaml";
import { DiagnosticCodes, type CoreDiagnostic } from "../diagnostics.js";
import { everyLine, flowDepth, isSafePlainScalar, isYamlSpecial, MAX_FLOW_DEPTH } from "../frontmatterBlock.js";
import type { LineMap, Range } from "../text.js";

/** A frontmatter value: a scalar of YAML's core schema, a list or a map, with where it stands. */
export type FrontmatterValue =
  /** `quoted` for a string written in quotes or as a block: `"yes"` is a string, a plain `yes` a word. */
  | { readonly kind: "string"; readonly value: string; readonly quoted: boolean; readonly range: Range }
  | { readonly kind: "boolean"; readonly value: boolean; readonly range: Range }
  /** `text` as written: `1.0` reads as the number 1, which a version string should not become. */
  | { readonly kind: "number"; readonly value: number; readonly text: string; readonly range: Range }
  /** `key:` with nothing after it, or `null`/`~`. An empty range when nothing is written. */
  | { readonly kind: "null"; readonly range: Range }
  | { readonly kind: "list"; readonly items: readonly FrontmatterValue[]; readonly range: Range }
  | { readonly kind: "map"; readonly entries: readonly FrontmatterEntry[]; readonly range: Range }
  /** An alias (`*anchor`) or a tag the core schema has no type for. */
  | { readonly kind: "other"; readonly range: Range };

export interface FrontmatterEntry {
  readonly key: string;
  readonly keyRange: Range;
  readonly value: FrontmatterValue;
}

/** Converts the YAML library's nodes of one frontmatter to plain values; `base` is the offset of `source` in the file. */
export class FrontmatterReader {
  readonly #source: string;
  readonly #base: number;
  readonly #lines: LineMap;

  constructor(source: string, base: number, lines: LineMap) {
    this.#source = source;
    this.#base = base;
    this.#lines = lines;
  }

  /** The range of a node, its trailing line break and spaces left out (a block value's range takes them in). */
  rangeOf(node: Node | null | undefined, fallback: number): Range {
    const range = node?.range;
    if (!range) return this.#lines.rangeOf(this.#base + fallback, this.#base + fallback);
    let end = range[1];
    while (end > range[0] && /\s/.test(this.#source.charAt(end - 1))) end--;
    return this.#lines.rangeOf(this.#base + range[0], this.#base + end);
  }

  value(node: Node | null | undefined, fallback: number): FrontmatterValue {
    const range = this.rangeOf(node, fallback);
    if (node === null || node === undefined) return { kind: "null", range };
    if (isAlias(node)) return { kind: "other", range };
    if (isSeq(node)) return { kind: "list", items: (node.items as Node[]).map((item) => this.value(item, node.range?.[0] ?? fallback)), range };
    if (isMap(node)) return { kind: "map", entries: this.entries(node.items as Pair<Node, Node>[], node.range?.[0] ?? fallback), range };
    if (!isScalar(node)) return { kind: "other", range };
    const value: unknown = node.value;
    if (value === null) return { kind: "null", range };
    if (typeof value === "boolean") return { kind: "boolean", value, range };
    if (typeof value === "number") {
      const [from, to] = node.range ?? [fallback, fallback];
      return { kind: "number", value, text: this.#source.slice(from, to).trim(), range };
    }
    if (typeof value === "string") return { kind: "string", value, quoted: node.type !== Scalar.PLAIN, range };
    return { kind: "other", range };
  }

  entries(pairs: readonly Pair<Node, Node>[], fallback: number): FrontmatterEntry[] {
    const entries: FrontmatterEntry[] = [];
    for (const pair of pairs) {
      const keyNode = pair.key;
      // A key that is a list or a map (`? [a, b]: x`) names nothing a SKILL.md knows: left out.
      if (!isScalar(keyNode) || keyNode.value === null || typeof keyNode.value === "object") continue;
      const keyRange = this.rangeOf(keyNode, fallback);
      const keyEnd = keyNode.range?.[1] ?? fallback;
      entries.push({ key: String(keyNode.value), keyRange, value: this.value(pair.value, keyEnd) });
    }
    return entries;
  }
}

export interface ReadFrontmatter {
  /** The top-level entries, in the order written; undefined when the YAML cannot be read or is not a map. */
  readonly entries: readonly FrontmatterEntry[] | undefined;
  /** Syntax errors, or the frontmatter not being `key: value` lines. */
  readonly problems: readonly CoreDiagnostic[];
}

/**
 * Reads a frontmatter's YAML (the text between the fences, starting at offset `base` of the file). Never
 * throws: a syntax error, a duplicate key or a frontmatter that is not a map becomes a diagnostic. The usual
 * frontmatter is read without the YAML library ({@link readSimpleEntries}).
 */
export function readFrontmatter(source: string, base: number, lines: LineMap): ReadFrontmatter {
  if (flowDepth(source) > MAX_FLOW_DEPTH) {
    return {
      entries: undefined,
      problems: [
        {
          range: lines.rangeOf(base, base + source.search(/\r|\n|$/)),
          severity: "error",
          code: DiagnosticCodes.frontmatterSyntax,
          message: `Frontmatter YAML cannot be read: it nests lists or maps deeper than ${MAX_FLOW_DEPTH} levels.`,
        },
      ],
    };
  }
  const entries = readSimpleEntries(source, base, lines);
  return entries ? { entries, problems: [] } : readYamlFrontmatter(source, base, lines);
}

const SIMPLE_LINE = /^([A-Za-z][A-Za-z0-9_-]*):(?: +(.*?))? *$/;
const NESTED_LINE = /^( +)([A-Za-z][A-Za-z0-9_-]*): +(.*?) *$/;
const LIST_ITEM = /^( *)- +(.*?) *$/;

/** A line of a frontmatter's text: without its line break (or a `\r` before one), and its offset in the text. */
interface SourceLine {
  readonly text: string;
  readonly start: number;
}

/**
 * The usual frontmatter as entries without the YAML library (which costs more than the rest of a parse): lines of
 * `key: value` with distinct keys, each value plain text, a string in quotes (`'it''s'`, or `"…"` without a
 * backslash) or a list of those in brackets; a string may go on over indented lines. A key with nothing after it
 * may hold a list of such values (`- value` lines) or a map of them (`  key: value` lines, indented alike).
 * Undefined for anything else: values that YAML would read as another type or another text (comments, `true`,
 * numbers, escapes, block scalars, deeper nesting). Of the 8,227 SKILL.md frontmatters in
 * thereisnotime/skills-collection, 1,881 were plain or quoted lines only; 6,598 are taken here, each read as the
 * YAML library reads it.
 */
export function readSimpleEntries(source: string, base: number, lines: LineMap): FrontmatterEntry[] | undefined {
  const all: SourceLine[] = [];
  everyLine(source, (text, start) => {
    all.push({ text, start });
    return true;
  });
  const entries: FrontmatterEntry[] = [];
  const seen = new Set<string>();
  const rangeOf = (from: number, to: number) => lines.rangeOf(base + from, base + to);
  for (let i = 0; i < all.length; ) {
    const { text: line, start: lineStart } = all[i] as SourceLine;
    if (line === "") {
      i++;
      continue;
    }
    const match = SIMPLE_LINE.exec(line);
    const key = match?.[1];
    const written = match?.[2];
    // `True:` is the key "true" to YAML, and `null:` no key at all.
    if (key === undefined || seen.has(key) || isYamlSpecial(key)) return undefined;
    seen.add(key);
    const keyRange = rangeOf(lineStart, lineStart + key.length);
    if (written === undefined || written === "") {
      const block = readBlock(all, i + 1, rangeOf);
      if (block === undefined) return undefined;
      entries.push({ key, keyRange, value: block.value });
      i = block.next;
      continue;
    }
    const valueStart = lineStart + line.indexOf(written, key.length + 1);
    const read = readValue(all, i, written, valueStart, rangeOf);
    if (read === undefined) return undefined;
    entries.push({ key, keyRange, value: read.value });
    i = read.next;
  }
  return entries;
}

/**
 * The list or map that stands under a key with nothing after it, from line `from`: `- value` lines at one
 * indentation, or `key: value` lines at one indentation past the key's, each value on its line. Undefined for
 * anything else (nothing under the key, a value over several lines, a deeper level, a line indented otherwise).
 */
function readBlock(all: readonly SourceLine[], from: number, rangeOf: RangeOf): { value: FrontmatterValue; next: number } | undefined {
  let first = from;
  while (first < all.length && (all[first] as SourceLine).text === "") first++;
  const head = all[first];
  if (head === undefined) return undefined;
  const isList = LIST_ITEM.test(head.text);
  const indent = /^ */.exec(head.text)?.[0].length ?? 0;
  if (!isList && indent === 0) return undefined;
  const items: FrontmatterValue[] = [];
  const entries: FrontmatterEntry[] = [];
  const keys = new Set<string>();
  let end = head.start;
  let next = first;
  for (; next < all.length; next++) {
    const { text, start } = all[next] as SourceLine;
    if (text === "") continue;
    const match = (isList ? LIST_ITEM : NESTED_LINE).exec(text);
    if (!match || (match[1] ?? "").length !== indent) {
      // The block ends at the next key of the frontmatter; any other line is a shape left to YAML.
      if (/^[^ ]/.test(text) && !(isList && indent === 0 && text.startsWith("-"))) break;
      return undefined;
    }
    const written = (isList ? match[2] : match[3]) ?? "";
    const valueStart = start + text.lastIndexOf(written);
    const scalar = written === "" || !printable(written) ? undefined : isList ? stringValue(written, valueStart, rangeOf) : inlineValue(written, valueStart, rangeOf);
    if (scalar === undefined) return undefined;
    end = valueStart + written.length;
    if (isList) {
      items.push(scalar);
      continue;
    }
    const key = match[2] ?? "";
    if (keys.has(key) || isYamlSpecial(key)) return undefined;
    keys.add(key);
    entries.push({ key, keyRange: rangeOf(start + indent, start + indent + key.length), value: scalar });
  }
  const range = rangeOf(head.start + indent, end);
  return { value: isList ? { kind: "list", items, range } : { kind: "map", entries, range }, next };
}

/**
 * The value written from `written` on line `at` (at `valueStart` of the source): a string or a list in brackets on
 * its line, or a string that goes on over the indented lines after it (quoted, or plain words), folded as YAML
 * folds them: a line break between two lines is a space, each empty line between them a line break. Undefined
 * for anything else.
 */
function readValue(all: readonly SourceLine[], at: number, written: string, valueStart: number, rangeOf: RangeOf): { value: FrontmatterValue; next: number } | undefined {
  if (!printable(written)) return undefined;
  const quote = written.charAt(0);
  if (quote === "'" || quote === '"') {
    const single = stringValue(written, valueStart, rangeOf);
    if (single) return { value: single, next: at + 1 };
    // Open on its first line: no closing quote there, nor a backslash in double quotes.
    if (closingQuote(written, 1, quote) !== -1) return undefined;
    return readQuotedLines(all, at, quote, written.slice(1).replace(/[ \t]+$/, ""), valueStart, rangeOf);
  }
  const inline = inlineValue(written, valueStart, rangeOf);
  if (inline === undefined || inline.kind !== "string") return inline && { value: inline, next: at + 1 };
  // Plain words: the indented lines after them continue them.
  const parts = [written];
  let end = valueStart + written.length;
  let emptyLines = 0;
  let next = at + 1;
  for (let line = at + 1; line < all.length; line++) {
    const { text, start } = all[line] as SourceLine;
    if (/^ *$/.test(text)) {
      emptyLines++;
      continue;
    }
    if (text.charCodeAt(0) !== 32 /* space */) break;
    const content = text.replace(/^ +| +$/g, "");
    if (!isSafePlainScalar(content) || !printable(content)) return undefined;
    parts.push(emptyLines === 0 ? " " : "\n".repeat(emptyLines), content);
    emptyLines = 0;
    end = start + text.indexOf(content) + content.length;
    next = line + 1;
  }
  return { value: { kind: "string", value: parts.join(""), quoted: false, range: rangeOf(valueStart, end) }, next };
}

type RangeOf = (from: number, to: number) => Range;

/** A quoted string left open on line `at` (`first`: its text there): its lines up to the closing quote, each indented. */
function readQuotedLines(all: readonly SourceLine[], at: number, quote: string, first: string, valueStart: number, rangeOf: RangeOf): { value: FrontmatterValue; next: number } | undefined {
  const parts: string[] = [first];
  let emptyLines = 0;
  for (let next = at + 1; next < all.length; next++) {
    const { text, start } = all[next] as SourceLine;
    if (/^ *$/.test(text)) {
      emptyLines++;
      continue;
    }
    const indent = /^ */.exec(text)?.[0].length ?? 0;
    if (indent === 0 || text.charAt(indent) === "\t" || !printable(text)) return undefined;
    const close = closingQuote(text, indent, quote);
    if (close === -2) return undefined;
    const content = close === -1 ? text.slice(indent).replace(/[ \t]+$/, "") : text.slice(indent, close);
    parts.push(emptyLines === 0 ? " " : "\n".repeat(emptyLines), content);
    emptyLines = 0;
    if (close === -1) continue;
    if (text.slice(close + 1).trim() !== "") return undefined;
    const inner = parts.join("");
    return { value: { kind: "string", value: quote === "'" ? inner.replaceAll("''", "'") : inner, quoted: true, range: rangeOf(valueStart, start + close + 1) }, next: next + 1 };
  }
  return undefined;
}

/** A value on its line: a string (plain or quoted) or a list of them in brackets (`[a, 'b c']`); undefined for anything else. */
function inlineValue(written: string, valueStart: number, rangeOf: RangeOf): FrontmatterValue | undefined {
  return written.charAt(0) === "[" ? bracketList(written, valueStart, rangeOf) : stringValue(written, valueStart, rangeOf);
}

/** A string on its line, plain or quoted ({@link stringOf}), standing at `valueStart`; undefined for anything else. */
function stringValue(written: string, valueStart: number, rangeOf: RangeOf): FrontmatterValue | undefined {
  const value = stringOf(written);
  return value === undefined ? undefined : { kind: "string", value, quoted: written !== value, range: rangeOf(valueStart, valueStart + written.length) };
}

/** `[a, 'b c']` on one line: plain words or quoted strings, parted by commas. Undefined for anything else (nesting, an empty item). */
function bracketList(written: string, valueStart: number, rangeOf: RangeOf): FrontmatterValue | undefined {
  if (!written.endsWith("]")) return undefined;
  const items: FrontmatterValue[] = [];
  const close = written.length - 1;
  let at = 1;
  const skipSpaces = () => {
    while (written.charCodeAt(at) === 32) at++;
  };
  skipSpaces();
  while (at < close) {
    const quote = written.charAt(at);
    let stop: number;
    if (quote === "'" || quote === '"') {
      const end = closingQuote(written, at + 1, quote);
      if (end < 0) return undefined;
      stop = end + 1;
    } else {
      stop = at;
      while (stop < close && !",[]{}".includes(written.charAt(stop))) stop++;
      while (stop > at && written.charCodeAt(stop - 1) === 32) stop--;
    }
    const item = stringValue(written.slice(at, stop), valueStart + at, rangeOf);
    if (item === undefined || item.kind !== "string" || /[,[\]{}]/.test(item.quoted ? "" : item.value)) return undefined;
    items.push(item);
    at = stop;
    skipSpaces();
    if (at === close) break;
    if (written.charAt(at) !== ",") return undefined;
    at++;
    skipSpaces();
    if (at === close) return undefined;
  }
  return { kind: "list", items, range: rangeOf(valueStart, valueStart + written.length) };
}

/**
 * Where `quote` closes a string on a continued line, from `from`: its offset, -1 when the line has none, -2 for
 * a line this reader does not take (a backslash in double quotes).
 */
function closingQuote(text: string, from: number, quote: string): number {
  if (quote === '"') {
    if (text.includes("\\")) return -2;
    return text.indexOf('"', from);
  }
  // In single quotes a quote is written twice; a lone one closes the string.
  for (let at = text.indexOf("'", from); at !== -1; at = text.indexOf("'", at + 2)) if (text.charAt(at + 1) !== "'") return at;
  return -1;
}

/** The string a value written on one line stands for, plain or quoted; undefined for anything else. */
function stringOf(written: string): string | undefined {
  const quote = written.charAt(0);
  if (quote !== "'" && quote !== '"') return isSafePlainScalar(written) ? written : undefined;
  if (written.length < 2 || !written.endsWith(quote)) return undefined;
  const inner = written.slice(1, -1);
  if (quote === '"') return inner.includes('"') || inner.includes("\\") ? undefined : inner;
  // In single quotes a quote is written twice; a lone one ends the string before its last quote.
  for (let at = inner.indexOf("'"); at !== -1; at = inner.indexOf("'", at + 2)) if (inner.charAt(at + 1) !== "'") return undefined;
  return inner.replaceAll("''", "'");
}

/** No character YAML may refuse or read otherwise in a scalar (controls other than a tab, a lone carriage return, a byte-order mark). */
function printable(text: string): boolean {
  return !/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufeff]/.test(text);
}

/** {@link readFrontmatter} by the YAML library alone (exported for the test that compares the two readings). */
export function readYamlFrontmatter(source: string, base: number, lines: LineMap): ReadFrontmatter {
  const reader = new FrontmatterReader(source, base, lines);
  const document = parseDocument(source, { uniqueKeys: true, prettyErrors: false, strict: true });
  if (document.errors.length > 0) {
    const contentEnd = source.trimEnd().length;
    const problems = document.errors.map((error): CoreDiagnostic => {
      let [from, to] = error.pos;
      if (from >= contentEnd) {
        // An error at the end of the input (an unclosed quote): point at the last line of YAML, not past it.
        to = contentEnd;
        from = Math.min(to, source.lastIndexOf("\n", Math.max(0, contentEnd - 1)) + 1);
      }
      const first = (error.message.split("\n")[0] ?? error.message).trim();
      return {
        range: lines.rangeOf(base + from, base + Math.min(to, source.length)),
        severity: "error",
        code: DiagnosticCodes.frontmatterSyntax,
        message: `Frontmatter YAML: ${first}${/[.?!]$/.test(first) ? "" : "."}`,
      };
    });
    return { entries: undefined, problems };
  }
  const contents = document.contents;
  if (contents === null || (isScalar(contents) && contents.value === null)) return { entries: [], problems: [] };
  if (!isMap(contents)) {
    return {
      entries: undefined,
      problems: [{ range: reader.rangeOf(contents, 0), severity: "error", code: DiagnosticCodes.frontmatterType, message: "The frontmatter must be `key: value` lines (name, description, …)." }],
    };
  }
  return { entries: reader.entries(contents.items as Pair<Node, Node>[], 0), problems: [] };
}

/** The entry of `key` among `entries`, or undefined. */
export function entryOf(entries: readonly FrontmatterEntry[], key: string): FrontmatterEntry | undefined {
  return entries.find((entry) => entry.key === key);
}
