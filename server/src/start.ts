#!/usr/bin/env -S -u NODE_EXTRA_CA_CERTS MALLOC_ARENA_MAX=2 node --max-semi-space-size=8 --v8-pool-size=1
/**
 * The launcher of dist/server.js: it runs the bundle (dist/server-bundle.js) from V8's code cache. Compiling the
 * 1.5 MB bundle and its first functions is a third of what a fresh server spends before it answers `initialize`;
 * with the cache they are read back instead. The cache is kept per bundle (path, size, modification time) and per
 * runtime (V8 version, architecture), so the system's Node and VS Code's own each keep theirs, and a rebuilt bundle
 * gets a new one. Whatever goes wrong with the cache, the bundle runs as a plain module.
 */
import { mkdirSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import Module from "node:module";
import { homedir } from "node:os";
import * as path from "node:path";
import * as vm from "node:vm";
import { LAUNCHER_IMPORT } from "./node/importModule.js";
import { compileInForegroundOnFewCores, growOldGenerationForFirstIndex, runsAsServer, underStartFlags } from "./node/serverRuntime.js";

const BUNDLE = path.join(__dirname, "server-bundle.js");
/** The cache is written this long after start, or at exit if sooner: by then the first answers' functions are compiled too. */
const WRITE_AFTER_MS = 2000;

function cacheFolder(): string | undefined {
  const chosen = process.env.SKILL_LSP_CODE_CACHE;
  if (chosen === "off") return undefined;
  if (chosen) return chosen;
  return path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), ".cache"), "skill-lsp", "code-cache");
}

/**
 * A short name for a cache key (FNV-1a, two 32-bit lanes). Not node:crypto: loading it would cost the start more
 * than the cache saves. A collision is harmless: V8 rejects cached data made from another source.
 */
function digest(text: string): string {
  let low = 0x811c9dc5;
  let high = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    low = Math.imul(low ^ code, 0x01000193) >>> 0;
    high = Math.imul(high ^ code ^ (low >>> 16), 0x01000193) >>> 0;
  }
  return low.toString(16).padStart(8, "0") + high.toString(16).padStart(8, "0");
}

/** Runs the bundle as CommonJS from `script`, with the module objects Node's own loader would give it. */
function runCompiled(script: vm.Script): void {
  const bundle = new Module(BUNDLE, module);
  bundle.filename = BUNDLE;
  bundle.paths = (Module as unknown as { _nodeModulePaths(from: string): string[] })._nodeModulePaths(path.dirname(BUNDLE));
  bundle.loaded = true;
  const run = script.runInThisContext() as (exports: object, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;
  const require = Module.createRequire(BUNDLE);
  require.main = bundle as NodeJS.Module;
  run.call(bundle.exports, bundle.exports, require, bundle, BUNDLE, path.dirname(BUNDLE));
}

function start(): void {
  // V8 stamps a code cache with its flags and rejects one made under others: the server's flag is set before the
  // compile, and the cache is made under it even once the first index has changed it, so that it carries the flags
  // a fresh server compiles under. The command line runs with a flag of its own, so it keeps a cache of its own:
  // sharing one, each would reject the other's and write its own.
  const server = runsAsServer(process.argv.slice(2));
  if (server) growOldGenerationForFirstIndex();
  else compileInForegroundOnFewCores();
  const folder = cacheFolder();
  if (folder === undefined) {
    require(BUNDLE);
    return;
  }
  let source: string;
  let cacheFile: string;
  let prefix: string;
  try {
    source = readFileSync(BUNDLE, "utf8");
    const stat = statSync(BUNDLE);
    prefix = `${digest(BUNDLE)}-${digest(`${stat.size} ${stat.mtimeMs}`)}`;
    const runtime = [process.versions.v8, process.arch, process.execArgv.join(" "), server ? "server" : "command"];
    cacheFile = path.join(folder, `${prefix}-${digest(runtime.join("\n"))}.bin`);
  } catch {
    require(BUNDLE);
    return;
  }
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(Module.wrap(source), { filename: BUNDLE, cachedData });
  // A script compiled from cached data has no loader for its own import() (Node 20): the bundle uses this one.
  (globalThis as Record<symbol, unknown>)[LAUNCHER_IMPORT] = (specifier: string) => import(specifier);
  if (cachedData === undefined || script.cachedDataRejected === true) {
    let written = false;
    const write = () => {
      if (written) return;
      written = true;
      saveCache(folder, prefix, cacheFile, script);
    };
    setTimeout(write, WRITE_AFTER_MS).unref();
    process.once("exit", write);
  } else {
    // Marked as used, so that the bound on the folder keeps the caches in use rather than the latest written.
    setTimeout(() => touch(cacheFile), WRITE_AFTER_MS).unref();
  }
  runCompiled(script);
}

function touch(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    // Removed meanwhile: the next start writes it again.
  }
}

/**
 * The caches kept in the folder, the most recently used (written, or read and then touched): each bundle path
 * and runtime has its own, and an extension's update installs its bundle at a new path, so without a bound the
 * folder would grow by a cache a release.
 */
const CACHES_KEPT = 8;

/**
 * Writes the cache whole (a temporary file renamed), and removes the caches of this path's older bundles, all
 * but the {@link CACHES_KEPT} most recently used caches, and temporary files a stopped write left over an hour
 * ago.
 */
function saveCache(folder: string, prefix: string, cacheFile: string, script: vm.Script): void {
  try {
    mkdirSync(folder, { recursive: true });
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    writeFileSync(temporary, underStartFlags(() => script.createCachedData()));
    renameSync(temporary, cacheFile);
    const samePath = prefix.slice(0, prefix.indexOf("-") + 1);
    const caches: { file: string; modified: number }[] = [];
    for (const name of readdirSync(folder)) {
      const file = path.join(folder, name);
      if (name.endsWith(".tmp")) {
        if (statSync(file).mtimeMs < Date.now() - 3_600_000) unlinkSync(file);
      } else if (!name.endsWith(".bin") || file === cacheFile) {
        continue;
      } else if (name.startsWith(samePath) && !name.startsWith(`${prefix}-`)) {
        unlinkSync(file);
      } else {
        caches.push({ file, modified: statSync(file).mtimeMs });
      }
    }
    // The one just written is the newest: the others share the places left.
    caches.sort((a, b) => b.modified - a.modified);
    for (const { file } of caches.slice(CACHES_KEPT - 1)) unlinkSync(file);
  } catch {
    // A cache that cannot be written costs the next start its compile, nothing else.
  }
}

start();
