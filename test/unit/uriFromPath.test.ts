/** A file's URI made by hand for a plain path is the one vscode-uri makes, for every path; its path read back the same way, and a URI's canonical form too. */
import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import fc from "fast-check";
import { URI } from "vscode-uri";
import { canonicalUri, pathFromUri, uriFromPath } from "../../server/src/node/workspaceFiles.js";

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

/** What a call gives, or that it throws (vscode-uri refuses some URIs): the two ways must agree on both. */
function outcome(read: () => string): string {
  try {
    return `path ${read()}`;
  } catch {
    return "refused";
  }
}

test("pathFromUri: the path vscode-uri reads from any file URI", () => {
  const cases = ["file:///w/skills/a.skill.md", "file:///w/x/../a", "file:///w/a%20b/c.skill.md", "file:///c:/w/a.skill.md", "file:///C%3A/w/a", "file://host/w/a", "file:///w//a", "file:///", "untitled:Untitled-1", "file:///w/a?q#f"];
  for (const uri of cases) assert.equal(outcome(() => pathFromUri(uri)), outcome(() => URI.parse(uri).fsPath), uri);
  const piece = fc.constantFrom("/", ".", "..", "a", "B", "-", "_", "~", " ", "%", "%20", ":", "é", "#", "?", "@", "+", "C:");
  fc.assert(
    fc.property(fc.constantFrom("file://", "file:///", "file:////", "vscode-remote://"), fc.array(piece, { maxLength: 12 }), (scheme, pieces) => {
      const uri = `${scheme}${pieces.join("")}`;
      assert.equal(outcome(() => pathFromUri(uri)), outcome(() => URI.parse(uri).fsPath), uri);
    }),
    { numRuns: 3000 },
  );
});

test("canonicalUri: the form vscode-uri gives any URI, its plain file URIs taken as they are", () => {
  const cases = ["file:///w/skills/a.skill.md", "file:///w/x/../a", "file:///w/./a", "file:///w/a%20b/c.skill.md", "file:///c:/w/a.skill.md", "file:///C:/w/a", "file://host/w/a", "file:///w//a", "file:///", "file:///w/~u/A-b_c.d", "untitled:Untitled-1"];
  for (const uri of cases) assert.equal(outcome(() => canonicalUri(uri)), outcome(() => URI.parse(uri).toString()), uri);
  const piece = fc.constantFrom("/", ".", "..", "a", "B", "-", "_", "~", " ", "%", "%20", "%7E", ":", "é", "#", "?", "@", "+", "C:");
  fc.assert(
    fc.property(fc.constantFrom("file://", "file:///", "file:////"), fc.array(piece, { maxLength: 12 }), (scheme, pieces) => {
      const uri = `${scheme}${pieces.join("")}`;
      assert.equal(outcome(() => canonicalUri(uri)), outcome(() => URI.parse(uri).toString()), uri);
    }),
    { numRuns: 5000 },
  );
});
