import { promises as fs } from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import type { DeclaredTool, ToolSpec } from "../core/index.js";
import { importModule } from "../node/importModule.js";
import { pathFromUri } from "../node/workspaceFiles.js";
import type { ToolContext, ToolOutcome } from "./types.js";
import { isInside } from "./workspace.js";

/** The implementation module a declared tool names, if the spec carries one (a `DeclaredTool` from `skills.json`). */
function implementationOf(tool: ToolSpec): string | undefined {
  const declared = tool as Partial<DeclaredTool>;
  return typeof declared.implementation === "string" && declared.implementation.trim() !== "" ? declared.implementation.trim() : undefined;
}

/** Where a declared tool's implementation is, or why it cannot be used. */
export type ImplementationLocation =
  | { readonly ok: true; readonly file: string }
  | { readonly ok: false; readonly outcome: ToolOutcome };

/**
 * Finds a declared tool's implementation: relative to the folder of the `skills.json` that declares it, and
 * refused unless it resolves (symbolic links followed) inside one of the workspace folders: code from outside
 * the workspace is never loaded.
 */
export async function locateImplementation(tool: ToolSpec, folders: readonly string[]): Promise<ImplementationLocation> {
  const implementation = implementationOf(tool);
  if (implementation === undefined || tool.origin.kind !== "config") {
    return { ok: false, outcome: { ok: false, kind: "unimplemented", error: `@${tool.slug} is declared but has no implementation in this workspace, so ${tool.name} cannot run: nothing was done.` } };
  }
  const base = path.dirname(pathFromUri(tool.origin.uri));
  // Checked and run by its real path, once resolved: a link re-pointed outside after the check changes nothing.
  const file = await fs.realpath(path.resolve(base, implementation)).catch(() => path.resolve(base, implementation));
  const inside = await Promise.all(folders.map((folder) => isInside(folder, file)));
  if (!inside.some(Boolean)) {
    return {
      ok: false,
      outcome: { ok: false, kind: "refused", error: `@${tool.slug}'s implementation ${implementation} resolves to ${file}, outside the workspace folders: code is only loaded from inside a workspace folder. Nothing was run.` },
    };
  }
  const stat = await fs.stat(file).catch(() => undefined);
  if (!stat?.isFile()) {
    return { ok: false, outcome: { ok: false, kind: "unimplemented", error: `@${tool.slug}'s implementation ${implementation} does not exist (${file}): nothing was run.` } };
  }
  return { ok: true, file };
}

/** The shape an implementation module exports: `export async function run(args, context)`. */
type ToolModule = { readonly run?: unknown; readonly default?: unknown };

/**
 * Runs a declared tool's implementation module (ES module or CommonJS) with the arguments and a context of the
 * workspace folders, the clock and the cancellation signal. Only called when running workspace code is allowed.
 */
export async function runImplementation(tool: ToolSpec, file: string, args: unknown, context: ToolContext): Promise<ToolOutcome> {
  const stat = await fs.stat(file);
  // The modification time in the URL makes an edited module load afresh instead of from the module cache.
  const module = await importModule<ToolModule>(`${pathToFileURL(file).href}?mtime=${Math.floor(stat.mtimeMs)}`);
  const candidate = typeof module.run === "function" ? module.run : typeof module.default === "function" ? module.default : (module.default as ToolModule | undefined)?.run;
  if (typeof candidate !== "function") {
    return { ok: false, kind: "unimplemented", error: `@${tool.slug}'s implementation ${path.basename(file)} exports no run(args, context) function: nothing was run.` };
  }
  const result: unknown = await (candidate as (args: unknown, context: ToolContext) => unknown)(args, context);
  return { ok: true, result: result ?? null };
}
