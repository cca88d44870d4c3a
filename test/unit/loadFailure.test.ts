/**
 * The first index takes every file it can: a fault while one file is taken (never the file's own problem, which
 * becomes a diagnostic) is reported for that file, and the rest of the workspace is read on. Without a place to
 * report it, the load fails as it always did.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { Namespace } from "../../server/src/core/index.js";
import { loadFolders } from "../../server/src/node/workspaceFiles.js";

/** A namespace whose `load` faults on one file, as a bug in a parser would. */
class FaultyNamespace extends Namespace {
  override load(uri: string, text: string): void {
    if (uri.endsWith("/faulty.skill.md")) throw new RangeError("a fault in the parser");
    super.load(uri, text);
  }
}

function workspace(): string {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-load-failure-"));
  for (const name of ["alpha", "faulty", "omega"]) writeFileSync(path.join(folder, `${name}.skill.md`), `---\nsummary: The ${name} skill.\n---\nUse @alpha.\n`);
  return folder;
}

test("a file that faults is reported and left out; the others are indexed", async () => {
  const folder = workspace();
  try {
    const namespace = new FaultyNamespace();
    const failures: string[] = [];
    await loadFolders(namespace, [folder], { onFileFailure: (file, error) => failures.push(`${path.basename(file)}: ${(error as Error).message}`) });
    assert.deepEqual(failures, ["faulty.skill.md: a fault in the parser"]);
    assert.deepEqual([...namespace.skills()].map((skill) => skill.handle).sort(), ["alpha", "omega"]);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("without a place to report it, the fault fails the load", async () => {
  const folder = workspace();
  try {
    await assert.rejects(loadFolders(new FaultyNamespace(), [folder]), /a fault in the parser/);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
