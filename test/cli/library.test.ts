/**
 * A round trip over a library shaped like the public ones (test/fixtures/skill-library: scripts/, references/,
 * assets/, LICENSE.txt, nested folders, a binary file, an executable, CRLF with a BOM, a description past the
 * format's limit, a symbolic link, `@` in code and in the description): import, check, import again, then
 * export --agent-skills and through a bundle, compared byte for byte and mode for mode. Then the batch rules
 * and the one-line refusals.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { capture } from "./capture.js";

const LIBRARY = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "skill-library");
const SKILLS = ["field-notes", "linked", "long-description", "windows-notes"];

let root = "";

/** Every entry below a folder: a file's sha256 and executable bit, or a link's target. */
async function tree(folder: string): Promise<Record<string, string>> {
  const entries: Record<string, string> = {};
  const walk = async (dir: string) => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const key = path.relative(folder, full).split(path.sep).join("/");
      if (entry.isSymbolicLink()) entries[key] = `link → ${await fs.readlink(full)}`;
      else if (entry.isDirectory()) await walk(full);
      else entries[key] = `${createHash("sha256").update(await fs.readFile(full)).digest("hex")} ${(await fs.stat(full)).mode & 0o111 ? "x" : "-"}`;
    }
  };
  await walk(folder);
  return entries;
}

/** The library as an export gives it back: its skill folders, without the link that never travels. */
async function expected(): Promise<Record<string, string>> {
  const source = await tree(LIBRARY);
  return Object.fromEntries(Object.entries(source).filter(([key, value]) => key !== "README.md" && !value.startsWith("link")));
}

before(async () => {
  root = await fs.mkdtemp(path.join(tmpdir(), "skill-library-"));
});

after(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe("a library's round trip", () => {
  test("import, check, import again, export: the same bytes and modes, the link named as left out", async () => {
    const ws = path.join(root, "ws");
    const imported = await capture(["import", LIBRARY, "--folder", ws, "--yes"]);
    assert.equal(imported.code, 0, imported.err);
    assert.match(imported.out, /Import @field-notes: 4 skills, 4 to create, 0 already here\./);
    assert.match(imported.out, /with 5 files of its folder: LICENSE\.txt, assets\/logo\.png, references\/deep\/more\.md, references\/glossary\.md, scripts\/tally\.py \(executable\)/);
    assert.match(imported.out, /left out: elsewhere\.txt \(a symbolic link: links are never followed\)/);
    assert.doesNotMatch(imported.out, /names nothing here/, "nothing in code, a URL, a path or a scope is escaped");
    assert.match(imported.out, /note: @long-description: the description has 1,199 characters; the Agent Skills format allows 1,024\. It is written whole, not cut/);

    // The imported skills are quiet: no false reference, no unknown key, no missing summary.
    const check = await capture(["check", ws]);
    assert.equal(check.code, 0, check.out + check.err);
    assert.equal(check.out, "");

    const before = await tree(ws);
    const again = await capture(["import", LIBRARY, "--folder", ws, "--yes"]);
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /0 to create, 4 already here/);
    assert.match(again.out, /Nothing to write: every skill is already here\./);
    assert.deepEqual(await tree(ws), before);

    const out = path.join(root, "out");
    for (const skill of SKILLS) {
      const exported = await capture(["export", `@${skill}`, "--folder", ws, "--agent-skills", out]);
      assert.equal(exported.code, 0, exported.err);
      if (skill === "long-description") assert.match(exported.out, /the description has 1,199 characters; the Agent Skills format allows 1,024\. It is written whole, not cut/);
    }
    assert.deepEqual(await tree(out), await expected());
  });

  test("through a bundle file: the files travel with their sha256 and mode, and come back the same", async () => {
    const ws = path.join(root, "ws-bundle");
    assert.equal((await capture(["import", LIBRARY, "--folder", ws, "--yes"])).code, 0);
    const bundle = path.join(root, "field-notes.skillbundle.json");
    const exported = await capture(["export", "@field-notes", "--folder", ws, "--out", bundle]);
    assert.equal(exported.code, 0, exported.err);
    assert.match(exported.out, /\(1 skill, 5 files of their folders\)/);
    const json = JSON.parse(await fs.readFile(bundle, "utf8")) as { skills: { files: { path: string; mode: string; sha256: string }[] }[] };
    assert.deepEqual(json.skills[0]?.files.map((file) => [file.path, file.mode]), [["LICENSE.txt", "644"], ["assets/logo.png", "644"], ["references/deep/more.md", "644"], ["references/glossary.md", "644"], ["scripts/tally.py", "755"]]);

    const elsewhere = path.join(root, "elsewhere");
    const imported = await capture(["import", bundle, "--folder", elsewhere, "--yes"]);
    assert.equal(imported.code, 0, imported.err);
    const out = path.join(root, "out-bundle");
    assert.equal((await capture(["export", "@field-notes", "--folder", elsewhere, "--agent-skills", out])).code, 0);
    const want = Object.fromEntries(Object.entries(await expected()).filter(([key]) => key.startsWith("field-notes/")));
    assert.deepEqual(await tree(out), want);
  });
});

describe("batches and refusals", () => {
  test("every bad folder is named at once and nothing is written; --skip-invalid imports the others", async () => {
    const batch = path.join(root, "batch");
    await fs.cp(path.join(LIBRARY, "field-notes"), path.join(batch, "field-notes"), { recursive: true });
    await fs.mkdir(path.join(batch, "Bad_Name"), { recursive: true });
    await fs.writeFile(path.join(batch, "Bad_Name", "SKILL.md"), "---\nname: Bad_Name\ndescription: d\n---\n");
    await fs.mkdir(path.join(batch, "no-description"), { recursive: true });
    await fs.writeFile(path.join(batch, "no-description", "SKILL.md"), "---\nname: no-description\n---\nBody.\n");
    await fs.mkdir(path.join(batch, "linked-skill"), { recursive: true });
    await fs.symlink(path.join(LIBRARY, "linked", "SKILL.md"), path.join(batch, "linked-skill", "SKILL.md"));

    const target = path.join(root, "batch-target");
    const refused = await capture(["import", batch, "--folder", target, "--yes"]);
    assert.equal(refused.code, 1);
    const lines = refused.err.split("\n");
    assert.match(lines[0] ?? "", /^skill-lsp: 3 folders cannot be imported \(nothing was read; --skip-invalid imports the others\):$/);
    assert.equal(lines.length, 4, refused.err);
    assert.match(refused.err, /Bad_Name\/ is not a valid Agent Skills name/);
    assert.match(refused.err, /no-description\/SKILL\.md has no description/);
    assert.match(refused.err, /linked-skill\/SKILL\.md is a symbolic link/);
    await assert.rejects(fs.stat(target));

    const skipped = await capture(["import", batch, "--folder", target, "--yes", "--skip-invalid"]);
    assert.equal(skipped.code, 0, skipped.err);
    assert.equal(skipped.out.split("\n").filter((line) => line.startsWith("Skipped (--skip-invalid): ")).length, 3);
    assert.deepEqual(Object.keys(await tree(target)).filter((key) => key.endsWith(".skill.md")), ["field-notes/field-notes.skill.md"]);
  });

  test("a plain file where an export's folder goes is refused in one line; nothing is written", async () => {
    const ws = path.join(root, "ws-refuse");
    assert.equal((await capture(["import", LIBRARY, "--folder", ws, "--yes"])).code, 0);
    const out = path.join(root, "blocked");
    await fs.mkdir(out, { recursive: true });
    await fs.writeFile(path.join(out, "field-notes"), "a file, not a folder\n");
    const result = await capture(["export", "@field-notes", "--folder", ws, "--agent-skills", out]);
    assert.equal(result.code, 1);
    assert.equal(result.err.split("\n").length, 1, result.err);
    assert.match(result.err, /^skill-lsp: .*field-notes is a file, not a folder/);
    assert.deepEqual(Object.keys(await tree(out)), ["field-notes"]);

    const blockedFile = path.join(root, "a-file");
    await fs.writeFile(blockedFile, "x");
    const intoFile = await capture(["export", "@field-notes", "--folder", ws, "--agent-skills", blockedFile]);
    assert.equal(intoFile.code, 1);
    assert.match(intoFile.err, /^skill-lsp: .* is a file, not a folder: export to a folder\.$/);
  });

  test("an import where a plain file blocks a skill's folder is refused in one line, and nothing is left behind", async () => {
    const target = path.join(root, "import-blocked");
    await fs.mkdir(target, { recursive: true });
    await fs.writeFile(path.join(target, "field-notes"), "a file\n");
    const result = await capture(["import", path.join(LIBRARY, "field-notes"), "--folder", target, "--yes"]);
    assert.equal(result.code, 1);
    assert.equal(result.err.split("\n").length, 1, result.err);
    assert.match(result.err, /^skill-lsp: Nothing was written: /);
    assert.deepEqual(await fs.readdir(target), ["field-notes"]);
  });
});
