/** Background slices hold back while the client's messages come and are answered, and not for ever. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { AnswersFirst } from "../../server/src/lsp/answersFirst.js";

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test("a background turn waits until nothing has come or been answered for a moment", async () => {
  const gate = new AnswersFirst();
  let lastNote = 0;
  let notes = 0;
  const talking = (async () => {
    const end = performance.now() + 4;
    while (performance.now() < end) {
      if (notes % 2 === 0) gate.noteMessage();
      else gate.noteAnswer();
      notes++;
      lastNote = performance.now();
      await nextTurn();
    }
  })();
  await gate.turn();
  const resumedAt = performance.now();
  await talking;
  assert.ok(notes > 10, `the client spoke over ${notes} turns`);
  assert.ok(resumedAt >= lastNote, "the turn ended only once the messages stopped");
});

test("a background turn with nothing coming is one turn of the event loop", async () => {
  const gate = new AnswersFirst();
  let turns = 0;
  let counting = true;
  const count = (async () => {
    while (counting) {
      turns++;
      await nextTurn();
    }
  })();
  await gate.turn();
  counting = false;
  await count;
  assert.ok(turns <= 2, `it took ${turns} turns`);
});

test("a client that never stops asking still lets the background go on", async () => {
  const gate = new AnswersFirst();
  let talking = true;
  const chatter = (async () => {
    while (talking) {
      gate.noteMessage();
      await nextTurn();
    }
  })();
  await gate.turn();
  talking = false;
  await chatter;
});
