import { scanMentions } from "../mentions.js";
import { codeFences, codeSpans, isInFence, proseRegions, type CodeFence, type TextSpan } from "../prose.js";
import { mentionFromPosted, packedMention, postedMention, type Mention, type MentionPlace } from "../skillFile.js";
import { isValidHandle } from "../slug.js";
import { detached, interned, internedSlice, type LineMap, type Range } from "../text.js";
import { AGENT_SKILL_FILE, resolveLink, segmentsOf } from "./paths.js";

/** How a reference is written: `@name`, `/name`, `$name`, or a Markdown link to the skill's folder (no sigil). */
export type Sigil = "@" | "/" | "$" | "";

/** A reference to a skill in Agent Skills prose. Its range covers the sigil and the name; a link's covers the folder name in its target. */
export interface Reference extends Mention {
  readonly sigil: Sigil;
  /** For a link: the URI of the SKILL.md it points at. */
  readonly target?: string;
  /** For a link: its whole target as written, and where it stands. */
  readonly link?: { readonly text: string; readonly range: Range };
}

/** The sigil of any mention: `@` unless it is a reference written otherwise. */
export function sigilOf(mention: Mention | { readonly slug: string }): Sigil {
  return "sigil" in mention ? (mention as Reference).sigil : "@";
}

function inRegions(fences: readonly CodeFence[], offset: number): boolean {
  return isInFence(fences, offset);
}

/** `a-z`, `0-9` or `-`: a handle's characters. */
function isNameChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 45;
}
const WORD_CHAR = /[\p{L}\p{M}\p{N}_]/u;
/**
 * Before a sigil: a character that makes it part of a path, a URL, a tag, a variable or an expression (`$[amount]/day`,
 * `f(x)/n`), not a reference.
 */
const GLUE_BEFORE = /[\p{L}\p{M}\p{N}_/\\.~:<>$@%=+*&|\])-]/u;

/**
 * Names after `/` that are the folders at a Unix system's root, written bare in prose about paths ("written to
 * /tmp", "never mount /etc"): never a reference.
 */
const ROOT_FOLDERS = new Set(["etc", "tmp", "usr", "var", "proc", "sys", "sbin", "mnt", "boot"]);

/** True when a name has a letter: `/5` and `/10` are scores ("Score: /10"), not commands. */
function hasLetter(name: string): boolean {
  return /[a-z]/.test(name);
}

/** True when the characters after a name make it a path, a file name, a namespaced command or a longer word. */
function continuesAsPath(text: string, end: number, to: number): boolean {
  if (end >= to) return false;
  const next = text.charAt(end);
  if (next === "/" || next === ":" || next === "\\" || next === "{" || next === "(") return true;
  if (WORD_CHAR.test(next) || next === "@" || next === "$") return true;
  if (next === "." && end + 1 < to && WORD_CHAR.test(text.charAt(end + 1))) return true;
  return false;
}

/**
 * The `/name` and `$name` references in `text[from, to)`, as their users write them and no more: a sigil that
 * stands alone (after a space, a bracket or a quote; never after a word, a path or a URL character), then a
 * lower-case handle that nothing path-like follows. So `/usr/bin`, `docs/x`, `$PATH`, `${name}`, `</tag>`,
 * `https://x/y` and `/a.txt` are not references.
 */
function scanSigils(text: string, from: number, to: number, regions: readonly CodeFence[]): { sigil: "/" | "$"; start: number; end: number; inCode: boolean }[] {
  const found: { sigil: "/" | "$"; start: number; end: number; inCode: boolean }[] = [];
  // Inline code, found once a reference is: a name there is code-only, as an @-mention in backticks is.
  let spans: TextSpan[] | undefined;
  const inCodeSpan = (at: number) => isInFence((spans ??= proseRegions(text, from, to, regions).flatMap((region) => codeSpans(text, region.start, region.end))), at);
  // From one sigil to the next, not character by character: most of a page has neither.
  let slash = text.indexOf("/", from);
  let dollar = text.indexOf("$", from);
  for (;;) {
    const at = slash === -1 ? dollar : dollar === -1 ? slash : Math.min(slash, dollar);
    if (at === -1 || at >= to) break;
    let end = at + 1;
    // A sigil glued to what is before it, or a link target like `](/docs)`, is part of a path.
    const glued = at > 0 && (GLUE_BEFORE.test(text.charAt(at - 1)) || (at > 1 && text.charAt(at - 1) === "(" && text.charAt(at - 2) === "]"));
    if (!glued) {
      while (end < to && isNameChar(text.charCodeAt(end))) end++;
      const name = text.slice(at + 1, end);
      const sigil = text.charAt(at) as "/" | "$";
      if (isValidHandle(name) && hasLetter(name) && !(sigil === "/" && ROOT_FOLDERS.has(name)) && !continuesAsPath(text, end, to) && !inRegions(regions, at)) found.push({ sigil, start: at, end, inCode: inCodeSpan(at) });
    }
    const next = Math.max(at + 1, end);
    if (slash !== -1 && slash < next) slash = text.indexOf("/", next);
    if (dollar !== -1 && dollar < next) dollar = text.indexOf("$", next);
  }
  return found;
}

const LINK = /\[[^\]\n]*\]\(([^)\s<>]+)(?:\s+"[^"\n]*")?\)/g;

/** Markdown links whose target is a skill's folder or its SKILL.md: the folder name in the target, and the SKILL.md it means. */
export interface LinkToken {
  readonly start: number;
  readonly end: number;
  readonly name: string;
  readonly target: string;
  readonly raw: string;
  readonly rawStart: number;
}

function scanLinks(uri: string, text: string, from: number, to: number, regions: readonly CodeFence[]): LinkToken[] {
  const found: LinkToken[] = [];
  // Most pages have no link: one search for its middle, not the expression's walk over the page.
  const middle = text.indexOf("](", from);
  if (middle === -1 || middle >= to) return found;
  LINK.lastIndex = from;
  for (let match = LINK.exec(text); match && match.index < to; match = LINK.exec(text)) {
    const raw = match[1] ?? "";
    const targetStart = match.index + match[0].indexOf("(") + 1;
    if (inRegions(regions, match.index)) continue;
    const resolved = resolveLink(uri, raw);
    if (!resolved) continue;
    const segments = segmentsOf(resolved);
    let name: string | undefined;
    let skillUri: string | undefined;
    if (segments[segments.length - 1] === AGENT_SKILL_FILE && segments[segments.length - 3] === "skills") {
      name = segments[segments.length - 2];
      skillUri = resolved;
    } else if (segments[segments.length - 2] === "skills") {
      name = segments[segments.length - 1];
      skillUri = `${resolved}/${AGENT_SKILL_FILE}`;
    }
    if (name === undefined || skillUri === undefined || !isValidHandle(name)) continue;
    // The folder's name as the target spells it, so a rename can rewrite it: the last such segment.
    const path = raw.replace(/[?#].*$/, "").replace(/\/+$/, "");
    const parts = path.split("/");
    const last = parts[parts.length - 1] === AGENT_SKILL_FILE ? parts.length - 2 : parts.length - 1;
    if (parts[last] !== name) continue;
    const offset = parts.slice(0, last).reduce((sum, part) => sum + part.length + 1, 0);
    found.push({ start: targetStart + offset, end: targetStart + offset + name.length, name, target: skillUri, raw, rawStart: targetStart });
  }
  return found;
}

/** A Markdown link to a skill's folder: the one reference that carries more than a number (see packedMention), its target. */
class LinkReference implements Reference {
  readonly written: string;
  readonly slug: string;
  readonly start: number;
  readonly end: number;
  readonly place: MentionPlace;
  readonly sigil = "";
  readonly inCode = false;
  readonly target: string;
  readonly #link: LinkToken;
  readonly #lines: LineMap;

  /** `name`: a valid handle (lower case, so its own slug), as a shared copy: a slice would keep the whole file's text alive. */
  constructor(name: string, link: LinkToken, place: MentionPlace, lines: LineMap) {
    this.written = name;
    this.slug = name;
    this.start = link.start;
    this.end = link.end;
    this.place = place;
    this.#lines = lines;
    this.target = detached(link.target);
    this.#link = { ...link, name, target: this.target, raw: detached(link.raw) };
  }

  get range(): Range {
    return this.#lines.rangeOf(this.start, this.end);
  }

  get link(): { readonly text: string; readonly range: Range } {
    const link = this.#link;
    return { text: link.raw, range: this.#lines.rangeOf(link.rawStart, link.rawStart + link.raw.length) };
  }

  get posted(): PostedReference {
    return { link: this.#link, place: this.place };
  }
}

/** A reference as plain values a thread can post: a packed mention's two fields, or a link's token and place. */
export type PostedReference = { readonly written: string; readonly packed: number } | { readonly link: LinkToken; readonly place: MentionPlace };

export function postedReference(reference: Reference): PostedReference {
  if (reference instanceof LinkReference) return reference.posted;
  const mention = postedMention(reference);
  if (mention === undefined) throw new Error(`A reference of an unknown kind: ${reference.slug}`);
  return mention;
}

/** The reference {@link postedReference} stands for, in a text whose line map is `lines`. */
export function referenceFromPosted(posted: PostedReference, lines: LineMap): Reference {
  if ("link" in posted) return new LinkReference(interned(posted.link.name), posted.link, posted.place, lines);
  return mentionFromPosted(posted.written, posted.packed, lines) as Reference;
}

/**
 * Every reference to a skill in a stretch of Agent Skills prose, in text order: `@name` (lower-case, not a
 * path such as `@docs/x.md`), `/name`, `$name` and Markdown links to a skill folder. Fenced code is skipped.
 */
export function scanReferences(uri: string, text: string, lines: LineMap, from: number, to: number, place: MentionPlace): Reference[] {
  const fences = codeFences(text, from, to);
  const references: Reference[] = [];
  // The mentions come from the prose between the same fences.
  for (const token of scanMentions(text, from, to, fences).mentions) {
    if (token.written !== token.slug || continuesAsPath(text, token.end, to)) continue;
    references.push(packedMention(token, place, lines, "@"));
  }
  const mentionCount = references.length;
  for (const token of scanSigils(text, from, to, fences)) {
    const name = internedSlice(text, token.start + 1, token.end);
    references.push(packedMention({ written: name, slug: name, start: token.start, end: token.end, inCode: token.inCode }, place, lines, token.sigil));
  }
  const sigilCount = references.length - mentionCount;
  for (const link of scanLinks(uri, text, from, to, fences)) references.push(new LinkReference(interned(link.name), link, place, lines));
  // Each kind is found in text order: only a page with two kinds needs them merged.
  const kinds = (mentionCount > 0 ? 1 : 0) + (sigilCount > 0 ? 1 : 0) + (references.length > mentionCount + sigilCount ? 1 : 0);
  return kinds > 1 ? references.sort((a, b) => a.start - b.start) : references;
}
