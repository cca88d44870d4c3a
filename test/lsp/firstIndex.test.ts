/**
 * The first index reads files on a thread of its own, a few batches ahead of the parse. What the client says
 * during the read still wins over what the thread read from disk before it: a file changed or deleted on disk
 * (with its file event), and an editor opened on a file, end with the new text, whichever came first.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { TestClient, removeWorkspace, uriOf } from "./harness.js";

const FILLERS = 4000;

function skill(body: string): string {
  return `---\nsummary: A skill for the test\n---\n# A skill\n\n${body}\n`;
}

test("files changed, deleted or opened while the first index reads end with the client's latest text", { timeout: 120_000 }, async () => {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-lsp-first-index-"));
  const write = (relative: string, text: string) => {
    mkdirSync(path.dirname(path.join(folder, relative)), { recursive: true });
    writeFileSync(path.join(folder, relative), text);
  };
  for (let i = 0; i < FILLERS; i++) write(`m/filler-${i}.skill.md`, skill(`Ask @filler-${(i + 1) % FILLERS}.`));
  // First and last in the listing's order: one is read long before the changes, one long after.
  const watched = ["a/early.skill.md", "z/late.skill.md"];
  const deleted = ["a/early-gone.skill.md", "z/late-gone.skill.md"];
  const opened = ["a/early-open.skill.md", "z/late-open.skill.md"];
  for (const file of [...watched, ...deleted, ...opened]) write(file, skill("Ask @old-text-name."));
  write("m/mentions-the-gone.skill.md", skill("Ask @early-gone and @late-gone."));

  const client = await TestClient.start({ folders: [folder], awaitIndexing: false });
  try {
    const events: { uri: string; type: number }[] = [];
    for (const file of watched) {
      write(file, skill("Ask @new-text-name."));
      events.push({ uri: uriOf(path.join(folder, file)), type: 2 });
    }
    for (const file of deleted) {
      rmSync(path.join(folder, file));
      events.push({ uri: uriOf(path.join(folder, file)), type: 3 });
    }
    await client.connection.sendNotification("workspace/didChangeWatchedFiles", { changes: events });
    for (const file of opened) await client.open(uriOf(path.join(folder, file)), skill("Ask @editor-text-name."));
    await client.indexed;
    const report = await client.connection.sendRequest<{ items: { uri: string; items: Diagnostic[] }[] }>("workspace/diagnostic", { previousResultIds: [] });
    const unknown = new Map(report.items.map((item) => [item.uri, item.items.filter((diagnostic) => diagnostic.code === "unknown-mention").map((diagnostic) => diagnostic.message.split(" ")[0])]));
    for (const file of watched) assert.deepEqual(unknown.get(uriOf(path.join(folder, file))), ["@new-text-name"], file);
    for (const file of opened) assert.deepEqual(unknown.get(uriOf(path.join(folder, file))), ["@editor-text-name"], file);
    for (const file of deleted) assert.equal(unknown.has(uriOf(path.join(folder, file))), false, `${file} is gone`);
    assert.deepEqual(unknown.get(uriOf(path.join(folder, "m/mentions-the-gone.skill.md"))), ["@early-gone", "@late-gone"]);
    // Only files with problems are in a first report: the fillers are clean, and each is indexed.
    assert.deepEqual(report.items.filter((item) => item.items.length === 0), [], "no clean file is reported");
    const fillers = await Promise.all(Array.from({ length: FILLERS }, (_, i) => client.has(uriOf(path.join(folder, `m/filler-${i}.skill.md`)))));
    assert.equal(fillers.filter(Boolean).length, FILLERS, "every other file is indexed");
    for (const file of deleted) assert.equal(await client.has(uriOf(path.join(folder, file))), false, `${file} is not known`);
    assert.ok([...unknown.values()].every((names) => !names.includes("@old-text-name")), "no stale disk text is left");
  } finally {
    await client.stop();
    removeWorkspace(folder);
  }
});
