import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { Worker, type ResourceLimits } from "node:worker_threads";

/**
 * Starts one of the server's threads: its built script beside the bundle (`dist/<built>`), or, when the server
 * runs from its TypeScript source (the tests), that source through the same TypeScript loader. Undefined when
 * neither is there.
 */
export function startBundledWorker(built: string, source: string, resourceLimits?: ResourceLimits): Worker | undefined {
  const script = bundledModulePath(built, source);
  if (script === undefined) return undefined;
  const options = resourceLimits ? { resourceLimits } : {};
  if (!script.endsWith(".ts")) return new Worker(script, options);
  let loader: string;
  try {
    loader = createRequire(__filename).resolve("tsx/cjs");
  } catch {
    return undefined;
  }
  return new Worker(`require(${JSON.stringify(loader)}); require(${JSON.stringify(script)});`, { ...options, eval: true });
}

/**
 * A module of the server's beside the running code: its built file (`dist/<built>`), or, run from the
 * TypeScript source (the tests), that source file. Undefined when neither is there.
 */
export function bundledModulePath(built: string, source: string): string | undefined {
  if (typeof __dirname !== "string") return undefined;
  const script = path.join(__dirname, built);
  if (existsSync(script)) return script;
  const sourceFile = path.join(__dirname, source);
  return existsSync(sourceFile) ? sourceFile : undefined;
}
