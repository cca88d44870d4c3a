// `skill-lsp menu` on a generated library of 3,000 skills (the benchmark's realistic summaries): the menu does not
// fit the default context, and the command says so with its figures.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { generateWorkspaces } from "../../bench/workspace.js";
import { capture } from "./capture.js";

let root: string;
let skills: string;

before(async () => {
  root = await mkdtemp(path.join(tmpdir(), "skill-menu-fit-"));
  skills = (await generateWorkspaces(root, 3000, 20261203, "realistic")).skills;
});

after(async () => {
  await rm(root, { recursive: true, force: true });
});

const SENTENCE =
  /^The menu does not fit the model's context: the system prompt is ~([\d,]+) tokens, estimated at 4 characters a token \(~([\d,]+) of instructions and headings, ~([\d,]+) for ([\d,]+) entries\), and a context of ([\d,]+) tokens leaves ([\d,]+) for it once 768 are kept for the request and the plan; only the first ([\d,]+) of the \4 entries fit\. Put fewer skills on the menu \(alignment\.menu in skills\.json\), or raise the context size \(skill\.model\.contextSize, or --context\)\.$/;
const number = (text: string | undefined): number => Number((text ?? "").replace(/,/g, ""));

describe("skill-lsp menu on 3,000 skills", () => {
  test("at the default context it prints the prompt, then the sentence with the figures on standard error, and exits 1", async () => {
    const run = await capture(["menu", "--folder", skills]);
    assert.equal(run.code, 1);
    const match = SENTENCE.exec(run.err);
    assert.ok(match, run.err);
    const [, tokens, base, entries, count, context, budget, fitting] = match;
    assert.equal(number(count), 3001, "3,000 skills and the current-date tool");
    assert.equal(number(context), 4096);
    assert.equal(number(budget), 4096 - 768);
    assert.equal(number(base) + number(entries), number(tokens));
    const footer = /— ~([\d,]+) tokens, ([\d,]+) characters; planning on \(3,000 skills on the menu\)/.exec(run.out);
    assert.ok(footer, run.out.slice(-300));
    assert.equal(number(footer[1]), number(tokens));
    // The prompt's own lines: the first `fitting` entries take no more than the budget, one more would not.
    const lines = run.out.split("\n").filter((line) => line.startsWith("- @"));
    assert.equal(lines.length, 3001);
    const k = number(fitting);
    const cost = (n: number) => lines.slice(0, n).reduce((sum, line) => sum + (line.length + 1) / 4, 0);
    assert.ok(number(base) + cost(k) <= 3328 && number(base) + cost(k + 1) > 3328, `${k} entries fit`);
  });

  test("--context small makes fewer entries fit, --context large enough fits and says so, a bad value is a usage error", async () => {
    const small = await capture(["menu", "--folder", skills, "--context", "1024"]);
    assert.equal(small.code, 1);
    assert.match(small.err, /a context of 1,024 tokens leaves 256 for it/);
    const large = await capture(["menu", "--folder", skills, "--context", "200000"]);
    assert.equal(large.code, 0, large.err);
    assert.match(large.out, /— fits a context of 200,000 tokens: 199,232 for the menu once 768 are kept for the request and the plan$/);
    const bad = await capture(["menu", "--folder", skills, "--context", "lots"]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--context takes a whole number above 0; got lots\./);
  });
});
