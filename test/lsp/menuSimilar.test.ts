/**
 * The menu-similar comparison over stdio on threads of its own: summaries edited while it runs still end with
 * exact warnings (those of the core's diagnosis of the final texts), and the open editors are answered meanwhile.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import type { Diagnostic, NotificationMessage } from "vscode-languageserver-protocol";
import { Namespace } from "../../server/src/core/index.js";
import { TestClient, removeWorkspace, uriOf } from "./harness.js";

/** Enough summaries from few words that the comparison takes a while, and that it runs on the join threads. */
const SKILLS = 12_000;
const WORDS = ["search", "notes", "calendar", "draft", "reply", "message", "check", "weekly", "report", "digest", "audit", "brief", "filter", "meeting", "invoice", "travel", "budget", "review", "contract", "ticket"];

function summary(seed: number): string {
  let state = seed + 1;
  const random = () => (state = (Math.imul(state, 48271) >>> 0) % 2147483647) / 2147483647;
  return Array.from({ length: 3 + Math.floor(random() * 8) }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
}

const text = (line: string, k: number) => `---\nsummary: ${line}\n---\n# Skill ${k}\n\nAsk @s${(k * 7 + 1) % SKILLS}.\n`;

/** The work-done progress the server began, by title, and whether each ended. */
function progressOf(client: TestClient): { title: string; ended: boolean }[] {
  const byToken = new Map<string | number, { title: string; ended: boolean }>();
  for (const message of client.log.received) {
    if (!("method" in message) || message.method !== "$/progress") continue;
    const { token, value } = (message as NotificationMessage).params as { token: string | number; value: { kind: string; title?: string } };
    if (value.kind === "begin") byToken.set(token, { title: value.title ?? "", ended: false });
    const begun = byToken.get(token);
    if (value.kind === "end" && begun) begun.ended = true;
  }
  return [...byToken.values()];
}

const COMPARING = "Comparing the menu's summaries";

const seen = (diagnostic: Pick<Diagnostic, "range" | "message"> & { code?: unknown }) =>
  `${diagnostic.range.start.line}:${diagnostic.range.start.character} ${String(diagnostic.code)} ${diagnostic.message}`;

test("summaries edited during the threaded comparison: the warnings at its end are exact", { timeout: 180_000 }, async () => {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-lsp-join-"));
  mkdirSync(path.join(folder, "skills"));
  const texts = new Map<string, string>();
  for (let k = 0; k < SKILLS; k++) {
    const file = path.join(folder, "skills", `s${k}.skill.md`);
    writeFileSync(file, text(summary(k), k));
    texts.set(uriOf(file), text(summary(k), k));
  }
  const client = await TestClient.start({ folders: [folder] });
  const compared = () => client.messages.find((message) => message.startsWith("Compared the menu's summaries"));
  const edited: string[] = [];
  try {
    // One editor after another changes its summary (to one like many, or to nothing alike) until the comparison ends.
    for (let k = 0; !compared() && k < 200; k++) {
      const uri = uriOf(path.join(folder, "skills", `s${k}.skill.md`));
      const next = text(k % 2 === 0 ? summary(k + 1) : `unique${k} words${k} here${k}`, k);
      await client.open(uri, texts.get(uri) ?? "");
      await client.change(uri, next);
      texts.set(uri, next);
      edited.push(uri);
      // Answered while the comparison runs.
      await client.connection.sendRequest("textDocument/diagnostic", { textDocument: { uri } });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await client.waitFor(() => compared() !== undefined, 120_000);
    assert.ok(edited.length >= 2, `the comparison ended after ${edited.length} edit(s): too fast to edit during it`);
    assert.match(compared() ?? "", /pairs found on threads of their own/);
    // A comparison of this size shows its progress to a client that takes progress, and ends it.
    await client.waitFor(() => progressOf(client).some((progress) => progress.title === COMPARING && progress.ended));
    assert.equal(progressOf(client).filter((progress) => progress.title === COMPARING).length, 1);

    const whole = new Namespace();
    for (const [uri, body] of texts) whole.setSkill(uri, body);
    // The edited skills, and skills near them (their neighbours' warnings changed too).
    const checked = new Set(edited);
    for (const uri of edited) for (const diagnostic of whole.diagnose(uri)) for (const related of diagnostic.related ?? []) checked.add(related.uri);
    let warned = 0;
    for (const uri of checked) {
      const expected = whole.diagnose(uri).map(seen).sort();
      const report = await client.connection.sendRequest<{ items: Diagnostic[] }>("textDocument/diagnostic", { textDocument: { uri } });
      assert.deepEqual(report.items.map(seen).sort(), expected, uri);
      // Each warning's neighbours go with it as related locations, to a client that takes them (this one does).
      const relatedOf = (items: readonly { code?: unknown; message: string; related?: string[] }[]) => items.filter((item) => item.code === "menu-similar").map((item) => `${item.message} ${item.related?.join(" ")}`);
      const sent = report.items.map((item) => ({ code: item.code, message: item.message, related: item.relatedInformation?.map((related) => `${related.location.uri} ${related.message}`) }));
      const made = whole.diagnose(uri).map((item) => ({ code: item.code, message: item.message, related: item.related?.map((related) => `${related.uri} ${related.message}`) }));
      assert.deepEqual(relatedOf(sent), relatedOf(made), uri);
      if (expected.some((line) => line.includes("menu-similar"))) warned++;
    }
    assert.ok(warned > edited.length / 4, `${warned} of ${checked.size} checked skills have a warning`);
  } finally {
    await client.stop();
    removeWorkspace(folder);
  }
});

test("a small workspace's comparison shows no progress", async () => {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-lsp-join-small-"));
  mkdirSync(path.join(folder, "skills"));
  for (let k = 0; k < 40; k++) writeFileSync(path.join(folder, "skills", `s${k}.skill.md`), text(summary(k), k));
  const client = await TestClient.start({ folders: [folder] });
  try {
    await client.waitFor(() => client.messages.some((message) => message.startsWith("Compared the menu's summaries")), 20_000);
    const titles = progressOf(client).map((progress) => progress.title);
    assert.ok(titles.includes("Indexing skills"), `progress: ${titles.join(", ")}`);
    assert.ok(!titles.includes(COMPARING), `progress: ${titles.join(", ")}`);
  } finally {
    await client.stop();
    removeWorkspace(folder);
  }
});
