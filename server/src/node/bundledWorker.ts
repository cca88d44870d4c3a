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
  if (typeof __dirname !== "string") return undefined;
  const script = path.join(__dirname, built);
  const options = resourceLimits ? { resourceLimits } : {};
  if (existsSync(script)) return new Worker(script, options);
  const sourceFile = path.join(__dirname, source);
  if (!existsSync(sourceFile)) return undefined;
  let loader: string;
  try {
    loader = createRequire(__filename).resolve("tsx/cjs");
  } catch {
    return undefined;
  }
  return new Worker(`require(${JSON.stringify(loader)}); require(${JSON.stringify(sourceFile)});`, { ...options, eval: true });
}
