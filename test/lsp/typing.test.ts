/**
 * An unknown mention the cursor is still inside is not reported while it is typed: over stdio, with the real
 * server, for pull and push clients. It is reported once the next edit ends elsewhere, or after a pause.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DocumentDiagnosticRequest, type Diagnostic, type DocumentDiagnosticReport } from "vscode-languageserver-protocol";
import { TestClient, copyWorkspace, removeWorkspace, uriOf } from "./harness.js";
import * as path from "node:path";

async function pull(client: TestClient, uri: string): Promise<Diagnostic[]> {
  const report = (await client.connection.sendRequest(DocumentDiagnosticRequest.type, { textDocument: { uri } })) as DocumentDiagnosticReport;
  return report.kind === "full" ? report.items : [];
}

const unknown = (diagnostics: readonly Diagnostic[]) => diagnostics.filter((diagnostic) => diagnostic.code === "unknown-mention").map((diagnostic) => diagnostic.message.split(" ")[0]);

const TEXT = "---\nsummary: Plans a holiday.\n---\nFirst use ";
const end = (text: string) => ({ line: text.split("\n").length - 1, character: text.length - text.lastIndexOf("\n") - 1 });

describe("a mention being typed", () => {
  let folder = "";
  before(() => (folder = copyWorkspace()));
  after(() => removeWorkspace(folder));

  it("pull: @pla under the cursor is held back; an edit elsewhere, or a pause, reports it", async () => {
    const client = await TestClient.start({ folders: [folder] });
    const uri = uriOf(path.join(folder, "skills/home/holiday.skill.md"));
    await client.open(uri, TEXT);
    assert.deepEqual(unknown(await pull(client, uri)), []);
    // Typing "@pla", one character at a time, as an editor sends it.
    let text = TEXT;
    for (const character of "@pla") {
      await client.change(uri, character, { start: end(text), end: end(text) });
      text += character;
      assert.deepEqual(unknown(await pull(client, uri)), [], `after typing ${JSON.stringify(text.slice(TEXT.length))}`);
    }
    // Completing it to a real skill: nothing to report, ever.
    await client.change(uri, "n-trip", { start: end(text), end: end(text) });
    text += "n-trip";
    assert.deepEqual(unknown(await pull(client, uri)), []);
    // An unknown one, then a space: the cursor has left it.
    await client.change(uri, " and @flightz", { start: end(text), end: end(text) });
    text += " and @flightz";
    assert.deepEqual(unknown(await pull(client, uri)), []);
    await client.change(uri, " then", { start: end(text), end: end(text) });
    text += " then";
    assert.deepEqual(unknown(await pull(client, uri)), ["@flightz"]);
    // Typed again and left alone: after the pause the server asks the client to pull again, and it is there.
    await client.change(uri, " @hotelz", { start: end(text), end: end(text) });
    text += " @hotelz";
    assert.deepEqual(unknown(await pull(client, uri)), ["@flightz"]);
    const refreshes = client.refreshes.length;
    await client.waitFor(() => client.refreshes.slice(refreshes).includes("diagnostics"), 5000);
    assert.deepEqual(unknown(await pull(client, uri)), ["@flightz", "@hotelz"]);
    await client.stop();
  });

  it("push: the held-back mention is published after the pause", async () => {
    const client = await TestClient.start({ folders: [folder], pull: false });
    const uri = uriOf(path.join(folder, "skills/home/trip.skill.md"));
    await client.open(uri, TEXT);
    await client.change(uri, "@nowher", { start: end(TEXT), end: end(TEXT) });
    await client.waitFor(() => client.pushed.has(uri), 5000);
    assert.deepEqual(unknown(client.pushed.get(uri) ?? []), []);
    await client.waitFor(() => unknown(client.pushed.get(uri) ?? []).length === 1, 5000);
    assert.deepEqual(unknown(client.pushed.get(uri) ?? []), ["@nowher"]);
    await client.stop();
  });
  it("an open is no edit being typed, even over a document the client never closed", async () => {
    const client = await TestClient.start({ folders: [folder] });
    const uri = uriOf(path.join(folder, "skills/home/holiday.skill.md"));
    await client.open(uri, TEXT);
    await client.change(uri, "@pla", { start: end(TEXT), end: end(TEXT) });
    assert.deepEqual(unknown(await pull(client, uri)), [], "held back while typed");
    // A client that moves another file onto this name opens it again without a close (the fuzz test's editor did).
    await client.open(uri, `${TEXT}@plax`);
    assert.deepEqual(unknown(await pull(client, uri)), ["@plax"]);
    await client.stop();
  });
});
