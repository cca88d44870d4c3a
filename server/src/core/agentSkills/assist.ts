/**
 * Completion and hover data for SKILL.md frontmatter keys and values: plain items with Markdown and plain-text
 * documentation, for the LSP layer to turn into protocol items.
 */
import { agentNames, KEY_DOCUMENTED_AGENTS, type AgentId, type DocText } from "./agents.js";
import type { AgentSkillFileKind } from "./check.js";
import {
  AGENT_SKILL_KEYS,
  AGENT_SKILL_METADATA_KEYS,
  agentSkillKey,
  agentSkillMetadataKey,
  describeKeyType,
  KEYS_IGNORED_IN_COMMAND_FILES,
  type AgentSkillKey,
  type KeyValue,
} from "./keys.js";
import { groupedDigits } from "../../../../shared/words.js";

export interface AgentSkillCompletionItem {
  readonly label: string;
  /** One line beside the label: the type and who defines the key. */
  readonly detail: string;
  readonly documentation: DocText;
  /** What to insert: `key: ` for a key (a line break and an indent for a map), the value itself for a value. */
  readonly insertText: string;
  /** Orders the list as the table does: the specification's keys first. */
  readonly sortText: string;
}

/** Where the cursor's key stands: at the top of the frontmatter, or inside `metadata`. */
export type KeyPlace = "top" | "metadata";

export interface AssistOptions {
  readonly place?: KeyPlace;
  readonly file?: AgentSkillFileKind;
  /** The agents that read the file where it stands: a hover says when none of them acts on the key. */
  readonly readers?: readonly AgentId[];
}

function keysAt(place: KeyPlace | undefined): readonly AgentSkillKey[] {
  return place === "metadata" ? AGENT_SKILL_METADATA_KEYS : AGENT_SKILL_KEYS;
}

function lookup(key: string, place: KeyPlace | undefined): AgentSkillKey | undefined {
  return place === "metadata" ? agentSkillMetadataKey(key) : agentSkillKey(key);
}

function definedBy(spec: AgentSkillKey): string {
  return spec.sources.map((source) => source.label).filter((label, i, all) => all.indexOf(label) === i).join(", ");
}

/** The sentence on who acts on a key, and who does not among the agents whose reading is documented. */
function readersLine(spec: AgentSkillKey, options: AssistOptions): string {
  if (options.file === "command" && KEYS_IGNORED_IN_COMMAND_FILES.includes(spec.key)) return "Claude Code ignores it in a command file.";
  if (!spec.actedOnBy) return "Informational: no agent acts on it.";
  const ignoring = KEY_DOCUMENTED_AGENTS.filter((agent) => !spec.actedOnBy?.includes(agent));
  const readers = options.readers?.filter((agent) => KEY_DOCUMENTED_AGENTS.includes(agent));
  const here = readers && readers.length > 0 && !readers.some((agent) => spec.actedOnBy?.includes(agent)) ? " None of the agents that read this folder acts on it." : "";
  return `Read by ${agentNames(spec.actedOnBy)}${ignoring.length > 0 ? `; ignored by ${agentNames(ignoring)}` : ""}.${here}`;
}

function keyDoc(spec: AgentSkillKey, options: AssistOptions): DocText {
  const type = describeKeyType(spec.type);
  const required = spec.required ? " · required by the specification" : "";
  const limit = spec.limits?.maxLength !== undefined ? ` · at most ${groupedDigits(spec.limits.maxLength)} characters` : "";
  const readers = readersLine(spec, options);
  const links = spec.sources.map((source) => `[${source.label}](${source.url})`).join(" · ");
  const plainSources = spec.sources.map((source) => `${source.label} ${source.url}`).join("; ");
  return {
    markdown: `**${spec.key}**: ${type}${required}${limit}\n\n${spec.documentation}\n\n${readers}\n\nSources: ${links}`,
    plain: `${spec.key}: ${type}${required}${limit}\n\n${spec.documentation}\n\n${readers}\n\nSources: ${plainSources}`,
  };
}

/** The documentation of a key for a hover, or undefined for a key no agent defines. */
export function hoverAgentSkillKey(key: string, options: AssistOptions = {}): DocText | undefined {
  const spec = lookup(key, options.place);
  return spec ? keyDoc(spec, options) : undefined;
}

/** The keys to offer at a new line of the frontmatter, leaving out those already written. */
export function completeAgentSkillKey(present: Iterable<string>, options: AssistOptions = {}): AgentSkillCompletionItem[] {
  const written = new Set(present);
  const items: AgentSkillCompletionItem[] = [];
  keysAt(options.place).forEach((spec, index) => {
    if (written.has(spec.key) || spec.aliases?.some((alias) => written.has(alias))) return;
    if (options.file === "command" && KEYS_IGNORED_IN_COMMAND_FILES.includes(spec.key)) return;
    items.push({
      label: spec.key,
      detail: `${describeKeyType(spec.type)} · ${definedBy(spec)}`,
      documentation: keyDoc(spec, options),
      insertText: spec.type.kind === "map" ? `${spec.key}:\n  ` : `${spec.key}: `,
      sortText: String(index).padStart(3, "0"),
    });
  });
  return items;
}

function valuesOf(spec: AgentSkillKey): readonly KeyValue[] {
  switch (spec.type.kind) {
    case "boolean": {
      const fallback = spec.type.default;
      return [true, false].map((value) => ({ value: String(value), documentation: value === fallback ? "The default." : `Not the default (${String(fallback)}).` }));
    }
    case "choice":
      return spec.type.values;
    case "text":
      return spec.type.suggestions ?? [];
    default:
      return [];
  }
}

/** The values to offer after `key: `: a boolean's two, a finite set, or the usual ones of an open set (`model`). */
export function completeAgentSkillValue(key: string, options: AssistOptions = {}): AgentSkillCompletionItem[] {
  const spec = lookup(key, options.place);
  if (!spec) return [];
  const open = spec.type.kind === "text";
  return valuesOf(spec).map((entry, index) => ({
    label: entry.value,
    detail: `${spec.key}${open ? " · a common value" : ""}`,
    documentation: { markdown: `\`${entry.value}\`: ${entry.documentation}`, plain: `${entry.value}: ${entry.documentation}` },
    insertText: entry.value,
    sortText: String(index).padStart(3, "0"),
  }));
}

/** The documentation of one value of a key with a finite or suggested set (`context: fork`), for a hover. */
export function hoverAgentSkillValue(key: string, value: string, options: AssistOptions = {}): DocText | undefined {
  const spec = lookup(key, options.place);
  const entry = spec ? valuesOf(spec).find((candidate) => candidate.value === value) : undefined;
  if (!spec || !entry) return undefined;
  return { markdown: `\`${spec.key}: ${entry.value}\`: ${entry.documentation}`, plain: `${spec.key}: ${entry.value}: ${entry.documentation}` };
}
