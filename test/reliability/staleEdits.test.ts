/**
 * Edits are never applied to stale text. A rename's workspace edit carries the version of every open
 * document; the test's editor refuses the whole edit when any of them moved on, and applies all of it
 * otherwise. On the server side, LSP's message order holds: a rename sent after a change (an edit in the
 * editor, or a file event for a file on disk) is computed on the changed text.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { FileChangeType, LSPErrorCodes, type TextDocumentEdit, type WorkspaceEdit } from "vscode-languageserver-protocol";
import { Editor } from "./editor.js";
import { findMentions } from "./mentions.js";
import { Session, TextIndex, assertUnchanged, random, snapshot } from "./support.js";

const SEED = Number(process.env.SKILL_RACE_SEED ?? Date.now() % 1_000_000);
const ROUNDS = Number(process.env.SKILL_RACE_ROUNDS ?? 60);

const skill = (summary: string, body: string) => `---\nsummary: ${summary}\n---\n${body}`;

/** Every mention of `oldSlug` in a skill file's text rewritten, computed by the test's own scanner. */
function renamedText(text: string, oldSlug: string, newSlug: string): string {
  let result = "";
  let cursor = 0;
  for (const mention of findMentions(text).mentions) {
    if (mention.slug !== oldSlug) continue;
    result += text.slice(cursor, mention.start) + `@${newSlug}`;
    cursor = mention.end;
  }
  return result + text.slice(cursor);
}

function textEdits(edit: WorkspaceEdit): TextDocumentEdit[] {
  return (edit.documentChanges ?? []).filter((change): change is TextDocumentEdit => "textDocument" in change);
}

/** The position just inside the first `@slug` of a text. */
function onMention(text: string, slug: string): { line: number; character: number } {
  const mention = findMentions(text).mentions.find((one) => one.slug === slug);
  assert.ok(mention, `@${slug} is in the text`);
  return new TextIndex(text).positionOf(mention.start + 1);
}

describe("edits are never applied to stale text", () => {
  let folder: string;
  let session: Session;
  let editor: Editor;
  const uri = (relative: string) => editor.uri(relative);

  before(async () => {
    folder = mkdtempSync(path.join(tmpdir(), "skill-stale-"));
    writeFileSync(path.join(folder, "target.skill.md"), skill("The skill being renamed.", "Use @find-file.\n"));
    writeFileSync(path.join(folder, "a.skill.md"), skill("Open in the editor.", "Use @target here.\nAnd @target there.\n"));
    writeFileSync(path.join(folder, "b.skill.md"), skill("Only on disk.", "First @target, then @calendar.\n"));
    writeFileSync(path.join(folder, "skills.json"), `${JSON.stringify({ alignment: { menu: ["@target", "@a"] } }, null, 2)}\n`);
    session = await Session.start([folder]);
    editor = new Editor(session, folder);
    console.log(`stale-edit races: SKILL_RACE_SEED=${SEED} SKILL_RACE_ROUNDS=${ROUNDS}`);
  });
  after(async () => {
    session.assertHealthy("stale edits");
    await session.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it("carries the open documents' versions, and null for the files only on disk", async () => {
    const a = uri("a.skill.md");
    await editor.openDocument(a);
    await editor.edit(a, `${editor.open(a)?.text ?? ""}Once more @target.\n`);
    const { result: edit } = await session.request<WorkspaceEdit>("textDocument/rename", { textDocument: { uri: a }, position: onMention(editor.open(a)?.text ?? "", "target"), newName: "goal" });
    assert.ok(edit);
    const versions = Object.fromEntries(textEdits(edit).map((change) => [path.basename(change.textDocument.uri), change.textDocument.version]));
    assert.deepEqual(versions, { "a.skill.md": 2, "b.skill.md": null, "skills.json": null });
    assert.deepEqual(edit.documentChanges?.at(-1), { kind: "rename", oldUri: uri("target.skill.md"), newUri: uri("goal.skill.md"), options: { overwrite: false, ignoreIfExists: false } });
  });

  it("is refused whole when an open document changed after the rename was computed", async () => {
    const a = uri("a.skill.md");
    const text = editor.open(a)?.text ?? "";
    const { result: edit } = await session.request<WorkspaceEdit>("textDocument/rename", { textDocument: { uri: a }, position: onMention(text, "target"), newName: "goal" });
    assert.ok(edit);
    const diskBefore = snapshot(folder);
    await editor.edit(a, `Typed first.\n${text}`);
    const outcome = await editor.apply(edit);
    assert.ok("refused" in outcome);
    assert.match(outcome.refused, /a\.skill\.md is at version 3, the edit was made for version 2/);
    assertUnchanged(diskBefore, snapshot(folder), "a refused rename");
    assert.equal(editor.open(a)?.text, `Typed first.\n${text}`);
  });

  it("is computed on the text of a change sent just before it (message order)", async () => {
    const a = uri("a.skill.md");
    const next = random(SEED);
    for (let round = 0; round < 20; round++) {
      // Move the mentions around, then ask for the rename without waiting for the change to be written.
      const lines = Array.from({ length: 1 + Math.floor(next() * 6) }, (_, i) => (next() < 0.5 ? `Line ${i} with @target.` : `Line ${i} plain.`));
      const text = skill("Open in the editor.", `${lines.join("\n")}\nLast @target.\n`);
      const written = editor.editNow(a, text);
      const requested = session.request<WorkspaceEdit>("textDocument/rename", { textDocument: { uri: a }, position: onMention(text, "target"), newName: "goal" });
      const version = await written;
      const { result: edit } = await requested;
      assert.ok(edit);
      const mine = textEdits(edit).find((change) => change.textDocument.uri === a);
      assert.equal(mine?.textDocument.version, version, `round ${round}: the rename is for the version just sent`);
      const expected = findMentions(text).mentions.filter((mention) => mention.slug === "target").map((mention) => new TextIndex(text).positionOf(mention.start));
      assert.deepEqual(mine?.edits.map((one) => one.range.start), expected, `round ${round}: the edits are on the new text`);
    }
  });

  it("is computed on the disk text of a file event sent just before it (message order)", async () => {
    const a = uri("a.skill.md");
    const b = uri("b.skill.md");
    const next = random(SEED + 1);
    for (let round = 0; round < 20; round++) {
      const padding = "\n".repeat(Math.floor(next() * 5));
      const text = skill("Only on disk.", `${padding}${"Some words. ".repeat(Math.floor(next() * 4))}First @target, then @calendar.\n`);
      writeFileSync(editor.pathOf(b), text);
      // Not awaited: the event and the request leave in this order, and the server must answer in this order.
      const announced = editor.notify([{ uri: b, type: FileChangeType.Changed }]);
      const requested = session.request<WorkspaceEdit>("textDocument/rename", { textDocument: { uri: a }, position: onMention(editor.open(a)?.text ?? "", "target"), newName: "goal" });
      await announced;
      const { result: edit } = await requested;
      assert.ok(edit);
      const onDisk = textEdits(edit).find((change) => change.textDocument.uri === b);
      assert.equal(onDisk?.textDocument.version, null);
      assert.deepEqual(onDisk?.edits.map((one) => one.range.start), [new TextIndex(text).positionOf(text.indexOf("@target"))], `round ${round}: the edit is on the new disk text`);
    }
  });

  it("applies the last of several file events on one file, in order", async () => {
    const b = uri("b.skill.md");
    const text = skill("Only on disk.", "First @target, then @calendar.\n");
    writeFileSync(editor.pathOf(b), text);
    // The file exists; the events say it changed, then was deleted. The server must end where the events end.
    await editor.notify([
      { uri: b, type: FileChangeType.Changed },
      { uri: b, type: FileChangeType.Deleted },
    ]);
    const { result: references } = await session.request<{ uri: string }[]>("textDocument/references", { textDocument: { uri: uri("target.skill.md") }, position: { line: 0, character: 0 }, context: { includeDeclaration: false } });
    assert.ok(!references?.some((location) => location.uri === b), "a deleted file is not referenced");
    await editor.notify([{ uri: b, type: FileChangeType.Created }]);
    const { result: again } = await session.request<{ uri: string }[]>("textDocument/references", { textDocument: { uri: uri("target.skill.md") }, position: { line: 0, character: 0 }, context: { includeDeclaration: false } });
    assert.ok(again?.some((location) => location.uri === b));
  });

  it("races edits against renames: every rename is applied whole, or refused whole", async () => {
    const a = uri("a.skill.md");
    const b = uri("b.skill.md");
    const config = uri("skills.json");
    const next = random(SEED + 2);
    let name = "target";
    let applied = 0;
    let refused = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const wanted = `goal-${round}`;
      const before = { b: editor.disk(b) ?? "", config: editor.disk(config) ?? "" };
      const edits = Math.floor(next() * 3);
      const beforeRequest = next() < 0.5;
      // Some edits go out before the request (the rename must see them), some after (the rename is then stale).
      const typed: string[] = [];
      const type = () => {
        const current = editor.open(a)?.text ?? "";
        const text = next() < 0.5 ? `${current}More @${name}.\n` : current.replace("\n---\n", "\n---\nInserted line.\n");
        typed.push(text);
        return editor.editNow(a, text);
      };
      const early = beforeRequest ? Array.from({ length: edits }, type) : [];
      const position = onMention(editor.open(a)?.text ?? "", name);
      const requested = session.request<WorkspaceEdit>("textDocument/rename", { textDocument: { uri: a }, position, newName: wanted });
      const late = beforeRequest ? [] : Array.from({ length: edits }, type);
      await Promise.all([...early, ...late]);
      const { result: edit, refused: why, code } = await requested;
      if (code === LSPErrorCodes.ContentModified) {
        // The request waited for disk work, and the edits sent after it arrived meanwhile: its positions no longer fit.
        assert.ok(!beforeRequest && edits > 0, `round ${round}: ContentModified without a later edit`);
        refused++;
        continue;
      }
      assert.ok(edit, `round ${round}: the rename to @${wanted} was refused: ${why}`);
      const typedText = editor.open(a)?.text ?? "";
      const outcome = await editor.apply(edit);
      if (!beforeRequest && edits > 0) {
        assert.ok("refused" in outcome, `round ${round}: a rename computed before the edits is refused`);
        refused++;
        assert.equal(editor.open(a)?.text, typedText);
        assert.equal(editor.disk(b), before.b);
        assert.equal(editor.disk(config), before.config);
        assert.ok(editor.disk(uri(`${name}.skill.md`)) !== undefined, `round ${round}: the file was not renamed`);
        continue;
      }
      assert.ok("applied" in outcome, `round ${round}: ${"refused" in outcome ? outcome.refused : ""}`);
      applied++;
      assert.equal(editor.open(a)?.text, renamedText(typedText, name, wanted));
      assert.equal(editor.disk(b), renamedText(before.b, name, wanted));
      assert.equal(editor.disk(config), renamedText(before.config, name, wanted));
      assert.equal(editor.disk(uri(`${name}.skill.md`)), undefined);
      assert.ok(editor.disk(uri(`${wanted}.skill.md`)) !== undefined);
      name = wanted;
    }
    assert.ok(applied > 0 && refused > 0, `applied ${applied}, refused ${refused}`);
    // After all of it, nothing dangles: the server agrees that every mention resolves.
    for (const file of [a, b, config]) {
      const { result } = await session.request<{ kind: string; items: { code: string }[] }>("textDocument/diagnostic", { textDocument: { uri: file } });
      assert.deepEqual(result?.items.map((item) => item.code), [], file);
    }
  });

  it("refuses a rename whole when its new file name was taken in the meantime", async () => {
    const a = uri("a.skill.md");
    const current = findMentions(editor.open(a)?.text ?? "").mentions.find((mention) => mention.slug.startsWith("goal") || mention.slug === "target")?.slug ?? "target";
    const { result: edit } = await session.request<WorkspaceEdit>("textDocument/rename", { textDocument: { uri: a }, position: onMention(editor.open(a)?.text ?? "", current), newName: "late-comer" });
    assert.ok(edit);
    const diskBefore = snapshot(folder);
    writeFileSync(path.join(folder, "late-comer.skill.md"), skill("Arrived after the rename was computed.", "Use @calendar.\n"));
    const textBefore = editor.open(a)?.text;
    const outcome = await editor.apply(edit);
    assert.ok("refused" in outcome);
    assert.match(outcome.refused, /late-comer\.skill\.md: it exists/);
    assert.equal(editor.open(a)?.text, textBefore, "no text edit was applied either");
    const after = snapshot(folder);
    after.delete("late-comer.skill.md");
    assertUnchanged(diskBefore, after, "a refused rename");
    // Told about the new file first, the server refuses the rename itself, and says why.
    await editor.notify([{ uri: uri("late-comer.skill.md"), type: FileChangeType.Created }]);
    const again = await session.request<WorkspaceEdit>("textDocument/rename", { textDocument: { uri: a }, position: onMention(editor.open(a)?.text ?? "", current), newName: "late-comer" });
    assert.match(again.refused ?? "", /@late-comer is taken by the skill .*late-comer\.skill\.md/);
  });
});
