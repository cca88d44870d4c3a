import assert from "node:assert/strict";
import { test } from "node:test";
import { countOf } from "../../shared/words.js";

test("countOf puts the noun in the number of the count", () => {
  assert.equal(countOf(1, "tool"), "1 tool");
  assert.equal(countOf(0, "tool"), "0 tools");
  assert.equal(countOf(7, "skill"), "7 skills");
  assert.equal(countOf(10000, "skill"), "10,000 skills");
  assert.equal(countOf(2, "entry", "entries"), "2 entries");
});
