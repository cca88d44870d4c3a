import { createHash } from "node:crypto";
import { isMap, isScalar, parseDocument, stringify } from "yaml";
import { AGENT_SKILL_FILE } from "./agentSkills/paths.js";
import { applyEdits, scanMentions, type MentionToken } from "./mentions.js";
import { isRefusal, type Namespace, type Refusal } from "./namespace.js";
import { FRONTMATTER_KEYS, MAX_SKILL_CHARS, parseSkillFile, SKILL_SUFFIX, unreadableReason, type SkillFile } from "./skillFile.js";
import { handleProblem, makeSlug, slugKey, titleFromHandle } from "./slug.js";
import type { Position } from "./text.js";
import type { ToolSpec } from "./tools.js";
import { groupedDigits } from "../../../shared/words.js";

export { AGENT_SKILL_FILE };

/** The `format` every bundle carries, so a stray JSON file is never mistaken for one. */
export const BUNDLE_FORMAT = "skill-bundle";
/** The one format version this editor reads and writes. */
export const BUNDLE_VERSION = 1;
/** Larger bundle files are refused unread: prose is a few kilobytes; a skill's fonts and templates, a few megabytes. */
export const MAX_BUNDLE_BYTES = 16 * 1024 * 1024;
/** A larger file of a skill's folder is left out by name (the review and the export say so). */
export const MAX_SKILL_FILE_BYTES = 8 * 1024 * 1024;
/** The file-name ending of a bundle. */
export const BUNDLE_SUFFIX = ".skillbundle.json";
/** The file an Agent Skills folder holds. */
/** The Agent Skills format caps `description` at this many characters. */
export const MAX_AGENT_DESCRIPTION = 1024;

/**
 * A file of a skill's folder besides the skill file itself (`scripts/…`, `references/…`, `assets/…`,
 * `LICENSE.txt`): carried byte for byte, never run. Its bytes travel as base64.
 */
export interface BundleFile {
  /** Relative to the skill's folder, `/`-separated: never absolute, never `..`. */
  readonly path: string;
  /** `755` when the file was executable, else `644`: no other bit is carried. */
  readonly mode: FileMode;
  /** The sha256 of its bytes, hex. */
  readonly sha256: string;
  readonly base64: string;
}

export type FileMode = "644" | "755";

/** Something in a skill's folder that does not travel, named with the reason. */
export interface LeftOut {
  readonly path: string;
  readonly reason: string;
}

/** One shipped skill: its handle, its whole `.skill.md` text, and the text's sha256 (hex, of its UTF-8 bytes). */
export interface BundleSkill {
  readonly handle: string;
  readonly text: string;
  readonly sha256: string;
  /** The other files of the skill's folder; absent or empty for a skill that is one file. */
  readonly files?: readonly BundleFile[];
}

/** A tool the closure needs. Tools are code, so they are never shipped: only named. */
export interface BundleTool {
  readonly slug: string;
  /** The bound name the model's tool-calling machinery sees. */
  readonly name: string;
}

/** A skill with its transitive @-closure: everything it needs except the tools, which it lists. */
export interface Bundle {
  readonly format: typeof BUNDLE_FORMAT;
  readonly version: typeof BUNDLE_VERSION;
  /** The handle that was shared; the others are there because it needs them. */
  readonly root: string;
  readonly skills: readonly BundleSkill[];
  readonly tools: readonly BundleTool[];
}

/** A mention an import changes: re-slugged to follow a renamed skill, or escaped because it names nothing. */
export interface MentionRewrite {
  readonly kind: "rename" | "escape";
  /** As written in the incoming text, with its `@`. */
  readonly from: string;
  readonly to: string;
  /** Where it stands in the incoming text (zero-based, like an LSP position). */
  readonly position: Position;
}

/** What an import does with one incoming skill. */
export interface IncomingReview {
  /** Its handle in the bundle. */
  readonly incoming: string;
  /** The handle it gets here. */
  readonly handle: string;
  /** `create` a new file, or `reuse` a skill already here with the same content (see `planImport`). */
  readonly action: "create" | "reuse";
  /** The file to create, or the file reused. */
  readonly uri: string;
  readonly title: string;
  readonly summary: string | undefined;
  /** Why the handle changed, when it did: who holds the incoming one here. */
  readonly takenBy: Holder | undefined;
  readonly rewrites: readonly MentionRewrite[];
  /** The folder's other files that come with it, with their modes. */
  readonly files: readonly { readonly path: string; readonly mode: FileMode }[];
  /** What does not come, by name. */
  readonly leftOut: readonly LeftOut[];
  /** What is worth knowing before accepting (a description past the Agent Skills limit, kept whole). */
  readonly notes: readonly string[];
}

/** Who holds a handle here, so an incoming skill had to be re-slugged. */
export type Holder =
  | { readonly kind: "tool"; readonly name: string }
  | { readonly kind: "skill"; readonly uri: string }
  /** A file whose name differs only in case: the same file on a case-insensitive disk. */
  | { readonly kind: "file"; readonly uri: string }
  /** A tool the bundle itself needs: a skill must not shadow it. */
  | { readonly kind: "needed-tool" };

/** A tool the bundle needs, and what this workspace has under its slug. */
export interface ToolNeed extends BundleTool {
  /** `present`: the same tool; `other-name`: a tool bound to another name; `skill`: a skill holds the slug; `missing`: nothing. */
  readonly status: "present" | "other-name" | "skill" | "missing";
  /** The bound name here (other-name) or the skill's URI (skill). */
  readonly here: string | undefined;
}

/** The review shown before anything is written. Plain data. */
export interface ImportReview {
  /** The handle the bundle's root gets here. */
  readonly root: string;
  readonly skills: readonly IncomingReview[];
  readonly tools: readonly ToolNeed[];
  /** The tools the closure needs that this workspace lacks (nothing, or a skill, holds the slug). */
  readonly missingTools: readonly ToolNeed[];
}

/** A file an import creates: a skill's text, or (with `bytes`) a file of its folder, whose `text` is empty. */
export interface PlannedFile {
  readonly uri: string;
  readonly text: string;
  readonly bytes?: { readonly base64: string; readonly mode: FileMode; readonly sha256: string };
}

/** An accepted import is one atomic workspace edit that creates `files`; nothing else changes. */
export interface ImportPlan {
  /** The target folder's URI, ending in `/`: every file lies directly inside it. */
  readonly folder: string;
  readonly review: ImportReview;
  readonly files: readonly PlannedFile[];
}

/** One Agent Skills folder: `<folder>/SKILL.md`, written from the skill at `source`. */
export interface AgentSkillFolder {
  readonly folder: string;
  readonly text: string;
  /** The skill it comes from: its folder's other files go with it. */
  readonly source: string;
  /** What differs from the skill as written, or is worth knowing (a description past the format's limit). */
  readonly notes: readonly string[];
}

/** A skill read from an Agent Skills folder, as a `.skill.md` text. */
export interface IncomingSkill {
  readonly handle: string;
  readonly text: string;
  /** Tools the skill declared it needs (written by `toAgentSkill`). */
  readonly tools: readonly BundleTool[];
  /** Frontmatter keys this format has no place for: not imported (only when a skill of ours comes back converted). */
  readonly dropped: readonly string[];
  /** The folder's other files, read by the caller (the core reads no disk). */
  readonly files?: readonly BundleFile[];
  readonly leftOut?: readonly LeftOut[];
}

const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const SHA256 = /^[0-9a-f]{64}$/;
const BUNDLE_KEYS = ["$schema", "format", "version", "root", "skills", "tools"];
const SKILL_KEYS = ["handle", "text", "sha256", "files"];
const FILE_KEYS = ["path", "mode", "sha256", "base64"];
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const TOOL_KEYS = ["slug", "name"];
/** Our fields that the Agent Skills format has no key for travel in its `metadata` map, under this prefix. */
const META = "skill-lsp.";

/** The sha256 of a text's UTF-8 bytes, in hex: what a bundle records per skill. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** A folder file as a bundle carries it. */
export function bundleFile(path: string, bytes: Uint8Array, executable: boolean): BundleFile {
  return { path, mode: executable ? "755" : "644", sha256: createHash("sha256").update(bytes).digest("hex"), base64: Buffer.from(bytes).toString("base64") };
}

/**
 * Why a folder file's path cannot travel, or undefined when it can: it must be relative, `/`-separated, with no
 * empty, `.` or `..` segment, no drive, no NUL, and not be a skill file (which would become another skill).
 */
export function folderPathProblem(path: string): string | undefined {
  if (path === "" || path.length > 1024) return "an empty or overlong path";
  if (path.includes("\\") || path.includes("\0") || /^[A-Za-z]:/.test(path) || path.startsWith("/")) return "a path that is not relative to the skill's folder";
  if (path.split("/").some((segment) => segment === "" || segment === "." || segment === "..")) return "a path that leaves or repeats its folder";
  if (path.toLowerCase().endsWith(SKILL_SUFFIX) || path === AGENT_SKILL_FILE) return "a skill file (import it as a skill of its own)";
  return undefined;
}

function refuse(refused: string): Refusal {
  return { refused };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A name that is a path, not a file name: the one way a bundle could reach outside its target folder. */
function escapesFolder(name: string): boolean {
  return /[/\\]/.test(name) || name === "." || name === ".." || name.includes("\0") || /^[A-Za-z]:/.test(name);
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function megabytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}

// ————————————————————————————————————————————————————————— export

interface Closure {
  readonly skills: readonly SkillFile[];
  readonly tools: readonly ToolSpec[];
}

/**
 * The skill named `handle` and every skill it mentions (summary and body), transitively, root first then in
 * first-appearance order; and the tools they mention. Refuses a closure with a dangling or ambiguous mention:
 * what is shared must resolve on the other side.
 */
function closureOf(namespace: Namespace, handle: string): Closure | Refusal {
  const key = slugKey(handle.replace(/^@/, ""));
  const tool = namespace.tool(key);
  if (tool) return refuse(`@${key} is the tool ${tool.name}: tools ship with the app; only skills can be shared.`);
  const skills: SkillFile[] = [];
  const tools: ToolSpec[] = [];
  const seen = new Set<string>();
  const claim = (slug: string, by: string): SkillFile | Refusal => {
    const claimants = namespace.claimants(slug);
    const only = claimants[0];
    if (!only) return refuse(by === "" ? `No skill is named @${slug}.` : `${by} mentions @${slug}, which names nothing in this workspace: fix or remove the mention before sharing, so the bundle has no dangling mention.`);
    if (claimants.length > 1) return refuse(`@${slug} is claimed by ${claimants.length} skills (${claimants.map((skill) => skill.uri).join(", ")}): rename one so the handle is unambiguous before sharing.`);
    const unreadable = unreadableReason(only.text);
    if (unreadable) return refuse(`@${slug} cannot be shared: ${unreadable.message}`);
    return only;
  };
  const root = claim(key, "");
  if (isRefusal(root)) return root;
  skills.push(root);
  seen.add(root.slug);
  for (let next = 0; next < skills.length; next++) {
    const skill = skills[next];
    if (!skill) break;
    for (const mention of skill.mentions) {
      if (seen.has(mention.slug)) continue;
      const target = namespace.resolve(mention.slug);
      if (!target && mention.inCode) continue;
      if (target?.kind === "tool") {
        seen.add(mention.slug);
        tools.push(target.tool);
        continue;
      }
      const line = mention.range.start.line + 1;
      const found = claim(mention.slug, `@${skill.slug} (line ${line})`);
      if (isRefusal(found)) return found;
      seen.add(mention.slug);
      skills.push(found);
    }
  }
  return { skills, tools };
}

/**
 * Exports a skill with its transitive @-closure as a bundle: each skill's text verbatim with its sha256, and
 * the tools the closure needs by slug and bound name. Refuses a tool, an unknown or ambiguous handle, a
 * closure with a dangling mention, and a bundle past the size an import accepts.
 */
export function exportBundle(namespace: Namespace, handle: string, filesOf: (skill: SkillFile) => readonly BundleFile[] = () => []): Bundle | Refusal {
  const closure = closureOf(namespace, handle);
  if (isRefusal(closure)) return closure;
  const [root] = closure.skills;
  const bundle: Bundle = {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    root: root?.slug ?? "",
    skills: closure.skills.map((skill) => {
      const files = filesOf(skill);
      return files.length > 0 ? { handle: skill.slug, text: skill.text, sha256: sha256Hex(skill.text), files } : { handle: skill.slug, text: skill.text, sha256: sha256Hex(skill.text) };
    }),
    tools: closure.tools.map((tool) => ({ slug: tool.slug, name: tool.name })),
  };
  // What the other side would refuse is not worth writing.
  const size = utf8Length(bundleText(bundle));
  if (size > MAX_BUNDLE_BYTES) return refuse(`@${bundle.root} with its ${bundle.skills.length} skills makes a ${megabytes(size)} MB bundle; a bundle is at most ${megabytes(MAX_BUNDLE_BYTES)} MB.`);
  return bundle;
}

/** The skills a share of `handle` takes: the skill and its closure, root first (the same refusals as `exportBundle`). */
export function skillClosure(namespace: Namespace, handle: string): readonly SkillFile[] | Refusal {
  const closure = closureOf(namespace, handle);
  return isRefusal(closure) ? closure : closure.skills;
}

/** A bundle's file text: stable, pretty JSON with a final newline (no timestamp, so one closure gives one file). */
export function bundleText(bundle: Bundle): string {
  const { format, version, root, skills, tools } = bundle;
  const skillEntries = skills.map(({ handle, text, sha256, files }) =>
    files && files.length > 0 ? { handle, text, sha256, files: files.map(({ path, mode, sha256: hash, base64 }) => ({ path, mode, sha256: hash, base64 })) } : { handle, text, sha256 },
  );
  return `${JSON.stringify({ format, version, root, skills: skillEntries, tools: tools.map(({ slug, name }) => ({ slug, name })) }, null, 2)}\n`;
}

// ————————————————————————————————————————————————————————— parse and validate

/**
 * Reads a bundle file's text. A bundle is data: it is checked against the format (the same rules as
 * `schemas/skill-bundle.schema.json`, plus the hashes and the closure) and nothing in it is ever run. Refuses,
 * with a message that says what to fix: an oversize text, malformed JSON, another format or version, an
 * unknown key, a handle that is not a slug or would write outside the target folder, duplicate handles, a text
 * that is not a string, a hash that does not match, and a mention the bundle neither ships nor lists as a tool.
 */
export function parseBundle(text: string): Bundle | Refusal {
  if (text.length > MAX_BUNDLE_BYTES || utf8Length(text) > MAX_BUNDLE_BYTES) {
    return refuse(`The bundle is ${megabytes(Math.max(text.length, utf8Length(text)))} MB; a bundle is at most ${megabytes(MAX_BUNDLE_BYTES)} MB.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    return refuse(`The bundle is not valid JSON: ${error instanceof Error ? error.message : String(error)}.`);
  }
  return validateBundle(value, true);
}

/**
 * Checks a value that claims to be a bundle. With `closed`, every mention in every text must name a shipped
 * skill or a listed tool (what `exportBundle` guarantees); bundles built from Agent Skills folders are not
 * closed: their other mentions are settled by `planImport`.
 */
export function validateBundle(value: unknown, closed: boolean): Bundle | Refusal {
  if (!isRecord(value)) return refuse(`A bundle is one JSON object with "format", "version", "root", "skills" and "tools".`);
  for (const key of Object.keys(value)) {
    if (!BUNDLE_KEYS.includes(key)) return refuse(`Unknown key "${key}" in the bundle: a ${BUNDLE_FORMAT} version ${BUNDLE_VERSION} has only ${BUNDLE_KEYS.slice(1).join(", ")}.`);
  }
  if (value.format !== BUNDLE_FORMAT) {
    return refuse(value.format === undefined ? `This is not a skill bundle: it has no "format" (a bundle says "format": "${BUNDLE_FORMAT}").` : `This is not a skill bundle: its format is ${JSON.stringify(value.format)}, not "${BUNDLE_FORMAT}".`);
  }
  if (value.version !== BUNDLE_VERSION) {
    const newer = typeof value.version === "number" && value.version > BUNDLE_VERSION;
    return refuse(`This bundle has format version ${JSON.stringify(value.version ?? null)}; this editor reads version ${BUNDLE_VERSION}.${newer ? " Update skill-lsp to import it." : ""}`);
  }
  if (value.$schema !== undefined && typeof value.$schema !== "string") return refuse(`"$schema" must be a string.`);

  if (!Array.isArray(value.skills) || value.skills.length === 0) return refuse(`"skills" must be a list of at least one skill.`);
  const skills: BundleSkill[] = [];
  const handles = new Set<string>();
  for (const [index, entry] of value.skills.entries()) {
    const where = `skills[${index}]`;
    if (!isRecord(entry)) return refuse(`${where} must be an object with "handle", "text" and "sha256".`);
    for (const key of Object.keys(entry)) if (!SKILL_KEYS.includes(key)) return refuse(`Unknown key "${key}" in ${where}: a skill has only ${SKILL_KEYS.join(", ")}.`);
    const { handle, text, sha256 } = entry;
    if (typeof handle !== "string") return refuse(`${where}.handle must be a string.`);
    if (escapesFolder(handle)) return refuse(`${where}.handle "${handle}" would write outside the target folder: a handle is a file name, not a path.`);
    const problem = handleProblem(handle);
    if (problem) return refuse(`${where}.handle: ${problem}`);
    if (handles.has(handle)) return refuse(`@${handle} appears twice in the bundle: every handle must be unique.`);
    handles.add(handle);
    if (typeof text !== "string") return refuse(`The text of @${handle} (${where}.text) is not a string: it must be the whole .skill.md file as one string.`);
    if (text.length > MAX_SKILL_CHARS) return refuse(`The text of @${handle} has ${groupedDigits(text.length)} characters; a skill has at most ${groupedDigits(MAX_SKILL_CHARS)}.`);
    if (text.includes("\0")) return refuse(`The text of @${handle} holds binary data (NUL bytes), not prose.`);
    if (typeof sha256 !== "string" || !SHA256.test(sha256)) return refuse(`${where}.sha256 must be the 64 lower-case hex digits of the text's sha256.`);
    if (sha256Hex(text) !== sha256) return refuse(`The text of @${handle} does not match its sha256: the bundle was altered or damaged on the way.`);
    if (entry.files === undefined) {
      skills.push({ handle, text, sha256 });
      continue;
    }
    const files = validateFiles(entry.files, handle);
    if (isRefusal(files)) return files;
    skills.push(files.length > 0 ? { handle, text, sha256, files } : { handle, text, sha256 });
  }

  if (typeof value.root !== "string") return refuse(`"root" must be the handle of the shared skill.`);
  if (!handles.has(value.root)) return refuse(`The root @${value.root} is not one of the bundle's skills.`);

  const tools: BundleTool[] = [];
  const toolSlugs = new Set<string>();
  const rawTools = value.tools;
  if (!Array.isArray(rawTools)) return refuse(`"tools" must be a list of { "slug", "name" } (empty when the skills mention no tool).`);
  for (const [index, entry] of rawTools.entries()) {
    const where = `tools[${index}]`;
    if (!isRecord(entry)) return refuse(`${where} must be an object with "slug" and "name".`);
    for (const key of Object.keys(entry)) if (!TOOL_KEYS.includes(key)) return refuse(`Unknown key "${key}" in ${where}: a tool has only ${TOOL_KEYS.join(", ")}.`);
    const { slug, name } = entry;
    if (typeof slug !== "string") return refuse(`${where}.slug must be a string.`);
    const problem = handleProblem(slug);
    if (problem) return refuse(`${where}.slug: ${problem}`);
    if (typeof name !== "string" || !TOOL_NAME.test(name)) return refuse(`${where}.name must be a tool name: a letter or _, then letters, digits or _.`);
    if (toolSlugs.has(slug)) return refuse(`The tool @${slug} is listed twice.`);
    if (handles.has(slug)) return refuse(`@${slug} is both a skill and a tool in the bundle: skills and tools share one namespace.`);
    toolSlugs.add(slug);
    tools.push({ slug, name });
  }

  if (closed) {
    for (const skill of skills) {
      for (const mention of parseSkillFile(`file:///bundle/${skill.handle}${SKILL_SUFFIX}`, skill.text).mentions) {
        if (!handles.has(mention.slug) && !toolSlugs.has(mention.slug) && !mention.inCode) {
          return refuse(`@${skill.handle} mentions @${mention.slug} (line ${mention.range.start.line + 1}), which the bundle neither ships nor lists as a tool: the bundle is not closed.`);
        }
      }
    }
  }
  return { format: BUNDLE_FORMAT, version: BUNDLE_VERSION, root: value.root, skills, tools };
}

/** Checks a skill's `files`: safe relative paths, each once (case aside), a mode, base64 bytes that match their sha256. */
function validateFiles(value: unknown, handle: string): BundleFile[] | Refusal {
  if (!Array.isArray(value)) return refuse(`The files of @${handle} must be a list of { "path", "mode", "sha256", "base64" }.`);
  const files: BundleFile[] = [];
  const paths = new Set<string>();
  for (const [index, entry] of value.entries()) {
    const where = `@${handle} files[${index}]`;
    if (!isRecord(entry)) return refuse(`${where} must be an object with "path", "mode", "sha256" and "base64".`);
    for (const key of Object.keys(entry)) if (!FILE_KEYS.includes(key)) return refuse(`Unknown key "${key}" in ${where}: a file has only ${FILE_KEYS.join(", ")}.`);
    const { path, mode, sha256, base64 } = entry;
    if (typeof path !== "string") return refuse(`${where}.path must be a string.`);
    const problem = folderPathProblem(path);
    if (problem) return refuse(`${where}: "${path}" is ${problem}; a file of a skill lies inside its folder.`);
    if (paths.has(path.toLowerCase())) return refuse(`${where}: "${path}" appears twice (letter case aside).`);
    paths.add(path.toLowerCase());
    if (mode !== "644" && mode !== "755") return refuse(`${where}.mode must be "644" or "755" (only the executable bit is carried).`);
    if (typeof base64 !== "string" || !BASE64.test(base64) || base64.length % 4 !== 0) return refuse(`${where}.base64 must be the file's bytes in base64.`);
    if (typeof sha256 !== "string" || !SHA256.test(sha256)) return refuse(`${where}.sha256 must be the 64 lower-case hex digits of the file's sha256.`);
    const bytes = Buffer.from(base64, "base64");
    if (bytes.length > MAX_SKILL_FILE_BYTES) return refuse(`${where}: "${path}" is ${megabytes(bytes.length)} MB; a file of a skill is at most ${megabytes(MAX_SKILL_FILE_BYTES)} MB.`);
    if (createHash("sha256").update(bytes).digest("hex") !== sha256) return refuse(`${where}: "${path}" does not match its sha256: the bundle was altered or damaged on the way.`);
    files.push({ path, mode, sha256, base64 });
  }
  return files;
}

// ————————————————————————————————————————————————————————— import

interface Incoming {
  readonly skill: BundleSkill;
  readonly file: SkillFile;
  readonly content: Content;
}

/** A candidate for reuse: an existing skill whose content is the incoming one's with some bundle mentions re-slugged. */
interface Candidate {
  readonly existing: SkillFile;
  /** Incoming handle → the slug it must get here for the contents to be equal (the candidate's own included). */
  readonly needs: ReadonlyMap<string, string>;
}

/**
 * A skill's content, as the planner and the editor see it, with its mentions cut out: the summary, the body, the
 * flags and the routing lists. Two skills that can be equal up to re-slugging share the key; YAML spelling
 * (quotes, key order, an explicit default) does not count, so an Agent Skills round trip is recognised.
 */
interface Content {
  readonly key: string;
  /** The summary's mentions, then the body's, as the parser finds them. */
  readonly mentions: readonly MentionToken[];
}

function contentOf(file: SkillFile): Content {
  const summary = file.summary ?? "";
  const inSummary = scanMentions(summary).mentions;
  const inBody = scanMentions(file.body).mentions;
  const holes = (text: string, mentions: readonly MentionToken[]) => {
    const parts: string[] = [];
    let cursor = 0;
    for (const mention of mentions) {
      parts.push(text.slice(cursor, mention.start));
      cursor = mention.end;
    }
    parts.push(text.slice(cursor));
    return parts;
  };
  const key = JSON.stringify([
    file.summary === undefined,
    holes(summary, inSummary),
    holes(file.body, inBody),
    file.enabled,
    file.advertised,
    file.examples.map((entry) => entry.text),
    file.nearMisses.map((entry) => entry.text),
  ]);
  return { key, mentions: [...inSummary, ...inBody] };
}

/** The title an incoming skill would show under `slug`, compared with an existing skill's: a default title follows the handle. */
function sameTitle(incoming: SkillFile, existing: SkillFile): boolean {
  return incoming.title === existing.title || (incoming.title === titleFromHandle(incoming.slug) && existing.title === titleFromHandle(existing.slug));
}

/** What `existing` needs of the handle map for `incoming`, once rewritten, to hold the same content; undefined when nothing can. */
function reuseNeeds(incoming: Incoming, existing: SkillFile, existingContent: Content, bundleHandles: ReadonlySet<string>): Map<string, string> | undefined {
  if (!sameTitle(incoming.file, existing)) return undefined;
  const needs = new Map<string, string>([[incoming.skill.handle, existing.slug]]);
  const theirs = existingContent.mentions;
  const ours = incoming.content.mentions;
  if (theirs.length !== ours.length) return undefined;
  for (const [index, mine] of ours.entries()) {
    const other = theirs[index];
    if (!other) return undefined;
    if (!bundleHandles.has(mine.slug)) {
      if (other.written !== mine.written) return undefined;
      continue;
    }
    // A kept handle keeps its spelling; a re-slugged one is written `@new`, lower-case.
    const slug = other.slug;
    if (slug === mine.slug ? other.written !== mine.written : other.written !== slug) return undefined;
    const wanted = needs.get(mine.slug);
    if (wanted !== undefined && wanted !== slug) return undefined;
    needs.set(mine.slug, slug);
  }
  return needs;
}

/**
 * Which incoming skills can reuse a skill already here. A skill is reused when an existing one holds the content
 * it would be written with, which depends on the handles its mentions get; so candidates are pruned until
 * every need is met by a surviving candidate, then chosen together, group by group, to reuse as many skills as
 * possible (a skill's own handle preferred). An existing skill is reused at most once.
 */
function chooseReuse(incoming: readonly Incoming[], namespace: Namespace): Map<string, SkillFile> {
  const bundleHandles = new Set(incoming.map((entry) => entry.skill.handle));
  const byContent = new Map<string, { readonly existing: SkillFile; readonly content: Content }[]>();
  for (const existing of namespace.skills()) {
    // Only a skill that alone and unambiguously holds its slug can stand in for an incoming one.
    if (!existing.validHandle || namespace.tool(existing.slug) || namespace.claimants(existing.slug).length !== 1) continue;
    const content = contentOf(existing);
    const list = byContent.get(content.key) ?? [];
    list.push({ existing, content });
    byContent.set(content.key, list);
  }
  const domains = new Map<string, Candidate[]>();
  for (const entry of incoming) {
    const candidates: Candidate[] = [];
    for (const { existing, content } of byContent.get(entry.content.key) ?? []) {
      const needs = reuseNeeds(entry, existing, content, bundleHandles);
      if (needs) candidates.push({ existing, needs });
    }
    candidates.sort((a, b) => Number(b.existing.slug === entry.skill.handle) - Number(a.existing.slug === entry.skill.handle) || a.existing.uri.localeCompare(b.existing.uri));
    if (candidates.length > 0) domains.set(entry.skill.handle, candidates);
  }
  const supported = (candidate: Candidate) =>
    [...candidate.needs].every(([handle, slug]) => domains.get(handle)?.some((other) => other.existing.slug === slug) ?? false);
  for (let changed = true; changed; ) {
    changed = false;
    for (const [handle, candidates] of domains) {
      const kept = candidates.filter(supported);
      if (kept.length === candidates.length) continue;
      changed = true;
      if (kept.length > 0) domains.set(handle, kept);
      else domains.delete(handle);
    }
  }

  // Skills tied by a need or by a shared candidate must be chosen together; the others are independent.
  const parent = new Map<string, string>([...domains.keys()].map((handle) => [handle, handle]));
  const find = (handle: string): string => {
    let root = handle;
    while (parent.get(root) !== root) root = parent.get(root) ?? root;
    parent.set(handle, root);
    return root;
  };
  const byUri = new Map<string, string>();
  for (const [handle, candidates] of domains) {
    for (const candidate of candidates) {
      for (const needed of candidate.needs.keys()) parent.set(find(needed), find(handle));
      const other = byUri.get(candidate.existing.uri);
      if (other === undefined) byUri.set(candidate.existing.uri, handle);
      else parent.set(find(other), find(handle));
    }
  }
  const groups = new Map<string, string[]>();
  for (const { skill } of incoming) {
    if (!domains.has(skill.handle)) continue;
    const root = find(skill.handle);
    groups.set(root, [...(groups.get(root) ?? []), skill.handle]);
  }
  const chosen = new Map<string, SkillFile>();
  for (const group of groups.values()) for (const [handle, existing] of mostReuse(group, domains)) chosen.set(handle, existing);
  return chosen;
}

/** Search steps per group before the best choice found so far is taken: ample for any real bundle. */
const REUSE_SEARCH_BUDGET = 20_000;

/**
 * The choice of candidates for one group that reuses the most skills: a depth-first search in bundle order,
 * each skill's candidates in preference order and then "create it", pruned when it cannot beat the best so far
 * and stopped when everything is reused. Iterative, so a long chain cannot overflow the stack.
 */
function mostReuse(order: readonly string[], domains: ReadonlyMap<string, readonly Candidate[]>): Map<string, SkillFile> {
  const assigned = new Map<string, Candidate | null>();
  const used = new Set<string>();
  let count = 0;
  let best = new Map<string, SkillFile>();
  /** Whether an already chosen skill's text only matches if `handle` is reused too. */
  const required = (handle: string) => [...assigned].some(([other, choice]) => other !== handle && choice !== null && choice.needs.has(handle));
  const consistent = (handle: string, candidate: Candidate) => {
    if (used.has(candidate.existing.uri)) return false;
    for (const [needed, slug] of candidate.needs) {
      if (needed === handle) continue;
      const choice = assigned.get(needed);
      if (choice === null || (choice !== undefined && choice.existing.slug !== slug)) return false;
    }
    for (const [other, choice] of assigned) {
      const wanted = other === handle ? undefined : choice?.needs.get(handle);
      if (wanted !== undefined && wanted !== candidate.existing.slug) return false;
    }
    return true;
  };
  const optionsFor = (handle: string): (Candidate | null)[] => {
    const options: (Candidate | null)[] = (domains.get(handle) ?? []).filter((candidate) => consistent(handle, candidate));
    if (!required(handle)) options.push(null);
    return options;
  };
  const stack: { options: (Candidate | null)[]; next: number }[] = [{ options: optionsFor(order[0] ?? ""), next: 0 }];
  for (let budget = REUSE_SEARCH_BUDGET; stack.length > 0 && budget > 0; budget--) {
    const depth = stack.length - 1;
    const frame = stack[depth];
    const handle = order[depth] ?? "";
    const previous = assigned.get(handle);
    if (previous !== undefined) {
      assigned.delete(handle);
      if (previous !== null) {
        used.delete(previous.existing.uri);
        count--;
      }
    }
    if (!frame || frame.next >= frame.options.length || count + (order.length - depth) <= best.size) {
      stack.pop();
      continue;
    }
    const choice = frame.options[frame.next++] ?? null;
    assigned.set(handle, choice);
    if (choice !== null) {
      used.add(choice.existing.uri);
      count++;
    }
    if (depth + 1 < order.length) {
      stack.push({ options: optionsFor(order[depth + 1] ?? ""), next: 0 });
    } else if (count > best.size) {
      best = new Map([...assigned].flatMap(([chosenHandle, chosenCandidate]) => (chosenCandidate ? [[chosenHandle, chosenCandidate.existing] as const] : [])));
      if (best.size === order.length) break;
    }
  }
  return best;
}

function holderOf(namespace: Namespace, slug: string, toolSlugs: ReadonlySet<string>, uri: string): Holder {
  const tool = namespace.tool(slug);
  if (tool) return { kind: "tool", name: tool.name };
  const skill = namespace.claimants(slug)[0];
  if (skill) return { kind: "skill", uri: skill.uri };
  if (toolSlugs.has(slug)) return { kind: "needed-tool" };
  return { kind: "file", uri: [...namespace.skills()].find((other) => other.uri.toLowerCase() === uri.toLowerCase())?.uri ?? uri };
}

function folderUri(target: string): string | Refusal {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(target)) return refuse(`The target folder must be a URI (like file:///home/me/skills/); got "${target}".`);
  return target.replace(/[?#].*$/, "").replace(/\/*$/, "/");
}

/**
 * Plans importing a bundle into the folder `targetFolderUri`: the review to show, and the files to create if
 * the user accepts (nothing is written here). Each incoming skill either reuses a skill already here with the
 * same content (title, summary, flags, examples, near-misses and body, its mentions following any re-slugging;
 * YAML spelling aside), or is created under its own handle, or, when a tool, a skill or a file holds that
 * handle, under the next minted one (`-2`, `-3`, …); every mention of a re-slugged skill inside the bundle is
 * rewritten to follow it, so the imported closure has no dangling mention. A mention the bundle neither ships nor lists as
 * a tool, and that names nothing here (only possible in a bundle built from Agent Skills folders), is escaped as
 * `\@` so it reads as text. The review lists the tools the closure needs and which of them this workspace lacks.
 */
export function planImport(namespace: Namespace, bundle: Bundle, targetFolderUri: string, leftOutOf: ReadonlyMap<string, readonly LeftOut[]> = new Map()): ImportPlan | Refusal {
  const folder = folderUri(targetFolderUri);
  if (isRefusal(folder)) return folder;
  // A Bundle built in code gets the same checks as one read from a file.
  const checked = validateBundle(bundle, false);
  if (isRefusal(checked)) return checked;
  const withFiles = new Set(checked.skills.filter((skill) => (skill.files ?? []).length > 0).map((skill) => skill.handle));
  // A skill with files gets a folder of its own, so its relative links still reach them: <handle>/<handle>.skill.md.
  const uriOf = (handle: string, incomingHandle = handle) => (withFiles.has(incomingHandle) ? `${folder}${handle}/${handle}${SKILL_SUFFIX}` : `${folder}${handle}${SKILL_SUFFIX}`);
  const incoming: Incoming[] = checked.skills.map((skill) => {
    const file = parseSkillFile(uriOf(skill.handle), skill.text);
    return { skill, file, content: contentOf(file) };
  });
  const bundleHandles = new Set(incoming.map((entry) => entry.skill.handle));
  const toolSlugs = new Set(checked.tools.map((tool) => tool.slug));

  /** The edits an incoming skill is written with, given the handles the bundle's skills get. */
  const editsFor = (file: SkillFile, handles: ReadonlyMap<string, string>) => {
    const rewrites: MentionRewrite[] = [];
    const edits: { start: number; end: number; newText: string }[] = [];
    for (const mention of file.mentions) {
      const renamed = handles.get(mention.slug);
      if (bundleHandles.has(mention.slug)) {
        if (renamed === undefined || renamed === mention.slug) continue;
        edits.push({ start: mention.start, end: mention.end, newText: `@${renamed}` });
        rewrites.push({ kind: "rename", from: `@${mention.written}`, to: `@${renamed}`, position: mention.range.start });
      } else if (!mention.inCode && !toolSlugs.has(mention.slug) && !namespace.resolve(mention.slug)) {
        // Inline code is never escaped: a backslash there would show.
        edits.push({ start: mention.start, end: mention.start, newText: "\\" });
        rewrites.push({ kind: "escape", from: `@${mention.written}`, to: `\\@${mention.written}`, position: mention.range.start });
      }
    }
    return { rewrites, edits };
  };

  const reused = chooseReuse(incoming, namespace);
  // A second import of the same source: the skill here holds exactly the text this import would write.
  // That holds only while the bundle's skills it mentions keep their handles too, so candidates that mention a
  // skill which would be re-slugged are dropped until none is left to drop.
  const own = new Map(incoming.map(({ skill }) => [skill.handle, skill.handle]));
  const exact = new Map<string, { readonly here: SkillFile; readonly needs: readonly string[] }>();
  for (const { skill, file } of incoming) {
    if (reused.has(skill.handle)) continue;
    const claimants = namespace.claimants(skill.handle);
    const here = claimants[0];
    if (claimants.length !== 1 || !here || namespace.tool(skill.handle) || [...reused.values()].includes(here)) continue;
    if (here.text !== applyEdits(skill.text, editsFor(file, own).edits)) continue;
    exact.set(skill.handle, { here, needs: [...new Set(file.mentions.map((mention) => mention.slug).filter((slug) => bundleHandles.has(slug) && slug !== skill.handle))] });
  }
  const keepsHandle = (handle: string) => exact.has(handle) || reused.get(handle)?.slug === handle || (!reused.has(handle) && !namespace.isTaken(handle) && !toolSlugs.has(handle));
  for (let changed = true; changed; ) {
    changed = false;
    for (const [handle, candidate] of exact) {
      if (candidate.needs.every(keepsHandle)) continue;
      exact.delete(handle);
      changed = true;
    }
  }
  for (const [handle, candidate] of exact) reused.set(handle, candidate.here);
  const target = new Map<string, string>();
  for (const [handle, existing] of reused) target.set(handle, existing.slug);

  // A file that differs only in case is the same file on a case-insensitive disk.
  const occupied = new Set([...namespace.skills()].map((skill) => skill.uri.toLowerCase()));
  const reserved = new Set<string>();
  const isTaken = (slug: string, incomingHandle: string) =>
    namespace.isTaken(slug) || reserved.has(slug) || toolSlugs.has(slug) || occupied.has(uriOf(slug, incomingHandle).toLowerCase());
  // Skills that keep their handle go first, so a minted `-2` never pushes a bundle's own `x-2` aside.
  const reasons = new Map<string, Holder>();
  for (const { skill } of incoming) {
    if (target.has(skill.handle) || isTaken(skill.handle, skill.handle)) continue;
    target.set(skill.handle, skill.handle);
    reserved.add(skill.handle);
  }
  for (const { skill } of incoming) {
    if (target.has(skill.handle)) continue;
    reasons.set(skill.handle, holderOf(namespace, skill.handle, toolSlugs, uriOf(skill.handle)));
    const minted = makeSlug(skill.handle, (slug) => isTaken(slug, skill.handle));
    target.set(skill.handle, minted);
    reserved.add(minted);
  }

  const reviews: IncomingReview[] = [];
  const files: PlannedFile[] = [];
  for (const { skill, file } of incoming) {
    const handle = target.get(skill.handle) ?? skill.handle;
    const existing = reused.get(skill.handle);
    const leftOut = [...(leftOutOf.get(skill.handle) ?? [])];
    const carried = skill.files ?? [];
    let rewrites: MentionRewrite[] = [];
    let filesFolder: string | undefined;
    if (!existing) {
      const planned = editsFor(file, target);
      rewrites = planned.rewrites;
      files.push({ uri: uriOf(handle, skill.handle), text: applyEdits(skill.text, planned.edits) });
      filesFolder = `${folder}${handle}/`;
    } else if (carried.length > 0) {
      // The files go beside the skill already here when it has a folder of its own; what is there already is kept.
      const ownFolder = `/${existing.slug}/${existing.handle}${SKILL_SUFFIX}`;
      if (existing.uri.endsWith(ownFolder)) filesFolder = existing.uri.slice(0, existing.uri.length - ownFolder.length + existing.slug.length + 2);
      else for (const one of carried) leftOut.push({ path: one.path, reason: `the skill here, ${existing.uri}, is a lone file with no folder of its own` });
    }
    if (filesFolder !== undefined) {
      for (const one of carried) files.push({ uri: `${filesFolder}${one.path.split("/").map(encodeURIComponent).join("/")}`, text: "", bytes: { base64: one.base64, mode: one.mode, sha256: one.sha256 } });
    }
    reviews.push({
      incoming: skill.handle,
      handle,
      action: existing ? "reuse" : "create",
      uri: existing?.uri ?? uriOf(handle, skill.handle),
      title: file.title,
      summary: file.summary,
      takenBy: existing ? undefined : reasons.get(skill.handle),
      rewrites,
      files: filesFolder === undefined ? [] : carried.map((one) => ({ path: one.path, mode: one.mode })),
      leftOut,
      notes: descriptionNote(skill.handle, file.summary ?? ""),
    });
  }

  const tools = checked.tools.map((tool): ToolNeed => {
    const here = namespace.resolve(tool.slug);
    if (!here) return { ...tool, status: "missing", here: undefined };
    if (here.kind === "skill") return { ...tool, status: "skill", here: here.skill.uri };
    return here.tool.name === tool.name ? { ...tool, status: "present", here: undefined } : { ...tool, status: "other-name", here: here.tool.name };
  });
  return {
    folder,
    review: { root: target.get(checked.root) ?? checked.root, skills: reviews, tools, missingTools: tools.filter((tool) => tool.status === "missing" || tool.status === "skill") },
    files,
  };
}

/**
 * The review as lines a person reads before accepting: each skill with the handle it gets and why, every
 * mention rewritten (1-based line:column), and the tools. `show` turns a URI into what to print (a path).
 */
export function reviewLines(review: ImportReview, show: (uri: string) => string = (uri) => uri): string[] {
  const lines: string[] = [];
  const created = review.skills.filter((skill) => skill.action === "create").length;
  lines.push(`Import @${review.root}: ${review.skills.length} skill${review.skills.length === 1 ? "" : "s"}, ${created} to create, ${review.skills.length - created} already here.`);
  for (const skill of review.skills) {
    const name = skill.handle === skill.incoming ? `@${skill.handle}` : `@${skill.incoming} → @${skill.handle}`;
    const fileLines = () => {
      if (skill.files.length > 0) lines.push(`      with ${skill.files.length} file${skill.files.length === 1 ? "" : "s"} of its folder: ${skill.files.map((file) => (file.mode === "755" ? `${file.path} (executable)` : file.path)).join(", ")}`);
      for (const out of skill.leftOut) lines.push(`      left out: ${out.path} (${out.reason})`);
      for (const note of skill.notes) lines.push(`      note: ${note}`);
    };
    if (skill.action === "reuse") {
      lines.push(`  = ${name}: already here with the same content (${show(skill.uri)}); reused.`);
      fileLines();
      continue;
    }
    const holder = skill.takenBy;
    const why =
      holder === undefined
        ? ""
        : ` (@${skill.incoming} is taken here by ${
            holder.kind === "tool" ? `the tool ${holder.name}` : holder.kind === "skill" ? `the skill ${show(holder.uri)}` : holder.kind === "file" ? `the file ${show(holder.uri)}` : "a tool the bundle needs"
          })`;
    lines.push(`  + ${name}: new file ${show(skill.uri)}${why}.`);
    for (const rewrite of skill.rewrites) {
      const at = `${rewrite.position.line + 1}:${rewrite.position.character + 1}`;
      lines.push(rewrite.kind === "rename" ? `      ${at} ${rewrite.from} → ${rewrite.to}` : `      ${at} ${rewrite.from} names nothing here: kept as text, ${rewrite.to}`);
    }
    fileLines();
  }
  if (review.tools.length > 0) {
    lines.push("Tools the skills need (tools are not shipped):");
    for (const tool of review.tools) {
      const state = {
        present: "here",
        "other-name": `here, bound as ${tool.here ?? "?"}`,
        skill: `MISSING: here @${tool.slug} is the skill ${show(tool.here ?? "")}, so the mention will not reach a tool`,
        missing: `MISSING: declare it in skills.json, or its mentions stay unknown`,
      }[tool.status];
      lines.push(`  @${tool.slug} (${tool.name}): ${state}`);
    }
  }
  return lines;
}

// ————————————————————————————————————————————————————————— Agent Skills

function frontmatterText(fields: Record<string, unknown>): string {
  return stringify(fields, { lineWidth: 0 });
}

/** Splits a SKILL.md into its frontmatter's YAML and its body; undefined when it does not open with `---`. */
function splitFrontmatter(text: string): { readonly yaml: string; readonly yamlStart: number; readonly body: string } | undefined {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const open = /^---[ \t]*\r?\n/.exec(text.slice(start));
  if (!open) return undefined;
  const contentStart = start + open[0].length;
  const close = /^(?:---|\.\.\.)[ \t]*$/m.exec(text.slice(contentStart));
  if (!close) return undefined;
  const yamlEnd = contentStart + close.index;
  let bodyStart = yamlEnd + close[0].length;
  if (text.charAt(bodyStart) === "\r") bodyStart++;
  if (text.charAt(bodyStart) === "\n") bodyStart++;
  return { yaml: text.slice(contentStart, yamlEnd), yamlStart: contentStart, body: text.slice(bodyStart) };
}

/** A note when a description is past the Agent Skills limit: reported, never cut. */
function descriptionNote(slug: string, description: string): string[] {
  return description.length > MAX_AGENT_DESCRIPTION
    ? [`@${slug}: the description has ${groupedDigits(description.length)} characters; the Agent Skills format allows ${groupedDigits(MAX_AGENT_DESCRIPTION)}. It is written whole, not cut: shorten it if the agent refuses it.`]
    : [];
}

/**
 * The SKILL.md a skill already written in the Agent Skills shape gives: its own text, byte for byte (BOM, line
 * endings, key order), when its frontmatter has `description` and none of this format's keys. A `name:` that is
 * not the handle (the skill was re-slugged on import) is the one value rewritten, and a note says so.
 */
function verbatimAgentSkill(skill: SkillFile): AgentSkillFolder | undefined {
  const split = splitFrontmatter(skill.text);
  if (!split) return undefined;
  const document = parseDocument(split.yaml, { uniqueKeys: true, prettyErrors: false });
  if (document.errors.length > 0 || !isMap(document.contents)) return undefined;
  const keys = document.contents.items.map((pair) => (isScalar(pair.key) ? String(pair.key.value) : ""));
  if (!keys.includes("description") || keys.some((key) => key in FRONTMATTER_KEYS)) return undefined;
  const description = document.get("description");
  if (typeof description !== "string") return undefined;
  const notes = descriptionNote(skill.slug, description);
  const name = document.get("name", true);
  let text = skill.text;
  if (!isScalar(name) || !name.range) return undefined;
  if (name.value !== skill.slug) {
    const start = split.yamlStart + name.range[0];
    text = `${text.slice(0, start)}${skill.slug}${text.slice(split.yamlStart + name.range[1])}`;
    notes.push(`@${skill.slug}: name: ${String(name.value)} is written name: ${skill.slug}, the skill's handle here.`);
  }
  return { folder: skill.slug, text, source: skill.uri, notes };
}

/**
 * A skill as an Agent Skills folder (`<name>/SKILL.md`). A skill already in that shape (imported from one) is
 * written as it is (see `verbatimAgentSkill`). Otherwise `name` is the handle (the same rule) and `description`
 * the summary (the title when there is none), kept whole even past 1,024 characters, with a note. What that
 * format has no key for — the title, `enabled: false`, `advertised: false`, examples, near-misses, the tools it
 * mentions — travels in `metadata` under `skill-lsp.`, so `fromAgentSkill` gives the skill back. The body is
 * copied as it is; `namespace` lets the tools be named.
 */
export function toAgentSkill(skill: SkillFile, namespace?: Namespace): AgentSkillFolder {
  const verbatim = verbatimAgentSkill(skill);
  if (verbatim) return verbatim;
  const metadata: Record<string, string> = {};
  const summary = skill.summary?.trim();
  const description = summary !== undefined && summary !== "" ? summary : skill.title;
  if (summary === undefined || summary === "") metadata[`${META}summary`] = "";
  if (skill.title !== titleFromHandle(skill.slug)) metadata[`${META}title`] = skill.title;
  if (!skill.enabled) metadata[`${META}enabled`] = "false";
  if (!skill.advertised) metadata[`${META}advertised`] = "false";
  if (skill.examples.length > 0) metadata[`${META}examples`] = JSON.stringify(skill.examples.map((entry) => entry.text));
  if (skill.nearMisses.length > 0) metadata[`${META}near-misses`] = JSON.stringify(skill.nearMisses.map((entry) => entry.text));
  if (namespace) {
    const tools = new Map<string, string>();
    for (const mention of skill.mentions) {
      const target = namespace.resolve(mention.slug);
      if (target?.kind === "tool") tools.set(target.tool.slug, target.tool.name);
    }
    if (tools.size > 0) metadata[`${META}tools`] = [...tools].map(([slug, name]) => `${slug}=${name}`).join(" ");
  }
  const fields: Record<string, unknown> = { name: skill.slug, description };
  if (Object.keys(metadata).length > 0) fields.metadata = metadata;
  return { folder: skill.slug, text: `---\n${frontmatterText(fields)}---\n${skill.body}`, source: skill.uri, notes: descriptionNote(skill.slug, description) };
}

/**
 * Reads an Agent Skills `SKILL.md` from the folder `folderName` as a skill: `name` (which must equal the
 * folder's name and be a valid handle) becomes the handle, `description` the summary, the body stays as it is,
 * and `skill-lsp.` metadata restores what `toAgentSkill` put there. Keys this format has no place for are
 * listed in `dropped`. Refuses a folder name that is a path, a missing or unreadable frontmatter, and a
 * missing name or description.
 */
export function fromAgentSkill(folderName: string, text: string): IncomingSkill | Refusal {
  if (escapesFolder(folderName)) return refuse(`The Agent Skills folder "${folderName}" would write outside the target folder: a name is a file name, not a path.`);
  const problem = handleProblem(folderName);
  if (problem) return refuse(`The folder ${folderName}/ is not a valid Agent Skills name, so it cannot be a handle: ${problem}`);
  const where = `${folderName}/${AGENT_SKILL_FILE}`;
  const unreadable = unreadableReason(text);
  if (unreadable) return refuse(`${where}: ${unreadable.message}`);
  const split = splitFrontmatter(text);
  if (!split) return refuse(`${where} has no frontmatter: an Agent Skill starts with ---, then name: and description:, then ---.`);
  const document = parseDocument(split.yaml, { uniqueKeys: true, prettyErrors: false });
  const error = document.errors[0];
  if (error) return refuse(`${where}: the frontmatter is not valid YAML: ${error.message.split("\n")[0] ?? error.message}`);
  let fields: unknown;
  try {
    fields = document.toJS({ maxAliasCount: 100 });
  } catch (thrown) {
    return refuse(`${where}: the frontmatter cannot be read: ${thrown instanceof Error ? thrown.message : String(thrown)}`);
  }
  if (!isRecord(fields)) return refuse(`${where}: the frontmatter must be key: value lines with name and description.`);
  const { name, description } = fields;
  if (typeof name !== "string") return refuse(`${where} has no name: the Agent Skills format wants name: ${folderName}.`);
  if (name !== folderName) return refuse(`${where} says name: ${name}, but its folder is ${folderName}/: the Agent Skills format wants them equal. Rename the folder or fix the name.`);
  if (typeof description !== "string" || description.trim() === "") return refuse(`${where} has no description: the Agent Skills format wants one, and it becomes the planner-menu summary.`);

  // A skill from elsewhere is kept as it is written, byte for byte: its frontmatter keys are this format's too.
  const metadataNode = document.get("metadata", true);
  const ours = isMap(metadataNode) && metadataNode.items.some((pair) => isScalar(pair.key) && String(pair.key.value).startsWith(META));
  if (!ours) return { handle: folderName, text, tools: [], dropped: [] };

  const dropped: string[] = [];
  const meta = new Map<string, string>();
  for (const key of Object.keys(fields)) {
    if (key === "name" || key === "description") continue;
    if (key !== "metadata") {
      dropped.push(key);
      continue;
    }
    const node = document.get("metadata", true);
    if (!isMap(node)) {
      dropped.push(key);
      continue;
    }
    for (const pair of node.items) {
      const metaKey = isScalar(pair.key) ? String(pair.key.value) : "?";
      const metaValue = isScalar(pair.value) ? pair.value.value : undefined;
      if (metaKey.startsWith(META) && typeof metaValue === "string") meta.set(metaKey.slice(META.length), metaValue);
      else dropped.push(`metadata.${metaKey}`);
    }
  }

  const stringList = (raw: string | undefined): string[] | undefined => {
    if (raw === undefined) return undefined;
    try {
      const parsed: unknown = JSON.parse(raw);
      return Array.isArray(parsed) && parsed.every((entry) => typeof entry === "string") ? parsed : undefined;
    } catch {
      return undefined;
    }
  };
  const tools: BundleTool[] = [];
  for (const token of (meta.get("tools") ?? "").split(/\s+/)) {
    const [slug = "", toolName = ""] = token.split("=");
    if (handleProblem(slug) === undefined && TOOL_NAME.test(toolName) && !tools.some((tool) => tool.slug === slug)) tools.push({ slug, name: toolName });
  }

  const summary = meta.get("summary") ?? description.trim();
  const restored: Record<string, unknown> = {};
  const title = meta.get("title");
  if (title !== undefined) restored.title = title;
  if (summary !== "") restored.summary = summary;
  if (meta.get("enabled") === "false") restored.enabled = false;
  if (meta.get("advertised") === "false") restored.advertised = false;
  const examples = stringList(meta.get("examples"));
  if (examples && examples.length > 0) restored.examples = examples;
  const nearMisses = stringList(meta.get("near-misses"));
  if (nearMisses && nearMisses.length > 0) restored["near-misses"] = nearMisses;
  const skillText = Object.keys(restored).length > 0 ? `---\n${frontmatterText(restored)}---\n${split.body}` : split.body;
  return { handle: folderName, text: skillText, tools, dropped };
}

/** A skill's closure as Agent Skills folders, one per skill; the same refusals as `exportBundle`. */
export function exportAgentSkills(namespace: Namespace, handle: string): AgentSkillFolder[] | Refusal {
  const closure = closureOf(namespace, handle);
  if (isRefusal(closure)) return closure;
  return closure.skills.map((skill) => toAgentSkill(skill, namespace));
}

/**
 * Skills read from Agent Skills folders as one bundle to import; the root is the first that no other mentions.
 * Its tools are the ones they declared, less any that names one of them. The bundle need not be closed:
 * `planImport` escapes a mention that names nothing.
 */
export function bundleFromAgentSkills(skills: readonly IncomingSkill[]): Bundle | Refusal {
  if (skills.length === 0) return refuse("There is no Agent Skill to import: a folder needs a SKILL.md, or subfolders that each hold one.");
  const handles = new Set(skills.map((skill) => skill.handle));
  // The root is the skill no other one mentions: what the user meant to share.
  const mentioned = new Set(skills.flatMap((skill) => parseSkillFile(`file:///agent/${skill.handle}${SKILL_SUFFIX}`, skill.text).mentions.filter((mention) => mention.slug !== skill.handle).map((mention) => mention.slug)));
  const root = skills.find((skill) => !mentioned.has(skill.handle)) ?? skills[0];
  const tools = new Map<string, BundleTool>();
  for (const skill of skills) for (const tool of skill.tools) if (!handles.has(tool.slug) && !tools.has(tool.slug)) tools.set(tool.slug, tool);
  return validateBundle(
    {
      format: BUNDLE_FORMAT,
      version: BUNDLE_VERSION,
      root: root?.handle ?? "",
      skills: skills.map((skill) => ({ handle: skill.handle, text: skill.text, sha256: sha256Hex(skill.text), ...(skill.files && skill.files.length > 0 ? { files: skill.files } : {}) })),
      tools: [...tools.values()],
    },
    false,
  );
}
