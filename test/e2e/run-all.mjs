#!/usr/bin/env node
// The VS Code stage of `npm test`: the extension-host suites on a fresh copy of examples/, in a real VS Code.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/** A scripted model that always plans @search-info, for the Run Plan suite (the real node-llama-cpp loads it). */
function writeTestModel() {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "skill-e2e-model-")), "plans-search-info.gguf");
  const script = 'import("./test/fixtures/model/gguf.ts").then((m) => m.writeScriptedModel(process.argv[1], \'{"handles":["search-info"],"reason":"it checks every place"}\', { contextLength: 8192 }))';
  step("write the test model", process.execPath, ["--import", "tsx", "-e", script, file]);
  return file;
}

const model = writeTestModel();

function freshWorkspace() {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-e2e-"));
  cpSync(path.join(root, "examples"), folder, { recursive: true });
  // The suites decide when files are saved: auto-save would write half-made test edits to disk.
  mkdirSync(path.join(folder, ".vscode"));
  writeFileSync(path.join(folder, ".vscode/settings.json"), JSON.stringify({ "files.autoSave": "off", "skill.trace.server": "messages", "skill.model.path": model, "skill.model.threads": 1, "skill.model.gpu": "off" }, null, 2));
  return folder;
}

step("bundle the suites", process.execPath, ["esbuild.mjs", "--tests"]);
const workspace = freshWorkspace();
let vsixWorkspace;
try {
  step("extension suite in VS Code", process.execPath, ["test/e2e/run.mjs", "--extension", root, "--suite", path.join(root, "out/e2e/index.js"), "--workspace", workspace, "--artifacts", artifacts]);
  const uiWorkspace = freshWorkspace();
  try {
    step("UI: completion, colours, Problems (screenshots in test-artifacts/)", process.execPath, ["test/e2e/run.mjs", "--ui", "test/e2e/ui/editor.mjs", "--extension", root, "--workspace", uiWorkspace, "--artifacts", artifacts]);
  } finally {
    rmSync(uiWorkspace, { recursive: true, force: true });
  }
  const graphWorkspace = freshWorkspace();
  try {
    step("UI: the Skill Graph panel (test-artifacts/graph.png)", process.execPath, ["test/e2e/run.mjs", "--ui", "test/e2e/ui/graph.mjs", "--extension", root, "--workspace", graphWorkspace, "--artifacts", path.join(artifacts, "ui-graph")]);
  } finally {
    rmSync(graphWorkspace, { recursive: true, force: true });
  }
  // The packaged extension, installed from its VSIX (the dev copy stays out: the smoke extension is the
  // development path), activates and runs a plan on node-llama-cpp's binaries from inside the VSIX.
  step("package the VSIX", process.execPath, ["scripts/package.mjs"]);
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  vsixWorkspace = freshWorkspace();
  step("the VSIX installed in VS Code", process.execPath, [
    "test/e2e/run.mjs", "--extension", path.join(root, "test/e2e/smoke"), "--install-vsix", path.join(root, `skill-lsp-linux-x64-${manifest.version}.vsix`),
    "--suite", path.join(root, "out/e2e/index.js"), "--workspace", vsixWorkspace, "--env", "SKILL_E2E_GREP=activates|completes|Run Plan", "--artifacts", path.join(artifacts, "vsix"),
  ]);
} finally {
  rmSync(workspace, { recursive: true, force: true });
  if (vsixWorkspace) rmSync(vsixWorkspace, { recursive: true, force: true });
}
