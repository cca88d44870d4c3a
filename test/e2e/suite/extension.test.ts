import * as assert from "node:assert/strict";
import * as vscode from "vscode";
// Other extensions may register token providers for every language, so the legend command can answer theirs:
// decode with the server's own legend.
import { TOKEN_TYPES } from "../../../shared/protocol.js";
import { eventually, exists, fileUri, folder, read } from "./workspace.js";

const EXTENSION_ID = "skill-lsp.skill-lsp";

function codesOf(uri: vscode.Uri): string[] {
  return vscode.languages
    .getDiagnostics(uri)
    .filter((diagnostic) => diagnostic.source === "skill")
    .map((diagnostic) => (typeof diagnostic.code === "object" ? String(diagnostic.code.value) : String(diagnostic.code)))
    .sort();
}

async function openSkill(relative: string): Promise<vscode.TextEditor> {
  const document = await vscode.workspace.openTextDocument(fileUri(relative));
  return vscode.window.showTextDocument(document);
}

function positionOf(document: vscode.TextDocument, needle: string, shift = 0): vscode.Position {
  const offset = document.getText().indexOf(needle);
  assert.ok(offset >= 0, `${needle} not found in ${document.uri.path}`);
  return document.positionAt(offset + shift);
}

/** Activates the extension and waits until the server answers a request that needs the index. */
async function whenServerReady(): Promise<void> {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is installed`);
  await extension.activate();
  // Code lenses are computed for documents the editor has loaded.
  await openSkill("skills/builtin/fetch-file.skill.md");
  await openSkill("skills/builtin/search-info.skill.md");
  await eventually(async () => {
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", fileUri("skills/builtin/fetch-file.skill.md"));
    assert.match(lenses[0]?.command?.title ?? "", /references · binds list_devices, find_file/);
  }, 45_000);
}

suite("skill-lsp in VS Code", () => {
  suiteSetup(async function () {
    this.timeout(60_000);
    await whenServerReady();
  });

  test("activates on the skill language", () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.equal(extension?.isActive, true);
    assert.equal(vscode.window.activeTextEditor?.document.languageId, "agent-skill");
  });

  test("completes skills and tools after @, told apart", async () => {
    const editor = await openSkill("skills/work/meeting-prep.skill.md");
    const end = editor.document.lineAt(editor.document.lineCount - 1).range.end;
    await editor.edit((builder) => builder.insert(end, "\nThen @"));
    const position = editor.document.lineAt(editor.document.lineCount - 1).range.end;
    const list = await vscode.commands.executeCommand<vscode.CompletionList>("vscode.executeCompletionItemProvider", editor.document.uri, position, "@");
    const byLabel = new Map(list.items.map((item) => [typeof item.label === "string" ? item.label : item.label.label, item]));
    assert.equal(byLabel.get("@search-info")?.kind, vscode.CompletionItemKind.Module);
    assert.equal(byLabel.get("@find-file")?.kind, vscode.CompletionItemKind.Function);
    assert.ok(!byLabel.has("@meeting-prep"), "a skill never suggests itself");
    // The list's shared edit range reached every item: accepting one replaces the typed `@`, not just after it.
    const item = byLabel.get("@search-info");
    const range = item?.range instanceof vscode.Range ? item.range : item?.range?.replacing;
    assert.deepEqual([range?.start.line, range?.start.character, range?.end.character], [position.line, position.character - 1, position.character]);
    assert.ok(range && item && (await editor.edit((builder) => builder.replace(range, typeof item.insertText === "string" ? item.insertText : "@search-info"))));
    assert.equal(editor.document.lineAt(position.line).text, "Then @search-info");
    await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");
  });

  test("colours mentions through semantic tokens", async () => {
    const editor = await openSkill("skills/builtin/search-info.skill.md");
    const tokens = await eventually(async () => {
      const result = await vscode.commands.executeCommand<vscode.SemanticTokens>("vscode.provideDocumentSemanticTokens", editor.document.uri);
      assert.ok(result && result.data.length > 0);
      return result;
    });
    const types: string[] = [];
    for (let i = 0; i < tokens.data.length; i += 5) types.push(TOKEN_TYPES[tokens.data[i + 3] ?? 0] ?? "?");
    assert.deepEqual(types, ["toolMention", "skillMention", "toolMention"]);
  });

  test("shows a dangling mention in Problems and clears it when the skill is created", async () => {
    const editor = await openSkill("skills/work/triage-inbox.skill.md");
    const original = editor.document.getText();
    await editor.edit((builder) => builder.insert(editor.document.lineAt(editor.document.lineCount - 1).range.end, "\nFinally @weekly-review."));
    await eventually(() => assert.deepEqual(codesOf(editor.document.uri), ["unknown-mention"]));
    await vscode.workspace.fs.writeFile(fileUri("skills/work/weekly-review.skill.md"), new TextEncoder().encode("---\nsummary: Review the week.\n---\nUse @calendar.\n"));
    await eventually(() => assert.deepEqual(codesOf(editor.document.uri), []));
    await vscode.workspace.fs.delete(fileUri("skills/work/weekly-review.skill.md"));
    await eventually(() => assert.deepEqual(codesOf(editor.document.uri), ["unknown-mention"]));
    const whole = new vscode.Range(editor.document.positionAt(0), editor.document.positionAt(editor.document.getText().length));
    await editor.edit((builder) => builder.replace(whole, original));
    await editor.document.save();
    await eventually(() => assert.deepEqual(codesOf(editor.document.uri), []));
  });

  test("applies a quick fix", async () => {
    const editor = await openSkill("skills/home/plan-trip.skill.md");
    const position = positionOf(editor.document, "@search-info");
    await editor.edit((builder) => builder.replace(new vscode.Range(position, position.translate(0, "@search-info".length)), "@serch-info"));
    const diagnostic = await eventually(() => {
      const found = vscode.languages.getDiagnostics(editor.document.uri).find((one) => String(typeof one.code === "object" ? one.code.value : one.code) === "unknown-mention");
      assert.ok(found);
      return found;
    });
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>("vscode.executeCodeActionProvider", editor.document.uri, diagnostic.range, vscode.CodeActionKind.QuickFix.value);
    const fix = actions.find((action) => action.title === "Change to @search-info");
    assert.ok(fix?.edit, actions.map((action) => action.title).join(", "));
    assert.ok(await vscode.workspace.applyEdit(fix.edit));
    assert.match(editor.document.getText(), /Use @search-info for bookings/);
    await eventually(() => assert.deepEqual(codesOf(editor.document.uri), []));
    await editor.document.save();
  });

  test("renames with F2 across files, renames the file, and undoes in one step", async () => {
    const editor = await openSkill("skills/builtin/search-info.skill.md");
    const edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit>("vscode.executeDocumentRenameProvider", editor.document.uri, positionOf(editor.document, "@fetch-file", 2), "get-file");
    const touched = new Set(edit.entries().map(([uri]) => uri.path.split("/").pop()));
    assert.deepEqual([...touched].sort(), ["meeting-prep.skill.md", "plan-trip.skill.md", "search-info.skill.md"]);
    assert.ok(await vscode.workspace.applyEdit(edit));
    const rewritten = ["skills/builtin/search-info.skill.md", "skills/work/meeting-prep.skill.md", "skills/home/plan-trip.skill.md"];
    for (const file of rewritten) {
      const document = await vscode.workspace.openTextDocument(fileUri(file));
      assert.match(document.getText(), /@get-file/, file);
      assert.doesNotMatch(document.getText(), /@fetch-file/, file);
    }
    assert.ok(await exists("skills/builtin/get-file.skill.md"));
    assert.ok(!(await exists("skills/builtin/fetch-file.skill.md")));
    await eventually(() => assert.deepEqual(codesOf(editor.document.uri), []));

    await vscode.window.showTextDocument(editor.document);
    await vscode.commands.executeCommand("undo");
    await eventually(async () => {
      assert.ok(await exists("skills/builtin/fetch-file.skill.md"));
      assert.ok(!(await exists("skills/builtin/get-file.skill.md")));
      assert.match(editor.document.getText(), /@fetch-file/);
      for (const file of rewritten) assert.doesNotMatch((await vscode.workspace.openTextDocument(fileUri(file))).getText(), /@get-file/, file);
    });
    for (const file of rewritten) await (await vscode.workspace.openTextDocument(fileUri(file))).save();
  });

  test("a file renamed through workspace.applyEdit triggers the cascade", async () => {
    const rename = new vscode.WorkspaceEdit();
    rename.renameFile(fileUri("skills/work/follow-up.skill.md"), fileUri("skills/work/chase-up.skill.md"));
    assert.ok(await vscode.workspace.applyEdit(rename));
    // The cascade lands in the editor's buffers, like any refactoring: visible, undoable, saved by the user.
    const triage = await vscode.workspace.openTextDocument(fileUri("skills/work/triage-inbox.skill.md"));
    const config = await vscode.workspace.openTextDocument(fileUri("skills.json"));
    assert.match(triage.getText(), /hand it to @chase-up so/);
    assert.match(config.getText(), /"@chase-up"/);
    assert.ok(await triage.save());
    assert.ok(await config.save());
    assert.match(await read("skills/work/triage-inbox.skill.md"), /@chase-up/);
    await eventually(() => assert.deepEqual(codesOf(triage.uri), []));
  });

  test("a skill file renamed on disk, not in the editor, offers the one-click update of its mentions", async function () {
    this.timeout(60_000);
    const mentioners = ["skills/work/meeting-prep.skill.md", "skills/home/plan-trip.skill.md", "skills.json"];
    /** Renames the skill file on disk as `git mv` would, then takes the workspace action the server offers. */
    const moveAndUpdate = async (from: string, to: string) => {
      const { renameSync } = await import("node:fs");
      renameSync(fileUri(`skills/builtin/${from}.skill.md`).fsPath, fileUri(`skills/builtin/${to}.skill.md`).fsPath);
      const prep = fileUri("skills/work/meeting-prep.skill.md");
      await vscode.workspace.openTextDocument(prep);
      const dangling = await eventually(() => {
        const found = vscode.languages.getDiagnostics(prep).find((one) => one.message.startsWith(`@${from} — unknown`));
        assert.ok(found, `@${from} dangles`);
        return found;
      });
      const fixes = await vscode.commands.executeCommand<vscode.CodeAction[]>("vscode.executeCodeActionProvider", prep, dangling.range, vscode.CodeActionKind.QuickFix.value);
      assert.ok(fixes.some((action) => action.title === `Change to @${to} (the skill was renamed from @${from})`), fixes.map((action) => action.title).join(", "));
      const actions = await eventually(async () => {
        const found = await vscode.commands.executeCommand<vscode.CodeAction[]>("vscode.executeCodeActionProvider", prep, dangling.range, "source.updateRenamedSkill");
        assert.equal(found.length, 1);
        return found;
      });
      const update = actions[0];
      assert.equal(update?.title, `@${from} was renamed to @${to}: update 3 mentions in 3 files`);
      assert.ok(update?.edit && (await vscode.workspace.applyEdit(update.edit)));
      for (const relative of mentioners) {
        const document = await vscode.workspace.openTextDocument(fileUri(relative));
        assert.match(document.getText(), new RegExp(`@${to}\\b`), relative);
        assert.doesNotMatch(document.getText(), new RegExp(`@${from}\\b`), relative);
        assert.ok(await document.save(), relative);
      }
      await eventually(() => assert.deepEqual(codesOf(prep), []));
    };
    await moveAndUpdate("check-schedule", "calendar-check");
    // And back, so the suites after this one find the workspace as it was.
    await moveAndUpdate("calendar-check", "check-schedule");
  });

  test("New Skill mints a suffixed handle on a collision", async () => {
    const created = await vscode.commands.executeCommand<string>("skill.newSkill", fileUri("skills/home"), "Plan Trip", "skill-file");
    assert.equal(vscode.Uri.parse(created).path.split("/").pop(), "plan-trip-2.skill.md");
    assert.ok(await exists("skills/home/plan-trip-2.skill.md"));
    assert.match(await read("skills/home/plan-trip-2.skill.md"), /^---\ntitle: Plan Trip\n/);
  });

  test("Show Alignment opens the planner's prompt with its size", async () => {
    const text = await vscode.commands.executeCommand<string>("skill.showAlignment");
    assert.match(text, /The planner's system prompt: ~\d{1,3}(,\d{3})* tokens/);
    assert.match(text, /\nYour skills:\n- @search-info: /);
    // examples/ puts one tool on the menu: "1 tool", not "1 tools".
    assert.match(text, /<!-- Planning is on: \d+ skills and 1 tool on the menu\. -->/);
    assert.match(text, /<!-- It fits the model's context of 4,096 tokens, which leaves 3,328 for the menu once the request and the plan have their room\. -->/);
    assert.equal(vscode.window.activeTextEditor?.document.uri.scheme, "skill-alignment");
  });
});

suite("Run Plan in VS Code", () => {
  suiteSetup(async function () {
    this.timeout(60_000);
    await whenServerReady();
  });

  test("plans, binds, executes on the configured model and shows each step in the panel", async function () {
    this.timeout(120_000);
    type Message = { kind: string; event?: { type: string; [key: string]: unknown }; message?: string };
    const transcript = await vscode.commands.executeCommand<Message[]>("skill.runPlan", "What's my PAN number?");
    const failure = transcript.find((message) => message.kind === "failed");
    assert.equal(failure, undefined, failure?.message);
    const events = transcript.flatMap((message) => (message.event ? [message.event] : []));
    const plan = events.find((event) => event.type === "plan");
    // Routing by likelihood: the scripted model scores every entry alike, and a tie goes to the first, @search-info.
    assert.equal(plan?.text, "I'll use @search-info.");
    const bound = events.find((event) => event.type === "bound") as { tools?: { name: string }[] } | undefined;
    assert.deepEqual(bound?.tools?.map((tool) => tool.name), ["check_notebook", "list_devices", "find_file", "grep_memory"]);
    assert.ok(events.some((event) => event.type === "answer"));
    assert.equal(events.at(-1)?.type, "done");
  });

  test("a menu larger than skill.model.contextSize: Show Alignment and the Run Plan panel give the same sentence", async function () {
    this.timeout(60_000);
    type Message = { kind: string; message?: string; noModel?: boolean };
    const skill = vscode.workspace.getConfiguration("skill");
    // 900 tokens leave 132 for the menu; examples/ is about 323.
    await skill.update("model.contextSize", 900, vscode.ConfigurationTarget.Workspace);
    try {
      const text = await eventually(async () => {
        const shown = await vscode.commands.executeCommand<string>("skill.showAlignment");
        assert.match(shown, /The menu does not fit/);
        return shown;
      });
      const sentenceOf = (shown: string) => /<!-- (The menu does not fit the model's context: .*) -->/.exec(shown)?.[1];
      assert.match(sentenceOf(text) ?? "", /a context of 900 tokens leaves 132 for it/);
      const transcript = await vscode.commands.executeCommand<Message[]>("skill.runPlan", "What's my PAN number?");
      const failure = transcript.find((message) => message.kind === "failed");
      assert.equal(failure?.noModel, false, "the panel does not offer to choose a model");
      // The run may have loaded the model, whose tokenizer then counts for the document too: both say the same.
      assert.equal(failure?.message, sentenceOf(await vscode.commands.executeCommand<string>("skill.showAlignment")));
    } finally {
      await skill.update("model.contextSize", undefined, vscode.ConfigurationTarget.Workspace);
    }
  });
});

suite("Sharing skills in VS Code", () => {
  suiteSetup(async function () {
    this.timeout(60_000);
    await whenServerReady();
  });

  test("Share Skill writes a bundle; importing it shows the review and accepting writes the files", async function () {
    this.timeout(90_000);
    const bundle = fileUri("shared/meeting-prep.skillbundle.json");
    const saved = await vscode.commands.executeCommand<string>("skill.shareSkill", fileUri("skills/work/meeting-prep.skill.md"), bundle);
    assert.equal(saved, bundle.toString());
    const parsed = JSON.parse(await read("shared/meeting-prep.skillbundle.json")) as { skills: { handle: string }[] };
    assert.deepEqual(parsed.skills.map((skill) => skill.handle).sort(), ["check-schedule", "fetch-file", "meeting-prep", "search-info"]);

    // Into a folder of this workspace: every handle is taken there by a skill with the same content, so they are reused…
    const same = await vscode.commands.executeCommand<{ review: string[]; applied: boolean }>("skill.importBundle", bundle, { folder: fileUri("imported"), accept: true });
    assert.equal(same.applied, false);
    // …until the local meeting-prep differs: then the incoming one is re-slugged and its mentions follow.
    const editor = await openSkill("skills/work/meeting-prep.skill.md");
    await editor.edit((builder) => builder.insert(editor.document.lineAt(editor.document.lineCount - 1).range.end, "\nKeep it short."));
    await editor.document.save();
    const result = await vscode.commands.executeCommand<{ review: string[]; applied: boolean }>("skill.importBundle", bundle, { folder: fileUri("imported"), accept: true });
    assert.ok(result.review.some((line) => line.includes("@meeting-prep-2")), result.review.join("\n"));
    assert.equal(vscode.window.activeTextEditor?.document.uri.scheme, "skill-import-review");
    assert.match(vscode.window.activeTextEditor?.document.getText() ?? "", /meeting-prep-2/);
    assert.equal(result.applied, true);
    assert.ok(await exists("imported/meeting-prep-2.skill.md"));
    // The closure arrives whole: nothing dangles, nothing is claimed twice.
    await eventually(async () => {
      const text = await read("imported/meeting-prep-2.skill.md");
      assert.match(text, /@check-schedule/);
      const codes = codesOf(fileUri("imported/meeting-prep-2.skill.md"));
      assert.ok(!codes.includes("unknown-mention") && !codes.includes("duplicate-handle"), codes.join());
    });
  });
});

suite("A server that dies", () => {
  suiteSetup(async function () {
    this.timeout(60_000);
    await whenServerReady();
  });

  test("is restarted by the client, and diagnostics come back", async function () {
    this.timeout(90_000);
    const api = vscode.extensions.getExtension<{ client: { isRunning(): boolean } }>(EXTENSION_ID)?.exports;
    assert.ok(api);
    // The child process is the client's own business; the test reaches for it only to kill it.
    const serverPid = () => (api.client as unknown as { _serverProcess?: { pid?: number } })._serverProcess?.pid;
    const before = serverPid();
    assert.ok(before, "the server runs in a child process");
    const editor = await openSkill("skills/home/retry-search.skill.md");
    await editor.edit((builder) => builder.insert(editor.document.lineAt(editor.document.lineCount - 1).range.end, "\nThen @first-missing."));
    await eventually(() => assert.deepEqual(codesOf(editor.document.uri), ["unknown-mention"]));

    process.kill(before, "SIGKILL");
    await eventually(() => {
      const after = serverPid();
      assert.ok(after && after !== before && api.client.isRunning(), "a new server process is running");
    }, 60_000);
    await editor.edit((builder) => builder.insert(editor.document.lineAt(editor.document.lineCount - 1).range.end, "\nAnd @second-missing."));
    await eventually(() => assert.deepEqual(codesOf(editor.document.uri), ["unknown-mention", "unknown-mention"]), 30_000);
  });
});

suite("Skill Graph in VS Code", () => {
  test("the panel lays out the workspace's graph for its shape, with legible captions, and focuses one skill's expansion", async function () {
    this.timeout(180_000);
    type Rendered = { nodes: number; edges: number; cycles: number; direction: string; captionPixels: number; captions: boolean; focus: string | null; binds: string[] | null };
    const whole = await vscode.commands.executeCommand<Rendered | undefined>("skill.showGraph");
    assert.ok(whole, "the panel reported a layout");
    assert.equal(whole.focus, null);
    assert.ok(whole.nodes >= 17 && whole.edges >= 23, `${whole.nodes} nodes, ${whole.edges} edges`);
    assert.ok(whole.cycles >= 1);
    assert.ok(whole.direction === "RIGHT" || whole.direction === "DOWN", whole.direction);
    assert.ok(whole.captions && whole.captionPixels >= 10, `captions of ${whole.captionPixels} px`);
    const focused = await vscode.commands.executeCommand<Rendered | undefined>("skill.showGraph", "search-info");
    assert.equal(focused?.focus, "skill:search-info");
    assert.deepEqual(focused?.binds, ["check_notebook", "list_devices", "find_file", "grep_memory"]);
    // From a skill file's title button: the file's URI names the skill, whatever its format.
    const byFile = await vscode.commands.executeCommand<Rendered | undefined>("skill.showGraph", fileUri("skills/builtin/check-schedule.skill.md"));
    assert.equal(byFile?.focus, "skill:check-schedule");
    assert.deepEqual(byFile?.binds, ["current_date", "queryCalendar"]);

    // Live: a new skill with a dangling mention adds two nodes (the skill and a ghost) without reopening the panel.
    const whole2 = await vscode.commands.executeCommand<Rendered | undefined>("skill.showGraph", null);
    assert.equal(whole2?.focus, null);
    const probe = fileUri("skills/home/graph-probe.skill.md");
    await vscode.workspace.fs.writeFile(probe, new TextEncoder().encode("---\nsummary: A probe.\n---\nUse @graph-nowhere.\n"));
    try {
      await eventually(async () => {
        const now = await vscode.commands.executeCommand<Rendered | undefined>("skill.showGraph");
        assert.equal(now?.nodes, (whole2?.nodes ?? 0) + 2);
      }, 60_000);
    } finally {
      await vscode.workspace.fs.delete(probe);
    }
    await eventually(async () => assert.equal((await vscode.commands.executeCommand<Rendered | undefined>("skill.showGraph"))?.nodes, whole2?.nodes), 60_000);
  });

  test("a skill's summary carries the price of its menu entry", async () => {
    const uri = fileUri("skills/builtin/search-info.skill.md");
    await openSkill("skills/builtin/search-info.skill.md");
    await eventually(async () => {
      const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", uri);
      const price = lenses.find((lens) => lens.command?.title.startsWith("menu entry:"));
      assert.match(price?.command?.title ?? "", /^menu entry: ~\d+ tokens · \d+% of the planner's prompt$/);
      assert.equal(price?.command?.command, "skill.showAlignment");
      assert.equal(price?.range.start.line, 2, "on the summary's line");
    });
    // The status bar prices the whole menu; Show Alignment lists each entry's tokens and share.
    const alignment = await vscode.commands.executeCommand<string>("skill.showAlignment");
    assert.match(alignment, /<!-- {3}@search-info \(skill\): \d+ tokens, \d+% -->/);
    assert.match(alignment, /<!-- {3}@current-date \(tool\): \d+ tokens, \d+% -->/);
  });
});

suite("Routing tests in the Testing view", () => {
  type Result = { status: string; message: string; chosen: string[]; outdated: boolean };
  type Item = { id: string; label: string; description: string; uri: string; line: number; result?: Result; children: Item[] };
  const items = () => vscode.commands.executeCommand<Item[]>("skill.routingTests.items");
  const leaves = (tree: readonly Item[]) => tree.flatMap((skill) => skill.children);
  const skillItem = (tree: readonly Item[], handle: string) => {
    const found = tree.find((item) => item.label === `@${handle}`);
    assert.ok(found, `${handle} in ${tree.map((item) => item.label).join(", ")}`);
    return found;
  };

  test("one test item per example and near miss, grouped by skill, on its line in the frontmatter", async function () {
    this.timeout(60_000);
    const tree = await eventually(async () => {
      const found = await items();
      assert.ok(found.some((item) => item.label === "@search-info"));
      return found;
    });
    const searchInfo = skillItem(tree, "search-info");
    assert.equal(searchInfo.uri, fileUri("skills/builtin/search-info.skill.md").toString());
    assert.equal(searchInfo.line, 0);
    assert.deepEqual(
      searchInfo.children.map((child) => [child.label, child.description, child.line]),
      [
        ["What's my PAN number?", "example", 4],
        ["Find my passport scan", "example", 5],
        ["What is my sister's address?", "example", 6],
        ["What's on my calendar tomorrow?", "near miss", 8],
        ["Write a haiku about autumn", "near miss", 9],
      ],
    );
    const document = await vscode.workspace.openTextDocument(fileUri("skills/builtin/search-info.skill.md"));
    assert.match(document.lineAt(4).text, /What's my PAN number\?/);
  });

  test("a run can be cancelled: it stops between two plans", async function () {
    this.timeout(120_000);
    const tree = await vscode.commands.executeCommand<Item[]>("skill.routingTests.run", { cancelAfter: 2 });
    const done = leaves(tree).filter((leaf) => leaf.result);
    assert.ok(done.length >= 2 && done.length < leaves(tree).length, `${done.length} of ${leaves(tree).length} ran`);
  });

  test("runs tests on the configured model: failures show what was chosen instead, and why", async function () {
    this.timeout(120_000);
    const wanted = (await items()).filter((item) => item.label === "@search-info" || item.label === "@check-schedule").map((item) => item.id);
    const tree = await vscode.commands.executeCommand<Item[]>("skill.routingTests.run", { ids: wanted });
    for (const handle of ["search-info", "check-schedule"]) {
      for (const leaf of skillItem(tree, handle).children) {
        const expected = (handle === "search-info") === (leaf.description === "example") ? "passed" : "failed";
        assert.equal(leaf.result?.status, expected, `${handle}: ${leaf.label}: ${leaf.result?.message ?? "no result"}`);
        assert.deepEqual(leaf.result?.chosen, ["search-info"]);
        assert.equal(leaf.result?.outdated, false);
      }
    }
    const misrouted = skillItem(tree, "check-schedule").children[0]?.result;
    assert.equal(misrouted?.message, "Routed to @search-info instead of @check-schedule");
  });

  test("a skill's results are invalidated when its file changes; the others keep theirs", async function () {
    this.timeout(60_000);
    const editor = await openSkill("skills/builtin/search-info.skill.md");
    await editor.edit((builder) => builder.insert(editor.document.lineAt(editor.document.lineCount - 1).range.end, "\nLook twice."));
    const tree = await eventually(async () => {
      const found = await items();
      assert.ok(skillItem(found, "search-info").children.every((leaf) => leaf.result?.outdated === true));
      return found;
    });
    assert.ok(skillItem(tree, "check-schedule").children.every((leaf) => leaf.result?.outdated === false), "a body edit leaves the menu, and the other skills' results, alone");
    await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");
  });
});
