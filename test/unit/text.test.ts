import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as fc from "fast-check";
import { comparePositions, LineMap, rangeContains } from "../../server/src/core/index.js";
import { interned, internedSlice, startsWithFromEnd } from "../../server/src/core/text.js";
import { cursor } from "./helpers.js";

describe("LineMap", () => {
  const cases: { name: string; fixture: string; line: number; character: number }[] = [
    { name: "start of text", fixture: "|abc", line: 0, character: 0 },
    { name: "end of text", fixture: "abc|", line: 0, character: 3 },
    { name: "after LF", fixture: "ab\n|cd", line: 1, character: 0 },
    { name: "after CRLF", fixture: "ab\r\ncd|", line: 1, character: 2 },
    { name: "after a lone CR", fixture: "ab\r|cd", line: 1, character: 0 },
    { name: "an empty last line", fixture: "ab\n\n|", line: 2, character: 0 },
    { name: "astral characters count as two UTF-16 units", fixture: "🎉x|", line: 0, character: 3 },
    { name: "the $0 marker", fixture: "a|b\n$0", line: 1, character: 0 },
  ];
  for (const { name, fixture, line, character } of cases) {
    test(name, () => {
      const { text, offset, position } = cursor(fixture);
      const lines = new LineMap(text);
      assert.deepEqual(position, { line, character });
      assert.equal(lines.offsetAt(position), offset);
    });
  }

  test("lineCount", () => {
    assert.equal(new LineMap("").lineCount, 1);
    assert.equal(new LineMap("a\nb\r\nc\rd").lineCount, 4);
    assert.equal(new LineMap("a\n").lineCount, 2);
  });

  test("offsetAt clamps as LSP does: past a line's end is its end, never the next line", () => {
    const lines = new LineMap("ab\ncd\r\nef");
    assert.equal(lines.offsetAt({ line: 0, character: 99 }), 2);
    assert.equal(lines.offsetAt({ line: 1, character: 99 }), 5);
    assert.equal(lines.offsetAt({ line: 1, character: 3 }), 5, "inside the CRLF");
    assert.equal(lines.offsetAt({ line: 2, character: 99 }), 9);
    assert.equal(lines.offsetAt({ line: 9, character: 0 }), 9);
    assert.equal(lines.offsetAt({ line: -1, character: 5 }), 0);
    assert.equal(lines.offsetAt({ line: 1, character: -4 }), 3);
    assert.deepEqual(lines.positionAt(-5), { line: 0, character: 0 });
    assert.deepEqual(lines.positionAt(99), { line: 2, character: 2 });
  });

  test("offsetAt(positionAt(offset)) is offset for every offset outside a CRLF", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "é", "🎉", "\n", "\r", "\r\n", " "), maxLength: 40 });
    fc.assert(
      fc.property(text, (value) => {
        const lines = new LineMap(value);
        for (let offset = 0; offset <= value.length; offset++) {
          const insideCrlf = value.charAt(offset - 1) === "\r" && value.charAt(offset) === "\n";
          if (!insideCrlf) assert.equal(lines.offsetAt(lines.positionAt(offset)), offset);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe("positions", () => {
  const range = { start: { line: 1, character: 2 }, end: { line: 1, character: 6 } };
  const cases: [number, number, boolean][] = [
    [1, 2, true],
    [1, 6, true],
    [1, 4, true],
    [1, 1, false],
    [1, 7, false],
    [0, 4, false],
    [2, 0, false],
  ];
  for (const [line, character, inside] of cases) {
    test(`${line}:${character} is ${inside ? "inside" : "outside"} 1:2-1:6`, () => assert.equal(rangeContains(range, { line, character }), inside));
  }
  test("comparePositions orders by line, then character", () => {
    assert.ok(comparePositions({ line: 0, character: 9 }, { line: 1, character: 0 }) < 0);
    assert.ok(comparePositions({ line: 1, character: 3 }, { line: 1, character: 2 }) > 0);
    assert.equal(comparePositions({ line: 1, character: 3 }, { line: 1, character: 3 }), 0);
  });
});

test("internedSlice gives the text of the range, for any text and range, across the table's growth", () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 40 }), fc.nat(), fc.nat(), (text, a, b) => {
      const start = a % (text.length + 1);
      const end = start + (b % (text.length - start + 1));
      assert.equal(internedSlice(text, start, end), text.slice(start, end));
      assert.equal(interned(text.slice(start, end)), text.slice(start, end));
    }),
    { numRuns: 2000 },
  );
  // Enough distinct slugs to grow the table many times; each asked again still reads back the same.
  const slugs = Array.from({ length: 20_000 }, (_, i) => `skill-${i.toString(36)}-x`);
  const text = slugs.join(" ");
  let at = 0;
  const ranges = slugs.map((slug) => {
    const range = [at, at + slug.length] as const;
    at += slug.length + 1;
    return range;
  });
  ranges.forEach(([start, end], i) => assert.equal(internedSlice(text, start, end), slugs[i]));
  ranges.forEach(([start, end], i) => assert.equal(internedSlice(text, start, end), slugs[i]));
});

test("startsWithFromEnd answers as startsWith, for any text and prefix", () => {
  const piece = fc.string({ unit: fc.constantFrom("a", "b", "/", "é", "🎉"), maxLength: 12 });
  fc.assert(
    fc.property(piece, piece, fc.boolean(), (text, prefix, joined) => {
      const whole = joined ? prefix + text : text;
      assert.equal(startsWithFromEnd(whole, prefix), whole.startsWith(prefix));
    }),
  );
});
