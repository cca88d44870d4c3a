/**
 * The custom requests and the semantic-token legend that the client and the server share. One module, used by
 * both sides, so a message type cannot drift between them.
 */
import { NotificationType, RequestType, RequestType0, type Range, type WorkspaceEdit } from "vscode-languageserver-protocol";
import type { GraphData } from "../server/src/core/graph.js";

/** Semantic token types, in legend order. */
export const TOKEN_TYPES = ["skillMention", "toolMention", "unresolvedMention"] as const;
/** Semantic token modifiers, in legend order. */
export const TOKEN_MODIFIERS = ["disabled", "selfMention"] as const;

export type TokenType = (typeof TOKEN_TYPES)[number];
export type TokenModifier = (typeof TOKEN_MODIFIERS)[number];

/**
 * The language of `*.skill.md` files. Not `skill`: VS Code has a built-in `skill` language for Agent Skills'
 * `SKILL.md`, whose validator would flag these files for a missing `name` and `description`.
 */
export const LANGUAGE_ID = "agent-skill";

/**
 * Node flags the server is started with, by the extension, by the `skill-lsp` command (its `#!` line says the
 * same) and by the benchmark. A young generation of 8 MB semi-spaces instead of 16: the server mostly waits for
 * a keystroke, and smaller semi-spaces keep less resident (2 MB against 16 kept about 30 MB less at 10,000
 * skills). Not smaller: the first index copies what survives each scavenge, and with 4 MB it took 13% longer at
 * 10,000 skills and 8% at 100,000 (6 alternating cold starts each) for 7 MB less resident; 6 and 12 MB were
 * slower than 8 at 10,000 and 50,000. (The language server also caps the old generation's growth when it
 * starts: see server/src/main.ts.)
 *
 * One thread for V8's background work (its collector's helpers, optimising compiles) rather than Node's four:
 * they ran beside the server's own threads and the editor, on a machine of two cores. At 100,000 skills,
 * completion asked every 20 ms while the summaries were compared and their warnings delivered (bench/cold.mjs
 * --compare, 6 alternating pairs) had a p95 of 4.2-6.8 ms (median 5.2) against 6.1-8.7 ms (median 7.9); the
 * first index, the open editors' diagnostics and `check` took as long. Electron, which runs the server in
 * VS Code, takes the flag and keeps its own pool.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=8", "--v8-pool-size=1"];

/**
 * The environment every launcher adds for the server (the extension, the `skill-lsp` command's `#!` line, the
 * benchmark). Two malloc arenas rather than glibc's eight a core: each thread the server starts (the first
 * index's reader, the menu-similar join) left its arena's freed memory resident after it was done. 50,000
 * realistic skills, the comparison done: peak resident 240 → 225–229 MB; at 100,000, 435 → 408 MB; the index
 * no slower (4 alternating cold starts at 50,000). Other C libraries ignore it.
 */
export const SERVER_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: "2" };

/**
 * Variables every launcher removes from the server's environment. With `NODE_EXTRA_CA_CERTS` set (as on many
 * company machines), Node parses the certificates it names before it runs any code: 38 ms of a 60 ms start on
 * this project's machines, with Debian's bundle. The server makes no TLS connection, so it has no use for them.
 */
export const SERVER_ENV_REMOVED: readonly string[] = ["NODE_EXTRA_CA_CERTS"];

/** The environment to start the server with: `base` (the launcher's own) without {@link SERVER_ENV_REMOVED}, with {@link SERVER_ENV}. */
export function serverEnvironment(base: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const environment: Record<string, string | undefined> = { ...base, ...SERVER_ENV };
  for (const name of SERVER_ENV_REMOVED) delete environment[name];
  return environment;
}

/** Client-side commands that the server's code lenses and quick fixes name. */
export const ClientCommands = {
  showReferences: "skill.showReferences",
  showAlignment: "skill.showAlignment",
} as const;

/** URI scheme of the read-only description of a built-in tool (the target of "Go to Definition" on a tool). */
export const TOOL_SCHEME = "skill-tool";

export interface ExpandParams {
  readonly handles: readonly string[];
}
export interface ExpandResult {
  readonly tools: readonly { readonly slug: string; readonly name: string }[];
  readonly skills: readonly string[];
  readonly unresolved: readonly string[];
  readonly disabled: readonly string[];
}
/** Expands a plan's handles into the toolset to bind. */
export const ExpandRequest = new RequestType<ExpandParams, ExpandResult, void>("skill/expand");

export interface AlignmentEntry {
  readonly kind: "skill" | "tool";
  readonly handle: string;
  readonly tokens: number;
}
export interface AlignmentResult {
  /** The planner's whole system prompt. */
  readonly text: string;
  readonly tokens: number;
  /** True when counted with the loaded model's tokenizer; false for the `~` characters/4 estimate. */
  readonly exact: boolean;
  /** "412 tokens" or "~412 tokens". */
  readonly label: string;
  readonly planning: boolean;
  readonly menuSkills: readonly string[];
  readonly menuTools: readonly string[];
  readonly entries: readonly AlignmentEntry[];
  /** Whether the menu fits the model's context (the loaded model's, else skill.model.contextSize). */
  readonly fit: AlignmentFit;
}
export interface AlignmentFit {
  readonly fits: boolean;
  readonly contextSize: number;
  /** The context less the room kept for the request and the plan. */
  readonly budget: number;
  readonly entriesThatFit: number;
  /** The sentence with the figures, when the menu does not fit. */
  readonly sentence?: string;
}
/** The planner's system prompt and its size. */
export const AlignmentRequest = new RequestType0<AlignmentResult, void>("skill/alignment");

export interface MintParams {
  readonly title: string;
  /** The skill being renamed keeps its own slug. */
  readonly currentUri?: string;
}
export interface MintResult {
  readonly handle: string;
  /** True when the plain kebab-cased title was taken and a numeric suffix was added. */
  readonly suffixed: boolean;
}
/** Mints a free handle for a title. */
export const MintRequest = new RequestType<MintParams, MintResult, void>("skill/mint");

export interface NewSkillParams {
  readonly title: string;
  /** The folder to create the skill in: any folder for a `.skill.md`, a `skills` folder for an Agent Skill. */
  readonly folderUri: string;
  /** `skill-file` (the default) writes `<handle>.skill.md`; `agent-skill` writes `<handle>/SKILL.md`. */
  readonly format?: "skill-file" | "agent-skill";
}
export interface NewSkillResult {
  readonly handle: string;
  readonly uri: string;
  readonly edit: WorkspaceEdit;
}
/** The edit that creates a skill file from the template, with a minted handle. */
export const NewSkillRequest = new RequestType<NewSkillParams, NewSkillResult, void>("skill/newSkill");

export interface CreateBuiltinsParams {
  readonly folderUri: string;
}
export interface CreateBuiltinsResult {
  readonly created: readonly string[];
  readonly skipped: readonly string[];
  readonly edit: WorkspaceEdit;
}
/** The edit that writes the built-in skills that the workspace lacks. */
export const CreateBuiltinsRequest = new RequestType<CreateBuiltinsParams, CreateBuiltinsResult, void>("skill/createBuiltins");

export interface ToolDescriptionParams {
  readonly slug: string;
}
/** A built-in tool's read-only description, in Markdown. */
export const ToolDescriptionRequest = new RequestType<ToolDescriptionParams, string, void>("skill/toolDescription");

export interface SkillAtParams {
  readonly uri: string;
}
export interface SkillAtResult {
  readonly handle: string;
  readonly title: string;
  readonly valid: boolean;
}
/** The skill a file defines (for Rename Skill from anywhere in its file). */
export const SkillAtRequest = new RequestType<SkillAtParams, SkillAtResult | null, void>("skill/skillAt");

export interface NamespaceStatus {
  readonly skills: number;
  readonly tools: number;
  readonly menuSkills: number;
  /** The planner menu's size: "~412 tokens" or "412 tokens". */
  readonly menuLabel: string;
  readonly planning: boolean;
  readonly indexing: boolean;
}
/** Sent by the server after the namespace changes (debounced), for the status bar. */
export const NamespaceStatusNotification = new NotificationType<NamespaceStatus>("skill/status");

export interface RenameSkillParams {
  /** Any position in the skill's own file is fine: the file names the skill. */
  readonly uri: string;
  readonly newName: string;
}
/** The same cascade as F2, for the skill a file defines: every `@old` → `@new`, and the file's new name. */
export const RenameSkillRequest = new RequestType<RenameSkillParams, WorkspaceEdit, void>("skill/renameSkill");

/** What the VS Code client tells the server at start, besides the settings. */
export interface SkillInitializationOptions {
  readonly settings?: SkillSettings;
  /**
   * The editor validates SKILL.md itself (VS Code's `skill` language reports a missing name or description,
   * a name unlike its folder, a name with other characters): the server leaves those problems to it.
   */
  readonly editorValidatesSkillFiles?: boolean;
}

/** The `skill` settings the server reads (`workspace/configuration`, or `initializationOptions.settings`). */
export interface SkillSettings {
  readonly model?: { readonly path?: string; readonly threads?: number; readonly contextSize?: number; readonly gpu?: "auto" | "off"; readonly idleUnloadSeconds?: number };
  readonly tools?: { readonly notebookFile?: string; readonly memoryFile?: string; readonly calendarGlob?: string };
}

export interface RunPlanParams {
  /** Chosen by the client: the events of this run carry it. */
  readonly runId: string;
  readonly request: string;
  /** The editor's workspace trust: in a restricted workspace the planner and the tools are off. */
  readonly trusted: boolean;
}
export interface RunPlanResult {
  readonly plan: string;
  readonly handles: readonly string[];
  readonly tools: readonly string[];
  readonly answer: string;
}
/** Plans, binds and executes a request on the local model; cancelling the request aborts generation. */
export const RunPlanRequest = new RequestType<RunPlanParams, RunPlanResult, void>("skill/runPlan");

export interface PlanEventParams {
  readonly runId: string;
  /** One planner event (see server/src/planner/events.ts): plain JSON with a `type`. */
  readonly event: { readonly type: string; readonly [key: string]: unknown };
}
/** Streams a run's events: prompt size, plan, bound tools, each tool call and result, the answer. */
export const PlanEventNotification = new NotificationType<PlanEventParams>("skill/planEvent");

export interface PrepareModelResult {
  readonly description: string;
}
/** Loads the configured model now (for exact token counts); fails with a message when none is usable. */
export const PrepareModelRequest = new RequestType0<PrepareModelResult, void>("skill/prepareModel");

/** Error code of a planner request refused because no model is configured. */
export const NO_MODEL_ERROR = 1001;
/** Error code of a planner request refused in a restricted workspace. */
export const UNTRUSTED_ERROR = 1002;
/** Run Plan's error when the menu is larger than the model's context; the message is the menu's sentence. */
export const MENU_TOO_LARGE_ERROR = 1003;

export interface ExportBundleParams {
  /** The skill's file. */
  readonly uri: string;
}
export interface ExportBundleResult {
  readonly handle: string;
  /** The bundle file's text (JSON). */
  readonly text: string;
  readonly skills: readonly string[];
  readonly tools: readonly string[];
}
/** The bundle of a skill and its closure, for Share Skill. */
export const ExportBundleRequest = new RequestType<ExportBundleParams, ExportBundleResult, void>("skill/exportBundle");

export interface PlanImportParams {
  /** The bundle file's text. */
  readonly text: string;
  readonly folderUri: string;
}
export interface PlanImportResult {
  /** The review, one line each: incoming skills, their handles here, rewritten mentions, missing tools. */
  readonly review: readonly string[];
  readonly created: readonly string[];
  readonly reused: readonly string[];
  /** Creates the new skill files; nothing else. Empty when everything is reused. */
  readonly edit: WorkspaceEdit;
}
/** Reviews a bundle's import into a folder; nothing is written until the client applies the edit. */
export const PlanImportRequest = new RequestType<PlanImportParams, PlanImportResult, void>("skill/planImport");

// ---- The namespace graph (server/src/lsp/graph.ts, client/src/graphPanel.ts) ----
export type { Closure, GraphData, GraphEdge, GraphNode, MenuPrice } from "../server/src/core/graph.js";

export interface GraphParams {
  /** True (the default) while a graph panel is open: the server then says when the graph changes. */
  readonly watch?: boolean;
}
export interface GraphResult extends GraphData {
  /** Changes whenever the graph's content does: equal signatures, equal graphs. */
  readonly signature: string;
}
/** The namespace as a graph: skills, tools, mentions, cycles, ghosts, menu prices. Null after `watch: false`. */
export const GraphRequest = new RequestType<GraphParams, GraphResult | null, void>("skill/graph");

export interface GraphChangedParams {
  readonly signature: string;
}
/** Sent (throttled) to a client that watches the graph when its content changes; the client asks again. */
export const GraphChangedNotification = new NotificationType<GraphChangedParams>("skill/graphChanged");

// ---- Routing tests (server/src/lsp/routing.ts, client/src/routingTests.ts; docs/routing.md) ----
export interface RoutingTestCase {
  /** Stable while the skill keeps the request: `<uri>#<kind>:<text>`. */
  readonly id: string;
  /** An example must route to its skill; a near miss must not. */
  readonly kind: "example" | "near-miss";
  readonly text: string;
  /** The entry in the skill's frontmatter. */
  readonly range: Range;
}
export interface RoutingTestSkill {
  readonly uri: string;
  readonly handle: string;
  readonly title: string;
  /** The skill's first line. */
  readonly range: Range;
  /** Why the skill is not on the planner's menu, or null when it is. */
  readonly offMenu: string | null;
  readonly cases: readonly RoutingTestCase[];
}
export interface RoutingTestsResult {
  /** Changes exactly when the planning prompt does: results from under another key are stale. */
  readonly menuKey: string;
  readonly menu: readonly string[];
  readonly skills: readonly RoutingTestSkill[];
}
/** Every skill's routing tests (its `examples:` and `near-misses:`), with where they stand. */
export const RoutingTestsRequest = new RequestType0<RoutingTestsResult, void>("skill/routingTests");

export type RoutingStatus = "passed" | "failed" | "errored" | "skipped";
export interface RoutingCaseResult {
  readonly id: string;
  readonly status: RoutingStatus;
  /** The handles the plan named (none: empty). */
  readonly chosen: readonly string[];
  /** The model's reason for its plan. */
  readonly reason: string;
  /** The verdict in words. */
  readonly message: string;
  readonly ms: number;
}
export interface RunRoutingParams {
  /** Chosen by the client: the progress of this run carries it. */
  readonly runId: string;
  /** The tests to run by id; null runs them all. */
  readonly ids: readonly string[] | null;
  /** The editor's workspace trust: the model runs only in a trusted workspace. */
  readonly trusted: boolean;
}
export interface RunRoutingResult {
  readonly menuKey: string;
  readonly results: readonly RoutingCaseResult[];
}
/** Runs routing tests on the configured model, one plan pass each; cancelling stops between two plans. */
export const RunRoutingRequest = new RequestType<RunRoutingParams, RunRoutingResult, void>("skill/runRouting");

export type RoutingProgressParams =
  | { readonly runId: string; readonly id: string; readonly state: "started" }
  | { readonly runId: string; readonly id: string; readonly state: "done"; readonly result: RoutingCaseResult };
/** A test of a run started, or ended with its result. */
export const RoutingProgressNotification = new NotificationType<RoutingProgressParams>("skill/routingProgress");
