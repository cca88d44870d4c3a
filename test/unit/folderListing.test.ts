/**
 * The listing in two steps (FolderListing): its whole listing is exactly what the one-step walk finds, on the
 * repository's fixtures and on a tree of skill folders with links, loops, ignore rules and odd entries; its first
 * step holds each skill folder's SKILL.md before the folder is listed. The reading thread lists folders as the
 * calling thread does.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { BackgroundReader } from "../../server/src/node/backgroundReader.js";
import { listFolderEntriesSync, sharedChunkSize } from "../../server/src/node/folderEntries.js";
import { FolderListing, findWorkspaceFiles } from "../../server/src/node/workspaceFiles.js";

const REPO = path.resolve(__dirname, "../..");

function tree(): string {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-listing-"));
  const write = (relative: string, text = "# x\n") => {
    mkdirSync(path.dirname(path.join(folder, relative)), { recursive: true });
    writeFileSync(path.join(folder, relative), text);
  };
  for (let i = 0; i < 300; i++) write(`skills/s-${i}/SKILL.md`);
  write("skills/a/reference.md");
  write("skills/a/scripts/tool.py");
  write("skills/a/templates/form.md");
  write("skills/a/inner.skill.md");
  write("skills/a/more/skills/b/SKILL.md");
  write("skills/no-skill/notes.md");
  write("skills/lower/skill.md");
  write("skills/ignored/SKILL.md");
  write("skills/c/drafts/SKILL.md");
  write("skills/direct.skill.md");
  write("CLAUDE.md");
  write(".skillignore", "skills/ignored/\ndrafts/\n");
  mkdirSync(path.join(folder, "skills/dir-named/SKILL.md"), { recursive: true });
  execFileSync("mkfifo", [path.join(folder, "skills/a/pipe.md")]);
  write("outside/linked/SKILL.md");
  symlinkSync(path.join(folder, "outside/linked"), path.join(folder, "skills/linked"), "dir");
  symlinkSync(path.join(folder, "skills"), path.join(folder, "skills/a/loop"), "dir");
  symlinkSync(path.join(folder, "missing"), path.join(folder, "skills/a/broken.md"));
  symlinkSync(path.join(folder, "skills/a/reference.md"), path.join(folder, "skills/a/link.md"));
  return folder;
}

async function bothSteps(folder: string): Promise<{ first: readonly string[]; added: readonly string[]; whole: readonly string[] }> {
  const listing = new FolderListing([folder]);
  try {
    return { first: await listing.first, added: await listing.added, whole: await listing.whole };
  } finally {
    listing.close();
  }
}

test("the whole listing is what the one-step walk finds", async () => {
  const folder = tree();
  try {
    for (const root of [folder, path.join(REPO, "test/fixtures/agent-skills"), path.join(REPO, "examples")]) {
      const { whole } = await bothSteps(root);
      assert.deepEqual(whole, await findWorkspaceFiles(root), root);
    }
    const { whole } = await bothSteps(folder);
    const relative = new Set(whole.map((file) => path.relative(folder, file)));
    for (const expected of ["skills/a/reference.md", "skills/a/templates/form.md", "skills/a/inner.skill.md", "skills/a/more/skills/b/SKILL.md", "skills/no-skill/notes.md", "skills/lower/skill.md", "skills/linked/SKILL.md", "skills/a/link.md", "CLAUDE.md"]) {
      assert.ok(relative.has(expected), expected);
    }
    for (const left of ["skills/ignored/SKILL.md", "skills/c/drafts/SKILL.md", "skills/dir-named/SKILL.md", "skills/a/pipe.md", "skills/a/broken.md", "skills/no-skill/SKILL.md"]) assert.ok(!relative.has(left), left);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("the first step has each skill folder's SKILL.md, there or not, and none the rules leave out", async () => {
  const folder = tree();
  try {
    const { first, whole } = await bothSteps(folder);
    const relative = new Set(first.map((file) => path.relative(folder, file)));
    for (let i = 0; i < 300; i++) assert.ok(relative.has(`skills/s-${i}/SKILL.md`));
    assert.ok(relative.has("skills/no-skill/SKILL.md"), "a candidate: reading it answers that it is not there");
    assert.ok(relative.has("skills/direct.skill.md") && relative.has("CLAUDE.md"));
    assert.ok(!relative.has("skills/ignored/SKILL.md"));
    assert.ok(!relative.has("skills/a/reference.md"), "a skill folder's other files come with its listing");
    assert.equal(new Set(first).size, first.length, "each file once");
    const wholeFiles = new Set(whole);
    assert.deepEqual(
      first.filter((file) => !wholeFiles.has(file)).map((file) => path.relative(folder, file)).sort(),
      ["skills/a/SKILL.md", "skills/c/SKILL.md", "skills/dir-named/SKILL.md", "skills/lower/SKILL.md", "skills/no-skill/SKILL.md"],
      "the candidates that are no files: the folders without SKILL.md, and a folder named so",
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("what the second step adds is the whole listing less the first step's files", async () => {
  const folder = tree();
  try {
    for (const root of [folder, path.join(REPO, "test/fixtures/agent-skills"), path.join(REPO, "examples")]) {
      const { first, added, whole } = await bothSteps(root);
      const firstFiles = new Set(first);
      assert.deepEqual([...added].sort(), whole.filter((file) => !firstFiles.has(file)), root);
    }
    const { added } = await bothSteps(folder);
    const relative = added.map((file) => path.relative(folder, file));
    for (const expected of ["skills/a/inner.skill.md", "skills/a/more/skills/b/SKILL.md", "skills/lower/skill.md", "skills/a/reference.md"]) assert.ok(relative.includes(expected), expected);
    assert.ok(!relative.includes("skills/s-0/SKILL.md"), "a skill folder's SKILL.md was named by the first step");
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

/** True when `promise` has settled already: a turn of the event loop lets it. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

test("a first listing that editors wait for lists its skill folders on this thread, letting them by, with no reading thread started", async () => {
  const folder = tree();
  const listing = new FolderListing([folder], { turn: () => new Promise((resolve) => setImmediate(resolve)) });
  try {
    assert.equal(listing.awaited, undefined, "nobody waits yet");
    listing.hurry();
    const awaited = listing.awaited;
    assert.ok(awaited, "the whole listing is awaited once someone waits");
    await awaited;
    assert.deepEqual(await listing.whole, await findWorkspaceFiles(folder));
    assert.equal(await settled(listing.reader.whenStarted), false, "the reading thread was never started for a few hundred folders");
    assert.equal(listing.reader.online, false);
  } finally {
    listing.close();
    rmSync(folder, { recursive: true, force: true });
  }
});

test("a first listing nobody waits for lists its skill folders once the reading thread is started by the first read", async () => {
  const folder = tree();
  const listing = new FolderListing([folder], { turn: () => new Promise((resolve) => setImmediate(resolve)) });
  try {
    await listing.first;
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(await settled(listing.added), false, "the skill folders wait for the reading thread");
    assert.equal(await settled(listing.reader.whenStarted), false);
    assert.equal(listing.reader.threaded, true, "the first read starts it");
    assert.deepEqual(await listing.whole, await findWorkspaceFiles(folder));
  } finally {
    listing.close();
    rmSync(folder, { recursive: true, force: true });
  }
});

test("both threads listing together answer each chunk as one thread listing it would", async () => {
  const folder = tree();
  try {
    const folders = [...Array.from({ length: 300 }, (_, i) => `skills/s-${i}`), "skills/a", "missing", "skills/linked", "skills/a/loop"].map((relative) => path.join(folder, relative));
    const reader = new BackgroundReader(1000);
    try {
      // Online comes before the thread's script has loaded (from the TypeScript source, long before): one answer
      // says it is ready, so that it takes its share of the chunks from the start.
      await reader.list(folders.slice(0, 1));
      const chunks = await reader.listTogether(folders);
      assert.deepEqual(chunks.map(({ from }) => from), Array.from({ length: chunks.length }, (_, i) => i * sharedChunkSize(folders.length)), "every chunk, in order");
      assert.equal(chunks.at(-1)?.to, folders.length);
      for (const { from, to, entries } of chunks) assert.deepEqual(entries, listFolderEntriesSync(folders.slice(from, to)), `folders ${from} to ${to}`);
      const relatives = folders.map((one) => path.relative(folder, one).split(path.sep).join("/"));
      const trees = { ignore: "drafts/\n", relatives };
      for (const { from, to, entries } of await reader.listTogether(folders, trees)) {
        assert.deepEqual(entries, listFolderEntriesSync(folders.slice(from, to), { ignore: trees.ignore, relatives: relatives.slice(from, to) }), `the trees of folders ${from} to ${to}`);
      }
    } finally {
      reader.close();
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("a listing made alone starts the reading thread only when the rest is worth it, and answers as one thread would", async () => {
  const folder = tree();
  try {
    const folders = [...Array.from({ length: 300 }, (_, i) => `skills/s-${i}`), "skills/a", "missing", "skills/linked"].map((relative) => path.join(folder, relative));
    const expected = (from: number, to: number) => listFolderEntriesSync(folders.slice(from, to));
    // Slices of one chunk: the rest is weighed after every chunk.
    const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
    for (const [threadWorthMs, started] of [[Number.POSITIVE_INFINITY, false], [-1, true]] as const) {
      const reader = new BackgroundReader(1000);
      try {
        const chunks = await reader.listTogether(folders, undefined, { turn, threadWorthMs, sliceMs: 0 });
        for (const { from, to, entries } of chunks) assert.deepEqual(entries, expected(from, to), `folders ${from} to ${to}`);
        assert.equal(chunks.at(-1)?.to, folders.length);
        assert.equal(await settled(reader.whenStarted), started, `the thread ${started ? "was" : "was not"} started when the rest must take over ${threadWorthMs} ms`);
      } finally {
        reader.close();
      }
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("the reading thread lists folders as the calling thread does", async () => {
  const folder = tree();
  try {
    const folders = ["skills/a", "skills", "missing", "skills/a/scripts", "skills/linked"].map((relative) => path.join(folder, relative));
    const reader = new BackgroundReader(1000);
    try {
      assert.equal(reader.threaded, true, "the thread started");
      const listed = await reader.list(folders);
      assert.deepEqual(listed, listFolderEntriesSync(folders));
      assert.equal(listed.counts[2], -1, "a missing folder");
      // With the trees below them: every plain folder the rules keep, none behind a link.
      const trees = { ignore: "drafts/\n", relatives: ["skills/a", "skills", "missing", "skills/a/scripts", "skills/linked"] };
      const below = await reader.list(folders, trees);
      assert.deepEqual(below, listFolderEntriesSync(folders, trees));
      const inside = (record: number): string => (below.within?.[record] ?? -1) < 0 ? "" : `${inside(below.within?.[record] ?? -1)}/${below.folderNames?.[record] ?? ""}`;
      const listedBelow = (below.folderNames ?? []).map((_, record) => inside(record)).filter((name) => name !== "");
      for (const expected of ["/scripts", "/templates", "/more", "/more/skills", "/more/skills/b", "/s-0"]) assert.ok(listedBelow.includes(expected), expected);
      assert.ok(!listedBelow.some((name) => name.endsWith("/drafts")), "a folder the rules leave out is not gone into");
      assert.ok(!listedBelow.some((name) => name.endsWith("/loop")), "nor one behind a link");
    } finally {
      reader.close();
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("a listing closed after its first step lists no folder more: what it adds is what was listed by then", async () => {
  const folder = tree();
  try {
    const listing = new FolderListing([folder]);
    const first = await listing.first;
    listing.close();
    assert.deepEqual(await listing.added, []);
    const named = new Set(first);
    assert.deepEqual((await listing.whole).filter((file) => !named.has(file)), [], "nothing beyond the first step");
    // Left open, the same listing adds what the skill folders hold besides their SKILL.md.
    const { added } = await bothSteps(folder);
    assert.ok(added.some((file) => file.endsWith("reference.md")), added.join(", "));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
