/**
 * Frontmatter YAML mistakes explained in a skill author's words, on the exact range the YAML library found:
 * each common mistake, its message (what is wrong, how to fix it), and one diagnostic per faulty line.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Namespace } from "../../server/src/core/index.js";
import { explainYamlError } from "../../server/src/core/yamlErrors.js";
import { skillUri } from "./helpers.js";

/** The diagnostics of a skill whose frontmatter is `yaml`, as "line:col-line:col message" (0-based). */
function frontmatterProblems(yaml: string): string[] {
  const namespace = new Namespace();
  const uri = skillUri("a");
  namespace.set(uri, `---\n${yaml}---\nBody.\n`);
  return namespace
    .diagnose(uri)
    .filter((diagnostic) => diagnostic.code === "frontmatter-syntax")
    .map(({ range, message }) => `${range.start.line}:${range.start.character}-${range.end.line}:${range.end.character} ${message}`);
}

const CASES: readonly (readonly [string, string, string])[] = [
  ["a colon inside a value", "title: A\nsummary: When to use: now\n", '2:9-2:10 The value of summary has a `: ` inside it, which YAML reads as another key: put the value in quotes: summary: "When to use: now".'],
  ["a key given twice", "title: A\ntitle: B\n", "2:0-2:1 `title` is given twice in the frontmatter: keep one."],
  ["an unclosed double quote", 'summary: "open\n', '1:0-1:14 The value of summary opens a " quote that never closes: end it with ", or drop the quotes.'],
  ["an unclosed single quote", "summary: 'open\n", "1:0-1:14 The value of summary opens a ' quote that never closes: end it with ', or drop the quotes."],
  ["a tab as indentation", "examples:\n\t- a\n", "2:0-2:1 A tab indents this line: YAML indents with spaces only."],
  ["list items out of line", "examples:\n  - a\n - b\n", "3:0-3:1 This list item is indented differently from the ones above it: line up the dashes."],
  ["an unclosed [", "examples: [a, b\n", "1:0-1:15 The value of examples opens a list with [ that is not closed: end it with ], or write one `- item` per line below examples:."],
  ["a value starting with @", "summary: @search-info finds\n", '1:9-1:10 The value of summary starts with @ (YAML reserves it): put the value in quotes: summary: "@search-info finds".'],
  ["a value starting with a backtick", "summary: `code` here\n", '1:9-1:10 The value of summary starts with a backtick (YAML reserves it): put the value in quotes: summary: "`code` here".'],
  ["text after a closing quote", 'summary: "quoted" then more\n', "1:18-1:27 Text follows the closing quote of summary: put the whole value in one pair of quotes."],
  ["no space after a colon", "summary:value\ntitle: x\n", "1:0-2:5 A colon needs a space after it: write `key: value`."],
  ["a key without a colon", "summary\ntitle: b\n", "1:0-2:5 `summary` is not `key: value`: add a colon and a value, or indent it under the key it belongs to."],
  ["a dash on the key's line", "summary: - a\n", '1:9-1:10 A list cannot start on the key\'s line: put each `- item` on its own line below summary:, or put the value in quotes: summary: "- a".'],
  ["a value starting with *", "summary: *bold* word\n", '1:16-1:20 The value of summary starts with * (YAML reads it as a reference to an anchor): put the value in quotes: summary: "*bold* word".'],
  ["a value starting with [", "summary: [draft] plan\n", '1:17-1:21 The value of summary starts with [ (YAML reads it as a list): put the value in quotes: summary: "[draft] plan".'],
  ["a quote inside single quotes", "summary: 'it's here'\n", "1:13-1:20 The value of summary is in single quotes and has a ' inside: write it twice ('') or use double quotes: summary: \"it's here\"."],
  ["text after |", "summary: | x\n  y\n", '1:11-1:12 After | the text must start on the next line, indented: move it there, or put the value in quotes: summary: "| x".'],
  ["a list before the keys", "- a\ntitle: b\n", "2:0-2:5 The frontmatter starts with a list item, but it must be `key: value` lines: put the list under a key such as `examples:`."],
];

describe("frontmatter YAML errors in an author's words", () => {
  for (const [name, yaml, expected] of CASES) {
    test(name, () => assert.deepEqual(frontmatterProblems(yaml), [expected]));
  }

  test("an unclosed [ is named by the key that opened it, not by the line where YAML noticed", () => {
    const problems = frontmatterProblems("summary: [unclosed, list\ntitle: Fine\n");
    assert.ok(problems.length > 0);
    assert.match(problems[0] ?? "", /The value of summary opens a list with \[ that is not closed/);
    assert.doesNotMatch(problems.join("\n"), /The value of title opens a list/);
  });

  test("no message quotes the YAML library's jargon for the common cases", () => {
    for (const [, yaml] of CASES) for (const problem of frontmatterProblems(yaml)) assert.doesNotMatch(problem, /implicit|compact mapping|scalar|block-seq-ind|Frontmatter YAML:/i);
  });

  test("a mistake without an explanation keeps the library's words, with the common fix as a hint", () => {
    assert.equal(
      explainYamlError("title: x\n", { code: "IMPOSSIBLE", message: "Something rare\n\ndetail", pos: [0, 1] }),
      "Frontmatter YAML: Something rare. If a value holds punctuation such as `: ` or starts with a quote, put it in quotes.",
    );
  });
});
