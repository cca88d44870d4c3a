/**
 * A client may write a file URI otherwise than VS Code does: Neovim leaves a `+`, an `@` or a `=` of a path as it
 * is, where VS Code writes `%2B`, `%40`, `%3D`. The server compares URIs in one form, so an editor open
 * under either spelling is the same open editor: its text wins over the disk's, and its diagnostics come from it.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { TestClient, removeWorkspace, uriOf } from "./harness.js";

function skill(body: string): string {
  return `---\nsummary: A skill for the test\n---\n# A skill\n\n${body}\n`;
}

/** A workspace folder named `team+tools@2` with one skill on disk, and that skill's URI as Neovim writes it. */
function plusFolder(): { root: string; folder: string; file: string; written: string } {
  const root = mkdtempSync(path.join(tmpdir(), "skill-lsp-uris-"));
  const folder = path.join(root, "team+tools@2");
  mkdirSync(folder);
  const file = path.join(folder, "draft-reply.skill.md");
  writeFileSync(file, skill("Ask @disk-text-name."));
  return { root, folder, file, written: pathToFileURL(file).href };
}

test("an editor opened under a URI that leaves + and @ unescaped is the open editor of that file, from the first index on", { timeout: 60_000 }, async () => {
  const { root, folder, file, written } = plusFolder();
  writeFileSync(path.join(folder, "other.skill.md"), skill("Ask @draft-reply."));
  assert.ok(written.includes("team+tools@2"), written);
  assert.notEqual(written, uriOf(file));
  const client = await TestClient.start({ folders: [folder], awaitIndexing: false });
  try {
    await client.open(written, skill("Ask @editor-text-name."));
    await client.indexed;
    const unknownIn = (report: { items: Diagnostic[] }) => report.items.filter((diagnostic) => diagnostic.code === "unknown-mention").map((diagnostic) => diagnostic.message.split(" ")[0]);
    assert.deepEqual(unknownIn(await client.connection.sendRequest("textDocument/diagnostic", { textDocument: { uri: written } })), ["@editor-text-name"]);
    // The same file under VS Code's spelling is the same document.
    assert.deepEqual(unknownIn(await client.connection.sendRequest("textDocument/diagnostic", { textDocument: { uri: uriOf(file) } })), ["@editor-text-name"]);
    await client.change(written, skill("Ask @edited-name, then reply to the user."));
    assert.deepEqual(unknownIn(await client.connection.sendRequest("textDocument/diagnostic", { textDocument: { uri: written } })), ["@edited-name"]);
  } finally {
    await client.stop();
    removeWorkspace(root);
  }
});

test("a client that takes pushed diagnostics gets an open editor's under the URI it opened it by", { timeout: 60_000 }, async () => {
  const { root, folder, written } = plusFolder();
  const client = await TestClient.start({ folders: [folder], pull: false });
  try {
    await client.open(written, skill("Ask @editor-text-name, then reply."));
    const unknownIn = (diagnostics: readonly Diagnostic[] | undefined) => (diagnostics ?? []).filter((diagnostic) => diagnostic.code === "unknown-mention").map((diagnostic) => diagnostic.message.split(" ")[0]);
    await client.waitFor(() => unknownIn(client.pushed.get(written)).includes("@editor-text-name"), 20_000);
    assert.deepEqual(unknownIn(client.pushed.get(written)), ["@editor-text-name"]);
  } finally {
    await client.stop();
    removeWorkspace(root);
  }
});
