/**
 * A client that takes pushed diagnostics (Neovim, Helix, Emacs and most editors but VS Code): after the first
 * index the server publishes only the files that have something to show, a batch at a time, and answers a
 * request that comes meanwhile between two batches rather than after them all; a file that showed a problem is
 * cleared when it goes.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { TestClient, removeWorkspace, uriOf } from "./harness.js";

/**
 * Enough that publishing them all outlasts the client's answer to the first: with 1,200, a completion sent on the
 * first push arrived after 256-272 of them in two runs and after the last in a third; with 4,000, after 544-735.
 */
const BROKEN = 4000;
const CLEAN = 800;

function skill(summary: string, body: string): string {
  return `---\nsummary: ${summary}\n---\n# A skill\n\n${body}\n`;
}

test("pushed diagnostics: only files with something to show, a request answered between their batches, a problem cleared when it goes", { timeout: 120_000 }, async () => {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-lsp-push-"));
  mkdirSync(path.join(folder, "skills"));
  const file = (name: string) => path.join(folder, "skills", `${name}.skill.md`);
  for (let i = 0; i < BROKEN; i++) writeFileSync(file(`broken-${i}`), skill(`Broken number ${i} with words qz${i}`, `Ask @missing-${i} first.`));
  for (let i = 0; i < CLEAN; i++) writeFileSync(file(`clean-${i}`), skill(`Clean number ${i} with words vx${i}`, `Ask @clean-${(i + 1) % CLEAN} first.`));
  const client = await TestClient.start({ folders: [folder], pull: false, awaitIndexing: false });
  try {
    const editor = uriOf(file("clean-0"));
    const text = `${readFileSync(file("clean-0"), "utf8")}Then @`;
    await client.open(editor, text);
    await client.indexed;
    const closedBroken = () => [...client.pushed.keys()].filter((uri) => uri.includes("/broken-")).length;
    await client.waitFor(() => closedBroken() > 0, 60_000);
    const lines = text.split("\n");
    const completion = await client.connection.sendRequest<{ items: unknown[] } | unknown[] | null>("textDocument/completion", {
      textDocument: { uri: editor },
      position: { line: lines.length - 1, character: (lines[lines.length - 1] ?? "").length },
    });
    const publishedBefore = closedBroken();
    assert.ok(completion !== null);
    assert.ok(publishedBefore < BROKEN, `the completion waited for all ${BROKEN} files' diagnostics`);
    await client.waitFor(() => closedBroken() === BROKEN, 60_000);
    for (let i = 0; i < BROKEN; i++) assert.ok((client.pushed.get(uriOf(file(`broken-${i}`))) ?? []).some((diagnostic) => diagnostic.code === "unknown-mention"), `broken-${i}`);
    for (let i = 1; i < CLEAN; i++) assert.equal(client.pushed.has(uriOf(file(`clean-${i}`))), false, `clean-${i}, closed and clean, was published`);
    assert.deepEqual(client.pushed.get(editor), [], "the open editor is published, even empty");
    // The skill broken-0 mentions appears: its problem is cleared with an empty list.
    writeFileSync(file("missing-0"), skill("Now here", "Nothing."));
    await client.connection.sendNotification("workspace/didChangeWatchedFiles", { changes: [{ uri: uriOf(file("missing-0")), type: 1 }] });
    await client.waitFor(() => client.pushed.get(uriOf(file("broken-0")))?.length === 0, 30_000);
    assert.equal(client.pushed.has(uriOf(file("missing-0"))), false, "a new clean file is not published");
  } finally {
    await client.stop();
    removeWorkspace(folder);
  }
});
