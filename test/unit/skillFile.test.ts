import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  DiagnosticCodes,
  handleFromUri,
  isSkillUri,
  MAX_SKILL_CHARS,
  nearest,
  parseSkillFile,
  siblingSkillUri,
  type CoreDiagnostic,
} from "../../server/src/core/index.js";
import { showRange, skillUri, spans } from "./helpers.js";

const A = skillUri("a");

/** Problems ordered by where they stand, so a fixture's ⟦spans⟧ (in text order) line up with them. */
function byPlace(problems: readonly CoreDiagnostic[]): CoreDiagnostic[] {
  const key = (d: CoreDiagnostic) => [d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character];
  return [...problems].sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    for (let i = 0; i < 4; i++) if ((ka[i] ?? 0) !== (kb[i] ?? 0)) return (ka[i] ?? 0) - (kb[i] ?? 0);
    return a.code.localeCompare(b.code);
  });
}

/**
 * Each fixture marks every expected problem's range ⟦like this⟧ (⟦⟧ for an empty range); `problems` lists their
 * codes in the same (text) order, and `message` optionally matches each one's message.
 */
const table: { name: string; uri?: string; fixture: string; problems: string[]; messages?: (RegExp | undefined)[] }[] = [
  { name: "a clean skill", fixture: "---\ntitle: T\nsummary: S\n---\nUse @a.\n", problems: [] },
  {
    name: "bad YAML: an unclosed bracket is reported on its own line, not on the fence",
    fixture: "---\nsummary: fine\n⟦title: [unclosed⟧\n---\nbody\n",
    problems: ["frontmatter-syntax"],
  },
  {
    name: "bad YAML: an unclosed quote",
    fixture: "---\n⟦summary: 'unterminated⟧\n\n---\nbody\n",
    problems: ["frontmatter-syntax"],
  },
  {
    name: "bad YAML: a duplicate key",
    fixture: "---\nsummary: s\ntitle: a\n⟦t⟧itle: b\n---\n",
    problems: ["frontmatter-syntax"],
    messages: [/is given twice/],
  },
  {
    name: "an unclosed fence: its mentions are body text, and no missing-summary on top",
    fixture: "⟦---⟧\ntitle: x\nUse @a.\n",
    problems: ["frontmatter-unclosed"],
    messages: [/not closed/],
  },
  { name: "an unclosed fence after a BOM", fixture: "\uFEFF⟦---⟧\nsummary: x\n", problems: ["frontmatter-unclosed"] },
  { name: "title of the wrong type", fixture: "---\ntitle: ⟦42⟧\nsummary: s\n---\n", problems: ["frontmatter-type"], messages: [/"title" must be a string/] },
  {
    name: "summary of the wrong type: the type error alone",
    fixture: "---\nsummary: ⟦[a, b]⟧\n---\n",
    problems: ["frontmatter-type"],
    messages: [/"summary" must be a string/],
  },
  { name: "enabled of the wrong type", fixture: "---\nsummary: s\nenabled: ⟦\"yes\"⟧\n---\n", problems: ["frontmatter-type"], messages: [/"enabled" must be a boolean \(true or false\)/] },
  { name: "YAML 1.2: yes is a string", fixture: "---\nsummary: s\nenabled: ⟦yes⟧\n---\n", problems: ["frontmatter-type"] },
  { name: "advertised of the wrong type", fixture: "---\nsummary: s\nadvertised: ⟦1⟧\n---\n", problems: ["frontmatter-type"], messages: [/"advertised" must be a boolean/] },
  { name: "examples of the wrong type", fixture: "---\nsummary: s\nexamples: ⟦\"one\"⟧\n---\n", problems: ["frontmatter-type"], messages: [/"examples" must be a string list/] },
  {
    name: "an example entry of the wrong type",
    fixture: "---\nsummary: s\nexamples: [⟦1⟧, \"ok\", ⟦{b: 1}⟧]\n---\n",
    problems: ["frontmatter-type", "frontmatter-type"],
    messages: [/Each entry of "examples" must be a string/, /Each entry of "examples"/],
  },
  { name: "near-misses of the wrong type", fixture: "---\nsummary: s\nnear-misses: ⟦{a: 1}⟧\n---\n", problems: ["frontmatter-type"], messages: [/"near-misses" must be a string list/] },
  { name: "an empty value points at its key", fixture: "---\nsummary: s\n⟦title⟧:\n---\n", problems: ["frontmatter-type"] },
  {
    name: "an unknown key with a did-you-mean",
    fixture: "⟦---⟧\n⟦sumary⟧: x\n---\n",
    problems: ["missing-summary", "frontmatter-unknown-key"],
    messages: [/has no summary/, /Unknown frontmatter key "sumary": did you mean "summary"\?/],
  },
  { name: "another did-you-mean", fixture: "---\nsummary: s\n⟦advertized⟧: false\n---\n", problems: ["frontmatter-unknown-key"], messages: [/did you mean "advertised"/] },
  { name: "an unknown key with nothing near", fixture: "---\nsummary: s\n⟦colour⟧: red\n---\n", problems: ["frontmatter-unknown-key"], messages: [/Known keys: title, summary, enabled, advertised, examples, near-misses\./] },
  { name: "frontmatter that is a list, not a map", fixture: "---\n⟦- a\n- b⟧\n---\n", problems: ["frontmatter-type"] },
  { name: "an empty frontmatter", fixture: "⟦---⟧\n---\nbody\n", problems: ["missing-summary"] },
  { name: "a frontmatter closed with ...", fixture: "---\nsummary: s\n...\nbody\n", problems: [] },
  {
    name: "a summary of more than three lines",
    fixture: "---\nsummary: ⟦|\n  one\n  two\n  three\n  four⟧\n---\n",
    problems: ["long-summary"],
    messages: [/this one has 4/],
  },
  { name: "an empty file", fixture: "⟦⟧", problems: ["missing-summary"] },
  { name: "no frontmatter", fixture: "⟦⟧Use @a, then ⟦@b-⟧.\n", problems: ["missing-summary", "malformed-mention"] },
  { name: "a disabled skill needs no summary", fixture: "---\nenabled: false\n---\n", problems: [] },
  { name: "an unadvertised skill needs no summary", fixture: "---\nadvertised: false\n---\n", problems: [] },
  {
    name: "malformed mentions in the summary and the body",
    fixture: "---\nsummary: Use ⟦@-x⟧ daily\n---\nThen ⟦@café⟧ and \\@ok.\n",
    problems: ["malformed-mention", "malformed-mention"],
    messages: [/@-x is not a mention/, /@café is not a mention.*Write \\@ for a literal @/],
  },
  {
    name: "BOM: ranges count it as the first character",
    fixture: "\uFEFF---\nsummary: s\nenabled: ⟦maybe⟧\n---\nUse ⟦@x-⟧\n",
    problems: ["frontmatter-type", "malformed-mention"],
  },
  {
    name: "CRLF line ends",
    fixture: "---\r\nsummary: s\r\nenabled: ⟦maybe⟧\r\n---\r\nline one\r\nUse ⟦@x-⟧\r\n",
    problems: ["frontmatter-type", "malformed-mention"],
  },
  { name: "a file named .skill.md has no handle", uri: "file:///ws/.skill.md", fixture: "⟦⟧---\nsummary: s\n---\n", problems: ["invalid-handle"], messages: [/no handle: name the file <handle>\.skill\.md/] },
  { name: "an upper-case file name", uri: skillUri("Plan-Trip"), fixture: "⟦⟧---\nsummary: s\n---\n", problems: ["invalid-handle"], messages: [/"Plan-Trip" is not a valid handle/] },
  { name: "a file name with a space", uri: "file:///ws/my%20skill.skill.md", fixture: "⟦⟧---\nsummary: s\n---\n", problems: ["invalid-handle"], messages: [/"my skill" is not a valid handle/] },
  { name: "binary content", fixture: "⟦⟧---\nsummary: @a\n---\n\u0000 @b-\n", problems: ["binary-file"], messages: [/NUL/] },
];

describe("parseSkillFile problems, with exact ranges", () => {
  for (const row of table) {
    test(row.name, () => {
      const { text, ranges } = spans(row.fixture);
      const file = parseSkillFile(row.uri ?? A, text);
      const problems = byPlace(file.problems);
      assert.deepEqual(
        problems.map((p) => `${p.code} ${showRange(p.range)}`),
        row.problems.map((code, i) => `${code} ${ranges[i] ? showRange(ranges[i]) : "(no range marked)"}`),
      );
      (row.messages ?? []).forEach((message, i) => {
        if (message) assert.match(problems[i]?.message ?? "", message);
      });
    });
  }
});

describe("parseSkillFile fields", () => {
  test("every key, with defaults for the absent ones", () => {
    const full = parseSkillFile(A, "---\ntitle: My Title\nsummary: '  One line. '\nenabled: false\nadvertised: false\nexamples:\n  - \"e1\"\nnear-misses: [n1, \"n2\"]\n---\nBody\n");
    assert.equal(full.title, "My Title");
    assert.equal(full.summary, "One line.");
    assert.equal(full.enabled, false);
    assert.equal(full.advertised, false);
    assert.deepEqual(full.examples.map((e) => e.text), ["e1"]);
    assert.deepEqual(full.nearMisses.map((e) => e.text), ["n1", "n2"]);
    assert.equal(full.body, "Body\n");
    const bare = parseSkillFile(skillUri("check-schedule"), "Body");
    assert.equal(bare.title, "Check Schedule");
    assert.equal(bare.summary, undefined);
    assert.equal(bare.enabled, true);
    assert.equal(bare.advertised, true);
    assert.equal(bare.frontmatterRange, undefined);
    assert.equal(bare.bodyStart, 0);
  });

  test("handle, slug and validity come from the file name", () => {
    const upper = parseSkillFile("file:///ws/dir/Plan-Trip.skill.md", "");
    assert.deepEqual([upper.handle, upper.slug, upper.validHandle], ["Plan-Trip", "plan-trip", false]);
    const good = parseSkillFile("file:///ws/dir/plan-trip.skill.md?x=1#frag", "");
    assert.deepEqual([good.handle, good.slug, good.validHandle], ["plan-trip", "plan-trip", true]);
  });

  test("summary mentions are references; the requirements are the body's only, first seen first, deduplicated", () => {
    const { text, ranges } = spans("---\ntitle: About @t\nsummary: Uses ⟦@a⟧ and ⟦@B⟧\nexamples: [\"ask @e\"]\n---\nFirst ⟦@c⟧, then ⟦@A⟧, again ⟦@c⟧.\n");
    const file = parseSkillFile(A, text);
    assert.deepEqual(
      file.mentions.map((m) => [m.place, m.written, showRange(m.range)]),
      [
        ["summary", "a"],
        ["summary", "B"],
        ["body", "c"],
        ["body", "A"],
        ["body", "c"],
      ].map(([place, written], i) => [place, written, ranges[i] ? showRange(ranges[i]) : "?"]),
    );
    assert.deepEqual(file.requirements, ["c", "a"]);
  });

  test("a block-scalar summary keeps its mentions' exact places", () => {
    const { text, ranges } = spans("---\nsummary: >\n  Use ⟦@a⟧\n  daily, with ⟦@b⟧\n---\n");
    const file = parseSkillFile(A, text);
    assert.deepEqual(file.mentions.map((m) => showRange(m.range)), ranges.map(showRange));
    assert.ok(file.mentions.every((m) => m.place === "summary"));
    assert.deepEqual(file.requirements, []);
    assert.deepEqual(file.problems, []);
  });

  test("BOM and CRLF: the frontmatter range and the body start", () => {
    const text = "\uFEFF---\r\nsummary: s\r\n---\r\nUse @a\r\n";
    const file = parseSkillFile(A, text);
    assert.deepEqual(file.frontmatterRange, { start: { line: 0, character: 1 }, end: { line: 3, character: 0 } });
    assert.equal(file.body, "Use @a\r\n");
    assert.equal(text.slice(file.bodyStart, file.bodyStart + 3), "Use");
    assert.deepEqual(file.mentions.map((m) => m.range), [{ start: { line: 3, character: 4 }, end: { line: 3, character: 6 } }]);
    assert.equal(file.summary, "s");
  });

  test("binary content: no mentions, no requirements, not advertised", () => {
    const file = parseSkillFile(A, "---\nsummary: s @a\n---\n\u0000 @b\n");
    assert.deepEqual(file.mentions, []);
    assert.deepEqual(file.requirements, []);
    assert.equal(file.advertised, false);
    assert.deepEqual(file.problems.map((p) => p.code), [DiagnosticCodes.binaryFile]);
  });

  test("more than 1,000,000 characters is not parsed; exactly 1,000,000 is", () => {
    const body = `@a ${"x".repeat(MAX_SKILL_CHARS - 6)} @b`;
    assert.equal(body.length, MAX_SKILL_CHARS);
    const limit = parseSkillFile(A, body);
    assert.deepEqual(limit.requirements, ["a", "b"]);
    assert.deepEqual(limit.mentions.map((m) => m.end), [2, MAX_SKILL_CHARS]);
    const over = parseSkillFile(A, `${body}x`);
    assert.deepEqual(over.mentions, []);
    assert.deepEqual(over.problems.map((p) => [p.code, showRange(p.range)]), [[DiagnosticCodes.fileTooLarge, "0:0-0:0"]]);
    assert.match(over.problems[0]?.message ?? "", /1,000,001 characters; a skill is read up to 1,000,000/);
  });

  test("a too-large file with a bad name reports both", () => {
    const over = parseSkillFile(skillUri("Bad_Name"), "x".repeat(MAX_SKILL_CHARS + 1));
    assert.deepEqual(over.problems.map((p) => p.code), [DiagnosticCodes.fileTooLarge, DiagnosticCodes.invalidHandle]);
  });
});

describe("skill file URIs", () => {
  const handles: [string, string][] = [
    ["file:///ws/a/plan-trip.skill.md", "plan-trip"],
    ["file:///ws/Plan.SKILL.MD", "Plan"],
    ["file:///ws/my%20skill.skill.md", "my skill"],
    ["file:///ws/bad%zz.skill.md", "bad%zz"],
    ["file:///ws/.skill.md", ""],
    ["file:///ws/x.skill.md#L3", "x"],
  ];
  for (const [fileUri, handle] of handles) {
    test(`${fileUri} → ${JSON.stringify(handle)}`, () => {
      assert.equal(handleFromUri(fileUri), handle);
      assert.ok(isSkillUri(fileUri));
    });
  }
  test("not a skill", () => {
    assert.equal(isSkillUri("file:///ws/readme.md"), false);
    assert.equal(isSkillUri("file:///ws/skills.json"), false);
    assert.equal(isSkillUri("file:///ws/readme.md?x=.skill.md"), false);
    assert.equal(isSkillUri("file:///ws/readme.md#.skill.md"), false);
    assert.equal(isSkillUri("file:///ws/x.skill.md?a#b"), true);
    assert.equal(isSkillUri("file:///ws/x.skill.md#a?b"), true);
  });
  test("the path's end decides, whatever its case, before any query or fragment", () => {
    // What the path with its query and fragment cut, lower-cased whole, ends with.
    const byDefinition = (uri: string) => uri.replace(/[?#].*$/, "").toLowerCase().endsWith(".skill.md");
    const part = fc.constantFrom("file:///ws/", "x", ".skill.md", ".SKILL.MD", ".Skill.md", "?", "#", "q=1", "\u212a", "\u0130", ".md", "skill", "");
    fc.assert(fc.property(fc.array(part, { maxLength: 6 }), (parts) => assert.equal(isSkillUri(parts.join("")), byDefinition(parts.join("")), JSON.stringify(parts.join("")))), { numRuns: 3000 });
  });
  test("siblingSkillUri keeps the folder and encodes the handle", () => {
    assert.equal(siblingSkillUri("file:///ws/dir/old.skill.md", "new-name"), "file:///ws/dir/new-name.skill.md");
  });
});

describe("nearest", () => {
  test("the closest candidates by edit distance, nearest first", () => {
    assert.deepEqual(nearest("sumary", ["title", "summary", "enabled"]), ["summary"]);
    assert.deepEqual(nearest("plan-trp", ["plan-trip", "plan-tip", "plan", "meeting-prep"]), ["plan-tip", "plan-trip"]);
    assert.deepEqual(nearest("zzz", ["title", "summary"]), []);
  });
});
