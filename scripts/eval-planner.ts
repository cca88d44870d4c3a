/**
 * `npm run eval:planner`: how well each routing scheme picks the handle on the labelled set (eval/labelled.json,
 * over examples/ and eval/workspace), per model, beside the lexical baseline; then the seed's lesson: how often
 * the narrow @fetch-file takes requests the broad @search-info owns, advertised and not.
 *
 *     npm run eval:planner -- [--model smollm2|gemma3-270m|file.gguf]… [--scheme name]… [--threads 2] [--limit N] [--out file.json]
 *
 * Models default to every model `npm run models` fetched; schemes to all of them (see eval/schemes.ts).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { Namespace } from "../server/src/core/index.js";
import { loadFolders } from "../server/src/node/workspaceFiles.js";
import { cachedModelPath, MODEL_CATALOG } from "../server/src/planner/modelCatalog.js";
import { SCHEMES, SchemeRunner, type Choice, type Scheme } from "../eval/schemes.js";

const ROOT = path.resolve(__dirname, "..");

/** One labelled request: the handles a careful person would pick ([] for none), and equally right plans. */
export interface LabelledRequest {
  readonly text: string;
  readonly expected: readonly string[];
  readonly alsoAccepted?: readonly (readonly string[])[];
  readonly category: "skill" | "tool" | "none" | "trap-broad" | "trap-narrow";
  readonly note?: string;
}

export interface LabelledSet {
  /** The workspace folder, relative to the repository. */
  readonly workspace: string;
  readonly requests: readonly LabelledRequest[];
}

export function labelledSets(): LabelledSet[] {
  const data = JSON.parse(readFileSync(path.join(ROOT, "eval/labelled.json"), "utf8")) as { sets: LabelledSet[] };
  return data.sets;
}

export async function workspaceNamespace(folder: string): Promise<Namespace> {
  const namespace = new Namespace();
  await loadFolders(namespace, [path.join(ROOT, folder)]);
  return namespace;
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((item) => b.includes(item));

/** True when the chosen handles are the label or one of the equally right plans. */
export function isRight(request: LabelledRequest, chosen: readonly string[]): boolean {
  return [request.expected, ...(request.alsoAccepted ?? [])].some((handles) => sameSet(handles, chosen));
}

interface Row {
  readonly model: string;
  readonly scheme: Scheme;
  readonly requests: number;
  readonly right: number;
  readonly noneRight: number;
  readonly noneTotal: number;
  readonly toolPrecision: number;
  readonly toolRecall: number;
  readonly firstTokenMs: number | undefined;
  readonly warmPlanMs: number;
  readonly coldPlanMs: number;
  readonly perSet: Readonly<Record<string, { right: number; requests: number }>>;
  readonly choices: readonly { readonly workspace: string; readonly text: string; readonly chosen: readonly string[]; readonly right: boolean; readonly error?: string }[];
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : (sorted[Math.floor((sorted.length - 1) / 2)] as number);
};

async function evaluateScheme(runner: SchemeRunner, modelId: string, scheme: Scheme, sets: readonly { set: LabelledSet; namespace: Namespace }[], limit: number | undefined): Promise<Row> {
  let right = 0;
  let noneRight = 0;
  let noneTotal = 0;
  let bound = 0;
  let expectedTools = 0;
  let both = 0;
  const firstTokens: number[] = [];
  const warm: number[] = [];
  let cold = Number.NaN;
  const perSet: Record<string, { right: number; requests: number }> = {};
  const choices: Row["choices"][number][] = [];
  for (const { set, namespace } of sets) {
    const toolsOf = (handles: readonly string[]) => namespace.expand(handles).tools.map((tool) => tool.name);
    const requests = limit === undefined ? set.requests : set.requests.slice(0, limit);
    const tally = { right: 0, requests: 0 };
    for (const [index, request] of requests.entries()) {
      const choice: Choice = await runner.choose(scheme, namespace, request.text);
      const ok = choice.error === undefined && isRight(request, choice.handles);
      tally.requests++;
      if (ok) {
        right++;
        tally.right++;
      }
      if (request.expected.length === 0) {
        noneTotal++;
        if (choice.handles.length === 0) noneRight++;
      }
      const chosenTools = toolsOf(choice.handles);
      const labelledTools = toolsOf(request.expected);
      bound += chosenTools.length;
      expectedTools += labelledTools.length;
      both += chosenTools.filter((tool) => labelledTools.includes(tool)).length;
      if (index === 0 && Number.isNaN(cold)) cold = choice.ms;
      else warm.push(choice.ms);
      if (choice.firstTokenMs !== undefined && !Number.isNaN(choice.firstTokenMs) && index > 0) firstTokens.push(choice.firstTokenMs);
      choices.push({ workspace: set.workspace, text: request.text, chosen: choice.handles, right: ok, ...(choice.error ? { error: choice.error } : {}) });
      process.stderr.write(`${ok ? "." : "x"}`);
    }
    perSet[set.workspace] = tally;
  }
  process.stderr.write("\n");
  const share = (part: number, whole: number) => (whole === 0 ? 1 : part / whole);
  return {
    model: modelId,
    scheme,
    requests: choices.length,
    right,
    noneRight,
    noneTotal,
    toolPrecision: share(both, bound),
    toolRecall: share(both, expectedTools),
    firstTokenMs: firstTokens.length > 0 ? median(firstTokens) : undefined,
    warmPlanMs: median(warm),
    coldPlanMs: cold,
    perSet,
    choices,
  };
}

/** The seed's lesson: picks of @fetch-file on requests @search-info owns, with @fetch-file advertised and not. */
async function narrowSkillLesson(runner: SchemeRunner, scheme: Scheme, set: LabelledSet, namespace: Namespace): Promise<{ advertised: number; unadvertised: number; advertisedRight: number; unadvertisedRight: number; total: number }> {
  const owned = set.requests.filter((request) => request.category === "trap-broad");
  const fetchFile = [...namespace.skills()].find((skill) => skill.slug === "fetch-file");
  if (!fetchFile) throw new Error("The trap workspace has no @fetch-file.");
  const unadvertised = new Namespace();
  for (const skill of namespace.skills()) unadvertised.set(skill.uri, skill === fetchFile ? skill.text.replace(/^---\n/, "---\nadvertised: false\n") : skill.text);
  for (const config of namespace.configs()) unadvertised.set(config.uri, config.text);
  const count = async (space: Namespace) => {
    let picks = 0;
    let rightCount = 0;
    for (const request of owned) {
      const choice = await runner.choose(scheme, space, request.text);
      if (choice.handles.includes("fetch-file")) picks++;
      if (isRight(request, choice.handles)) rightCount++;
    }
    return { picks, rightCount };
  };
  const before = await count(namespace);
  const after = await count(unadvertised);
  return { advertised: before.picks, unadvertised: after.picks, advertisedRight: before.rightCount, unadvertisedRight: after.rightCount, total: owned.length };
}

function parseArgs(args: readonly string[]): { models: string[]; schemes: Scheme[]; threads: number; limit?: number; out?: string } {
  const models: string[] = [];
  const schemes: Scheme[] = [];
  let threads = 2;
  let limit: number | undefined;
  let out: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = (): string => {
      const next = args[++i];
      if (next === undefined) throw new Error(`${arg} needs a value.`);
      return next;
    };
    if (arg === "--model") models.push(value());
    else if (arg === "--scheme") {
      const scheme = value();
      if (!(SCHEMES as readonly string[]).includes(scheme)) throw new Error(`Unknown scheme ${scheme}; schemes: ${SCHEMES.join(", ")}.`);
      schemes.push(scheme as Scheme);
    } else if (arg === "--threads") threads = Number(value());
    else if (arg === "--limit") limit = Number(value());
    else if (arg === "--out") out = value();
    else throw new Error(`Unknown argument ${arg}. Usage: eval-planner.ts [--model id|file.gguf]… [--scheme name]… [--threads N] [--limit N] [--out file.json]`);
  }
  return { models, schemes: schemes.length > 0 ? schemes : [...SCHEMES], threads, ...(limit === undefined ? {} : { limit }), ...(out === undefined ? {} : { out }) };
}

function modelFile(id: string): { id: string; file: string } {
  const known = MODEL_CATALOG.find((model) => model.id === id);
  if (known) {
    const file = cachedModelPath(known);
    if (!existsSync(file)) throw new Error(`${known.title} is not in the model cache (${file}): run \`npm run models\` first.`);
    return { id, file };
  }
  if (!existsSync(id)) throw new Error(`No model ${id}: give a catalogue id (${MODEL_CATALOG.map((model) => model.id).join(", ")}) or a .gguf file.`);
  return { id: path.basename(id), file: id };
}

const pct = (part: number, whole: number): string => `${part}/${whole} (${((100 * part) / Math.max(1, whole)).toFixed(0)}%)`;
const ms = (value: number | undefined): string => (value === undefined || Number.isNaN(value) ? "—" : `${Math.round(value)} ms`);

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const models = (options.models.length > 0 ? options.models : MODEL_CATALOG.filter((model) => existsSync(cachedModelPath(model))).map((model) => model.id)).map(modelFile);
  if (models.length === 0) throw new Error("No model in the cache: run `npm run models` first.");
  const sets = await Promise.all(labelledSets().map(async (set) => ({ set, namespace: await workspaceNamespace(set.workspace) })));
  const rows: Row[] = [];
  const lessons: Record<string, unknown> = {};
  const trapSet = sets.find(({ set }) => set.requests.some((request) => request.category === "trap-broad"));
  for (const model of models) {
    const { runner, loadMs } = await SchemeRunner.load(model.file, options.threads, 32);
    console.log(`model ${model.id}: ${model.file}, loaded in ${Math.round(loadMs)} ms, ${options.threads} threads`);
    try {
      for (const scheme of options.schemes) {
        const row = await evaluateScheme(runner, model.id, scheme, sets, options.limit);
        rows.push(row);
        console.log(`  ${scheme.padEnd(18)} ${pct(row.right, row.requests)} right, none ${pct(row.noneRight, row.noneTotal)}, tools P ${(100 * row.toolPrecision).toFixed(0)}% R ${(100 * row.toolRecall).toFixed(0)}%, warm ${ms(row.warmPlanMs)}`);
        if (scheme === "lexical" && models.indexOf(model) > 0) continue;
        if (trapSet && options.limit === undefined) {
          const lesson = await narrowSkillLesson(runner, scheme, trapSet.set, trapSet.namespace);
          lessons[`${model.id}:${scheme}`] = lesson;
          console.log(`    @fetch-file took ${lesson.advertised}/${lesson.total} of @search-info's requests advertised, ${lesson.unadvertised}/${lesson.total} unadvertised`);
        }
      }
    } finally {
      await runner.dispose();
    }
  }
  console.log("\n| model | scheme | handle accuracy | examples/ | eval/workspace | none | toolset precision | toolset recall | first token (warm) | plan (warm) | first plan |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const row of rows) {
    const setCell = (name: string) => {
      const tally = row.perSet[name];
      return tally ? pct(tally.right, tally.requests) : "—";
    };
    console.log(
      `| ${row.model} | ${row.scheme} | ${pct(row.right, row.requests)} | ${setCell("examples")} | ${setCell("eval/workspace")} | ${pct(row.noneRight, row.noneTotal)} | ${(100 * row.toolPrecision).toFixed(0)}% | ${(100 * row.toolRecall).toFixed(0)}% | ${ms(row.firstTokenMs)} | ${ms(row.warmPlanMs)} | ${ms(row.coldPlanMs)} |`,
    );
  }
  if (options.out) writeFileSync(options.out, `${JSON.stringify({ rows, lessons }, null, 1)}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(`eval:planner: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
