/**
 * Every frontmatter key of a SKILL.md: the Agent Skills specification's own and those the agents that read
 * these folders add, each with its type, what it means, where that is written down, and which agents act on
 * it. Checked against each agent's documentation on 2026-12-03 (the sources below); a key no document
 * confirmed is not here.
 */
import { CLAUDE_CODE_SOURCE, CODEX_SOURCE, GITHUB_COPILOT_SOURCE, SPEC_SOURCE, VSCODE_SOURCE, type AgentId, type Source } from "./agents.js";

/** One value of a key whose values form a finite (or a suggested) set. */
export interface KeyValue {
  readonly value: string;
  readonly documentation: string;
}

/**
 * What a key's value may be. `text-or-list` is a string of items separated as `separators` says, or a YAML
 * list of strings; `choice` is one of a finite set; `text` may carry `suggestions`, values that are common
 * but not the only ones allowed (a model name, an agent name).
 */
export type KeyType =
  | { readonly kind: "text"; readonly suggestions?: readonly KeyValue[] }
  | { readonly kind: "boolean"; readonly default: boolean }
  | { readonly kind: "choice"; readonly values: readonly KeyValue[] }
  | { readonly kind: "text-or-list"; readonly separators: "space" | "comma" | "space or comma" }
  | { readonly kind: "map"; readonly values: "text" | "any" };

/** Limits on a text value, in characters (Unicode code points, as the agents count them). */
export interface TextLimits {
  readonly maxLength?: number;
  /** An empty value is a problem (the specification says 1..n characters). */
  readonly nonEmpty?: boolean;
}

export interface AgentSkillKey {
  readonly key: string;
  readonly type: KeyType;
  readonly limits?: TextLimits;
  /** The specification requires it. */
  readonly required?: boolean;
  /** One line: what the key is for (completion detail). */
  readonly summary: string;
  /** One paragraph: what the key does, in this project's words. */
  readonly documentation: string;
  /** The documents that define the key. */
  readonly sources: readonly Source[];
  /**
   * The agents that act on the key. An agent of KEY_DOCUMENTED_AGENTS missing here ignores it. Undefined for
   * keys that only inform a person (a licence): no agent acts on them, and none is the worse for it.
   */
  readonly actedOnBy?: readonly AgentId[];
  /** Other spellings an agent accepts for the same key. */
  readonly aliases?: readonly string[];
}

/** The specification's limits for `name`: at most 64 characters. */
export const MAX_NAME_LENGTH = 64;
/** The specification's limit for `description`. */
export const MAX_DESCRIPTION_LENGTH = 1024;
/** The specification's limit for `compatibility`. */
export const MAX_COMPATIBILITY_LENGTH = 500;
/** Codex's limit for `metadata.short-description`. */
export const MAX_SHORT_DESCRIPTION_LENGTH = 500;
/** Claude Code cuts `description` and `when_to_use` together at this many characters in its skill listing. */
export const CLAUDE_CODE_LISTING_LENGTH = 1536;

/** The words Claude Code reads as booleans besides true and false (any letter case), from v2.1.218. */
export const CLAUDE_CODE_BOOLEAN_WORDS: Readonly<Record<string, boolean>> = { yes: true, on: true, "1": true, no: false, off: false, "0": false };

const ALL: readonly AgentId[] = ["claude-code", "vscode-copilot", "codex"];
const CLAUDE: readonly AgentId[] = ["claude-code"];
const CLAUDE_AND_VSCODE: readonly AgentId[] = ["claude-code", "vscode-copilot"];

/** The keys of a SKILL.md's frontmatter, the specification's first. */
export const AGENT_SKILL_KEYS: readonly AgentSkillKey[] = [
  {
    key: "name",
    type: { kind: "text" },
    limits: { maxLength: MAX_NAME_LENGTH, nonEmpty: true },
    required: true,
    summary: "The skill's name: lower-case letters, digits and single hyphens, the same as its folder.",
    documentation:
      "The skill's identifier. The specification asks for 1 to 64 lower-case letters and digits joined by single hyphens (no hyphen at either end, none doubled), written exactly like the folder that holds the SKILL.md. Codex refuses a skill without it. In a personal or project skill Claude Code only shows it as the display name: the command you type is still the folder's name.",
    sources: [SPEC_SOURCE, CLAUDE_CODE_SOURCE, VSCODE_SOURCE, GITHUB_COPILOT_SOURCE, CODEX_SOURCE],
    actedOnBy: ALL,
  },
  {
    key: "description",
    type: { kind: "text" },
    limits: { maxLength: MAX_DESCRIPTION_LENGTH, nonEmpty: true },
    required: true,
    summary: "What the skill does and when to use it: the text an agent chooses the skill by.",
    documentation:
      "What the skill does and when it should be used, 1 to 1,024 characters. It is the only part of the skill an agent reads before deciding to load it, so name the tasks and the words a user would say. Codex refuses a skill without it; Claude Code falls back to the body's first paragraph. Claude Code's skill listing cuts this text and `when_to_use` together at 1,536 characters, so put the main use first.",
    sources: [SPEC_SOURCE, CLAUDE_CODE_SOURCE, VSCODE_SOURCE, GITHUB_COPILOT_SOURCE, CODEX_SOURCE],
    actedOnBy: ALL,
  },
  {
    key: "license",
    type: { kind: "text" },
    summary: "The licence the skill is under, or the bundled file that states it.",
    documentation:
      "The licence that covers the skill: a licence name (`Apache-2.0`) or a pointer to a licence file shipped in the folder (`Complete terms in LICENSE.txt`). It is for people; no agent changes what it does because of it.",
    sources: [SPEC_SOURCE, CLAUDE_CODE_SOURCE, VSCODE_SOURCE, GITHUB_COPILOT_SOURCE],
  },
  {
    key: "compatibility",
    type: { kind: "text" },
    limits: { maxLength: MAX_COMPATIBILITY_LENGTH, nonEmpty: true },
    summary: "What the skill needs to run: a product, system packages, network access.",
    documentation:
      "The environment the skill expects, up to 500 characters: the product it was written for, the programs it calls, whether it needs the network. Most skills leave it out. Agents accept it and do not act on it.",
    sources: [SPEC_SOURCE, CLAUDE_CODE_SOURCE, VSCODE_SOURCE],
  },
  {
    key: "metadata",
    type: { kind: "map", values: "text" },
    summary: "Your own key-value data, strings to strings.",
    documentation:
      "A map of your own keys to string values (`author`, `version`), for tools that read the SKILL.md. Pick keys unlikely to clash with someone else's, and quote values YAML would otherwise read as numbers (`version: \"1.0\"`). Claude Code drops a value that is not a map. Codex reads one entry, `short-description`, as a shorter text for its skill lists.",
    sources: [SPEC_SOURCE, CLAUDE_CODE_SOURCE, VSCODE_SOURCE, CODEX_SOURCE],
  },
  {
    key: "allowed-tools",
    type: { kind: "text-or-list", separators: "space or comma" },
    summary: "Tools the agent may use without asking while the skill runs.",
    documentation:
      "Tools that are pre-approved while the skill is in use, written as the agent's permission rules (`Read Grep Bash(git diff *)`). The specification marks it experimental and writes it as one space-separated string; Claude Code also takes commas or a YAML list, and its grant lasts for the turn that invokes the skill. Copilot in VS Code and Codex do not read it.",
    sources: [SPEC_SOURCE, CLAUDE_CODE_SOURCE],
    actedOnBy: CLAUDE,
  },
  {
    key: "when_to_use",
    type: { kind: "text" },
    summary: "More about when Claude should use the skill: trigger phrases, example requests.",
    documentation:
      "Extra guidance on when to use the skill, such as phrases a user would type or example requests. Claude Code adds it after the description in its skill listing, and the two together are cut at 1,536 characters.",
    sources: [CLAUDE_CODE_SOURCE],
    actedOnBy: CLAUDE,
  },
  {
    key: "argument-hint",
    type: { kind: "text" },
    summary: "The arguments the skill expects, shown while typing its slash command.",
    documentation:
      "A short hint shown in the command menu after the skill's name, saying what to type after it: `[issue-number]` or `[filename] [format]`. Quote it, since YAML reads a bare `[…]` as a list.",
    sources: [CLAUDE_CODE_SOURCE, VSCODE_SOURCE],
    actedOnBy: CLAUDE_AND_VSCODE,
  },
  {
    key: "arguments",
    type: { kind: "text-or-list", separators: "space" },
    summary: "Names for the skill's positional arguments, used as `$name` in its body.",
    documentation:
      "Names for the arguments typed after the skill's command, in order: with `arguments: [issue, branch]`, `$issue` in the body stands for the first and `$branch` for the second. A space-separated string or a YAML list.",
    sources: [CLAUDE_CODE_SOURCE],
    actedOnBy: CLAUDE,
  },
  {
    key: "disable-model-invocation",
    type: { kind: "boolean", default: false },
    summary: "true: only you start the skill (with /name); the agent never loads it on its own.",
    documentation:
      "Set to true for a skill that only a person should start, by typing its command: a deployment, anything with side effects. The agent then never loads it by itself. In Claude Code it also keeps the skill out of subagents' preloaded skills and out of scheduled tasks. Default false. Codex sets this in `agents/openai.yaml` instead (`policy.allow_implicit_invocation`).",
    sources: [CLAUDE_CODE_SOURCE, VSCODE_SOURCE],
    actedOnBy: CLAUDE_AND_VSCODE,
  },
  {
    key: "user-invocable",
    type: { kind: "boolean", default: true },
    summary: "false: the skill is not in the / menu; only the agent uses it.",
    documentation:
      "Set to false for background knowledge that is no action a person would start: the skill leaves the `/` menu and typing its command does not run it, while the agent can still load it when relevant. Default true.",
    sources: [CLAUDE_CODE_SOURCE, VSCODE_SOURCE],
    actedOnBy: CLAUDE_AND_VSCODE,
  },
  {
    key: "disallowed-tools",
    type: { kind: "text-or-list", separators: "space or comma" },
    summary: "Tools taken away while the skill is active.",
    documentation:
      "Tools removed from what the agent may use while the skill is active, for a skill that must never call some tool (a background loop that must not stop to ask a question). Space- or comma-separated, or a YAML list; the restriction ends with your next message.",
    sources: [CLAUDE_CODE_SOURCE],
    actedOnBy: CLAUDE,
  },
  {
    key: "model",
    type: {
      kind: "text",
      suggestions: [
        { value: "inherit", documentation: "Keep the model the session already uses." },
        { value: "sonnet", documentation: "The latest Sonnet model." },
        { value: "opus", documentation: "The latest Opus model." },
        { value: "haiku", documentation: "The fast Haiku model, for simple tasks." },
        { value: "opusplan", documentation: "Opus while planning, Sonnet while carrying the plan out." },
      ],
    },
    summary: "The model to use while the skill is active.",
    documentation:
      "The model to switch to while the skill runs, for the rest of that turn only (the session's model comes back with your next prompt). It takes the values `/model` takes, a model alias or a full model name, or `inherit`. With `context: fork` it sets the forked subagent's model instead. A model your organisation does not allow is not used.",
    sources: [CLAUDE_CODE_SOURCE],
    actedOnBy: CLAUDE,
  },
  {
    key: "effort",
    type: {
      kind: "choice",
      values: [
        { value: "low", documentation: "The least reasoning: quick answers." },
        { value: "medium", documentation: "A middle amount of reasoning." },
        { value: "high", documentation: "More reasoning for harder tasks." },
        { value: "xhigh", documentation: "Still more reasoning, where the model offers it." },
        { value: "max", documentation: "The most reasoning the model offers." },
      ],
    },
    summary: "How much reasoning the model spends while the skill is active.",
    documentation:
      "The effort level while the skill is active, in place of the session's: `low`, `medium`, `high`, `xhigh` or `max`. Which levels a model offers depends on the model. Without it the session's level applies.",
    sources: [CLAUDE_CODE_SOURCE],
    actedOnBy: CLAUDE,
  },
  {
    key: "context",
    type: {
      kind: "choice",
      values: [{ value: "fork", documentation: "Run the skill as a subagent of its own, without the conversation's history." }],
    },
    summary: "fork: run the skill in a subagent of its own.",
    documentation:
      "Set to `fork` to run the skill in a separate subagent: the skill's text becomes that subagent's task, and it does not see the conversation so far. Only worth it for a skill that states a task; guidelines alone give the subagent nothing to do. Without it the skill's text joins the current conversation.",
    sources: [CLAUDE_CODE_SOURCE, VSCODE_SOURCE],
    actedOnBy: CLAUDE_AND_VSCODE,
  },
  {
    key: "agent",
    type: {
      kind: "text",
      suggestions: [
        { value: "general-purpose", documentation: "The default subagent, with the usual tools." },
        { value: "Explore", documentation: "A read-only subagent for exploring a codebase; it skips CLAUDE.md." },
        { value: "Plan", documentation: "A subagent for planning; it skips CLAUDE.md." },
      ],
    },
    summary: "Which subagent runs the skill when `context: fork` is set.",
    documentation:
      "The subagent type that runs a forked skill: a built-in one (`general-purpose`, the default, `Explore` or `Plan`) or one of your own from `.claude/agents/`. It has an effect only together with `context: fork`.",
    sources: [CLAUDE_CODE_SOURCE],
    actedOnBy: CLAUDE,
  },
  {
    key: "background",
    type: { kind: "boolean", default: true },
    summary: "With `context: fork`: false waits for the subagent's result in the same turn.",
    documentation:
      "Only with `context: fork`. A forked skill runs in the background by default; set this to false to wait for the subagent's result in the turn that invoked the skill. Needs Claude Code v2.1.218 or later.",
    sources: [CLAUDE_CODE_SOURCE],
    actedOnBy: CLAUDE,
  },
  {
    key: "hooks",
    type: { kind: "map", values: "any" },
    summary: "Hooks registered when the skill is invoked, by event name.",
    documentation:
      "Lifecycle hooks, in the same shape as in Claude Code's settings: event names (`PreToolUse`, …) mapping to lists of matchers and their handlers. Claude Code registers them when the skill is invoked and keeps them for the rest of the session (`once: true` on a hook runs it a single time).",
    sources: [CLAUDE_CODE_SOURCE, { label: "Claude Code hooks", url: "https://code.claude.com/docs/en/hooks#hooks-in-skills-and-agents" }],
    actedOnBy: CLAUDE,
  },
  {
    key: "paths",
    type: { kind: "text-or-list", separators: "comma" },
    summary: "Glob patterns: Claude loads the skill by itself only when working on matching files.",
    documentation:
      "Glob patterns, comma-separated or a YAML list, in the same form as path-specific rules (`src/**/*.ts`). When set, Claude loads the skill on its own only while it works with files that match; you can still start it by name.",
    sources: [CLAUDE_CODE_SOURCE],
    actedOnBy: CLAUDE,
  },
  {
    key: "shell",
    type: {
      kind: "choice",
      values: [
        { value: "bash", documentation: "Run the skill's inline commands with bash (the default)." },
        { value: "powershell", documentation: "Run them with PowerShell, where Claude Code's PowerShell tool is enabled." },
      ],
    },
    summary: "The shell for the skill's inline !`command` blocks: bash or powershell.",
    documentation:
      "Which shell runs the commands a skill injects with !`command` and ```! blocks: `bash` (the default) or `powershell`. PowerShell needs Claude Code's PowerShell tool, on by default only on some platforms.",
    sources: [CLAUDE_CODE_SOURCE],
    actedOnBy: CLAUDE,
  },
];

/** The keys Codex reads inside `metadata`. */
export const AGENT_SKILL_METADATA_KEYS: readonly AgentSkillKey[] = [
  {
    key: "short-description",
    type: { kind: "text" },
    limits: { maxLength: MAX_SHORT_DESCRIPTION_LENGTH, nonEmpty: true },
    summary: "A shorter description for Codex's skill lists.",
    documentation:
      "A shorter text than `description` that Codex shows in its lists of skills, up to 500 characters. Codex also accepts the spellings `shortDescription` and `short_description`; other agents ignore it. Codex can take the same text from `interface.short_description` in `agents/openai.yaml`.",
    sources: [CODEX_SOURCE, { label: "OpenAI Codex source", url: "https://github.com/openai/codex/blob/main/codex-rs/core/src/skills/loader.rs" }],
    actedOnBy: ["codex"],
    aliases: ["shortDescription", "short_description"],
  },
];

/** Claude Code reads the skill frontmatter in `.claude/commands/*.md` too, except these keys: a command is named by its file. */
export const KEYS_IGNORED_IN_COMMAND_FILES: readonly string[] = ["name", "paths"];

const BY_KEY = new Map(AGENT_SKILL_KEYS.map((entry) => [entry.key, entry]));
const METADATA_BY_KEY = new Map(AGENT_SKILL_METADATA_KEYS.flatMap((entry) => [entry.key, ...(entry.aliases ?? [])].map((key) => [key, entry] as const)));

/** The known top-level key, or undefined. Keys are case-sensitive, as YAML's are. */
export function agentSkillKey(key: string): AgentSkillKey | undefined {
  return BY_KEY.get(key);
}

/** The known key inside `metadata` (Codex's `short-description`, under any of its spellings), or undefined. */
export function agentSkillMetadataKey(key: string): AgentSkillKey | undefined {
  return METADATA_BY_KEY.get(key);
}

/** The key's type in words: "true or false", "one of: low, medium, high", "a string or a list of strings". */
export function describeKeyType(type: KeyType): string {
  switch (type.kind) {
    case "text":
      return "a string";
    case "boolean":
      return "true or false";
    case "choice":
      return `one of: ${type.values.map((entry) => entry.value).join(", ")}`;
    case "text-or-list":
      return `a ${type.separators === "space or comma" ? "space- or comma" : type.separators}-separated string or a list of strings`;
    case "map":
      return type.values === "text" ? "a map of strings to strings" : "a map";
  }
}
