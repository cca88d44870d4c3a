import { isMap, isScalar, parseDocument, type Node, type Pair } from "yaml";
import { DiagnosticCodes, type CoreDiagnostic } from "../diagnostics.js";
import { uniqueSlugs } from "../mentions.js";
import { isSafePlainScalar, unreadableReason, type SkillFile, type SkillFormat } from "../skillFile.js";
import { isValidHandle, MAX_HANDLE_LENGTH, titleFromHandle } from "../slug.js";
import { LineMap, type Range } from "../text.js";
import { agentSkillHandle, siblingAgentSkillUri, skillFolderUri } from "./paths.js";
import { scanReferences, type Reference } from "./references.js";

/** The Agent Skills format's limit on `description`. */
export const MAX_DESCRIPTION_CHARS = 1024;

/** The sigils of Agent Skills prose: `@name`, `/name` (as agents' users invoke a skill) and `$name` (Codex). */
export const AGENT_SIGILS: readonly string[] = ["@", "/", "$"];

/** The Agent Skills format: `skills/<name>/SKILL.md`, whose folder name is the handle and whose `name:` repeats it. */
export const AGENT_SKILL_FORMAT: SkillFormat = {
  label: "Agent Skill",
  quietReferences: true,
  sigils: AGENT_SIGILS,
  move: (skill, handle) => ({ oldUri: skillFolderUri(skill.uri), newUri: skillFolderUri(siblingAgentSkillUri(skill.uri, handle)) }),
  renamedUri: (uri, handle) => siblingAgentSkillUri(uri, handle),
  ownEdits: (skill, handle) => {
    const name = nameOf(skill);
    return name && name.value === skill.handle ? [{ range: name.range, newText: handle }] : [];
  },
};

/** A SKILL.md's `name:` value and where it stands, when it is a plain string. */
export interface DeclaredName {
  readonly value: string;
  readonly range: Range;
}

const declaredNames = new WeakMap<SkillFile, DeclaredName>();

/** The `name:` a SKILL.md declares (undefined for a `.skill.md`, or a SKILL.md without one). */
export function nameOf(skill: SkillFile): DeclaredName | undefined {
  return declaredNames.get(skill);
}

interface Frontmatter {
  name?: { value: string; span: [number, number] };
  description?: { value: string; span: [number, number] };
  disableModelInvocation?: boolean;
  /** The frontmatter could not be read: no missing-key warnings on top of its error. */
  unreadable: boolean;
}

const OPENING = /^---[ \t]*(?:\r\n|\r|\n|$)/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*$/m;
const SIMPLE_LINE = /^([A-Za-z][A-Za-z0-9_-]*):(?: +(.*?))? *$/;

/** The usual frontmatter, `key: plain text` lines, read without the YAML library; undefined for anything else. */
function readSimple(source: string, base: number): Frontmatter | undefined {
  const result: Frontmatter = { unreadable: false };
  const seen = new Set<string>();
  let lineStart = 0;
  while (lineStart < source.length) {
    let lineEnd = source.indexOf("\n", lineStart);
    if (lineEnd === -1) lineEnd = source.length;
    const line = source.slice(lineStart, lineEnd).replace(/\r$/, "");
    const offset = lineStart;
    lineStart = lineEnd + 1;
    if (line === "") continue;
    const match = SIMPLE_LINE.exec(line);
    const key = match?.[1];
    const value = match?.[2];
    if (key === undefined || value === undefined || value === "" || seen.has(key) || !isSafePlainScalar(value)) return undefined;
    seen.add(key);
    const start = base + offset + line.indexOf(value, key.length + 1);
    if (key === "name") result.name = { value, span: [start, start + value.length] };
    else if (key === "description") result.description = { value, span: [start, start + value.length] };
    else if (key === "disable-model-invocation") return undefined;
  }
  return result;
}

function readYaml(source: string, base: number, lines: LineMap, problems: CoreDiagnostic[]): Frontmatter {
  const result: Frontmatter = { unreadable: false };
  const document = parseDocument(source, { uniqueKeys: true, prettyErrors: false, strict: true });
  const spanOf = (node: Node | null | undefined, fallback: [number, number]): [number, number] => {
    const range = node?.range;
    if (!range || range[1] <= range[0]) return fallback;
    let end = range[1];
    while (end > range[0] && /\s/.test(source.charAt(end - 1))) end--;
    return [base + range[0], base + end];
  };
  for (const error of document.errors) {
    const [from, to] = error.pos;
    const end = Math.min(to, source.trimEnd().length);
    problems.push({ range: lines.rangeOf(base + Math.min(from, end), base + end), severity: "error", code: DiagnosticCodes.frontmatterSyntax, message: `Frontmatter YAML: ${error.message.split("\n")[0] ?? error.message}` });
  }
  if (document.errors.length > 0) return { unreadable: true };
  const contents = document.contents;
  if (contents === null || (isScalar(contents) && contents.value === null)) return result;
  if (!isMap(contents)) {
    problems.push({ range: lines.rangeOf(base, base + source.trimEnd().length), severity: "error", code: DiagnosticCodes.frontmatterType, message: "The frontmatter must be `key: value` lines (name, description, …)." });
    return { unreadable: true };
  }
  for (const pair of contents.items as Pair<Node, Node>[]) {
    const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
    const keySpan = spanOf(pair.key, [base, base]);
    const valueSpan = spanOf(pair.value, keySpan);
    const value = isScalar(pair.value) ? pair.value.value : undefined;
    const wrongType = (want: string) => problems.push({ range: lines.rangeOf(valueSpan[0], valueSpan[1]), severity: "error", code: DiagnosticCodes.frontmatterType, message: `"${key ?? "?"}" must be ${want}.` });
    if (key === "name" || key === "description") {
      if (typeof value !== "string") {
        if (value !== null && value !== undefined) wrongType("a string");
        if (value !== null && value !== undefined) result.unreadable = true;
        continue;
      }
      result[key] = { value: key === "description" ? value.trim() : value, span: valueSpan };
    } else if (key === "disable-model-invocation") {
      if (typeof value === "boolean") result.disableModelInvocation = value;
      else wrongType("true or false");
    }
  }
  return result;
}

/**
 * Parses a `skills/<name>/SKILL.md`. The folder name is the handle; `name:` must repeat it, `description:` is
 * the summary, `disable-model-invocation: true` keeps it off the planner's menu. Never throws: every problem
 * is a diagnostic with an exact range.
 */
export function parseAgentSkill(uri: string, text: string): SkillFile {
  const lines = new LineMap(text);
  const problems: CoreDiagnostic[] = [];
  const handle = agentSkillHandle(uri);
  const validHandle = isValidHandle(handle);
  const head = lines.rangeOf(0, 0);
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let bodyStart = start;
  let frontmatterRange: Range | undefined;
  let frontmatter: Frontmatter = { unreadable: false };
  const unreadable = unreadableReason(text);
  if (unreadable) {
    problems.push({ range: head, severity: "error", code: unreadable.code, message: unreadable.message });
    frontmatter = { unreadable: true };
    bodyStart = text.length;
  } else {
    const opening = OPENING.exec(text.slice(start, start + 8));
    if (opening) {
      const contentStart = start + opening[0].length;
      const closing = CLOSING.exec(text.slice(contentStart));
      if (!closing) {
        problems.push({ range: lines.rangeOf(start, start + 3), severity: "error", code: DiagnosticCodes.frontmatterUnclosed, message: "The frontmatter is not closed: add a line with --- after its last key." });
        frontmatter = { unreadable: true };
        bodyStart = contentStart;
      } else {
        const contentEnd = contentStart + closing.index;
        let fenceEnd = contentEnd + closing[0].length;
        if (text.charAt(fenceEnd) === "\r") fenceEnd++;
        if (text.charAt(fenceEnd) === "\n") fenceEnd++;
        bodyStart = fenceEnd;
        frontmatterRange = lines.rangeOf(start, fenceEnd);
        const source = text.slice(contentStart, contentEnd);
        frontmatter = readSimple(source, contentStart) ?? readYaml(source, contentStart, lines, problems);
      }
    }
  }

  const fenceHead = frontmatterRange ? { start: frontmatterRange.start, end: lines.positionAt(start + 3) } : head;
  const { name, description } = frontmatter;
  const nameRange = name ? lines.rangeOf(name.span[0], name.span[1]) : undefined;
  if (!validHandle) {
    problems.push({
      range: head,
      severity: "error",
      code: DiagnosticCodes.invalidHandle,
      message: `The folder name "${handle}" is the handle, and it is not a valid one: use lower-case letters and digits joined by single hyphens, at most ${MAX_HANDLE_LENGTH} characters.`,
    });
  }
  if (name && nameRange) {
    if (!isValidHandle(name.value)) {
      const tooLong = name.value.length > MAX_HANDLE_LENGTH;
      problems.push({
        range: nameRange,
        severity: "error",
        code: tooLong ? DiagnosticCodes.longName : DiagnosticCodes.invalidName,
        message: tooLong
          ? `A name has at most ${MAX_HANDLE_LENGTH} characters; this one has ${name.value.length}.`
          : `"${name.value}" is not a valid name: use lower-case letters and digits joined by single hyphens (like data-sync).`,
        ...(validHandle ? { fix: { kind: "set-name", name: handle } as const } : {}),
      });
    } else if (name.value !== handle) {
      problems.push({
        range: nameRange,
        severity: "error",
        code: DiagnosticCodes.nameMismatch,
        message: `The name "${name.value}" differs from its folder "${handle}": an Agent Skill's name must equal its folder's name.`,
        fix: { kind: "name-mismatch", name: name.value, folder: handle },
      });
    }
  } else if (!frontmatter.unreadable && validHandle) {
    problems.push({ range: fenceHead, severity: "warning", code: DiagnosticCodes.missingName, message: `This SKILL.md has no name: add \`name: ${handle}\` (the folder's name).`, fix: { kind: "set-name", name: handle } });
  }
  if (!frontmatter.unreadable) {
    if (!description || description.value === "") {
      problems.push({
        range: description ? lines.rangeOf(description.span[0], description.span[1]) : fenceHead,
        severity: "warning",
        code: DiagnosticCodes.missingDescription,
        message: "This skill has no description: add `description:`, what it does and when to use it (agents read it to decide when to load the skill).",
      });
    } else if (description.value.length > MAX_DESCRIPTION_CHARS) {
      problems.push({
        range: lines.rangeOf(description.span[0], description.span[1]),
        severity: "error",
        code: DiagnosticCodes.longDescription,
        message: `A description has at most ${MAX_DESCRIPTION_CHARS.toLocaleString("en")} characters; this one has ${description.value.length.toLocaleString("en")}.`,
      });
    }
  }

  const mentions: Reference[] = [];
  if (description && description.value !== "") mentions.push(...scanReferences(uri, text, lines, description.span[0], description.span[1], "summary"));
  if (!unreadable) mentions.push(...scanReferences(uri, text, lines, bodyStart, text.length, "body"));
  const skill: SkillFile = {
    uri,
    format: AGENT_SKILL_FORMAT,
    declaration: nameRange ?? head,
    handle,
    slug: handle.toLowerCase(),
    validHandle,
    text,
    lines,
    title: titleFromHandle(handle.toLowerCase()),
    summary: description?.value === "" ? undefined : description?.value,
    summaryRange: description ? lines.rangeOf(description.span[0], description.span[1]) : undefined,
    enabled: true,
    advertised: frontmatter.disableModelInvocation !== true,
    examples: [],
    nearMisses: [],
    frontmatterRange,
    bodyStart,
    body: text.slice(bodyStart),
    mentions,
    requirements: uniqueSlugs(mentions.filter((mention) => mention.place === "body" && mention.sigil !== "")).slice(),
    problems,
  };
  if (name && nameRange) declaredNames.set(skill, { value: name.value, range: nameRange });
  return skill;
}

/** A new SKILL.md: the folder's name as `name:`, a description to write, the title as its heading. */
export function agentSkillTemplate(handle: string, title: string): string {
  return `---
name: ${handle}
description: What this skill does and when to use it, in one or two sentences; agents read it to decide when to load the skill.
---
# ${title.replace(/[\r\n]+/g, " ")}

Describe the steps in prose. Refer to other skills as /name and to tools with @.
`;
}
