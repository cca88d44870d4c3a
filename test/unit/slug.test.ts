import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as fc from "fast-check";
import { handleProblem, isValidHandle, kebabCase, makeSlug, MAX_HANDLE_LENGTH, slugKey, titleFromHandle } from "../../server/src/core/index.js";

const words = (count: number, length: number) => Array.from({ length: count }, (_, i) => String.fromCharCode(97 + i).repeat(length));

describe("isValidHandle", () => {
  const cases: [string, boolean][] = [
    ["a", true],
    ["7", true],
    ["meeting-prep", true],
    ["a1-b2-c3", true],
    ["x".repeat(MAX_HANDLE_LENGTH), true],
    ["x".repeat(MAX_HANDLE_LENGTH + 1), false],
    ["", false],
    ["-a", false],
    ["a-", false],
    ["a--b", false],
    ["A", false],
    ["Meeting-Prep", false],
    ["a_b", false],
    ["a b", false],
    ["a.b", false],
    ["café", false],
    ["@a", false],
    ["a\n", false],
  ];
  for (const [handle, valid] of cases) {
    test(`${JSON.stringify(handle)} is ${valid ? "valid" : "invalid"}`, () => {
      assert.equal(isValidHandle(handle), valid);
      assert.equal(handleProblem(handle) === undefined, valid, "handleProblem agrees with isValidHandle");
    });
  }
});

describe("handleProblem", () => {
  const cases: [string, RegExp][] = [
    ["", /^A handle cannot be empty\.$/],
    ["x".repeat(65), /at most 64 characters; "x{65}" has 65\./],
    ["Meeting-Prep", /^A handle is lower-case: use "meeting-prep"\.$/],
    ["PLAN", /use "plan"/],
    ["Meeting Prep", /^"Meeting Prep" is not a valid handle: use lower-case letters and digits joined by single hyphens/],
    ["a--b", /^"a--b" is not a valid handle/],
    ["-a", /^"-a" is not a valid handle/],
    ["café", /^"café" is not a valid handle/],
  ];
  for (const [handle, message] of cases) {
    test(`says why ${JSON.stringify(handle.length > 20 ? `${handle.slice(0, 8)}…` : handle)} is refused`, () => {
      assert.match(handleProblem(handle) ?? "(none)", message);
    });
  }
  test("says nothing about a valid handle", () => {
    assert.equal(handleProblem("meeting-prep"), undefined);
  });
});

describe("kebabCase", () => {
  const long5 = words(5, 10).join(" ");
  const cases: [string, string, string][] = [
    ["words", "Meeting Prep", "meeting-prep"],
    ["runs of punctuation and spaces", "  Check   the -- Schedule!! ", "check-the-schedule"],
    ["digits stay", "Q3 Report, 2024", "q3-report-2024"],
    ["accents are dropped", "Réunion d'équipe", "reunion-d-equipe"],
    ["more accents", "Crème Brûlée à la Carte", "creme-brulee-a-la-carte"],
    ["compatibility forms decompose", "ﬁle Ⅳ ①", "file-iv-1"],
    ["emoji around words", "🎉 Party Plan 🎉", "party-plan"],
    ["emoji only", "🎉🚀", "skill"],
    ["CJK only", "会议准备", "skill"],
    ["CJK mixed with Latin", "会议 Prep 2", "prep-2"],
    ["empty title", "", "skill"],
    ["punctuation only", "--- !!! ---", "skill"],
    ["a cut between words keeps the last whole word", `${"a".repeat(30)} ${"b".repeat(33)} ccc`, `${"a".repeat(30)}-${"b".repeat(33)}`],
    ["a cut inside a word drops that word", `${long5} ${"f".repeat(20)}`, words(5, 10).join("-")],
    ["one long word is cut at 64", "x".repeat(100), "x".repeat(64)],
    ["a long word after a short one is dropped at the cut", `go ${"y".repeat(80)}`, "go"],
  ];
  for (const [name, title, expected] of cases) {
    test(name, () => {
      const slug = kebabCase(title);
      assert.equal(slug, expected);
      assert.ok(isValidHandle(slug), `${slug} is a valid handle`);
    });
  }
});

describe("makeSlug", () => {
  const takenBy = (...slugs: string[]) => (slug: string) => slugs.includes(slug);
  const cases: [string, string, string[], string | undefined, string][] = [
    ["a free slug is the kebab-cased title", "Meeting Prep", [], undefined, "meeting-prep"],
    ["a taken slug gets -2", "Meeting Prep", ["meeting-prep"], undefined, "meeting-prep-2"],
    ["then -3", "Meeting Prep", ["meeting-prep", "meeting-prep-2"], undefined, "meeting-prep-3"],
    ["a gap is reused", "Meeting Prep", ["meeting-prep", "meeting-prep-3"], undefined, "meeting-prep-2"],
    ["a tool's slug is taken like a skill's", "Find File", ["find-file"], undefined, "find-file-2"],
    ["an unchanged handle keeps its slug", "Meeting Prep", ["meeting-prep"], "meeting-prep", "meeting-prep"],
    ["a minted -2 handle keeps its slug", "Meeting Prep", ["meeting-prep", "meeting-prep-2"], "meeting-prep-2", "meeting-prep-2"],
    ["another skill's handle is no excuse", "Meeting Prep", ["meeting-prep"], "plan-trip", "meeting-prep-2"],
    ["an emoji title collides on skill", "🎉", ["skill"], undefined, "skill-2"],
    ["a CJK title collides on skill twice", "会议", ["skill", "skill-2"], undefined, "skill-3"],
  ];
  for (const [name, title, taken, current, expected] of cases) {
    test(name, () => {
      assert.equal(makeSlug(title, takenBy(...taken), current), expected);
    });
  }

  test("a suffix on a 64-character slug keeps it at 64 and valid", () => {
    const title = words(6, 10).join(" "); // 65 characters kebab-cased: the cut drops the sixth word
    const minted = kebabCase(title);
    assert.equal(minted, words(5, 10).join("-"));
    assert.equal(makeSlug(title, takenBy(minted)), `${minted}-2`);
    const exact = `${"a".repeat(30)}-${"b".repeat(33)}`; // exactly 64 after the cut
    const suffixed = makeSlug(`${"a".repeat(30)} ${"b".repeat(33)} ccc`, takenBy(exact));
    assert.equal(suffixed, `${"a".repeat(30)}-${"b".repeat(31)}-2`);
    assert.ok(isValidHandle(suffixed) && suffixed.length === MAX_HANDLE_LENGTH);
    const full = makeSlug("z".repeat(64), takenBy("z".repeat(64)));
    assert.equal(full, `${"z".repeat(62)}-2`);
    const tenth = makeSlug("z".repeat(64), (slug) => slug === "z".repeat(64) || /^z+-[2-9]$/.test(slug));
    assert.equal(tenth, `${"z".repeat(61)}-10`);
  });

  test("a stem cut right after a hyphen does not leave a double hyphen", () => {
    const title = `${"a".repeat(61)} b`; // a{61}-b: 63 characters
    assert.equal(kebabCase(title), `${"a".repeat(61)}-b`);
    assert.equal(makeSlug(title, takenBy(`${"a".repeat(61)}-b`)), `${"a".repeat(61)}-2`);
  });
});

describe("slugKey and titleFromHandle", () => {
  test("slugKey lower-cases", () => {
    assert.equal(slugKey("Plan-Trip"), "plan-trip");
    assert.equal(slugKey("ÉTÉ-Ärger"), "été-ärger");
  });
  test("slugKey is the lower case of any text, answered as it is when nothing changes", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.stringMatching(/^[a-z0-9-]{0,20}$/), (text, plain) => {
        assert.equal(slugKey(text), text.toLowerCase());
        assert.equal(slugKey(plain), plain);
      }),
      { numRuns: 2000 },
    );
  });
  const titles: [string, string][] = [
    ["check-schedule", "Check Schedule"],
    ["a", "A"],
    ["q3-report-2024", "Q3 Report 2024"],
  ];
  for (const [handle, title] of titles) {
    test(`${handle} → ${title}`, () => assert.equal(titleFromHandle(handle), title));
  }
});
