/**
 * Mention completion scans a table of the skills' handles, titles and letters rather than the skills. These
 * tests hold it to the plain scan it replaced, written out below: every skill in the namespace's order, the
 * handles that start with the typed text first, then the other matches (in order, in the handle or in the
 * lower-cased title), at most 100 places after the tools, incomplete when a match was left out. And the table
 * follows the namespace: a title, an enabled flag, a file or a tool changed between two completions.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as fc from "fast-check";
import type { CompletionList } from "vscode-languageserver-types";
import { Namespace } from "../../server/src/core/index.js";
import { complete } from "../../server/src/service/completion.js";
import { lettersOf } from "../../server/src/core/mentionCandidates.js";
import { skillText, skillUri, uri } from "./helpers.js";

const MAX_ITEMS = 100;

function isSubsequence(query: string, target: string): boolean {
  let index = 0;
  for (let i = 0; i < target.length && index < query.length; i++) if (target[i] === query[index]) index++;
  return index === query.length;
}

/** The completion the plain scan gives: labels and descriptions in order, and whether it is incomplete. */
function plainScan(namespace: Namespace, self: string, typed: string): { items: string[]; incomplete: boolean } {
  const matches = (slug: string, title: string) => typed === "" || isSubsequence(typed, slug) || isSubsequence(typed, title.toLowerCase());
  const tools = namespace.tools().filter((tool) => matches(tool.slug, tool.title));
  const room = Math.max(0, MAX_ITEMS - tools.length);
  const starting: string[] = [];
  const others: string[] = [];
  const seen = new Set<string>();
  let incomplete = false;
  for (const skill of namespace.skills()) {
    if (!skill.validHandle || !skill.enabled || skill.slug === self) continue;
    if (!matches(skill.slug, skill.title) || seen.has(skill.slug) || namespace.resolve(skill.slug)?.kind !== "skill") continue;
    seen.add(skill.slug);
    const list = skill.slug.startsWith(typed) ? starting : others;
    if (list.length >= room) incomplete = true;
    else list.push(`@${skill.slug} ${skill.title}`);
  }
  const items = [...starting, ...others];
  if (items.length > room) incomplete = true;
  return { items: [...items.slice(0, room), ...tools.map((tool) => `@${tool.slug} ${tool.name}`)], incomplete };
}

function offered(list: CompletionList | null): { items: string[]; incomplete: boolean } {
  return { items: (list?.items ?? []).map((item) => `${item.label} ${item.labelDetails?.description ?? ""}`), incomplete: list?.isIncomplete ?? false };
}

/** Completion at the end of `self`'s body after `@typed`. */
function completeAfter(namespace: Namespace, selfUri: string, typed: string): CompletionList | null {
  const file = namespace.skill(selfUri);
  assert.ok(file, `no skill at ${selfUri}`);
  return complete(namespace, { kind: "skill", file }, file.lines.positionAt(file.text.length), { snippets: true, defaultEditRange: true });
}

const LETTERS = ["a", "b", "q", "u", "1", "-", "e"];
/** Handles never hold `e` or `-`: typed, those match titles alone, so no handle starts with the text. */
const HANDLE_LETTERS = ["a", "b", "q", "u", "1"];
// Titles with capitals, letters that lower-case to ASCII ones only as a whole string (İ, K the Kelvin sign),
// and letters that never do.
const TITLE_WORDS = ["Quick", "BUSY", "über", "İndex", "\u212Aey", "naïve", "ﬁle", "Sea", "a1", "-", "Zed"];

const skillArb = fc.record({
  handle: fc.array(fc.constantFrom(...HANDLE_LETTERS), { minLength: 1, maxLength: 4 }).map((letters) => letters.join("")),
  folder: fc.constantFrom("", "x", "y"),
  title: fc.option(fc.array(fc.constantFrom(...TITLE_WORDS), { minLength: 1, maxLength: 3 }).map((words) => words.join(" ")), { nil: undefined, freq: 4 }),
  enabled: fc.integer({ min: 0, max: 4 }).map((draw) => draw > 0),
});

test("completion after a typed handle offers what the plain scan of every skill offers", () => {
  fc.assert(
    fc.property(
      fc.array(skillArb, { minLength: 1, maxLength: 400, size: "max" }),
      // Half the time a text no handle starts with: the other matches then fill the list alone.
      fc.oneof(fc.constantFrom("e", "-", "e-", "ea"), fc.array(fc.constantFrom(...LETTERS), { maxLength: 3 }).map((letters) => letters.join(""))),
      fc.boolean(),
      (skills, typed, withTool) => {
        const namespace = new Namespace();
        if (withTool) namespace.set(uri("skills.json"), JSON.stringify({ tools: [{ slug: skills[0]?.handle ?? "a", name: "shadowing_tool", title: "Shadow", blurb: "A tool with a skill's handle." }] }));
        for (const skill of skills) {
          const fields: Record<string, string | boolean> = { summary: "A test skill.", enabled: skill.enabled };
          if (skill.title !== undefined) fields.title = JSON.stringify(skill.title);
          namespace.set(skillUri(skill.handle, skill.folder), skillText("Body.\n", fields));
        }
        const selfUri = skillUri("self-writer", "z");
        namespace.set(selfUri, skillText(`Ask @${typed}`));
        assert.deepEqual(offered(completeAfter(namespace, selfUri, typed)), plainScan(namespace, "self-writer", typed));
      },
    ),
    // A failure is reported as found: shrinking hundreds of skills takes minutes.
    { numRuns: 150, endOnFailure: true },
  );
});

test("the completion follows a title, an enabled flag, a removed file and a tool changed between two requests", () => {
  const namespace = new Namespace();
  for (let i = 0; i < 150; i++) namespace.set(skillUri(`bulk-${i}`), skillText("Body.\n", { summary: "Bulk." }));
  namespace.set(skillUri("quarry"), skillText("Body.\n", { summary: "Q.", title: "Stone Pit" }));
  const selfUri = skillUri("writer");
  namespace.set(selfUri, skillText("Ask @pit"));
  const labels = (typed: string) => offered(completeAfter(namespace, selfUri, typed)).items.map((item) => item.split(" ")[0]);
  assert.deepEqual(labels("pit"), ["@quarry"], "matched by its title");
  namespace.set(skillUri("quarry"), skillText("Body.\n", { summary: "Q.", title: "Gravel Works" }));
  assert.deepEqual(labels("pit"), [], "the new title no longer holds p, i, t");
  namespace.set(selfUri, skillText("Ask @gw"));
  assert.deepEqual(labels("gw"), ["@quarry"]);
  namespace.set(skillUri("quarry"), skillText("Body.\n", { summary: "Q.", title: "Gravel Works", enabled: false }));
  assert.deepEqual(labels("gw"), [], "disabled");
  namespace.set(skillUri("quarry"), skillText("Body.\n", { summary: "Q.", title: "Gravel Works" }));
  assert.deepEqual(labels("gw"), ["@quarry"]);
  namespace.set(uri("skills.json"), JSON.stringify({ tools: [{ slug: "quarry", name: "dig", title: "Gravel Works", blurb: "Digs." }] }));
  assert.deepEqual(labels("gw"), ["@quarry"], "only the tool now: the skill's handle resolves to it");
  assert.equal(offered(completeAfter(namespace, selfUri, "gw")).items[0], "@quarry dig");
  namespace.remove(uri("skills.json"));
  namespace.remove(skillUri("quarry"));
  assert.deepEqual(labels("gw"), []);
  // A body edit keeps the table; a new file is in it.
  namespace.set(skillUri("glow"), skillText("Body.\n", { summary: "G." }));
  assert.deepEqual(labels("gw"), ["@glow"]);
  // Most files removed, some added back (at the end of the namespace's order), one changed in place: the slots
  // are laid out again and keep that order.
  for (let i = 0; i < 120; i++) namespace.remove(skillUri(`bulk-${i}`));
  for (let i = 0; i < 10; i++) namespace.set(skillUri(`bulk-${i}`), skillText("Body.\n", { summary: "Back." }));
  namespace.set(skillUri("bulk-130"), skillText("Body.\n", { summary: "Bulk.", title: "Renamed Title" }));
  for (const typed of ["b", "rt"]) {
    namespace.set(selfUri, skillText(`Ask @${typed}`));
    assert.deepEqual(offered(completeAfter(namespace, selfUri, typed)), plainScan(namespace, "writer", typed));
  }
});

test("laid out a few skills at a time, with files added, changed and removed between the steps, the table offers what the plain scan offers", () => {
  const change = fc.record({
    skill: skillArb,
    remove: fc.boolean(),
    // Steps of the layout before the change, of these many skills each.
    steps: fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 3 }),
  });
  fc.assert(
    fc.property(fc.array(skillArb, { minLength: 1, maxLength: 240 }), fc.array(change, { maxLength: 30 }), fc.constantFrom("", "a", "b", "q", "ab", "e"), (skills, changes, typed) => {
      const namespace = new Namespace();
      const write = (skill: (typeof skills)[number]) => {
        const fields: Record<string, string | boolean> = { summary: "A test skill.", enabled: skill.enabled };
        if (skill.title !== undefined) fields.title = JSON.stringify(skill.title);
        namespace.set(skillUri(skill.handle, skill.folder), skillText("Body.\n", fields));
      };
      skills.forEach(write);
      for (const { skill, remove, steps } of changes) {
        for (const count of steps) namespace.layOutMentionCandidates(count);
        if (remove) namespace.remove(skillUri(skill.handle, skill.folder));
        else write(skill);
      }
      const selfUri = skillUri("self-writer", "z");
      namespace.set(selfUri, skillText(`Ask @${typed}`));
      assert.deepEqual(offered(completeAfter(namespace, selfUri, typed)), plainScan(namespace, "self-writer", typed));
    }),
    { numRuns: 200, endOnFailure: true },
  );
});

test("right after an index, a completion the skills laid out so far fill is answered without laying out the rest", () => {
  const namespace = new Namespace();
  for (let i = 0; i < 300; i++) namespace.set(skillUri(`skill-${String(i).padStart(3, "0")}`), skillText("Body.\n", { summary: "A skill." }));
  const selfUri = skillUri("writer", "z");
  namespace.set(selfUri, skillText("Ask @"));
  namespace.layOutMentionCandidates(150);
  assert.equal(namespace.mentionCandidatesSoFar().complete, false);
  // After `@` the first 100 offered come from the first 150 slots: the rest is not needed.
  assert.deepEqual(offered(completeAfter(namespace, selfUri, "")), plainScan(namespace, "writer", ""));
  assert.equal(namespace.mentionCandidatesSoFar().complete, false, "the layout was finished for a list the first slots filled");
  // A query they cannot settle lays out the rest, and answers as the plain scan.
  namespace.set(selfUri, skillText("Ask @s299"));
  assert.deepEqual(offered(completeAfter(namespace, selfUri, "s299")), plainScan(namespace, "writer", "s299"));
  assert.equal(namespace.mentionCandidatesSoFar().complete, true);
});

test("the first completion, before any of the table is laid out, lays out only the part its list needs", () => {
  const namespace = new Namespace();
  for (let i = 0; i < 5000; i++) namespace.set(skillUri(`skill-${String(i).padStart(4, "0")}`), skillText("Body.\n", { summary: "A skill." }));
  const selfUri = skillUri("writer", "z");
  namespace.set(selfUri, skillText("Ask @"));
  assert.deepEqual(offered(completeAfter(namespace, selfUri, "")), plainScan(namespace, "writer", ""));
  assert.equal(namespace.mentionCandidatesSoFar().complete, false, "the whole table was laid out for the first 100 skills");
  // The last skill's handle: the list settles only at the end, a part at a time.
  namespace.set(selfUri, skillText("Ask @skill-4999"));
  assert.deepEqual(offered(completeAfter(namespace, selfUri, "skill-4999")), plainScan(namespace, "writer", "skill-4999"));
  assert.equal(namespace.mentionCandidatesSoFar().complete, true);
});

test("a text's letters cover every character a subsequence match can use in it", () => {
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom(..."aBq-7İ\u212Aïﬁ Z.".split("")), maxLength: 12 }), fc.array(fc.constantFrom(...LETTERS, "k", "i", "z", "7"), { maxLength: 4 }), (text, query) => {
      const typed = query.join("");
      if (isSubsequence(typed, text.toLowerCase())) assert.equal(lettersOf(text) & lettersOf(typed), lettersOf(typed));
    }),
    { numRuns: 2000 },
  );
});
