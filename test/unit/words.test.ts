import assert from "node:assert/strict";
import { test } from "node:test";
import { countOf, groupedDigits } from "../../shared/words.js";

test("countOf puts the noun in the number of the count", () => {
  assert.equal(countOf(1, "tool"), "1 tool");
  assert.equal(countOf(0, "tool"), "0 tools");
  assert.equal(countOf(7, "skill"), "7 skills");
  assert.equal(countOf(10000, "skill"), "10,000 skills");
  assert.equal(countOf(2, "entry", "entries"), "2 entries");
});

test("groupedDigits writes every integer as toLocaleString does", () => {
  for (const n of [0, 7, -7, 999, 1000, -1000, 12345, 999999, 1000000, -1234567, Number.MAX_SAFE_INTEGER, 2 ** 60, 1.5, NaN]) {
    assert.equal(groupedDigits(n), n.toLocaleString("en-US"), String(n));
  }
});
