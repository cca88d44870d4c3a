import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { LineMap, parseSimpleFrontmatter, parseYamlFrontmatter, type CoreDiagnostic } from "../../server/src/core/index.js";

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
