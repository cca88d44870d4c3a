/**
 * A SKILL.md frontmatter as plain values with their ranges, read from YAML: what the checker, completion and
 * hover work on. Keeping it apart from the YAML library's nodes lets a test or another parser build it too.
 */
import { isAlias, isMap, isScalar, isSeq, parseDocument, Scalar, type Node, type Pair } from "yaml";
import { DiagnosticCodes, type CoreDiagnostic } from "../diagnostics.js";
import { flowDepth, MAX_FLOW_DEPTH } from "../frontmatterBlock.js";
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
 * throws: a syntax error, a duplicate key or a frontmatter that is not a map becomes a diagnostic.
 */
export function readFrontmatter(source: string, base: number, lines: LineMap): ReadFrontmatter {
  const reader = new FrontmatterReader(source, base, lines);
  const firstLine = (): Range => lines.rangeOf(base, base + source.search(/\r|\n|$/));
  if (flowDepth(source) > MAX_FLOW_DEPTH) {
    return {
      entries: undefined,
      problems: [{ range: firstLine(), severity: "error", code: DiagnosticCodes.frontmatterSyntax, message: `Frontmatter YAML cannot be read: it nests lists or maps deeper than ${MAX_FLOW_DEPTH} levels.` }],
    };
  }
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
