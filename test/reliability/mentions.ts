/**
 * The mention rule of SPEC.md spelled out again for the tests, independently of server/src/core/mentions.ts,
 * so the reliability tests and the fuzz model do not take the server's word for what a mention is.
 *
 * An `@` starts a mention unless the character before it is a word character (a letter, mark, digit or `_`,
 * as in an e-mail address), a backslash (`\@` escapes it) or another `@`. The slug is the run of
 * `A-Za-z0-9-` after it. The run is a mention when it is kebab-shaped, at most 64 long and no word character
 * follows it; otherwise it is malformed (`@x-`, `@-x`, `@café`, `@x_y`). An `@` with no run after it is text.
 */

export interface FoundMention {
  /** Offset of the `@`. */
  readonly start: number;
  /** Offset after the slug. */
  readonly end: number;
  /** The slug as written. */
  readonly written: string;
  /** Lower-cased. */
  readonly slug: string;
}

const WORD = /^[\p{L}\p{M}\p{N}_]$/u;
const SLUG_RUN = /[A-Za-z0-9-]/;
const KEBAB = /^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/;

/** The whole code point that ends just before `offset` (a surrogate pair read as one). */
function codePointBefore(text: string, offset: number): string {
  const low = text.charCodeAt(offset - 1);
  const high = text.charCodeAt(offset - 2);
  if (low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff) return text.slice(offset - 2, offset);
  return text.charAt(offset - 1);
}

/** The whole code point that starts at `offset`. */
function codePointAt(text: string, offset: number): string {
  return String.fromCodePoint(text.codePointAt(offset) ?? 0);
}

/** The mentions and the malformed near-mentions in `text[from, to)`. */
export function findMentions(text: string, from = 0, to = text.length): { mentions: FoundMention[]; malformed: number[] } {
  const mentions: FoundMention[] = [];
  const malformed: number[] = [];
  let i = from;
  while (i < to) {
    if (text.charAt(i) !== "@") {
      i++;
      continue;
    }
    let end = i + 1;
    while (end < to && SLUG_RUN.test(text.charAt(end))) end++;
    if (end === i + 1) {
      i++;
      continue;
    }
    const before = i > 0 ? codePointBefore(text, i) : "";
    const glued = before === "\\" || before === "@" || WORD.test(before);
    if (!glued) {
      const written = text.slice(i + 1, end);
      const followedByWord = end < to && WORD.test(codePointAt(text, end));
      if (!followedByWord && written.length <= 64 && KEBAB.test(written)) mentions.push({ start: i, end, written, slug: written.toLowerCase() });
      else malformed.push(i);
    }
    i = end;
  }
  return { mentions, malformed };
}
