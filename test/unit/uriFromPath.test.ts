/** A file's URI made by hand for a plain path is the one vscode-uri makes, for every path. */
import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import fc from "fast-check";
import { URI } from "vscode-uri";
import { uriFromPath } from "../../server/src/node/workspaceFiles.js";

const slow = (filePath: string) => URI.file(path.resolve(filePath)).toString();

test("uriFromPath: plain, dotted, encoded and relative paths", () => {
  const cases = [
    "/w/skills/a.skill.md",
    "/w/.claude/skills/pdf/SKILL.md",
    "/w/x/./a.skill.md",
    "/w/x/../a.skill.md",
    "/w/x/..",
    "/w/x/.",
    "/w//a.skill.md",
    "/w/a b/c.skill.md",
    "/w/ä/c.skill.md",
    "/w/#/c%20.skill.md",
    "/w/a:b/c.skill.md",
    "/w/~user/c.skill.md",
    "/w/a/",
    "relative/a.skill.md",
    "/",
  ];
  for (const filePath of cases) assert.equal(uriFromPath(filePath), slow(filePath), filePath);
});

test("uriFromPath: any path of slashes, dots and a few characters", () => {
  const piece = fc.constantFrom("/", ".", "..", "a", "B", "-", "_", "~", " ", "%", ":", "é", "#", "?", "@", "+");
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
      const filePath = `/${pieces.join("")}`;
      assert.equal(uriFromPath(filePath), slow(filePath));
    }),
    { numRuns: 3000 },
  );
});
