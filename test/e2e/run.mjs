#!/usr/bin/env node
/**
 * Runs a mocha suite inside a real VS Code extension host, headless, and exits with the suite's code.
 *
 *   node test/e2e/run.mjs --extension <dir> --suite <compiled mocha index.js> --workspace <folder>
 *                         [--artifacts <dir>] [--timeout <seconds>] [--install-vsix <file>]...
 *                         [--env KEY=VALUE]... [--headed] [--keep-state] [--verbose]
 *   node test/e2e/run.mjs --ui <module.mjs> --workspace <folder> [--extension <dir> | --install-vsix <file>] ...
 *
 * Suite mode: the workbench loads the extension under development and the suite (`extensionTestsPath`);
 * when the suite ends VS Code calls window.codeAutomationExit(code), which ends this process.
 * UI mode: once the workbench is restored, the module's exported `run(page, context)` drives it with
 * Playwright (type, click, screenshot); a throw fails the run and saves failure.png.
 * The one-time install into .vscode-test/ is not counted in the timeout.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { format } from "node:util";
import {
  REPO_ROOT,
  ensureVsCodeServer,
  installVsix,
  launchChromium,
  makeStateDir,
  remoteUri,
  startServer,
  tail,
  workbenchUrl,
} from "../../scripts/vscode-server.mjs";

const USAGE = `usage: node test/e2e/run.mjs --workspace <folder> (--suite <index.js> --extension <dir> | --ui <module.mjs>)
  [--extension <dir>] [--artifacts <dir>] [--timeout <seconds, default 300>] [--install-vsix <file>]...
  [--env KEY=VALUE]... [--headed] [--keep-state] [--verbose]`;

class UsageError extends Error {}

function parseArgs(argv) {
  const opts = { installVsix: [], env: {}, timeout: 300, headed: false, keepState: false, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new UsageError(`${arg} needs a value`);
      return next;
    };
    switch (arg) {
      case "--extension": opts.extension = path.resolve(value()); break;
      case "--suite": opts.suite = path.resolve(value()); break;
      case "--workspace": opts.workspace = path.resolve(value()); break;
      case "--artifacts": opts.artifacts = path.resolve(value()); break;
      case "--ui": opts.ui = path.resolve(value()); break;
      case "--install-vsix": opts.installVsix.push(path.resolve(value())); break;
      case "--timeout": opts.timeout = Number(value()); break;
      case "--env": {
        const pair = value();
        const eq = pair.indexOf("=");
        if (eq <= 0) throw new UsageError(`--env expects KEY=VALUE, got "${pair}"`);
        opts.env[pair.slice(0, eq)] = pair.slice(eq + 1);
        break;
      }
      case "--headed": opts.headed = true; break;
      case "--keep-state": opts.keepState = true; break;
      case "--verbose": opts.verbose = true; break;
      case "-h": case "--help": throw new UsageError("");
      default: throw new UsageError(`unknown argument ${arg}`);
    }
  }
  if (!opts.workspace) throw new UsageError("--workspace is required");
  if (!opts.suite === !opts.ui) throw new UsageError("give exactly one of --suite and --ui");
  if (opts.suite && !opts.extension) throw new UsageError("--suite needs --extension");
  if (!(opts.timeout > 0)) throw new UsageError("--timeout must be a positive number of seconds");
  const mustExist = [
    [opts.workspace, "workspace folder"],
    [opts.extension && path.join(opts.extension, "package.json"), "extension manifest"],
    [opts.suite, "suite"],
    [opts.ui, "UI module"],
    ...opts.installVsix.map((file) => [file, "VSIX"]),
  ];
  for (const [file, what] of mustExist) {
    if (file && !fs.existsSync(file)) throw new UsageError(`${what} not found: ${file}`);
  }
  return opts;
}

/**
 * Workbench chatter that says nothing about the extension under test: the offline setup (no gallery, no
 * GitHub sign-in, no code-server service worker) and connection bookkeeping. Kept out of stdout unless
 * --verbose; the artifacts' vscode-output.log always has every line.
 */
const NOISE = [
  /^Ignoring fetching additional builtin extensions from gallery/,
  /^Updating additional builtin extensions cache/,
  /Timed out waiting for authentication provider 'github'/,
  /^\[DefaultAccount\]/,
  /^\[AccountPolicyGate\]/,
  /^\[AgentHost:remote\] Initializing/,
  /^\[Service Worker\] registration/,
  /^(Resolving|Resolved) connection token/,
  /^Creating a socket \(renderer-/,
  /^\[reconnection-grace-time\]/,
  /^Creation of workbench contribution '.*' took \d+ms/,
  // The workbench stopping the extension host once the suite is done.
  /^Canceled: Canceled: Canceled/,
  /^No search provider registered for scheme/,
];

const say = (msg) => process.stderr.write(`[e2e] ${msg}\n`);

async function main(argv) {
  const opts = parseArgs(argv);
  const install = await ensureVsCodeServer();
  const stateDir = makeStateDir();
  const artifacts = opts.artifacts ?? (opts.ui ? path.join(REPO_ROOT, "test-artifacts", "ui") : undefined);
  if (artifacts) fs.mkdirSync(artifacts, { recursive: true });
  const logFile = path.join(artifacts ?? stateDir, "server.log");
  fs.rmSync(logFile, { force: true });

  /** @type {import('../../scripts/vscode-server.mjs').VsCodeServer | undefined} */
  let server;
  let browser;
  const cleanup = async () => {
    await browser?.close().catch(() => {});
    await server?.stop();
    // The server side's logs: extension host, and one file per output channel (a language client's log).
    const serverLogs = path.join(stateDir, "user-data", "logs");
    if (artifacts && fs.existsSync(serverLogs)) {
      fs.cpSync(serverLogs, path.join(artifacts, "server-logs"), { recursive: true });
    }
    if (opts.keepState) say(`state kept in ${stateDir}`);
    else fs.rmSync(stateDir, { recursive: true, force: true });
  };
  // Ctrl-C or a CI cancel must still take the whole server process group down.
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, () => {
      say(`${signal}: stopping VS Code`);
      cleanup().finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
    });
  }

  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  let settle;
  /** @type {Promise<{ code: number, reason?: string }>} */
  const outcome = new Promise((resolve) => (settle = resolve));
  const what = opts.ui ? "UI test" : "suite";
  const timer = setTimeout(
    () => settle({ code: 1, reason: `timed out after ${opts.timeout} s waiting for the ${what} to finish` }),
    opts.timeout * 1000,
  );
  let page;
  const streams = [];
  try {
    launch().catch((error) => settle({ code: 1, reason: error.stack ?? error.message }));
    const result = await outcome;
    clearTimeout(timer);
    if (result.reason && artifacts && page) {
      await page.screenshot({ path: path.join(artifacts, "failure.png") }).catch(() => {});
    }
    for (const stream of streams) stream.end();
    if (result.reason) {
      say(`FAILED after ${elapsed()}: ${result.reason}`);
      if (server) say(`server log (${server.logFile}), last lines:\n${tail(server.logFile, 25)}`);
      if (artifacts) say(`artifacts in ${artifacts}`);
    } else {
      say(`${what} exited with code ${result.code} after ${elapsed()}`);
    }
    return result.code;
  } finally {
    await cleanup();
  }

  /** Starts everything; the outcome comes from VS Code, the UI module, the timer or a crash. */
  async function launch() {
    for (const vsix of opts.installVsix) {
      say(`installing ${path.basename(vsix)}`);
      installVsix({ install, stateDir, vsix });
    }
    // An empty gallery keeps the workbench from querying open-vsx.org, which tests must not depend on.
    const serverEnv = { EXTENSIONS_GALLERY: "{}", ...opts.env };
    server = await startServer({ install, stateDir, logFile, env: serverEnv });
    say(`server on ${server.url} after ${elapsed()}`);
    server.exited.then((code) => settle({ code: 1, reason: `the VS Code server exited (code ${code})` }));

    const payload = [];
    if (opts.extension) payload.push(["extensionDevelopmentPath", remoteUri(server, opts.extension)]);
    if (opts.suite) payload.push(["extensionTestsPath", remoteUri(server, opts.suite)]);
    if (Object.keys(opts.env).length) payload.push(["extensionEnvironment", JSON.stringify(opts.env)]);

    browser = await launchChromium(install, { headless: !opts.headed });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on("crash", () => settle({ code: 1, reason: "the browser page crashed" }));
    const browserLog = artifacts && fs.createWriteStream(path.join(artifacts, "browser-console.log"));
    const outputLog = artifacts && fs.createWriteStream(path.join(artifacts, "vscode-output.log"));
    if (browserLog && outputLog) {
      streams.push(browserLog, outputLog);
      page.on("console", (message) => browserLog.write(`[${message.type()}] ${message.text()}\n`));
      page.on("pageerror", (error) => browserLog.write(`[pageerror] ${error.stack ?? error.message}\n`));
    }

    // The extension host's console and the workbench's log, as the suite runs.
    await page.exposeFunction("codeAutomationLog", (level, message) => {
      // Console-style arguments: a format string and its values (mocha's reporter uses %s and %d).
      const text = Array.isArray(message) ? format(...message) : String(message);
      const line = level === "error" || level === "warn" ? `[${level}] ${text}\n` : `${text}\n`;
      if (outputLog) outputLog.write(line);
      if (opts.verbose || !NOISE.some((pattern) => pattern.test(text))) process.stdout.write(line);
    });
    // Called when the extension host ends: with the suite's exit code, and the workbench's log files.
    await page.exposeFunction("codeAutomationExit", (code, logs) => {
      if (artifacts && Array.isArray(logs)) saveWorkbenchLogs(path.join(artifacts, "vscode-logs"), logs);
      settle({ code: Number(code) });
    });

    await page.goto(workbenchUrl(server, { folder: opts.workspace, payload }), { waitUntil: "domcontentloaded" });
    if (opts.ui) {
      runUi(page, opts, artifacts).then(
        () => settle({ code: 0 }),
        (error) => settle({ code: 1, reason: `UI test failed: ${error.stack ?? error.message}` }),
      );
    }
  }
}

/** Waits for the restored workbench, then hands the page to the UI module. */
async function runUi(page, opts, artifacts) {
  const mod = await import(pathToFileURL(opts.ui).href);
  if (typeof mod.run !== "function") throw new Error(`${opts.ui} must export an async function run(page, context)`);
  // window.driver exists because the server runs with --enable-smoke-test-driver.
  await page.waitForFunction(() => typeof globalThis.driver?.whenWorkbenchRestored === "function", undefined, {
    timeout: 60_000,
  });
  await page.evaluate(() => globalThis.driver.whenWorkbenchRestored());
  await mod.run(page, { artifactsDir: artifacts, workspace: opts.workspace });
}

function saveWorkbenchLogs(dir, logs) {
  for (const { relativePath, contents } of logs) {
    if (typeof relativePath !== "string" || relativePath.includes("..")) continue;
    const file = path.join(dir, relativePath);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, contents);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof UsageError) {
      if (error.message) console.error(`run.mjs: ${error.message}`);
      console.error(USAGE);
      process.exit(2);
    }
    console.error(`run.mjs: ${error.stack ?? error.message}`);
    process.exit(1);
  },
);
