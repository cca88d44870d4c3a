import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isRefusal, parseMentions, scanMentions, type RenamePlan } from "../../server/src/core/index.js";
import { applyPlan, loadExamples, skillText, skillUri, uri, workspace } from "./helpers.js";

const CONFIG = uri("skills.json");

function plan(files: Record<string, string>, oldSlug: string, newHandle: string): RenamePlan {
  const result = workspace(files).planRename(oldSlug, newHandle);
  if (isRefusal(result)) throw new Error(`refused: ${result.refused}`);
  return result;
}

function refusal(files: Record<string, string>, oldSlug: string, newHandle: string): string {
  const result = workspace(files).planRename(oldSlug, newHandle);
  if (!isRefusal(result)) throw new Error(`expected a refusal, got a plan to ${result.fileRename.newUri}`);
  return result.refused;
}

/** Every mention slug in every file, as the parser sees them (raw text: skills.json included). */
const allMentions = (files: Record<string, string>) => Object.values(files).flatMap((text) => scanMentions(text).mentions.map((m) => m.slug));

describe("planRename", () => {
  test("on examples/: renames the file and rewrites every mention, skills.json included", () => {
    const files = loadExamples();
    const renamePlan = plan(files, "search-info", "find-info");
    const oldUri = uri("skills/builtin/search-info.skill.md");
    assert.deepEqual(renamePlan.fileRename, { oldUri, newUri: uri("skills/builtin/find-info.skill.md") });
    assert.deepEqual([...renamePlan.edits.keys()].sort(), [uri("skills/home/plan-trip.skill.md"), uri("skills/work/meeting-prep.skill.md"), CONFIG].sort());
    const after = applyPlan(files, renamePlan);
    assert.equal(after[oldUri], undefined);
    assert.equal(after[uri("skills/builtin/find-info.skill.md")], files[oldUri]);
    assert.ok(!allMentions(after).includes("search-info"));
    assert.equal(allMentions(after).filter((slug) => slug === "find-info").length, allMentions(files).filter((slug) => slug === "search-info").length);
    assert.match(after[CONFIG] ?? "", /"menu": \["@find-info", "@check-schedule"/);
    const renamed = workspace(after);
    for (const fileUri of Object.keys(after)) assert.deepEqual(renamed.diagnose(fileUri).filter((d) => d.severity === "error"), [], fileUri);
  });

  test("every mention in every file: summary, body, self-mentions, skills.json text and menu; never @old-thing", () => {
    const files = {
      [skillUri("plan")]: "---\nsummary: Like @plan, not @plan-trip\n---\nRun @plan again; @Plan, @PLAN. Not @plan-trip, @plan2, x@plan, \\@plan or @plan_x.\n",
      [skillUri("plan-trip", "home")]: skillText("First @plan, then @plan-trip.\r\nAgain @plan\r\n"),
      [skillUri("other")]: skillText("Nothing about it: @plan-trip only."),
      [CONFIG]: '{"alignment": {"instructions": "Start with @plan.\\n@plan first", "menu": ["@plan", "@plan-trip"]}}',
    };
    const renamePlan = plan(files, "plan", "route");
    assert.deepEqual([...renamePlan.edits.keys()].sort(), [skillUri("plan"), skillUri("plan-trip", "home"), CONFIG].sort());
    assert.equal(renamePlan.edits.get(skillUri("plan"))?.length, 4);
    const after = applyPlan(files, renamePlan);
    assert.equal(after[skillUri("route")], "---\nsummary: Like @route, not @plan-trip\n---\nRun @route again; @route, @route. Not @plan-trip, @plan2, x@plan, \\@plan or @plan_x.\n");
    assert.equal(after[skillUri("plan-trip", "home")], skillText("First @route, then @plan-trip.\r\nAgain @route\r\n"));
    assert.equal(after[skillUri("other")], files[skillUri("other")]);
    assert.equal(after[CONFIG], '{"alignment": {"instructions": "Start with @route.\\n@route first", "menu": ["@route", "@plan-trip"]}}');
  });

  test("the plan's edits are ranges in the texts the namespace holds", () => {
    const renamePlan = plan({ [skillUri("a")]: skillText("x"), [skillUri("b")]: "line\n  @a and @a" }, "a", "c");
    assert.deepEqual(renamePlan.edits.get(skillUri("b")), [
      { range: { start: { line: 1, character: 2 }, end: { line: 1, character: 4 } }, newText: "@c" },
      { range: { start: { line: 1, character: 9 }, end: { line: 1, character: 11 } }, newText: "@c" },
    ]);
  });

  test("a skill no one mentions: only the file moves", () => {
    const renamePlan = plan({ [skillUri("lonely", "dir")]: skillText("x") }, "Lonely", "alone");
    assert.equal(renamePlan.oldSlug, "lonely");
    assert.equal(renamePlan.newSlug, "alone");
    assert.equal(renamePlan.edits.size, 0);
    assert.equal(renamePlan.fileRename.newUri, skillUri("alone", "dir"));
  });

  test("a disabled skill can be renamed, and its mentioners follow", () => {
    const files = { [skillUri("off")]: skillText("x", { enabled: false }), [skillUri("a")]: skillText("Use @off.") };
    const after = applyPlan(files, plan(files, "off", "dormant"));
    assert.deepEqual(parseMentions(after[skillUri("a")] ?? ""), ["dormant"]);
  });
});

describe("planRename refuses", () => {
  const files = {
    [skillUri("plan")]: skillText("x"),
    [skillUri("meeting-prep", "work")]: skillText("y"),
    [skillUri("dup", "a")]: skillText("1"),
    [skillUri("dup", "b")]: skillText("2"),
    [CONFIG]: '{"tools": [{"slug": "send-message", "name": "send_message", "blurb": "b"}]}',
    [skillUri("Case")]: skillText("an invalid handle claims nothing, but its file is there"),
  };
  const cases: [string, string, string, RegExp][] = [
    ["an invalid name", "plan", "Route Planner", /"Route Planner" is not a valid handle/],
    ["an upper-case name, with the fix", "plan", "Route", /^A handle is lower-case: use "route"\.$/],
    ["an empty name", "plan", "", /cannot be empty/],
    ["a name too long", "plan", "x".repeat(65), /at most 64 characters/],
    ["a name another skill holds, naming it", "plan", "meeting-prep", new RegExp(`^@meeting-prep is taken by the skill ${skillUri("meeting-prep", "work").replace(/[./]/g, "\\$&")}\\.$`)],
    ["a built-in tool's name", "plan", "find-file", /^@find-file is taken by the built-in tool find_file\.$/],
    ["a declared tool's name", "plan", "send-message", /^@send-message is taken by the tool send_message declared in skills.json\.$/],
    ["renaming a built-in tool", "calendar", "agenda", /^@calendar is a built-in tool; only skills can be renamed\.$/],
    ["renaming a declared tool", "send-message", "send", /^@send-message is a tool declared in skills.json; only skills can be renamed\.$/],
    ["an ambiguous handle", "dup", "unique", /^@dup is claimed by 2 skills; rename one of the files first/],
    ["an unknown skill", "ghost", "spirit", /^No skill is named @ghost\.$/],
    ["the same name", "plan", "plan", /already named @plan/],
    ["a name whose file exists in another case", "plan", "case", new RegExp(`^@case would overwrite the file ${skillUri("Case").replace(/[./]/g, "\\$&")}; rename or remove that file first\\.$`)],
  ];
  for (const [name, oldSlug, newHandle, message] of cases) {
    test(name, () => assert.match(refusal(files, oldSlug, newHandle), message));
  }
});
