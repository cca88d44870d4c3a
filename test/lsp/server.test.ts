import assert from "node:assert/strict";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
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
  type CompletionItem,
  type CompletionList,
  type Diagnostic,
  type DocumentDiagnosticReport,
  type DocumentSymbol,
  type Hover,
  type Location,
  type RenameFile,
  type TextDocumentEdit,
  type WorkspaceEdit,
} from "vscode-languageserver-protocol";
import {
  AlignmentRequest,
  CreateBuiltinsRequest,
  ExpandRequest,
  MintRequest,
  NewSkillRequest,
  SkillAtRequest,
  TOKEN_TYPES,
  ToolDescriptionRequest,
} from "../../shared/protocol.js";
import { TestClient, copyWorkspace, eventually, removeWorkspace, uriOf } from "./harness.js";

/** The position of the `nth` occurrence of `needle` in `text`, plus `shift` characters. */
function positionOf(text: string, needle: string, shift = 0, nth = 0) {
  let offset = -1;
  for (let i = 0; i <= nth; i++) offset = text.indexOf(needle, offset + 1);
  assert.ok(offset >= 0, `${needle} not found`);
  const before = text.slice(0, offset + shift);
  const line = before.split("\n").length - 1;
  return { line, character: before.length - before.lastIndexOf("\n") - 1 };
}

async function pullDiagnostics(client: TestClient, uri: string): Promise<Diagnostic[]> {
  const report = (await client.connection.sendRequest(DocumentDiagnosticRequest.type, { textDocument: { uri } })) as DocumentDiagnosticReport;
  assert.equal(report.kind, "full");
  return report.kind === "full" ? report.items : [];
}

function codes(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((diagnostic) => String(diagnostic.code)).sort();
}

describe("language server over stdio (pull diagnostics)", () => {
  let folder: string;
  let client: TestClient;
  const file = (relative: string) => path.join(folder, relative);
  const uri = (relative: string) => uriOf(file(relative));

  before(async () => {
    folder = copyWorkspace();
    client = await TestClient.start({ folders: [folder], pull: true });
  });
  after(async () => {
    await client.stop();
    removeWorkspace(folder);
  });

  it("indexes every skill at start and reports the menu", () => {
    assert.equal(client.status?.skills, 10);
    assert.equal(client.status?.planning, true);
    assert.match(client.status?.menuLabel ?? "", /^~\d+ tokens$/);
  });

  it("answers no diagnostics for the clean examples, workspace-wide", async () => {
    const report = await client.connection.sendRequest(WorkspaceDiagnosticRequest.type, { previousResultIds: [] });
    // Clean files the client holds no result for are left out, all but one: a result for the client to send back.
    assert.equal(report.items.length, 1);
    for (const item of report.items) assert.deepEqual(item.kind === "full" ? item.items : [], [], item.uri);
    // With every result current, the request is a long poll: it answers when a file changes.
    const again = client.connection.sendRequest(WorkspaceDiagnosticRequest.type, {
      previousResultIds: report.items.map((item) => ({ uri: item.uri, value: item.resultId ?? "" })),
    });
    const target = uri("skills/home/plan-trip.skill.md");
    await client.open(target, "---\nsummary: Plan a trip.\n---\nUse @nowhere.\n");
    const changed = await again;
    assert.deepEqual(changed.items.map((item) => item.uri), [target]);
    assert.deepEqual(codes(changed.items[0]?.kind === "full" ? changed.items[0].items : []), ["unknown-mention"]);
    await client.change(target, readFileSync(file("skills/home/plan-trip.skill.md"), "utf8"));
  });

  it("the workspace long poll reports a file deleted on disk, then the file back, and nothing else", async () => {
    const ids = (report: { items: { uri: string; resultId?: string }[] }) => report.items.flatMap((item) => (item.resultId ? [{ uri: item.uri, value: item.resultId }] : []));
    const first = await client.connection.sendRequest(WorkspaceDiagnosticRequest.type, { previousResultIds: [] });
    // The client holds results for the two files this is about, from document pulls (they share the ids), as VS Code does once it has pulled them.
    const pulled = await Promise.all(
      ["skills.json", "skills/home/retry-search.skill.md"].map(async (relative) => {
        const report = await client.connection.sendRequest(DocumentDiagnosticRequest.type, { textDocument: { uri: uri(relative) } });
        return { uri: uri(relative), resultId: report.kind === "full" ? report.resultId : undefined };
      }),
    );
    const current = { items: [...ids(first).map((entry) => ({ uri: entry.uri, resultId: entry.value })), ...pulled] };
    const gone = file("skills/home/retry-search.skill.md");
    const text = readFileSync(gone, "utf8");
    const deleted = client.connection.sendRequest(WorkspaceDiagnosticRequest.type, { previousResultIds: ids(current) });
    rmSync(gone);
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [{ uri: uri("skills/home/retry-search.skill.md"), type: FileChangeType.Deleted }] });
    const afterDelete = await deleted;
    const summary = (report: typeof afterDelete) => report.items.map((item) => [item.uri, codes(item.kind === "full" ? item.items : [])]).sort();
    // The file, cleared; skills.json, whose menu names it; no other file.
    assert.deepEqual(summary(afterDelete), [[uri("skills.json"), ["config-unknown-handle"]], [uri("skills/home/retry-search.skill.md"), []]]);

    // What the client holds now: the first results, updated by the second (the deleted file has none).
    const held = new Map(ids(current).map((entry) => [entry.uri, entry.value]));
    for (const item of afterDelete.items) {
      if (item.resultId) held.set(item.uri, item.resultId);
      else held.delete(item.uri);
    }
    const restored = client.connection.sendRequest(WorkspaceDiagnosticRequest.type, { previousResultIds: [...held].map(([heldUri, value]) => ({ uri: heldUri, value })) });
    writeFileSync(gone, text);
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [{ uri: uri("skills/home/retry-search.skill.md"), type: FileChangeType.Created }] });
    // The file back is clean and the client holds nothing for it: no entry.
    assert.deepEqual(summary(await restored), [[uri("skills.json"), []]]);
    assert.equal(await client.has(uri("skills/home/retry-search.skill.md")), true);
  });

  it("the workspace report clears a file a document pull showed a problem in, though the client holds no result for it", async () => {
    const target = uri("skills/work/follow-up.skill.md");
    await client.open(target, `${readFileSync(file("skills/work/follow-up.skill.md"), "utf8")}\nThen @weekly-digest.\n`);
    assert.deepEqual(codes(await pullDiagnostics(client, target)), ["unknown-mention"]);
    // Closed, the file is its clean text on disk again; VS Code keeps what its last pull of the editor showed.
    await client.close(target);
    await eventually(async () => {
      const report = await client.connection.sendRequest(WorkspaceDiagnosticRequest.type, { previousResultIds: [] });
      const entry = report.items.find((item) => item.uri === target);
      assert.deepEqual(entry?.kind === "full" ? entry.items : undefined, []);
    });
    // Told once: then it is a clean file like the others.
    const next = await client.connection.sendRequest(WorkspaceDiagnosticRequest.type, { previousResultIds: [] });
    assert.ok(next.items.length === 1 || !next.items.some((item) => item.uri === target), "reported once");
  });

  it("completes the namespace after @, skills and tools told apart, never the skill itself", async () => {
    const target = uri("skills/work/meeting-prep.skill.md");
    const text = readFileSync(file("skills/work/meeting-prep.skill.md"), "utf8") + "\nAlso use @";
    await client.open(target, text);
    const lines = text.split("\n");
    const position = { line: lines.length - 1, character: (lines.at(-1) ?? "").length };
    const list = (await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: target }, position, context: { triggerKind: 2, triggerCharacter: "@" } })) as CompletionList;
    const labels = list.items.map((item) => item.label);
    assert.ok(labels.includes("@search-info"));
    assert.ok(labels.includes("@find-file"));
    assert.ok(!labels.includes("@meeting-prep"), "a skill never suggests itself");
    assert.ok(!labels.includes("@draft-reply"), "disabled skills are not offered");
    const skill = list.items.find((item) => item.label === "@search-info");
    const tool = list.items.find((item) => item.label === "@find-file");
    assert.notEqual(skill?.kind, tool?.kind);
    assert.equal(skill?.labelDetails?.detail, " skill");
    assert.equal(tool?.labelDetails?.detail, " tool");
    const resolved = (await client.connection.sendRequest(CompletionResolveRequest.type, skill as CompletionItem)) as CompletionItem;
    const documentation = typeof resolved.documentation === "string" ? resolved.documentation : resolved.documentation?.value ?? "";
    assert.match(documentation, /Binds `check_notebook`, `list_devices`, `find_file`, `grep_memory`/);
  });

  it("completes inside a partial mention, by slug or display name", async () => {
    const target = uri("skills/home/plan-trip.skill.md");
    const text = "Use @sch";
    await client.open(target, text);
    const list = (await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: target }, position: { line: 0, character: 8 } })) as CompletionList;
    const labels = list.items.map((item) => item.label);
    assert.ok(labels.includes("@check-schedule"));
    assert.ok(!labels.includes("@find-file") && !labels.includes("@plan-trip"), labels.join());
    assert.deepEqual(list.items[0]?.textEdit && "range" in list.items[0].textEdit ? list.items[0].textEdit.range : undefined, { start: { line: 0, character: 4 }, end: { line: 0, character: 8 } });
    await client.change(target, readFileSync(file("skills/home/plan-trip.skill.md"), "utf8"));
  });

  it("completes frontmatter keys and values", async () => {
    const target = uri("skills/home/new-one.skill.md");
    await client.open(target, "---\nenabled: \n\n---\nBody\n");
    const keys = (await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: target }, position: { line: 2, character: 0 } })) as CompletionList;
    const labels = keys.items.map((item) => item.label);
    assert.ok(labels.includes("summary") && labels.includes("advertised") && labels.includes("examples"));
    assert.ok(!labels.includes("enabled"), "a key already present is not offered again");
    const values = (await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: target }, position: { line: 1, character: 9 } })) as CompletionList;
    assert.deepEqual(values.items.map((item) => item.label), ["true", "false"]);
  });

  it("colours mentions by what they resolve to, full and by range", async () => {
    const target = uri("skills/home/retry-search.skill.md");
    const text = "---\nsummary: Try again.\n---\n@grep-memory then @retry-search then @fetch-file, @nowhere and @draft-reply\n";
    await client.open(target, text);
    const full = await client.connection.sendRequest(SemanticTokensRequest.type, { textDocument: { uri: target } });
    const tokens = [];
    const data = full?.data ?? [];
    for (let i = 0; i < data.length; i += 5) tokens.push({ length: data[i + 2], type: TOKEN_TYPES[data[i + 3] ?? 0], modifiers: data[i + 4] });
    assert.deepEqual(tokens, [
      { length: 12, type: "toolMention", modifiers: 0 },
      { length: 13, type: "skillMention", modifiers: 2 },
      { length: 11, type: "skillMention", modifiers: 0 },
      { length: 8, type: "unresolvedMention", modifiers: 0 },
      { length: 12, type: "skillMention", modifiers: 1 },
    ]);
    const ranged = await client.connection.sendRequest(SemanticTokensRangeRequest.type, { textDocument: { uri: target }, range: { start: { line: 0, character: 0 }, end: { line: 2, character: 0 } } });
    assert.deepEqual(ranged?.data, []);
    assert.deepEqual(codes(await pullDiagnostics(client, target)), ["disabled-mention", "unknown-mention"]);
    await client.change(target, readFileSync(file("skills/home/retry-search.skill.md"), "utf8"));
  });

  it("diagnoses a dangling mention, and clears it when the skill is created on disk", async () => {
    const target = uri("skills/work/triage-inbox.skill.md");
    const text = readFileSync(file("skills/work/triage-inbox.skill.md"), "utf8") + "\nThen @weekly-review.\n";
    await client.open(target, text);
    const diagnostics = await pullDiagnostics(client, target);
    assert.deepEqual(codes(diagnostics), ["unknown-mention"]);
    assert.match(diagnostics[0]?.message ?? "", /@weekly-review — unknown/);

    const refreshesBefore = client.refreshes.filter((what) => what === "diagnostics").length;
    writeFileSync(file("skills/work/weekly-review.skill.md"), "---\nsummary: Review the week.\n---\nUse @calendar.\n");
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [{ uri: uri("skills/work/weekly-review.skill.md"), type: FileChangeType.Created }] });
    await client.waitFor(() => client.refreshes.filter((what) => what === "diagnostics").length > refreshesBefore);
    assert.deepEqual(await pullDiagnostics(client, target), []);

    rmSync(file("skills/work/weekly-review.skill.md"));
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [{ uri: uri("skills/work/weekly-review.skill.md"), type: FileChangeType.Deleted }] });
    await eventually(async () => assert.deepEqual(codes(await pullDiagnostics(client, target)), ["unknown-mention"]));
    await client.change(target, readFileSync(file("skills/work/triage-inbox.skill.md"), "utf8"));
  });

  it("re-diagnoses dependents when a skill is disabled, and lists duplicates with related information", async () => {
    const fetch = uri("skills/builtin/fetch-file.skill.md");
    const search = uri("skills/builtin/search-info.skill.md");
    const original = readFileSync(file("skills/builtin/fetch-file.skill.md"), "utf8");
    await client.open(fetch, original.replace("advertised: false", "advertised: false\nenabled: false"));
    assert.deepEqual(codes(await pullDiagnostics(client, search)), ["disabled-mention", "disabled-mention"].slice(0, (readFileSync(file("skills/builtin/search-info.skill.md"), "utf8").match(/@fetch-file/g) ?? []).length));
    await client.change(fetch, original);
    assert.deepEqual(await pullDiagnostics(client, search), []);

    const copy = uri("skills/home/fetch-file.skill.md");
    await client.open(copy, original);
    const duplicate = (await pullDiagnostics(client, copy)).find((diagnostic) => diagnostic.code === "duplicate-handle");
    assert.ok(duplicate);
    assert.deepEqual(duplicate.relatedInformation?.map((related) => related.location.uri), [fetch]);
    assert.deepEqual(codes(await pullDiagnostics(client, fetch)), ["duplicate-handle"]);
  });

  it("offers quick fixes: nearest slug, create the skill, normalise case, rename a duplicate", async () => {
    const copy = uri("skills/home/fetch-file.skill.md");
    const target = uri("skills/home/plan-trip.skill.md");
    await client.change(target, "Use @serch-info and @Check-Schedule.\n");
    const diagnostics = await pullDiagnostics(client, target);
    const actions = (await client.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri: target }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, context: { diagnostics } })) ?? [];
    const titles = actions.map((action) => action.title);
    assert.ok(titles.includes("Change to @search-info"), titles.join());
    assert.ok(titles.includes("Create skill @serch-info"));
    assert.ok(titles.includes("Write @check-schedule"));
    const create = actions.find((action) => action.title === "Create skill @serch-info");
    const change = create && "edit" in create ? create.edit?.documentChanges?.[0] : undefined;
    assert.deepEqual(change, { kind: "create", uri: uri("skills/home/serch-info.skill.md"), options: { overwrite: false, ignoreIfExists: true } });

    const duplicate = await pullDiagnostics(client, copy);
    const renames = (await client.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri: copy }, range: duplicate[0]?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, context: { diagnostics: duplicate } })) ?? [];
    const rename = renames.find((action) => action.title === "Rename this skill to @fetch-file-2");
    assert.ok(rename, renames.map((action) => action.title).join());
    await client.change(target, readFileSync(file("skills/home/plan-trip.skill.md"), "utf8"));
    await client.close(copy);
    await eventually(async () => assert.deepEqual(await pullDiagnostics(client, uri("skills/builtin/fetch-file.skill.md")), []));
  });

  it("goes to definitions, finds references, hovers, and lists symbols", async () => {
    const search = uri("skills/builtin/search-info.skill.md");
    const text = readFileSync(file("skills/builtin/search-info.skill.md"), "utf8");
    const onFetch = positionOf(text, "@fetch-file", 3);
    const definitions = (await client.connection.sendRequest(DefinitionRequest.type, { textDocument: { uri: search }, position: onFetch })) as Location[];
    assert.deepEqual(definitions.map((location) => location.uri), [uri("skills/builtin/fetch-file.skill.md")]);
    const toolDefinition = (await client.connection.sendRequest(DefinitionRequest.type, { textDocument: { uri: search }, position: positionOf(text, "@check-notebook", 2) })) as Location[];
    assert.deepEqual(toolDefinition.map((location) => location.uri), ["skill-tool:/check-notebook.md"]);
    assert.match(await client.connection.sendRequest(ToolDescriptionRequest, { slug: "check-notebook" }), /check_notebook/);

    const refs = (await client.connection.sendRequest(ReferencesRequest.type, { textDocument: { uri: search }, position: onFetch, context: { includeDeclaration: true } })) ?? [];
    const files = [...new Set(refs.map((location) => path.basename(location.uri)))].sort();
    assert.deepEqual(files, ["fetch-file.skill.md", "meeting-prep.skill.md", "plan-trip.skill.md", "search-info.skill.md"]);

    const hover = (await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri: search }, position: onFetch })) as Hover;
    const value = typeof hover.contents === "object" && "value" in hover.contents ? hover.contents.value : "";
    assert.match(value, /Fetch File/);
    assert.match(value, /Binds `list_devices`, `find_file`/);
    assert.match(value, /not advertised/);
    assert.match(value, /Mentioned by 3 files/);
    // A tool's hover has the skill hover's shape: one bold heading line, no Markdown heading.
    const toolHover = (await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri: search }, position: positionOf(text, "@check-notebook", 2) })) as Hover;
    const toolValue = typeof toolHover.contents === "object" && "value" in toolHover.contents ? toolHover.contents.value : "";
    assert.match(value.split("\n")[0] ?? "", /^\*\*Fetch File\*\* · skill `@fetch-file`$/);
    assert.match(toolValue.split("\n")[0] ?? "", /^\*\*[^*]+\*\* · tool `@check-notebook` · `check_notebook` \(built in\)$/);
    assert.doesNotMatch(toolValue, /^#/m);

    const symbols = (await client.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri: search } })) as DocumentSymbol[];
    assert.equal(symbols[0]?.name, "@search-info");
    assert.deepEqual(symbols[0]?.children?.map((child) => child.name), ["@check-notebook", "@fetch-file", "@grep-memory"]);
    const workspaceSymbols = (await client.connection.sendRequest(WorkspaceSymbolRequest.type, { query: "sched" })) ?? [];
    assert.deepEqual(workspaceSymbols.map((symbol) => symbol.name), ["@check-schedule"]);

    const lenses = (await client.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri: uri("skills/builtin/fetch-file.skill.md") } })) ?? [];
    assert.equal(lenses[0]?.command?.title, "3 references · binds list_devices, find_file");
  });

  it("answers the custom requests", async () => {
    const expansion = await client.connection.sendRequest(ExpandRequest, { handles: ["@search-info"] });
    assert.deepEqual(expansion.tools.map((tool) => tool.name), ["check_notebook", "list_devices", "find_file", "grep_memory"]);
    const alignment = await client.connection.sendRequest(AlignmentRequest);
    assert.match(alignment.text, /\nYour skills:\n- @search-info: /);
    assert.match(alignment.text, /\nYour tools:\n- @current-date: /);
    assert.equal(alignment.exact, false);
    assert.deepEqual({ fits: alignment.fit.fits, contextSize: alignment.fit.contextSize, budget: alignment.fit.budget }, { fits: true, contextSize: 4096, budget: 3328 });
    assert.deepEqual(await client.connection.sendRequest(MintRequest, { title: "Fetch File" }), { handle: "fetch-file-2", suffixed: true });
    assert.deepEqual(await client.connection.sendRequest(MintRequest, { title: "Meeting Notes!" }), { handle: "meeting-notes", suffixed: false });
    const created = await client.connection.sendRequest(NewSkillRequest, { title: "Plan Trip", folderUri: uriOf(folder) });
    assert.equal(created.handle, "plan-trip-2");
    assert.equal(created.uri, uriOf(path.join(folder, "plan-trip-2.skill.md")));
    const builtins = await client.connection.sendRequest(CreateBuiltinsRequest, { folderUri: uriOf(folder) });
    assert.deepEqual(builtins.created, []);
    assert.deepEqual(builtins.skipped, ["fetch-file", "check-schedule", "search-info"]);
    assert.deepEqual(await client.connection.sendRequest(SkillAtRequest, { uri: uri("skills/builtin/fetch-file.skill.md") }), { handle: "fetch-file", title: "Fetch File", valid: true });
    await assert.rejects(client.connection.sendRequest(ToolDescriptionRequest, { slug: "nope" }), /No tool is named @nope/);
  });
});

describe("rename over stdio", () => {
  let folder: string;
  let client: TestClient;
  const file = (relative: string) => path.join(folder, relative);
  const uri = (relative: string) => uriOf(file(relative));

  before(async () => {
    folder = copyWorkspace();
    client = await TestClient.start({ folders: [folder], pull: false });
  });
  after(async () => {
    await client.stop();
    removeWorkspace(folder);
  });

  it("prepares a rename on a mention and refuses elsewhere", async () => {
    const search = uri("skills/builtin/search-info.skill.md");
    const text = readFileSync(file("skills/builtin/search-info.skill.md"), "utf8");
    const position = positionOf(text, "@fetch-file", 4);
    const prepared = await client.connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri: search }, position });
    assert.deepEqual(prepared, { range: { start: { line: position.line, character: position.character - 3 }, end: { line: position.line, character: position.character + 7 } }, placeholder: "fetch-file" });
    await assert.rejects(client.connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri: search }, position: { line: 0, character: 1 } }), /Place the cursor on an @mention/);
    await assert.rejects(client.connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri: search }, position: positionOf(text, "@grep-memory", 2) }), /is a tool/);
  });

  it("renames with one workspace edit: versioned text edits, then the file", async () => {
    const search = uri("skills/builtin/search-info.skill.md");
    const text = readFileSync(file("skills/builtin/search-info.skill.md"), "utf8");
    await client.open(search, text);
    const edit = (await client.connection.sendRequest(RenameRequest.type, { textDocument: { uri: search }, position: positionOf(text, "@fetch-file", 2), newName: "get-file" })) as WorkspaceEdit;
    const changes = edit.documentChanges ?? [];
    const textEdits = changes.filter((change): change is TextDocumentEdit => "textDocument" in change);
    assert.deepEqual(textEdits.map((change) => path.basename(change.textDocument.uri)).sort(), ["meeting-prep.skill.md", "plan-trip.skill.md", "search-info.skill.md"]);
    assert.equal(textEdits.find((change) => change.textDocument.uri === search)?.textDocument.version, 1);
    assert.equal(textEdits.find((change) => change.textDocument.uri !== search)?.textDocument.version, null);
    for (const change of textEdits) for (const one of change.edits) assert.equal(one.newText, "@get-file");
    const last = changes.at(-1) as RenameFile;
    assert.deepEqual(last, { kind: "rename", oldUri: uri("skills/builtin/fetch-file.skill.md"), newUri: uri("skills/builtin/get-file.skill.md"), options: { overwrite: false, ignoreIfExists: false } });
    // When the client applies that file rename it asks again: the text edits are already in the edit, so no second cascade.
    const again = await client.connection.sendRequest(WillRenameFilesRequest.type, { files: [{ oldUri: last.oldUri, newUri: last.newUri }] });
    assert.equal(again, null);
    const explorer = (await client.connection.sendRequest(WillRenameFilesRequest.type, { files: [{ oldUri: last.oldUri, newUri: last.newUri }] })) as WorkspaceEdit;
    assert.equal(explorer.documentChanges?.length, 3, "a later rename of the same file in the explorer cascades");
  });

  it("refuses an invalid or taken name and says why", async () => {
    const search = uri("skills/builtin/search-info.skill.md");
    const text = readFileSync(file("skills/builtin/search-info.skill.md"), "utf8");
    const position = positionOf(text, "@fetch-file", 2);
    await assert.rejects(client.connection.sendRequest(RenameRequest.type, { textDocument: { uri: search }, position, newName: "Get File" }), /not a valid handle/);
    await assert.rejects(client.connection.sendRequest(RenameRequest.type, { textDocument: { uri: search }, position, newName: "find-file" }), /taken by the built-in tool find_file/);
    await assert.rejects(client.connection.sendRequest(RenameRequest.type, { textDocument: { uri: search }, position, newName: "check-schedule" }), /taken by the skill .*check-schedule\.skill\.md/);
  });

  it("answers the cascade when a file is renamed in the explorer, and re-indexes after the move", async () => {
    const oldFile = file("skills/work/follow-up.skill.md");
    const newFile = file("skills/work/chase-up.skill.md");
    const edit = (await client.connection.sendRequest(WillRenameFilesRequest.type, { files: [{ oldUri: uriOf(oldFile), newUri: uriOf(newFile) }] })) as WorkspaceEdit;
    const textEdits = (edit.documentChanges ?? []) as TextDocumentEdit[];
    assert.deepEqual(textEdits.map((change) => path.basename(change.textDocument.uri)), ["skills.json", "triage-inbox.skill.md"]);
    assert.deepEqual(textEdits.flatMap((change) => change.edits.map((one) => one.newText)), ["@chase-up", "@chase-up"]);
    const taken = await client.connection.sendRequest(WillRenameFilesRequest.type, { files: [{ oldUri: uriOf(oldFile), newUri: uri("skills/work/calendar.skill.md") }] });
    assert.equal(taken, null);
    await client.waitFor(() => client.messages.some((message) => /taken by the built-in tool queryCalendar/.test(message)));

    // The move happens on disk without the edit: the mention now dangles, and push diagnostics say so.
    renameSync(oldFile, newFile);
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, {
      changes: [
        { uri: uriOf(oldFile), type: FileChangeType.Deleted },
        { uri: uriOf(newFile), type: FileChangeType.Created },
      ],
    });
    const triage = uri("skills/work/triage-inbox.skill.md");
    await client.waitFor(() => (client.pushed.get(triage) ?? []).some((diagnostic) => diagnostic.code === "unknown-mention"));
    assert.ok(existsSync(newFile));
  });
});

describe("completion for a client that takes a list's item defaults", () => {
  it("sends the edit range once for the list, and each item's detail on resolve", async () => {
    const folder = copyWorkspace();
    const client = await TestClient.start({ folders: [folder], completionItemDefaults: true });
    try {
      const target = uriOf(path.join(folder, "skills/home/plan-trip.skill.md"));
      await client.open(target, "Use @sch and more");
      const list = (await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: target }, position: { line: 0, character: 8 } })) as CompletionList;
      assert.deepEqual(list.itemDefaults?.editRange, { start: { line: 0, character: 4 }, end: { line: 0, character: 8 } });
      const item = list.items.find((candidate) => candidate.label === "@check-schedule");
      assert.ok(item, list.items.map((candidate) => candidate.label).join());
      assert.equal(item.textEdit, undefined, "the label is the text the shared range takes");
      assert.equal(item.labelDetails?.detail, " skill");
      const resolved = (await client.connection.sendRequest(CompletionResolveRequest.type, item)) as CompletionItem;
      assert.equal(resolved.detail, "Skill: Check Schedule");
      const documentation = typeof resolved.documentation === "string" ? resolved.documentation : resolved.documentation?.value ?? "";
      assert.match(documentation, /^Check/);
      const tool = (await client.connection.sendRequest(CompletionResolveRequest.type, { label: "@find-file" })) as CompletionItem;
      assert.match(tool.detail ?? "", /^Tool: find_file\(/);
    } finally {
      await client.stop();
      removeWorkspace(folder);
    }
  });
});

describe("completion in a workspace of more skills than a list holds", () => {
  it("offers the tools, then the skills whose handle starts with what was typed, and says the list is incomplete", async () => {
    const folder = copyWorkspace();
    // 150 skills whose handles start with "zeta-" and 150 that only contain z, e, t and a in order.
    for (let i = 0; i < 150; i++) {
      writeFileSync(path.join(folder, `skills/zeta-${i}.skill.md`), `---\nsummary: Zeta number ${i}.\n---\n\nStep ${i}.\n`);
      writeFileSync(path.join(folder, `skills/ozone-treat-${i}.skill.md`), `---\nsummary: Ozone number ${i}.\n---\n\nStep ${i}.\n`);
    }
    const client = await TestClient.start({ folders: [folder], completionItemDefaults: true });
    try {
      const target = uriOf(path.join(folder, "skills/home/plan-trip.skill.md"));
      await client.open(target, "Use @");
      const everything = (await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: target }, position: { line: 0, character: 5 } })) as CompletionList;
      assert.equal(everything.isIncomplete, true);
      assert.ok(everything.items.length <= 100, `${everything.items.length} items`);
      assert.ok(everything.items.some((item) => item.label === "@find-file"), "a tool is offered among 300 skills");
      await client.change(target, "Use @zeta");
      const typed = (await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: target }, position: { line: 0, character: 9 } })) as CompletionList;
      const skills = typed.items.filter((item) => item.labelDetails?.detail === " skill").map((item) => item.label);
      assert.equal(typed.isIncomplete, true);
      assert.ok(skills.length > 0 && skills.every((label) => label.startsWith("@zeta-")), skills.slice(0, 5).join());
    } finally {
      await client.stop();
      removeWorkspace(folder);
    }
  });
});

describe("server lifecycle", () => {
  it("exits cleanly on shutdown and exit", async () => {
    const folder = copyWorkspace();
    const client = await TestClient.start({ folders: [folder] });
    assert.equal(await client.stop(), 0);
    removeWorkspace(folder);
  });
});
