/**
 * Where a Markdown text is prose. Every sigil the project reads (`@mention` and the others) is looked for in
 * prose only: never in a fenced code block, never inside a URL or a path. These are the shared pieces; the
 * mention scanner in mentions.ts is built on them, and any other sigil should be too, so that every feature
 * agrees on what is a reference.
 */

/** A half-open span of UTF-16 offsets `[start, end)`. */
export interface TextSpan {
  readonly start: number;
  readonly end: number;
}

/** A fenced code block: its lines from the opening fence's line start to just after its last line's break. */
export interface CodeFence extends TextSpan {
  /** False when the text (or the list item or block quote holding the fence) ends before a closing fence. */
  readonly closed: boolean;
}

const SPACE = 32;
const TAB = 9;
const LF = 10;
const CR = 13;
const GT = 62;
const BACKTICK = 96;
const TILDE = 126;
const SLASH = 47;

/** The columns and offset after a run of spaces and tabs from `at` (a tab goes to the next multiple of 4). */
function skipIndent(text: string, at: number, end: number, column: number): { at: number; column: number } {
  while (at < end) {
    const code = text.charCodeAt(at);
    if (code === SPACE) column++;
    else if (code === TAB) column += 4 - (column % 4);
    else break;
    at++;
  }
  return { at, column };
}

/** A line with its block quote markers removed (up to `maxDepth` of them). Columns count from the line's start. */
interface LineShape {
  /** Block quote markers (`>`) in front of the content. */
  readonly depth: number;
  /** Offset of the first character after the markers and the indentation. */
  readonly contentAt: number;
  /** Column of `contentAt`. */
  readonly column: number;
  /** Column where the innermost block quote's content starts (0 outside block quotes). */
  readonly base: number;
  readonly blank: boolean;
}

function shapeOf(text: string, start: number, end: number, maxDepth: number): LineShape {
  let at = start;
  let column = 0;
  let depth = 0;
  let base = 0;
  for (;;) {
    const lead = skipIndent(text, at, end, column);
    if (depth < maxDepth && lead.column - base <= 3 && text.charCodeAt(lead.at) === GT) {
      depth++;
      at = lead.at + 1;
      column = lead.column + 1;
      // One column of white space after `>` belongs to the marker (a tab gives the rest of its width to the content).
      base = column + 1;
      continue;
    }
    return { depth, contentAt: lead.at, column: Math.max(lead.column, base), base, blank: lead.at >= end };
  }
}

/** The opening fence at `at` (three or more backticks or tildes; a backtick fence's info has no backtick). */
function openingFence(text: string, at: number, end: number): { char: number; length: number } | undefined {
  const char = text.charCodeAt(at);
  if (char !== BACKTICK && char !== TILDE) return undefined;
  let stop = at;
  while (stop < end && text.charCodeAt(stop) === char) stop++;
  const length = stop - at;
  if (length < 3) return undefined;
  if (char === BACKTICK && text.slice(stop, end).includes("`")) return undefined;
  return { char, length };
}

function isClosingFence(text: string, at: number, end: number, char: number, length: number): boolean {
  let stop = at;
  while (stop < end && text.charCodeAt(stop) === char) stop++;
  if (stop - at < length) return false;
  return skipIndent(text, stop, end, 0).at >= end;
}

/** True when a line that follows paragraph text continues it: it starts no list item, fence, quote or heading. */
function isLazyLine(text: string, at: number, end: number): boolean {
  const code = text.charCodeAt(at);
  if (code === GT || code === 35 /* # */) return false;
  if (openingFence(text, at, end)) return false;
  return listMarkerLength(text, at, end) === 0;
}

/**
 * The length of the list marker at `at` (`-`, `+`, `*`, or one to nine digits and `.` or `)`, then a space, a
 * tab or the line's end), 0 for none. Read a character at a time: a regular expression on a slice made two
 * objects for each line of a real library's lists.
 */
function listMarkerLength(text: string, at: number, end: number): number {
  const code = text.charCodeAt(at);
  let stop = at + 1;
  if (isDigit(code)) {
    while (stop < end && stop - at < 9 && isDigit(text.charCodeAt(stop))) stop++;
    const delimiter = text.charCodeAt(stop);
    if (stop >= end || (delimiter !== 46 /* . */ && delimiter !== 41) /* ) */) return 0;
    stop++;
  } else if (code !== 45 && code !== 43 && code !== 42) return 0;
  if (stop > end) return 0;
  const after = text.charCodeAt(stop);
  return stop === end || after === SPACE || after === TAB ? stop - at : 0;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * The fenced code blocks of `text[from, to)`, read as a CommonMark document that starts at `from`: backtick
 * and tilde fences of three or more, indented up to three spaces (within a list item, past its content
 * column), closed by a fence of the same character at least as long; a fence left open runs to the end of the
 * text, or of the list item or block quote that holds it. Indented code blocks are not looked for.
 */
export function codeFences(text: string, from = 0, to = text.length): CodeFence[] {
  const fences: CodeFence[] = [];
  // Most texts have no fence at all: answer without walking their lines.
  const firstTicks = text.indexOf("```", from);
  const firstTildes = text.indexOf("~~~", from);
  if ((firstTicks === -1 || firstTicks >= to) && (firstTildes === -1 || firstTildes >= to)) return fences;

  /** Content columns of the open list items, innermost last, at `listDepth` block quote markers. */
  let lists: number[] = [];
  let listDepth = 0;
  /** A list item whose first line is blank: a blank line next ends it. */
  let emptyItem = false;
  /** The last line was paragraph text, which a lazy continuation line may extend. */
  let paragraph = false;
  let open: { start: number; char: number; length: number; depth: number; column: number } | undefined;

  // Nearly every text breaks its lines with `\n` alone: `indexOf` finds each break many times faster than a
  // loop over every character (reference files of a real library are megabytes of code blocks).
  const crAt = text.indexOf("\r", from);
  const lineFeedsOnly = crAt === -1 || crAt >= to;
  // The next ``` and ~~~ at or after the line being read (-1: none left), each searched again once passed.
  let nextTicks = firstTicks;
  let nextTildes = firstTildes;
  let lineStart = from;
  while (lineStart < to) {
    if (!open && lineFeedsOnly) {
      // Outside a fence only a line holding ``` or ~~~ can open one, and a line that opens one at its very start
      // does so whatever came before it: it leaves every list and quote and interrupts a paragraph, so reading it
      // sets every state below afresh. The lines up to it are passed over in one search rather than read for
      // their lists and quotes: on a real library's 31,949 Markdown files, mostly prose between fences, this
      // took codeFences from 328-567 ms to 185-247 ms.
      if (nextTicks !== -1 && nextTicks < lineStart) nextTicks = text.indexOf("```", lineStart);
      if (nextTildes !== -1 && nextTildes < lineStart) nextTildes = text.indexOf("~~~", lineStart);
      const marker = nextTicks === -1 ? nextTildes : nextTildes === -1 ? nextTicks : Math.min(nextTicks, nextTildes);
      // No fence opens after the last marker.
      if (marker === -1 || marker >= to) break;
      const markerLine = text.lastIndexOf("\n", marker - 1) + 1;
      if (markerLine === marker && markerLine > lineStart) {
        const markerLineEnd = text.indexOf("\n", marker);
        if (openingFence(text, marker, markerLineEnd === -1 || markerLineEnd > to ? to : markerLineEnd)) lineStart = markerLine;
      }
    }
    let lineEnd: number;
    if (lineFeedsOnly) {
      lineEnd = text.indexOf("\n", lineStart);
      if (lineEnd === -1 || lineEnd > to) lineEnd = to;
    } else {
      lineEnd = lineStart;
      while (lineEnd < to && text.charCodeAt(lineEnd) !== LF && text.charCodeAt(lineEnd) !== CR) lineEnd++;
    }
    let next = lineEnd;
    if (next < to) next += text.charCodeAt(next) === CR && next + 1 < to && text.charCodeAt(next + 1) === LF ? 2 : 1;

    if (open && open.depth === 0 && open.column === 0 && lineFeedsOnly) {
      // In a fence outside any quote or list, only a line of at most three spaces and then three of the fence's
      // characters can close it: the code up to the next such line is passed over in one search, not line by line.
      const candidate = nextFenceLine(text, lineStart, to, open.char);
      if (candidate !== lineStart) {
        lineStart = candidate;
        continue;
      }
    } else if (open && open.depth === 0 && open.column === 0) {
      // The same, a line at a time, where lines may break at a lone `\r`.
      let at = lineStart;
      while (at < lineEnd && at - lineStart < 4 && text.charCodeAt(at) === SPACE) at++;
      if (at - lineStart > 3 || text.charCodeAt(at) !== open.char || at >= lineEnd) {
        lineStart = next;
        continue;
      }
    }

    if (open) {
      const shape = shapeOf(text, lineStart, lineEnd, open.depth);
      const leftContainer = shape.depth < open.depth || (!shape.blank && shape.column < open.column);
      if (leftContainer) {
        fences.push({ start: open.start, end: lineStart, closed: false });
        open = undefined;
        // This line is read again below as an ordinary line.
      } else {
        if (shape.column - open.column <= 3 && isClosingFence(text, shape.contentAt, lineEnd, open.char, open.length)) {
          fences.push({ start: open.start, end: next, closed: true });
          open = undefined;
          paragraph = false;
        }
        lineStart = next;
        continue;
      }
    }

    const shape = shapeOf(text, lineStart, lineEnd, Number.MAX_SAFE_INTEGER);
    if (shape.depth !== listDepth) {
      lists = [];
      listDepth = shape.depth;
    }
    if (shape.blank) {
      if (emptyItem) lists.pop();
      emptyItem = false;
      paragraph = false;
    } else if (paragraph && shape.depth === listDepth && isLazyLine(text, shape.contentAt, lineEnd)) {
      // A paragraph's continuation line stays in its list item whatever its indentation.
      emptyItem = false;
    } else {
      emptyItem = false;
      while (lists.length > 0 && (lists[lists.length - 1] ?? 0) > shape.column) lists.pop();
      let base = lists[lists.length - 1] ?? shape.base;
      let at = shape.contentAt;
      let column = shape.column;
      // A list marker opens an item whose content starts after it; a fence may follow on the same line.
      for (let guard = 0; guard < 8 && column - base <= 3; guard++) {
        const markerLength = listMarkerLength(text, at, lineEnd);
        if (markerLength === 0) break;
        const markerEnd = column + markerLength;
        const gap = skipIndent(text, at + markerLength, lineEnd, markerEnd);
        const blankItem = gap.at >= lineEnd;
        const contentColumn = blankItem || gap.column - markerEnd > 4 ? markerEnd + 1 : gap.column;
        lists.push(contentColumn);
        emptyItem = blankItem;
        base = contentColumn;
        at = blankItem || gap.column - markerEnd > 4 ? at + markerLength + 1 : gap.at;
        column = Math.max(contentColumn, blankItem ? contentColumn : gap.column);
        if (blankItem) break;
      }
      if (column - base <= 3 && at < lineEnd) {
        const fence = openingFence(text, at, lineEnd);
        if (fence) open = { start: lineStart, char: fence.char, length: fence.length, depth: shape.depth, column: base };
      }
      paragraph = !open && at < lineEnd && text.charCodeAt(at) !== 35 /* # */;
    }
    lineStart = next;
  }
  if (open) fences.push({ start: open.start, end: to, closed: false });
  return fences;
}

/**
 * The start of the first line at or after `from` (a line's start, in a text whose lines break at `\n`) that
 * holds at most three spaces and then three `char`s, or `to` when none does before it: where a fence outside any
 * quote or list may close.
 */
function nextFenceLine(text: string, from: number, to: number, char: number): number {
  const marker = char === BACKTICK ? "```" : "~~~";
  let at = text.indexOf(marker, from);
  while (at !== -1 && at < to) {
    const lineStart = text.lastIndexOf("\n", at - 1) + 1;
    let indent = lineStart;
    while (indent < at && text.charCodeAt(indent) === SPACE) indent++;
    if (indent === at && at - lineStart <= 3) return lineStart;
    const lineEnd = text.indexOf("\n", at);
    if (lineEnd === -1 || lineEnd >= to) return to;
    at = text.indexOf(marker, lineEnd + 1);
  }
  return to;
}

/** The spans of `text[from, to)` outside its fenced code blocks (`fences`, when the caller has them), in order. */
export function proseRegions(text: string, from = 0, to = text.length, fences: readonly CodeFence[] = codeFences(text, from, to)): TextSpan[] {
  const regions: TextSpan[] = [];
  let cursor = from;
  for (const fence of fences) {
    if (fence.start > cursor) regions.push({ start: cursor, end: fence.start });
    cursor = fence.end;
  }
  if (cursor < to) regions.push({ start: cursor, end: to });
  return regions;
}

/** True when `offset` lies in one of `fences`, or of any spans in order (a span's first character included, its end excluded). */
export function isInFence(fences: readonly TextSpan[], offset: number): boolean {
  let low = 0;
  let high = fences.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const fence = fences[mid];
    if (!fence) break;
    if (offset < fence.start) high = mid - 1;
    else if (offset >= fence.end) low = mid + 1;
    else return true;
  }
  return false;
}

/**
 * The inline code spans of `text[from, to)` (a prose region): a run of backticks up to the next run of the same
 * length, within one paragraph (a blank line ends the search); a run with no partner is literal text, and a
 * backslash before a backtick escapes it. Each span covers its backticks.
 */
export function codeSpans(text: string, from = 0, to = text.length): TextSpan[] {
  const spans: TextSpan[] = [];
  let at = text.indexOf("`", from);
  while (at !== -1 && at < to) {
    let stop = at;
    while (stop < to && text.charCodeAt(stop) === BACKTICK) stop++;
    if (at > from && text.charCodeAt(at - 1) === 0x5c /* \ */ && !isEscaped(text, at - 1, from)) {
      at = text.indexOf("`", at + 1);
      continue;
    }
    const length = stop - at;
    const close = closingRun(text, stop, to, length);
    if (close === -1) {
      at = text.indexOf("`", stop);
      continue;
    }
    spans.push({ start: at, end: close + length });
    at = text.indexOf("`", close + length);
  }
  return spans;
}

/** True when the backslash at `at` is itself escaped by an odd run of backslashes before it. */
function isEscaped(text: string, at: number, from: number): boolean {
  let count = 0;
  for (let i = at - 1; i >= from && text.charCodeAt(i) === 0x5c; i--) count++;
  return count % 2 === 1;
}

/** The start of the next run of exactly `length` backticks after `from`, before a blank line or `to`; -1 when none. */
function closingRun(text: string, from: number, to: number, length: number): number {
  let at = from;
  while (at < to) {
    const code = text.charCodeAt(at);
    if (code === BACKTICK) {
      let stop = at;
      while (stop < to && text.charCodeAt(stop) === BACKTICK) stop++;
      if (stop - at === length) return at;
      at = stop;
      continue;
    }
    if (code === LF || code === CR) {
      // A blank line ends the paragraph, and the span with it.
      let next = at + 1;
      if (code === CR && text.charCodeAt(next) === LF) next++;
      const lead = skipIndent(text, next, to, 0).at;
      if (lead >= to || text.charCodeAt(lead) === LF || text.charCodeAt(lead) === CR) return -1;
      at = next;
      continue;
    }
    at++;
  }
  return -1;
}

/** Characters that end a URL or a path going backwards: white space, and what usually opens one in prose. */
export function isTokenBoundary(code: number): boolean {
  return (
    code === SPACE || code === TAB || code === LF || code === CR || code === 0x28 /* ( */ || code === 0x5b /* [ */ ||
    code === 0x3c /* < */ || code === 0x22 /* " */ || code === 0x27 /* ' */ || code === BACKTICK || code === 0x7b /* { */ ||
    code === 0xa0 || code === 0x3000
  );
}

/**
 * True when the character at `at` is inside a URL or a path: a `/` comes before it in the same token (a run
 * of text without white space or an opening bracket or quote). So the `@` of `https://x.com/@me`, `~/@scratch`,
 * `./@x` and `a/@b` is in one; the `@` of `(@x)` or `see @x` is not. `from` bounds the look back.
 */
export function isInUrlOrPath(text: string, at: number, from = 0): boolean {
  for (let i = at - 1; i >= from; i--) {
    const code = text.charCodeAt(i);
    if (code === SLASH) return true;
    if (isTokenBoundary(code)) return false;
  }
  return false;
}

/** Characters of an npm-style scope name (`@scope/…`): wider than a slug, so `@my_org/x` is a scope too. */
function isScopeChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) ||
    code === 45 || code === 46 || code === 95 || code === 126
  );
}

/**
 * True when the sigil at `at` starts a package scope or a qualified name rather than a reference: the name
 * after it is followed by `/` (`@types/node`, `@vscode/test-electron`) or by `.` and a letter or digit
 * (`@app.route`, `@pytest.fixture`, a file `@notes.md`).
 */
export function isScopedOrQualified(text: string, at: number, to = text.length): boolean {
  let end = at + 1;
  while (end < to && isScopeChar(text.charCodeAt(end))) end++;
  if (end === at + 1) return false;
  if (end < to && text.charCodeAt(end) === SLASH) return true;
  // Inside the run: a dot followed by more name characters.
  for (let i = at + 1; i < end - 1; i++) {
    if (text.charCodeAt(i) === 46 && i > at + 1) {
      const after = text.charCodeAt(i + 1);
      if (after !== 46 && after !== 45) return true;
    }
  }
  return false;
}

/**
 * True when a sigil at `at` stands in prose: outside the fenced code of `text[from, …)` (a skill's body starts
 * at `from`; its frontmatter is no Markdown) and not inside a URL or a path. Completion asks this before it
 * offers anything.
 */
export function isProseAt(text: string, at: number, from = 0): boolean {
  if (at >= from && isInFence(codeFences(text, from), at)) return false;
  return !isInUrlOrPath(text, at);
}
