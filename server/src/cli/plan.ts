import * as path from "node:path";
import { groupedDigits } from "../../../shared/words.js";
import { isAbortError, LlamaPlannerModel, Planner, type PlannerEvent } from "../planner/index.js";
import { createWorkspaceTools } from "../tools/index.js";
import { gpuOption, loadNamespace, parseArgs, positiveNumber, UsageError, type CliIo, type Verb } from "./common.js";

const PLAN_USAGE = `plan "request" --model M [--folder F]… [options]
                               Plan and answer a request with a local model, printing each step.
    --model M                  A .gguf file, or an hf: URI downloaded once (hf:<user>/<repo>:<quant>).
    --folder F                 A workspace folder: its skills, and one of the user's devices for the
                               tools (repeatable; default the current folder).
    --threads N                CPU threads (default: all cores).
    --context N                Context size in tokens (default 4096).
    --gpu auto|off             Use a GPU when there is one (default auto).
    --max-tokens N             Tokens for the answer (default 1024).
    --notebook FILE, --memory FILE, --calendar GLOB
                               Where the tools look (default notebook.md, memory.log, **/*.ics).
    --json                     Print each event as one line of JSON instead.`;

interface PlanOptions {
  readonly request: string;
  readonly model: string;
  readonly folders: readonly string[];
  readonly threads: number | undefined;
  readonly contextSize: number | undefined;
  readonly gpu: "auto" | false;
  readonly maxTokens: number | undefined;
  readonly notebookFile: string | undefined;
  readonly memoryFile: string | undefined;
  readonly calendarGlob: string | undefined;
  readonly json: boolean;
}

function parsePlanArgs(args: readonly string[]): PlanOptions {
  const { positional, folders, values, flags } = parseArgs(args, {
    valued: ["--model", "--threads", "--context", "--gpu", "--max-tokens", "--notebook", "--memory", "--calendar"],
    flags: ["--json"],
  });
  const request = positional.join(" ").trim();
  if (request === "") throw new UsageError('plan needs a request, in quotes: plan "What\'s my PAN number?" --model model.gguf');
  const model = values.get("--model");
  if (!model) throw new UsageError("plan needs --model: a .gguf file or an hf: URI.");
  return {
    request,
    model,
    folders,
    threads: positiveNumber("--threads", values.get("--threads")),
    contextSize: positiveNumber("--context", values.get("--context")),
    gpu: gpuOption(values.get("--gpu")),
    maxTokens: positiveNumber("--max-tokens", values.get("--max-tokens")),
    notebookFile: values.get("--notebook"),
    memoryFile: values.get("--memory"),
    calendarGlob: values.get("--calendar"),
    json: flags.has("--json"),
  };
}

const clip = (text: string, max = 240): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const ms = (n: number): string => (n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`);

/** One event as a human reads it; answer text streams as it comes. */
function describe(event: PlannerEvent, io: CliIo, state: { streaming: boolean }): void {
  const line = (label: string, text: string) => {
    if (state.streaming) io.write("\n");
    state.streaming = false;
    io.write(`${label.padEnd(10)}${text}\n`);
  };
  switch (event.type) {
    case "model":
      if (event.stage === "download") {
        const percent = event.totalBytes > 0 ? Math.floor((100 * event.downloadedBytes) / event.totalBytes) : 0;
        line("download", `${event.uri} ${percent}% of ${(event.totalBytes / 1e6).toFixed(0)} MB`);
      } else if (event.stage === "load") line("model", `loading ${event.path}`);
      else line("model", `ready (${event.info.device}, ${event.info.threads} thread${event.info.threads === 1 ? "" : "s"}, context ${event.info.contextSize}; load ${ms(event.info.loadMs)})${event.info.contextClamped ? `; the context asked for, ${event.info.contextClamped.requested}, is larger than the ${event.info.contextClamped.trained} tokens the model was trained on, so ${event.info.contextClamped.trained} is used` : ""}`);
      return;
    case "systemPrompt":
      line("prompt", `${event.label}, ${groupedDigits(event.characters)} characters; ${event.path === "plan" ? `planning over ${event.menu.map((handle) => `@${handle}`).join(" ")}` : "no skill on the menu: direct path"}`);
      return;
    case "text":
      if (event.phase === "answer") {
        // Whitespace before a tool call is not worth an answer line of its own.
        if (!state.streaming && event.text.trim() === "") return;
        if (!state.streaming) io.write(`${"answer".padEnd(10)}`);
        state.streaming = true;
        io.write(event.text);
      }
      return;
    case "plan":
      line("plan", `${event.text}  (${ms(event.ms)}, ${event.evaluatedInputTokens} prompt tokens evaluated)`);
      return;
    case "bound":
      line("bound", event.tools.length > 0 ? event.tools.map((tool) => tool.name).join(", ") : "no tool");
      return;
    case "executionPrompt":
      line("steps", `${event.tokens} tokens with the chosen skills' steps`);
      return;
    case "toolCall":
      line(`call #${event.id}`, `${event.name} ${clip(JSON.stringify(event.args) ?? "{}")}`);
      return;
    case "toolResult":
      line(`result #${event.id}`, `${event.ok ? clip(JSON.stringify(event.result) ?? "null") : `${event.refused ? "refused: " : "error: "}${event.error ?? ""}`}  (${ms(event.ms)})`);
      return;
    case "answer":
      if (!state.streaming && event.text !== "") line("answer", event.text);
      line("", `${event.outputTokens} tokens in ${ms(event.ms)}, ${event.toolCalls} tool call${event.toolCalls === 1 ? "" : "s"}, stopped: ${event.stopReason}`);
      return;
    case "error":
      // A failure goes to standard error, so `plan … > answer.txt` still shows it.
      if (state.streaming) io.write("\n");
      state.streaming = false;
      io.err(`${"error".padEnd(10)}${event.message}`);
      return;
    case "cancelled":
      line("cancelled", "");
      return;
    case "done":
      return;
  }
}

/**
 * The `plan` verb: plans and answers one request with a local model over the folders, printing the events as
 * they stream. Answers the exit code: 0 done, 1 the model or the plan failed, 2 usage, 130 interrupted.
 */
async function runPlan(args: readonly string[], io: CliIo): Promise<number> {
  const options = parsePlanArgs(args);
  const namespace = await loadNamespace(options.folders, { builtins: true });
  const folders = options.folders.map((folder) => path.resolve(folder));
  const model = new LlamaPlannerModel({ model: options.model, threads: options.threads, contextSize: options.contextSize, gpu: options.gpu, idleUnloadMs: 0 });
  const tools = createWorkspaceTools({ folders, notebookFile: options.notebookFile, memoryFile: options.memoryFile, calendarGlob: options.calendarGlob });
  const planner = new Planner({ model, tools, maxAnswerTokens: options.maxTokens });
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.once("SIGINT", interrupt);
  const state = { streaming: false };
  try {
    await planner.run({
      text: options.request,
      namespace,
      signal: controller.signal,
      onEvent: (event) => (options.json ? io.write(`${JSON.stringify(event)}\n`) : describe(event, io, state)),
    });
    return 0;
  } catch (error) {
    // The planner has already reported the failure as an event.
    return isAbortError(error) ? 130 : 1;
  } finally {
    process.off("SIGINT", interrupt);
    await model.dispose();
  }
}

export const planVerb: Verb = { name: "plan", usage: PLAN_USAGE, run: runPlan };
