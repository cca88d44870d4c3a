/**
 * Where a text is prose: fenced code blocks (checked against markdown-it, a CommonMark parser, on random
 * documents), URLs and paths, package scopes. The mention scanner's fixtures for these rules are here too.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as fc from "fast-check";
import markdownIt from "markdown-it";
import { codeFences, codeSpans, isInFence, isInUrlOrPath, isScopedOrQualified, LineMap, proseRegions, scanMentions } from "../../server/src/core/index.js";
import { spans } from "./helpers.js";

/** Fixture: the fenced blocks are marked ⟦like this⟧ (from the opening line's start to after the closing line). */
const fences: { name: string; fixture: string; closed?: boolean[] }[] = [
  { name: "a backtick fence", fixture: "text\n⟦```sh\nnpm i -D @types/node\n```\n⟧after" },
  { name: "a tilde fence", fixture: "⟦~~~\n@x\n~~~\n⟧@y" },
  { name: "a longer fence needs a closing fence at least as long", fixture: "⟦````\n```\n@x\n~~~~\n`````\n⟧@y" },
  { name: "a tilde fence is not closed by backticks", fixture: "⟦~~~\n```\n@x\n~~~⟧" },
  { name: "indented up to three spaces, and its closing fence too", fixture: "⟦   ```\n@x\n  ```\n⟧@y" },
  { name: "four spaces is an indented code block, not a fence", fixture: "    ```\n@x\n" },
  { name: "two backticks are no fence", fixture: "``\n@x\n``" },
  { name: "a backtick fence's info has no backtick (that is inline code)", fixture: "``` a ``` b\n@x" },
  { name: "a tilde fence's info may hold backticks", fixture: "⟦~~~ `x`\n@x\n~~~⟧", closed: [true] },
  { name: "a closing fence has nothing after it but spaces", fixture: "⟦```\n``` x\n@x\n```   \n⟧@y" },
  { name: "an unclosed fence runs to the end", fixture: "@a\n⟦```js\n@x\n@y⟧", closed: [false] },
  { name: "CRLF and a lone CR end lines", fixture: "⟦```\r\n@x\r\n```\r\n⟧@y\r⟦~~~\r@z\r~~~⟧" },
  { name: "in a list item, past its content column", fixture: "1. Install:\n\n⟦   ```sh\n   npm i @x\n   ```\n⟧2. Then @y" },
  { name: "on a list item's first line", fixture: "⟦- ```\n  @x\n  ```\n⟧- @y" },
  { name: "a nested list item", fixture: "- a\n  - b\n⟦    ```\n    @x\n    ```\n⟧" },
  { name: "a list item's end closes its fence", fixture: "⟦- ```\n  @x\n⟧@y", closed: [false] },
  { name: "a paragraph's lazy line stays in the list item", fixture: "- a\nlazy\n⟦  ```\n  @x\n  ```\n⟧" },
  { name: "a line like a fence that opens none is read with the lines before it", fixture: "- item\nlazy\n```x`\n⟦  ```\n  @x\n⟧⟦```\n@y⟧", closed: [false, false] },
  { name: "in a block quote", fixture: "⟦> ```\n> @x\n> ```\n⟧> @y" },
  { name: "a block quote's end closes its fence", fixture: "⟦> ```\n> @x\n⟧@y", closed: [false] },
  { name: "a tab after > gives its width to the content", fixture: "⟦>\t```\n>\t@x\n⟧" },
];

describe("codeFences", () => {
  for (const { name, fixture, closed } of fences) {
    test(name, () => {
      const { text, offsets } = spans(fixture);
      const found = codeFences(text);
      assert.deepEqual(found.map((fence) => [fence.start, fence.end]), offsets);
      if (closed) assert.deepEqual(found.map((fence) => fence.closed), closed);
    });
  }

  test("a region is read as a document of its own", () => {
    const text = "```\n@x\n```\n@y\n```\n@z";
    assert.deepEqual(codeFences(text, 11).map((fence) => [fence.start, fence.end]), [[14, text.length]]);
  });

  test("proseRegions is the complement, and isInFence finds an offset", () => {
    const text = "a\n```\nb\n```\nc\n~~~\nd";
    const found = codeFences(text);
    assert.deepEqual(proseRegions(text), [{ start: 0, end: 2 }, { start: 12, end: 14 }]);
    assert.equal(isInFence(found, text.indexOf("b")), true);
    assert.equal(isInFence(found, text.indexOf("c")), false);
    assert.equal(isInFence(found, text.indexOf("d")), true);
    assert.equal(isInFence(found, 0), false);
  });

  // Shapes of real pages: prefixes of list items and quotes, fences, prose with mentions and scopes.
  const prefix = fc.constantFrom("", "", "", "> ", "- ", "* ", "+ ", "1. ", "1) ", "1234567890. ", "-\t", "  ", "   ", "    ", "  - ", "> - ", "> > ");
  const content = fc.constantFrom("```", "```sh", "~~~", "````", "~~~~ x", "text @x", "@y and `@z`", "npm i @types/node", "- item @w", "a ``` b", "");
  const eol = fc.constantFrom("\n", "\r\n");
  const doc = fc.tuple(fc.array(fc.tuple(prefix, content).map(([p, c]) => p + c), { maxLength: 14 }), eol).map(([lines, end]) => lines.join(end));
  const md = markdownIt("commonmark");

  /** The indices of the non-blank lines that lie in a fenced block. */
  const fencedLines = (text: string, blocks: [number, number][]) => {
    const rows = text.split(/\r\n|\r|\n/);
    const out: number[] = [];
    for (const [first, end] of blocks) for (let i = first; i < end; i++) if ((rows[i] ?? "").trim() !== "") out.push(i);
    return out;
  };

  test("agrees with markdown-it on which lines are fenced code (1,000 random documents)", () => {
    fc.assert(
      fc.property(doc, (text) => {
        // An item that starts with a blank line and then holds a fence: markdown-it keeps the fence open past the
        // item's end, which CommonMark's rule (a container's end closes its fence) does not; and after paragraph
        // text such an item is a heading's underline or the paragraph's continuation. Such texts are left out.
        fc.pre(!/(^|\n)(> | {1,3})*([-*+]|1[.)])[ \t]*(\r?\n|$)/.test(text));
        const lines = new LineMap(text);
        const rowCount = text.split(/\r\n|\r|\n/).length;
        const ours = codeFences(text).map((f): [number, number] => [lines.positionAt(f.start).line, f.end >= text.length ? rowCount : lines.positionAt(f.end).line]);
        const theirs = md.parse(text, {}).flatMap((token) => (token.type === "fence" && token.map ? [token.map] : []));
        assert.deepEqual(fencedLines(text, ours), fencedLines(text, theirs), JSON.stringify(text));
      }),
      { numRuns: 1000 },
    );
  });

  // Long runs of prose, lists and quotes between fences: what codeFences passes over in one search (see its jump
  // to the next line that opens a fence at its start) must be what markdown-it reads line by line.
  const prose = fc.constantFrom("text @x", "more text", "- item", "  continued", "> quoted", "1. step", "a ``` b", "```x`", "");
  const longDoc = fc
    .tuple(fc.array(fc.oneof({ weight: 3, arbitrary: prose }, { weight: 1, arbitrary: fc.tuple(prefix, content).map(([p, c]) => p + c) }), { maxLength: 40 }))
    .map(([lines]) => lines.join("\n"));
  test("agrees with markdown-it on long documents of prose between fences (500 random documents)", () => {
    fc.assert(
      fc.property(longDoc, (text) => {
        fc.pre(!/(^|\n)(> | {1,3})*([-*+]|1[.)])[ \t]*(\r?\n|$)/.test(text));
        const lines = new LineMap(text);
        const rowCount = text.split("\n").length;
        const ours = codeFences(text).map((f): [number, number] => [lines.positionAt(f.start).line, f.end >= text.length ? rowCount : lines.positionAt(f.end).line]);
        const theirs = md.parse(text, {}).flatMap((token) => (token.type === "fence" && token.map ? [token.map] : []));
        assert.deepEqual(fencedLines(text, ours), fencedLines(text, theirs), JSON.stringify(text));
      }),
      { numRuns: 500 },
    );
  });
});

describe("codeSpans", () => {
  test("runs of equal length pair up; a lone run is text", () => {
    const text = "a `b` c ``d`e`` f ` g";
    assert.deepEqual(codeSpans(text).map((span) => text.slice(span.start, span.end)), ["`b`", "``d`e``"]);
  });
});

describe("isInUrlOrPath and isScopedOrQualified", () => {
  const at = (text: string) => text.indexOf("@");
  test("a / before the @ in the same token is a URL or a path", () => {
    for (const text of ["https://medium.com/@someone/post", "~/@scratch", "./@x", "a/@b", "see (docs/@x)", "[x](https://x.com/u?name=@me)"]) {
      assert.equal(isInUrlOrPath(text, at(text)), true, text);
    }
    for (const text of ["@x", "see @x", "(@x)", "dir/ @x", "[x](./a) @y", "`@x`"]) assert.equal(isInUrlOrPath(text, at(text)), false, text);
  });
  test("a name followed by / is a package scope; by a dot and a letter, a qualified name", () => {
    for (const text of ["@types/node", "@vscode/test-electron", "@my_org/x", "@app.route", "@pytest.fixture", "@notes.md"]) {
      assert.equal(isScopedOrQualified(text, 0), true, text);
    }
    for (const text of ["@x", "@x.", "@x. Then", "@x,", "@x-y", "@x:"]) assert.equal(isScopedOrQualified(text, 0), false, text);
  });
});

/** Fixture: the mentions are marked ⟦like this⟧. */
const mentions: { name: string; fixture: string }[] = [
  { name: "a fenced block is never scanned", fixture: "Run:\n```sh\nnpm i @x\n```\nthen ⟦@y⟧" },
  { name: "a tilde fence, with an info string", fixture: "~~~python\n@app.route('/')\n@login\n~~~\n⟦@y⟧" },
  { name: "an unclosed fence hides the rest", fixture: "⟦@a⟧\n```\n@b\n@c" },
  { name: "inline code that is one mention is a mention", fixture: "write `⟦@search-info⟧` or `` ⟦@x⟧ `` in a plan" },
  { name: "other inline code is code", fixture: "`@app.route('/') @x`, `ant @completion {zsh}`, ``a ` @y``, then ⟦@z⟧" },
  { name: "an unclosed backtick is literal", fixture: "a ` ⟦@x⟧ and ⟦@y⟧" },
  { name: "a code span ends at a blank line", fixture: "`a\n\n⟦@x⟧ b`" },
  { name: "an escaped backtick opens no span", fixture: "\\` ⟦@x⟧ `@y z`" },
  { name: "package scopes, in inline code or not", fixture: "npm i -D @types/node, `@vscode/test-electron`, npx @modelcontextprotocol/inspector, ⟦@x⟧" },
  { name: "URLs and paths", fixture: "https://medium.com/@someone/post ~/@scratch ./@x a/@b ⟦@c⟧" },
  { name: "a qualified name", fixture: "`@app.route`, @pytest.fixture, ⟦@x⟧. Then ⟦@y⟧." },
  { name: "e-mail and \\@ stay as they are", fixture: "bob@example.com \\@x ⟦@y⟧" },
  { name: "a list item's fence", fixture: "1. ⟦@a⟧:\n   ```\n   @b\n   ```\n2. ⟦@c⟧" },
  { name: "a quoted fence ends with the quote", fixture: "> ```\n> @a\n⟦@b⟧" },
];

describe("scanMentions in prose only", () => {
  for (const { name, fixture } of mentions) {
    test(name, () => {
      const { text, offsets } = spans(fixture);
      const scan = scanMentions(text);
      assert.deepEqual(scan.mentions.map((m) => [m.start, m.end]), offsets);
      assert.deepEqual(scan.malformed, []);
    });
  }

  test("nothing in a fence or in inline code is malformed either", () => {
    assert.deepEqual(scanMentions("```\n@café @x_y @-z\n```\n").malformed, []);
    assert.deepEqual(scanMentions("`@beta_tool` and `@café`").malformed, []);
  });

  test("a mention that is a whole code span says so", () => {
    assert.deepEqual(scanMentions("`@a` @b").mentions.map((m) => [m.written, m.inCode]), [["a", true], ["b", false]]);
  });

  test("a long token of @s costs one pass", () => {
    const text = `${"x/-@a".repeat(20_000)} @b`;
    assert.deepEqual(scanMentions(text).mentions.map((m) => m.written), ["b"]);
  });
});
