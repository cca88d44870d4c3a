/**
 * A workspace of Agent Skills' folders is read without listing each folder first: a skill folder's SKILL.md is
 * read straight away and the folder listed meanwhile. Everything else a skill folder holds is still found (its
 * other Markdown, a `.skill.md` in it, a nested `skills/` folder, a lower-case skill.md), a folder without
 * SKILL.md is no skill, the ignore rules hold inside skill folders, and a SKILL.md created after the start in a
 * folder that had none is a skill once its file event comes.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { TestClient, removeWorkspace, uriOf } from "./harness.js";

/** More skill folders than one listing message to the reading thread holds. */
const FILLERS = 700;

function skill(name: string, body: string): string {
  return `---\nname: ${name}\ndescription: The ${name} skill, for the test.\n---\n# ${name}\n\n${body}\n`;
}

/** A file's pulled diagnostics: a full report (its items), or unchanged since `previousResultId`. */
function pullDiagnostics(client: TestClient, uri: string, previousResultId?: string): Promise<{ kind: string; resultId?: string; items: Diagnostic[] }> {
  return client.connection.sendRequest("textDocument/diagnostic", { textDocument: { uri }, ...(previousResultId ? { previousResultId } : {}) });
}

/** A fresh folder of FILLERS skill folders, and a way to write more files into it. */
function fillerWorkspace(): { folder: string; write: (relative: string, text: string) => void } {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-lsp-folders-"));
  const write = (relative: string, text: string) => {
    mkdirSync(path.dirname(path.join(folder, relative)), { recursive: true });
    writeFileSync(path.join(folder, relative), text);
  };
  for (let i = 0; i < FILLERS; i++) write(`skills/filler-${i}/SKILL.md`, skill(`filler-${i}`, `Then /filler-${(i + 1) % FILLERS}.`));
  return { folder, write };
}

test("a workspace of skill folders: every file in them found, folders without SKILL.md no skill, ignore rules kept", { timeout: 120_000 }, async () => {
  const { folder, write } = fillerWorkspace();
  write("skills/alpha/SKILL.md", skill("alpha", "Use /loose, /nested-gamma and /beta."));
  write("skills/alpha/reference.md", "# Reference\n\nAsk /alpha, or /missing-one.\n");
  write("skills/alpha/scripts/run.sh", "echo /not-read\n");
  write("skills/alpha/loose.skill.md", "---\nsummary: A skill file inside a skill folder\n---\n# Loose\n");
  write("skills/alpha/deep/skills/nested-gamma/SKILL.md", skill("nested-gamma", "Back to /alpha."));
  write("skills/beta/notes.md", "# Notes\n\nNo skill here yet; see /alpha.\n");
  write("skills/lower/skill.md", skill("lower", "Written in lower case."));
  mkdirSync(path.join(folder, "skills/folder-named/SKILL.md"), { recursive: true });
  write("skills/hidden/SKILL.md", skill("hidden", "Ignored, so never read: /missing-two."));
  write("skills/alpha/private.md", "Ignored too: /missing-three.\n");
  write(".skillignore", "skills/hidden/\nprivate.md\n");

  const client = await TestClient.start({ folders: [folder] });
  try {
    const workspaceReport = async () => {
      const report = await client.connection.sendRequest<{ items: { uri: string; items: Diagnostic[] }[] }>("workspace/diagnostic", { previousResultIds: [] });
      return new Map(report.items.map((item) => [item.uri, item.items]));
    };
    const codes = (items: Diagnostic[] | undefined) => (items ?? []).map((diagnostic) => `${String(diagnostic.code)} ${diagnostic.message.split(" ")[0] ?? ""}`.trim());
    const unknown = (items: Diagnostic[] | undefined) => codes(items).filter((code) => code.startsWith("unknown-"));
    const at = (relative: string) => uriOf(path.join(folder, relative));

    const report = await workspaceReport();
    const found = [
      "skills/alpha/SKILL.md",
      "skills/alpha/reference.md",
      "skills/alpha/loose.skill.md",
      "skills/alpha/deep/skills/nested-gamma/SKILL.md",
      "skills/beta/notes.md",
      "skills/lower/skill.md",
    ];
    for (const relative of found) assert.ok(await client.has(at(relative)), `${relative} is found`);
    for (const relative of ["skills/alpha/scripts/run.sh", "skills/folder-named/SKILL.md", "skills/hidden/SKILL.md", "skills/alpha/private.md", "skills/beta/SKILL.md"]) {
      assert.equal(await client.has(at(relative)), false, `${relative} is not read`);
      assert.equal(report.has(at(relative)), false, `${relative} is not reported`);
    }
    const fillers = await Promise.all(Array.from({ length: FILLERS }, (_, i) => client.has(at(`skills/filler-${i}/SKILL.md`))));
    assert.equal(fillers.filter(Boolean).length, FILLERS, "every filler skill is found");
    // The skills inside alpha's folder exist; beta, a folder without SKILL.md, does not.
    assert.deepEqual(unknown(report.get(at("skills/alpha/SKILL.md"))), ["unknown-reference /beta"]);
    assert.deepEqual(unknown(report.get(at("skills/alpha/reference.md"))), ["unknown-reference /missing-one"]);
    assert.deepEqual(unknown(report.get(at("skills/alpha/deep/skills/nested-gamma/SKILL.md"))), []);
    assert.ok(codes(report.get(at("skills/lower/skill.md"))).some((code) => code.startsWith("lower-case-skill-file")), "the lower-case skill.md is reported");
    assert.deepEqual(unknown(report.get(at(`skills/filler-${FILLERS - 1}/SKILL.md`))), []);

    // A SKILL.md created later in beta's folder is a skill once its file event comes.
    write("skills/beta/SKILL.md", skill("beta", "Now a skill."));
    await client.connection.sendNotification("workspace/didChangeWatchedFiles", { changes: [{ uri: at("skills/beta/SKILL.md"), type: 1 }] });
    for (let round = 0; round < 50 && !(await client.has(at("skills/beta/SKILL.md"))); round++) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(await client.has(at("skills/beta/SKILL.md")), "the new SKILL.md is read");
    const after = await workspaceReport();
    assert.deepEqual(unknown(after.get(at("skills/alpha/SKILL.md"))), [], "/beta now names a skill");
  } finally {
    await client.stop();
    removeWorkspace(folder);
  }
});

test("an editor open at start in a workspace of skill folders: its diagnostics know the skills deep in a folder, before the index ends", { timeout: 120_000 }, async () => {
  const { folder, write } = fillerWorkspace();
  // Found by the first listing (its folder's SKILL.md), by the skill folders' listing alone (a `.skill.md` in a
  // skill folder, a nested `skills/`), or not at all (a folder without SKILL.md).
  const text = skill("alpha", "Use /filler-3, /loose, /nested-gamma and /beta.");
  write("skills/alpha/SKILL.md", text);
  write("skills/alpha/loose.skill.md", "---\nsummary: A skill file inside a skill folder\n---\n# Loose\n");
  write("skills/alpha/deep/skills/nested-gamma/SKILL.md", skill("nested-gamma", "Back to /alpha."));
  write("skills/beta/notes.md", "# Notes\n");
  const instructions = "# Team\n\nStart with /filler-650, then /loose; /nosuch-thing is no skill, /deep-delto a slip, /deploy our command.\n";
  write("CLAUDE.md", instructions);
  write("skills/filler-20/more/skills/deep-delta/SKILL.md", skill("deep-delta", "Found by the folders' listing alone."));
  write(".claude/commands/deploy.md", "Deploy the site.\n");
  // The first index reads nothing until its progress is answered: every file these answers need is read for them.
  let answerProgress: () => void = () => undefined;
  const client = await TestClient.start({ folders: [folder], awaitIndexing: false, progressAnswered: new Promise<void>((resolve) => (answerProgress = resolve)) });
  try {
    const uri = uriOf(path.join(folder, "skills/alpha/SKILL.md"));
    await client.open(uri, text);
    // An agent's instructions open beside it: its references are known as early, by the same reads.
    const instructionsUri = uriOf(path.join(folder, "CLAUDE.md"));
    await client.open(instructionsUri, instructions);
    const [early, earlyInstructions] = await Promise.all(
      [uri, instructionsUri].map((one) => pullDiagnostics(client, one)),
    );
    const unknownOf = (report: { items: Diagnostic[] } | undefined) => (report?.items ?? []).filter((diagnostic) => String(diagnostic.code).startsWith("unknown-")).map((diagnostic) => diagnostic.message.split(" ")[0]);
    assert.deepEqual(unknownOf(early), ["/beta"]);
    assert.deepEqual(unknownOf(earlyInstructions), ["/nosuch-thing", "/deep-delto"]);
    // The index's end is logged before anything sent after it: none came yet, so the answer came before it.
    assert.ok(!client.messages.some((message) => message.startsWith("Indexed ")), "answered while the workspace was still being read (else the test proves less)");
    answerProgress();
    await client.indexed;
    // What the first answers said is what the whole index says: a slip's "did you mean" too, though the skill it
    // slipped from is deep in a folder, read after the rest.
    const messagesOf = (report: { items: Diagnostic[] } | undefined) => (report?.items ?? []).map((diagnostic) => `${diagnostic.severity} ${diagnostic.message}`).sort();
    const [late, lateInstructions] = await Promise.all(
      [uri, instructionsUri].map((one) => pullDiagnostics(client, one)),
    );
    assert.deepEqual(messagesOf(early), messagesOf(late));
    assert.deepEqual(messagesOf(earlyInstructions), messagesOf(lateInstructions));
    assert.ok(messagesOf(earlyInstructions).some((message) => message.includes("/deep-delto is not a skill: did you mean /deep-delta")), messagesOf(earlyInstructions).join("; "));
  } finally {
    await client.stop();
    removeWorkspace(folder);
  }
});

test("an editor whose every name the first listing holds is answered at once; a duplicate listed later comes with its next pull", { timeout: 120_000 }, async () => {
  const { folder, write } = fillerWorkspace();
  const text = skill("alpha", "Use /filler-3 and /filler-5.");
  write("skills/alpha/SKILL.md", text);
  // Claimants only the skill folders' listing finds: a nested skill of alpha's own name, a skill file of filler-5's.
  write("skills/filler-8/extra/skills/alpha/SKILL.md", skill("alpha", "A second alpha."));
  write("skills/filler-9/filler-5.skill.md", "---\nsummary: A second filler-5\n---\n# Filler 5\n");
  // Folders enough below the skills that their listing takes a while after the first.
  for (let i = 0; i < FILLERS; i++) for (let part = 0; part < 3; part++) write(`skills/filler-${i}/references/part-${part}/notes.md`, "# Notes\n");
  const client = await TestClient.start({ folders: [folder], awaitIndexing: false });
  try {
    const uri = uriOf(path.join(folder, "skills/alpha/SKILL.md"));
    await client.open(uri, text);
    const pull = (previousResultId?: string) => pullDiagnostics(client, uri, previousResultId);
    const codes = (report: { items?: Diagnostic[] }) => (report.items ?? []).map((diagnostic) => String(diagnostic.code)).sort();
    const first = await pull();
    assert.deepEqual(codes(first).filter((code) => code.startsWith("unknown-")), [], "no name is unknown while the rest is listed");
    assert.ok(!codes(first).includes("duplicate-handle"), "answered before the skill folders were all listed (else the test proves less)");
    // The listing then gives alpha a second claimant: the client is asked to pull again, before the index ends.
    await client.waitFor(() => client.refreshes.includes("diagnostics"), 20_000);
    const indexedBefore = client.messages.some((message) => message.startsWith("Indexed "));
    const again = await pull(first.resultId);
    assert.equal(again.kind, "full", "a new result");
    assert.ok(codes(again).includes("duplicate-handle"), `the duplicate is reported: ${codes(again).join(", ")}`);
    assert.equal(indexedBefore, false, "the refresh came from the listing, before the index ended");
    await client.indexed;
  } finally {
    await client.stop();
    removeWorkspace(folder);
  }
});
