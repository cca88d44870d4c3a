import { DiagnosticCodes, type CoreDiagnostic } from "../diagnostics.js";
import { findFrontmatter } from "../frontmatterBlock.js";
import { uniqueSlugs } from "../mentions.js";
import { unreadableReason, type SkillFile, type SkillFormat } from "../skillFile.js";
import { isValidHandle, MAX_HANDLE_LENGTH, titleFromHandle } from "../slug.js";
import { agentsReadingSkill } from "./agents.js";
import { agentSkillBoolean, checkAgentSkillFrontmatter } from "./check.js";
import { entryOf, readFrontmatter, type FrontmatterEntry } from "./frontmatter.js";
import { detached, interned, LineMap, type Range } from "../text.js";
import { agentSkillHandle, siblingAgentSkillUri, skillFolderUri } from "./paths.js";
import { scanReferences, type Reference } from "./references.js";

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

/** The `name:` a SKILL.md declares (undefined for a `.skill.md`, or a SKILL.md without one). */
export function nameOf(skill: SkillFile): DeclaredName | undefined {
  return skill.declaredName;
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
  let entries: readonly FrontmatterEntry[] | undefined = [];
  const unreadable = unreadableReason(text);
  if (unreadable) {
    problems.push({ range: head, severity: "error", code: unreadable.code, message: unreadable.message });
    entries = undefined;
    bodyStart = text.length;
  } else {
    const block = findFrontmatter(text, lines);
    bodyStart = block.bodyStart;
    if (block.kind === "unclosed") {
      problems.push(block.problem);
      entries = undefined;
    } else if (block.kind === "closed") {
      frontmatterRange = block.range;
      const read = readFrontmatter(text.slice(block.contentStart, block.contentEnd), block.contentStart, lines);
      problems.push(...read.problems);
      entries = read.entries;
    }
  }

  const fenceHead = frontmatterRange ? { start: frontmatterRange.start, end: lines.positionAt(start + 3) } : head;
  if (entries) problems.push(...checkAgentSkillFrontmatter(entries, { headerRange: fenceHead, readers: agentsReadingSkill(uri) }));
  const nameValue = entries && entryOf(entries, "name")?.value;
  const descriptionValue = entries && entryOf(entries, "description")?.value;
  const name = nameValue?.kind === "string" && nameValue.value.trim() !== "" ? { value: nameValue.value, range: nameValue.range } : undefined;
  const description = descriptionValue?.kind === "string" ? { value: descriptionValue.value.trim(), range: descriptionValue.range } : undefined;
  const nameRange = name?.range;
  if (!validHandle) {
    problems.push({
      range: head,
      severity: "error",
      code: DiagnosticCodes.invalidHandle,
      message: `The folder name "${handle}" is the handle, and it is not a valid one: use lower-case letters and digits joined by single hyphens, at most ${MAX_HANDLE_LENGTH} characters.`,
    });
  }
  // A name that is no valid handle is the checker's to report; one that is valid but differs from the folder is the file's.
  if (name && nameRange && isValidHandle(name.value) && name.value !== handle) {
    problems.push({
      range: nameRange,
      severity: "error",
      code: DiagnosticCodes.nameMismatch,
      message: `The name "${name.value}" differs from its folder "${handle}": an Agent Skill's name must equal its folder's name.`,
      fix: { kind: "name-mismatch", name: name.value, folder: handle },
    });
  } else if (!name && entries && validHandle && nameValue?.kind !== "number" && nameValue?.kind !== "boolean" && nameValue?.kind !== "list" && nameValue?.kind !== "map") {
    problems.push({ range: nameValue ? nameValue.range : fenceHead, severity: "warning", code: DiagnosticCodes.missingName, message: `This SKILL.md has no name: add \`name: ${handle}\` (the folder's name).`, fix: { kind: "set-name", name: handle } });
  }

  const mentions: Reference[] = [];
  if (description && description.value !== "") mentions.push(...scanReferences(uri, text, lines, lines.offsetAt(description.range.start), lines.offsetAt(description.range.end), "summary"));
  if (!unreadable) mentions.push(...scanReferences(uri, text, lines, bodyStart, text.length, "body"));
  const skill: SkillFile = {
    uri,
    format: AGENT_SKILL_FORMAT,
    declaration: nameRange ?? head,
    handle,
    slug: interned(handle.toLowerCase()),
    validHandle,
    text,
    lines,
    title: titleFromHandle(handle.toLowerCase()),
    summary: description?.value === "" ? undefined : description?.value,
    summaryRange: description?.range,
    enabled: true,
    advertised: !(entries && agentSkillBoolean(entries, "disable-model-invocation") === true),
    examples: [],
    nearMisses: [],
    frontmatterRange,
    bodyStart,
    body: text.slice(bodyStart),
    mentions,
    codeOnly: [],
    requirements: uniqueSlugs(mentions.filter((mention) => mention.place === "body" && mention.sigil !== "")).slice(),
    problems,
    ...(name && nameRange ? { declaredName: { value: detached(name.value), range: nameRange } } : {}),
  };
  return skill;
}

/**
 * An Agent Skill as its path alone describes it, until its text is read: the handle its folder names, enabled
 * (as every Agent Skill is), nothing of its text. All that a mention of it in another file needs. Whether it is
 * advertised is its text's (`disable-model-invocation`): read as true here, so whoever needs it reads the file.
 */
export function agentSkillFromPath(uri: string): SkillFile {
  return { ...parseAgentSkill(uri, ""), problems: [] };
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
