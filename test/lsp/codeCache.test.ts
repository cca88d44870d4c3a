/**
 * dist/server.js runs the bundle from V8's code cache: the first start writes the cache, the next one reads it,
 * and a cache that is damaged, or made for another bundle, is replaced rather than trusted. Each start is a
 * real server over stdio, asked for its diagnostics.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { REPO, SERVER } from "./harness.js";

const cache = mkdtempSync(path.join(tmpdir(), "skill-lsp-code-cache-"));
after(() => rmSync(cache, { recursive: true, force: true }));

/** `skill-lsp check` on the examples through dist/server.js with this cache folder: its exit code and output. */
function check(): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [SERVER, "check", "--format", "json", path.join(REPO, "examples")], { env: { ...process.env, SKILL_LSP_CODE_CACHE: cache }, encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const caches = () => readdirSync(cache).filter((name) => name.endsWith(".bin"));

test("the first start writes the code cache, and later starts answer the same from it", () => {
  const plain = spawnSync(process.execPath, [path.join(REPO, "dist/server-bundle.js"), "check", "--format", "json", path.join(REPO, "examples")], { encoding: "utf8" });
  const first = check();
  assert.equal(first.stderr, "");
  assert.equal(first.status, plain.status);
  assert.equal(first.stdout, plain.stdout);
  assert.equal(caches().length, 1, "one cache for this bundle and this runtime");
  const written = readFileSync(path.join(cache, caches()[0] ?? ""));
  assert.ok(written.length > 10_000, `a cache of ${written.length} bytes`);
  const second = check();
  assert.equal(second.stdout, plain.stdout);
  assert.deepEqual(caches().length, 1);
});

test("a damaged cache is not trusted: the server still answers, and the cache is written again", () => {
  check();
  const file = path.join(cache, caches()[0] ?? "");
  writeFileSync(file, Buffer.from("not a code cache at all, just bytes"));
  const damaged = check();
  assert.equal(damaged.stderr, "");
  assert.match(damaged.stdout, /^[[{]/);
  assert.ok(readFileSync(file).length > 10_000, "the damaged cache was replaced");
});

test("a cache of an older bundle at the same path is removed when the new one is written", () => {
  check();
  const current = caches()[0] ?? "";
  const [pathPart] = current.split("-");
  const stale = `${pathPart}-0000000000000000-0000000000000000.bin`;
  writeFileSync(path.join(cache, stale), Buffer.from("old"));
  rmSync(path.join(cache, current));
  check();
  assert.deepEqual(caches(), [current]);
});
