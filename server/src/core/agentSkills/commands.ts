/**
 * The slash commands the agents have built in, from their documentation: a `/help` or `/compact` in a
 * CLAUDE.md or AGENTS.md is a command of the agent, not a reference to a skill. Checked on 2026-12-03.
 */
import { AGENTS, type AgentId, type DocText } from "./agents.js";

/** A built-in command runs fixed logic; a bundled skill or workflow is a prompt the agent ships with. */
export type CommandKind = "built-in" | "bundled-skill" | "workflow";

export interface BuiltinCommand {
  /** The name typed after the `/`, as the agent spells it. */
  readonly name: string;
  readonly agent: AgentId;
  readonly kind: CommandKind;
  /** For an alias, the command it stands for. */
  readonly aliasOf?: string;
  /** The documentation lists it as removed; older versions of the agent still have it. */
  readonly removed?: boolean;
  /** The page that lists it. */
  readonly source: string;
}

/**
 * Each agent's commands, one token per command: `name(alias,alias)` for a command and its aliases,
 * `name=other` for a command documented as another one's alias, `!name` for a removed command.
 */
interface CommandTable {
  readonly agent: AgentId;
  readonly kind: CommandKind;
  readonly source: string;
  readonly names: string;
}

const CLAUDE_CODE_COMMANDS = "https://code.claude.com/docs/en/commands";
const CODEX_COMMANDS = "https://developers.openai.com/codex/cli/slash-commands";
const COPILOT_CLI_COMMANDS = "https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-command-reference";
const COPILOT_CHAT_COMMANDS = "https://docs.github.com/en/copilot/reference/github-copilot-chat-cheat-sheet?tool=vscode";

const TABLES: readonly CommandTable[] = [
  {
    agent: "claude-code",
    kind: "built-in",
    source: CLAUDE_CODE_COMMANDS,
    names:
      "add-dir advisor agents artifacts auto-mode-setup autocompact autofix-pr background(bg) branch btw bug(share) cd " +
      "chrome clear(reset,new) color compact config(settings) context copy cost=usage design-login desktop(app) diff " +
      "effort exit(quit) export fast feedback focus fork goal heapdump help hooks ide import init insights " +
      "install-github-app install-slack-app keybindings list-agents(peers) login logout mcp memory mobile(ios,android) " +
      "model passes permissions(allowed-tools) plan plugin powerup !pr-comments privacy-settings radio recap " +
      "release-notes reload-plugins reload-skills remote-control(rc) remote-env rename resume(continue) rewind(checkpoint,undo) " +
      "sandbox schedule(routines) scroll-speed security-review setup-bedrock setup-vertex skills stats=usage status " +
      "statusline stickers stop subtask tasks(bashes) team-onboarding teleport(tp) terminal-setup theme tui !ultraplan " +
      "ultrareview upgrade usage usage-credits !vim voice web-setup workflows",
  },
  {
    agent: "claude-code",
    kind: "bundled-skill",
    source: CLAUDE_CODE_COMMANDS,
    names:
      "batch claude-api code-review(review) dataviz debug design-sync doctor(checkup) fewer-permission-prompts " +
      "loop(proactive) run run-skill-generator simplify verify",
  },
  { agent: "claude-code", kind: "workflow", source: CLAUDE_CODE_COMMANDS, names: "deep-research" },
  {
    agent: "codex",
    kind: "built-in",
    source: CODEX_COMMANDS,
    names:
      "model fast ide permissions(approvals) keymap setup-default-sandbox sandbox-add-read-dir vim experimental approve " +
      "memories skills hooks review rename new resume fork init compact plan goal side(btw) copy raw diff mention " +
      "status debug-config title statusline theme pets mcp apps plugins logout exit(quit) feedback ps stop(clean) " +
      "clear personality realtime settings agent(subagents) archive delete import usage",
  },
  {
    agent: "copilot-cli",
    kind: "built-in",
    source: COPILOT_CLI_COMMANDS,
    names:
      "add-dir after agent app ask(btw) allow-all(yolo) autopilot(goal) changelog(release-notes) chronicle " +
      "clear(new,reset) clikit compact context copy cwd(cd) delegate diagnose diff downgrade env every exit(quit) " +
      "extensions(extension) experimental feedback(bug) fleet help ide init instructions keep-alive(caffeinate) limits " +
      "list-dirs login logout lsp mcp model(models) permissions plan plugin !plugins pr refine remote rename research " +
      "reset-allowed-tools restart resume(continue) review rubber-duck sandbox search(find) security-review " +
      "session(sessions) settings(config) share(export) skills statusline(footer) subagents(agents) tasks " +
      "terminal-setup theme tuikit undo(rewind) update(upgrade) usage user version vim voice fork(branch) worktree move",
  },
  {
    agent: "vscode-copilot",
    kind: "built-in",
    source: COPILOT_CHAT_COMMANDS,
    names: "clear explain fix fixTestFailure help new tests",
  },
];

const TOKEN = /^(!?)([A-Za-z0-9-]+)(?:\(([a-z0-9,-]+)\)|=([a-z0-9-]+))?$/;

function commandsOf(table: CommandTable): BuiltinCommand[] {
  const commands: BuiltinCommand[] = [];
  for (const token of table.names.split(/\s+/)) {
    const match = TOKEN.exec(token);
    if (!match?.[2]) throw new Error(`Malformed command token "${token}"`);
    const [, removed, name, aliases, aliasOf] = match;
    const base = { agent: table.agent, kind: table.kind, source: table.source, ...(removed ? { removed: true } : {}) };
    commands.push({ name, ...base, ...(aliasOf ? { aliasOf } : {}) });
    for (const alias of aliases?.split(",") ?? []) commands.push({ name: alias, ...base, aliasOf: name });
  }
  return commands;
}

/** Every built-in command of every agent, aliases included. */
export const BUILTIN_COMMANDS: readonly BuiltinCommand[] = TABLES.flatMap(commandsOf);

const BY_NAME = new Map<string, BuiltinCommand[]>();
for (const command of BUILTIN_COMMANDS) {
  const key = command.name.toLowerCase();
  BY_NAME.set(key, [...(BY_NAME.get(key) ?? []), command]);
}

/** The agents' built-in commands of this name (without the `/`, any letter case): one per agent that has it. */
export function builtinCommandsNamed(name: string): readonly BuiltinCommand[] {
  return BY_NAME.get(name.replace(/^\//, "").toLowerCase()) ?? [];
}

/** True when some agent has `/name` built in: a reference to it is a command, not a skill. */
export function isBuiltinCommand(name: string): boolean {
  return builtinCommandsNamed(name).length > 0;
}

const KIND_WORDS: Readonly<Record<CommandKind, string>> = {
  "built-in": "a built-in command",
  "bundled-skill": "a skill bundled with",
  workflow: "a workflow bundled with",
};

function describe(command: BuiltinCommand): string {
  const agent = AGENTS[command.agent].name;
  const what = command.kind === "built-in" ? `${KIND_WORDS[command.kind]} of ${agent}` : `${KIND_WORDS[command.kind]} ${agent}`;
  const alias = command.aliasOf ? ` (another name for /${command.aliasOf})` : "";
  const removed = command.removed ? ", removed in current versions" : "";
  return `${what}${alias}${removed}`;
}

/** What `/name` is, for a hover: every agent that has it built in, with the page that lists it. */
export function hoverBuiltinCommand(name: string): DocText | undefined {
  const commands = builtinCommandsNamed(name);
  if (commands.length === 0) return undefined;
  const written = `/${name.replace(/^\//, "")}`;
  const plain = commands.map((command) => `${written} is ${describe(command)}.`);
  const markdown = commands.map((command) => `\`${written}\` is ${describe(command)} ([commands](${command.source})).`);
  const note = "It is a command of the agent, not a skill of this workspace.";
  return { markdown: [...markdown, note].join("\n\n"), plain: [...plain, note].join("\n") };
}
