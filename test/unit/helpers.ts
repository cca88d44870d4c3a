/**
 * Helpers for the core's unit tests: an in-memory workspace (a record of URI → text in, a Namespace out),
 * cursor and range markers in fixture texts, and applying a rename plan the way an editor would.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { applyEdits, LineMap, Namespace, sigilOf, type CoreDiagnostic, type Position, type Range, type Reference, type RenamePlan, type SkillFile } from "../../server/src/core/index.js";

/** The root of the in-memory workspace every test uses. */
export const WS = "file:///ws/";

/** The URI of a workspace-relative path: `uri("a.skill.md")` → `file:///ws/a.skill.md`. */
export function uri(path: string): string {
  return `${WS}${path}`;
}

/** The URI of a skill by handle, at the workspace root or under `folder`. */
export function skillUri(handle: string, folder = ""): string {
  return uri(`${folder === "" ? "" : `${folder}/`}${handle}.skill.md`);
}

/** A Namespace holding exactly these files (skills and `skills.json`), added in key order. */
export function workspace(files: Readonly<Record<string, string>>): Namespace {
  const namespace = new Namespace();
  for (const [fileUri, text] of Object.entries(files)) namespace.set(fileUri, text);
  return namespace;
}

/** A skill file's text: frontmatter from `fields` (YAML lines, written as given) and a body. */
export function skillText(body: string, fields: Readonly<Record<string, string | boolean>> = { summary: "A test skill." }): string {
  const lines = Object.entries(fields).map(([key, value]) => `${key}: ${String(value)}`);
  return lines.length === 0 ? body : `---\n${lines.join("\n")}\n---\n${body}`;
}

/** The cursor in a fixture: `$0` when the text has one, otherwise the single `|`. The marker is removed. */
export function cursor(marked: string): { text: string; offset: number; position: Position } {
  const marker = marked.includes("$0") ? "$0" : "|";
  const offset = marked.indexOf(marker);
  if (offset === -1) throw new Error(`No cursor marker (| or $0) in ${JSON.stringify(marked)}`);
  if (marked.indexOf(marker, offset + marker.length) !== -1) throw new Error(`More than one ${marker} in ${JSON.stringify(marked)}`);
  const text = marked.slice(0, offset) + marked.slice(offset + marker.length);
  return { text, offset, position: new LineMap(text).positionAt(offset) };
}

/**
 * Expected spans in a fixture, written `⟦like this⟧` (`⟦⟧` for an empty one; nest them, `⟦⟦x⟧⟧`, for two
 * problems on one span). The markers are removed; the spans come in text order (by start, then end).
 */
export function spans(marked: string): { text: string; offsets: [number, number][]; ranges: Range[] } {
  let text = "";
  const offsets: [number, number][] = [];
  const open: number[] = [];
  for (const char of marked) {
    if (char === "⟦") {
      open.push(text.length);
    } else if (char === "⟧") {
      const start = open.pop();
      if (start === undefined) throw new Error(`⟧ without ⟦ in ${JSON.stringify(marked)}`);
      offsets.push([start, text.length]);
    } else {
      text += char;
    }
  }
  if (open.length > 0) throw new Error(`Unclosed ⟦ in ${JSON.stringify(marked)}`);
  offsets.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const lines = new LineMap(text);
  return { text, offsets, ranges: offsets.map(([start, end]) => lines.rangeOf(start, end)) };
}

/** Diagnostics as compact `code@line:char-line:char` strings, for readable table-driven assertions. */
export function brief(diagnostics: readonly CoreDiagnostic[]): string[] {
  return diagnostics.map((d) => `${d.code}@${showRange(d.range)}`);
}

export function showRange(range: Range): string {
  return `${range.start.line}:${range.start.character}-${range.end.line}:${range.end.character}`;
}

/** The codes of diagnostics, in order. */
export function codes(diagnostics: readonly CoreDiagnostic[]): string[] {
  return diagnostics.map((d) => d.code);
}

/**
 * Applies a rename plan to a record of files the way an editor applies the workspace edit: every range is
 * turned into offsets with the file's LineMap, the edits are applied with `applyEdits`, and the skill's file
 * moves to its new URI. Returns the new record (the input is left alone).
 */
export function applyPlan(files: Readonly<Record<string, string>>, plan: RenamePlan): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [fileUri, text] of Object.entries(files)) {
    const edits = plan.edits.get(fileUri) ?? [];
    const lines = new LineMap(text);
    const offsets = edits.map((edit) => ({ start: lines.offsetAt(edit.range.start), end: lines.offsetAt(edit.range.end), newText: edit.newText }));
    const target = fileUri === plan.fileRename.oldUri ? plan.fileRename.newUri : fileUri;
    if (target !== fileUri && target in files) throw new Error(`The rename moves ${fileUri} onto an existing ${target}`);
    result[target] = applyEdits(text, offsets);
  }
  for (const editedUri of plan.edits.keys()) if (!(editedUri in files)) throw new Error(`The plan edits ${editedUri}, which is not in the workspace`);
  return result;
}

/** The repository's root, from this file's place in it. */
export const REPO_ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");

/** Every file under `examples/` as `file:///ws/<path>` → text (the workspace the extension ships). */
export function loadExamples(): Record<string, string> {
  const root = join(REPO_ROOT, "examples");
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".skill.md") || entry.name === "skills.json") files[uri(relative(root, path).split(sep).join("/"))] = readFileSync(path, "utf8");
    }
  };
  walk(root);
  return files;
}

/** Everything a skill answers but its text, as plain data: what a skill made another way (released, posted from another thread) must answer alike. */
export function skillAnswers(skill: SkillFile | undefined): unknown {
  if (!skill) return undefined;
  return {
    uri: skill.uri,
    format: skill.format.label,
    declaration: skill.declaration,
    handle: skill.handle,
    slug: skill.slug,
    validHandle: skill.validHandle,
    title: skill.title,
    summary: skill.summary,
    summaryRange: skill.summaryRange,
    enabled: skill.enabled,
    advertised: skill.advertised,
    examples: skill.examples,
    nearMisses: skill.nearMisses,
    frontmatterRange: skill.frontmatterRange,
    bodyStart: skill.bodyStart,
    lines: skill.lines.lineCount,
    mentions: skill.mentions.map((mention) => ({ written: mention.written, slug: mention.slug, sigil: sigilOf(mention), target: (mention as Reference).target, start: mention.start, end: mention.end, place: mention.place, inCode: mention.inCode, range: mention.range })),
    requirements: skill.requirements,
    codeOnly: skill.codeOnly,
    problems: skill.problems,
    declaredName: skill.declaredName,
  };
}
