/**
 * How often the executor really calls queryCalendar on a real model: calendar questions over the fixture
 * workspace (an .ics file), each with the plan @check-schedule, counting runs with a queryCalendar call whose
 * dates parse and do not come before current_date's day.
 *
 *     node --import tsx eval/executor.ts [--model smollm2|gemma3-270m|file.gguf] [--threads 2]
 */
import * as path from "node:path";
import { Namespace } from "../server/src/core/index.js";
import { loadFolders } from "../server/src/node/workspaceFiles.js";
import { LlamaPlannerModel } from "../server/src/planner/llamaModel.js";
import { cachedModelPath, MODEL_CATALOG } from "../server/src/planner/modelCatalog.js";
import { Planner, planFromHandles } from "../server/src/planner/planner.js";
import { createWorkspaceTools } from "../server/src/tools/index.js";

const ROOT = path.resolve(__dirname, "..");
const DATA = [path.join(ROOT, "test/fixtures/workspace-data/home"), path.join(ROOT, "test/fixtures/workspace-data/laptop")];
const QUESTIONS = ["What's on my calendar tomorrow?", "Do I have anything on Friday?", "What meetings do I have this week?", "Am I free on Saturday afternoon?", "When is my next appointment?"];
const TODAY = new Date(2026, 11, 2, 10, 0);

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const id = args[args.indexOf("--model") + 1] && args.includes("--model") ? (args[args.indexOf("--model") + 1] as string) : "smollm2";
  const threads = args.includes("--threads") ? Number(args[args.indexOf("--threads") + 1]) : 2;
  const known = MODEL_CATALOG.find((model) => model.id === id);
  const file = known ? cachedModelPath(known) : id;
  const namespace = new Namespace();
  await loadFolders(namespace, [path.join(ROOT, "examples")]);
  const model = new LlamaPlannerModel({ model: file, threads, gpu: false, idleUnloadMs: 0 });
  const planner = new Planner({ model, tools: createWorkspaceTools({ folders: DATA, now: () => TODAY }), maxAnswerTokens: 256 });
  let calls = 0;
  let sensible = 0;
  try {
    for (const text of QUESTIONS) {
      const answer = await planner.execute(planFromHandles(namespace, ["check-schedule"]), { text, namespace });
      const calendar = answer.toolCalls.filter((call) => call.name === "queryCalendar");
      const ok = calendar.some((call) => {
        const { start, end } = (call.args ?? {}) as { start?: unknown; end?: unknown };
        return typeof start === "string" && typeof end === "string" && /^\d{4}-\d{2}-\d{2}$/.test(start) && start >= "2026-12-02" && end >= start;
      });
      if (calendar.length > 0) calls++;
      if (ok) sensible++;
      console.log(`${JSON.stringify(text)}: ${answer.toolCalls.map((call) => `${call.name}(${JSON.stringify(call.args)})`).join(", ") || "no tool call"}; stopped: ${answer.stopReason}`);
    }
  } finally {
    await model.dispose();
  }
  console.log(`${id}: queryCalendar called in ${calls}/${QUESTIONS.length} runs, with sensible dates in ${sensible}/${QUESTIONS.length}`);
}

main().catch((error: unknown) => {
  console.error(`executor eval: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
