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

/**
 * The usual frontmatter as entries without the YAML library (which costs more than the rest of a parse): lines of
 * `key: value` with distinct keys, each value plain text or a string in quotes on its line (`'it''s'`, or `"…"`
 * without a backslash); undefined for anything else. Values that YAML would read as another type or another text
 * (flow, comments, `true`, numbers, escapes, a string over several lines) are not taken. Of the 8,245 SKILL.md
 * frontmatters in thereisnotime/skills-collection, 1,424 are plain lines only and 1,896 plain or quoted lines.
 */
export function readSimpleEntries(source: string, base: number, lines: LineMap): FrontmatterEntry[] | undefined {
  const entries: FrontmatterEntry[] = [];
  const seen = new Set<string>();
  const read = everyLine(source, (line, lineStart) => {
    if (line === "") return true;
    const match = SIMPLE_LINE.exec(line);
    const key = match?.[1];
    const written = match?.[2];
    // `True:` is the key "true" to YAML, and `null:` no key at all.
    if (key === undefined || written === undefined || written === "" || seen.has(key) || isYamlSpecial(key) || !printable(written)) return false;
    seen.add(key);
    const value = stringOf(written);
    if (value === undefined) return false;
    const offset = base + lineStart;
    const start = offset + line.indexOf(written, key.length + 1);
    entries.push({ key, keyRange: lines.rangeOf(offset, offset + key.length), value: { kind: "string", value, quoted: written !== value, range: lines.rangeOf(start, start + written.length) } });
    return true;
  });
  return read ? entries : undefined;
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
