import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { LineMap, parseSimpleFrontmatter, parseYamlFrontmatter, readSimpleEntries, readYamlFrontmatter, type CoreDiagnostic } from "../../server/src/core/index.js";

const keys = ["title", "summary", "enabled", "advertised", "examples", "titel"];
const valueChars = fc.constantFrom(..."abcXYZ 019-_.,:#'\"@!&*?|>%`[]{}~\t".split(""));
const values = fc.oneof(
  fc.constantFrom("true", "false", "True", "null", "~", "12", "1.5", "0x1F", ".inf", "yes", "", " "),
  fc.array(valueChars, { minLength: 0, maxLength: 12 }).map((chars) => chars.join("")),
);
const line = fc.oneof(
  fc.tuple(fc.constantFrom(...keys), values, fc.constantFrom("", " ", "  ")).map(([key, value, pad]) => `${key}:${pad}${value}`),
  fc.constantFrom("", "  - item", "# comment", " title: indented"),
);

describe("the frontmatter fast path", () => {
  it("answers exactly what the YAML library answers, whenever it answers", () => {
    let fastAnswers = 0;
    fc.assert(
      fc.property(fc.array(line, { maxLength: 5 }), fc.boolean(), (lines, crlf) => {
        const source = lines.join(crlf ? "\r\n" : "\n") + (lines.length > 0 ? (crlf ? "\r\n" : "\n") : "");
        const fast = parseSimpleFrontmatter(source, 4);
        if (!fast) return;
        fastAnswers++;
        const problems: CoreDiagnostic[] = [];
        const slow = parseYamlFrontmatter(source, 4, new LineMap("----" + source), problems);
        assert.deepEqual(problems, [], `the fast path took frontmatter that YAML reports: ${JSON.stringify(source)}`);
        assert.deepEqual({ ...fast }, { ...slow }, JSON.stringify(source));
      }),
      { numRuns: 3000 },
    );
    assert.ok(fastAnswers > 300, `the fast path answered only ${fastAnswers} times`);
  });

  it("takes the usual frontmatter and leaves the rest to YAML", () => {
    assert.deepEqual(parseSimpleFrontmatter("title: Meeting Prep\nsummary: Get ready — who, what.\nenabled: true\n", 0), {
      examples: [],
      nearMisses: [],
      summaryUnknown: false,
      title: "Meeting Prep",
      summary: "Get ready — who, what.",
      summarySpan: [29, 51],
      enabled: true,
    });
    for (const source of ['title: "Quoted"\n', "summary: >\n  folded\n", "examples:\n  - a\n", "enabled: yes\n", "title: 12\n", "summary: a # b\n", "title: x\ntitle: y\n", "typo: x\n"]) {
      assert.equal(parseSimpleFrontmatter(source, 0), undefined, source);
    }
  });
});

describe("the SKILL.md frontmatter fast path", () => {
  const skillKeys = ["name", "description", "license", "allowed-tools", "metadata", "True", "null", "on", "x_y-2"];
  const quotedChars = fc.constantFrom(..."ab Z09-:#'\"\\@!&*?|>%`[]{}~\t\u0007\u00e9\u2014".split(""), "\u{1F600}", "''", "\r");
  const written = fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom("true", "False", "null", "~", "12", "1.5", "0x1F", ".inf", "yes", "", " ", "'", '"', "''", '""', "'a' # c", '"a" b', "'it''s'", "'it's'") },
    { weight: 1, arbitrary: fc.array(quotedChars, { maxLength: 10 }).map((chars) => chars.join("")) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom("'", '"'), fc.array(quotedChars, { maxLength: 10 }), fc.constantFrom("'", '"', "", " ")).map(([open, chars, close]) => `${open}${chars.join("")}${close}`) },
    // Well-formed quoted strings, the shape real descriptions take.
    { weight: 3, arbitrary: fc.tuple(fc.constantFrom("'", '"'), fc.array(fc.constantFrom(..."ab Z09-:#@!&*?|>%`[]{},.\t\u00e9\u2014".split(""), "\u{1F600}", "''"), { maxLength: 12 })).map(([quote, chars]) =>
      quote === "'" ? `'${chars.join("")}'` : `"${chars.filter((char) => char !== "''").join("")}"`,
    ) },
  );
  const skillLine = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...skillKeys), written, fc.constantFrom(" ", " ", "  ", "", "\t")).map(([key, value, pad]) => `${key}:${pad}${value}`) },
    { weight: 1, arbitrary: fc.constantFrom("", "  - item", "# comment", " name: indented", "metadata:", "  author: x", "description: >", "  folded") },
  );

  it("answers exactly what the YAML library answers, whenever it answers", () => {
    let fastAnswers = 0;
    let quoted = 0;
    fc.assert(
      fc.property(fc.array(skillLine, { maxLength: 5 }), fc.boolean(), (lines, crlf) => {
        const source = lines.join(crlf ? "\r\n" : "\n") + (lines.length > 0 ? (crlf ? "\r\n" : "\n") : "");
        const map = new LineMap("---\n" + source);
        const fast = readSimpleEntries(source, 4, map);
        if (!fast) return;
        fastAnswers++;
        if (fast.some((entry) => entry.value.kind === "string" && entry.value.quoted)) quoted++;
        const slow = readYamlFrontmatter(source, 4, map);
        assert.deepEqual(slow.problems, [], `the fast path took frontmatter that YAML reports: ${JSON.stringify(source)}`);
        assert.deepEqual(fast, slow.entries, JSON.stringify(source));
      }),
      { numRuns: 4000 },
    );
    assert.ok(fastAnswers > 400 && quoted > 100, `the fast path answered ${fastAnswers} times, ${quoted} with a quoted value`);
  });

  it("takes plain and quoted lines, and leaves the rest to YAML", () => {
    const source = "name: pdf-tools\ndescription: 'Fill a form: it''s quick'\nlicense: \"MIT — see LICENSE\"\n";
    assert.deepEqual(
      readSimpleEntries(source, 0, new LineMap(source))?.map((entry) => [entry.key, entry.value.kind === "string" ? [entry.value.value, entry.value.quoted] : entry.value.kind]),
      [
        ["name", ["pdf-tools", false]],
        ["description", ["Fill a form: it's quick", true]],
        ["license", ["MIT — see LICENSE", true]],
      ],
    );
    for (const other of ['description: "a \\"b\\""\n', "description: 'a' # note\n", "description: 'it's'\n", "description: >\n  folded\n", "metadata:\n  a: b\n", "True: x\n", "name: a\nname: b\n", 'description: "open\n']) {
      assert.equal(readSimpleEntries(other, 0, new LineMap(other)), undefined, other);
    }
  });
});
