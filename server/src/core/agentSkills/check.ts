/**
 * Checks a SKILL.md frontmatter against what the Agent Skills format and the agents that read it define:
 * types, finite value sets, the format's limits, and keys the agents reading the file ignore. Plain
 * diagnostics out, the same shape as every other core problem.
 */
import { DiagnosticCodes, type CoreDiagnostic, type Severity } from "../diagnostics.js";
import { nearest } from "../skillFile.js";
import { handleProblem } from "../slug.js";
import { detached, type Range } from "../text.js";
import { agentNames, KEY_DOCUMENTED_AGENTS, type AgentId } from "./agents.js";
import { entryOf, type FrontmatterEntry, type FrontmatterValue } from "./frontmatter.js";
import {
  AGENT_SKILL_KEYS,
  agentSkillKey,
  agentSkillMetadataKey,
  CLAUDE_CODE_BOOLEAN_WORDS,
  CLAUDE_CODE_LISTING_LENGTH,
  describeKeyType,
  KEYS_IGNORED_IN_COMMAND_FILES,
  type AgentSkillKey,
  type KeyType,
} from "./keys.js";
import { groupedDigits } from "../../../../shared/words.js";

/** A skill's SKILL.md, or a Claude Code command file (`.claude/commands/*.md`), which takes the same keys but `name` and `paths`. */
export type AgentSkillFileKind = "skill" | "command";

export interface AgentSkillCheckContext {
  /** Where a missing key is reported: the frontmatter's opening fence (or the file's start). */
  readonly headerRange: Range;
  /** The agents that read the file where it stands (`agentsReadingSkill(uri)`); undefined when any may. */
  readonly readers?: readonly AgentId[];
  readonly file?: AgentSkillFileKind;
}

/** Characters as the agents count them: Unicode code points, not UTF-16 units. */
function length(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** The range to report a value's problem on: the value, or its key when nothing is written after it. */
function valueRange(entry: FrontmatterEntry): Range {
  const { start, end } = entry.value.range;
  return start.line === end.line && start.character === end.character ? entry.keyRange : entry.value.range;
}

function kindWord(value: FrontmatterValue): string {
  switch (value.kind) {
    case "string":
      return "a string";
    case "boolean":
      return `the boolean ${String(value.value)}`;
    case "number":
      return `the number ${value.text}`;
    case "null":
      return "nothing";
    case "list":
      return "a list";
    case "map":
      return "a map";
    case "other":
      return "an alias or tagged value";
  }
}

/** The known key a misspelt one stands for: the same up to case and `_`/`-`, or the nearest by edit distance. */
function suggestKey(key: string, known: readonly string[]): string | undefined {
  const normal = (text: string) => text.toLowerCase().replace(/[_\s]/g, "-");
  return known.find((candidate) => normal(candidate) === normal(key)) ?? nearest(key.toLowerCase(), known, 1)[0];
}

const SKILL_KEYS = AGENT_SKILL_KEYS.map((spec) => spec.key);

/**
 * {@link suggestKey} among a SKILL.md's keys, remembered by key: a real library repeats its own few (`version`,
 * `author`, `tags`), and in thereisnotime/skills-collection the edit distances to every known key took a tenth
 * of a second of each thread's first index.
 */
const skillKeySuggestions = new Map<string, string | null>();
/** Past this many keys the memory starts again: it is a saving, not a registry. */
const MAX_REMEMBERED_KEYS = 10_000;
const MAX_REMEMBERED_KEY_LENGTH = 64;

function suggestedSkillKey(key: string): string | undefined {
  if (key.length > MAX_REMEMBERED_KEY_LENGTH) return suggestKey(key, SKILL_KEYS);
  let suggestion = skillKeySuggestions.get(key);
  if (suggestion === undefined) {
    if (skillKeySuggestions.size >= MAX_REMEMBERED_KEYS) skillKeySuggestions.clear();
    suggestion = suggestKey(key, SKILL_KEYS) ?? null;
    // A copy: the key cut from a file's text would keep the whole text alive here.
    skillKeySuggestions.set(detached(key), suggestion);
  }
  return suggestion ?? undefined;
}

class Checker {
  readonly problems: CoreDiagnostic[] = [];
  readonly #context: AgentSkillCheckContext;

  constructor(context: AgentSkillCheckContext) {
    this.#context = context;
  }

  report(range: Range, severity: Severity, code: CoreDiagnostic["code"], message: string): void {
    this.problems.push({ range, severity, code, message });
  }

  /** A wrong type: an error where an agent then refuses the skill (name, description), a warning where it ignores the key. */
  wrongType(entry: FrontmatterEntry, label: string, type: KeyType, refused: boolean, extra = ""): void {
    const want = describeKeyType(type);
    this.report(valueRange(entry), refused ? "error" : "warning", DiagnosticCodes.frontmatterType, `"${label}" must be ${want}, not ${kindWord(entry.value)}.${extra}`);
  }

  checkEntry(entry: FrontmatterEntry, spec: AgentSkillKey, label: string): void {
    const refused = spec.required === true;
    const { value } = entry;
    const type = spec.type;
    // `key:` with nothing after it: an empty map is fine, any other empty value says nothing.
    if (value.kind === "null" && type.kind !== "map") return this.empty(entry, label);
    switch (type.kind) {
      case "text": {
        if (value.kind !== "string") {
          const quote = value.kind === "number" || value.kind === "boolean" ? ` Quote it to keep it as text: ${label}: "${value.kind === "number" ? value.text : String(value.value)}".` : "";
          return this.wrongType(entry, label, type, refused, quote);
        }
        return this.text(entry, spec, label, value.value);
      }
      case "boolean":
        return this.boolean(entry, label, type);
      case "choice": {
        if (value.kind !== "string") return this.wrongType(entry, label, type, refused);
        if (type.values.some((option) => option.value === value.value)) return;
        const options = type.values.map((option) => option.value);
        const near = nearest(value.value.toLowerCase(), options, 1)[0];
        this.report(valueRange(entry), "warning", DiagnosticCodes.frontmatterValue, `"${value.value}" is not a value of "${label}"${near ? `: did you mean "${near}"?` : "."} It takes ${describeKeyType(type)}.`);
        return;
      }
      case "text-or-list": {
        if (value.kind === "string") return;
        if (value.kind !== "list") return this.wrongType(entry, label, type, refused);
        for (const item of value.items) {
          if (item.kind !== "string") this.report(item.range, "warning", DiagnosticCodes.frontmatterType, `Each entry of "${label}" must be a string, not ${kindWord(item)}.`);
        }
        return;
      }
      case "map": {
        if (value.kind !== "map") {
          if (value.kind === "null") return;
          return this.wrongType(entry, label, type, refused, label === "metadata" ? " Claude Code drops a metadata value that is not a map." : "");
        }
        if (type.values === "text") this.metadata(value.entries, label);
        return;
      }
    }
  }

  empty(entry: FrontmatterEntry, label: string): void {
    // An empty name is a missing one, the caller's to report (it knows the folder the name should copy).
    if (label === "name") return;
    if (label === "description") {
      if (this.#context.file === "command") return;
      this.report(valueRange(entry), "warning", DiagnosticCodes.missingSummary, "The description is empty: agents choose a skill by its description (and Codex does not load a skill without one). Say what the skill does and when to use it.");
      return;
    }
    this.report(valueRange(entry), "warning", DiagnosticCodes.frontmatterLimit, `"${label}" is empty: write a value or leave the key out.`);
  }

  text(entry: FrontmatterEntry, spec: AgentSkillKey, label: string, text: string): void {
    if (spec.limits?.nonEmpty && text.trim() === "") return this.empty(entry, label);
    if (label === "name") {
      const problem = handleProblem(text);
      if (problem) this.report(valueRange(entry), "error", DiagnosticCodes.invalidHandle, `${problem} The specification's name is the skill's handle, its folder's name (Claude Code alone takes any text, as a display label).`);
      return;
    }
    const max = spec.limits?.maxLength;
    const count = length(text);
    if (max !== undefined && count > max) {
      const who: Readonly<Record<string, string>> = {
        "short-description": "Codex does not load a skill whose short-description is longer",
        description: "Codex does not load a skill with a longer one, and the specification's validator refuses it",
      };
      this.report(valueRange(entry), "error", DiagnosticCodes.frontmatterLimit, `"${label}" has ${groupedDigits(count)} characters; the limit is ${groupedDigits(max)} (${who[label] ?? "the specification's validator refuses a longer one"}).`);
    }
    if (label === "description" && /[<>]/.test(text)) {
      this.report(valueRange(entry), "hint", DiagnosticCodes.frontmatterLimit, "The description holds < or >: anthropics/skills' packaging script refuses that, and Claude Code escapes them in synced skills.");
    }
  }

  boolean(entry: FrontmatterEntry, label: string, type: KeyType): void {
    const { value } = entry;
    if (value.kind === "boolean") return;
    const word = value.kind === "string" && !value.quoted ? value.value : value.kind === "number" ? value.text : undefined;
    const meant = word === undefined ? undefined : CLAUDE_CODE_BOOLEAN_WORDS[word.toLowerCase()];
    if (meant !== undefined && word !== undefined) {
      this.report(valueRange(entry), "information", DiagnosticCodes.frontmatterType, `Claude Code (from v2.1.218) reads "${word}" as ${String(meant)}; YAML, VS Code and earlier versions read it as ${value.kind === "number" ? "a number" : "a string"}. Write ${String(meant)}.`);
      return;
    }
    this.wrongType(entry, label, type, false);
  }

  /** `metadata`: strings to strings, and Codex's `short-description` with its limit. */
  metadata(entries: readonly FrontmatterEntry[], label: string): void {
    for (const child of entries) {
      const known = agentSkillMetadataKey(child.key);
      const childLabel = known ? child.key : `${label}.${child.key}`;
      if (child.value.kind === "string") {
        if (known) this.text(child, known, "short-description", child.value.value);
        continue;
      }
      if (child.value.kind === "number" || child.value.kind === "boolean") {
        const written = child.value.kind === "number" ? child.value.text : String(child.value.value);
        this.report(valueRange(child), "warning", DiagnosticCodes.frontmatterType, `Metadata values are strings; YAML reads ${written} as ${child.value.kind === "number" ? "a number" : "a boolean"}. Quote it: ${child.key}: "${written}".`);
        continue;
      }
      if (child.value.kind === "null" && !known) continue;
      // Claude Code keeps nested metadata as it is; only tools that follow the specification to the letter mind.
      const severity = known ? "warning" : "hint";
      this.report(valueRange(child), severity, DiagnosticCodes.frontmatterType, `"${childLabel}" ${known ? "must be" : "is"} ${known ? "a string" : kindWord(child.value)}${known ? `, not ${kindWord(child.value)}` : ""}: the specification's metadata maps strings to strings.`);
    }
  }

  unknown(entry: FrontmatterEntry): void {
    const suggestion = suggestedSkillKey(entry.key);
    if (suggestion !== undefined) {
      this.report(entry.keyRange, "warning", DiagnosticCodes.frontmatterUnknownKey, `Unknown frontmatter key "${entry.key}": did you mean "${suggestion}"? Agents ignore keys they do not know.`);
      return;
    }
    this.report(entry.keyRange, "hint", DiagnosticCodes.frontmatterUnknownKey, `"${entry.key}" is no key of the Agent Skills format or of Claude Code, Copilot or Codex, so agents ignore it (and claude.ai refuses it in an upload). Your own data belongs under metadata:.`);
  }

  /** A key that no agent reading the file acts on, where that is known for every one of them. */
  ignored(entry: FrontmatterEntry, spec: AgentSkillKey): void {
    const readers = this.#context.readers;
    if (this.#context.file === "command" && KEYS_IGNORED_IN_COMMAND_FILES.includes(spec.key)) {
      const why = spec.key === "name" ? "a command is named by its file" : "a command file is not loaded by path";
      this.report(entry.keyRange, "hint", DiagnosticCodes.frontmatterIgnored, `Claude Code ignores "${spec.key}" in a command file: ${why}.`);
      return;
    }
    if (!readers || !spec.actedOnBy || readers.length === 0) return;
    if (!readers.every((reader) => KEY_DOCUMENTED_AGENTS.includes(reader))) return;
    if (readers.some((reader) => spec.actedOnBy?.includes(reader))) return;
    this.report(entry.keyRange, "hint", DiagnosticCodes.frontmatterIgnored, `"${spec.key}" is read by ${agentNames(spec.actedOnBy)}, not by ${agentNames(readers)}, which ${readers.length === 1 ? "reads" : "read"} skills from this folder.`);
  }
}

/**
 * The problems of a SKILL.md's frontmatter entries (from `readFrontmatter`). A missing `name` and a `name`
 * that differs from its folder are the file's, not the frontmatter's: the caller knows the folder.
 */
export function checkAgentSkillFrontmatter(entries: readonly FrontmatterEntry[], context: AgentSkillCheckContext): CoreDiagnostic[] {
  const checker = new Checker(context);
  for (const entry of entries) {
    const spec = agentSkillKey(entry.key);
    if (!spec) {
      checker.unknown(entry);
      continue;
    }
    checker.checkEntry(entry, spec, spec.key);
    checker.ignored(entry, spec);
  }

  const description = entryOf(entries, "description");
  if (!description && context.file !== "command") {
    checker.report(context.headerRange, "warning", DiagnosticCodes.missingSummary, "This skill has no description: agents choose a skill by it (and Codex does not load a skill without one). Add description: what it does and when to use it.");
  }

  const fork = entryOf(entries, "context");
  const forked = fork?.value.kind === "string" && fork.value.value === "fork";
  for (const key of ["agent", "background"]) {
    const entry = entryOf(entries, key);
    const hinted = checker.problems.some((problem) => problem.code === DiagnosticCodes.frontmatterIgnored && problem.range === entry?.keyRange);
    if (entry && !forked && !hinted) checker.report(entry.keyRange, "hint", DiagnosticCodes.frontmatterIgnored, `"${key}" has an effect only with context: fork.`);
  }

  const whenToUse = entryOf(entries, "when_to_use");
  if (description?.value.kind === "string" && whenToUse?.value.kind === "string") {
    const combined = length(description.value.value) + length(whenToUse.value.value);
    if (combined > CLAUDE_CODE_LISTING_LENGTH) {
      checker.report(whenToUse.keyRange, "hint", DiagnosticCodes.frontmatterLimit, `The description and when_to_use have ${groupedDigits(combined)} characters together; Claude Code's skill listing cuts them at ${groupedDigits(CLAUDE_CODE_LISTING_LENGTH)}.`);
    }
  }
  return checker.problems;
}

/**
 * A boolean key's value as an agent reads it: true, false, or undefined when absent or not a boolean.
 * Claude Code's words (`yes`, `off`, …) count, so `disable-model-invocation: yes` hides the skill as it does there.
 */
export function agentSkillBoolean(entries: readonly FrontmatterEntry[], key: string): boolean | undefined {
  const value = entryOf(entries, key)?.value;
  if (value?.kind === "boolean") return value.value;
  const word = value?.kind === "string" && !value.quoted ? value.value : value?.kind === "number" ? value.text : undefined;
  return word === undefined ? undefined : CLAUDE_CODE_BOOLEAN_WORDS[word.toLowerCase()];
}
