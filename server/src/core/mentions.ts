import { codeSpans, isScopedOrQualified, isTokenBoundary, proseRegions, type CodeFence, type TextSpan } from "./prose.js";
import { MAX_HANDLE_LENGTH } from "./slug.js";
import { internedSlice } from "./text.js";

/** One `@slug` token in a text: offsets cover the `@` and the slug. */
export interface MentionToken {
  /** The slug as written (case preserved); for a mention, the one shared copy (see internedSlice). */
  readonly written: string;
  /** The slug's lookup key: lower-cased. */
  readonly slug: string;
  /** Offset of the `@`. */
  readonly start: number;
  /** Offset just after the slug. */
  readonly end: number;
  /**
   * The mention is a whole inline code span (`` `@search-info` ``). It is a reference when it names something;
   * one that names nothing is taken as code: never diagnosed, coloured as dangling, escaped or refused.
   */
  readonly inCode: boolean;
}

/** An `@` followed by something that looks like a slug but is not one (`@-x`, `@x-`, `@café`). */
export interface MalformedMention {
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

export interface MentionScan {
  readonly mentions: MentionToken[];
  readonly malformed: MalformedMention[];
}

const WORD_CHAR = /[\p{L}\p{M}\p{N}_]/u;

/** A slug's shape (letters and digits in groups joined by single hyphens) for `text[start, end)`, a run of slug characters. */
function isSlugShaped(text: string, start: number, end: number): boolean {
  if (text.charCodeAt(start) === 45 || text.charCodeAt(end - 1) === 45) return false;
  for (let i = start + 1; i < end; i++) if (text.charCodeAt(i) === 45 && text.charCodeAt(i - 1) === 45) return false;
  return true;
}

function isSlugChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 45
  );
}

/** WORD_CHAR for a code point, without a string or a regular expression for ASCII (letters, digits, `_`). */
function isWordCode(code: number): boolean {
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95;
  return WORD_CHAR.test(String.fromCodePoint(code));
}

/** True when the code point at `at` is a word character (an astral letter is tested whole, not by its surrogates). */
function isWordCharAt(text: string, at: number): boolean {
  return isWordCode(text.codePointAt(at) ?? 0);
}

/** True when the character before `@` glues it to a word (an e-mail address), escapes it, or doubles it. */
function isGlued(text: string, at: number): boolean {
  if (at === 0) return false;
  const previous = text.charCodeAt(at - 1);
  if (previous === 92 /* \\ */ || previous === 64 /* @ */) return true;
  // A low surrogate means the previous character is astral; test the whole code point.
  const code = text.codePointAt(at - 1 - (previous >= 0xdc00 && previous <= 0xdfff ? 1 : 0)) ?? 0;
  return isWordCode(code);
}

/**
 * Finds every mention in `text[from, to)`, read as Markdown. This is the single rule that decides what a
 * mention of a slug is, used by the parser, the diagnostics, completion, the rename, the graph and the
 * bundles alike: in prose only (never in a fenced code block: see `proseRegions`; inline code spans are
 * prose), an `@` not glued to a word and not escaped as `\@`, not inside a URL or a path (`isInUrlOrPath`),
 * not a package scope or a qualified name (`isScopedOrQualified`: `@types/node`, `@app.route`), then a whole
 * kebab-case slug that no other slug character or word character follows. So `@plan` is never found inside
 * `@plan-trip`, and `bob@example.com` is no mention.
 */
export function scanMentions(text: string, from = 0, to = text.length, fences?: readonly CodeFence[]): MentionScan {
  const mentions: MentionToken[] = [];
  const malformed: MalformedMention[] = [];
  if (text.indexOf("@", from) === -1) return { mentions, malformed };
  for (const region of proseRegions(text, from, to, fences)) scanRegion(text, region.start, region.end, mentions, malformed);
  return { mentions, malformed };
}

function scanRegion(text: string, from: number, to: number, mentions: MentionToken[], malformed: MalformedMention[]): void {
  // The URL-or-path answer for the last `@` looked at: the next look back stops there, so a long token costs once.
  let lookedBackTo = from;
  let inPathAtLookBack = false;
  const inUrlOrPath = (at: number): boolean => {
    let answer = inPathAtLookBack;
    for (let i = at - 1; i >= lookedBackTo; i--) {
      const code = text.charCodeAt(i);
      if (code === 47 /* / */) {
        answer = true;
        break;
      }
      if (isTokenBoundary(code)) {
        answer = false;
        break;
      }
    }
    lookedBackTo = at;
    inPathAtLookBack = answer;
    return answer;
  };
  const spans = text.indexOf("`", from) === -1 ? [] : codeSpans(text, from, to);
  let spanIndex = 0;
  let at = text.indexOf("@", from);
  while (at !== -1 && at < to) {
    let end = at + 1;
    while (end < to && isSlugChar(text.charCodeAt(end))) end++;
    while (spanIndex < spans.length && (spans[spanIndex]?.end ?? 0) <= at) spanIndex++;
    const span = spans[spanIndex];
    const inSpan = span !== undefined && span.start < at;
    if (end > at + 1 && !isGlued(text, at) && !isScopedOrQualified(text, at, to) && !inUrlOrPath(at)) {
      const gluedAfter = end < to && isWordCharAt(text, end);
      const shaped = !gluedAfter && end - at - 1 <= MAX_HANDLE_LENGTH && isSlugShaped(text, at + 1, end);
      // A slug is the shared copy every file's mention of it holds, found without cutting it out of the text.
      const written = shaped ? internedSlice(text, at + 1, end) : text.slice(at + 1, end);
      if (inSpan) {
        // Inline code is code unless the span is exactly one mention; nothing in it is reported as malformed.
        if (shaped && isWholeSpan(text, span, at, end)) mentions.push({ written, slug: written.toLowerCase(), start: at, end, inCode: true });
      } else if (shaped) {
        mentions.push({ written, slug: written.toLowerCase(), start: at, end, inCode: false });
      } else {
        let stop = end;
        while (stop < to && isWordCharAt(text, stop)) stop = Math.min(to, stop + ((text.codePointAt(stop) ?? 0) > 0xffff ? 2 : 1));
        malformed.push({ text: text.slice(at, stop), start: at, end: stop });
      }
    }
    at = text.indexOf("@", Math.max(end, at + 1));
  }
}

/** True when `text[at, end)` is all a code span holds, its backticks and the spaces inside them aside. */
function isWholeSpan(text: string, span: TextSpan, at: number, end: number): boolean {
  let open = span.start;
  while (text.charCodeAt(open) === 96) open++;
  let close = span.end;
  while (close > open && text.charCodeAt(close - 1) === 96) close--;
  return text.slice(open, at).trim() === "" && text.slice(end, close).trim() === "";
}

/** The seed's `parseMentions`: the slugs a text mentions, lower-cased, first seen first, deduplicated. */
export function parseMentions(text: string): string[] {
  return uniqueSlugs(scanMentions(text).mentions);
}

export function uniqueSlugs(mentions: readonly MentionToken[]): string[] {
  const seen = new Set<string>();
  const slugs: string[] = [];
  for (const mention of mentions) {
    if (!seen.has(mention.slug)) {
      seen.add(mention.slug);
      slugs.push(mention.slug);
    }
  }
  return slugs;
}

/**
 * Rewrites every mention of `oldSlug` in `text` to `@newSlug` (case-insensitive, whole slug only) and
 * returns the edits as offset spans, so callers can apply them to a file or send them to an editor.
 */
export function mentionEdits(
  text: string,
  oldSlug: string,
  newSlug: string,
  from = 0,
  to = text.length,
): { start: number; end: number; newText: string }[] {
  const key = oldSlug.toLowerCase();
  return scanMentions(text, from, to)
    .mentions.filter((mention) => mention.slug === key)
    .map((mention) => ({ start: mention.start, end: mention.end, newText: `@${newSlug}` }));
}

/** Applies non-overlapping offset edits to a text. */
export function applyEdits(text: string, edits: readonly { start: number; end: number; newText: string }[]): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  let result = "";
  let cursor = 0;
  for (const edit of sorted) {
    result += text.slice(cursor, edit.start) + edit.newText;
    cursor = edit.end;
  }
  return result + text.slice(cursor);
}
