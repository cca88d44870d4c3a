/**
 * A client that passes a partial-result token with `workspace/diagnostic` (VS Code does) gets the report in
 * parts, as `$/progress`, and an empty answer; one that does not gets the whole report in the answer. Both
 * describe the same files with the same problems, and leave out the clean files (the client holds no result for them).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { WorkspaceDiagnosticRequest, type WorkspaceDocumentDiagnosticReport } from "vscode-languageserver-protocol";
import { TestClient, removeWorkspace, uriOf } from "./harness.js";

const SKILLS = 2500;
/** Every this many skills one mentions a skill that does not exist: enough problems for several parts. */
const DANGLING_EVERY = 7;

function summaryOf(items: readonly WorkspaceDocumentDiagnosticReport[]): string[] {
  return items.map((item) => `${item.uri} ${(item.kind === "full" ? item.items : []).map((diagnostic) => String(diagnostic.code)).sort().join(",")}`).sort();
}

test("the workspace report comes in parts when the client asks for partial results, and says the same", { timeout: 120_000 }, async () => {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-lsp-report-parts-"));
  mkdirSync(path.join(folder, "skills"));
  for (let i = 0; i < SKILLS; i++) {
    // Every 7th skill mentions one that does not exist. Off the menu: alike summaries would gain warnings between the two reports.
    const next = i % DANGLING_EVERY === 0 ? `missing-${i}` : `part-${(i + 1) % SKILLS}`;
    writeFileSync(path.join(folder, "skills", `part-${i}.skill.md`), `---\nsummary: Part ${i} of the test\nadvertised: false\n---\nThen use @${next}.\n`);
  }
  const client = await TestClient.start({ folders: [folder], pull: true });
  try {
    const whole = await client.connection.sendRequest(WorkspaceDiagnosticRequest.type, { previousResultIds: [] });
    const dirty = Array.from({ length: Math.ceil(SKILLS / DANGLING_EVERY) }, (_, k) => uriOf(path.join(folder, "skills", `part-${k * DANGLING_EVERY}.skill.md`))).sort();
    assert.deepEqual(whole.items.map((item) => item.uri).sort(), dirty, "the files with problems, and no clean one");

    const parts: WorkspaceDocumentDiagnosticReport[][] = [];
    const token = "report-parts";
    const listening = client.connection.onProgress(WorkspaceDiagnosticRequest.partialResult, token, (part) => parts.push(part.items));
    const answer = await client.connection.sendRequest(WorkspaceDiagnosticRequest.type, { previousResultIds: [], partialResultToken: token });
    listening.dispose();
    assert.deepEqual(answer.items, [], "the answer is empty once parts were sent");
    assert.ok(parts.length >= 2, `the report came in ${parts.length} part(s)`);
    const received = parts.flat();
    assert.equal(new Set(received.map((item) => item.uri)).size, received.length, "each file once");
    assert.deepEqual(summaryOf(received), summaryOf(whole.items));
    const dangling = received.filter((item) => item.kind === "full" && item.items.some((diagnostic) => diagnostic.code === "unknown-mention"));
    assert.deepEqual(dangling.map((item) => item.uri).sort(), dirty);
  } finally {
    await client.stop();
    removeWorkspace(folder);
  }
});
