// The planner on the real node-llama-cpp, with tiny models generated into a temp folder (one thread each).
import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { after, before, describe, test } from "node:test";
import { composeSystemPrompt, type Namespace } from "../../server/src/core/index.js";
import { LlamaPlannerModel, llamaBinding, type LlamaModelSettings } from "../../server/src/planner/llamaModel.js";
import { isAbortError, ModelError } from "../../server/src/planner/model.js";
import { runCli } from "../../server/src/cli/index.js";
import { Planner, planFromHandles } from "../../server/src/planner/planner.js";
import { functionCallScript, writeScriptedModel, writeTinyModel } from "../fixtures/model/gguf.js";
import { examplesNamespace, fixtureTools, namespaceOf, recorder, tempDir } from "./helpers.js";
import { groupedDigits } from "../../shared/words.js";

const SEARCH_INFO_TOOLS = ["check_notebook", "list_devices", "find_file", "grep_memory"];
/** Function calling adds several hundred prompt tokens, and the tiny tokenizer is close to one byte a token. */
const CONTEXT_LENGTH = 8192;

let dir = "";
let cleanup = async (): Promise<void> => undefined;
let examples: Namespace;
const models: LlamaPlannerModel[] = [];
const paths = { random: "", router: "", caller: "" };

function model(modelPath: string, settings: Partial<LlamaModelSettings> = {}): LlamaPlannerModel {
  const created = new LlamaPlannerModel({ model: modelPath, threads: 1, gpu: false, contextSize: 4096, idleUnloadMs: 0, ...settings });
  models.push(created);
  return created;
}

before(async () => {
  ({ dir, cleanup } = await tempDir("planner-llama-"));
  examples = await examplesNamespace();
  paths.random = path.join(dir, "random.gguf");
  paths.router = path.join(dir, "router.gguf");
  paths.caller = path.join(dir, "caller.gguf");
  await writeTinyModel(paths.random, { seed: 3, contextLength: CONTEXT_LENGTH });
  await writeScriptedModel(paths.router, '{"handles":["search-info"],"reason":"find their PAN number"}', { contextLength: CONTEXT_LENGTH });
  await writeScriptedModel(paths.caller, functionCallScript("call_tool", { name: "queryCalendar", args: { start: "2026-12-01", end: "2026-12-02" } }), {
    afterResult: "That tool is not mine to use.",
    contextLength: CONTEXT_LENGTH,
  });
});

after(async () => {
  for (const created of models) await created.dispose();
  await cleanup();
});

describe("tokens", () => {
  test("counts come from the model's tokenizer: the same as tokenize(), not characters / 4", async () => {
    const planner = model(paths.random);
    const text = composeSystemPrompt(examples).text;
    const counted = await planner.countTokens(text);
    const llama = await llamaBinding({ gpu: false, threads: 1 });
    const independent = await llama.loadModel({ modelPath: paths.random });
    try {
      assert.equal(counted, independent.tokenize(text).length);
      assert.notEqual(counted, Math.ceil(text.length / 4));
      assert.equal(planner.tokenCounter()?.("Hello @search-info"), independent.tokenize("Hello @search-info").length);
    } finally {
      await independent.dispose();
    }
    const events = recorder();
    await new Planner({ model: model(paths.router), tools: fixtureTools() }).plan({ text: "PAN?", namespace: examples, onEvent: events.onEvent });
    assert.equal(events.of("systemPrompt")[0]?.tokens, counted);
    assert.equal(events.of("systemPrompt")[0]?.label, `${groupedDigits(counted)} tokens`);
  });
});

describe("planning on a real model", () => {
  test("random weights under the grammar: every plan parses and names only menu handles", async () => {
    const menu = new Set(composeSystemPrompt(examples).entries.map((entry) => entry.handle));
    const requests = ["What's my PAN number?", "Am I free this weekend?", "Write a haiku", "Prepare me for my 3pm meeting", "Look again"];
    let plans = 0;
    for (const seed of [1, 2, 3]) {
      const random = path.join(dir, `random-${seed}.gguf`);
      await writeTinyModel(random, { seed, contextLength: CONTEXT_LENGTH });
      const planner = new Planner({ model: model(random, { temperature: 0.9, seed: seed * 100 }), tools: fixtureTools() });
      for (const text of requests) {
        const plan = await planner.plan({ text, namespace: examples });
        assert.equal(plan.kind, "plan");
        if (plan.kind !== "plan") continue;
        for (const handle of plan.handles) assert.ok(menu.has(handle), `@${handle} is on the menu`);
        assert.deepEqual(plan.expansion.unresolved, []);
        plans++;
      }
    }
    assert.equal(plans, 15);
  });

  test("a model that always plans @search-info binds exactly check_notebook, list_devices, find_file, grep_memory", async () => {
    const events = recorder();
    const plan = await new Planner({ model: model(paths.router), tools: fixtureTools() }).plan({ text: "What's my PAN number?", namespace: examples, onEvent: events.onEvent });
    // It scores every menu entry alike, and a tie goes to the first entry.
    assert.equal(plan.kind === "plan" && plan.text, "I'll use @search-info.");
    assert.deepEqual(plan.kind === "plan" && plan.expansion.tools.map((tool) => tool.name), SEARCH_INFO_TOOLS);
    assert.deepEqual(events.of("bound")[0]?.tools.map((tool) => tool.name), SEARCH_INFO_TOOLS);
  });

  test("each menu entry's prefix is evaluated once: later requests evaluate only the request after each", async () => {
    const evaluated = async (reusePrefix: boolean) => {
      const planner = new Planner({ model: model(paths.router, { reusePrefix }), tools: fixtureTools() });
      const counts: number[] = [];
      for (const text of ["What's my PAN number?", "Find my passport scan", "Where is my tax letter?"]) {
        const events = recorder();
        await planner.plan({ text, namespace: examples, onEvent: events.onEvent });
        counts.push(events.of("plan")[0]?.evaluatedInputTokens ?? -1);
      }
      return counts;
    };
    const [first = 0, ...later] = await evaluated(true);
    assert.ok(first > 900, `the first request evaluates the whole prompt (${first})`);
    for (const count of later) assert.ok(count < first / 3, `a later request evaluates ${count} tokens`);
    for (const count of await evaluated(false)) assert.ok(count > 900, `without reuse every request evaluates the whole prompt (${count})`);
  });

  test("an empty menu takes the direct path", async () => {
    const namespace = namespaceOf({ "/ws/skills.json": JSON.stringify({ alignment: { menu: [] } }), "/ws/lonely.skill.md": "---\nsummary: Unselected.\n---\nUse @current-date.\n" });
    const events = recorder();
    const result = await new Planner({ model: model(paths.random), tools: fixtureTools(), maxAnswerTokens: 24 }).run({ text: "Hello", namespace, onEvent: events.onEvent });
    assert.equal(result.plan.kind, "direct");
    assert.deepEqual(events.of("systemPrompt").map((event) => event.path), ["direct"]);
    assert.equal(events.of("plan").length + events.of("bound").length + events.of("toolCall").length, 0);
    assert.equal(events.of("answer")[0]?.outputTokens, 24);
  });
});

describe("executing on a real model", () => {
  test("a scripted call to a tool the plan did not bind is refused, and the model reads the refusal", async () => {
    const events = recorder();
    const plan = planFromHandles(examples, ["search-info"], "find it");
    const answer = await new Planner({ model: model(paths.caller), tools: fixtureTools() }).execute(plan, { text: "What's on my calendar?", namespace: examples, onEvent: events.onEvent });
    assert.deepEqual(events.of("toolCall").map((event) => [event.name, event.args]), [["queryCalendar", { start: "2026-12-01", end: "2026-12-02" }]]);
    const [result] = events.of("toolResult");
    assert.equal(result?.refused, true);
    assert.match(result?.error ?? "", /not bound for this plan.*check_notebook, list_devices, find_file, grep_memory/);
    assert.equal(answer.toolCalls[0]?.bound, false);
    assert.equal(answer.text, "That tool is not mine to use.");
    const streamed = events.of("text").filter((event) => event.phase === "answer").map((event) => event.text).join("");
    assert.equal(streamed, "That tool is not mine to use.", "the call syntax is not streamed as answer text");
  });

  test("the same call under a plan that binds it runs the tool over the workspace", async () => {
    const events = recorder();
    const plan = planFromHandles(examples, ["check-schedule"], "look at the calendar");
    await new Planner({ model: model(paths.caller), tools: fixtureTools() }).execute(plan, { text: "What's on?", namespace: examples, onEvent: events.onEvent });
    const [result] = events.of("toolResult");
    assert.equal(result?.ok, true);
    assert.deepEqual((result?.result as { range: unknown }).range, { start: "2026-12-01", end: "2026-12-02" });
  });
});

describe("cancellation", () => {
  const empty = () => namespaceOf({ "/ws/skills.json": "{}" });

  test("aborting after the first tokens stops generation at once, and the next request works", async () => {
    const shared = model(paths.random);
    const planner = new Planner({ model: shared, tools: fixtureTools(), maxAnswerTokens: 3000 });
    const controller = new AbortController();
    const events = recorder();
    let abortedAt = 0;
    const run = planner.run({
      text: "Tell me a very long story",
      namespace: empty(),
      signal: controller.signal,
      onEvent: (event) => {
        events.onEvent(event);
        if (event.type === "text" && abortedAt === 0) {
          abortedAt = performance.now();
          controller.abort();
        }
      },
    });
    await assert.rejects(run, (error) => isAbortError(error));
    const stoppedAfter = performance.now() - abortedAt;
    // Generous for a busy machine: an unstopped run would take seconds more and thousands of tokens.
    assert.ok(stoppedAfter < 3000, `stopped ${stoppedAfter.toFixed(0)} ms after the abort`);
    assert.ok(events.of("text").length < 50, `${events.of("text").length} chunks before stopping`);
    assert.deepEqual(events.events.slice(-2).map((event) => event.type), ["cancelled", "done"]);

    const next = await new Planner({ model: shared, tools: fixtureTools(), maxAnswerTokens: 16 }).run({ text: "Again", namespace: empty() });
    assert.equal(next.answer.outputTokens, 16);
  });

  test("a request cancelled while it waits for the model never starts", async () => {
    const shared = model(paths.random);
    const busy = shared.generate({ slot: "execute", systemPrompt: "x", messages: [{ role: "user", text: "story" }], maxTokens: 200 });
    const controller = new AbortController();
    const waiting = shared.generate({ slot: "execute", systemPrompt: "x", messages: [{ role: "user", text: "never" }], maxTokens: 200, signal: controller.signal, onText: () => assert.fail("must not start") });
    controller.abort();
    await assert.rejects(waiting, (error) => isAbortError(error));
    assert.equal((await busy).outputTokens, 200);
  });
});

describe("model files", () => {
  const expectError = async (modelPath: string, code: string, message: RegExp) => {
    const broken = model(modelPath);
    const events = recorder();
    const failure = await new Planner({ model: broken, tools: fixtureTools() }).run({ text: "PAN?", namespace: examples, onEvent: events.onEvent }).then(
      () => assert.fail("expected a ModelError"),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof ModelError, String(failure));
    assert.equal(failure.code, code);
    assert.match(failure.message, message);
    assert.ok(failure.message.includes(modelPath), "the message names the file");
    assert.deepEqual(events.of("error").map((event) => event.code), [code]);
    assert.equal(broken.loaded, false);
  };

  test("a missing path, a folder, a file that is no model: each says which file, what is wrong, what to do", async () => {
    await expectError(path.join(dir, "nowhere.gguf"), "missing", /Model file not found: .*hf: URI/);
    await mkdir(path.join(dir, "folder.gguf"));
    await expectError(path.join(dir, "folder.gguf"), "not-a-file", /is a folder, not a model file/);
    await writeFile(path.join(dir, "notes.gguf"), "these are my notes, not weights\n");
    await expectError(path.join(dir, "notes.gguf"), "corrupt", /not a GGUF model file: it is text, starting "these are my notes, not weights"/);
  });

  test("a corrupt header and a truncated file are caught before llama.cpp sees them", async () => {
    const bytes = await readFile(paths.random);
    const corrupt = Buffer.from(bytes);
    for (let i = 100; i < 400; i++) corrupt[i] = (i * 37) & 0xff;
    await writeFile(path.join(dir, "corrupt.gguf"), corrupt);
    await expectError(path.join(dir, "corrupt.gguf"), "corrupt", /is damaged: its GGUF header cannot be read/);
    await writeFile(path.join(dir, "half.gguf"), bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expectError(path.join(dir, "half.gguf"), "truncated", /is incomplete: it holds [\d,]+ bytes but its tensors need at least [\d,]+/);
    await writeFile(path.join(dir, "short.gguf"), bytes.subarray(0, bytes.length - 64));
    await expectError(path.join(dir, "short.gguf"), "truncated", /download it again/);
  });

  test("after a failed load the model is tried again: a fixed file then works", async () => {
    const later = path.join(dir, "later.gguf");
    const planner = model(later);
    await assert.rejects(planner.prepare(), (error) => error instanceof ModelError && error.code === "missing");
    await writeTinyModel(later, { seed: 9, contextLength: CONTEXT_LENGTH });
    assert.equal((await planner.prepare()).path, later);
  });

  test("an idle model is unloaded, and loads again on the next request", async () => {
    const idle = model(paths.random, { idleUnloadMs: 50 });
    await idle.countTokens("hello");
    assert.equal(idle.loaded, true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(idle.loaded, false);
    assert.ok((await idle.countTokens("hello again")) > 0);
  });
});

describe("command line", () => {
  const capture = () => {
    const output: string[] = [];
    const errors: string[] = [];
    return { output, errors, io: { write: (text: string) => void output.push(text), out: (line: string) => void output.push(`${line}\n`), err: (line: string) => void errors.push(line), writeBytes: (bytes: Uint8Array) => void output.push(new TextDecoder().decode(bytes)) } };
  };
  const examplesFolder = path.join(__dirname, "../../examples");

  test("plan prints the steps as they stream, then the answer", async () => {
    const { output, io } = capture();
    const code = await runCli(["plan", "What's my PAN number?", "--model", paths.router, "--folder", examplesFolder, "--gpu", "off", "--threads", "1", "--max-tokens", "8"], io);
    const text = output.join("");
    assert.equal(code, 0, text);
    assert.match(text, /^prompt {4}[\d,]+ tokens, [\d,]+ characters; planning over @search-info /m);
    assert.match(text, /^plan {6}I'll use @search-info\./m);
    assert.match(text, /^bound {5}check_notebook, list_devices, find_file, grep_memory$/m);
    assert.match(text, /^ {10}8 tokens in .*stopped: maxTokens$/m);
  });

  test("a missing model exits 1 with the clear message; a usage mistake exits 2", async () => {
    const missing = capture();
    assert.equal(await runCli(["plan", "hi", "--model", path.join(dir, "absent.gguf"), "--folder", examplesFolder, "--gpu", "off", "--threads", "1"], missing.io), 1);
    assert.match(missing.errors.join("\n"), /^error {5}Model file not found: /m);
    assert.doesNotMatch(missing.output.join(""), /Model file not found/);
    const usage = capture();
    assert.equal(await runCli(["plan", "--model", paths.router], usage.io), 2);
    assert.match(usage.errors.join("\n"), /^skill-lsp plan: needs a request/);
  });
});
