import { isMap, isScalar, isSeq, parseDocument, type Node, type Pair } from "yaml";
import { explainYamlError } from "./yamlErrors.js";
import { DiagnosticCodes, type CoreDiagnostic } from "./diagnostics.js";
import { closedFrontmatterEnd, everyLine, findFrontmatter, flowDepth, isSafePlainScalar, MAX_FLOW_DEPTH } from "./frontmatterBlock.js";
import { scanMentions, uniqueSlugs, type MentionToken } from "./mentions.js";
import { isValidHandle, titleFromHandle } from "./slug.js";
import { detached, interned, LineMap, TEXT_START, type LineMapParts, type Position, type Range } from "./text.js";
import { groupedDigits } from "../../../shared/words.js";

/** The file-name suffix that makes a Markdown file a skill. */
export const SKILL_SUFFIX = ".skill.md";

/** Where a mention stands: the frontmatter's summary or the body. Both are references; only the body binds. */
export type MentionPlace = "summary" | "body";

export interface Mention extends MentionToken {
  readonly place: MentionPlace;
  readonly range: Range;
}

/** What a mention is written with before its slug: `@`, or in Agent Skills prose `/` or `$` (see agentSkills/references.ts). */
export type MentionSigil = "@" | "/" | "$";

/** The sigils in the order {@link FileMention.packed} numbers them. */
const SIGILS: readonly MentionSigil[] = ["@", "/", "$"];

/**
 * A mention whose range is computed when asked: at 10,000 skills the ranges of every mention, held as three
 * objects each, were a tenth of the server's heap, and most of them are never read.
 */
class FileMention implements Mention {
  readonly written: string;
  /**
   * start × 32 + flags: bit 0, in the summary (else the body); bit 1, a whole inline code span; bit 2, written in
   * another case than its slug; bits 3 and 4, the sigil (see SIGILS). One field for five, 282,000 times at 50,000
   * skills. A skill is at most MAX_SKILL_CHARS long, so the number fits the 32 bits a batch of parts carries.
   */
  readonly packed: number;
  readonly #lines: LineMap;

  constructor(written: string, packed: number, lines: LineMap) {
    this.written = written;
    this.packed = packed;
    this.#lines = lines;
  }

  static of(token: MentionToken, place: MentionPlace, lines: LineMap, sigil: MentionSigil = "@"): FileMention {
    // The scanner's shared copy of the slug (interned), not a slice: a slice would keep the whole file's text alive.
    const flags = (place === "summary" ? 1 : 0) + (token.inCode ? 2 : 0) + (token.slug === token.written ? 0 : 4) + SIGILS.indexOf(sigil) * 8;
    return new FileMention(token.written, token.start * 32 + flags, lines);
  }

  get start(): number {
    return Math.floor(this.packed / 32);
  }

  get sigil(): MentionSigil {
    return SIGILS[(this.packed & 31) >> 3] ?? "@";
  }

  /** The slug as written, nearly always; lower-cased (and shared) for the rare mention written in capitals. */
  get slug(): string {
    return this.packed & 4 ? interned(this.written.toLowerCase()) : this.written;
  }

  /** Just after the slug: the sigil and the slug are all a mention is. */
  get end(): number {
    return this.start + 1 + this.written.length;
  }

  get place(): MentionPlace {
    return this.packed & 1 ? "summary" : "body";
  }

  get inCode(): boolean {
    return (this.packed & 2) !== 0;
  }

  get range(): Range {
    return this.#lines.rangeOf(this.start, this.end);
  }
}

/**
 * A mention as a skill keeps it: packed in one number, its range made when asked. Also what an Agent Skill's
 * `@name`, `/name` and `$name` references are (not its links to a skill's folder, which carry their target): a
 * skill whose mentions are all of this kind is released as numbers, and can be parsed on the reading thread.
 */
export function packedMention(token: MentionToken, place: MentionPlace, lines: LineMap, sigil: MentionSigil): Mention & { readonly sigil: MentionSigil } {
  return FileMention.of(token, place, lines, sigil);
}

/** A mention of {@link packedMention} made again from its two fields (see {@link postedMention}), on another thread. */
export function mentionFromPosted(written: string, packed: number, lines: LineMap): Mention & { readonly sigil: MentionSigil } {
  return new FileMention(interned(written), packed, lines);
}

/** The two fields a mention of {@link packedMention} is made of, as plain values a thread can post; undefined for another kind. */
export function postedMention(mention: Mention): { readonly written: string; readonly packed: number } | undefined {
  return mention instanceof FileMention ? { written: mention.written, packed: mention.packed } : undefined;
}

/** A frontmatter string list entry (an example request or a near miss) with where it stands. */
export interface ListEntry {
  readonly text: string;
  readonly range: Range;
}

/**
 * One way of writing a skill down: a `.skill.md` file, or an Agent Skills folder with its SKILL.md. The
 * namespace asks the skill's format what a rename moves and what its references look like, and knows no
 * format by name.
 */
export interface SkillFormat {
  /** How a person calls a skill of this format: "skill file", "Agent Skill". */
  readonly label: string;
  /** True when an unknown reference costs more as an alarm than as a miss: Agent Skills prose. */
  readonly quietReferences: boolean;
  /** The characters that start a reference in this format's prose, `@` first. */
  readonly sigils: readonly string[];
  /** What a rename to `handle` moves (the file, or the skill's folder) and where to. */
  move(skill: SkillFile, handle: string): { readonly oldUri: string; readonly newUri: string };
  /** The URI the skill's file has once renamed to `handle`. */
  renamedUri(uri: string, handle: string): string;
  /** The edits a rename needs inside the skill's own file besides its references (the `name:` value). */
  ownEdits(skill: SkillFile, handle: string): { readonly range: Range; readonly newText: string }[];
}

/** The `.skill.md` format: the file name is the handle. */
export const SKILL_FILE_FORMAT: SkillFormat = {
  label: "skill file",
  quietReferences: false,
  sigils: ["@"],
  move: (skill, handle) => ({ oldUri: skill.uri, newUri: siblingSkillUri(skill.uri, handle) }),
  renamedUri: (uri, handle) => siblingSkillUri(uri, handle),
  ownEdits: () => [],
};

/** Everything the core knows about one skill (a `.skill.md` file or a SKILL.md), parsed once per version of its text. */
export interface SkillFile {
  readonly uri: string;
  readonly format: SkillFormat;
  /** Where the skill declares its handle: a SKILL.md's `name:` value, the start of a `.skill.md`. */
  readonly declaration: Range;
  /** The handle as the file name spells it. */
  readonly handle: string;
  /** Lower-cased handle: the namespace key. */
  readonly slug: string;
  readonly validHandle: boolean;
  readonly text: string;
  readonly lines: LineMap;
  readonly title: string;
  readonly summary: string | undefined;
  readonly summaryRange: Range | undefined;
  readonly enabled: boolean;
  readonly advertised: boolean;
  readonly examples: readonly ListEntry[];
  readonly nearMisses: readonly ListEntry[];
  /** The frontmatter block including its fences; empty when the file has none. */
  readonly frontmatterRange: Range | undefined;
  readonly bodyStart: number;
  readonly body: string;
  readonly mentions: readonly Mention[];
  /** The body's mentions, lower-cased, first seen first, deduplicated: the skill's requirements. */
  readonly requirements: readonly string[];
  /** The slugs this file mentions only as whole inline code spans: when they name nothing, they are code. */
  readonly codeOnly: readonly string[];
  /** Problems found in this file alone (frontmatter, malformed mentions, the file name). */
  readonly problems: readonly CoreDiagnostic[];
  /** The name the file declares for itself, where its format has one (a SKILL.md's `name:` value). */
  readonly declaredName?: { readonly value: string; readonly range: Range };
}

/** The frontmatter keys the format knows, with the type each wants. */
export const FRONTMATTER_KEYS = {
  title: "string",
  summary: "string",
  enabled: "boolean",
  advertised: "boolean",
  examples: "string list",
  "near-misses": "string list",
} as const;

type FrontmatterKey = keyof typeof FRONTMATTER_KEYS;

/**
 * The keys of the Agent Skills format, kept as they were when a SKILL.md is imported (so an export gives the
 * same bytes back): `description` is the summary when there is no `summary`; the others are carried, unread.
 */
export const AGENT_SKILL_KEYS = ["name", "description", "license", "compatibility", "allowed-tools", "metadata"] as const;

/** Larger texts are not parsed: a skill is a page of prose, and a 10 MB file must not stall the editor. */
export const MAX_SKILL_CHARS = 1_000_000;

/** A summary is a menu entry: one to three lines. */
const MAX_SUMMARY_LINES = 3;

/** One empty list for every skill's empty lists: most skills have no examples, near misses, problems or code-only slugs. */
const NONE: readonly never[] = Object.freeze([]);

/** The handle a file's URI gives: its file name without `.skill.md`, percent-decoded. */
export function handleFromUri(uri: string): string {
  const path = uri.replace(/[?#].*$/, "");
  const name = path.slice(path.lastIndexOf("/") + 1);
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // A stray `%` in a file name: keep the raw name.
  }
  return decoded.toLowerCase().endsWith(SKILL_SUFFIX) ? decoded.slice(0, -SKILL_SUFFIX.length) : decoded;
}

export function isSkillUri(uri: string): boolean {
  // Only the path's end is looked at (before any query or fragment): the first index asks this of every file.
  const query = uri.indexOf("?");
  const fragment = uri.indexOf("#");
  const end = query === -1 ? (fragment === -1 ? uri.length : fragment) : fragment === -1 ? query : Math.min(query, fragment);
  return end >= SKILL_SUFFIX.length && uri.slice(end - SKILL_SUFFIX.length, end).toLowerCase() === SKILL_SUFFIX;
}

/** The URI of a sibling skill file with another handle: what a rename moves the file to. */
export function siblingSkillUri(uri: string, handle: string): string {
  const slash = uri.lastIndexOf("/");
  return `${uri.slice(0, slash + 1)}${encodeURIComponent(handle)}${SKILL_SUFFIX}`;
}


function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] ?? 0;
      row[j] = Math.min(above + 1, (row[j - 1] ?? 0) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length] ?? 0;
}

/** The candidates closest to `word` by edit distance, nearest first, within a distance that still looks like a typo. */
export function nearest(word: string, candidates: Iterable<string>, limit = 3): string[] {
  const scored: { candidate: string; distance: number }[] = [];
  const bound = Math.max(2, Math.floor(word.length / 3));
  for (const candidate of candidates) {
    if (Math.abs(candidate.length - word.length) > bound) continue;
    const distance = editDistance(word, candidate);
    if (distance <= bound) scored.push({ candidate, distance });
  }
  // Ties in code-unit order: the same as the locale's for handles and keys, without loading its collation data.
  return scored
    .sort((a, b) => a.distance - b.distance || (a.candidate < b.candidate ? -1 : a.candidate > b.candidate ? 1 : 0))
    .slice(0, limit)
    .map((entry) => entry.candidate);
}

/** Parses a `.skill.md` text. Never throws: every problem becomes a diagnostic with an exact range. */
export function parseSkillFile(uri: string, text: string): SkillFile {
  const lines = new LineMap(text);
  const problems: CoreDiagnostic[] = [];
  const handle = handleFromUri(uri);
  const validHandle = isValidHandle(handle);
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const unreadable = unreadableReason(text);
  if (unreadable) {
    problems.push({ range: lines.rangeOf(0, 0), severity: "error", code: unreadable.code, message: unreadable.message });
    if (!validHandle) problems.push(invalidHandleProblem(handle, lines));
    return {
      uri, format: SKILL_FILE_FORMAT, declaration: TEXT_START, handle, slug: handle.toLowerCase(), validHandle, text, lines, title: titleFromHandle(handle.toLowerCase()),
      summary: undefined, summaryRange: undefined, enabled: true, advertised: false, examples: [], nearMisses: [],
      frontmatterRange: undefined, bodyStart: 0, body: "", mentions: [], requirements: [], codeOnly: [], problems,
    };
  }

  let title: string | undefined;
  let summary: string | undefined;
  let summaryRange: Range | undefined;
  let summarySpan: [number, number] | undefined;
  let enabled = true;
  let advertised = true;
  let examples: ListEntry[] = [];
  let nearMisses: ListEntry[] = [];
  let frontmatterRange: Range | undefined;
  let bodyStart = start;
  /** The frontmatter could not be read (unclosed, bad YAML, not a map) or its summary has the wrong type: no missing-summary on top. */
  let summaryUnknown = false;

  const block = findFrontmatter(text, lines);
  bodyStart = block.bodyStart;
  if (block.kind === "unclosed") {
    problems.push(block.problem);
    summaryUnknown = true;
  } else if (block.kind === "closed") {
    frontmatterRange = block.range;
    const parsed = parseFrontmatter(text.slice(block.contentStart, block.contentEnd), block.contentStart, lines, problems);
    title = parsed.title;
    summary = parsed.summary;
    summarySpan = parsed.summarySpan;
    enabled = parsed.enabled ?? true;
    advertised = parsed.advertised ?? true;
    examples = parsed.examples;
    nearMisses = parsed.nearMisses;
    summaryUnknown = parsed.summaryUnknown;
    if (summarySpan) summaryRange = lines.rangeOf(summarySpan[0], summarySpan[1]);
  }

  const mentions: Mention[] = [];
  const collect = (from: number, to: number, place: MentionPlace) => {
    const scan = scanMentions(text, from, to);
    for (const token of scan.mentions) mentions.push(FileMention.of(token, place, lines));
    for (const bad of scan.malformed) {
      problems.push({
        range: lines.rangeOf(bad.start, bad.end),
        severity: "warning",
        code: DiagnosticCodes.malformedMention,
        message: `${bad.text} is not a mention: a handle is lower-case letters and digits joined by single hyphens. Write \\@ for a literal @.`,
      });
    }
  };
  if (summarySpan) collect(summarySpan[0], summarySpan[1], "summary");
  collect(bodyStart, text.length, "body");

  if (!validHandle) problems.push(invalidHandleProblem(handle, lines));
  if (advertised && enabled && !summaryUnknown && (summary === undefined || summary.trim() === "")) {
    problems.push({
      range: frontmatterRange ? { start: frontmatterRange.start, end: lines.positionAt(start + 3) } : lines.rangeOf(0, 0),
      severity: "warning",
      code: DiagnosticCodes.missingSummary,
      message: "This skill is advertised to the planner but has no summary: add `summary:` (the one to three lines the planner's menu shows), or set `advertised: false`.",
    });
  }

  return {
    uri,
    format: SKILL_FILE_FORMAT,
    declaration: TEXT_START,
    handle,
    // The one copy every mention of the handle holds too: the indexes then compare slugs by identity.
    slug: interned(handle.toLowerCase()),
    validHandle,
    text,
    lines,
    title: title ?? titleFromHandle(handle.toLowerCase()),
    summary,
    summaryRange,
    enabled,
    advertised,
    examples,
    nearMisses,
    frontmatterRange,
    bodyStart,
    body: text.slice(bodyStart),
    // Copies sized to their contents: an array grown by push keeps room for more, twice over at 10,000 files.
    mentions: mentions.slice(),
    requirements: uniqueSlugs(mentions.filter((mention) => mention.place === "body")).slice(),
    codeOnly: codeOnlySlugs(mentions),
    problems,
  };
}

/** Reads a released skill's text back: from the disk, when a rare request (an export, a plan, a rename by copy) needs it. */
export type TextLoader = (uri: string) => string | undefined;

/** True while the skill holds its text (it was never released): an equal text can then be told apart cheaply. */
export function holdsText(skill: SkillFile): boolean {
  return !(skill instanceof ReleasedSkill);
}

/**
 * A skill that let its text go: a file no editor has open is read once, and what its diagnostics, references
 * and rename need (mentions with their offsets, line starts, the frontmatter's values) is kept without it.
 * `text` and `body` read the file again when a rare request (an export, a plan, a rename by copy) needs them.
 * Every kept string is detached from the text, since a slice would keep it alive. At 50,000 skills the texts
 * were half of the server's heap.
 */
class ReleasedSkill implements SkillFile {
  readonly uri: string;
  readonly format: SkillFormat;
  readonly declaration: Range;
  readonly handle: string;
  readonly slug: string;
  readonly validHandle: boolean;
  readonly lines: LineMap;
  readonly title: string;
  readonly summary: string | undefined;
  readonly enabled: boolean;
  readonly advertised: boolean;
  readonly examples: readonly ListEntry[];
  readonly nearMisses: readonly ListEntry[];
  readonly bodyStart: number;
  readonly requirements: readonly string[];
  readonly codeOnly: readonly string[];
  readonly problems: readonly CoreDiagnostic[];
  readonly declaredName?: { readonly value: string; readonly range: Range };
  /**
   * The mentions, packed: each one's slug as written and its {@link FileMention.packed} number, made into
   * objects when read (most are read once or twice, by the diagnosis and the index of who mentions what). Two
   * fields of an array instead of an object of three: 11 MB less at 50,000 skills. Mentions of another kind are
   * kept as they are, in `#mentionsWritten`'s place.
   */
  readonly #mentionsWritten: readonly string[] | readonly Mention[];
  readonly #mentionsPacked: readonly number[] | undefined;
  /** The summary's and the frontmatter's offsets (-1: none), their ranges made when asked: six objects fewer a skill. */
  readonly #summaryStart: number;
  readonly #summaryEnd: number;
  readonly #frontmatterStart: number;
  readonly #frontmatterEnd: number;
  /** The body's fingerprint, for the move detector: once the file is gone its body cannot be read again. */
  readonly bodyFingerprint: number;
  readonly #load: TextLoader;

  constructor(uri: string, format: SkillFormat, parts: ReleasedParts<LineMap | LineMapParts>, load: TextLoader) {
    this.uri = uri;
    this.format = format;
    this.declaration = parts.declaration;
    this.handle = parts.handle;
    this.slug = parts.slug;
    this.validHandle = parts.validHandle;
    this.lines = parts.lines instanceof LineMap ? parts.lines : new LineMap(parts.lines);
    this.title = parts.title;
    this.summary = parts.summary;
    this.#summaryStart = parts.summaryStart;
    this.#summaryEnd = parts.summaryEnd;
    this.enabled = parts.enabled;
    this.advertised = parts.advertised;
    this.examples = parts.examples.length === 0 ? NONE : parts.examples;
    this.nearMisses = parts.nearMisses.length === 0 ? NONE : parts.nearMisses;
    this.#frontmatterStart = parts.frontmatterStart;
    this.#frontmatterEnd = parts.frontmatterEnd;
    this.bodyStart = parts.bodyStart;
    this.#mentionsWritten = parts.mentionsWritten.length === 0 ? NONE : parts.mentionsWritten;
    this.#mentionsPacked = parts.mentionsPacked === undefined || parts.mentionsPacked.length > 0 ? parts.mentionsPacked : NONE;
    this.requirements = parts.requirements.length === 0 ? NONE : parts.requirements;
    this.codeOnly = parts.codeOnly.length === 0 ? NONE : parts.codeOnly;
    this.problems = parts.problems.length === 0 ? NONE : parts.problems;
    if (parts.declaredName) this.declaredName = parts.declaredName;
    this.bodyFingerprint = parts.bodyFingerprint;
    this.#load = load;
  }

  /**
   * What a parsed skill keeps once released, every string detached from its text; or left as it is with
   * `detach` false, for parts that are posted to another thread (which copies every string).
   */
  static partsOf(skill: SkillFile, detach = true): ReleasedParts<LineMap> {
    const copy = detach ? detached : (value: string) => value;
    const copyEntry = detach ? detachedEntry : (entry: ListEntry) => entry;
    const mentions = skill.mentions;
    const packed = mentions.every((mention) => mention instanceof FileMention);
    return {
      declaration: skill.declaration,
      handle: skill.handle,
      slug: skill.slug,
      validHandle: skill.validHandle,
      lines: skill.lines,
      title: copy(skill.title),
      summary: skill.summary === undefined ? undefined : copy(skill.summary),
      summaryStart: offsetOf(skill.lines, skill.summaryRange?.start),
      summaryEnd: offsetOf(skill.lines, skill.summaryRange?.end),
      enabled: skill.enabled,
      advertised: skill.advertised,
      examples: skill.examples.map(copyEntry),
      nearMisses: skill.nearMisses.map(copyEntry),
      frontmatterStart: offsetOf(skill.lines, skill.frontmatterRange?.start),
      frontmatterEnd: offsetOf(skill.lines, skill.frontmatterRange?.end),
      bodyStart: skill.bodyStart,
      mentionsWritten: packed ? mentions.map((mention) => mention.written) : mentions,
      mentionsPacked: packed ? mentions.map((mention) => (mention as FileMention).packed) : undefined,
      requirements: skill.requirements,
      codeOnly: skill.codeOnly,
      problems: detach ? skill.problems.map(detachedDiagnostic) : skill.problems,
      declaredName: skill.declaredName,
      bodyFingerprint: bodyFingerprint(skill.body),
    };
  }

  /** {@link everyMentionAsSlug} on the packed mentions, without making them. */
  static everyMentionAsSlug(skill: ReleasedSkill, test: (slug: string) => boolean): boolean {
    const packed = skill.#mentionsPacked;
    if (packed === undefined) return everyAsSlug(skill.#mentionsWritten as readonly Mention[], test);
    const written = skill.#mentionsWritten as readonly string[];
    for (let i = 0; i < packed.length; i++) if (((packed[i] as number) & 4) !== 0 || !test(written[i] as string)) return false;
    return true;
  }

  /** {@link mentionSlugs} on the packed mentions, without making them: as written, when none has capitals. */
  static mentionSlugs(skill: ReleasedSkill): readonly string[] {
    const packed = skill.#mentionsPacked;
    if (packed === undefined) return (skill.#mentionsWritten as readonly Mention[]).map((mention) => mention.slug);
    const written = skill.#mentionsWritten as readonly string[];
    if (packed.every((value) => (value & 4) === 0)) return written;
    return written.map((as, i) => (((packed[i] as number) & 4) === 0 ? as : as.toLowerCase()));
  }

  /** {@link mentionsWithSlug} on the packed mentions, making only those. */
  static mentionsWithSlug(skill: ReleasedSkill, slug: string): readonly Mention[] {
    const packed = skill.#mentionsPacked;
    if (packed === undefined) return withSlug(skill.#mentionsWritten as readonly Mention[], slug);
    const written = skill.#mentionsWritten as readonly string[];
    let found: Mention[] | undefined;
    for (let i = 0; i < packed.length; i++) {
      const value = packed[i] as number;
      const as = written[i] as string;
      // Written as its slug, nearly always; else in other capitals, and its slug is the lower-cased text.
      if ((value & 4) === 0 ? as !== slug : as.toLowerCase() !== slug) continue;
      (found ??= []).push(new FileMention(as, value, skill.lines));
    }
    return found ?? NONE;
  }

  get mentions(): readonly Mention[] {
    const packed = this.#mentionsPacked;
    if (packed === undefined) return this.#mentionsWritten as readonly Mention[];
    if (packed.length === 0) return NONE;
    const written = this.#mentionsWritten as readonly string[];
    return packed.map((value, index) => new FileMention(written[index] as string, value, this.lines));
  }

  get summaryRange(): Range | undefined {
    return this.#summaryStart < 0 ? undefined : this.lines.rangeOf(this.#summaryStart, this.#summaryEnd);
  }

  get frontmatterRange(): Range | undefined {
    return this.#frontmatterStart < 0 ? undefined : this.lines.rangeOf(this.#frontmatterStart, this.#frontmatterEnd);
  }

  get text(): string {
    return this.#load(this.uri) ?? "";
  }

  get body(): string {
    return this.text.slice(this.bodyStart);
  }
}

/**
 * True when every mention of a skill is written as its slug (in lower case) and `test` holds for that slug: the
 * diagnosis's question for nearly every skill, answered for a released skill without making its mentions.
 */
export function everyMentionAsSlug(skill: SkillFile, test: (slug: string) => boolean): boolean {
  return skill instanceof ReleasedSkill ? ReleasedSkill.everyMentionAsSlug(skill, test) : everyAsSlug(skill.mentions, test);
}

/** Each mention's slug, in order: what the index of who mentions what reads of every skill after the first index. */
export function mentionSlugs(skill: SkillFile): readonly string[] {
  return skill instanceof ReleasedSkill ? ReleasedSkill.mentionSlugs(skill) : skill.mentions.map((mention) => mention.slug);
}

/** A skill's mentions of one slug: a rename or a references search of a skill 1,000 files mention reads 1,000 files' mentions. */
export function mentionsWithSlug(skill: SkillFile, slug: string): readonly Mention[] {
  return skill instanceof ReleasedSkill ? ReleasedSkill.mentionsWithSlug(skill, slug) : withSlug(skill.mentions, slug);
}

function withSlug(mentions: readonly Mention[], slug: string): readonly Mention[] {
  return mentions.filter((mention) => mention.slug === slug);
}

function everyAsSlug(mentions: readonly Mention[], test: (slug: string) => boolean): boolean {
  for (const mention of mentions) if (mention.written !== mention.slug || !test(mention.slug)) return false;
  return true;
}

/** The skill without its text (see ReleasedSkill); a skill already released is answered as it is. */
export function releaseText(skill: SkillFile, load: TextLoader): SkillFile {
  return skill instanceof ReleasedSkill ? skill : new ReleasedSkill(skill.uri, skill.format, ReleasedSkill.partsOf(skill), load);
}

/**
 * What a released skill keeps, as plain values: what a thread that parsed a file posts to the one that holds the
 * namespace ({@link postableParts}, {@link releasedFromParts}). The skill's URI and format travel apart.
 */
export interface ReleasedParts<Lines extends LineMap | LineMapParts = LineMapParts> {
  readonly declaration: Range;
  readonly handle: string;
  readonly slug: string;
  readonly validHandle: boolean;
  readonly lines: Lines;
  readonly title: string;
  readonly summary: string | undefined;
  /** The summary's and the frontmatter's offsets, -1 for none. */
  readonly summaryStart: number;
  readonly summaryEnd: number;
  readonly frontmatterStart: number;
  readonly frontmatterEnd: number;
  readonly enabled: boolean;
  readonly advertised: boolean;
  readonly examples: readonly ListEntry[];
  readonly nearMisses: readonly ListEntry[];
  readonly bodyStart: number;
  /** Each mention's slug as written, and its packed number (see FileMention); mentions of another kind when there are no numbers. */
  readonly mentionsWritten: readonly string[] | readonly Mention[];
  readonly mentionsPacked: readonly number[] | undefined;
  readonly requirements: readonly string[];
  readonly codeOnly: readonly string[];
  readonly problems: readonly CoreDiagnostic[];
  readonly declaredName: { readonly value: string; readonly range: Range } | undefined;
  readonly bodyFingerprint: number;
}

/**
 * A skill parsed and released, as {@link ReleasedParts} a thread can post; undefined when it cannot travel (a
 * mention of another kind than the file's own).
 */
export function postableParts(skill: SkillFile): ReleasedParts | undefined {
  // Not detached: posting copies every string anyway.
  const parts = ReleasedSkill.partsOf(skill, false);
  return parts.mentionsPacked === undefined ? undefined : { ...parts, lines: parts.lines.parts };
}

/**
 * The released skill that {@link postableParts} gave, made again on the thread that holds the namespace from
 * parts whose slugs are the shared copies every other skill holds (see decodePartsBatch): the indexes compare
 * slugs by identity.
 */
export function releasedFromParts(uri: string, format: SkillFormat, parts: ReleasedParts, load: TextLoader): SkillFile {
  return new ReleasedSkill(uri, format, parts, load);
}

/** A position's offset, or -1 for none. */
function offsetOf(lines: LineMap, position: Position | undefined): number {
  return position ? lines.offsetAt(position) : -1;
}

function detachedEntry(entry: ListEntry): ListEntry {
  return { text: detached(entry.text), range: entry.range };
}

function detachedDiagnostic(diagnostic: CoreDiagnostic): CoreDiagnostic {
  return {
    ...diagnostic,
    message: detached(diagnostic.message),
    ...(diagnostic.related ? { related: diagnostic.related.map((entry) => ({ ...entry, message: detached(entry.message) })) } : {}),
  };
}

/**
 * A hash of a body as a move compares it: line endings as `\n`, trailing white space left out. Two
 * multiply-xorshift lanes over the body's UTF-8 bytes, four at a time, of 32 and 21 bits: a polynomial hash had
 * short collisions ("Q8" and "PW" gave one value), and two lanes that each mix every byte make a false match a
 * chance in 2⁵³. Four bytes a step rather than one character: every skill of the first index is hashed, and a
 * character at a time was a tenth of its parse. Only compared within one process (the words' byte order is the
 * machine's).
 */
export function bodyFingerprint(body: string): number {
  const normal = (body.includes("\r") ? body.replace(/\r\n?/g, "\n") : body).trimEnd();
  // UTF-8 has no lone surrogate: such a text is hashed as its JSON, whose escapes keep each apart, in lanes seeded apart.
  const wellFormed = (normal as string & { isWellFormed(): boolean }).isWellFormed();
  const length = writeUtf8(wellFormed ? normal : JSON.stringify(normal));
  let first = (wellFormed ? 0x811c9dc5 : 0x2545f491) ^ length;
  let second = length;
  const whole = length >>> 2;
  const view = scratch.view;
  for (let i = 0; i < whole; i++) {
    const word = view[i] ?? 0;
    first = Math.imul(first ^ word, 0x9e3779b1);
    first ^= first >>> 15;
    second = Math.imul(second ^ word, 0x85ebca6b);
    second ^= second >>> 13;
  }
  if (length & 3) {
    // The last one to three bytes, the rest of their word zero (the length is in both lanes already).
    const bytes = scratch.bytes;
    let tail = 0;
    for (let i = length & ~3; i < length; i++) tail |= (bytes[i] ?? 0) << ((i & 3) * 8);
    first = Math.imul(first ^ tail, 0x9e3779b1);
    first ^= first >>> 15;
    second = Math.imul(second ^ tail, 0x85ebca6b);
    second ^= second >>> 13;
  }
  first = Math.imul(first ^ length, 0xc2b2ae35);
  first ^= first >>> 16;
  return (first >>> 0) * 2097152 + ((second >>> 0) % 2097152);
}

const UTF8 = new TextEncoder();

/** One scratch buffer for every fingerprint, seen as bytes and as 32-bit words, grown when a body needs more. */
let scratch = scratchOf(1 << 16);

function scratchOf(byteLength: number): { readonly bytes: Uint8Array; readonly view: Int32Array } {
  const buffer = new ArrayBuffer(byteLength);
  return { bytes: new Uint8Array(buffer), view: new Int32Array(buffer) };
}

/** Writes the UTF-8 bytes of `text` into the scratch buffer; answers how many there are. */
function writeUtf8(text: string): number {
  // A UTF-16 unit is at most 3 bytes; the buffer is a whole number of words.
  const needed = (text.length * 3 + 4) & ~3;
  if (needed > scratch.bytes.length) scratch = scratchOf(needed);
  return UTF8.encodeInto(text, scratch.bytes).written;
}

/** The fingerprint of a skill's body, whether or not it still holds its text. */
export function skillBodyFingerprint(skill: SkillFile): number {
  return skill instanceof ReleasedSkill ? skill.bodyFingerprint : bodyFingerprint(skill.body);
}

/** The slugs every mention of which is in inline code (usually none: an empty array is shared). */
function codeOnlySlugs(mentions: readonly Mention[]): readonly string[] {
  if (!mentions.some((mention) => mention.inCode)) return NONE;
  const inProse = new Set(mentions.filter((mention) => !mention.inCode).map((mention) => mention.slug));
  return uniqueSlugs(mentions.filter((mention) => mention.inCode && !inProse.has(mention.slug)));
}

function invalidHandleProblem(handle: string, lines: LineMap): CoreDiagnostic {
  return {
    range: lines.rangeOf(0, 0),
    severity: "error",
    code: DiagnosticCodes.invalidHandle,
    message:
      handle.length === 0
        ? "This skill has no handle: name the file <handle>.skill.md."
        : `"${handle}" is not a valid handle (the file name is the handle): use lower-case letters and digits joined by single hyphens, at most 64 characters.`,
    fix: { kind: "rename-skill", reason: "invalid" },
  };
}

/** Why a text cannot be a skill: binary content (NUL bytes) or a size past the limit. */
export function unreadableReason(text: string): { code: CoreDiagnostic["code"]; message: string } | undefined {
  if (text.length > MAX_SKILL_CHARS) {
    return { code: DiagnosticCodes.fileTooLarge, message: `This file has ${groupedDigits(text.length)} characters; a skill is read up to ${groupedDigits(MAX_SKILL_CHARS)}. Its mentions are ignored until it is shorter.` };
  }
  if (text.includes("\u0000")) {
    return { code: DiagnosticCodes.binaryFile, message: "This file holds binary data (NUL bytes), not text: its content is ignored (the file still claims its handle)." };
  }
  return undefined;
}

/**
 * The part of a skill's text that its claim (handle, enabled, advertised) depends on: the text up to the end of
 * its closed frontmatter. A readable text parsed from this part claims exactly what the whole text claims, for
 * every skill format (the handle comes from the path, the rest from the frontmatter); an unreadable text (too
 * large, binary), or one without a closed frontmatter, is its own claiming part whole.
 */
export function claimingPart(text: string): string {
  if (unreadableReason(text)) return text;
  const end = closedFrontmatterEnd(text);
  return end === undefined ? text : text.slice(0, end);
}

/** The frontmatter's parsed values (exported for the tests that compare the two parsers). */
export interface Frontmatter {
  title?: string;
  summary?: string;
  summarySpan?: [number, number];
  enabled?: boolean;
  advertised?: boolean;
  examples: ListEntry[];
  nearMisses: ListEntry[];
  summaryUnknown: boolean;
}

function parseFrontmatter(source: string, base: number, lines: LineMap, problems: CoreDiagnostic[]): Frontmatter {
  const simple = parseSimpleFrontmatter(source, base);
  if (simple) return simple;
  const before = problems.length;
  try {
    if (flowDepth(source) > MAX_FLOW_DEPTH) throw new RangeError("nested too deeply");
    return parseYamlFrontmatter(source, base, lines, problems);
  } catch (error) {
    // A 1 MB frontmatter of `[` took the YAML library 25 seconds, then overflowed the stack. Never throw, never stall.
    problems.length = before;
    const firstLine = source.search(/\r|\n|$/);
    problems.push({
      range: lines.rangeOf(base, base + firstLine),
      severity: "error",
      code: DiagnosticCodes.frontmatterSyntax,
      message: `Frontmatter YAML cannot be read${error instanceof RangeError ? `: it nests lists or maps deeper than ${MAX_FLOW_DEPTH} levels` : ""}. Write plain key: value lines.`,
    });
    return { examples: [], nearMisses: [], summaryUnknown: true };
  }
}

const SIMPLE_LINE = /^([A-Za-z][A-Za-z-]*):(?: +(.*?))? *$/;

/**
 * The common frontmatter, `key: plain text` lines with known keys, read without the YAML library, which costs
 * more than all the rest of a skill's parse. Anything else (quotes, lists, block scalars, comments, numbers,
 * unknown or repeated keys) answers undefined and goes to the YAML library. A test checks that whenever this
 * answers, the YAML path answers the same.
 */
export function parseSimpleFrontmatter(source: string, base: number): Frontmatter | undefined {
  const result: Frontmatter = { examples: [], nearMisses: [], summaryUnknown: false };
  const seen = new Set<string>();
  const read = everyLine(source, (line, offset) => {
    if (line.trim() === "") return line === "";
    const match = SIMPLE_LINE.exec(line);
    const key = match?.[1];
    const value = match?.[2];
    if (!match || key === undefined || value === undefined || value === "" || seen.has(key)) return false;
    seen.add(key);
    if (key === "enabled" || key === "advertised") {
      if (value !== "true" && value !== "false") return false;
      result[key] = value === "true";
    } else if (key === "title" || key === "summary") {
      if (!isSafePlainScalar(value)) return false;
      if (key === "title") result.title = value;
      else {
        const start = offset + line.indexOf(value, key.length + 1);
        result.summary = value;
        result.summarySpan = [base + start, base + start + value.length];
      }
    } else {
      return false;
    }
    return true;
  });
  return read ? result : undefined;
}

/** The frontmatter read by the YAML library, with an exact range for every problem (exported for tests). */
export function parseYamlFrontmatter(source: string, base: number, lines: LineMap, problems: CoreDiagnostic[]): Frontmatter {
  const result: Frontmatter = { examples: [], nearMisses: [], summaryUnknown: false };
  const document = parseDocument(source, { uniqueKeys: true, prettyErrors: false, strict: true });
  const spanOf = (node: Node | null | undefined, fallback: [number, number]): [number, number] => {
    const range = node?.range;
    if (!range) return [base + fallback[0], base + fallback[1]];
    // A block value's range takes in its last line break: end the span on the value's last character.
    let end = range[1];
    while (end > range[0] && /\s/.test(source.charAt(end - 1))) end--;
    return [base + range[0], base + end];
  };
  const report = (span: [number, number], code: CoreDiagnostic["code"], severity: CoreDiagnostic["severity"], message: string) =>
    problems.push({ range: lines.rangeOf(span[0], Math.max(span[1], span[0])), severity, code, message });

  const contentEnd = source.trimEnd().length;
  let reportedLine = -1;
  for (const error of document.errors) {
    let [from, to] = error.pos;
    const atEnd = from >= contentEnd;
    if (atEnd) {
      // An error at the end of the input (an unclosed quote or bracket): point at the YAML's last line, not at the fence after it.
      to = contentEnd;
      from = Math.min(to, source.lastIndexOf("\n", Math.max(0, contentEnd - 1)) + 1);
    }
    // Later errors on a line the library already faulted are echoes of the first: one message per line. Errors
    // at the end of the input are each something left open (a quote, a bracket): all of them are kept.
    const line = lines.positionAt(base + from).line;
    if (line === reportedLine && !atEnd) continue;
    reportedLine = line;
    report([base + from, base + Math.min(to, source.length)], DiagnosticCodes.frontmatterSyntax, "error", explainYamlError(source, { code: error.code, message: error.message, pos: [from, to] }));
  }
  if (document.errors.length > 0) return { ...result, summaryUnknown: true };
  const contents = document.contents;
  if (contents === null || (isScalar(contents) && contents.value === null)) return result;
  if (!isMap(contents)) {
    report(spanOf(contents, [0, source.length]), DiagnosticCodes.frontmatterType, "error", "The frontmatter must be `key: value` lines (title, summary, enabled, advertised).");
    return { ...result, summaryUnknown: true };
  }

  let description: { text: string; span: [number, number] } | undefined;
  for (const pair of contents.items as Pair<Node, Node>[]) {
    const keyNode = pair.key;
    const key = isScalar(keyNode) ? String(keyNode.value) : undefined;
    const keySpan = spanOf(keyNode, [0, 0]);
    if (key !== undefined && (AGENT_SKILL_KEYS as readonly string[]).includes(key)) {
      const valueNode = pair.value;
      if (key === "description" && isScalar(valueNode) && typeof valueNode.value === "string") description = { text: valueNode.value, span: spanOf(valueNode, [0, 0]) };
      continue;
    }
    if (key === undefined || !(key in FRONTMATTER_KEYS)) {
      const suggestion = key === undefined ? [] : nearest(key, Object.keys(FRONTMATTER_KEYS), 1);
      report(
        keySpan,
        DiagnosticCodes.frontmatterUnknownKey,
        "warning",
        `Unknown frontmatter key "${key ?? "?"}"${suggestion[0] ? `: did you mean "${suggestion[0]}"?` : `. Known keys: ${Object.keys(FRONTMATTER_KEYS).join(", ")}.`}`,
      );
      continue;
    }
    const known = key as FrontmatterKey;
    const valueNode = pair.value;
    // An empty value (`title:`) has an empty span at the line's end: point at its key instead.
    const valueSpan = valueNode?.range && valueNode.range[1] > valueNode.range[0] ? spanOf(valueNode, [0, 0]) : keySpan;
    const want = FRONTMATTER_KEYS[known];
    const wrongType = () =>
      report(valueSpan, DiagnosticCodes.frontmatterType, "error", `"${known}" must be a ${want}${want === "boolean" ? " (true or false)" : ""}.`);

    if (want === "string list") {
      if (!isSeq(valueNode)) {
        wrongType();
        continue;
      }
      const entries: ListEntry[] = [];
      for (const item of valueNode.items as Node[]) {
        if (isScalar(item) && typeof item.value === "string") {
          const span = spanOf(item, [0, 0]);
          entries.push({ text: item.value, range: lines.rangeOf(span[0], span[1]) });
        } else {
          report(spanOf(item, valueSpan.map((n) => n - base) as [number, number]), DiagnosticCodes.frontmatterType, "error", `Each entry of "${known}" must be a string (a request, in quotes if it has a colon).`);
        }
      }
      if (known === "examples") result.examples = entries;
      else result.nearMisses = entries;
      continue;
    }
    const value = isScalar(valueNode) ? valueNode.value : undefined;
    if (typeof value !== want) {
      wrongType();
      if (known === "summary") result.summaryUnknown = true;
      continue;
    }
    if (known === "title") result.title = value as string;
    else if (known === "enabled") result.enabled = value as boolean;
    else if (known === "advertised") result.advertised = value as boolean;
    else if (known === "summary") {
      const text = value as string;
      result.summary = text.trim();
      result.summarySpan = valueSpan;
      const lineCount = text.trim().split(/\r?\n/).length;
      if (lineCount > MAX_SUMMARY_LINES) {
        report(valueSpan, DiagnosticCodes.longSummary, "warning", `A summary is a menu entry of one to three lines; this one has ${lineCount}. Move the detail into the body.`);
      }
    }
  }
  if (result.summary === undefined && !result.summaryUnknown && description !== undefined) {
    result.summary = description.text.trim();
    result.summarySpan = description.span;
  }
  return result;
}
