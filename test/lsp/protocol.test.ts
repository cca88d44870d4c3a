import assert from "node:assert/strict";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import {
  CodeActionRequest,
  CodeLensRequest,
  CompletionRequest,
  CompletionResolveRequest,
  DefinitionRequest,
  DidChangeWatchedFilesNotification,
  DocumentDiagnosticRequest,
  DocumentSymbolRequest,
  FileChangeType,
  HoverRequest,
  PrepareRenameRequest,
  ReferencesRequest,
  RenameRequest,
  SemanticTokensRangeRequest,
  SemanticTokensRequest,
  WillRenameFilesRequest,
  WorkspaceDiagnosticRequest,
  WorkspaceSymbolRequest,
  type ClientCapabilities,
  type CodeAction,
  type CompletionItem,
  type CompletionList,
  type Diagnostic,
  type Hover,
  type MarkupContent,
  type WorkspaceEdit,
} from "vscode-languageserver-protocol";
import { applyTextEdits } from "../reliability/applier.js";
import { TestClient, copyWorkspace, removeWorkspace, uriOf } from "./harness.js";
import { MetaModel } from "./metaModel.js";
import { FULL_CLIENT, MINIMAL_CLIENT } from "./profiles.js";
import { messageProblems } from "./profileRules.js";

const model = MetaModel.load();

/** The position just after the first `needle` in `text` (or at its start with `atStart`). */
function positionOf(text: string, needle: string, atStart = false) {
  const offset = text.indexOf(needle);
  assert.ok(offset >= 0, `${needle} not found`);
  const before = text.slice(0, offset + (atStart ? 1 : needle.length));
  const lines = before.split("\n");
  return { line: lines.length - 1, character: (lines.at(-1) ?? "").length };
}

/** Applies a text-only workspace edit to the files on disk, in either of its two forms. */
function applyToDisk(edit: WorkspaceEdit): void {
  const perUri: [string, { range: { start: { line: number; character: number }; end: { line: number; character: number } }; newText: string }[]][] = [
    ...(edit.documentChanges ?? []).map((change) => {
      assert.ok("textDocument" in change, "a text-only edit");
      return [change.textDocument.uri, change.edits] as [string, typeof change.edits];
    }),
    ...Object.entries(edit.changes ?? {}),
  ];
  for (const [uri, edits] of perUri) {
    const file = new URL(uri).pathname;
    const applied = applyTextEdits(readFileSync(file, "utf8"), edits);
    assert.ok(!("refused" in applied), "refused" in applied ? applied.refused : "");
    writeFileSync(file, applied.text);
  }
}

const PROFILES: readonly { readonly name: string; readonly capabilities: ClientCapabilities }[] = [
  { name: "full (as VS Code announces)", capabilities: FULL_CLIENT },
  { name: "minimal (no resource operations, no snippets, plain text, push diagnostics, no file watching)", capabilities: MINIMAL_CLIENT },
];

for (const profile of PROFILES) {
  const full = profile.capabilities === FULL_CLIENT;
  describe(`protocol, ${profile.name}`, () => {
    let folder: string;
    let client: TestClient;
    const file = (relative: string) => path.join(folder, relative);
    const uri = (relative: string) => uriOf(file(relative));
    const prep = () => uri("skills/work/meeting-prep.skill.md");
    let prepText = "";

    /** The file's current diagnostics: pulled, or the last pushed. */
    async function diagnosticsOf(target: string, expected: (diagnostics: readonly Diagnostic[]) => boolean = () => true): Promise<Diagnostic[]> {
      if (full) {
        const report = await client.connection.sendRequest(DocumentDiagnosticRequest.type, { textDocument: { uri: target } });
        return report.kind === "full" ? report.items : [];
      }
      await client.waitFor(() => expected(client.pushed.get(target) ?? []));
      return client.pushed.get(target) ?? [];
    }
    const dangles = (slug: string) => (diagnostics: readonly Diagnostic[]) => diagnostics.some((diagnostic) => diagnostic.code === "unknown-mention" && diagnostic.message.includes(`@${slug}`));

    before(async () => {
      folder = copyWorkspace();
      client = await TestClient.start({ folders: [folder], capabilities: profile.capabilities });
      prepText = readFileSync(file("skills/work/meeting-prep.skill.md"), "utf8") + "\nAlso check @serch-info, and use @";
      await client.open(prep(), prepText);
    });
    after(async () => {
      await client.stop();
      removeWorkspace(folder);
    });

    it("announces only providers the client can use", () => {
      const initialize = client.log.received.find((message) => "result" in message && isObjectWith(message.result, "capabilities"));
      const capabilities = (initialize as { result: { capabilities: Record<string, unknown> } } | undefined)?.result.capabilities ?? {};
      assert.deepEqual(capabilities.renameProvider, full ? { prepareProvider: true } : true);
      assert.equal("diagnosticProvider" in capabilities, full);
      assert.equal("semanticTokensProvider" in capabilities, full);
    });

    it("completes mentions and frontmatter keys in the client's formats", async () => {
      const list = (await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: prep() }, position: positionOf(prepText, "use @") })) as CompletionList;
      const skill = list.items.find((item) => item.label === "@search-info");
      assert.ok(skill, "@search-info is offered");
      if (full) assert.equal(skill.labelDetails?.detail, " skill");
      else assert.equal(skill.detail, "skill: Search Info");
      const resolved = (await client.connection.sendRequest(CompletionResolveRequest.type, skill as CompletionItem)) as CompletionItem;
      const documentation = resolved.documentation as MarkupContent;
      assert.equal(documentation.kind, full ? "markdown" : "plaintext");
      assert.match(documentation.value, full ? /Binds `check_notebook`/ : /Binds check_notebook, /);

      const draft = uri("skills/home/new-one.skill.md");
      await client.open(draft, "---\n\n---\nBody\n");
      const keys = (await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: draft }, position: { line: 1, character: 0 } })) as CompletionList;
      const summary = keys.items.find((item) => item.label === "summary");
      assert.equal(summary?.insertTextFormat, full ? 2 : 1);
      assert.equal(summary?.insertText, full ? "summary: $1" : "summary: ");
      await client.close(draft);
    });

    it("hovers in Markdown or plain text, as announced", async () => {
      const hover = (await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri: prep() }, position: positionOf(prepText, "@check-schedule", true) })) as Hover;
      const contents = hover.contents as MarkupContent;
      assert.equal(contents.kind, full ? "markdown" : "plaintext");
      assert.match(contents.value, full ? /^\*\*Check Schedule\*\* · skill `@check-schedule`/ : /^Check Schedule · skill @check-schedule/);
    });

    it("navigates: definition, references, symbols, lenses" + (full ? ", semantic tokens" : ""), async () => {
      const at = { textDocument: { uri: prep() }, position: positionOf(prepText, "@search-info", true) };
      const definition = await client.connection.sendRequest(DefinitionRequest.type, at);
      assert.ok(Array.isArray(definition) && definition.length === 1);
      const refs = await client.connection.sendRequest(ReferencesRequest.type, { ...at, context: { includeDeclaration: true } });
      assert.ok((refs?.length ?? 0) >= 3);
      const symbols = await client.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri: prep() } });
      assert.ok(symbols && symbols.length > 0);
      assert.equal(symbols[0] !== undefined && "selectionRange" in symbols[0], full, "hierarchical symbols only when announced");
      assert.ok(((await client.connection.sendRequest(WorkspaceSymbolRequest.type, { query: "prep" })) ?? []).length > 0);
      assert.ok(((await client.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri: prep() } })) ?? []).length > 0);
      if (full) {
        assert.ok(((await client.connection.sendRequest(SemanticTokensRequest.type, { textDocument: { uri: prep() } }))?.data.length ?? 0) > 0);
        await client.connection.sendRequest(SemanticTokensRangeRequest.type, { textDocument: { uri: prep() }, range: { start: { line: 0, character: 0 }, end: { line: 20, character: 0 } } });
        const workspace = await client.connection.sendRequest(WorkspaceDiagnosticRequest.type, { previousResultIds: [] });
        assert.ok(workspace.items.length > 0);
      }
    });

    it("diagnoses (pulled or pushed) and fixes a dangling mention with the client's edit form", async () => {
      const diagnostics = await diagnosticsOf(prep(), dangles("serch-info"));
      const unknown = diagnostics.find((diagnostic) => diagnostic.code === "unknown-mention");
      assert.ok(unknown, "the dangling @serch-info is diagnosed");
      assert.equal(unknown.data !== undefined, full, "fix data only for a client with dataSupport");
      const actions = (await client.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri: prep() }, range: unknown.range, context: { diagnostics: [unknown] } })) as CodeAction[];
      const titles = actions.map((action) => action.title);
      // The minimal client creates no files: the "Create skill" fix is not offered rather than half-applied.
      assert.equal(titles.includes("Create skill @serch-info"), full, titles.join(" | "));
      assert.ok(titles.includes("Change to @search-info"), titles.join(" | "));
    });

    it(full ? "renames a skill as one edit with its file rename" : "refuses a skill rename it cannot do whole, saying how to do it here", async () => {
      const at = { textDocument: { uri: prep() }, position: positionOf(prepText, "@fetch-file", true) };
      if (full) {
        const prepared = await client.connection.sendRequest(PrepareRenameRequest.type, at);
        assert.deepEqual(prepared && "placeholder" in prepared ? prepared.placeholder : undefined, "fetch-file");
        const edit = await client.connection.sendRequest(RenameRequest.type, { ...at, newName: "get-file" });
        assert.ok(edit?.documentChanges?.some((change) => "kind" in change && change.kind === "rename"));
        const cascade = await client.connection.sendRequest(WillRenameFilesRequest.type, { files: [{ oldUri: uri("skills/home/plan-trip.skill.md"), newUri: uri("skills/home/trip-plan.skill.md") }] });
        assert.ok(cascade?.documentChanges?.length && cascade.documentChanges.every((change) => "textDocument" in change), "the cascade edits text only: the client moves the file");
      } else {
        await assert.rejects(client.connection.sendRequest(RenameRequest.type, { ...at, newName: "get-file" }), (error: Error) => {
          assert.match(error.message, /applies no file renames from a language server, so @fetch-file is left as it is rather than half-renamed\. Rename fetch-file\.skill\.md to get-file\.skill\.md yourself/);
          return true;
        });
      }
    });

    it("offers the one-click update after a skill file is renamed outside the editor (git mv)", async () => {
      await client.change(prep(), readFileSync(file("skills/work/meeting-prep.skill.md"), "utf8"));
      const mentioners = ["skills/work/meeting-prep.skill.md", "skills/home/plan-trip.skill.md"].filter((relative) => readFileSync(file(relative), "utf8").includes("@search-info"));
      renameSync(file("skills/builtin/search-info.skill.md"), file("skills/builtin/find-info.skill.md"));
      if (full) {
        await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, {
          changes: [
            { uri: uri("skills/builtin/find-info.skill.md"), type: FileChangeType.Created },
            { uri: uri("skills/builtin/search-info.skill.md"), type: FileChangeType.Deleted },
          ],
        });
      } else {
        // No file events from this client: the server learns of the new name when the file is opened.
        await client.open(uri("skills/builtin/find-info.skill.md"), readFileSync(file("skills/builtin/find-info.skill.md"), "utf8"));
      }
      const dangling = (await diagnosticsOf(prep(), dangles("search-info"))).find((diagnostic) => diagnostic.code === "unknown-mention");
      assert.ok(dangling, "@search-info dangles");
      const actions = (await client.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri: prep() }, range: dangling.range, context: { diagnostics: [dangling] } })) as CodeAction[];
      const quickFix = actions.find((action) => action.title === "Change to @find-info (the skill was renamed from @search-info)");
      assert.ok(quickFix, actions.map((action) => action.title).join(" | "));
      const update = actions.find((action) => action.kind === "source.updateRenamedSkill");
      const total = mentioners.reduce((count, relative) => count + (readFileSync(file(relative), "utf8").match(/@search-info\b/g) ?? []).length, 0);
      const everywhere = readFileSync(file("skills.json"), "utf8").includes("@search-info") ? 1 : 0;
      assert.ok(update?.edit, actions.map((action) => action.title).join(" | "));
      assert.match(update.title, /^@search-info was renamed to @find-info: update \d+ mentions in \d+ files$/);
      assert.equal(update.edit.documentChanges !== undefined, true);
      const files = update.edit.documentChanges?.length ?? 0;
      assert.ok(files >= mentioners.length, `${files} files`);
      assert.ok(update.title.includes(`in ${files} files`));
      assert.ok(total + everywhere >= 2);

      // Applied (as a client would, then reported back), every mention follows the file and nothing dangles.
      const edited = (update.edit.documentChanges ?? []).map((change) => ("textDocument" in change ? change.textDocument.uri : ""));
      await client.close(prep());
      applyToDisk(update.edit);
      await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: edited.map((changed) => ({ uri: changed, type: FileChangeType.Changed })) });
      await client.open(prep(), readFileSync(file("skills/work/meeting-prep.skill.md"), "utf8"));
      assert.ok(!readFileSync(file("skills/work/meeting-prep.skill.md"), "utf8").includes("@search-info"));
      assert.ok(existsSync(file("skills/builtin/find-info.skill.md")));
      const after = await diagnosticsOf(prep());
      if (full) assert.deepEqual(after.filter((diagnostic) => diagnostic.code === "unknown-mention"), []);
      const again = (await client.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri: prep() }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, context: { diagnostics: [] } })) as CodeAction[];
      assert.deepEqual(again.filter((action) => action.kind === "source.updateRenamedSkill"), [], "the update is offered no more");
    });

    it("sent nothing the LSP 3.17 meta model or this client's capabilities rule out", async () => {
      // Let pushes and refreshes that follow the last change arrive.
      await new Promise((resolve) => setTimeout(resolve, 400));
      const problems: string[] = [];
      let checked = 0;
      for (const message of client.log.received) {
        const id = (message as { id?: number | string }).id;
        const method = "method" in message ? undefined : id === undefined ? undefined : client.log.sentRequests.get(id);
        problems.push(...messageProblems(model, profile.capabilities, message, method));
        checked++;
      }
      assert.deepEqual(problems, []);
      assert.ok(checked > 20, `${checked} messages checked`);
    });
  });
}

function isObjectWith(value: unknown, key: string): boolean {
  return typeof value === "object" && value !== null && key in value;
}
