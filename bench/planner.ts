/**
 * The planner's figures on node-llama-cpp: load, token count, a plan with the system prompt's evaluated state
 * reused and without, generation speed, and an execution round trip with one tool call.
 *
 *     node --import tsx bench/planner.ts [--model model.gguf] [--threads N] [--runs N] [--folder examples]
 *
 * Without --model it writes tiny generated models (test/fixtures/model/gguf.ts) to a temp folder: the figures
 * then show the planner's overhead and the ratio reuse buys, not a real model's speed.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { composeSystemPrompt, Namespace } from "../server/src/core/index.js";
import { loadFolders } from "../server/src/node/workspaceFiles.js";
import { LlamaPlannerModel } from "../server/src/planner/llamaModel.js";
import { Planner, planFromHandles } from "../server/src/planner/planner.js";
import { createWorkspaceTools } from "../server/src/tools/index.js";
import { functionCallScript, writeScriptedModel, writeTinyModel } from "../test/fixtures/model/gguf.js";

const REQUESTS = [
  "What's my PAN number?",
  "Am I free this weekend?",
  "Prepare me for my 3pm meeting",
  "Help me triage my inbox",
  "Plan a weekend trip to Lisbon",
  "What day is it today?",
  "Write a haiku about autumn",
  "Remind me what I promised Sam",
];

interface Args {
  readonly model: string | undefined;
  readonly threads: number;
  readonly runs: number;
  readonly folder: string;
}

function parseArgs(args: readonly string[]): Args {
  let model: string | undefined;
  let threads = availableParallelism();
  let runs = 6;
  let folder = "examples";
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = args[++i] ?? "";
    if (arg === "--model") model = value;
    else if (arg === "--threads") threads = Number(value);
    else if (arg === "--runs") runs = Number(value);
    else if (arg === "--folder") folder = value;
    else throw new Error(`Unknown argument ${arg}`);
  }
  return { model, threads, runs: Math.max(2, Math.min(runs, REQUESTS.length)), folder };
}

const ms = (n: number): string => `${n.toFixed(1)} ms`;
const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
const row = (label: string, value: string): void => console.log(`${label.padEnd(44)}${value}`);

interface PlanFigures {
  /** Whole plan: prompt evaluation and generation. */
  readonly ms: number[];
  /** Until the first token of the plan: mostly prompt evaluation. */
  readonly firstToken: number[];
  readonly evaluated: number[];
}

async function planTimes(modelPath: string, threads: number, namespace: Namespace, runs: number, reusePrefix: boolean): Promise<PlanFigures> {
  const model = new LlamaPlannerModel({ model: modelPath, threads, contextSize: 4096, idleUnloadMs: 0, reusePrefix });
  const planner = new Planner({ model, tools: createWorkspaceTools({ folders: [] }), maxPlanTokens: 512 });
  try {
    await model.prepare();
    const times: number[] = [];
    const firstToken: number[] = [];
    const evaluated: number[] = [];
    for (const text of REQUESTS.slice(0, runs)) {
      const started = performance.now();
      let first = 0;
      await planner.plan({
        text,
        namespace,
        onEvent: (event) => {
          if (event.type === "text" && first === 0) {
            first = performance.now() - started;
            firstToken.push(first);
          }
          if (event.type === "plan") {
            times.push(event.ms);
            evaluated.push(event.evaluatedInputTokens);
          }
        },
      });
    }
    return { ms: times, firstToken, evaluated };
  } finally {
    await model.dispose();
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const dir = await mkdtemp(path.join(tmpdir(), "planner-bench-"));
  try {
    const namespace = new Namespace();
    await loadFolders(namespace, [path.resolve(args.folder)]);
    const systemPrompt = composeSystemPrompt(namespace);
    let modelPath = args.model;
    // With generated models, plans come from a scripted one: its short, fixed output leaves prompt evaluation visible.
    let planModelPath = args.model;
    if (!modelPath || !planModelPath) {
      modelPath = path.join(dir, "random.gguf");
      await writeTinyModel(modelPath, { seed: 11, contextLength: 8192 });
      planModelPath = path.join(dir, "router.gguf");
      await writeScriptedModel(planModelPath, '{"handles":["search-info"],"reason":"find it"}', { contextLength: 8192 });
    }
    console.log(`planner bench: ${args.model ? modelPath : "tiny random model (generated)"}, ${args.threads} thread(s), ${args.runs} plans, folder ${args.folder}\n`);

    // The pipeline around the model: compose the menu, read a plan, expand it into the toolset to bind.
    const pipelineRuns = 500;
    planFromHandles(namespace, ["search-info"], "warm-up");
    const pipelineStarted = performance.now();
    for (let i = 0; i < pipelineRuns; i++) planFromHandles(namespace, ["search-info", "check-schedule"], "find it");
    row("pipeline without the model", `${((1000 * (performance.now() - pipelineStarted)) / pipelineRuns).toFixed(0)} µs per request (menu, plan parsed, expanded, toolset bound; mean of ${pipelineRuns})`);

    const started = performance.now();
    const model = new LlamaPlannerModel({ model: modelPath, threads: args.threads, contextSize: 4096, idleUnloadMs: 0 });
    const info = await model.prepare();
    row("first prepare (binding + load + context)", ms(performance.now() - started));
    const reload = performance.now();
    await model.unload();
    await model.prepare();
    row("prepare again after unload", ms(performance.now() - reload));

    const countStarted = performance.now();
    const tokens = await model.countTokens(systemPrompt.text);
    row("system prompt size", `${tokens} tokens by the tokenizer; ~${Math.ceil(systemPrompt.text.length / 4)} by characters / 4 (${ms(performance.now() - countStarted)})`);

    const generation: number[] = [];
    let first = 0;
    const result = await model.generate({
      slot: "execute",
      systemPrompt: "You are a storyteller.",
      messages: [{ role: "user", text: "Tell me a long story." }],
      maxTokens: 300,
      onText: () => {
        if (first === 0) first = performance.now();
        generation.push(performance.now());
      },
    });
    const decodeMs = (generation.at(-1) ?? first) - first;
    row("generation", `${result.outputTokens} tokens in ${ms(result.durationMs)}; ${decodeMs > 0 ? ((1000 * (result.outputTokens - 1)) / decodeMs).toFixed(0) : "?"} tok/s after the first`);
    await model.dispose();

    const reused = await planTimes(planModelPath, args.threads, namespace, args.runs, true);
    const fresh = await planTimes(planModelPath, args.threads, namespace, args.runs, false);
    const describe = (figures: PlanFigures, index: number | "later") => {
      const pick = (values: readonly number[]) => (index === "later" ? mean(values.slice(1)) : (values[index] ?? 0));
      return `${ms(pick(figures.ms))} (first token ${ms(pick(figures.firstToken))}), ${pick(figures.evaluated).toFixed(0)} prompt tokens evaluated`;
    };
    row("plan, first request", describe(reused, 0));
    row("plan, later requests, prefix reused", describe(reused, "later"));
    row("plan, later requests, prefix cleared", describe(fresh, "later"));
    row(
      "reuse speed-up (cleared / reused)",
      `${(mean(fresh.ms.slice(1)) / Math.max(0.001, mean(reused.ms.slice(1)))).toFixed(2)}x whole plan, ${(mean(fresh.firstToken.slice(1)) / Math.max(0.001, mean(reused.firstToken.slice(1)))).toFixed(2)}x to the first token`,
    );

    if (!args.model) {
      const caller = path.join(dir, "caller.gguf");
      await writeScriptedModel(caller, functionCallScript("call_tool", { name: "current_date", args: {} }), { afterResult: "It is Wednesday.", contextLength: 8192 });
      const callerModel = new LlamaPlannerModel({ model: caller, threads: args.threads, contextSize: 4096, idleUnloadMs: 0 });
      const planner = new Planner({ model: callerModel, tools: createWorkspaceTools({ folders: [], now: () => new Date(2026, 11, 2) }) });
      await callerModel.prepare();
      const plan = planFromHandles(namespace, ["check-schedule"], "look at the calendar");
      const rounds: number[] = [];
      for (let i = 0; i < 3; i++) {
        const t = performance.now();
        await planner.execute(plan, { text: "What's on today?", namespace });
        rounds.push(performance.now() - t);
      }
      row("execution with one call_tool round trip", `${ms(rounds[0] ?? 0)} first, ${ms(mean(rounds.slice(1)))} after`);
      await callerModel.dispose();
    }
    row("model", `${info.device}, context ${info.contextSize}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
