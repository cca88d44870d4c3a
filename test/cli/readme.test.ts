/** The README's generated parts are current: the commands table from package.json, the VSIX's size from the build. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";

const REPO = path.resolve(__dirname, "../..");
const readme = () => readFileSync(path.join(REPO, "README.md"), "utf8");
const manifest = () => JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as {
  version: string;
  contributes: { commands: { command: string; title: string; category: string }[]; configuration: { properties: Record<string, unknown> } };
};

interface ReadmeScript {
  render(readme: string, manifest: unknown, vsixBytes?: Readonly<Record<string, number>>): string;
  vsixSize(bytes: number): string;
}
const script = () => import(path.join(REPO, "scripts/readme.mjs")) as Promise<ReadmeScript>;

describe("README.md", () => {
  it("is what npm run readme writes (node scripts/readme.mjs --check)", () => {
    const result = spawnSync(process.execPath, ["scripts/readme.mjs", "--check"], { cwd: REPO, encoding: "utf8" });
    assert.equal(result.status, 0, result.stderr);
  });

  it("lists every contributed command, and a stale table is rewritten", async () => {
    const text = readme();
    for (const command of manifest().contributes.commands) assert.ok(text.includes(`| *${command.category}: ${command.title}* | \`${command.command}\` |`), command.command);
    const { render } = await script();
    const stale = text.replace(/\| \*Skill: Share Skill…\*[^\n]*\n/, "");
    assert.notEqual(stale, text);
    assert.equal(render(stale, manifest()), text);
  });

  it("names every setting in its settings table", () => {
    const text = readme();
    for (const key of Object.keys(manifest().contributes.configuration.properties)) assert.ok(text.includes(`\`${key}\``), key);
  });

  it("states the size of each VSIX npm run package built", async () => {
    const { render, vsixSize } = await script();
    assert.equal(vsixSize(12.7 * 1024 * 1024), "12.7 MB");
    const file = `skill-lsp-linux-x64-${manifest().version}.vsix`;
    assert.match(render(readme(), manifest(), { [file]: 5 * 1024 * 1024 }), new RegExp(`^\\| \`${file.replace(/\./g, "\\.")}\` \\| linux-x64 \\| 5\\.0 MB \\|$`, "m"));
    const built = path.join(REPO, file);
    if (!existsSync(built)) {
      // A clean checkout has none yet: build the one for this platform, as npm run package does, README untouched.
      const run = spawnSync(process.execPath, ["scripts/package.mjs", "--target", "linux-x64", "--no-readme"], { cwd: REPO, encoding: "utf8", timeout: 300_000 });
      assert.equal(run.status, 0, run.stderr);
    }
    assert.ok(readme().includes(`| \`${file}\` | linux-x64 | ${vsixSize(statSync(built).size)} |`), "run npm run package: it writes the sizes");
  });
});
