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
  // Lines that continue a quoted string, list items and a map's entries, at the indentations real files use and others.
  const continued = fc.tuple(fc.constantFrom("", " ", "  ", "\t", "   "), fc.oneof(written, fc.constantFrom("more text", "ends'", "ends\"", "it''s'", "a' b", "x  ", "'", '"', "- item", "key: v"))).map(([pad, text]) => pad + text);
  const blockLine = fc.tuple(fc.constantFrom("", " ", "  ", "    ", "\t"), fc.constantFrom("- ", "-  ", "-", "author: ", "version: ", "author:", "- - "), written).map(([pad, lead, value]) => pad + lead + value);
  // Whole entries over several lines, as generated libraries write them (and with their indentation gone wrong).
  const indentOf = fc.constantFrom("", " ", "  ", "  ", "    ", "\t");
  const wordsIn = (quote: string) => fc.array(fc.constantFrom("supply", "chain", "it''s", "a: b", "# no", "é—", "  ", "\t", quote === "'" ? "x" : "y"), { minLength: 0, maxLength: 3 }).map((words) => words.join(" "));
  const wrappedEntry = fc
    .tuple(fc.constantFrom(...skillKeys), fc.constantFrom("'", '"'), fc.array(fc.tuple(indentOf, fc.boolean()), { minLength: 1, maxLength: 4 }), indentOf)
    .chain(([key, quote, middle, closeIndent]) =>
      fc.tuple(fc.constant(key), fc.constant(quote), wordsIn(quote), fc.tuple(...middle.map(([pad, empty]) => (empty ? fc.constant("") : wordsIn(quote).map((words) => pad + words)))), fc.constant(closeIndent), fc.constantFrom("", " ", " x")),
    )
    .map(([key, quote, first, middle, closeIndent, after]) => [`${key}: ${quote}${first}`, ...middle, `${closeIndent}${quote}${after}`].join("\n"));
  const blockEntry = fc
    .tuple(fc.constantFrom(...skillKeys), fc.boolean(), indentOf, fc.array(fc.tuple(fc.constantFrom("author", "version", "tags", "on", "author"), written), { minLength: 1, maxLength: 3 }))
    .map(([key, list, pad, items]) => [`${key}:`, ...items.map(([name, value]) => (list ? `${pad}- ${value}` : `${pad}${name}: ${value}`))].join("\n"));
  const plainWrappedEntry = fc
    .tuple(fc.constantFrom(...skillKeys), fc.array(fc.tuple(indentOf, fc.constantFrom("", "chain of words", "- dash", "a: b", "# hash", "ends:", "x  ", "\u00a0", "true", "'q'", "[a]")), { minLength: 1, maxLength: 3 }))
    .map(([key, rest]) => [`${key}: first words`, ...rest.map(([pad, text]) => pad + text)].join("\n"));
  const bracketItem = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom("a", "b c", "'q, r'", '"s"', "d-e") },
    { weight: 1, arbitrary: fc.constantFrom("", " ", "[x]", "{y}", "t: u", "#v", "true", "w'") },
    { weight: 1, arbitrary: written },
  );
  const bracketEntry = fc
    .tuple(fc.constantFrom(...skillKeys), fc.boolean(), fc.array(bracketItem, { maxLength: 3 }), fc.constantFrom(", ", ",", " ,  "), fc.constantFrom("", " ", ","))
    .map(([key, nested, items, comma, tail]) => `${nested ? "requires:\n  " : ""}${key}: [${items.join(comma)}${tail}]`);
  const skillLine = fc.oneof(
    { weight: 1, arbitrary: plainWrappedEntry },
    { weight: 1, arbitrary: bracketEntry },
    { weight: 1, arbitrary: wrappedEntry },
    { weight: 1, arbitrary: blockEntry },
    { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...skillKeys), written, fc.constantFrom(" ", " ", "  ", "", "\t")).map(([key, value, pad]) => `${key}:${pad}${value}`) },
    { weight: 1, arbitrary: fc.constantFrom("", "  - item", "# comment", " name: indented", "metadata:", "  author: x", "description: >", "  folded", "tags:", "- a", "description: 'open", 'description: "open') },
    { weight: 2, arbitrary: continued },
    { weight: 2, arbitrary: blockLine },
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
      { numRuns: 6000 },
    );
    assert.ok(fastAnswers > 400 && quoted > 100, `the fast path answered ${fastAnswers} times, ${quoted} with a quoted value`);
  });

  it("answers what the YAML library answers for lists, maps and strings over several lines, whenever it answers", () => {
    let lists = 0;
    let maps = 0;
    let wrapped = 0;
    let brackets = 0;
    const entry = fc.oneof(wrappedEntry, plainWrappedEntry, bracketEntry, blockEntry, fc.constantFrom("name: x", "license: MIT", "description: 'one line'", ""));
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 3 }), fc.boolean(), (entries, crlf) => {
        const source = entries.join("\n").replaceAll("\n", crlf ? "\r\n" : "\n") + (crlf ? "\r\n" : "\n");
        const map = new LineMap("---\n" + source);
        const fast = readSimpleEntries(source, 4, map);
        if (!fast) return;
        if (fast.some((item) => item.value.kind === "list")) lists++;
        if (fast.some((item) => item.value.range.start.line === item.value.range.end.line && item.value.kind === "list" && item.value.items.length > 1)) brackets++;
        if (fast.some((item) => item.value.kind === "map")) maps++;
        if (fast.some((item) => item.value.kind === "string" && item.value.range.start.line !== item.value.range.end.line)) wrapped++;
        const slow = readYamlFrontmatter(source, 4, map);
        assert.deepEqual(slow.problems, [], `the fast path took frontmatter that YAML reports: ${JSON.stringify(source)}`);
        assert.deepEqual(fast, slow.entries, JSON.stringify(source));
      }),
      { numRuns: 4000 },
    );
    assert.ok(lists > 50 && maps > 50 && wrapped > 50 && brackets > 20, `the fast path answered ${lists} times with a list (${brackets} in brackets with several items), ${maps} with a map, ${wrapped} with a string over several lines`);
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
    // The shapes of a real library's generated frontmatter: a description wrapped in quotes over several lines, a
    // list, a map.
    const wrapped = "name: x\ndescription: 'Covers supply\n  chain attacks.\n\n  '\ntags:\n- a\n- 'b c'\nmetadata:\n  author: m\n  version: \"1.0\"\n";
    assert.deepEqual(JSON.parse(JSON.stringify(readSimpleEntries(wrapped, 4, new LineMap("---\n" + wrapped)))), JSON.parse(JSON.stringify(readYamlFrontmatter(wrapped, 4, new LineMap("---\n" + wrapped)).entries)));
    assert.deepEqual(
      readSimpleEntries(wrapped, 0, new LineMap(wrapped))?.map((entry) => [entry.key, entry.value.kind === "string" ? entry.value.value : entry.value.kind]),
      [
        ["name", "x"],
        ["description", "Covers supply chain attacks.\n"],
        ["tags", "list"],
        ["metadata", "map"],
      ],
    );
    for (const other of ['description: "a \\"b\\""\n', "description: 'a' # note\n", "description: 'it's'\n", "description: >\n  folded\n", "metadata:\n  a:\n    b: c\n", "metadata:\n", "True: x\n", "name: a\nname: b\n", 'description: "open\n', "tags:\n- a\n  - b\n", "d: 'a\nb'\n"]) {
      assert.equal(readSimpleEntries(other, 0, new LineMap(other)), undefined, other);
    }
  });
});
