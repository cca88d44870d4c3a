/**
 * The first index's reading thread: every file's bytes come back in the order asked, batch after batch, the
 * same bytes the main thread reads itself, with the same limits (a file past the limit cut one byte past it;
 * a folder, a named pipe, a missing file: nothing), whether the thread runs or not.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { BackgroundReader } from "../../server/src/node/backgroundReader.js";
import { filesOfBatch, readFileBatchSync, readFileBytesSync } from "../../server/src/node/fileBytes.js";

function fixture(): { folder: string; paths: string[] } {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-reader-"));
  const paths: string[] = [];
  // Sizes that differ from batch to batch, so a buffer handed back is sometimes too small for the next batch.
  for (let i = 0; i < 700; i++) {
    const file = path.join(folder, `file-${i}.skill.md`);
    writeFileSync(file, `---\nsummary: file ${i} ${"é".repeat(i % 7)}\n---\n${"word ".repeat(((i * 37) % 500) + (i > 400 ? 900 : 0))}\n`);
    paths.push(file);
  }
  mkdirSync(path.join(folder, "a-folder.skill.md"));
  execFileSync("mkfifo", [path.join(folder, "a-pipe.skill.md")]);
  writeFileSync(path.join(folder, "large.skill.md"), "x".repeat(5000));
  paths.splice(5, 0, path.join(folder, "a-folder.skill.md"));
  paths.splice(200, 0, path.join(folder, "a-pipe.skill.md"));
  paths.splice(300, 0, path.join(folder, "missing.skill.md"));
  paths.splice(650, 0, path.join(folder, "large.skill.md"));
  return { folder, paths };
}

/** What the reader gives for each path, decoded while its batch is current (a batch's buffer is read into again later). */
async function readAll(reader: BackgroundReader, paths: readonly string[]): Promise<(string | undefined)[]> {
  const texts: (string | undefined)[] = [];
  for await (const batch of reader.read(paths)) for (const bytes of batch) texts.push(bytes === undefined ? undefined : Buffer.from(bytes).toString("utf8"));
  return texts;
}

function expected(paths: readonly string[], limit: number): (string | undefined)[] {
  return paths.map((file) => {
    if (/a-folder|a-pipe|missing/.test(file)) return undefined;
    const bytes = readFileSync(file);
    return bytes.subarray(0, Math.min(bytes.length, limit + 1)).toString("utf8");
  });
}

test("the reading thread gives every file's bytes in order, with the main thread's limits", async () => {
  const { folder, paths } = fixture();
  try {
    const limit = 4096;
    const reader = new BackgroundReader(limit);
    try {
      assert.equal(reader.threaded, true, "the thread started");
      while (!reader.online) await new Promise((resolve) => setTimeout(resolve, 5));
      const texts = await readAll(reader, paths);
      assert.equal(texts.length, paths.length);
      assert.deepEqual(texts, expected(paths, limit));
      assert.equal(texts[paths.indexOf(path.join(folder, "large.skill.md"))]?.length, limit + 1, "a file past the limit is cut one byte past it");
      // The same reader reads a second list once the first is done.
      assert.deepEqual(await readAll(reader, paths.slice(0, 10)), expected(paths.slice(0, 10), limit));
    } finally {
      reader.close();
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("batches read here while the thread boots and there once it is up come in order, the same bytes", async () => {
  const { folder, paths } = fixture();
  try {
    const reader = new BackgroundReader(4096);
    try {
      const texts: (string | undefined)[] = [];
      let onlineAtFirstBatch: boolean | undefined;
      for await (const batch of reader.read(paths)) {
        onlineAtFirstBatch ??= reader.online;
        for (const bytes of batch) texts.push(bytes === undefined ? undefined : Buffer.from(bytes).toString("utf8"));
        // A turn of the event loop between batches, as the first index gives: the thread's start is seen.
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal(onlineAtFirstBatch, false, "the first batch did not wait for the thread to boot");
      assert.equal(reader.online, true, "the thread came up during the read");
      assert.deepEqual(texts, expected(paths, 4096));
    } finally {
      reader.close();
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("without the thread (SKILL_LSP_READER=main, or once it is closed) the answers are the same", async () => {
  const { folder, paths } = fixture();
  const before = process.env.SKILL_LSP_READER;
  try {
    process.env.SKILL_LSP_READER = "main";
    const onMain = new BackgroundReader(4096);
    assert.equal(onMain.threaded, false);
    assert.deepEqual(await readAll(onMain, paths), expected(paths, 4096));
    if (before === undefined) delete process.env.SKILL_LSP_READER;
    else process.env.SKILL_LSP_READER = before;
    // Closed while a read is under way: the batches asked for and not answered are read here instead.
    const closed = new BackgroundReader(4096);
    const texts: (string | undefined)[] = [];
    for await (const batch of closed.read(paths)) {
      closed.close();
      for (const bytes of batch) texts.push(bytes === undefined ? undefined : Buffer.from(bytes).toString("utf8"));
    }
    assert.deepEqual(texts, expected(paths, 4096));
  } finally {
    if (before === undefined) delete process.env.SKILL_LSP_READER;
    else process.env.SKILL_LSP_READER = before;
    rmSync(folder, { recursive: true, force: true });
  }
});

test("a batch reads files larger than its buffer's room, empty files and the limit as one file at a time would", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-batch-"));
  try {
    const limit = 200_000;
    // Lengths around the room a read is given (64 KB) and the buffer's first size (256 KB), and past the limit.
    const sizes = [0, 1, 65_535, 65_536, 65_537, 150_000, 199_999, 200_000, 200_001, 450_000, 3, 0, 262_144];
    const paths = sizes.map((size, i) => {
      const file = path.join(folder, `file-${i}.skill.md`);
      writeFileSync(file, Buffer.alloc(size, 97 + (i % 26)));
      return file;
    });
    mkdirSync(path.join(folder, "a-folder.skill.md"));
    execFileSync("mkfifo", [path.join(folder, "a-pipe.skill.md")]);
    // A device reads without end: only past the limit is it found to be no file.
    symlinkSync("/dev/zero", path.join(folder, "zeros.skill.md"));
    const others = ["a-pipe", "a-folder", "missing", "zeros"].map((name) => path.join(folder, `${name}.skill.md`));
    paths.splice(4, 0, ...others);
    const wanted = paths.map((file) => readFileBytesSync(file, limit));
    assert.deepEqual(wanted.slice(4, 8), [undefined, undefined, undefined, undefined]);
    // Without a buffer handed back, with a small one, and with the buffer the first batch grew to.
    const first = readFileBatchSync(paths, limit);
    for (const spare of [undefined, new ArrayBuffer(1000), first.bytes.buffer as ArrayBuffer]) {
      const files = filesOfBatch(readFileBatchSync(paths, limit, spare));
      assert.deepEqual(
        files.map((bytes) => bytes && Buffer.from(bytes)),
        wanted.map((bytes) => bytes && Buffer.from(bytes)),
      );
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
