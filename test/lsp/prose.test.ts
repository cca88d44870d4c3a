/**
 * The quiet-prose rules over stdio, on a page a person would write: a real server, a real client. Code,
 * URLs, paths and package scopes hold no mention, so there is no diagnostic, no token, no completion and no
 * rename edit in them; the one real dangling mention in prose is the one error.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { CompletionRequest, DocumentDiagnosticRequest, RenameRequest, SemanticTokensRequest, type CompletionList, type DocumentDiagnosticReport, type TextDocumentEdit, type WorkspaceEdit } from "vscode-languageserver-protocol";
import { TestClient, copyWorkspace, removeWorkspace, uriOf } from "./harness.js";

const PAGE = [
  "---",
  "summary: Set up a project. Uses `@types/node` style typings.",
  "---",
  "Install the typings:",
  "",
  "```sh",
  "npm i -D @types/node @search-info",
  "```",
  "",
  "Read https://medium.com/@someone/post and `@vscode/test-electron`; notes in ~/@scratch.",
  "Then ask @search-info, or @nowhere.",
  "",
  "~~~python",
  "@app.route('/')",
  "~~~",
].join("\n");

describe("quiet prose over stdio", () => {
  let folder: string;
  let client: TestClient;
  let target: string;

  before(async () => {
    folder = copyWorkspace();
    client = await TestClient.start({ folders: [folder], pull: true });
    target = uriOf(path.join(folder, "skills", "setup.skill.md"));
    await client.open(target, PAGE);
  });
  after(async () => {
    await client.stop();
    removeWorkspace(folder);
  });

  it("reports the one dangling prose mention and nothing in code, URLs, paths or scopes", async () => {
    const report = (await client.connection.sendRequest(DocumentDiagnosticRequest.type, { textDocument: { uri: target } })) as DocumentDiagnosticReport;
    const items = report.kind === "full" ? report.items : [];
    assert.deepEqual(items.map((d) => [d.code, d.range.start.line, d.range.start.character]), [["unknown-mention", 10, 26]]);
  });

  it("colours the two prose mentions only", async () => {
    const tokens = await client.connection.sendRequest(SemanticTokensRequest.type, { textDocument: { uri: target } });
    assert.deepEqual(tokens?.data.slice(0, 3), [10, 9, 12]);
    assert.equal(tokens?.data.length, 10);
  });

  it("offers no completion inside a fence or a URL, and offers it in prose", async () => {
    const at = async (line: number, character: number) =>
      ((await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: target }, position: { line, character } })) as CompletionList | null)?.items.length ?? 0;
    assert.equal(await at(6, 22), 0, "inside the sh fence");
    assert.equal(await at(9, 25), 0, "inside the URL");
    assert.ok((await at(10, 10)) > 0, "in prose");
  });

  it("a rename of @search-info edits the prose mention and never the fence", async () => {
    const edit = (await client.connection.sendRequest(RenameRequest.type, { textDocument: { uri: target }, position: { line: 10, character: 12 }, newName: "find-info" })) as WorkspaceEdit;
    const here = (edit.documentChanges ?? []).filter((change): change is TextDocumentEdit => "textDocument" in change && change.textDocument.uri === target);
    assert.deepEqual(here.flatMap((change) => change.edits.map((e) => [e.range.start.line, e.range.start.character, e.newText])), [[10, 9, "@find-info"]]);
  });
});
