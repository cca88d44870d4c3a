/** Nested libraries: every folder below with a skills.json of its own, found through links once, loops and ignored folders left out. */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { nestedConfigFolders } from "../../server/src/node/libraries.js";

test("nestedConfigFolders: nested skills.json files, through links, never round a loop or into an ignored folder", async () => {
  const outside = mkdtempSync(path.join(tmpdir(), "skill-lsp-outside-"));
  const root = mkdtempSync(path.join(tmpdir(), "skill-lsp-libraries-"));
  try {
    const config = (folder: string) => {
      mkdirSync(folder, { recursive: true });
      writeFileSync(path.join(folder, "skills.json"), "{}");
    };
    config(root); // the root's own is not a nested one
    config(path.join(root, "team"));
    config(path.join(root, "team", "deep", "er"));
    config(path.join(root, "node_modules", "pkg")); // ignored by default
    config(path.join(root, "ignored-here")); // ignored by the root's .skillignore
    writeFileSync(path.join(root, ".skillignore"), "ignored-here/\n");
    mkdirSync(path.join(root, "plain", "skills", "a"), { recursive: true });
    writeFileSync(path.join(root, "plain", "skills.json.txt"), "not a config");
    config(path.join(outside, "shared"));
    symlinkSync(path.join(outside, "shared"), path.join(root, "linked-shared"), "dir");
    symlinkSync(path.join(outside, "shared"), path.join(root, "team", "same-shared-again"), "dir");
    symlinkSync(root, path.join(root, "team", "loop-to-root"), "dir");
    symlinkSync(path.join(root, "team"), path.join(root, "plain", "loop-to-team"), "dir");
    symlinkSync(path.join(root, "missing"), path.join(root, "broken"), "dir");
    const found = await nestedConfigFolders(root);
    const relative = found.map((folder) => path.relative(root, folder));
    // The linked folder is one library, found once, by whichever link the walk met first; the team folder too.
    assert.deepEqual(relative.filter((folder) => !/shared/.test(folder)), ["team", "team/deep/er"]);
    assert.equal(relative.filter((folder) => /shared/.test(folder)).length, 1, relative.join(", "));
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});
