#!/usr/bin/env node
// The VS Code stage of `npm test`: the extension-host suites on a fresh copy of examples/, in a real VS Code.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");
const artifacts = path.join(root, "test-artifacts");

function step(title, command, args) {
  console.log(`\n== ${title}\n$ ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`${title} failed (exit ${result.status ?? result.signal}).`);
    process.exit(result.status ?? 1);
  }
}

function freshWorkspace() {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-e2e-"));
  cpSync(path.join(root, "examples"), folder, { recursive: true });
  // The suites decide when files are saved: auto-save would write half-made test edits to disk.
  mkdirSync(path.join(folder, ".vscode"));
  writeFileSync(path.join(folder, ".vscode/settings.json"), JSON.stringify({ "files.autoSave": "off", "skill.trace.server": "messages" }, null, 2));
  return folder;
}

step("bundle the suites", process.execPath, ["esbuild.mjs", "--tests"]);
const workspace = freshWorkspace();
try {
  step("extension suite in VS Code", process.execPath, ["test/e2e/run.mjs", "--extension", root, "--suite", path.join(root, "out/e2e/index.js"), "--workspace", workspace, "--artifacts", artifacts]);
} finally {
  rmSync(workspace, { recursive: true, force: true });
}
