/**
 * The bundle verbs of the command line, run through `runCli` on a temp copy of `examples/`: export, the
 * review that writes nothing, import with --yes, Agent Skills folders, refusals with exit 1, and the
 * all-or-nothing write underneath.
 */
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { bundleText, sha256Hex, type Bundle, type ImportPlan } from "../../server/src/core/bundle.js";
import { Namespace } from "../../server/src/core/index.js";
import { applyImportPlan, createFilesAtomically, readBundleFile, WriteRolledBack } from "../../server/src/node/bundleFiles.js";
import { loadFolders, uriFromPath } from "../../server/src/node/workspaceFiles.js";
import { capture, type Run } from "./capture.js";

const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

let root = "";
let ws = "";

function run(...args: string[]): Promise<Run> {
  return capture(args);
}

/** Every file below a folder, by relative path, with its text: a tree to compare before and after. */
async function snapshot(folder: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (dir: string) => {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else files[path.relative(folder, full)] = await fs.readFile(full, "utf8");
    }
  };
  await walk(folder);
  return files;
}

async function fresh(name: string): Promise<string> {
  const dir = path.join(root, name);
  await fs.rm(dir, { recursive: true, force: true });
  return dir;
}

function bundleOf(skills: Readonly<Record<string, string>>, tools: Readonly<Record<string, string>> = {}): Bundle {
  const entries = Object.entries(skills);
  return {
    format: "skill-bundle",
    version: 1,
    root: entries[0]?.[0] ?? "",
    skills: entries.map(([handle, text]) => ({ handle, text, sha256: sha256Hex(text) })),
    tools: Object.entries(tools).map(([slug, name]) => ({ slug, name })),
  };
}

before(async () => {
  root = await fs.mkdtemp(path.join(tmpdir(), "skill-bundle-cli-"));
  ws = path.join(root, "ws");
  await fs.cp(path.join(REPO, "examples"), ws, { recursive: true });
});

after(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe("export", () => {
  test("writes the skill and its closure to one bundle file", async () => {
    const out = path.join(root, "out", "mp.skillbundle.json");
    const result = await run("export", "@meeting-prep", "--folder", ws, "--out", out);
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /@meeting-prep, @check-schedule, @search-info, @fetch-file \(4 skills\)/);
    assert.match(result.out, /Tools not shipped.*@calendar \(queryCalendar\)/);
    const bundle = await readBundleFile(out);
    assert.ok(!("refused" in bundle));
    assert.deepEqual(bundle.skills.map((skill) => skill.handle), ["meeting-prep", "check-schedule", "search-info", "fetch-file"]);
    assert.equal(await fs.readFile(out, "utf8"), bundleText(bundle));
  });

  test("refuses a tool and an unknown handle with exit 1; a missing handle is a usage error", async () => {
    const tool = await run("export", "@calendar", "--folder", ws, "--out", path.join(root, "never.json"));
    assert.equal(tool.code, 1);
    assert.match(tool.err, /only skills can be shared/);
    const unknown = await run("export", "@nothing-here", "--folder", ws, "--out", path.join(root, "never.json"));
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /No skill is named @nothing-here/);
    assert.equal((await run("export", "--folder", ws)).code, 2);
    assert.equal((await run("export", "@a", "--bogus")).code, 2);
    assert.equal((await run("frobnicate")).code, 2);
    await assert.rejects(fs.stat(path.join(root, "never.json")));
  });
});

describe("import", () => {
  let bundleFile = "";
  before(async () => {
    bundleFile = path.join(root, "plan-trip.skillbundle.json");
    assert.equal((await run("export", "plan-trip", "--folder", ws, "--out", bundleFile)).code, 0);
  });

  test("without --yes prints the review and writes nothing", async () => {
    const target = await fresh("review");
    const result = await run("import", bundleFile, "--folder", target);
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /Import @plan-trip: 4 skills, 4 to create, 0 already here\./);
    assert.match(result.out, /\+ @plan-trip: new file/);
    assert.match(result.out, /@calendar \(queryCalendar\): here/);
    assert.match(result.out, /Nothing was written\. Run again with --yes to create 4 files\./);
    await assert.rejects(fs.stat(target), "the target folder was not even created");
  });

  test("with --yes creates files identical to the exported ones; a second import creates nothing", async () => {
    const target = await fresh("yes");
    const result = await run("import", bundleFile, "--folder", target, "--yes");
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /Created 4 files/);
    const written = await snapshot(target);
    assert.deepEqual(Object.keys(written).sort(), ["check-schedule.skill.md", "fetch-file.skill.md", "plan-trip.skill.md", "search-info.skill.md"]);
    const originals = await snapshot(ws);
    for (const [name, text] of Object.entries(written)) {
      const original = Object.entries(originals).find(([file]) => path.basename(file) === name);
      assert.equal(text, original?.[1], name);
    }
    const again = await run("import", bundleFile, "--folder", target, "--yes");
    assert.equal(again.code, 0);
    assert.match(again.out, /Nothing to write: every skill is already here\./);
    assert.deepEqual(await snapshot(target), written);
  });

  test("into the workspace it came from, every skill is reused and nothing changes", async () => {
    const before = await snapshot(ws);
    const result = await run("import", bundleFile, "--folder", ws, "--yes");
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /0 to create, 4 already here/);
    assert.deepEqual(await snapshot(ws), before);
  });

  test("a skill named like a tool is re-slugged and the bundle's mentions follow it", async () => {
    const target = await fresh("reslug");
    await fs.cp(ws, target, { recursive: true });
    const file = path.join(root, "calendar.skillbundle.json");
    await fs.writeFile(file, bundleText(bundleOf({ "plan-week": "---\nsummary: Plan the week.\n---\nRead @calendar first.\n", calendar: "---\nsummary: A diary.\n---\nUse @current-date.\n" }, { "current-date": "current_date" })));
    const result = await run("import", file, "--folder", target, "--yes");
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /@calendar → @calendar-2: new file .* \(@calendar is taken here by the tool queryCalendar\)/);
    assert.match(result.out, /4:6 @calendar → @calendar-2/);
    assert.equal(await fs.readFile(path.join(target, "plan-week.skill.md"), "utf8"), "---\nsummary: Plan the week.\n---\nRead @calendar-2 first.\n");
    const namespace = new Namespace();
    await loadFolders(namespace, [target]);
    for (const name of ["plan-week", "calendar-2"]) assert.deepEqual(namespace.diagnose(uriFromPath(path.join(target, `${name}.skill.md`))), [], name);
  });

  const malformed: [string, string, RegExp][] = [
    ["malformed JSON", "{ \"format\": \"skill-bundle\", ", /not valid JSON/],
    ["an unknown version", JSON.stringify({ ...bundleOf({ a: "A." }), version: 9 }), /version 9; this editor reads version 1/],
    ["a handle that escapes the folder", JSON.stringify({ ...bundleOf({ a: "A." }), root: "../a", skills: [{ handle: "../a", text: "A.", sha256: sha256Hex("A.") }] }), /would write outside the target folder/],
    ["duplicate handles", JSON.stringify({ ...bundleOf({ a: "A." }), skills: [...bundleOf({ a: "A." }).skills, ...bundleOf({ a: "A." }).skills] }), /appears twice/],
    ["a text that is not a string", JSON.stringify({ ...bundleOf({ a: "A." }), skills: [{ handle: "a", text: { run: "x" }, sha256: sha256Hex("A.") }] }), /is not a string/],
    ["a hash that does not match", JSON.stringify({ ...bundleOf({ a: "A." }), skills: [{ handle: "a", text: "B.", sha256: sha256Hex("A.") }] }), /does not match its sha256/],
    ["bytes that are not UTF-8", "\u00ff", /not UTF-8/],
  ];
  for (const [name, text, message] of malformed) {
    test(`refuses ${name} with exit 1 and writes nothing`, async () => {
      const target = await fresh("refused");
      await fs.mkdir(target);
      const file = path.join(root, "bad.skillbundle.json");
      await fs.writeFile(file, text === "\u00ff" ? Buffer.from([0xff, 0xfe, 0x00]) : text);
      const result = await run("import", file, "--folder", target, "--yes");
      assert.equal(result.code, 1);
      assert.match(result.err, message);
      assert.deepEqual(await fs.readdir(target), []);
    });
  }

  test("refuses an oversize file without reading it", async () => {
    const file = path.join(root, "huge.skillbundle.json");
    await fs.writeFile(file, Buffer.alloc(16 * 1024 * 1024 + 1, 0x20));
    const target = await fresh("huge");
    const result = await run("import", file, "--folder", target, "--yes");
    assert.equal(result.code, 1);
    assert.match(result.err, /16\.0 MB; at most 16\.0 MB is read/);
    await assert.rejects(fs.stat(target));
  });

  test("refuses a source that does not exist", async () => {
    const result = await run("import", path.join(root, "nope.skillbundle.json"), "--folder", ws);
    assert.equal(result.code, 1);
    assert.match(result.err, /does not exist/);
  });
});

describe("Agent Skills folders", () => {
  test("export writes <name>/SKILL.md per skill; import reads them back, reviewed first", async () => {
    const agents = await fresh("agents");
    const exported = await run("export", "@search-info", "--folder", ws, "--agent-skills", agents);
    assert.equal(exported.code, 0, exported.err);
    assert.match(exported.out, /Wrote 2 Agent Skills folders/);
    const tree = await snapshot(agents);
    assert.deepEqual(Object.keys(tree).sort(), [path.join("fetch-file", "SKILL.md"), path.join("search-info", "SKILL.md")]);
    assert.match(tree[path.join("search-info", "SKILL.md")] ?? "", /^---\nname: search-info\ndescription: The skill to use whenever/);

    const again = await run("export", "@search-info", "--folder", ws, "--agent-skills", agents);
    assert.match(again.out, /Wrote 2 Agent Skills folders .*, 0 files \(2 already there with the same bytes\)/);

    const target = await fresh("from-agents");
    const review = await run("import", agents, "--folder", target);
    assert.equal(review.code, 0, review.err);
    assert.match(review.out, /Import @search-info: 2 skills, 2 to create/);
    await assert.rejects(fs.stat(target));
    const imported = await run("import", agents, "--folder", target, "--yes");
    assert.equal(imported.code, 0, imported.err);
    assert.deepEqual(Object.keys(await snapshot(target)).sort(), ["fetch-file.skill.md", "search-info.skill.md"]);
    const reused = await run("import", agents, "--folder", ws);
    assert.match(reused.out, /0 to create, 2 already here/);
  });

  test("one skill folder comes with its files and keys, as they were, the executable bit kept", async () => {
    const folder = path.join(await fresh("one-agent"), "pdf-tools");
    await fs.mkdir(folder, { recursive: true });
    const text = "---\nname: pdf-tools\ndescription: Extract text from PDFs.\nlicense: MIT\n---\nRun the script.\n";
    await fs.writeFile(path.join(folder, "SKILL.md"), text);
    await fs.writeFile(path.join(folder, "run.sh"), "#!/bin/sh\nexit 1\n", { mode: 0o755 });
    await fs.chmod(path.join(folder, "run.sh"), 0o755);
    const target = await fresh("one-agent-target");
    const result = await run("import", folder, "--folder", target, "--yes");
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /with 1 file of its folder: run\.sh \(executable\)/);
    assert.deepEqual(await snapshot(target), { [path.join("pdf-tools", "pdf-tools.skill.md")]: text, [path.join("pdf-tools", "run.sh")]: "#!/bin/sh\nexit 1\n" });
    assert.equal((await fs.stat(path.join(target, "pdf-tools", "run.sh"))).mode & 0o777, 0o755);
  });

  test("a SKILL.md whose name is not its folder's is refused with exit 1", async () => {
    const folder = path.join(await fresh("bad-agent"), "pdf");
    await fs.mkdir(folder, { recursive: true });
    await fs.writeFile(path.join(folder, "SKILL.md"), "---\nname: pdf-tools\ndescription: d\n---\n");
    const result = await run("import", folder, "--folder", await fresh("bad-agent-target"), "--yes");
    assert.equal(result.code, 1);
    assert.match(result.err, /its folder is pdf\//);
  });

  test("an export that would overwrite a different SKILL.md is refused, and nothing is written", async () => {
    const agents = await fresh("conflict");
    await fs.mkdir(path.join(agents, "fetch-file"), { recursive: true });
    await fs.writeFile(path.join(agents, "fetch-file", "SKILL.md"), "someone's edits\n");
    const result = await run("export", "@search-info", "--folder", ws, "--agent-skills", agents);
    assert.equal(result.code, 1);
    assert.match(result.err, /exists and differs/);
    assert.deepEqual(await snapshot(agents), { [path.join("fetch-file", "SKILL.md")]: "someone's edits\n" });
  });
});

describe("writing is all or nothing", () => {
  const planFor = (folder: string, names: readonly string[]): ImportPlan => ({
    folder: `${uriFromPath(folder)}/`,
    review: { root: "a", skills: [], tools: [], missingTools: [] },
    files: names.map((name) => ({ uri: uriFromPath(path.join(folder, name)), text: `${name}\n` })),
  });

  test("a failure after some files are in place removes them, the temp files and the new folder", async () => {
    const target = path.join(await fresh("atomic"), "deep", "in");
    // The same path twice: the second placement fails after the first succeeded.
    await assert.rejects(applyImportPlan(planFor(target, ["a.skill.md", "b.skill.md", "a.skill.md"])), WriteRolledBack);
    await assert.rejects(fs.stat(path.join(root, "atomic", "deep")), "every folder the write made is gone");
  });

  test("an existing file is never replaced", async () => {
    const target = await fresh("existing");
    await fs.mkdir(target);
    await fs.writeFile(path.join(target, "b.skill.md"), "mine\n");
    await assert.rejects(applyImportPlan(planFor(target, ["a.skill.md", "b.skill.md"])), /already exists/);
    assert.deepEqual(await snapshot(target), { "b.skill.md": "mine\n" });
  });

  test("a plan that points outside its folder is refused before anything is written", async () => {
    const target = await fresh("outside");
    const plan = planFor(target, ["a.skill.md"]);
    const forged: ImportPlan = { ...plan, files: [...plan.files, { uri: uriFromPath(path.join(root, "escaped.skill.md")), text: "x" }] };
    await assert.rejects(applyImportPlan(forged), /is not inside/);
    await assert.rejects(fs.stat(target));
    await assert.rejects(fs.stat(path.join(root, "escaped.skill.md")));
  });

  test("createFilesAtomically writes every file when nothing fails", async () => {
    const target = await fresh("ok");
    await createFilesAtomically([{ path: path.join(target, "x", "a.md"), text: "A" }, { path: path.join(target, "b.md"), text: "B" }]);
    assert.deepEqual(await snapshot(target), { [path.join("x", "a.md")]: "A", "b.md": "B" });
  });
});
