#!/usr/bin/env node
/**
 * `npm start`: builds the extension, then opens VS Code with it loaded from source on examples/.
 *   - With a desktop `code` on PATH: `code --extensionDevelopmentPath=<repo> <repo>/examples`.
 *   - Otherwise (or with --web): VS Code's own server on 127.0.0.1:$PORT (default 8080), with the repo as
 *     the extension under development, until Ctrl-C. Open the printed URL in a browser.
 * Environment: PORT, HOST (default 127.0.0.1; the server has no connection token, so keep it local).
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import {
  CACHE_DIR,
  REPO_ROOT,
  ensureVsCodeServer,
  remoteUri,
  startServer,
  workbenchUrl,
} from "./vscode-server.mjs";

const examples = path.join(REPO_ROOT, "examples");

function build() {
  const script = path.join(REPO_ROOT, "esbuild.mjs");
  if (!fs.existsSync(script)) return;
  const result = spawnSync(process.execPath, [script], { cwd: REPO_ROOT, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`node esbuild.mjs failed (exit ${result.status ?? result.signal}).`);
}

function hasDesktopCode() {
  return spawnSync("sh", ["-c", "command -v code"], { stdio: "ignore" }).status === 0;
}

function runDesktop() {
  const child = spawn("code", [`--extensionDevelopmentPath=${REPO_ROOT}`, examples], { stdio: "inherit" });
  return new Promise((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
}

async function runWeb() {
  // The user opens the printed address in their own browser: no playwright-core.
  const install = await ensureVsCodeServer({ browser: false });
  const port = Number(process.env.PORT ?? 8080);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`PORT must be a port number, got "${process.env.PORT}".`);
  // One persistent profile for development, so settings and opened editors survive restarts.
  const stateDir = path.join(CACHE_DIR, "dev-state");
  const server = await startServer({
    install,
    stateDir,
    host: process.env.HOST ?? "127.0.0.1",
    port,
    keepSettings: true,
  }).catch((error) => {
    throw new Error(`${error.message} Choose another port with PORT=...`);
  });
  // The server has no --extensionDevelopmentPath option; the workbench takes it from the URL payload.
  const url = workbenchUrl(server, {
    folder: examples,
    payload: [["extensionDevelopmentPath", remoteUri(server, REPO_ROOT)]],
  });
  console.log(`\nVS Code (web) with skill-lsp loaded from ${REPO_ROOT}:\n\n  ${url}\n`);
  console.log(`Server log: ${server.logFile}. Rebuild with \`npm run build\` and reload the page. Ctrl-C stops.`);

  let stopping = false;
  const code = await new Promise((resolve) => {
    const stop = () => {
      stopping = true;
      resolve(0);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    server.exited.then((exit) => {
      if (stopping) return;
      console.error(`The VS Code server exited (code ${exit}); see ${server.logFile}.`);
      resolve(1);
    });
  });
  await server.stop();
  return code;
}

async function main(argv) {
  build();
  if (!argv.includes("--web") && hasDesktopCode()) return runDesktop();
  return runWeb();
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(`npm start: ${error.message}`);
    process.exit(1);
  },
);
