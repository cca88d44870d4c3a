import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { approximateTokenSize, composeSystemPrompt, menuCannotFit, menuFit, PLAN_ROOM_TOKENS } from "../../server/src/core/index.js";
import { loadExamples, skillText, skillUri, workspace } from "./helpers.js";

/** A tokenizer of whitespace-separated words: exact counting by a rule other than characters / 4. */
const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;

function largeWorkspace(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) files[skillUri(`check-notes-${i}`)] = skillText("Look it up.", { summary: `Search the user's notes for item ${i} and say where it was found.` });
  return files;
}

describe("menuFit", () => {
  const examples = composeSystemPrompt(workspace(loadExamples()));

  test("examples/ fits the default 4096-token context, every entry with it", () => {
    const fit = menuFit(examples, 4096);
    assert.equal(fit.fits, true);
    assert.equal(fit.sentence, undefined);
    assert.equal(fit.budget, 4096 - PLAN_ROOM_TOKENS);
    assert.equal(fit.entriesThatFit, examples.entries.length);
    assert.equal(fit.tokens, approximateTokenSize(examples.text.length).tokens);
  });

  test("a context too small for examples/ gives the one sentence with its figures, estimated", () => {
    const fit = menuFit(examples, 1024);
    assert.equal(fit.fits, false);
    const tokens = approximateTokenSize(examples.text.length).tokens;
    assert.equal(
      fit.sentence,
      `The menu does not fit the model's context: the system prompt is ~${tokens} tokens, estimated at 4 characters a token ` +
        `(~${fit.baseTokens} of instructions and headings, ~${tokens - fit.baseTokens} for 8 entries), and a context of 1,024 tokens leaves 256 for it ` +
        `once 768 are kept for the request and the plan; only the first ${fit.entriesThatFit} of the 8 entries fit. ` +
        "Put fewer skills on the menu (alignment.menu in skills.json), or raise the context size (skill.model.contextSize, or --context).",
    );
    // The instructions alone are about 60 estimated tokens: some entries fit in 256, not all.
    assert.ok(fit.entriesThatFit > 0 && fit.entriesThatFit < 8, String(fit.entriesThatFit));
  });

  test("with a tokenizer the figures are exact: no ~, and the entries that fit are the longest prefix of the menu within the budget", () => {
    const fit = menuFit(examples, 800, words);
    const total = words(examples.text);
    assert.equal(fit.tokens, total);
    assert.equal(fit.exact, true);
    // Budget 32 words: the instructions (about 45 words) leave no room for any entry.
    assert.equal(fit.budget, 32);
    assert.equal(fit.fits, total <= 32);
    assert.match(fit.sentence ?? "", new RegExp(`the system prompt is ${total} tokens \\(\\d+ of instructions and headings`));
    assert.ok(!(fit.sentence ?? "").includes("~"));
    const roomy = menuFit(examples, PLAN_ROOM_TOKENS + words(examples.text.slice(0, examples.entries[2]?.end ?? 0)) + 3, words);
    assert.equal(roomy.fits, false);
    let used = roomy.baseTokens;
    let expected = 0;
    for (const entry of examples.entries) {
      if (used + words(entry.text) + 1 > roomy.budget) break;
      used += words(entry.text) + 1;
      expected++;
    }
    assert.equal(roomy.entriesThatFit, expected);
    assert.ok(expected >= 2, String(expected));
  });

  test("a menu of 3,000 skills does not fit 4096 tokens; one with no skill always fits", () => {
    const large = composeSystemPrompt(workspace(largeWorkspace(3000)));
    const fit = menuFit(large, 4096);
    assert.equal(fit.fits, false);
    assert.match(fit.sentence ?? "", /for 3,001 entries\), and a context of 4,096 tokens leaves 3,328 for it/);
    assert.match(fit.sentence ?? "", /only the first \d+ of the 3,001 entries fit\./);
    const none = composeSystemPrompt(workspace({}));
    assert.equal(none.planning, false);
    assert.equal(menuFit(none, 256).fits, true);
  });

  test("menuCannotFit judges on length alone, only when even 6 characters a token would not fit", () => {
    const large = composeSystemPrompt(workspace(largeWorkspace(3000)));
    assert.equal(menuCannotFit(large, 4096), true);
    assert.equal(menuCannotFit(large, Math.ceil(large.text.length / 6) + PLAN_ROOM_TOKENS + 1), false);
    assert.equal(menuCannotFit(examples, 4096), false);
    assert.equal(menuCannotFit(composeSystemPrompt(workspace({})), 256), false);
  });
});
