/**
 * The graph layout's benchmark in a smoke run: `bench/run.ts --graph` on examples/, one round. Every engine
 * answers with a drawing, and the figure that decided the choice holds: only the panel's own layout fits
 * examples/ into a side panel with captions of 10 px or more. No timing is asserted.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { test } from "node:test";

const REPO = path.resolve(__dirname, "../..");

test("npm run bench -- --graph: every engine lays out examples/; only the panel's own is legible in a side panel", () => {
  const run = spawnSync(process.execPath, ["--import", "tsx", "bench/run.ts", "--graph", "--sizes", "17", "--rounds", "1", "--json"], { cwd: REPO, encoding: "utf8", timeout: 120_000 });
  assert.equal(run.status, 0, run.stderr);
  const { engines: rows } = JSON.parse(run.stdout) as { engines: { engine: string; nodes: number; ms: number; sidePx: number; editorPx: number }[] };
  assert.deepEqual(rows.map((row) => row.engine), ["layered, this project's (the panel's)", "ELK layered, the panel's former options", "ELK layered, its defaults"]);
  for (const row of rows) {
    assert.equal(row.nodes, 17);
    assert.ok(row.ms > 0 && row.sidePx > 0 && row.editorPx > 0, JSON.stringify(row));
  }
  const [ours, ...others] = rows;
  assert.ok((ours?.sidePx ?? 0) >= 10, `ours: ${ours?.sidePx} px`);
  for (const other of others) assert.ok(other.sidePx < 10, `${other.engine}: ${other.sidePx} px`);
});

test("bench/graph.ts refuses a bad size with one line", () => {
  const run = spawnSync(process.execPath, ["--import", "tsx", "bench/graph.ts", "--sizes", "ten"], { cwd: REPO, encoding: "utf8" });
  assert.equal(run.status, 2);
  assert.equal(run.stderr.trim(), "--sizes wants whole numbers, comma-separated (17 is examples/).");
});
