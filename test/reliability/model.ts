/**
 * A small reference model of the namespace, written from SPEC.md and independent of server/src/core: it
 * reads the texts the fuzz test generates (a restricted grammar: an optional frontmatter of `summary:`,
 * `enabled:` and `advertised:` lines, then prose with mentions; a skills.json with an alignment menu and
 * instructions) and answers what the server must: the diagnostic codes of every file, the references of a
 * slug, and the outcome of a rename.
 */
import { findMentions } from "./mentions.js";
import { TextIndex, type Range } from "./support.js";

/** The built-in tools' slugs (SPEC.md, "Tools"). */
export const TOOL_SLUGS = new Set(["check-notebook", "find-file", "list-devices", "grep-memory", "current-date", "calendar"]);

const VALID_HANDLE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function isValidHandle(handle: string): boolean {
  return handle.length > 0 && handle.length <= 64 && VALID_HANDLE.test(handle);
}

/** The handle a skill file's URI gives: the decoded file name without `.skill.md`. */
export function handleOf(uri: string): string {
  const name = decodeURIComponent(uri.slice(uri.lastIndexOf("/") + 1));
  return name.slice(0, -".skill.md".length);
}

export interface ModelMention {
  readonly slug: string;
  readonly written: string;
  readonly start: number;
  readonly end: number;
  /** In skills.json: a whole menu entry, or free text. */
  readonly place: "summary" | "body" | "menu" | "text";
}

export interface ModelSkill {
  readonly kind: "skill";
  readonly uri: string;
  readonly text: string;
  readonly handle: string;
  readonly slug: string;
  readonly valid: boolean;
  readonly hasSummary: boolean;
  readonly enabled: boolean;
  readonly advertised: boolean;
  readonly mentions: readonly ModelMention[];
  readonly malformed: number;
  /** The summary's nonce words, sorted: two summaries are alike on the menu exactly when these are equal (see NONCE). */
  readonly nonces: string;
}

/**
 * The fuzz test's summaries carry eight words no other summary has, and at most one more token (three words at
 * most). Two of them share all eight words only when one is a copy of the other (a file moved on disk while
 * open), which scores at least 8/11 ≈ 0.73 on the server's menu-similar measure (threshold 0.7); any other pair
 * shares at most the three token words, 3/8 ≈ 0.38. So the model needs no similarity measure of its own.
 */
export const NONCE = /\bzq[0-9a-z]*[kvxj]\b/g;

export interface ModelConfig {
  readonly kind: "config";
  readonly uri: string;
  readonly text: string;
  readonly mentions: readonly ModelMention[];
  /** Menu entries that are not one whole handle. */
  readonly invalidEntries: number;
}

export type ModelFile = ModelSkill | ModelConfig;

/** Reads a generated skill text: byte-order mark, frontmatter lines, body. */
export function readSkill(uri: string, text: string): ModelSkill {
  const start = text.startsWith("\uFEFF") ? 1 : 0;
  const handle = handleOf(uri);
  let bodyStart = start;
  let summary: { start: number; end: number } | undefined;
  let enabled = true;
  let advertised = true;
  const opening = /^---(\r\n|\n)/.exec(text.slice(start));
  if (opening) {
    const contentStart = start + opening[0].length;
    const closing = /(^|\r\n|\n)---(\r\n|\n|$)/.exec(text.slice(contentStart));
    if (!closing) throw new Error(`the generator wrote an unclosed frontmatter: ${JSON.stringify(text)}`);
    const contentEnd = contentStart + closing.index;
    bodyStart = contentEnd + closing[0].length;
    let offset = contentStart;
    for (const line of text.slice(contentStart, contentEnd).split(/\r\n|\n/)) {
      const [key, value] = [line.slice(0, line.indexOf(": ")), line.slice(line.indexOf(": ") + 2)];
      if (key === "summary") summary = { start: offset + key.length + 2, end: offset + line.length };
      else if (key === "enabled") enabled = value === "true";
      else if (key === "advertised") advertised = value === "true";
      else if (line !== "") throw new Error(`the generator wrote an unknown frontmatter line: ${JSON.stringify(line)}`);
      offset += line.length + (text.startsWith("\r\n", offset + line.length) ? 2 : 1);
    }
  }
  const mentions: ModelMention[] = [];
  let malformed = 0;
  for (const [from, to, place] of [...(summary ? [[summary.start, summary.end, "summary"] as const] : []), [bodyStart, text.length, "body"] as const]) {
    const found = findMentions(text, from, to);
    malformed += found.malformed.length;
    for (const mention of found.mentions) mentions.push({ ...mention, place });
  }
  const nonces = summary ? [...text.slice(summary.start, summary.end).matchAll(NONCE)].map((match) => match[0]).sort().join(" ") : "";
  return { kind: "skill", uri, text, handle, slug: handle.toLowerCase(), valid: isValidHandle(handle), hasSummary: summary !== undefined && summary.end > summary.start, enabled, advertised, mentions, malformed, nonces };
}

/** Reads a generated skills.json: string literals with no escapes, menu entries and instructions. */
export function readConfig(uri: string, text: string): ModelConfig {
  const mentions: ModelMention[] = [];
  let invalidEntries = 0;
  const menu = /"menu": \[([^\]]*)\]/.exec(text);
  const menuStart = menu ? menu.index + menu[0].indexOf("[") : -1;
  const menuEnd = menu ? menuStart + (menu[1]?.length ?? 0) + 1 : -1;
  for (const literal of text.matchAll(/"([^"\\]*)"(\s*:)?/g)) {
    if (literal[2] !== undefined) continue; // a key
    const start = (literal.index ?? 0) + 1;
    const value = literal[1] ?? "";
    const found = findMentions(text, start, start + value.length).mentions;
    const inMenu = start > menuStart && start < menuEnd;
    if (inMenu) {
      // Every mention in a menu entry counts as a menu mention; an entry that is not one whole handle is also invalid.
      const whole = found.length === 1 && found[0]?.start === start && found[0].end === start + value.length;
      if (!whole) invalidEntries++;
      for (const mention of found) mentions.push({ ...mention, place: "menu" });
    } else {
      for (const mention of found) mentions.push({ ...mention, place: "text" });
    }
  }
  return { kind: "config", uri, text, mentions, invalidEntries };
}

/** The model of a whole workspace: every file the server should hold, by URI, with its text. */
export class Model {
  readonly files: ReadonlyMap<string, ModelFile>;
  readonly #claimants = new Map<string, ModelSkill[]>();

  constructor(texts: ReadonlyMap<string, string>) {
    const files = new Map<string, ModelFile>();
    for (const [uri, text] of texts) files.set(uri, uri.endsWith("/skills.json") ? readConfig(uri, text) : readSkill(uri, text));
    this.files = files;
    for (const file of [...files.values()].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0))) {
      if (file.kind === "skill" && file.valid) this.#claimants.set(file.slug, [...(this.#claimants.get(file.slug) ?? []), file]);
    }
  }

  claimants(slug: string): readonly ModelSkill[] {
    return this.#claimants.get(slug) ?? [];
  }

  /** A tool wins; then the first claimant by URI. */
  resolve(slug: string): { kind: "tool" } | { kind: "skill"; skill: ModelSkill } | undefined {
    if (TOOL_SLUGS.has(slug)) return { kind: "tool" };
    const skill = this.claimants(slug)[0];
    return skill ? { kind: "skill", skill } : undefined;
  }

  #mentionCodes(mention: ModelMention, cursor?: number): string[] {
    const target = this.resolve(mention.slug);
    if (!target) return cursor !== undefined && mention.start < cursor && cursor <= mention.end ? [] : ["unknown-mention"];
    const codes: string[] = [];
    if (target.kind === "skill" && !target.skill.enabled) codes.push("disabled-mention");
    if (mention.written !== mention.slug) codes.push("mention-case");
    return codes;
  }

  /**
   * The sorted diagnostic codes the server must report for a file. With `cursor` (where the last edit of the
   * open document ended), an unknown mention the cursor is inside or right after is held back, as while typing.
   */
  codes(uri: string, cursor?: number): string[] {
    const file = this.files.get(uri);
    if (!file) return [];
    const codes: string[] = [];
    if (file.kind === "skill") {
      for (let i = 0; i < file.malformed; i++) codes.push("malformed-mention");
      if (!file.valid) codes.push("invalid-handle");
      if (file.advertised && file.enabled && !file.hasSummary) codes.push("missing-summary");
      if (file.valid && TOOL_SLUGS.has(file.slug)) codes.push("tool-collision");
      if (file.valid && this.claimants(file.slug).length > 1) codes.push("duplicate-handle");
      for (const mention of file.mentions) codes.push(...this.#mentionCodes(mention, cursor));
      // Menu competition: another advertised, enabled skill (with another handle) whose summary is a copy of this one's.
      const competes = (skill: ModelSkill) => skill.valid && skill.enabled && skill.advertised && skill.hasSummary && skill.nonces !== "";
      if (competes(file)) {
        const alike = [...this.files.values()].filter((other) => other.kind === "skill" && other.uri !== file.uri && other.slug !== file.slug && competes(other) && other.nonces === file.nonces);
        if (alike.length > 0) codes.push("menu-similar");
      }
    } else {
      for (let i = 0; i < file.invalidEntries; i++) codes.push("config-invalid");
      for (const mention of file.mentions) {
        if (mention.place === "text") {
          codes.push(...this.#mentionCodes(mention, cursor));
          continue;
        }
        const target = this.resolve(mention.slug);
        if (!target || target.kind === "tool" || !target.skill.enabled || !target.skill.advertised) codes.push("config-unknown-handle");
      }
    }
    return codes.sort();
  }

  /** Every mention of a slug, in every file, as (uri, range); with the declaration, each claimant's file start. */
  references(slug: string, includeDeclaration: boolean): string[] {
    const found: string[] = [];
    if (includeDeclaration) for (const skill of this.claimants(slug)) found.push(`${skill.uri} 0:0-0:0`);
    for (const file of this.files.values()) {
      const index = new TextIndex(file.text);
      for (const mention of file.mentions) {
        if (mention.slug !== slug) continue;
        const start = index.positionOf(mention.start);
        const end = index.positionOf(mention.end);
        found.push(`${file.uri} ${start.line}:${start.character}-${end.line}:${end.character}`);
      }
    }
    return found.sort();
  }

  /** What a rename of the skill behind `slug` to `newName` must do: refuse, or rewrite these texts and move this file. */
  rename(slug: string, newName: string): { refused: string } | { texts: Map<string, string>; from: string; to: string } {
    const target = this.resolve(slug);
    if (!target) return { refused: "unknown" };
    if (target.kind === "tool") return { refused: "tool" };
    const claimants = this.claimants(slug);
    if (claimants.length > 1) return { refused: "ambiguous" };
    const skill = target.skill;
    const handle = newName.trim().replace(/^@/, "");
    if (!isValidHandle(handle)) return { refused: "invalid" };
    if (handle === slug) return { refused: "unchanged" };
    if (TOOL_SLUGS.has(handle) || this.claimants(handle).some((other) => other.uri !== skill.uri)) return { refused: "taken" };
    const to = `${skill.uri.slice(0, skill.uri.lastIndexOf("/") + 1)}${encodeURIComponent(handle)}.skill.md`;
    if ([...this.files.values()].some((file) => file.kind === "skill" && file.uri !== skill.uri && file.uri.toLowerCase() === to.toLowerCase())) return { refused: "occupied" };
    const texts = new Map<string, string>();
    for (const file of this.files.values()) {
      const spans = file.mentions.filter((mention) => mention.slug === slug).sort((a, b) => a.start - b.start);
      if (spans.length === 0) continue;
      let text = "";
      let cursor = 0;
      for (const span of spans) {
        text += file.text.slice(cursor, span.start) + `@${handle}`;
        cursor = span.end;
      }
      texts.set(file.uri, text + file.text.slice(cursor));
    }
    return { texts, from: skill.uri, to };
  }
}

/** A range as the model's references write it. */
export function rangeKey(uri: string, range: Range): string {
  return `${uri} ${range.start.line}:${range.start.character}-${range.end.line}:${range.end.character}`;
}
