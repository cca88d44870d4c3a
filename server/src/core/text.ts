/** A zero-based line and UTF-16 character offset, the same shape as an LSP position. */
export interface Position {
  readonly line: number;
  readonly character: number;
}

/** A half-open span between two positions, the same shape as an LSP range. */
export interface Range {
  readonly start: Position;
  readonly end: Position;
}

/** Maps UTF-16 offsets of one text to line/character positions and back, in O(log lines). */
export class LineMap {
  readonly #lineStarts: number[];
  readonly #length: number;
  readonly #text: string;

  constructor(text: string) {
    const starts = [0];
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === 13 /* \r */) {
        if (text.charCodeAt(i + 1) === 10) i++;
        starts.push(i + 1);
      } else if (code === 10 /* \n */) {
        starts.push(i + 1);
      }
    }
    // Sized to the line count: the array grown by push would keep room for more lines in every file held.
    this.#lineStarts = starts.slice();
    this.#length = text.length;
    this.#text = text;
  }

  get lineCount(): number {
    return this.#lineStarts.length;
  }

  positionAt(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.#length));
    let low = 0;
    let high = this.#lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.#lineStarts[mid] ?? 0) <= clamped) low = mid;
      else high = mid - 1;
    }
    return { line: low, character: clamped - (this.#lineStarts[low] ?? 0) };
  }

  offsetAt(position: Position): number {
    if (position.line < 0) return 0;
    if (position.line >= this.#lineStarts.length) return this.#length;
    const start = this.#lineStarts[position.line] ?? 0;
    const next = this.#lineStarts[position.line + 1] ?? this.#length;
    let offset = Math.min(start + Math.max(0, position.character), next);
    // Past the line's end (or inside its CRLF) means the line's end, as in LSP: never the next line's start.
    while (offset > start && isLineBreak(this.#text.charCodeAt(offset - 1))) offset--;
    return offset;
  }

  rangeOf(start: number, end: number): Range {
    return { start: this.positionAt(start), end: this.positionAt(end) };
  }
}

function isLineBreak(code: number): boolean {
  return code === 10 || code === 13;
}

/** True when `position` lies inside `range`, both ends included (a cursor right after a word still touches it). */
export function rangeContains(range: Range, position: Position): boolean {
  return comparePositions(range.start, position) <= 0 && comparePositions(position, range.end) <= 0;
}

export function comparePositions(a: Position, b: Position): number {
  return a.line === b.line ? a.character - b.character : a.line - b.line;
}
