/**
 * Most files have nothing to report, and their diagnosis takes a short way: a mention in lower case of the one
 * enabled skill that claims it builds nothing. These are the cases beside that way which must still report,
 * also when a change elsewhere makes a clean file's cached answer stale.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { DiagnosticCodes } from "../../server/src/core/index.js";
import { codes, skillText, skillUri, workspace } from "./helpers.js";

test("a clean file reports nothing; each problem beside the short way is still reported", () => {
  const ns = workspace({
    [skillUri("clean")]: skillText("Use @target and @find-file."),
    [skillUri("target")]: skillText("Nothing."),
    [skillUri("cased")]: skillText("Use @Target."),
    [skillUri("off")]: skillText("Nothing.", { summary: "Off.", enabled: false }),
    [skillUri("to-off")]: skillText("Use @off."),
    [skillUri("to-nothing")]: skillText("Use @nobody."),
    [skillUri("calendar")]: skillText("A skill named like a tool."),
    [skillUri("to-calendar")]: skillText("Use @calendar."),
  });
  assert.deepEqual(codes(ns.diagnose(skillUri("clean"))), []);
  assert.deepEqual(codes(ns.diagnose(skillUri("cased"))), [DiagnosticCodes.mentionCase]);
  assert.deepEqual(codes(ns.diagnose(skillUri("to-off"))), [DiagnosticCodes.disabledMention]);
  assert.deepEqual(codes(ns.diagnose(skillUri("to-nothing"))), [DiagnosticCodes.unknownMention]);
  assert.deepEqual(codes(ns.diagnose(skillUri("calendar"))), [DiagnosticCodes.toolCollision]);
  assert.deepEqual(codes(ns.diagnose(skillUri("to-calendar"))), []);
});

test("a clean file's answer follows the files it names: disabled, duplicated, removed", () => {
  const ns = workspace({ [skillUri("clean")]: skillText("Use @target."), [skillUri("target")]: skillText("Nothing.") });
  assert.deepEqual(codes(ns.diagnose(skillUri("clean"))), []);
  ns.set(skillUri("target"), skillText("Nothing.", { summary: "Off now.", enabled: false }));
  assert.deepEqual(codes(ns.diagnose(skillUri("clean"))), [DiagnosticCodes.disabledMention]);
  ns.set(skillUri("target"), skillText("Nothing."));
  assert.deepEqual(codes(ns.diagnose(skillUri("clean"))), []);
  ns.set(skillUri("target", "elsewhere"), skillText("A second claimant."));
  assert.deepEqual(codes(ns.diagnose(skillUri("clean"))), [], "a duplicated handle is the claimants' error, not the mention's");
  assert.deepEqual(codes(ns.diagnose(skillUri("target"))), [DiagnosticCodes.duplicateHandle]);
  ns.remove(skillUri("target"));
  ns.remove(skillUri("target", "elsewhere"));
  assert.deepEqual(codes(ns.diagnose(skillUri("clean"))), [DiagnosticCodes.unknownMention]);
});

test("when one of two claimants goes, the mention answers for the one left: enabled or not", () => {
  const ns = workspace({ [skillUri("clean")]: skillText("Use @target."), [skillUri("target")]: skillText("Nothing.") });
  ns.set(skillUri("target", "elsewhere"), skillText("Off.", { summary: "Off.", enabled: false }));
  ns.remove(skillUri("target"));
  assert.deepEqual(codes(ns.diagnose(skillUri("clean"))), [DiagnosticCodes.disabledMention], "the disabled claimant is the only one left");
  ns.set(skillUri("target"), skillText("Back."));
  ns.remove(skillUri("target", "elsewhere"));
  assert.deepEqual(codes(ns.diagnose(skillUri("clean"))), [], "the enabled claimant is the only one left");
  ns.set(skillUri("target"), skillText("Renamed away.", { summary: "Off.", enabled: false }));
  assert.deepEqual(codes(ns.diagnose(skillUri("clean"))), [DiagnosticCodes.disabledMention]);
});

test("an Agent Skill's references report as before the short way: nothing for an enabled skill, a link checked, a disabled skill warned of", () => {
  const agentSkill = (name: string, body: string) => [`file:///w/skills/${name}/SKILL.md`, `---\nname: ${name}\ndescription: The ${name} skill, for tests.\n---\n${body}\n`] as const;
  const ns = workspace(
    Object.fromEntries([
      agentSkill("writer", "Run /target, then $target, see [it](../target/SKILL.md) and [gone](../missing/SKILL.md), [moved](../../other/skills/target/SKILL.md), then /off."),
      agentSkill("target", "Nothing."),
      [skillUri("off"), skillText("Nothing.", { summary: "Off.", enabled: false })],
    ]),
  );
  const found = ns.diagnose("file:///w/skills/writer/SKILL.md");
  assert.deepEqual(codes(found).sort(), [DiagnosticCodes.brokenLink, DiagnosticCodes.brokenLink, DiagnosticCodes.disabledMention].sort(), JSON.stringify(found.map((d) => d.message)));
});
