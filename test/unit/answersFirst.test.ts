/** Background slices hold back while the client's messages come and are answered, and not for ever. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { AnswersFirst } from "../../server/src/lsp/answersFirst.js";

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test("a background turn waits until nothing has come or been answered for a moment", async () => {
  // A clock that moves a tenth of a millisecond each time it is read: the test does not depend on the machine's speed.
  let clock = 0;
  const gate = new AnswersFirst(() => (clock += 0.1));
  let lastNote = 0;
  let notes = 0;
  const talking = (async () => {
    for (; notes < 20; notes++) {
      if (notes % 2 === 0) gate.noteMessage();
      else gate.noteAnswer();
      lastNote = clock;
      await nextTurn();
    }
  })();
  await gate.turn();
  const resumedAt = clock;
  await talking;
  assert.ok(resumedAt >= lastNote + 1, `the turn ended at ${resumedAt.toFixed(1)} ms, the last message came at ${lastNote.toFixed(1)} ms`);
});

test("after a message, a background turn ends once the client has been quiet for a moment, not at once and not at the limit", async () => {
  let clock = 0;
  const gate = new AnswersFirst(() => (clock += 0.1));
  gate.noteMessage();
  // Quiet from here on: the turn ends after about a millisecond of the clock, never at once.
  const from = clock;
  await gate.turn();
  assert.ok(clock - from >= 1 && clock - from < 8, `it waited ${(clock - from).toFixed(1)} ms of the clock`);
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
