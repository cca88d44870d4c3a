/** Nested libraries: every folder below with a skills.json of its own, found through links once, loops and ignored folders left out. */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { belongsTo, librariesOf } from "../../server/src/node/libraries.js";
import { FolderListing, uriFromPath } from "../../server/src/node/workspaceFiles.js";

/** The config folders a listing of `root` finds, its skill folders listed by both threads at once or a chunk at a time. */
async function configFoldersOf(root: string, hurried: boolean): Promise<readonly string[]> {
  const listing = new FolderListing([root]);
  if (hurried) listing.hurry();
  try {
    return await listing.configFolders;
  } finally {
    listing.close();
  }
}

test("configFolders: nested skills.json files, through links, never round a loop or into an ignored folder, however listed", async () => {
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
    config(path.join(root, "plain", "skills", "a")); // in an Agent Skill's folder: listed second when deferred
    const whole = await configFoldersOf(root, false);
    const relative = whole.map((folder) => path.relative(root, folder));
    // The linked folder is one library, found once, by whichever link the walk met first; the team folder too.
    assert.deepEqual(relative.filter((folder) => !/shared/.test(folder)), ["plain/skills/a", "team", "team/deep/er"]);
    assert.equal(relative.filter((folder) => /shared/.test(folder)).length, 1, relative.join(", "));
    assert.deepEqual(await configFoldersOf(root, true), whole);
    // Each library's files are its own: none of a library nested in it.
    const { tops, nested } = librariesOf([root], whole);
    assert.deepEqual(tops[0]?.nested, whole);
    const team = nested.find((library) => library.root === path.join(root, "team"));
    assert.deepEqual(team?.nested, whole.filter((folder) => folder.startsWith(path.join(root, "team") + path.sep)));
    assert.ok(team?.nested.includes(path.join(root, "team", "deep", "er")));
    const owners = (file: string) => [...tops, ...nested].filter((library) => belongsTo(library, uriFromPath(path.join(root, file)))).map((library) => path.relative(root, library.root));
    assert.deepEqual(owners("team/deep/x.skill.md"), ["team"]);
    assert.deepEqual(owners("team/deep/er/x.skill.md"), ["team/deep/er"]);
    assert.deepEqual(owners("plain/skills/a/SKILL.md"), ["plain/skills/a"]);
    assert.deepEqual(owners("plain/x.skill.md"), [""]);
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});
