/**
 * The agents that read Agent Skills folders, the documents that define what they read, and which agents read
 * a SKILL.md from where it stands. Pure data, read from URIs alone.
 */

/** Documentation for a hover or a completion item, as Markdown and as plain text (for clients without Markdown). */
export interface DocText {
  readonly markdown: string;
  readonly plain: string;
}

/** An agent whose documentation says what it reads in a SKILL.md or which slash commands it has built in. */
export type AgentId = "claude-code" | "vscode-copilot" | "copilot-cli" | "codex";

export interface AgentInfo {
  readonly id: AgentId;
  /** The agent's name as its makers write it. */
  readonly name: string;
  /** The page that documents its skills (or, without skills, its commands). */
  readonly url: string;
}

export const AGENTS: Readonly<Record<AgentId, AgentInfo>> = {
  "claude-code": { id: "claude-code", name: "Claude Code", url: "https://code.claude.com/docs/en/skills" },
  "vscode-copilot": {
    id: "vscode-copilot",
    name: "GitHub Copilot in VS Code",
    url: "https://code.visualstudio.com/docs/agents/reference/agent-skills-reference",
  },
  "copilot-cli": {
    id: "copilot-cli",
    name: "GitHub Copilot CLI",
    url: "https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-command-reference",
  },
  codex: { id: "codex", name: "OpenAI Codex", url: "https://developers.openai.com/codex/skills" },
};

/**
 * The agents whose reading of SKILL.md frontmatter is documented key by key. Copilot CLI reads skills too, but
 * its documentation names only name, description and license "in their simplest form", so nothing is ever said
 * to be ignored by it.
 */
export const KEY_DOCUMENTED_AGENTS: readonly AgentId[] = ["claude-code", "vscode-copilot", "codex"];

/** Where a fact comes from: a specification or an agent's documentation (or source), with its address. */
export interface Source {
  /** "Agent Skills specification", or an agent's name. */
  readonly label: string;
  readonly url: string;
}

export const SPEC_SOURCE: Source = { label: "Agent Skills specification", url: "https://agentskills.io/specification" };
export const CLAUDE_CODE_SOURCE: Source = { label: "Claude Code", url: "https://code.claude.com/docs/en/skills#frontmatter-reference" };
export const VSCODE_SOURCE: Source = { label: AGENTS["vscode-copilot"].name, url: AGENTS["vscode-copilot"].url };
export const GITHUB_COPILOT_SOURCE: Source = { label: "GitHub Copilot", url: "https://docs.github.com/en/copilot/concepts/agents/about-agent-skills" };
export const CODEX_SOURCE: Source = { label: "OpenAI Codex", url: "https://developers.openai.com/codex/skills" };

/** The agents' own project folders of skills, and who reads each. */
const SKILL_FOLDERS: readonly { readonly folder: string; readonly readers: readonly AgentId[] }[] = [
  // Copilot (in VS Code and on the command line) reads all three project locations; Claude Code and Codex their own.
  { folder: ".claude", readers: ["claude-code", "vscode-copilot", "copilot-cli"] },
  { folder: ".github", readers: ["vscode-copilot", "copilot-cli"] },
  { folder: ".agents", readers: ["codex", "vscode-copilot", "copilot-cli"] },
  // The location Codex read before it moved to `.agents/skills/`.
  { folder: ".codex", readers: ["codex"] },
];

/**
 * The agents that read the SKILL.md at `uri`, from the folder its `skills/` folder stands in:
 * `.claude/skills/x/SKILL.md` is read by Claude Code and by Copilot. A skill anywhere else (a
 * library like anthropics/skills, a plugin) may be read by any agent: undefined.
 */
export function agentsReadingSkill(uri: string): readonly AgentId[] | undefined {
  const path = uri.includes("?") || uri.includes("#") ? uri.replace(/[?#].*$/, "") : uri;
  // …/<agent folder>/skills/<name>/SKILL.md: the two folders above the skill's, found from the end (every SKILL.md is asked).
  const last = path.lastIndexOf("/");
  const name = last > 0 ? path.lastIndexOf("/", last - 1) : -1;
  const skills = name > 0 ? path.lastIndexOf("/", name - 1) : -1;
  if (skills < 0 || path.slice(skills + 1, name) !== "skills") return undefined;
  const agentFolder = path.slice(skills > 0 ? path.lastIndexOf("/", skills - 1) + 1 : 0, skills);
  return SKILL_FOLDERS.find((entry) => entry.folder === agentFolder)?.readers;
}

/** The agents' names joined for a sentence: "Claude Code", "A and B", "A, B and C". */
export function agentNames(ids: readonly AgentId[]): string {
  const names = ids.map((id) => AGENTS[id].name);
  if (names.length <= 1) return names[0] ?? "";
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1] ?? ""}`;
}
