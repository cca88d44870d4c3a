// The planner, the executor and the routing tests on a real instruct model: SmolLM2-135M-Instruct, fetched by
// `npm run models` into the model cache, through the real node-llama-cpp and the model's own chat template.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import type { Namespace } from "../../server/src/core/index.js";
import { runCli } from "../../server/src/cli/index.js";
import { LlamaPlannerModel } from "../../server/src/planner/llamaModel.js";
import { cachedModelPath, SMOLLM2 } from "../../server/src/planner/modelCatalog.js";
import { Planner } from "../../server/src/planner/planner.js";
import { EXAMPLES, examplesNamespace, fixtureTools, recorder } from "./helpers.js";

/** The committed routing figure of docs/routing.md: `test-routing examples` on SmolLM2 must not fall below it. */
export const SMOLLM2_EXAMPLES_MIN_PASSED = 24;

const MODEL = cachedModelPath(SMOLLM2);
let model: LlamaPlannerModel;
let examples: Namespace;

before(async () => {
  assert.ok(existsSync(MODEL), `${SMOLLM2.title} is not in the model cache (${MODEL}): run \`npm run models\` first.`);
  model = new LlamaPlannerModel({ model: MODEL, threads: 2, gpu: false, contextSize: 4096, idleUnloadMs: 0 });
  examples = await examplesNamespace();
});

after(async () => {
  await model?.dispose();
});

describe("SmolLM2-135M-Instruct", () => {
  test("plans a calendar question to @check-schedule, which binds current_date and queryCalendar", async () => {
    const plan = await new Planner({ model, tools: fixtureTools() }).plan({ text: "Do I have anything booked on Friday?", namespace: examples });
    assert.equal(plan.kind, "plan");
    assert.deepEqual(plan.kind === "plan" && plan.handles, ["check-schedule"]);
    assert.deepEqual(plan.kind === "plan" && plan.expansion.tools.map((tool) => tool.name), ["current_date", "queryCalendar"]);
  });

  test("plans none for a request no skill fits", async () => {
    const plan = await new Planner({ model, tools: fixtureTools() }).plan({ text: "Write a short poem about the moon", namespace: examples });
    assert.deepEqual(plan.kind === "plan" && plan.handles, []);
  });

  test("executes on its own chat template: the answer ends cleanly, and only bound tools ever run", async () => {
    const events = recorder();
    const result = await new Planner({ model, tools: fixtureTools(), maxAnswerTokens: 96 }).run({ text: "What's on my calendar tomorrow?", namespace: examples, onEvent: events.onEvent });
    assert.ok(["end", "maxTokens"].includes(result.answer.stopReason), result.answer.stopReason);
    assert.ok(result.answer.text.length > 0 || result.answer.toolCalls.length > 0);
    const bound = result.plan.kind === "plan" ? result.plan.expansion.tools.map((tool) => tool.name) : [];
    for (const call of result.answer.toolCalls) assert.equal(call.bound, bound.includes(call.name), `${call.name} ran only if bound`);
    assert.equal(events.events.at(-1)?.type, "done");
  });

  test(`test-routing examples passes at least ${SMOLLM2_EXAMPLES_MIN_PASSED} cases (the regression gate)`, async () => {
    const lines: string[] = [];
    const io = { out: (line: string) => void lines.push(line), err: (line: string) => void lines.push(line), write: (text: string) => void lines.push(text), writeBytes: (bytes: Uint8Array) => void lines.push(new TextDecoder().decode(bytes)) };
    const code = await runCli(["test-routing", EXAMPLES, "--model", MODEL, "--threads", "2", "--gpu", "off", "--min-passed", String(SMOLLM2_EXAMPLES_MIN_PASSED)], io);
    const summary = lines.find((line) => /routing tests: \d+ passed/.test(line));
    assert.equal(code, 0, `${summary}\n${lines.filter((line) => line.includes("FAIL")).join("\n")}`);
  });
});
