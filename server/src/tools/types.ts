import type { ToolSpec } from "../core/index.js";

/** Why a tool call gave no result. Each is told to the model as the function result, in words. */
export type ToolFailure = "invalid-arguments" | "unimplemented" | "refused" | "failed";

/** What one tool call answered: a result the model reads, or a plain-words error. */
export type ToolOutcome =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly kind: ToolFailure; readonly error: string };

/** Runs tools. The executor asks only for tools that the plan bound. */
export interface ToolRunner {
  /** Checks the arguments against the tool's schema and runs it. Answers failures as outcomes; may still throw on a bug. */
  run(tool: ToolSpec, args: unknown, signal?: AbortSignal): Promise<ToolOutcome>;
}

/** Where the built-in tools look, and the clock they read. */
export interface WorkspaceToolsOptions {
  /** The workspace folders, absolute. Each folder is one of the user's devices. */
  readonly folders: readonly string[];
  /** Today, for `current_date` (injectable for tests). Default: the system clock. */
  readonly now?: () => Date;
  /** The notebook, a Markdown file: absolute, or relative to a workspace folder (the first that has it). Default `notebook.md`. */
  readonly notebookFile?: string;
  /** The memory log, one entry a line: absolute, or relative to a workspace folder. Default `memory.log`. */
  readonly memoryFile?: string;
  /** The calendar files, a glob matched in every workspace folder. Default `**\/*.ics`. */
  readonly calendarGlob?: string;
  /**
   * Run the modules that `skills.json` names as tool implementations (only inside a workspace folder).
   * Off by default: it runs the workspace's code, so turn it on only for a trusted workspace.
   */
  readonly allowWorkspaceCode?: boolean;
}

/** What every tool implementation receives besides its arguments. */
export interface ToolContext {
  readonly folders: readonly string[];
  readonly now: () => Date;
  readonly signal: AbortSignal | undefined;
}

/** Thrown by a tool for arguments that pass the schema but make no sense; the runner answers it as invalid arguments. */
export class ToolArgumentError extends Error {
  override readonly name = "ToolArgumentError";
}
