// The planner's own logic, with a model double: what each pass is told, what it may bind, what it refuses.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import fc from "fast-check";
import { composeSystemPrompt, toolSignature, type Namespace } from "../../server/src/core/index.js";
import { isAbortError, type GenerateRequest, type ModelFunction } from "../../server/src/planner/model.js";
import { Planner, planFromHandles } from "../../server/src/planner/planner.js";
import { MAX_PLAN_HANDLES, NONE_HANDLE, PLANNING_DIRECTIVE, parsePlan, planSchema, planSentence } from "../../server/src/planner/prompts.js";
import type { ToolRunner } from "../../server/src/tools/types.js";
import { examplesNamespace, FakeModel, fixtureTools, namespaceOf, recorder } from "./helpers.js";

const SEARCH_INFO_TOOLS = ["check_notebook", "list_devices", "find_file", "grep_memory"];
const MENU = ["search-info", "check-schedule", "meeting-prep", "triage-inbox", "follow-up", "plan-trip", "retry-search", "current-date"];

let examples: Namespace;
before(async () => {
  examples = await examplesNamespace();
});

/** A model that plans `plan` and, in the execution pass, calls call_tool with each of `calls` in turn. */
function scripted(plan: object, calls: readonly object[] = [], answer = "Done.") {
  return new FakeModel(async (request) => {
    if (request.slot === "plan") return JSON.stringify(plan);
    const callTool = request.functions?.[0];
    for (const call of calls) await callTool?.handler(call);
    return answer;
  });
}

function callToolOf(model: FakeModel): ModelFunction {
  const request = model.requests.find((candidate) => candidate.slot === "execute");
  const fn = request?.functions?.[0];
  assert.ok(fn, "the execution pass offers call_tool");
  return fn;
}

describe("the planning pass", () => {
  test("sees the menu's one-liners and the directive, never a skill's body, and is held to the menu by a schema", async () => {
    const model = scripted({ handles: ["search-info"], reason: "find their PAN number" });
    const plan = await new Planner({ model, tools: fixtureTools() }).plan({ text: "What's my PAN number?", namespace: examples });
    const request = model.requests[0] as GenerateRequest;
    assert.equal(request.slot, "plan");
    assert.ok(request.systemPrompt.startsWith(composeSystemPrompt(examples).text.trimEnd()));
    assert.ok(request.systemPrompt.includes(PLANNING_DIRECTIVE));
    assert.ok(!request.systemPrompt.includes("FIRST use @check-notebook"), "bodies stay out of the planning prompt");
    assert.deepEqual(request.jsonSchema, planSchema(MENU));
    assert.deepEqual(request.messages, [{ role: "user", text: "What's my PAN number?" }]);
    assert.equal(plan.kind, "plan");
    assert.equal(plan.kind === "plan" && plan.text, "I'll use @search-info to find their PAN number.");
  });

  test("the schema: an enum of the menu's handles and none, with limits a weak model must close", () => {
    assert.deepEqual(planSchema(["a", "b"]), {
      type: "object",
      properties: {
        handles: { type: "array", items: { enum: ["a", "b", NONE_HANDLE] }, minItems: 1, maxItems: MAX_PLAN_HANDLES },
        reason: { type: "string", maxLength: 200 },
      },
    });
  });

  test("@search-info binds exactly its expansion, reported in order", async () => {
    const events = recorder();
    const plan = await new Planner({ model: scripted({ handles: ["search-info"], reason: "x" }), tools: fixtureTools() }).plan({ text: "PAN?", namespace: examples, onEvent: events.onEvent });
    assert.deepEqual(plan.kind === "plan" && plan.expansion.tools.map((tool) => tool.name), SEARCH_INFO_TOOLS);
    assert.deepEqual(events.of("bound")[0]?.tools.map((tool) => tool.name), SEARCH_INFO_TOOLS);
    assert.deepEqual(events.of("bound")[0]?.skills, ["search-info", "fetch-file"]);
    assert.deepEqual(events.events.map((event) => event.type), ["model", "systemPrompt", "text", "plan", "bound", "done"]);
  });

  test("a plan naming a handle off the menu binds nothing: an error event, and the run rejects", async () => {
    const events = recorder();
    const planner = new Planner({ model: scripted({ handles: ["fetch-file"], reason: "x" }), tools: fixtureTools() });
    await assert.rejects(planner.run({ text: "find it", namespace: examples, onEvent: events.onEvent }), /@fetch-file, which is not on the menu/);
    assert.equal(events.of("bound").length, 0);
    assert.equal(events.of("error")[0]?.code, "plan");
    assert.equal(events.events.at(-1)?.type, "done");
  });

  test("property: whatever the model writes, a parsed plan names only menu handles, once each", () => {
    const handle = fc.oneof(fc.constantFrom(...MENU, NONE_HANDLE, "fetch-file", "find-file", "@search-info", "SEARCH-INFO"), fc.string());
    fc.assert(
      fc.property(fc.array(handle, { maxLength: 5 }), fc.string(), (handles, reason) => {
        const parsed = parsePlan(JSON.stringify({ handles, reason }), MENU);
        if ("problem" in parsed) return true;
        return parsed.handles.every((chosen) => MENU.includes(chosen)) && new Set(parsed.handles).size === parsed.handles.length && !parsed.handles.includes(NONE_HANDLE);
      }),
    );
  });

  test("the plan reads as the seed's sentence", () => {
    assert.equal(planSentence(["search-info"], "Find their PAN number."), "I'll use @search-info to find their PAN number.");
    assert.equal(planSentence(["check-schedule", "current-date"], "to see what is on"), "I'll use @check-schedule and @current-date to see what is on.");
    assert.equal(planSentence(["a", "b", "c"], ""), "I'll use @a, @b and @c.");
    assert.equal(planSentence([], "a poem"), "No skill fits this request: I'll answer directly (a poem).");
  });
});

describe("the direct path and none", () => {
  test("with no skill on the menu the request goes straight to the model with instructions and blurbs, no tools", async () => {
    const namespace = namespaceOf({
      "/ws/skills.json": JSON.stringify({ alignment: { instructions: "Be brief.", blurbs: ["date"], menu: [] } }),
      "/ws/a.skill.md": "---\nsummary: A skill nobody selected.\n---\nUse @current-date.\n",
    });
    const model = new FakeModel(() => "Hello.");
    const events = recorder();
    const result = await new Planner({ model, tools: fixtureTools() }).run({ text: "Hi", namespace, onEvent: events.onEvent });
    assert.equal(result.plan.kind, "direct");
    assert.equal(model.requests.length, 1);
    const request = model.requests[0] as GenerateRequest;
    assert.equal(request.systemPrompt, composeSystemPrompt(namespace).text);
    assert.match(request.systemPrompt, /^Be brief\.\n\nDate: /);
    assert.equal(request.functions, undefined);
    assert.equal(request.jsonSchema, undefined);
    assert.deepEqual(events.of("systemPrompt").map((event) => [event.path, event.menu]), [["direct", []]]);
    assert.equal(events.of("plan").length, 0);
    assert.equal(result.answer.text, "Hello.");
  });

  test("a plan of none answers without tools and without the menu", async () => {
    const model = scripted({ handles: [NONE_HANDLE], reason: "write a haiku" }, [], "Leaves fall.");
    const result = await new Planner({ model, tools: fixtureTools() }).run({ text: "Write a haiku", namespace: examples });
    assert.equal(result.plan.kind === "plan" && result.plan.expansion.tools.length, 0);
    const execute = model.requests[1] as GenerateRequest;
    assert.equal(execute.functions, undefined);
    assert.ok(!execute.systemPrompt.includes("Your skills:"));
    assert.equal(result.answer.text, "Leaves fall.");
  });
});

describe("the execution pass", () => {
  test("the chosen skills' bodies enter now, and call_tool lists exactly the bound tools' signatures", async () => {
    const model = scripted({ handles: ["search-info"], reason: "find it" });
    await new Planner({ model, tools: fixtureTools() }).run({ text: "What's my PAN number?", namespace: examples });
    const execute = model.requests[1] as GenerateRequest;
    assert.equal(execute.slot, "execute");
    assert.match(execute.systemPrompt, /FIRST use @check-notebook/);
    assert.match(execute.systemPrompt, /### @fetch-file: Fetch File \(used by the steps above\)/);
    assert.equal(execute.functions?.length, 1);
    const description = callToolOf(model).description;
    const listed = description.split("\n").flatMap((line) => /^- (.*?\)): /.exec(line)?.[1] ?? []);
    const bound = examples.expand(["search-info"]).tools;
    assert.deepEqual(listed, bound.map(toolSignature));
    assert.ok(!description.includes("queryCalendar"));
  });

  test("a call to a tool that is not bound is refused, and the refusal is the function result", async () => {
    const events = recorder();
    const model = scripted({ handles: ["search-info"], reason: "x" }, [{ name: "queryCalendar", args: { start: "2026-12-01", end: "2026-12-02" } }]);
    const calls: string[] = [];
    const spy: ToolRunner = { run: (tool, args, signal) => (calls.push(tool.name), fixtureTools().run(tool, args, signal)) };
    const result = await new Planner({ model, tools: spy }).run({ text: "calendar?", namespace: examples, onEvent: events.onEvent });
    assert.deepEqual(calls, []);
    const [record] = result.answer.toolCalls;
    assert.equal(record?.bound, false);
    assert.deepEqual(events.of("toolResult").map((event) => [event.name, event.ok, event.refused]), [["queryCalendar", false, true]]);
    const refusal = await callToolOf(model).handler({ name: "queryCalendar", args: {} });
    assert.deepEqual(refusal, { error: '"queryCalendar" is not bound for this plan, so it was not called. The bound tools are: check_notebook, list_devices, find_file, grep_memory.' });
  });

  test("a bound tool runs (by name, or by its @slug) and its result goes back to the model", async () => {
    const events = recorder();
    const model = scripted({ handles: ["search-info"], reason: "x" }, [{ name: "check_notebook", args: { query: "PAN number" } }, { name: "@list-devices", args: {} }]);
    const result = await new Planner({ model, tools: fixtureTools() }).run({ text: "PAN?", namespace: examples, onEvent: events.onEvent });
    assert.deepEqual(result.answer.toolCalls.map((call) => [call.name, call.bound, call.outcome.ok]), [["check_notebook", true, true], ["@list-devices", true, true]]);
    assert.deepEqual(events.of("toolCall").map((event) => [event.id, event.name, event.args]), [[1, "check_notebook", { query: "PAN number" }], [2, "@list-devices", {}]]);
    const types = events.events.map((event) => event.type).filter((type) => type !== "text");
    assert.deepEqual(types, ["model", "systemPrompt", "plan", "bound", "executionPrompt", "toolCall", "toolResult", "toolCall", "toolResult", "answer", "done"]);
  });

  test("a tool that throws is reported to the model and to the events", async () => {
    const throwing: ToolRunner = { run: () => Promise.reject(new Error("disk on fire")) };
    const events = recorder();
    const model = scripted({ handles: ["search-info"], reason: "x" }, [{ name: "grep_memory", args: { pattern: "PAN" } }]);
    const result = await new Planner({ model, tools: throwing }).run({ text: "PAN?", namespace: examples, onEvent: events.onEvent });
    assert.equal(result.answer.toolCalls[0]?.outcome.ok, false);
    assert.deepEqual(events.of("toolResult").map((event) => event.error), ["grep_memory threw: disk on fire"]);
    assert.deepEqual(await callToolOf(model).handler({ name: "grep_memory", args: { pattern: "x" } }), { error: "grep_memory threw: disk on fire" });
  });

  test("invalid arguments come back as a result the model can correct", async () => {
    const model = scripted({ handles: ["search-info"], reason: "x" });
    await new Planner({ model, tools: fixtureTools() }).run({ text: "PAN?", namespace: examples });
    assert.deepEqual(await callToolOf(model).handler({ name: "find_file", args: { where: "home" } }), { error: 'find_file needs the argument "description" (description: string, device?: string).' });
  });

  test("past the call limit calls are refused and generation is stopped", async () => {
    const model = new FakeModel(async (request) => {
      if (request.slot === "plan") return JSON.stringify({ handles: ["search-info"], reason: "x" });
      for (let i = 0; i < 10; i++) {
        await request.functions?.[0]?.handler({ name: "list_devices", args: {} });
        if (request.signal?.aborted) throw new DOMException("stopped", "AbortError");
      }
      return "never";
    });
    const result = await new Planner({ model, tools: fixtureTools(), maxToolCalls: 2 }).run({ text: "loop", namespace: examples });
    assert.deepEqual(result.answer.toolCalls.map((call) => call.bound), [true, true, false, false, false]);
    assert.match(result.answer.text, /more than 2 tool calls/);
  });

  test("planFromHandles builds the plan a model would, and refuses a handle off the menu", () => {
    const plan = planFromHandles(examples, ["check-schedule"], "look at the calendar");
    assert.deepEqual(plan.kind === "plan" && plan.expansion.tools.map((tool) => tool.name), ["current_date", "queryCalendar"]);
    assert.throws(() => planFromHandles(examples, ["resolve-dates"]), /not on the menu/);
  });
});

describe("cancellation", () => {
  test("an aborted signal rejects with an AbortError and reports cancelled", async () => {
    const controller = new AbortController();
    const model = new FakeModel((request) => {
      controller.abort();
      throw request.signal?.reason instanceof Error ? request.signal.reason : new DOMException("stop", "AbortError");
    });
    const events = recorder();
    await assert.rejects(new Planner({ model, tools: fixtureTools() }).run({ text: "x", namespace: examples, signal: controller.signal, onEvent: events.onEvent }), (error) => isAbortError(error));
    assert.deepEqual(events.events.slice(-2).map((event) => event.type), ["cancelled", "done"]);
  });
});
