/**
 * The benchmark's smoke run: `bench/run.ts --quick` (1,000 skills and their Markdown twin) must finish and print
 * every row, with both servers' counts of dangling references agreeing with the generator; `bench/open.mjs`
 * must run its rounds on a real server. No timing is asserted: figures belong to `npm run bench`, on a quiet
 * machine.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { peerInstalled } from "../../bench/markdown.js";

const REPO = path.resolve(__dirname, "../..");

const ROWS = [
  "floor: read every file + scan mentions",
  "cold start → complete diagnostics",
  "  cold start as a multiple of the floor",
  "  server CPU time (user + system) for it",
  "  of which: initialize answered",
  "  of which: indexed (ours) / all opened (theirs)",
  "editors open at start: their 50 diagnostics",
  "menu-similar warnings ready, after spawn",
  "completion p95 while they are compared",
  "  p95 meanwhile of a server that computes nothing",
  "  p95 asked of a server that computes nothing",
  "summary edit → its pairs' warnings, median",
  "skill-lsp check, the whole process",
  "completion after @, median",
  "completion after @, 95th percentile",
  "completion after @qui, 95th percentile",
  "semantic tokens, 2,000-mention file",
  "edit → its diagnostics, median",
  "edit → its diagnostics, 95th percentile",
  "change → its 100 dependents' diagnostics",
  "references, 1,000 files",
  "rename from a mention/link, 1,000 files",
  "  its answer from a server that computes nothing",
  "file rename cascade, 1,000 files",
  "resident memory after indexing",
  "resident memory at the end / peak",
];

/** Runs a bench script (bench/run.ts unless said) in the repository, to its exit. */
function run(args: readonly string[], script: readonly string[] = ["--import", "tsx", "bench/run.ts"]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...script, ...args], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("exit", (code) => resolve({ code, out, err }));
  });
}

test("bench --quick prints every row, for both servers", { timeout: 15 * 60_000, skip: existsSync(path.join(REPO, "dist/server.js")) ? false : "build first: node esbuild.mjs" }, async () => {
  const { code, out, err } = await run(["--quick"]);
  assert.equal(code, 0, `bench failed:\n${err}\n${out}`);
  const lines = out.split("\n");
  assert.match(out, /== 1,000 files, realistic: /);
  for (const label of ROWS) {
    const row = lines.find((line) => line.startsWith(label.padEnd(50)));
    assert.ok(row, `missing row "${label}" in:\n${out}`);
    // Our column always has a figure.
    assert.doesNotMatch(row.slice(50, 66), /^\s*—\s*$/, `no figure for "${label}"`);
  }
  const peerRan = peerInstalled();
  if (peerRan) {
    assert.doesNotMatch(out, /peer: /, "the Markdown server did not finish");
    for (const label of ["cold start → complete diagnostics", "editors open at start: their 50 diagnostics", "edit → its diagnostics, median", "references, 1,000 files", "file rename cascade, 1,000 files"]) {
      const row = lines.find((line) => line.startsWith(label.padEnd(50))) ?? "";
      assert.match(row.slice(66), /\d/, `no peer figure or ratio for "${label}"`);
    }
  }
  // Both servers find exactly the dangling references the generator wrote, in the workspace and in the open editors.
  const checks = lines.filter((line) => line.includes("check:"));
  assert.match(checks[0] ?? "", /check: [\d,]+ unknown mentions/);
  assert.match(checks[1] ?? "", /check: open editors [\d,]+ \/ [\d,—]+ dangling/);
  for (const check of checks) assert.doesNotMatch(check, /MISMATCH/);
});

test("bench --quick --json is one JSON document with the figures", { timeout: 15 * 60_000, skip: existsSync(path.join(REPO, "dist/server.js")) ? false : "build first: node esbuild.mjs" }, async () => {
  const { code, out, err } = await run(["--quick", "--json", "--no-peer", "--rounds", "2"]);
  assert.equal(code, 0, err);
  const parsed = JSON.parse(out) as { context: { loadBefore: string }; results: { count: number; floorMs: number; ours: Record<string, unknown> }[] };
  assert.equal(parsed.results.length, 1);
  assert.equal(parsed.results[0]?.count, 1000);
  for (const key of ["cold", "completionMs", "editMs", "dependentsMs", "referencesMs", "renameMs", "fileRenameMs", "rssAfterIndexMb"]) {
    assert.ok(key in (parsed.results[0]?.ours ?? {}), `missing ${key}`);
  }
  assert.equal(typeof parsed.context.loadBefore, "string");
});

test("bench/open.mjs opens editors at start on a real server and prints each run and the medians", { timeout: 120_000, skip: existsSync(path.join(REPO, "dist/server.js")) ? false : "build first: node esbuild.mjs" }, async () => {
  const folder = path.join(REPO, "test/fixtures/agent-skills");
  const { code, out, err } = await run([folder, "--rounds", "2", "--editors", "3", "--index"], ["bench/open.mjs"]);
  assert.equal(code, 0, err);
  const lines = out.trim().split("\n");
  assert.match(lines[0] ?? "", /: 3 editors open at start, 2 rounds$/);
  const runs = lines.filter((line) => /dist\/server\.js: all \d+ ms, the first half \d+ ms, indexed \d+ ms$/.test(line));
  assert.equal(runs.length, 3, out);
  assert.equal(lines.at(-2), "medians:");
});
