/** A path's ignore check takes the part past the root where it can, and gives path.relative's answer everywhere. */
import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import fc from "fast-check";
import { IgnoreRules } from "../../server/src/core/index.js";
import { isIgnoredPath, relativePath } from "../../server/src/node/workspaceFiles.js";

test("isIgnoredPath: plain, dotted and outside paths, a root with or without its slash", () => {
  const rules = new IgnoreRules("drafts/\n*.tmp.skill.md\n");
  const cases: [string, string, boolean][] = [
    ["/w", "/w/a.skill.md", false],
    ["/w/", "/w/a.skill.md", false],
    ["/w", "/w/drafts/a.skill.md", true],
    ["/w/", "/w/drafts/a.skill.md", true],
    ["/w", "/w/x/a.tmp.skill.md", true],
    ["/w", "/w/x/./drafts/a.skill.md", true],
    ["/w", "/w/x/../drafts/a.skill.md", true],
    ["/w", "/w/node_modules/p/a.skill.md", true],
    ["/w", "/wx/drafts/a.skill.md", isIgnoredByRelative(rules, "/w", "/wx/drafts/a.skill.md")],
  ];
  for (const [root, file, ignored] of cases) assert.equal(isIgnoredPath(rules, root, file), ignored, `${root} ${file}`);
});

/** The answer computed the long way, with path.relative. */
function isIgnoredByRelative(rules: IgnoreRules, root: string, file: string): boolean {
  const parts = path.relative(root, file).split(path.sep);
  for (let i = 1; i < parts.length; i++) if (rules.ignores(parts.slice(0, i).join("/"), true)) return true;
  return rules.ignores(parts.join("/"), false);
}

test("relativePath: what path.relative answers, for any root and path of slashes, dots and names", () => {
  const piece = fc.constantFrom("/", ".", "..", "a", "b", "-", " ");
  const pathOf = (pieces: string[]) => `/${pieces.join("")}`;
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 6 }), fc.array(piece, { maxLength: 10 }), (rootPieces, filePieces) => {
      const root = pathOf(rootPieces);
      for (const filePath of [pathOf(filePieces), `${root}/${filePieces.join("")}`]) assert.equal(relativePath(root, filePath), path.relative(root, filePath), `${root} ${filePath}`);
    }),
    { numRuns: 3000 },
  );
});
