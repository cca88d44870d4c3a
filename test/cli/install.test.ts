/**
 * A user's install and a developer's test run are quiet: no dependency asks for a newer Node than this one
 * (npm's EBADENGINE warning), `npm start` does not install a browser driver, the benchmark's peer lives in
 * its own cache.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";

const REPO = path.resolve(__dirname, "../..");

/** Whether a version satisfies an npm `engines` range (the comparator forms the lockfile uses). */
function satisfies(version: string, range: string): boolean {
  const parse = (text: string) => text.replace(/^v/, "").split(".").map((part) => (part === "*" || part === "x" || part === "" ? undefined : Number(part)));
  const [major = 0, minor = 0, patch = 0] = parse(version) as number[];
  const compare = (other: (number | undefined)[]) => {
    const parts = [major, minor, patch];
    for (let i = 0; i < 3; i++) {
      const wanted = other[i];
      if (wanted === undefined) return 0;
      if (parts[i] !== wanted) return (parts[i] ?? 0) < wanted ? -1 : 1;
    }
    return 0;
  };
  return range.split("||").some((alternative) =>
    alternative
      .trim()
      .replace(/([<>=^~]+)\s+/g, "$1")
      .split(/\s+/)
      .filter(Boolean)
      .every((comparator) => {
        const [, operator = "", rest = ""] = /^([<>=^~]*)(.*)$/.exec(comparator) ?? [];
        const target = parse(rest);
        const order = compare(target);
        switch (operator) {
          case ">=": return order >= 0;
          case ">": return order > 0;
          case "<=": return order <= 0;
          case "<": return order < 0;
          case "^": return target[0] === major && order >= 0;
          case "~": return target[0] === major && (target[1] === undefined || target[1] === minor) && order >= 0;
          default: return rest === "*" || order === 0;
        }
      }),
  );
}

describe("install and test noise", () => {
  it("no package in the lockfile asks for a newer Node than this one (no EBADENGINE on npm install)", () => {
    assert.equal(satisfies("20.20.2", ">=22"), false);
    assert.equal(satisfies("20.20.2", "^20.17.0 || >=22.9.0"), true);
    const lock = JSON.parse(readFileSync(path.join(REPO, "package-lock.json"), "utf8")) as { packages: Record<string, { engines?: { node?: string } }> };
    const demanding = Object.entries(lock.packages).filter(([, entry]) => entry.engines?.node !== undefined && !satisfies(process.versions.node, entry.engines.node));
    assert.deepEqual(demanding.map(([name, entry]) => `${name} wants node ${entry.engines?.node}`), []);
  });

  it("the benchmark's peer is no dependency of the extension; the bench installs it into its own cache", () => {
    const manifest = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    assert.equal(manifest.devDependencies["vscode-markdown-languageserver"], undefined);
    assert.equal(manifest.dependencies["vscode-markdown-languageserver"], undefined);
    assert.match(readFileSync(path.join(REPO, "bench/markdown.ts"), "utf8"), /SKILL_LSP_PEER_CACHE/);
  });

  it("npm start's install of VS Code leaves playwright-core out", { skip: existsSync("/work/main/.vscode-test") || process.env.SKILL_LSP_VSCODE_CACHE ? false : "no VS Code cache here" }, () => {
    const shared = path.resolve(process.env.SKILL_LSP_VSCODE_CACHE ?? "/work/main/.vscode-test");
    const parts = readdirSync(shared).filter((name) => /^(node|code-server)-/.test(name));
    if (parts.length < 2) return;
    // A cache that has VS Code and Node but no playwright-core: the install must not add it.
    const cache = mkdtempSync(path.join(tmpdir(), "skill-vscode-cache-"));
    try {
      for (const part of parts) symlinkSync(path.join(shared, part), path.join(cache, part));
      const script = `import("${path.join(REPO, "scripts/vscode-server.mjs")}").then(async (m) => { const install = await m.ensureVsCodeServer({ browser: false }); console.log(JSON.stringify(install.playwrightDir ?? null)); })`;
      const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, SKILL_LSP_VSCODE_CACHE: cache }, encoding: "utf8", timeout: 60_000 });
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout.trim(), "null");
      assert.deepEqual(readdirSync(cache).filter((name) => name.startsWith("playwright")), []);
      assert.match(readFileSync(path.join(REPO, "scripts/start.mjs"), "utf8"), /ensureVsCodeServer\(\{ browser: false \}\)/);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

});
