/**
 * How well a model plans over the `examples/` workspace: labelled requests (ones that should pick each skill,
 * near misses, and requests nothing on the menu fits), the model's plan for each, the accuracy of the chosen
 * handles and the precision and recall of the toolset they bind.
 *
 *     node --import tsx scripts/eval-planner.ts --model model.gguf [--folder examples] [--threads N] [--limit N] [--json]
 */
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { Namespace } from "../server/src/core/index.js";
import { loadFolders } from "../server/src/node/workspaceFiles.js";
import { LlamaPlannerModel, type LlamaModelSettings } from "../server/src/planner/llamaModel.js";
import type { PlannerModel } from "../server/src/planner/model.js";
import { Planner } from "../server/src/planner/planner.js";
import type { ToolRunner } from "../server/src/tools/types.js";

/** What a labelled request is testing. */
export type Category = "skill" | "tool" | "near-miss" | "nothing-fits";

/** A request and the handles a good plan names (none for "nothing fits"). */
export interface LabelledRequest {
  readonly text: string;
  readonly expected: readonly string[];
  /** Other plans that are just as right. */
  readonly alsoAccepted?: readonly (readonly string[])[];
  readonly category: Category;
  /** For a near miss: what it is near, and why the label is what it is. */
  readonly note?: string;
}

/** The labelled set over `examples/`: its menu is search-info, check-schedule, meeting-prep, triage-inbox, follow-up, plan-trip, retry-search and the tool current-date. */
export const LABELLED_REQUESTS: readonly LabelledRequest[] = [
  { text: "What's my PAN number?", expected: ["search-info"], category: "skill" },
  { text: "Find my passport scan", expected: ["search-info"], category: "skill" },
  { text: "What is my sister's address?", expected: ["search-info"], category: "skill" },
  { text: "What's my TAP frequent flyer number?", expected: ["search-info"], category: "skill" },
  { text: "Which blood group am I?", expected: ["search-info"], category: "skill" },
  { text: "What's on my calendar tomorrow?", expected: ["check-schedule"], category: "skill" },
  { text: "Am I free this weekend?", expected: ["check-schedule"], category: "skill" },
  { text: "When is my dentist appointment next week?", expected: ["check-schedule"], category: "skill" },
  { text: "Do I have any meetings on Friday afternoon?", expected: ["check-schedule"], category: "skill" },
  { text: "Prepare me for my 3pm meeting", expected: ["meeting-prep"], category: "skill" },
  { text: "What do I need for tomorrow's design review?", expected: ["meeting-prep"], category: "skill" },
  { text: "Get me ready for Monday's 1:1 with Sam", expected: ["meeting-prep"], category: "skill" },
  { text: "Help me triage my inbox", expected: ["triage-inbox"], category: "skill" },
  { text: "What needs my attention today?", expected: ["triage-inbox"], category: "skill" },
  { text: "Sort my unread messages and reminders into now, later and never", expected: ["triage-inbox"], category: "skill" },
  { text: "Remind me what I promised Sam", expected: ["follow-up"], category: "skill" },
  { text: "Which follow-ups are overdue?", expected: ["follow-up"], category: "skill" },
  { text: "Did I promise anyone something that is due this week?", expected: ["follow-up"], category: "skill" },
  { text: "Plan a weekend trip to Lisbon", expected: ["plan-trip"], category: "skill" },
  { text: "When could I fit in a trip next month?", expected: ["plan-trip"], category: "skill" },
  { text: "Help me plan a visit to my sister in Pune", expected: ["plan-trip"], category: "skill" },
  { text: "Look again, you missed it", expected: ["retry-search"], category: "skill" },
  { text: "Search harder for my tax letter", expected: ["retry-search"], alsoAccepted: [["search-info"]], category: "skill" },
  { text: "What day is it today?", expected: ["current-date"], category: "tool" },
  { text: "What's today's date?", expected: ["current-date"], category: "tool" },
  { text: "Is today a weekday or the weekend?", expected: ["current-date"], category: "tool" },
  { text: "Find the budget spreadsheet", expected: ["search-info"], category: "near-miss", note: "a file: @fetch-file is not on the menu, @search-info wraps it" },
  { text: "Which devices do I have?", expected: ["search-info"], category: "near-miss", note: "@list-devices is not advertised; reached through @search-info" },
  { text: "What's the date of my dentist appointment?", expected: ["check-schedule"], category: "near-miss", note: "says 'date' but asks the calendar, not today's date" },
  { text: "What did Sam and I discuss at the last design review?", expected: ["search-info"], alsoAccepted: [["meeting-prep"]], category: "near-miss", note: "past meeting: information, not preparation" },
  { text: "Draft a reply to Priya's message", expected: [], category: "near-miss", note: "@draft-reply exists but is disabled: nothing on the menu drafts" },
  { text: "Write a haiku about autumn", expected: [], category: "nothing-fits" },
  { text: "Translate 'good morning' into Portuguese", expected: [], category: "nothing-fits" },
  { text: "What is 17 times 23?", expected: [], category: "nothing-fits" },
  { text: "Tell me a joke about computers", expected: [], category: "nothing-fits" },
  { text: "Explain how a rainbow forms", expected: [], category: "nothing-fits" },
];

/** One request's outcome. */
export interface EvaluatedRequest {
  readonly request: LabelledRequest;
  readonly chosen: readonly string[];
  readonly correct: boolean;
  readonly expectedTools: readonly string[];
  readonly boundTools: readonly string[];
  readonly ms: number;
  readonly error?: string;
}

/** The figures of a run. */
export interface EvaluationReport {
  readonly results: readonly EvaluatedRequest[];
  /** Share of requests whose handles were right. */
  readonly accuracy: number;
  readonly accuracyByCategory: Readonly<Partial<Record<Category, number>>>;
  /** Of the tools bound, the share that the labelled plan binds too (micro-averaged). */
  readonly toolPrecision: number;
  /** Of the tools the labelled plan binds, the share that were bound. */
  readonly toolRecall: number;
  /** Share of requests whose bound toolset is exactly the labelled one. */
  readonly exactToolsets: number;
  readonly meanPlanMs: number;
}

/** Never called: the evaluation plans and does not execute. */
const noTools: ToolRunner = { run: () => Promise.resolve({ ok: false, kind: "refused", error: "The evaluation does not run tools." }) };

const sameSet = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((item) => b.includes(item));

/** Plans each request with the model and scores the plans. */
export async function evaluatePlanner(model: PlannerModel, namespace: Namespace, requests: readonly LabelledRequest[] = LABELLED_REQUESTS, onResult?: (result: EvaluatedRequest) => void): Promise<EvaluationReport> {
  const planner = new Planner({ model, tools: noTools });
  const toolsOf = (handles: readonly string[]) => namespace.expand(handles).tools.map((tool) => tool.name);
  const results: EvaluatedRequest[] = [];
  for (const request of requests) {
    const started = performance.now();
    let chosen: readonly string[] = [];
    let error: string | undefined;
    try {
      const plan = await planner.plan({ text: request.text, namespace });
      chosen = plan.kind === "plan" ? plan.handles : [];
    } catch (failure) {
      error = failure instanceof Error ? failure.message : String(failure);
    }
    const accepted = [request.expected, ...(request.alsoAccepted ?? [])];
    const result: EvaluatedRequest = {
      request,
      chosen,
      correct: error === undefined && accepted.some((handles) => sameSet(handles, chosen)),
      expectedTools: toolsOf(request.expected),
      boundTools: toolsOf(chosen),
      ms: performance.now() - started,
      ...(error === undefined ? {} : { error }),
    };
    results.push(result);
    onResult?.(result);
  }
  let bound = 0;
  let expected = 0;
  let both = 0;
  for (const result of results) {
    bound += result.boundTools.length;
    expected += result.expectedTools.length;
    both += result.boundTools.filter((tool) => result.expectedTools.includes(tool)).length;
  }
  const share = (part: number, whole: number) => (whole === 0 ? 1 : part / whole);
  const accuracyByCategory: Partial<Record<Category, number>> = {};
  for (const category of ["skill", "tool", "near-miss", "nothing-fits"] as const) {
    const inCategory = results.filter((result) => result.request.category === category);
    if (inCategory.length > 0) accuracyByCategory[category] = share(inCategory.filter((result) => result.correct).length, inCategory.length);
  }
  return {
    results,
    accuracy: share(results.filter((result) => result.correct).length, results.length),
    accuracyByCategory,
    toolPrecision: share(both, bound),
    toolRecall: share(both, expected),
    exactToolsets: share(results.filter((result) => sameSet(result.boundTools, result.expectedTools)).length, results.length),
    meanPlanMs: results.reduce((sum, result) => sum + result.ms, 0) / Math.max(1, results.length),
  };
}

const percent = (n: number): string => `${(100 * n).toFixed(1)}%`;
const handles = (list: readonly string[]): string => (list.length === 0 ? "none" : list.map((handle) => `@${handle}`).join(" "));

/** The report as lines for a terminal. */
export function formatReport(report: EvaluationReport): string[] {
  const lines = [
    "",
    `handles right      ${percent(report.accuracy)} of ${report.results.length} requests`,
    ...Object.entries(report.accuracyByCategory).map(([category, accuracy]) => `  ${category.padEnd(17)}${percent(accuracy)}`),
    `toolset precision  ${percent(report.toolPrecision)}`,
    `toolset recall     ${percent(report.toolRecall)}`,
    `exact toolsets     ${percent(report.exactToolsets)}`,
    `mean plan time     ${Math.round(report.meanPlanMs)} ms`,
  ];
  return lines;
}

/** One result as a line: ✓/✗, the request, what was expected, what was chosen. */
export function formatResult(result: EvaluatedRequest): string {
  const mark = result.correct ? "ok  " : "MISS";
  const detail = result.correct ? handles(result.chosen) : `expected ${handles(result.request.expected)}, chose ${handles(result.chosen)}${result.error ? ` (${result.error})` : ""}`;
  return `${mark} ${result.request.category.padEnd(12)} ${JSON.stringify(result.request.text).padEnd(62)} ${detail}  ${Math.round(result.ms)} ms`;
}

/** Options of {@link runEvaluation}. */
export interface EvaluationOptions extends Omit<LlamaModelSettings, "model"> {
  readonly model: string;
  readonly folders: readonly string[];
  /** Only the first N requests (a smoke run). */
  readonly limit?: number;
  readonly out?: (line: string) => void;
}

/** Loads the folders' skills and the model, evaluates, prints each result and the figures, and answers the report. */
export async function runEvaluation(options: EvaluationOptions): Promise<EvaluationReport> {
  const out = options.out ?? ((line: string) => console.log(line));
  const namespace = new Namespace();
  await loadFolders(namespace, options.folders.map((folder) => path.resolve(folder)));
  const { folders: _folders, limit, out: _out, ...settings } = options;
  const model = new LlamaPlannerModel({ idleUnloadMs: 0, ...settings });
  try {
    const info = await model.prepare();
    out(`model ${info.path} (${info.device}, ${info.threads} threads, context ${info.contextSize}), folders ${options.folders.join(", ")}`);
    const requests = limit === undefined ? LABELLED_REQUESTS : LABELLED_REQUESTS.slice(0, limit);
    const report = await evaluatePlanner(model, namespace, requests, (result) => out(formatResult(result)));
    for (const line of formatReport(report)) out(line);
    return report;
  } finally {
    await model.dispose();
  }
}

function parseArgs(args: readonly string[]): EvaluationOptions & { readonly json: boolean } {
  let model: string | undefined;
  const folders: string[] = [];
  let threads: number | undefined;
  let contextSize: number | undefined;
  let limit: number | undefined;
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = () => {
      const next = args[++i];
      if (next === undefined) throw new Error(`${arg} needs a value.`);
      return next;
    };
    if (arg === "--model") model = value();
    else if (arg === "--folder") folders.push(value());
    else if (arg === "--threads") threads = Number(value());
    else if (arg === "--context") contextSize = Number(value());
    else if (arg === "--limit") limit = Number(value());
    else if (arg === "--json") json = true;
    else throw new Error(`Unknown argument ${arg}.`);
  }
  if (!model) throw new Error("Usage: eval-planner.ts --model model.gguf [--folder examples] [--threads N] [--context N] [--limit N] [--json]");
  return { model, folders: folders.length > 0 ? folders : ["examples"], threads, contextSize, limit, json };
}

async function main(): Promise<void> {
  let options: ReturnType<typeof parseArgs>;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 2;
    return;
  }
  const { json, ...rest } = options;
  const report = await runEvaluation({ ...rest, out: json ? () => undefined : undefined });
  if (json) console.log(JSON.stringify(report, null, 2));
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
