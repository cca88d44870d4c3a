import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";

const REPO = path.resolve(__dirname, "../..");
const SERVER = path.join(REPO, "dist/server.js");

/** Runs the built command line, as a user would. */
function cli(args: readonly string[], cwd = REPO) {
  const result = spawnSync(process.execPath, [SERVER, ...args], { cwd, encoding: "utf8" });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

describe("the command line", () => {
  it("check examples prints nothing and exits 0", () => {
    assert.deepEqual(cli(["check", "examples"]), { code: 0, out: "", err: "" });
  });

  it("check prints a dangling mention as file:line:col severity code message and exits 1", () => {
    const folder = mkdtempSync(path.join(tmpdir(), "skill-cli-"));
    cpSync(path.join(REPO, "examples"), folder, { recursive: true });
    writeFileSync(path.join(folder, "skills/home/plan-trip.skill.md"), "---\nsummary: Plan a trip.\n---\nFirst use @flights.\n");
    const result = cli(["check", folder], folder);
    assert.equal(result.code, 1);
    assert.equal(result.out, "skills/home/plan-trip.skill.md:4:11 error unknown-mention @flights — unknown: no skill or tool has this handle.\n");
    rmSync(folder, { recursive: true, force: true });
  });

  it("expand @search-info prints the four tools, one per line", () => {
    const empty = mkdtempSync(path.join(tmpdir(), "skill-cli-"));
    assert.deepEqual(cli(["expand", "@search-info"], empty), { code: 0, out: "check_notebook\nlist_devices\nfind_file\ngrep_memory\n", err: "" });
    assert.equal(cli(["expand", "--folder", path.join(REPO, "examples"), "@meeting-prep"]).out.split("\n").filter(Boolean).length, 6);
    rmSync(empty, { recursive: true, force: true });
  });

  it("menu prints the planner's system prompt in the seed's form and its size", () => {
    const result = cli(["menu", "--folder", "examples"]);
    assert.equal(result.code, 0);
    assert.match(result.out, /\nYour skills:\n- @search-info: The skill to use whenever/);
    assert.match(result.out, /\nYour tools:\n- @current-date: /);
    assert.match(result.out, /— ~\d+ tokens, \d+ characters; planning on \(7 skills on the menu\)/);
  });

  it("answers bad arguments with a usage message and exit 2", () => {
    for (const args of [[], ["frobnicate"], ["expand"], ["check", "--nope"], ["check", "/no/such/folder"]]) {
      const result = cli(args);
      assert.equal(result.code, 2, args.join(" "));
      assert.match(result.err, /Usage: skill-lsp <command>/);
    }
  });
});
