import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import { eventually as eventuallyWithin, exists, fileUri } from "./workspace.js";

// Runs on test/fixtures/agent-skills: test/e2e/run-all.mjs gives it that workspace and leaves it out of the other runs.

/** This suite's checks wait up to 20 s unless they say otherwise. */
const eventually = <T>(check: () => T | Promise<T>, timeoutMs = 20_000): Promise<T> => eventuallyWithin(check, timeoutMs);

function positionOf(document: vscode.TextDocument, needle: string, shift = 0): vscode.Position {
  const offset = document.getText().indexOf(needle);
  assert.ok(offset >= 0, `${needle} not found in ${document.uri.path}`);
  return document.positionAt(offset + shift);
}

const codeOf = (diagnostic: vscode.Diagnostic) => (typeof diagnostic.code === "object" ? String(diagnostic.code.value) : String(diagnostic.code ?? ""));

suite("Agent Skills workspace in VS Code", () => {
  suiteSetup(async function () {
    this.timeout(90_000);
    assert.ok((await exists("CLAUDE.md")) && (await exists(".claude/skills/pdf/SKILL.md")), "this suite runs on test/fixtures/agent-skills: test/e2e/run-all.mjs gives it that workspace");
    await vscode.extensions.getExtension("skill-lsp.skill-lsp")?.activate();
    const document = await vscode.workspace.openTextDocument(fileUri("CLAUDE.md"));
    await vscode.window.showTextDocument(document);
    // The server is up once it reports the near miss in CLAUDE.md.
    await eventually(() => assert.ok(vscode.languages.getDiagnostics(document.uri).some((diagnostic) => diagnostic.source === "skill" && /did you mean \/pdf/.test(diagnostic.message))), 80_000);
  });

  test("SKILL.md opens in VS Code's own skill language and the server serves it", async () => {
    const document = await vscode.workspace.openTextDocument(fileUri(".claude/skills/pdf/SKILL.md"));
    assert.equal(document.languageId, "skill");
    const hover = await vscode.commands.executeCommand<vscode.Hover[]>("vscode.executeHoverProvider", document.uri, positionOf(document, "/docx", 2));
    const text = hover.flatMap((one) => one.contents.map((part) => (typeof part === "string" ? part : part.value))).join("\n");
    assert.match(text, /Create and edit Word documents/);
  });

  test("completes skills after / in CLAUDE.md, with their descriptions", async () => {
    const document = await vscode.workspace.openTextDocument(fileUri("CLAUDE.md"));
    const editor = await vscode.window.showTextDocument(document);
    const end = document.lineAt(document.lineCount - 1).range.end;
    await editor.edit((builder) => builder.insert(end, "\nNext: /d"));
    const position = document.lineAt(document.lineCount - 1).range.end;
    const list = await eventually(async () => {
      const answer = await vscode.commands.executeCommand<vscode.CompletionList>("vscode.executeCompletionItemProvider", document.uri, position, "/", 10);
      assert.ok(answer.items.some((item) => (typeof item.label === "string" ? item.label : item.label.label) === "/docx"));
      return answer;
    });
    const labels = list.items.map((item) => (typeof item.label === "string" ? item.label : item.label.label));
    assert.ok(labels.includes("/deploy-site"), labels.join(" "));
    await vscode.commands.executeCommand("undo");
    await document.save();
  });

  test("one diagnostic for a name unlike its folder, whichever validator reports it", async () => {
    const document = await vscode.workspace.openTextDocument(fileUri("skills/brand/SKILL.md"));
    await vscode.window.showTextDocument(document);
    const nameLine = positionOf(document, "brand-guide").line;
    const onName = () => vscode.languages.getDiagnostics(document.uri).filter((diagnostic) => diagnostic.range.start.line === nameLine);
    await eventually(() => assert.ok(onName().length > 0));
    // Give a second validator time to speak before counting.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const found = onName().map((diagnostic) => `${diagnostic.source ?? "?"}:${codeOf(diagnostic)}:${diagnostic.message}`);
    console.log(`diagnostics on the name line: ${found.join(" | ")}`);
    assert.equal(found.length, 1, found.join("\n"));
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>("vscode.executeCodeActionProvider", document.uri, new vscode.Range(positionOf(document, "brand-guide"), positionOf(document, "brand-guide")));
    const titles = actions.map((action) => action.title);
    assert.ok(titles.includes("Set the name to brand (the folder's name)") && titles.includes("Rename the folder to brand-guide"), titles.join(" | "));
  });

  test("F2 on /docx renames every reference, the name: value, and moves the folder", async () => {
    const document = await vscode.workspace.openTextDocument(fileUri("CLAUDE.md"));
    const edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit>("vscode.executeDocumentRenameProvider", document.uri, positionOf(document, "/docx", 2), "word");
    const applied = await vscode.workspace.applyEdit(edit);
    console.log(`applyEdit answered ${String(applied)} for ${edit.entries().length} entries`);
    await eventually(async () => {
      assert.ok(await exists(".claude/skills/word/SKILL.md"));
      assert.ok(!(await exists(".claude/skills/docx")));
    });
    const moved = await vscode.workspace.openTextDocument(fileUri(".claude/skills/word/SKILL.md"));
    assert.match(moved.getText(), /^name: word$/m);
    for (const file of ["CLAUDE.md", "AGENTS.md", "planner.skill.md", ".claude/skills/pdf/SKILL.md"]) {
      const text = (await vscode.workspace.openTextDocument(fileUri(file))).getText();
      assert.doesNotMatch(text.replace(/```[\s\S]*?```/g, ""), /[/$@]docx\b|skills\/docx\//, file);
    }
    assert.match((await vscode.workspace.openTextDocument(fileUri("CLAUDE.md"))).getText(), /\/word for Word files.*\n[\s\S]*\.claude\/skills\/word\/SKILL\.md/);
    // The server follows the move: the reference resolves, no near miss or broken link appears for it.
    await eventually(() => assert.ok(!vscode.languages.getDiagnostics(document.uri).some((diagnostic) => /word/.test(diagnostic.message))));
  });
});
