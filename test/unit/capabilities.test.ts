import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fitCompletionItem, fitDocumentSymbols, fitEdit, fitHover, readClientProfile, serverCapabilities } from "../../server/src/lsp/capabilities.js";
import { FULL_CLIENT, MINIMAL_CLIENT } from "../lsp/profiles.js";

const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 4 } };
const uri = "file:///w/a.skill.md";
const textEdit = { textDocument: { uri, version: 3 }, edits: [{ range, newText: "@b" }] };
const renameFile = { kind: "rename" as const, oldUri: uri, newUri: "file:///w/b.skill.md" };
const legend = { tokenTypes: ["skillMention"], tokenModifiers: [] };

describe("the client profile", () => {
  it("reads VS Code's capabilities as full and a bare client's as minimal", () => {
    const full = readClientProfile(FULL_CLIENT);
    assert.deepEqual([full.hoverMarkdown, full.snippets, full.labelDetails, full.prepareRename, full.pullDiagnostics, full.watchRegistration, [...full.resourceOperations].sort()], [true, true, true, true, true, true, ["create", "delete", "rename"]]);
    const bare = readClientProfile({});
    assert.deepEqual([bare.hoverMarkdown, bare.snippets, bare.documentChanges, bare.resourceOperations.size, bare.pullDiagnostics, bare.workDoneProgress], [false, false, false, 0, false, false]);
  });

  it("takes resource operations listed without documentChanges (Neovim 0.7) as documentChanges", () => {
    const neovim = readClientProfile({ workspace: { workspaceEdit: { resourceOperations: ["rename", "create", "delete"] } } });
    assert.equal(neovim.documentChanges, true);
    assert.deepEqual(fitEdit({ documentChanges: [textEdit, renameFile] }, neovim), { documentChanges: [textEdit, renameFile] });
  });

  it("fits edits: the changes map without documentChanges, a refusal for a file operation not announced", () => {
    assert.deepEqual(fitEdit({ documentChanges: [textEdit] }, readClientProfile({})), { changes: { [uri]: [{ range, newText: "@b" }] } });
    const refused = fitEdit({ documentChanges: [textEdit, renameFile] }, readClientProfile(MINIMAL_CLIENT));
    assert.deepEqual(refused, { refused: "This editor cannot rename files through the language server, so the change is not made." });
  });

  it("fits hovers, completion items and symbols to what was announced", () => {
    const minimal = readClientProfile(MINIMAL_CLIENT);
    assert.deepEqual(fitHover({ contents: { kind: "markdown", value: "**A** `@a`" } }, minimal), { contents: { kind: "plaintext", value: "A @a" } });
    assert.deepEqual(fitCompletionItem({ label: "@a", labelDetails: { detail: " skill", description: "A" } }, minimal), { label: "@a", detail: "skill: A" });
    const symbols = fitDocumentSymbols(uri, [{ name: "@a", kind: 2, range, selectionRange: range, children: [{ name: "@b", kind: 12, range, selectionRange: range }] }], minimal);
    assert.deepEqual(symbols, [
      { name: "@a", kind: 2, location: { uri, range } },
      { name: "@b", kind: 12, location: { uri, range }, containerName: "@a" },
    ]);
  });

  it("announces providers within the profile", () => {
    const minimal = serverCapabilities(readClientProfile(MINIMAL_CLIENT), legend);
    assert.equal(minimal.renameProvider, true);
    assert.equal(minimal.diagnosticProvider, undefined);
    assert.equal(minimal.semanticTokensProvider, undefined);
    assert.equal(minimal.workspace, undefined);
    const full = serverCapabilities(readClientProfile(FULL_CLIENT), legend);
    assert.deepEqual(full.renameProvider, { prepareProvider: true });
    assert.deepEqual(Object.keys(full.workspace?.fileOperations ?? {}).sort(), ["didCreate", "didDelete", "didRename", "willRename"]);
  });
});
