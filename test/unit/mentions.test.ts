import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { applyEdits, mentionEdits, parseMentions, scanMentions } from "../../server/src/core/index.js";
import { spans } from "./helpers.js";

/** Fixture: the mentions are marked ⟦like this⟧; `malformed` lists what is reported as not-a-mention, in order. */
const table: { name: string; fixture: string; malformed?: string[] }[] = [
  { name: "a plain mention", fixture: "use ⟦@find-file⟧ now" },
  { name: "an e-mail address is no mention", fixture: "mail bob@example.com or ⟦@bob⟧ today" },
  { name: "glued to a digit or underscore", fixture: "1@a _@b ⟦@c⟧" },
  { name: "glued to accented, CJK and astral letters", fixture: "é@a 中@b 𝐀@c ⟦@d⟧" },
  { name: "escaped as \\@", fixture: "write \\@x for a literal, ⟦@y⟧ for a mention" },
  { name: "a doubled @@ is no mention", fixture: "@@x and ⟦@y⟧" },
  { name: "a lone @", fixture: "a @ b @\n@" },
  { name: "a leading hyphen", fixture: "@-x", malformed: ["@-x"] },
  { name: "a trailing hyphen", fixture: "see @x- later", malformed: ["@x-"] },
  { name: "a double hyphen", fixture: "@x--y", malformed: ["@x--y"] },
  { name: "an accented letter inside", fixture: "ask @café now", malformed: ["@café"] },
  { name: "a combining accent (NFD text) inside", fixture: "ask @cafe\u0301 now", malformed: ["@cafe\u0301"] },
  { name: "a combining accent before the @ glues it", fixture: "cafe\u0301@x ⟦@y⟧" },
  { name: "an underscore inside", fixture: "@x_y", malformed: ["@x_y"] },
  { name: "a CJK letter after the slug", fixture: "@plan中 x", malformed: ["@plan中"] },
  { name: "an astral letter after the slug", fixture: "@plan𝐀 x", malformed: ["@plan𝐀"] },
  { name: "a sentence-ending period", fixture: "First use ⟦@x⟧. Then ⟦@y⟧, then ⟦@z⟧!" },
  { name: "an apostrophe ends the slug", fixture: "⟦@alice⟧'s notes" },
  { name: "upper case is a mention (diagnosed elsewhere)", fixture: "⟦@Plan⟧ and ⟦@PLAN-Trip⟧" },
  { name: "@plan is not inside @plan-trip", fixture: "⟦@plan⟧ vs ⟦@plan-trip⟧ vs ⟦@plan2⟧" },
  { name: "first and last byte", fixture: "⟦@a⟧ middle ⟦@b⟧" },
  { name: "only a mention", fixture: "⟦@only⟧" },
  { name: "CRLF line ends", fixture: "first ⟦@a⟧\r\nsecond ⟦@b⟧\r\n⟦@c⟧\r\n" },
  { name: "punctuation around", fixture: "(⟦@a⟧) ⟦@b⟧,⟦@c⟧;⟦@d⟧ `⟦@e⟧` [x](⟦@f⟧) \"⟦@g⟧\"" },
  { name: "a slash makes a scope or a path, not a mention", fixture: "@c/@d @c/ x/@e ⟦@f⟧" },
  { name: "64 characters is the longest slug", fixture: `⟦@${"a".repeat(64)}⟧ @${"b".repeat(65)}`, malformed: [`@${"b".repeat(65)}`] },
];

describe("scanMentions", () => {
  for (const { name, fixture, malformed = [] } of table) {
    test(name, () => {
      const { text, offsets } = spans(fixture);
      const scan = scanMentions(text);
      assert.deepEqual(
        scan.mentions.map((m) => [m.start, m.end]),
        offsets,
        "mention spans",
      );
      for (const mention of scan.mentions) {
        assert.equal(text.slice(mention.start, mention.end), `@${mention.written}`);
        assert.equal(mention.slug, mention.written.toLowerCase());
      }
      assert.deepEqual(scan.malformed.map((m) => m.text), malformed, "malformed");
      for (const bad of scan.malformed) assert.equal(text.slice(bad.start, bad.end), bad.text);
    });
  }

  test("a region: mentions outside [from, to) are not found, and the region's end ends a slug", () => {
    const text = "@a @b @cde @f";
    assert.deepEqual(scanMentions(text, 3, 8).mentions.map((m) => m.written), ["b", "c"]);
    assert.deepEqual(scanMentions(text, 1).mentions.map((m) => m.written), ["b", "cde", "f"]);
  });

  test("an @ right at the region's start is glued by the character before it", () => {
    const text = "x@a";
    assert.deepEqual(scanMentions(text, 1).mentions, []);
  });
});

describe("parseMentions", () => {
  test("first seen first, deduplicated, lower-cased", () => {
    assert.deepEqual(parseMentions("@b then @a, @B again, @c and @a; @plan-trip @plan"), ["b", "a", "c", "plan-trip", "plan"]);
  });
  test("no mentions", () => {
    assert.deepEqual(parseMentions(""), []);
    assert.deepEqual(parseMentions("bob@example.com \\@x @@y @-z"), []);
  });
  test("the seed's Check Schedule body needs @current-date then @calendar", () => {
    assert.deepEqual(
      parseMentions("so FIRST use @current-date to get today's date and work out the date range the user means. Then use @calendar to fetch the events"),
      ["current-date", "calendar"],
    );
  });
});

describe("mentionEdits and applyEdits", () => {
  test("rewrites whole mentions of the slug only, in any case", () => {
    const { text, offsets } = spans("⟦@plan⟧ ⟦@Plan⟧ @plan-trip x@plan \\@plan @plan2 ⟦@plan⟧.");
    const edits = mentionEdits(text, "PLAN", "trip");
    assert.deepEqual(edits.map((e) => [e.start, e.end]), offsets);
    assert.ok(edits.every((e) => e.newText === "@trip"));
    assert.equal(applyEdits(text, edits), "@trip @trip @plan-trip x@plan \\@plan @plan2 @trip.");
  });

  test("a region limits the edits", () => {
    const text = "@a @a @a";
    assert.equal(applyEdits(text, mentionEdits(text, "a", "bb", 2, 5)), "@a @bb @a");
  });

  test("applyEdits sorts its edits and handles insertions, deletions and the ends of the text", () => {
    const text = "0123456789";
    const edits = [
      { start: 8, end: 10, newText: "E" },
      { start: 0, end: 0, newText: "S" },
      { start: 3, end: 5, newText: "" },
      { start: 5, end: 5, newText: "+" },
    ];
    assert.equal(applyEdits(text, edits), "S012+567E");
    assert.equal(applyEdits(text, []), text);
  });
});
