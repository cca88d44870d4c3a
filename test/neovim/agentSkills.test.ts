import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { isolatedXdg } from "./xdg.js";

const REPO = path.resolve(__dirname, "../..");
const SERVER = path.join(REPO, "dist/server.js");
const NVIM = process.env.NVIM || "nvim";
const installed = spawnSync(NVIM, ["--version"], { encoding: "utf8", timeout: 10_000 }).status === 0;

interface Step {
  readonly name: string;
  readonly ok: boolean;
  readonly details: { messages?: string[]; labels?: string[]; error?: string | null };
}

describe("Neovim's LSP client on an Agent Skills workspace", { skip: installed ? false : `${NVIM} is not installed` }, () => {
  let work: string;
  let workspace: string;
  let steps: Step[] = [];
  const step = (name: string) => {
    const found = steps.find((one) => one.name === name);
    assert.ok(found, `no step ${name}: ${JSON.stringify(steps)}`);
    return found;
  };

  before(() => {
    assert.ok(existsSync(SERVER), `${SERVER} is missing: run \`node esbuild.mjs\` first`);
    work = mkdtempSync(path.join(tmpdir(), "skill-lsp-nvim-agent-"));
    workspace = path.join(work, "workspace");
    cpSync(path.join(REPO, "test/fixtures/agent-skills"), workspace, { recursive: true });
    const xdg = isolatedXdg(work);
    const resultFile = path.join(work, "result.json");
    const run = spawnSync(NVIM, ["--headless", "--clean", "-u", path.join(__dirname, "agentSkills.lua")], {
      cwd: workspace,
      encoding: "utf8",
      timeout: 70_000,
      killSignal: "SIGKILL",
      env: { ...process.env, ...xdg, SKILL_LSP_WORKSPACE: workspace, SKILL_LSP_SERVER: SERVER, SKILL_LSP_RESULT: resultFile, SKILL_LSP_NODE: process.execPath },
    });
    assert.ok(existsSync(resultFile), `no result: ${run.status ?? run.signal} ${run.stdout} ${run.stderr}`);
    steps = (JSON.parse(readFileSync(resultFile, "utf8")) as { steps: Step[] }).steps;
  });
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("shows the near miss in CLAUDE.md as a diagnostic", () => {
    assert.ok(step("diagnostic").ok, JSON.stringify(step("diagnostic").details));
  });

  it("completes skills after /", () => {
    const labels = step("completion").details.labels ?? [];
    assert.ok(labels.includes("/docx") && labels.includes("/deploy-site"), labels.join(" "));
    assert.ok(labels.every((label) => label.startsWith("/")), labels.join(" "));
  });

  it("renames /docx to word: every reference, the name: value, and the folder moved on disk", () => {
    assert.ok(step("rename").ok, JSON.stringify(step("rename").details));
    const read = (relative: string) => readFileSync(path.join(workspace, relative), "utf8");
    assert.ok(existsSync(path.join(workspace, ".claude/skills/word/SKILL.md")), "the folder moved");
    assert.ok(!existsSync(path.join(workspace, ".claude/skills/docx")), "the old folder is gone");
    assert.match(read(".claude/skills/word/SKILL.md"), /^name: word$/m);
    assert.match(read("CLAUDE.md"), /\/word for Word files/);
    assert.match(read("CLAUDE.md"), /\.claude\/skills\/word\/SKILL\.md/);
    assert.match(read("AGENTS.md"), /\$word/);
    assert.match(read(".claude/skills/pdf/SKILL.md"), /with \/word first[\s\S]*through @word too[\s\S]*\.\.\/word\/SKILL\.md/);
  });
});
