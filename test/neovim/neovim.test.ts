/**
 * The real server, driven by Neovim's own LSP client (headless): completion after `@`, a dangling-mention
 * diagnostic, and a rename applied with Neovim's apply_workspace_edit and written with :wall.
 *
 *   node --import tsx --test test/neovim/neovim.test.ts
 *
 * test/neovim/init.lua does the editor side and writes a JSON result; this file runs it against a copy of
 * examples/ and asserts on that result and on the files on disk. Skipped only when `nvim` is not installed.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { isolatedXdg } from "./xdg.js";

const REPO = path.resolve(__dirname, "../..");
const SERVER = path.join(REPO, "dist/server.js");
const INIT = path.join(REPO, "test/neovim/init.lua");
/** Which Neovim to run: `nvim` on the PATH unless NVIM names another binary (an AppImage of a newer release, say). */
const NVIM = process.env.NVIM || "nvim";
/** The Lua side bounds itself (watchdog); this is the last resort if Neovim itself wedges. */
const RUN_BUDGET_MS = 60_000;
const KILL_AFTER_MS = RUN_BUDGET_MS + 15_000;

function nvimVersion(): string | undefined {
  const probe = spawnSync(NVIM, ["--version"], { encoding: "utf8", timeout: 10_000 });
  if (probe.error || probe.status !== 0) return undefined;
  return probe.stdout.split("\n")[0]?.trim();
}

const version = nvimVersion();

interface Step {
  name: string;
  ok: boolean;
  ms: number;
  error?: string;
  // The shape of each step's details is set by init.lua; the assertions below spell out what they read.
  details: any;
}

interface Result {
  nvim: string;
  api: Record<string, boolean>;
  capabilities: Record<string, unknown>;
  steps: Step[];
  messages: string[];
  errors: string[];
  exit_code: number;
  elapsed_ms: number;
}

/** Every file under a folder, relative, sorted. */
function listFiles(folder: string, prefix = ""): string[] {
  return readdirSync(path.join(folder, prefix), { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? listFiles(folder, path.join(prefix, entry.name)) : [path.join(prefix, entry.name)]))
    .sort();
}

describe("Neovim's built-in LSP client against the server", { skip: version ? false : `${NVIM} is not installed (apt-get install -y neovim); CI installs it` }, () => {
  let work: string;
  let workspace: string;
  let result: Result;
  let run: { status: number | null; signal: string | null; stdout: string; stderr: string; ms: number };
  const step = (name: string): Step => {
    const found = result.steps.find((one) => one.name === name);
    assert.ok(found, `init.lua recorded no step "${name}"; steps: ${result.steps.map((one) => one.name).join(", ")}`);
    return found;
  };
  const passed = (name: string): Step => {
    const found = step(name);
    assert.ok(found.ok, `step "${name}" failed in Neovim: ${found.error}`);
    return found;
  };
  const file = (relative: string) => path.join(workspace, relative);
  const read = (relative: string) => readFileSync(file(relative), "utf8");

  before(() => {
    assert.ok(existsSync(SERVER), `${SERVER} is missing: run \`node esbuild.mjs\` first`);
    work = mkdtempSync(path.join(tmpdir(), "skill-lsp-nvim-"));
    // A `+` in the path: Neovim writes it unescaped in its URIs, VS Code as %2B; the server must take both.
    workspace = path.join(work, "team+workspace");
    cpSync(path.join(REPO, "examples"), workspace, { recursive: true });
    const xdg = isolatedXdg(work);
    const resultFile = path.join(work, "result.json");
    const started = Date.now();
    const child = spawnSync(NVIM, ["--headless", "--clean", "-u", INIT], {
      cwd: workspace,
      encoding: "utf8",
      timeout: KILL_AFTER_MS,
      killSignal: "SIGKILL",
      env: {
        ...process.env,
        ...xdg,
        SKILL_LSP_WORKSPACE: workspace,
        SKILL_LSP_SERVER: SERVER,
        SKILL_LSP_RESULT: resultFile,
        SKILL_LSP_NODE: process.execPath,
        SKILL_LSP_BUDGET_MS: String(RUN_BUDGET_MS),
      },
    });
    run = { status: child.status, signal: child.signal, stdout: child.stdout ?? "", stderr: child.stderr ?? "", ms: Date.now() - started };
    const context = `nvim exited with ${run.status ?? run.signal} after ${run.ms} ms\nstdout: ${run.stdout}\nstderr: ${run.stderr}`;
    assert.ok(existsSync(resultFile), `init.lua wrote no result file; ${context}`);
    result = JSON.parse(readFileSync(resultFile, "utf8")) as Result;
    console.log(`# ${version}: ${result.steps.map((one) => `${one.name} ${one.ok ? "ok" : "FAILED"} (${one.ms} ms)`).join(", ")}; whole run ${run.ms} ms`);
  });

  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("runs to the end and exits 0 within its bounds", () => {
    assert.deepEqual(result.errors, []);
    const failed = result.steps.filter((one) => !one.ok && one.name !== "omnifunc" && one.name !== "after-rename");
    assert.deepEqual(failed.map((one) => `${one.name}: ${one.error}`), []);
    assert.equal(result.exit_code, 0);
    assert.equal(run.status, 0, `nvim exit: ${run.status ?? run.signal}\n${run.stderr}`);
    assert.ok(result.api["vim.lsp.start_client"] || result.api["vim.lsp.start"], "no way to start a client in this Neovim");
  });

  it("starts the server and waits until it has indexed the workspace", () => {
    const { details } = passed("start");
    assert.equal(details.status.indexing, false);
    assert.equal(details.status.skills, 10);
    assert.deepEqual(details.completion_triggers, ["@", "/", "$"]);
    assert.equal(details.offset_encoding, "utf-16");
  });

  it("completes skills and tools after @ (textDocument/completion through buf_request_sync)", () => {
    const { details } = passed("completion");
    const labels: string[] = details.labels;
    assert.ok(labels.includes("@search-info"), labels.join(" "));
    assert.ok(labels.includes("@find-file"), labels.join(" "));
    assert.ok(!labels.includes("@meeting-prep"), "a skill never suggests itself");
    assert.ok(!labels.includes("@draft-reply"), "disabled skills are not offered");
    assert.notEqual(details.kinds["@search-info"], details.kinds["@find-file"], "skills and tools have different kinds");
    assert.equal(details.triggered_count, labels.length, "the same list with a trigger-character context");
    assert.match(details.resolved_documentation, /Binds `/);
  });

  it("shows the mentions in the omnifunc popup (<C-x><C-o> after @)", () => {
    const { details } = passed("omnifunc");
    assert.ok(details.after_at.popup.includes("@search-info"), details.after_at.popup.join(" "));
    assert.ok(details.after_at.popup.includes("@find-file"), details.after_at.popup.join(" "));
  });

  it(
    "inserts the picked mention with omnifunc, after @ and after a partial slug",
    () => {
      const { details } = passed("omnifunc");
      assert.equal(details.after_at.line_after_first_entry, `Also use ${details.after_at.popup[0]}`);
      assert.ok(details.after_prefix.popup.includes("@search-info"), `popup after "@sea": ${JSON.stringify(details.after_prefix.popup)}`);
    },
  );

  it("shows a diagnostic for a dangling mention, and clears it when the mention goes", () => {
    const { details } = passed("diagnostics");
    assert.deepEqual(details.before, []);
    const unknown = (details.diagnostics as { message: string; lnum: number; col: number; end_col: number; code: string; severity: number }[]).filter((one) => one.message.includes("unknown"));
    assert.equal(unknown.length, 1, JSON.stringify(details.diagnostics));
    const [diagnostic] = unknown;
    assert.match(diagnostic!.message, /@weekly-review — unknown/);
    assert.equal(diagnostic!.code, "unknown-mention");
    assert.equal(diagnostic!.severity, 1, "an error");
    assert.deepEqual([diagnostic!.lnum, diagnostic!.col, diagnostic!.end_col], [details.added_line, "Then ".length, "Then @weekly-review".length]);
    assert.equal(details.cleared, true);
  });

  it("renames @fetch-file to get-file: prepareRename, one workspace edit, the file renamed on disk", () => {
    const { details } = passed("rename");
    assert.equal(details.prepared.placeholder, "fetch-file");
    const changes = details.document_changes as { uri?: string; kind?: string; oldUri?: string; newUri?: string; edits?: number }[];
    const edited = changes.filter((change) => change.uri).map((change) => path.basename(change.uri!)).sort();
    assert.deepEqual(edited, ["meeting-prep.skill.md", "plan-trip.skill.md", "search-info.skill.md"]);
    const rename = changes.at(-1);
    assert.equal(rename?.kind, "rename");
    assert.equal(path.basename(rename?.oldUri ?? ""), "fetch-file.skill.md");
    assert.equal(path.basename(rename?.newUri ?? ""), "get-file.skill.md");
    assert.equal(details.new_file_exists, true);
    assert.equal(details.old_file_exists, false);
  });

  it("leaves the rewritten files on disk after :wall", () => {
    passed("rename");
    const original = (relative: string) => readFileSync(path.join(REPO, "examples", relative), "utf8");
    for (const relative of ["skills/builtin/search-info.skill.md", "skills/home/plan-trip.skill.md", "skills/work/meeting-prep.skill.md"]) {
      const text = read(relative);
      assert.equal(text, original(relative).replaceAll("@fetch-file", "@get-file"), relative);
      assert.match(text, /@get-file\b/, relative);
    }
    assert.ok(!existsSync(file("skills/builtin/fetch-file.skill.md")));
    assert.equal(read("skills/builtin/get-file.skill.md"), original("skills/builtin/fetch-file.skill.md"), "the renamed file keeps its text");
    // Nothing else changed, and nothing mentions the old handle any more.
    const expected = listFiles(path.join(REPO, "examples")).map((relative) => relative.replace("fetch-file.skill.md", "get-file.skill.md"));
    assert.deepEqual(listFiles(workspace), expected.sort());
    for (const relative of listFiles(workspace)) assert.ok(!read(relative).includes("@fetch-file"), relative);
    for (const relative of ["skills.json", "skills/work/triage-inbox.skill.md", "skills/builtin/check-schedule.skill.md"]) {
      assert.equal(read(relative), original(relative), `${relative} is untouched`);
    }
  });

  it("knows the renamed skill once Neovim opens its new file", () => {
    const { details } = passed("after-rename");
    assert.equal(details.cleared_after_opening_new_file, true, JSON.stringify(details));
    for (const [relative, messages] of Object.entries(details.unknown_after_opening_new_file)) assert.deepEqual(messages, [], relative);
  });

  it(
    "has no stale `@get-file — unknown` right after the rename, before the new file is opened",
    () => {
      const { details } = passed("after-rename");
      for (const [relative, messages] of Object.entries(details.unknown_before_opening_new_file)) assert.deepEqual(messages, [], relative);
    },
  );

  it("shuts the server down cleanly", () => {
    const { details } = passed("shutdown");
    assert.equal(details.exit.code, 0);
  });
});
