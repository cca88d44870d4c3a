import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MetaModel, NOT_IN_MODEL } from "../lsp/metaModel.js";
import { FULL_CLIENT, MINIMAL_CLIENT } from "../lsp/profiles.js";
import { messageProblems } from "../lsp/profileRules.js";

const model = MetaModel.load();
const range = { start: { line: 0, character: 1 }, end: { line: 0, character: 4 } };
const uri = "file:///w/a.skill.md";

describe("the LSP meta model validator", () => {
  it("is the 3.17 model", () => assert.equal(model.version, "3.17.0"));

  it("accepts valid results and names what is wrong in invalid ones", () => {
    assert.deepEqual(model.validateResult("textDocument/hover", { contents: { kind: "markdown", value: "x" }, range }), []);
    assert.deepEqual(model.validateResult("textDocument/hover", null), []);
    assert.match(model.validateResult("textDocument/hover", { range }).toString(), /missing required property "contents"/);
    assert.match(model.validateResult("textDocument/hover", { contents: { kind: "html", value: "x" } }).toString(), /matches none/);
    assert.match(model.validateResult("textDocument/definition", [{ uri, range: { start: { line: -1, character: 0 }, end: range.end } }]).toString(), /expected uinteger/);
    assert.match(model.validateResult("textDocument/references", [{ uri, range, extra: 1 }]).toString(), /unknown property "extra"/);
    assert.match(model.validateResult("textDocument/references", [{ uri: "not a uri", range }]).toString(), /expected DocumentUri/);
  });

  it("knows workspace edits, their resource operations and the server's capabilities", () => {
    const rename = { kind: "rename", oldUri: uri, newUri: "file:///w/b.skill.md" };
    assert.deepEqual(model.validateResult("textDocument/rename", { documentChanges: [{ textDocument: { uri, version: null }, edits: [{ range, newText: "@b" }] }, rename] }), []);
    assert.match(model.validateResult("textDocument/rename", { documentChanges: [{ ...rename, kind: "move" }] }).toString(), /matches none/);
    assert.deepEqual(model.validateResult("initialize", { capabilities: { hoverProvider: true, renameProvider: { prepareProvider: true } } }), []);
    assert.match(model.validateResult("initialize", { capabilities: { hoverProvider: "yes" } }).toString(), /hoverProvider/);
    assert.match(model.validateResult("initialize", { capabilities: { madeUpProvider: true } }).toString(), /unknown property "madeUpProvider"/);
  });

  it("validates params of notifications and server requests; extension methods are outside the model", () => {
    assert.deepEqual(model.validateParams("textDocument/publishDiagnostics", { uri, diagnostics: [{ range, message: "m", severity: 1 }] }), []);
    assert.match(model.validateParams("textDocument/publishDiagnostics", { uri, diagnostics: [{ range, message: "m", severity: 9 }] }).toString(), /not a DiagnosticSeverity/);
    assert.equal(model.validateParams("skill/status", {}), NOT_IN_MODEL);
  });
});

describe("the client-profile rules of the protocol tests", () => {
  const response = (id: number, result: unknown) => ({ jsonrpc: "2.0", id, result });
  it("rule out what the minimal client did not announce", () => {
    const rename = response(1, { documentChanges: [{ kind: "rename", oldUri: uri, newUri: "file:///w/b.skill.md" }] });
    assert.deepEqual(messageProblems(model, FULL_CLIENT, rename, "textDocument/rename"), []);
    assert.match(messageProblems(model, MINIMAL_CLIENT, rename, "textDocument/rename").join(), /"rename" file operation sent to a client without that resource operation/);
    const hover = response(2, { contents: { kind: "markdown", value: "**x**" } });
    assert.match(messageProblems(model, MINIMAL_CLIENT, hover, "textDocument/hover").join(), /Markdown sent to a client that reads plaintext only/);
    const snippet = response(3, { isIncomplete: false, items: [{ label: "summary", insertText: "summary: $1", insertTextFormat: 2, labelDetails: { detail: " key" } }] });
    assert.equal(messageProblems(model, MINIMAL_CLIENT, snippet, "textDocument/completion").length, 2);
    const push = { jsonrpc: "2.0", method: "textDocument/publishDiagnostics", params: { uri, version: 3, diagnostics: [{ range, message: "m", data: { kind: "x" } }] } };
    assert.deepEqual(messageProblems(model, MINIMAL_CLIENT, push, undefined).length, 2);
    assert.match(messageProblems(model, FULL_CLIENT, push, undefined).join(), /pushed to a client that pulls/);
    const register = { jsonrpc: "2.0", id: 9, method: "client/registerCapability", params: { registrations: [{ id: "w", method: "workspace/didChangeWatchedFiles", registerOptions: { watchers: [{ globPattern: "**/*.skill.md" }] } }] } };
    assert.deepEqual(messageProblems(model, FULL_CLIENT, register, undefined), []);
    assert.match(messageProblems(model, MINIMAL_CLIENT, register, undefined).join(), /without dynamic registration/);
    const initialize = response(0, { capabilities: { renameProvider: { prepareProvider: true }, diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: false } } });
    assert.equal(messageProblems(model, MINIMAL_CLIENT, initialize, "initialize").length, 2);
  });
});
