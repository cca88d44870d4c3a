/**
 * Start-up over stdio: editors opened right after `initialize` get their diagnostics while the rest of the
 * workspace is still being read, and those diagnostics are exact (no dangling reference missed or invented, the
 * disabled, duplicate and declared names known); the menu-similar warnings follow once every summary is compared.
 * Exactness is checked against the core's diagnosis of the whole workspace, read in this process. The client
 * answers the server's progress request only after those answers, so the workspace cannot be read before them
 * however loaded the machine is; the files read early for their claim alone are then read whole with the rest.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { Namespace } from "../../server/src/core/index.js";
import { loadFolders } from "../../server/src/node/workspaceFiles.js";
import { TestClient, removeWorkspace, uriOf } from "./harness.js";

/** Enough files that reading them all takes far longer than reading the few an open editor needs. */
const FILLERS = 4000;

function skill(summary: string, body: string, extra = ""): string {
  return `---\nsummary: ${summary}\n${extra}---\n# A skill\n\n${body}\n`;
}

/** Writes a file of the workspace at `folder`, its folders made as needed. */
function writerIn(folder: string): (relative: string, text: string) => void {
  return (relative, text) => {
    mkdirSync(path.dirname(path.join(folder, relative)), { recursive: true });
    writeFileSync(path.join(folder, relative), text);
  };
}

function writeWorkspace(): { folder: string; opened: string[] } {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-lsp-startup-"));
  const write = writerIn(folder);
  for (let i = 0; i < FILLERS; i++) {
    write(`fillers/filler-${i}.skill.md`, skill(`Filler number ${i} with words zq${i} and xv${i}`, `Ask @filler-${(i * 7 + 1) % FILLERS} then @filler-${(i * 13 + 5) % FILLERS}.`));
  }
  // Its menu names an Agent Skill an open editor mentions too (held by its path alone for that editor) and one
  // that is not advertised, which only its text tells.
  write("skills.json", JSON.stringify({ tools: [{ slug: "team-lookup", name: "team_lookup", blurb: "Looks a teammate up." }], alignment: { menu: ["@late-agent", "@quiet-agent"] } }));
  write("late/target-off.skill.md", skill("Turned off for now and never used", "Nothing.", "enabled: false\n"));
  // Read early for its claim alone: its own dangling mention is known once the workspace is read whole.
  write("late/target-on.skill.md", skill("A target that works and answers", "Nothing, then @nobody-else."));
  write("a/twice.skill.md", skill("The first of two claimants here", "Nothing."));
  write("b/twice.skill.md", skill("The second of two claimants there", "Nothing."));
  // A third claimant, in a name written in capitals: the listing finds every claimant of a handle, in any case.
  write("c/TWICE.skill.md", skill("A third claimant, its name in capitals", "Nothing."));
  // An Agent Skill claims its folder's name: known from the listing, like a `.skill.md` file's name.
  write("late/.claude/skills/late-agent/SKILL.md", "---\nname: late-agent\ndescription: An Agent Skill the open editor mentions\n---\nNothing.\n");
  write("late/.claude/skills/quiet-agent/SKILL.md", "---\nname: quiet-agent\ndescription: Runs when asked by name alone\ndisable-model-invocation: true\n---\nNothing.\n");
  // A folder among the skills without a SKILL.md claims nothing.
  write("late/.claude/skills/helpers/notes.md", "Not a skill.\n");
  write("late/calendar-twin.skill.md", skill("Check the user's calendar for a given day.", "Nothing."));
  const opened = ["open/first.skill.md", "open/second.skill.md", "a/twice.skill.md", "skills.json"];
  write(opened[0] ?? "", skill("Look up the user's calendar for a given day.", "Use @target-on, then @target-off, then @nobody-here, then @team-lookup and @twice and @filler-3 and @late-agent and @quiet-agent and @helpers."));
  write(opened[1] ?? "", skill("Something else entirely for the second editor", "Ask @first and @Target-On and @gone-missing."));
  return { folder, opened: opened.map((file) => path.join(folder, file)) };
}

/** What a client sees of a diagnostic, in a form the core's diagnosis can be compared with. */
const seen = (diagnostic: Pick<Diagnostic, "range" | "message"> & { code?: unknown }) =>
  `${diagnostic.range.start.line}:${diagnostic.range.start.character} ${String(diagnostic.code)} ${diagnostic.message}`;

test("editors opened right after initialize get exact diagnostics before the workspace is read; menu-similar follows", { timeout: 120_000 }, async () => {
  const { folder, opened } = writeWorkspace();
  const whole = new Namespace();
  await loadFolders(whole, [folder]);
  const expected = (file: string, withSimilar: boolean) =>
    whole
      .diagnose(uriOf(file))
      .filter((diagnostic) => withSimilar || diagnostic.code !== "menu-similar")
      .map(seen)
      .sort();
  assert.ok(expected(opened[0] ?? "", true).some((line) => line.includes("menu-similar")), "the fixture has a menu-similar pair");

  let answerProgress: () => void = () => undefined;
  const client = await TestClient.start({ folders: [folder], awaitIndexing: false, progressAnswered: new Promise<void>((resolve) => (answerProgress = resolve)) });
  let indexedBeforeAnswers = false;
  void client.indexed.then(() => (indexedBeforeAnswers = true));
  try {
    for (const file of opened) await client.open(uriOf(file), readFileSync(file, "utf8"));
    const early = await Promise.all(opened.map((file) => client.connection.sendRequest<{ items: Diagnostic[] }>("textDocument/diagnostic", { textDocument: { uri: uriOf(file) } })));
    assert.equal(indexedBeforeAnswers, false, "the open editors' diagnostics waited for the whole workspace");
    answerProgress();
    opened.forEach((file, k) => assert.deepEqual((early[k]?.items ?? []).map(seen).sort(), expected(file, false), file));
    const codes = (early[0]?.items ?? []).map((diagnostic) => diagnostic.code);
    assert.deepEqual(codes.filter((code) => code === "unknown-mention").length, 2, "only @nobody-here and @helpers are unknown");
    assert.ok((early[3]?.items ?? []).some((diagnostic) => diagnostic.message.includes("not advertised")), "the menu's skill that is not advertised");
    assert.ok(codes.includes("disabled-mention") && codes.includes("duplicate-handle") === false);
    assert.ok((early[2]?.items ?? []).some((diagnostic) => diagnostic.code === "duplicate-handle"), "the other claimant was read first");

    await client.indexed;
    // The warnings of the comparison come with a refresh; then the open editors' diagnostics are the whole workspace's.
    await client.waitFor(() => client.messages.some((message) => message.startsWith("Compared the menu's summaries")), 60_000);
    for (const file of opened) {
      const report = await client.connection.sendRequest<{ items: Diagnostic[] }>("textDocument/diagnostic", { textDocument: { uri: uriOf(file) } });
      assert.deepEqual(report.items.map(seen).sort(), expected(file, true), file);
    }
    const targetOn = path.join(folder, "late/target-on.skill.md");
    const whole = await client.connection.sendRequest<{ items: Diagnostic[] }>("textDocument/diagnostic", { textDocument: { uri: uriOf(targetOn) } });
    assert.deepEqual(whole.items.map(seen).sort(), expected(targetOn, true), "a file read early for its claim is read whole with the workspace");
    assert.ok(whole.items.some((diagnostic) => diagnostic.code === "unknown-mention"));
    assert.ok(client.refreshes.includes("diagnostics"));
  } finally {
    await client.stop();
    removeWorkspace(folder);
  }
});

test("a client that takes pushed diagnostics gets the open editors' exact diagnostics first too", { timeout: 120_000 }, async () => {
  const { folder, opened } = writeWorkspace();
  const whole = new Namespace();
  await loadFolders(whole, [folder]);
  const expected = (file: string) =>
    whole
      .diagnose(uriOf(file))
      .filter((diagnostic) => diagnostic.code !== "menu-similar")
      .map(seen)
      .sort();
  let answerProgress: () => void = () => undefined;
  const client = await TestClient.start({ folders: [folder], pull: false, awaitIndexing: false, progressAnswered: new Promise<void>((resolve) => (answerProgress = resolve)) });
  let indexed = false;
  void client.indexed.then(() => (indexed = true));
  try {
    const first = new Map<string, Diagnostic[]>();
    const uris = opened.map((file) => uriOf(file));
    for (const file of opened) await client.open(uriOf(file), readFileSync(file, "utf8"));
    await client.waitFor(() => {
      for (const uri of uris) if (!first.has(uri) && client.pushed.has(uri)) first.set(uri, client.pushed.get(uri) ?? []);
      return first.size === uris.length;
    }, 60_000);
    assert.equal(indexed, false, "the open editors' diagnostics waited for the whole workspace");
    opened.forEach((file) => assert.deepEqual((first.get(uriOf(file)) ?? []).map(seen).sort(), expected(file), file));
    answerProgress();
    await client.indexed;
  } finally {
    await client.stop();
    removeWorkspace(folder);
  }
});

test("an editor that names hundreds of skills not read yet is answered after the editors opened with it", { timeout: 120_000 }, async () => {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-lsp-startup-hub-"));
  const write = writerIn(folder);
  for (let i = 0; i < 300; i++) write(`skills/item-${i}.skill.md`, skill(`Item number ${i}, words zq${i} and xv${i}`, "Nothing."));
  write("skills/off-item.skill.md", skill("An item turned off", "Nothing.", "enabled: false\n"));
  write("hub.skill.md", skill("Routes a request to one of the items", Array.from({ length: 300 }, (_, i) => `@item-${i}`).join(" ") + " @off-item @no-such-item"));
  const small = Array.from({ length: 5 }, (_, k) => `small-${k}.skill.md`);
  small.forEach((file, k) => write(file, skill(`Small editor ${k}, words qq${k}`, `Ask @item-${k * 7} and @off-item.`)));
  const opened = ["hub.skill.md", ...small].map((file) => path.join(folder, file));
  const whole = new Namespace();
  await loadFolders(whole, [folder]);
  let answerProgress: () => void = () => undefined;
  const client = await TestClient.start({ folders: [folder], awaitIndexing: false, progressAnswered: new Promise<void>((resolve) => (answerProgress = resolve)) });
  try {
    for (const file of opened) await client.open(uriOf(file), readFileSync(file, "utf8"));
    const order: string[] = [];
    const answers = await Promise.all(
      opened.map((file) =>
        client.connection.sendRequest<{ items: Diagnostic[] }>("textDocument/diagnostic", { textDocument: { uri: uriOf(file) } }).then((report) => {
          order.push(path.basename(file));
          return report;
        }),
      ),
    );
    answerProgress();
    assert.equal(order.at(-1), "hub.skill.md", `answered in the order ${order.join(", ")}`);
    opened.forEach((file, k) => assert.deepEqual((answers[k]?.items ?? []).map(seen).sort(), whole.diagnose(uriOf(file)).filter((diagnostic) => diagnostic.code !== "menu-similar").map(seen).sort(), file));
    assert.ok((answers[0]?.items ?? []).some((diagnostic) => diagnostic.code === "disabled-mention"));
    await client.indexed;
  } finally {
    await client.stop();
    removeWorkspace(folder);
  }
});
