/** Where an edit ended, for holding back the mention being typed. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { editEnd } from "../../server/src/service/typing.js";

test("an edit ends just past what it inserted; nothing changed, or a CR typed before an LF, is no cursor", () => {
  assert.equal(editEnd("use @pl\n", "use @pla\n"), 8);
  assert.equal(editEnd("same", "same"), undefined);
  // "@delta\n" → "@delta\r\n": the edit ends between the CR and the LF, a line break was typed.
  assert.equal(editEnd("x @delta\n", "x @delta\r\n"), undefined);
  assert.equal(editEnd("x @delta\r\n", "x @delta!\r\n"), 9);
});
