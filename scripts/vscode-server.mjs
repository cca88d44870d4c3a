#!/usr/bin/env node
/**
 * A real VS Code without a desktop: the server and web workbench of VS Code 1.139.1 that ship inside the
 * npm package code-server, run with Node 24 and shown in Debian's chromium through playwright-core.
 *
 * Everything is installed once into `.vscode-test/` (gitignored) from the npm registry only, because
 * `@vscode/test-electron` downloads VS Code from Microsoft and Electron from GitHub, which CI cannot reach.
 *
 * CLI: `node scripts/vscode-server.mjs install [--full]` installs or verifies the cache and prints the paths.
 * test/e2e/run.mjs (tests) and scripts/start.mjs (`npm start`) use the exported helpers.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const CACHE_DIR = path.resolve(process.env.SKILL_LSP_VSCODE_CACHE ?? path.join(REPO_ROOT, ".vscode-test"));

/** Pinned versions: code-server 4.139.1 carries VS Code 1.139.1, which requires Node 24. */
export const VERSIONS = Object.freeze({ node: "24.21.0", codeServer: "4.139.1", playwright: "1.65.1" });

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Flags that keep a root, GPU-less, offline chromium quiet and stable. */
export const CHROMIUM_ARGS = Object.freeze([
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
]);

/**
 * Settings for a fresh profile: nothing opens by itself, nothing phones home, and nothing is written to the
 * workspace unless a test saves (the web workbench defaults to files.autoSave afterDelay).
 */
export const DEFAULT_SETTINGS = Object.freeze({
  "files.autoSave": "off",
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "workbench.enableExperiments": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "security.workspace.trust.enabled": false,
  "chat.disableAIFeatures": true,
  "git.enabled": false,
});

const MARKER = ".complete";
const log = (msg) => process.stderr.write(`[vscode-server] ${msg}\n`);

// ---------------------------------------------------------------------------------------------------------
// Installation

/**
 * @typedef {object} VsCodeInstall
 * @property {string} nodeBin     Node 24 executable that runs the server and the extension host
 * @property {string} nodeDir     Node 24 package root with `include/node`, for npm_config_nodedir
 * @property {string} vscodeDir   VS Code's own tree inside code-server (`lib/vscode`)
 * @property {string} serverMain  `out/server-main.js` in vscodeDir
 * @property {string | undefined} playwrightDir the installed playwright-core package (undefined with browser: false)
 */

/**
 * Native modules built even in the default install: without spdlog the extension host writes no log files,
 * so output channels (a language client's log among them) stay empty; native-watchdog lets the extension
 * host notice a dead parent. Both build in about 45 s with node-gyp (g++, make, python3).
 */
export const NATIVE_MODULES = Object.freeze(["@vscode/spdlog", "@vscode/native-watchdog"]);

/**
 * Installs Node 24, VS Code (from code-server) and playwright-core into CACHE_DIR, once. Each part goes
 * into a `.partial` folder first and is renamed when complete, so an interrupted install is redone.
 * @param {{ full?: boolean, browser?: boolean }} [options] full: run every install script of VS Code's dependencies (kerberos,
 *   node-pty, sqlite ...; needs libkrb5-dev, about 3 minutes). The default installs without scripts and
 *   builds only NATIVE_MODULES, which is all the server and the extension host need. browser: false leaves
 *   playwright-core out (`npm start` opens the workbench in the user's own browser).
 * @returns {Promise<VsCodeInstall>}
 */
export async function ensureVsCodeServer(options = {}) {
  const full = options.full ?? process.env.SKILL_LSP_VSCODE_FULL === "1";
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const release = await acquireLock(path.join(CACHE_DIR, ".install.lock"));
  try {
    const node = ensureNode();
    const vscodeDir = ensureCodeServer(node, full);
    const playwrightDir = options.browser === false ? undefined : ensurePlaywright();
    return { ...node, vscodeDir, serverMain: path.join(vscodeDir, "out", "server-main.js"), playwrightDir };
  } finally {
    release();
  }
}

function nodePackageName() {
  // The platform package that the `node` npm package would fetch in its preinstall script; installing it
  // directly needs no install script at all.
  return `node-${process.platform}-${process.arch}`;
}

function ensureNode() {
  const dir = path.join(CACHE_DIR, `node-${VERSIONS.node}`);
  const nodeDir = path.join(dir, "node_modules", nodePackageName());
  const result = { nodeBin: path.join(nodeDir, "bin", "node"), nodeDir };
  if (isComplete(dir, VERSIONS.node)) return result;
  installInto(dir, VERSIONS.node, (tmp) => {
    npm(["install", `${nodePackageName()}@${VERSIONS.node}`], { cwd: tmp });
  });
  const version = spawnSync(result.nodeBin, ["--version"], { encoding: "utf8" }).stdout?.trim();
  if (version !== `v${VERSIONS.node}`) {
    throw new Error(`Node ${VERSIONS.node} was installed into ${dir} but ${result.nodeBin} reports "${version}".`);
  }
  return result;
}

/** @param {{ nodeBin: string, nodeDir: string }} node */
function ensureCodeServer(node, full) {
  const stamp = `${VERSIONS.codeServer} ${full ? "full" : `native:${NATIVE_MODULES.join(",")}`}`;
  const dir = path.join(CACHE_DIR, `code-server-${VERSIONS.codeServer}`);
  const vscodeDir = path.join(dir, "lib", "vscode");
  if (isComplete(dir, stamp)) return vscodeDir;
  // The stamp records the mode, so switching between the default and a full install starts over.
  installInto(dir, stamp, (tmp) => {
    requireBuildTools(full);
    // Only VS Code's tree (lib/vscode) is used, so unpack the package instead of installing code-server's
    // own dependencies; `npm pack` still checks the tarball's integrity against the registry.
    const packed = npm(["pack", `code-server@${VERSIONS.codeServer}`, "--json", "--pack-destination", tmp], {
      cwd: tmp,
      capture: true,
    });
    const tarball = path.join(tmp, JSON.parse(packed)[0].filename);
    run("tar", ["-xzf", tarball, "-C", tmp]);
    fs.rmSync(tarball);
    const unpackedVsCode = path.join(tmp, "package", "lib", "vscode");
    const args = ["install", "--omit=dev", "--include=optional", "--no-package-lock"];
    if (!full) args.push("--ignore-scripts");
    npm(args, { cwd: unpackedVsCode, node, builds: full });
    if (!full) {
      npm(["rebuild", ...NATIVE_MODULES], { cwd: unpackedVsCode, node, builds: true });
    }
    // Move package/* up one level so the final layout is <dir>/lib/vscode.
    for (const entry of fs.readdirSync(path.join(tmp, "package"))) {
      fs.renameSync(path.join(tmp, "package", entry), path.join(tmp, entry));
    }
    fs.rmdirSync(path.join(tmp, "package"));
  });
  return vscodeDir;
}

/** Fails before any download when node-gyp could not build the native modules. */
function requireBuildTools(full) {
  const missing = ["g++", "make", "python3"].filter(
    (tool) => spawnSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" }).status !== 0,
  );
  if (full && !fs.existsSync("/usr/include/gssapi/gssapi.h")) missing.push("libkrb5-dev");
  if (missing.length) {
    const script = full ? "scripts/apt-deps.sh --kerberos" : "scripts/apt-deps.sh";
    throw new Error(`Building VS Code's native modules needs ${missing.join(", ")}: run ${script}.`);
  }
}

function ensurePlaywright() {
  const dir = path.join(CACHE_DIR, `playwright-core-${VERSIONS.playwright}`);
  const pkg = path.join(dir, "node_modules", "playwright-core");
  if (isComplete(dir, VERSIONS.playwright)) return pkg;
  installInto(dir, VERSIONS.playwright, (tmp) => {
    // playwright-core has no install script and downloads no browser; chromium comes from apt.
    npm(["install", `playwright-core@${VERSIONS.playwright}`], { cwd: tmp });
  });
  return pkg;
}

function isComplete(dir, stamp) {
  try {
    return fs.readFileSync(path.join(dir, MARKER), "utf8").trim() === stamp;
  } catch {
    return false;
  }
}

function installInto(dir, stamp, fill) {
  const tmp = `${dir}.partial`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  // Its own package.json makes the folder an npm project root, so the repo's .npmrc and package.json
  // (omit=optional, the extension's own dependencies) do not apply.
  fs.writeFileSync(path.join(tmp, "package.json"), '{ "private": true }\n');
  const started = Date.now();
  log(`installing ${path.basename(dir)} ...`);
  fill(tmp);
  fs.writeFileSync(path.join(tmp, MARKER), `${stamp}\n`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(tmp, dir);
  log(`installed ${path.basename(dir)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * Runs the system npm. With `node`, Node 24 comes first on PATH so install scripts and node-gyp build
 * against it, with its bundled headers (node-gyp would otherwise try to download them).
 */
function npm(args, { cwd, node, capture = false, builds = false }) {
  const env = npmEnv(process.env);
  if (node) {
    env.PATH = `${path.dirname(node.nodeBin)}${path.delimiter}${env.PATH ?? ""}`;
    env.npm_config_nodedir = node.nodeDir;
    env.JOBS = "max"; // node-gyp: compile on every core
  }
  const result = spawnSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    env,
    encoding: "utf8",
    stdio: ["ignore", capture ? "pipe" : 2, "inherit"], // progress goes to stderr, keeping stdout for results
  });
  if (result.error?.code === "ENOENT") throw new Error("npm was not found on PATH; install Node.js with npm.");
  if (result.status !== 0) {
    const hint = builds
      ? " Building native modules needs g++, make and python3 (scripts/apt-deps.sh); a full install also libkrb5-dev (--kerberos)."
      : "";
    throw new Error(`npm ${args.join(" ")} failed in ${cwd} (exit ${result.status}).${hint}`);
  }
  return result.stdout;
}

function run(command, args) {
  const result = spawnSync(command, args, { stdio: "inherit" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal}).`);
}

/**
 * The environment for VS Code's processes, without what a parent npm script exports (npm_*) or what a
 * VS Code terminal exports (VSCODE_*, ELECTRON_*): the server would think it runs inside another VS Code.
 */
export function cleanEnv(env) {
  return filterEnv(env, /^(npm_|VSCODE_|ELECTRON_)/i);
}

/**
 * The environment for a nested npm: the user's npm_config_* (registry, proxy, cache) stay, while what
 * `npm run` adds about the outer project (its prefix, package, lifecycle, user agent) goes.
 */
function npmEnv(env) {
  return filterEnv(
    env,
    /^(npm_(lifecycle_|package_|command$|execpath$|node_execpath$|config_(local_prefix|user_agent|loglevel)$)|VSCODE_|ELECTRON_)/i,
  );
}

function filterEnv(env, drop) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !drop.test(key)) out[key] = value;
  }
  return out;
}

/** A lock directory, so that two runs never install into the cache at the same time. */
async function acquireLock(lockDir) {
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(path.join(lockDir, "pid"), String(process.pid));
      return () => fs.rmSync(lockDir, { recursive: true, force: true });
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
    const owner = Number(readOr(path.join(lockDir, "pid"), "0"));
    if (owner && !isAlive(owner)) {
      fs.rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${lockDir} (held by pid ${owner}).`);
    await sleep(500);
  }
}

function readOr(file, fallback) {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return fallback;
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------------------
// Server

/**
 * @typedef {object} VsCodeServer
 * @property {number} port
 * @property {string} url        base URL, e.g. http://127.0.0.1:PORT
 * @property {number} pid        leader of the server's own process group (the guardian)
 * @property {string} stateDir   user data, extensions and XDG dirs of this server
 * @property {string} logFile    the server's stdout and stderr
 * @property {string} extensionsDir
 * @property {Promise<number|null>} exited resolves with the exit code when the main process ends
 * @property {() => Promise<void>} stop  kills the whole process group
 */

/**
 * Leads the server's process group: runs the command given after the caller's pid, exits with it, and
 * kills the whole group once the caller is gone, even when the caller was SIGKILLed and could not clean up.
 * The caller must be this process, the guardian's parent.
 */
const GUARDIAN = `
const [caller, command, ...args] = process.argv.slice(1);
const server = require("node:child_process").spawn(command, args, { stdio: "inherit" });
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
// Orphaned means reparented: this notices a dead caller at once, even before it has been reaped.
setInterval(() => {
  if (process.ppid !== Number(caller)) process.kill(-process.pid, "SIGKILL");
}, 500);
`;

/**
 * Starts VS Code's own server (not the code-server wrapper) in a new process group, so that the
 * extension host, file watchers and language servers it spawns can all be killed together.
 * @param {object} options
 * @param {VsCodeInstall} options.install
 * @param {string} options.stateDir       created if missing; holds user-data/, extensions/, xdg/
 * @param {number} [options.port]         default: a free port
 * @param {string} [options.host]         default 127.0.0.1
 * @param {string} [options.logFile]      default <stateDir>/server.log
 * @param {Record<string, unknown>} [options.settings] merged over DEFAULT_SETTINGS
 * @param {boolean} [options.keepSettings] leave an existing settings.json alone (a persistent profile)
 * @param {Record<string, string>} [options.env] extra environment for the server and extension host
 * @param {string[]} [options.args]       extra server arguments
 * @returns {Promise<VsCodeServer>}
 */
export async function startServer(options) {
  const { install, stateDir } = options;
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? (await freePort(host));
  // The server logs EADDRINUSE but keeps running without listening, so check first.
  if (options.port !== undefined && !(await canListen(host, port))) {
    throw new Error(`Port ${port} on ${host} is already in use.`);
  }
  const dirs = prepareState(stateDir, { ...DEFAULT_SETTINGS, ...options.settings }, options.keepSettings);
  const logFile = options.logFile ?? path.join(stateDir, "server.log");
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const out = fs.openSync(logFile, "w");

  const child = spawn(
    install.nodeBin,
    [
      "-e",
      GUARDIAN,
      String(process.pid),
      install.nodeBin,
      install.serverMain,
      "--host", host,
      "--port", String(port),
      "--without-connection-token",
      "--accept-server-license-terms",
      // Also what makes the web workbench honour the `payload` URL parameter (extension development and
      // test paths) in a built VS Code.
      "--enable-smoke-test-driver",
      "--disable-telemetry",
      "--disable-workspace-trust",
      // Options code-server adds to VS Code's server: no update check against GitHub, no code-server
      // walkthrough over the workbench.
      "--disable-update-check",
      "--disable-getting-started-override",
      ...dirs.args,
      ...(options.args ?? []),
    ],
    {
      cwd: stateDir,
      env: { ...cleanEnv(process.env), ...dirs.env, ...options.env },
      // detached = setsid(): a new process group, so stop() reaches everything the server spawns.
      detached: true,
      stdio: ["ignore", out, out],
    },
  );
  fs.closeSync(out);
  const exited = new Promise((resolve) => {
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 : null)));
    child.once("error", () => resolve(null));
  });
  const pid = child.pid;
  if (!pid) throw new Error(`Could not start ${install.nodeBin} ${install.serverMain}.`);
  const stop = () => killProcessGroup(pid);
  // A last resort if the caller crashes: never leave a server behind.
  const onExit = () => {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {}
  };
  process.once("exit", onExit);

  const url = `http://${host}:${port}`;
  try {
    await waitForHttp(url, exited, logFile, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    port,
    url,
    pid,
    stateDir,
    logFile,
    extensionsDir: dirs.extensionsDir,
    exited,
    stop: async () => {
      process.removeListener("exit", onExit);
      await stop();
    },
  };
}

/**
 * Lays out a server's state folder and writes a fresh settings.json both where the web workbench reads
 * user settings (<user-data>/User) and where the server keeps machine settings (<user-data>/data/Machine).
 */
function prepareState(stateDir, settings, keepSettings = false) {
  const userData = path.join(stateDir, "user-data");
  const extensionsDir = path.join(stateDir, "extensions");
  const xdg = path.join(stateDir, "xdg");
  const text = `${JSON.stringify(settings, null, 2)}\n`;
  for (const dir of [path.join(userData, "User"), path.join(userData, "data", "Machine")]) {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, "settings.json");
    if (!keepSettings || !fs.existsSync(file)) fs.writeFileSync(file, text);
  }
  fs.mkdirSync(extensionsDir, { recursive: true });
  const env = {
    XDG_CONFIG_HOME: path.join(xdg, "config"),
    XDG_DATA_HOME: path.join(xdg, "data"),
    XDG_CACHE_HOME: path.join(xdg, "cache"),
    XDG_RUNTIME_DIR: path.join(xdg, "runtime"),
  };
  for (const dir of Object.values(env)) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return {
    extensionsDir,
    env,
    args: ["--server-data-dir", userData, "--user-data-dir", userData, "--extensions-dir", extensionsDir],
  };
}

/**
 * Installs a VSIX into a state folder's extensions dir with the server's own CLI
 * (`server-main.js --install-extension`), which exits when done.
 * @param {{ install: VsCodeInstall, stateDir: string, vsix: string }} options
 */
export function installVsix({ install, stateDir, vsix }) {
  const file = path.resolve(vsix);
  if (!fs.existsSync(file)) throw new Error(`VSIX not found: ${file}`);
  const dirs = prepareState(stateDir, DEFAULT_SETTINGS, true);
  const result = spawnSync(
    install.nodeBin,
    [install.serverMain, "--accept-server-license-terms", ...dirs.args, "--install-extension", file, "--force"],
    { cwd: stateDir, env: { ...cleanEnv(process.env), ...dirs.env }, encoding: "utf8", timeout: 120_000 },
  );
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  if (result.status !== 0 || !/successfully installed/i.test(output)) {
    throw new Error(`Installing ${file} failed (exit ${result.status ?? result.signal}):\n${output.trim()}`);
  }
  return output.trim();
}

/** SIGTERM to the whole group, then SIGKILL to whatever is still there after a grace period. */
export async function killProcessGroup(pid, graceMs = 5_000) {
  const signalGroup = (signal) => {
    try {
      process.kill(-pid, signal);
      return true;
    } catch (error) {
      if (error.code === "ESRCH") return false;
      throw error;
    }
  };
  if (!signalGroup("SIGTERM")) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await sleep(100);
    if (!signalGroup(0)) return;
  }
  signalGroup("SIGKILL");
}

async function waitForHttp(url, exited, logFile, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  exited.then(() => (gone = true));
  while (Date.now() < deadline) {
    if (gone) throw new Error(`The VS Code server exited during start-up. Its log (${logFile}):\n${tail(logFile)}`);
    if (readOr(logFile, "").includes("EADDRINUSE")) {
      throw new Error(`The VS Code server could not listen on ${url}: address in use.`);
    }
    try {
      const response = await fetch(`${url}/version`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      return;
    } catch {
      await sleep(150);
    }
  }
  throw new Error(`The VS Code server did not answer on ${url} within ${timeoutMs / 1000} s. Its log (${logFile}):\n${tail(logFile)}`);
}

/** The last lines of a file, for error messages. */
export function tail(file, lines = 40) {
  return readOr(file, "").split("\n").slice(-lines).join("\n");
}

function canListen(host, port) {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

export function freePort(host = "127.0.0.1") {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.once("error", reject);
    probe.listen(0, host, () => {
      const { port } = /** @type {net.AddressInfo} */ (probe.address());
      probe.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------------------
// Workbench URL and browser

/** A path on the server as the web workbench addresses it: vscode-remote://HOST:PORT/abs/path. */
export function remoteUri(server, absPath) {
  return `vscode-remote://${new URL(server.url).host}${pathToFileURL(path.resolve(absPath)).pathname}`;
}

/**
 * The workbench URL for a folder, with an optional payload (pairs such as extensionDevelopmentPath,
 * extensionTestsPath, extensionEnvironment) that a built VS Code honours only with
 * --enable-smoke-test-driver.
 * @param {VsCodeServer} server
 * @param {{ folder?: string, payload?: Array<[string, string]> }} [options]
 */
export function workbenchUrl(server, { folder, payload } = {}) {
  const params = new URLSearchParams();
  if (folder) params.set("folder", path.resolve(folder));
  if (payload?.length) params.set("payload", JSON.stringify(payload));
  const query = params.toString();
  return `${server.url}/${query ? `?${query}` : ""}`;
}

/** playwright-core from the cache (it is not a dependency of the repository). */
export function loadPlaywright(install) {
  const require = createRequire(path.join(install.playwrightDir, "package.json"));
  return require("playwright-core");
}

/** Launches Debian's chromium through Playwright; fails with an install hint when it is missing. */
export async function launchChromium(install, { headless = true } = {}) {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} not found. Install it with scripts/apt-deps.sh (apt-get install chromium) or set CHROMIUM_PATH.`);
  }
  const { chromium } = loadPlaywright(install);
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless, args: [...CHROMIUM_ARGS] });
}

/** A scratch state folder; callers remove it with fs.rmSync when done. */
export function makeStateDir(prefix = "skill-lsp-vscode-") {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

// ---------------------------------------------------------------------------------------------------------
// CLI

async function main(argv) {
  const [command, ...rest] = argv;
  if (command !== "install" || rest.some((arg) => arg !== "--full")) {
    console.error("usage: node scripts/vscode-server.mjs install [--full]");
    return 2;
  }
  const started = Date.now();
  // Without --full, SKILL_LSP_VSCODE_FULL still decides.
  const install = await ensureVsCodeServer(rest.includes("--full") ? { full: true } : {});
  console.log(JSON.stringify({ ...install, seconds: (Date.now() - started) / 1000 }, null, 2));
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      console.error(`vscode-server: ${error.message}`);
      process.exit(1);
    },
  );
}
