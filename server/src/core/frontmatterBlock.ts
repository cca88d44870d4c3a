import { DiagnosticCodes, type CoreDiagnostic } from "./diagnostics.js";
import type { LineMap, Range } from "./text.js";

/** Where a skill's frontmatter stands in its text, the same for every skill format. */
export type FrontmatterBlock =
  | { readonly kind: "none"; readonly bodyStart: number }
  | { readonly kind: "unclosed"; readonly bodyStart: number; readonly problem: CoreDiagnostic }
  | { readonly kind: "closed"; readonly contentStart: number; readonly contentEnd: number; readonly bodyStart: number; readonly range: Range };

const OPENING_FENCE = /^---[ \t]*(?:\r\n|\r|\n|$)/;
const CLOSING_FENCE = /^(?:---|\.\.\.)[ \t]*$/m;

/** Finds the `---` fenced frontmatter at the start of a text (after a byte-order mark, if any). */
export function findFrontmatter(text: string, lines: LineMap): FrontmatterBlock {
  const fences = locateFences(text);
  if (fences.kind === "none") return { kind: "none", bodyStart: fences.start };
  const { start, contentStart } = fences;
  if (fences.kind === "unclosed") {
    const problem: CoreDiagnostic = {
      range: lines.rangeOf(start, start + 3),
      severity: "error",
      code: DiagnosticCodes.frontmatterUnclosed,
      message: "The frontmatter is not closed: add a line with --- after its last key.",
    };
    return { kind: "unclosed", bodyStart: contentStart, problem };
  }
  return { kind: "closed", contentStart, contentEnd: fences.contentEnd, bodyStart: fences.bodyStart, range: lines.rangeOf(start, fences.bodyStart) };
}

/** Where a closed frontmatter ends (its closing fence's line break included), or undefined when the text has none or it is unclosed. */
export function closedFrontmatterEnd(text: string): number | undefined {
  const fences = locateFences(text);
  return fences.kind === "closed" ? fences.bodyStart : undefined;
}

type Fences =
  | { readonly kind: "none"; readonly start: number }
  | { readonly kind: "unclosed"; readonly start: number; readonly contentStart: number }
  | { readonly kind: "closed"; readonly start: number; readonly contentStart: number; readonly contentEnd: number; readonly bodyStart: number };

function locateFences(text: string): Fences {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const opening = OPENING_FENCE.exec(text.slice(start, start + 8));
  if (!opening) return { kind: "none", start };
  const contentStart = start + opening[0].length;
  const closing = CLOSING_FENCE.exec(text.slice(contentStart));
  if (!closing) return { kind: "unclosed", start, contentStart };
  const contentEnd = contentStart + closing.index;
  let fenceEnd = contentEnd + closing[0].length;
  if (text.charAt(fenceEnd) === "\r") fenceEnd++;
  if (text.charAt(fenceEnd) === "\n") fenceEnd++;
  return { kind: "closed", start, contentStart, contentEnd, bodyStart: fenceEnd };
}

/** Frontmatter nests lists and maps a level or two; past this the YAML library is not asked (it slows down per level, then overflows the stack). */
export const MAX_FLOW_DEPTH = 64;

/** The deepest nesting of `[` and `{` in a text, quotes not considered: an overestimate, which is the safe side. */
export function flowDepth(source: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < source.length; i++) {
    const code = source.charCodeAt(i);
    if (code === 91 /* [ */ || code === 123 /* { */) deepest = Math.max(deepest, ++depth);
    else if ((code === 93 /* ] */ || code === 125) /* } */ && depth > 0) depth--;
  }
  return deepest;
}

/** Plain scalars that YAML's core schema reads as something other than a string (or as a boolean). */
const YAML_SPECIAL = /^(?:true|True|TRUE|false|False|FALSE|null|Null|NULL|~|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|[-+]?(?:[0-9][0-9_]*)?\.?[0-9_]*(?:[eE][-+]?[0-9]+)?|0x[0-9a-fA-F]+|0o[0-7]+)$/;

/** True for a word YAML's core schema reads as something other than the string it shows (`true`, `Null`, `~`, `1e3`). */
export function isYamlSpecial(value: string): boolean {
  return YAML_SPECIAL.test(value);
}

/** True for a value that YAML reads as the same plain string it shows (no quotes, flow, comments or special words). */
export function isSafePlainScalar(value: string): boolean {
  if (/^[-?:,[\]{}#&*!|>'"%@`\s]/.test(value)) return false;
  if (value.includes(": ") || value.includes(" #") || value.includes("\t") || value.endsWith(":")) return false;
  return !YAML_SPECIAL.test(value);
}

/**
 * Calls `visit` with each line of a frontmatter's text (without its line break, or a `\r` before one) and the
 * line's offset in the text, until `visit` answers false; answers false then, else true.
 */
export function everyLine(source: string, visit: (line: string, offset: number) => boolean): boolean {
  for (let lineStart = 0; lineStart < source.length; ) {
    let lineEnd = source.indexOf("\n", lineStart);
    if (lineEnd === -1) lineEnd = source.length;
    if (!visit(source.slice(lineStart, lineEnd).replace(/\r$/, ""), lineStart)) return false;
    lineStart = lineEnd + 1;
  }
  return true;
}
