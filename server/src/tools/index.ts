/**
 * The tools' implementations over the workspace: each workspace folder is a device; the notebook, the memory
 * log and the calendars are files in it. Every call's arguments are checked against the tool's schema first.
 */
import type { ToolSpec } from "../core/index.js";
import { queryCalendar } from "./calendar.js";
import { currentDate } from "./dates.js";
import { locateImplementation, runImplementation } from "./declared.js";
import { findFile, listDevices } from "./files.js";
import { grepMemory } from "./memory.js";
import { checkNotebook } from "./notebook.js";
import { ToolArgumentError, type ToolContext, type ToolOutcome, type ToolRunner, type WorkspaceToolsOptions } from "./types.js";
import { argumentProblem } from "./validate.js";

export * from "./types.js";
export { argumentProblem, describeParameters } from "./validate.js";
export { currentDate, isoDay, parseIsoDay, type CurrentDate, type DayRange } from "./dates.js";
export { devicesOf, globToRegExp, type Device } from "./workspace.js";
export { locateImplementation } from "./declared.js";

/** Defaults of {@link WorkspaceToolsOptions}: the extension's `skill.tools.*` settings default to the same. */
export const TOOL_DEFAULTS = { notebookFile: "notebook.md", memoryFile: "memory.log", calendarGlob: "**/*.ics" } as const;

type Args = Readonly<Record<string, unknown>>;
type Implementation = (args: Args, context: ToolContext) => Promise<unknown> | unknown;

const str = (value: unknown): string => (typeof value === "string" ? value : "");
const optional = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** The built-in tools, by bound tool name. */
function builtins(options: WorkspaceToolsOptions): ReadonlyMap<string, Implementation> {
  const notebookFile = options.notebookFile || TOOL_DEFAULTS.notebookFile;
  const memoryFile = options.memoryFile || TOOL_DEFAULTS.memoryFile;
  const calendarGlob = options.calendarGlob || TOOL_DEFAULTS.calendarGlob;
  return new Map<string, Implementation>([
    ["current_date", (_args, context) => currentDate(context.now())],
    ["queryCalendar", (args, context) => queryCalendar({ start: str(args.start), end: str(args.end), query: optional(args.query) }, context.folders, calendarGlob, context.signal)],
    ["list_devices", (_args, context) => listDevices(context.folders)],
    ["find_file", (args, context) => findFile({ description: str(args.description), device: optional(args.device) }, context.folders, context.signal)],
    ["check_notebook", (args, context) => checkNotebook({ query: str(args.query) }, context.folders, notebookFile)],
    ["grep_memory", (args, context) => grepMemory({ pattern: str(args.pattern) }, context.folders, memoryFile)],
  ]);
}

/** Runs the built-in tools over the workspace folders, and the declared tools that have an implementation there. */
export class WorkspaceTools implements ToolRunner {
  readonly #options: WorkspaceToolsOptions;
  readonly #builtins: ReadonlyMap<string, Implementation>;

  constructor(options: WorkspaceToolsOptions) {
    this.#options = options;
    this.#builtins = builtins(options);
  }

  async run(tool: ToolSpec, args: unknown, signal?: AbortSignal): Promise<ToolOutcome> {
    const given = args ?? {};
    const problem = argumentProblem(tool.name, tool.parameters, given);
    if (problem) return { ok: false, kind: "invalid-arguments", error: problem };
    const context: ToolContext = { folders: this.#options.folders, now: this.#options.now ?? (() => new Date()), signal };
    try {
      if (tool.origin.kind === "builtin") {
        const implementation = this.#builtins.get(tool.name);
        if (!implementation) return { ok: false, kind: "unimplemented", error: `${tool.name} has no implementation in this version.` };
        return { ok: true, result: await implementation(given as Args, context) };
      }
      const location = await locateImplementation(tool, this.#options.folders);
      if (!location.ok) return location.outcome;
      if (!this.#options.allowWorkspaceCode) {
        return {
          ok: false,
          kind: "refused",
          error: `@${tool.slug} has an implementation in the workspace, but running the workspace's code is off (it is allowed only in a trusted workspace): nothing was run.`,
        };
      }
      return await runImplementation(tool, location.file, given, context);
    } catch (error) {
      if (error instanceof ToolArgumentError) return { ok: false, kind: "invalid-arguments", error: `${tool.name}: ${error.message}` };
      return { ok: false, kind: "failed", error: `${tool.name} failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
}

/** The tool runner for a workspace. */
export function createWorkspaceTools(options: WorkspaceToolsOptions): WorkspaceTools {
  return new WorkspaceTools(options);
}
