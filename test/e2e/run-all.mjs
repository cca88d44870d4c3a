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

/** Folders of the test models, removed when the stage ends, passed or failed. */
const modelFolders = [];
process.on("exit", () => {
  for (const folder of modelFolders) rmSync(folder, { recursive: true, force: true });
});

/** A scripted model that always plans @search-info with this reason (the real node-llama-cpp loads it). */
function writeTestModel(name, reason) {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-e2e-model-"));
  modelFolders.push(folder);
  const file = path.join(folder, name);
  const script = 'import("./test/fixtures/model/gguf.ts").then((m) => m.writeScriptedModel(process.argv[1], process.argv[2], { contextLength: 8192 }))';
  step(`write the test model ${name}`, process.execPath, ["--import", "tsx", "-e", script, file, JSON.stringify({ handles: ["search-info"], reason })]);
  return file;
}

const model = writeTestModel("plans-search-info.gguf", "it checks every place");

function freshWorkspace(modelFile = model) {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-e2e-"));
  cpSync(path.join(root, "examples"), folder, { recursive: true });
  // The suites decide when files are saved: auto-save would write half-made test edits to disk.
  mkdirSync(path.join(folder, ".vscode"));
  writeFileSync(path.join(folder, ".vscode/settings.json"), JSON.stringify({ "files.autoSave": "off", "skill.trace.server": "messages", "skill.model.path": modelFile, "skill.model.threads": 1, "skill.model.gpu": "off" }, null, 2));
  return folder;
}

/** A mocha grep (a test's full title) for every suite but the Agent Skills one. */
const WITHOUT_AGENT_SKILLS = "^(?!Agent Skills workspace in VS Code)";

step("bundle the suites", process.execPath, ["esbuild.mjs", "--tests"]);
const workspace = freshWorkspace();
let vsixWorkspace;
try {
  // The Agent Skills suite wants its own workspace (below): every other run leaves it out by its title.
  step("extension suite in VS Code", process.execPath, ["test/e2e/run.mjs", "--extension", root, "--suite", path.join(root, "out/e2e/index.js"), "--workspace", workspace, "--env", `SKILL_E2E_GREP=${WITHOUT_AGENT_SKILLS}`, "--artifacts", artifacts]);
  // An Agent Skills workspace (SKILL.md folders, CLAUDE.md, AGENTS.md): completion after /, a diagnostic, F2 moving a folder.
  const agentWorkspace = mkdtempSync(path.join(tmpdir(), "skill-e2e-agent-"));
  cpSync(path.join(root, "test/fixtures/agent-skills"), agentWorkspace, { recursive: true });
  mkdirSync(path.join(agentWorkspace, ".vscode"));
  writeFileSync(path.join(agentWorkspace, ".vscode/settings.json"), JSON.stringify({ "files.autoSave": "off", "skill.trace.server": "messages" }, null, 2));
  try {
    step("Agent Skills suite in VS Code", process.execPath, ["test/e2e/run.mjs", "--extension", root, "--suite", path.join(root, "out/e2e/index.js"), "--workspace", agentWorkspace, "--env", "SKILL_E2E_GREP=Agent Skills", "--artifacts", path.join(artifacts, "agent-skills")]);
    // A fresh copy: the suite above renamed a skill folder.
    rmSync(agentWorkspace, { recursive: true, force: true });
    cpSync(path.join(root, "test/fixtures/agent-skills"), agentWorkspace, { recursive: true });
    step("UI: completion after / in CLAUDE.md (test-artifacts/agent-skills-completion.png)", process.execPath, ["test/e2e/run.mjs", "--ui", "test/e2e/ui/agent-skills.mjs", "--extension", root, "--workspace", agentWorkspace, "--artifacts", artifacts]);
  } finally {
    rmSync(agentWorkspace, { recursive: true, force: true });
  }
  const uiWorkspace = freshWorkspace();
  try {
    step("UI: completion, colours, Problems (screenshots in test-artifacts/)", process.execPath, ["test/e2e/run.mjs", "--ui", "test/e2e/ui/editor.mjs", "--extension", root, "--workspace", uiWorkspace, "--artifacts", artifacts]);
  } finally {
    rmSync(uiWorkspace, { recursive: true, force: true });
  }
  const firstHourWorkspace = freshWorkspace();
  try {
    step("UI: a new user's first hour: Show Output, refused rename, typing a mention, hovers, YAML errors", process.execPath, ["test/e2e/run.mjs", "--ui", "test/e2e/ui/firsthour.mjs", "--extension", root, "--workspace", firstHourWorkspace, "--artifacts", path.join(artifacts, "ui-firsthour")]);
  } finally {
    rmSync(firstHourWorkspace, { recursive: true, force: true });
  }
  const graphWorkspace = freshWorkspace();
  try {
    step("UI: the Skill Graph panel (test-artifacts/graph.png)", process.execPath, ["test/e2e/run.mjs", "--ui", "test/e2e/ui/graph.mjs", "--extension", root, "--workspace", graphWorkspace, "--artifacts", path.join(artifacts, "ui-graph")]);
  } finally {
    rmSync(graphWorkspace, { recursive: true, force: true });
  }
  const renamedWorkspace = freshWorkspace();
  try {
    step("UI: a skill file renamed on disk, its mentions updated from the Source Action menu", process.execPath, ["test/e2e/run.mjs", "--ui", "test/e2e/ui/renamed.mjs", "--extension", root, "--workspace", renamedWorkspace, "--artifacts", path.join(artifacts, "ui-renamed")]);
  } finally {
    rmSync(renamedWorkspace, { recursive: true, force: true });
  }
  // Hostile text in a skill, the request and the model's output is shown as text in the Run Plan panel.
  const { PAYLOADS } = await import("./ui/plan-panel.mjs");
  const hostile = `${PAYLOADS.img} ${PAYLOADS.script}`;
  const panelWorkspace = freshWorkspace(writeTestModel("hostile-reason.gguf", `it quotes ${hostile}`));
  try {
    const skill = path.join(panelWorkspace, "skills/builtin/search-info.skill.md");
    const text = readFileSync(skill, "utf8").replace(/^summary: (.*)$/m, (_, summary) => `summary: ${JSON.stringify(`${summary} ${hostile}`)}`);
    writeFileSync(skill, `${text}\nQuote what you found, such as ${hostile}\n`);
    step("UI: the Run Plan panel shows hostile text as text (test-artifacts/plan-panel.png)", process.execPath, ["test/e2e/run.mjs", "--ui", "test/e2e/ui/plan-panel.mjs", "--extension", root, "--workspace", panelWorkspace, "--artifacts", artifacts]);
  } finally {
    rmSync(panelWorkspace, { recursive: true, force: true });
  }
  // The packaged extension, installed from its VSIX (the dev copy stays out: the smoke extension is the
  // development path), activates and runs a plan on node-llama-cpp's binaries from inside the VSIX.
  step("package the VSIX", process.execPath, ["scripts/package.mjs", "--target", "linux-x64", "--no-readme"]);
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  vsixWorkspace = freshWorkspace();
  step("the VSIX installed in VS Code", process.execPath, [
    "test/e2e/run.mjs", "--extension", path.join(root, "test/e2e/smoke"), "--install-vsix", path.join(root, `skill-lsp-linux-x64-${manifest.version}.vsix`),
    "--suite", path.join(root, "out/e2e/index.js"), "--workspace", vsixWorkspace, "--env", `SKILL_E2E_GREP=${WITHOUT_AGENT_SKILLS}.*(?:activates|completes|Run Plan)`, "--artifacts", path.join(artifacts, "vsix"),
  ]);
} finally {
  rmSync(workspace, { recursive: true, force: true });
  if (vsixWorkspace) rmSync(vsixWorkspace, { recursive: true, force: true });
}
