/**
 * The same skills served from `.skill.md` files and from Agent Skills folders (`skills/<handle>/SKILL.md`): the
 * diagnostics of 50 editors opened at start (a fresh server of their own), cold start to every file's diagnostics
 * and the peak resident memory then, references and rename of a skill 1,000 files mention, completion after the
 * sigil, in both workspaces, with the ratio of the folders' figure to the files' and whether it holds the goal
 * (at most 1.5×). Each run starts fresh servers on each workspace, the order swapped every run so that a drifting
 * load treats both alike; the open editors, the cold start and the memory are the median of the runs, each
 * operation the median of every run's rounds.
 *
 *     node --import tsx bench/agentSkills.ts [--size 10000] [--runs 3] [--rounds 20] [--keep]
 *
 * `--keep` leaves both workspaces on disk (the path is printed), for `bench/cold.mjs`.
 */
import { promises as fs, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { URI } from "vscode-uri";
import { SERVER_NODE_FLAGS, serverEnvironment } from "../shared/protocol.js";
import VSCODE_DIAGNOSTICS from "./vscodeDiagnostics.json";
import { generateWorkspaces, memoryOf, openEditorHandles, percentile, RENAME_HUB, settle, spawnServer, stopServer, type GeneratedWorkspace } from "./workspace.js";

const REPORT_TOKEN = "workspace-report";

const SERVER = path.resolve(__dirname, "../dist/server.js");

/** One run's samples. */
interface Figures {
  /** Spawn to the diagnostics of 50 editors opened right after `initialize` (a fresh server of its own). */
  readonly openEditorsMs: number;
  /** Spawn to the diagnostics of the first half of them: the editors whose every name the first listing holds come first. */
  readonly halfEditorsMs: number;
  readonly coldMs: number;
  /** The peak resident memory once every file's diagnostics are in, in MB. */
  readonly peakMb: number;
  readonly referencesMs: number[];
  readonly renameMs: number[];
  readonly completionMs: number[];
  readonly references: number;
  readonly renamedFiles: number;
}

/** The goal for every figure: SKILL.md folders within this many times the same skills' `.skill.md` files. */
const GOAL_RATIO = 1.5;

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

function positionAt(text: string, offset: number): { line: number; character: number } {
  const before = text.slice(0, offset);
  return { line: before.split("\n").length - 1, character: offset - before.lastIndexOf("\n") - 1 };
}

/** A fresh server over stdio, as the launchers start it, whose requests to the client are answered with null. */
function startServer(): ReturnType<typeof spawnServer> {
  const server = spawnServer(process.execPath, [...SERVER_NODE_FLAGS, SERVER, "--stdio"], serverEnvironment(process.env));
  for (const method of ["window/workDoneProgress/create", "client/registerCapability", "workspace/diagnostic/refresh", "workspace/semanticTokens/refresh", "workspace/codeLens/refresh"]) server.connection.onRequest(method, () => null);
  return server;
}

/** `initialize` on one workspace folder with a client's capabilities as VS Code declares those the bench uses, then `initialized`. */
async function initialize(connection: ReturnType<typeof spawnServer>["connection"], folder: string): Promise<void> {
  await connection.sendRequest("initialize", {
    processId: process.pid,
    rootUri: null,
    workspaceFolders: [{ uri: URI.file(folder).toString(), name: "bench" }],
    capabilities: {
      textDocument: { ...VSCODE_DIAGNOSTICS, completion: { completionItem: { snippetSupport: true }, completionList: { itemDefaults: ["editRange", "data"] } }, rename: { prepareSupport: true } },
      workspace: { workspaceFolders: true, workspaceEdit: { documentChanges: true, resourceOperations: ["create", "rename", "delete"] }, diagnostics: { refreshSupport: true } },
      window: { workDoneProgress: true },
    },
  });
  await connection.sendNotification("initialized", {});
}

/**
 * The user's first scenario, as bench/run.ts measures it for `.skill.md` files: a fresh server, the editors a
 * restored window has open opened right after `initialize`, until every one has its diagnostics.
 */
async function openEditors(folder: string, fileOf: (handle: string) => string, workspace: GeneratedWorkspace): Promise<{ all: number; half: number }> {
  const server = startServer();
  const connection = server.connection;
  connection.onNotification("$/progress", () => undefined);
  connection.onNotification("window/logMessage", () => undefined);
  connection.onNotification("skill/status", () => undefined);
  connection.listen();
  try {
    await initialize(connection, folder);
    const uris = openEditorHandles(workspace).map((handle) => {
      const file = fileOf(handle);
      const uri = URI.file(file).toString();
      void connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "markdown", version: 1, text: readFileSync(file, "utf8") } });
      return uri;
    });
    const answered: number[] = [];
    await Promise.all(uris.map((uri) => connection.sendRequest("textDocument/diagnostic", { textDocument: { uri } }).then(() => answered.push(performance.now() - server.spawnedAt))));
    return { all: performance.now() - server.spawnedAt, half: answered.sort((a, b) => a - b)[Math.ceil(answered.length / 2) - 1] ?? 0 };
  } finally {
    await stopServer(server);
  }
}

async function measure(folder: string, fileOf: (handle: string) => string, sigil: string, workspace: GeneratedWorkspace, rounds: number): Promise<Figures> {
  const { all: openEditorsMs, half: halfEditorsMs } = await openEditors(folder, fileOf, workspace);
  const server = startServer();
  const connection = server.connection;
  let indexed: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (indexed = resolve));
  // Indexing is done at the end of its progress, or at the first status that says so, whichever comes first (as
  // in bench/run.ts: the status after an index waits for the requests its end prompts).
  connection.onNotification("skill/status", (status: { indexing?: boolean }) => status.indexing === false && indexed());
  // The workspace report comes in parts, as VS Code asks for it (a partial-result token); other progress is dropped.
  const reportParts: unknown[] = [];
  connection.onNotification("$/progress", (params: { token?: string; value?: { kind?: string; items?: unknown[] } }) => {
    if (params.token === REPORT_TOKEN) reportParts.push(...(params.value?.items ?? []));
    else if (params.value?.kind === "end") indexed();
  });
  connection.onNotification("window/logMessage", () => undefined);
  connection.listen();
  try {
    await initialize(connection, folder);
    await ready;
    const answer = await connection.sendRequest<{ items: unknown[] }>("workspace/diagnostic", { previousResultIds: [], partialResultToken: REPORT_TOKEN });
    const report = { items: [...reportParts, ...answer.items] };
    const coldMs = performance.now() - server.spawnedAt;
    const { peakMb } = memoryOf(server.child.pid);
    if (report.items.length === 0) throw new Error(`No diagnostics report for ${workspace.count} files`);

    const dependent = fileOf(workspace.renameDependents[0] ?? "");
    const dependentText = readFileSync(dependent, "utf8");
    const uri = URI.file(dependent).toString();
    const position = positionAt(dependentText, dependentText.indexOf(`${sigil}${RENAME_HUB}`) + 2);
    const plain = fileOf(workspace.plain);
    const plainUri = URI.file(plain).toString();
    const typed = `${readFileSync(plain, "utf8")}\nAsk ${sigil}`;
    await connection.sendNotification("textDocument/didOpen", { textDocument: { uri: plainUri, languageId: "markdown", version: 1, text: typed } });
    const end = positionAt(typed, typed.length);

    const times = { references: [] as number[], rename: [] as number[], completion: [] as number[] };
    let references = 0;
    let renamedFiles = 0;
    for (let round = -1; round < rounds; round++) {
      let started = performance.now();
      const locations = await connection.sendRequest<unknown[]>("textDocument/references", { textDocument: { uri }, position, context: { includeDeclaration: true } });
      if (round >= 0) times.references.push(performance.now() - started);
      references = locations.length;
      started = performance.now();
      const edit = await connection.sendRequest<{ documentChanges: unknown[] }>("textDocument/rename", { textDocument: { uri }, position, newName: `renamed-${round + 1}` });
      if (round >= 0) times.rename.push(performance.now() - started);
      renamedFiles = edit.documentChanges.length - 1;
      started = performance.now();
      await connection.sendRequest("textDocument/completion", { textDocument: { uri: plainUri }, position: end });
      if (round >= 0) times.completion.push(performance.now() - started);
    }
    return { openEditorsMs, halfEditorsMs, coldMs, peakMb, referencesMs: times.references, renameMs: times.rename, completionMs: times.completion, references, renamedFiles };
  } finally {
    await connection.sendRequest("shutdown").catch(() => undefined);
    await connection.sendNotification("exit").catch(() => undefined);
    server.child.kill();
  }
}

async function main(): Promise<void> {
  const size = arg("--size", 10_000);
  const runs = arg("--runs", 3);
  const rounds = arg("--rounds", 20);
  const root = await fs.mkdtemp(path.join(tmpdir(), "skill-bench-agent-"));
  try {
    const workspace = await generateWorkspaces(root, size, undefined, "distinct", { agentSkills: true });
    // Writing 2 × N files keeps the machine busy for a while after: the first runs would carry it.
    console.log(`(${await settle()})`);
    const agent = workspace.agentSkills ?? "";
    const shapes = {
      files: () => measure(workspace.skills, (handle) => path.join(workspace.skills, `${handle}.skill.md`), "@", workspace, rounds),
      folders: () => measure(agent, (handle) => path.join(agent, "skills", handle, "SKILL.md"), "/", workspace, rounds),
    };
    const taken: Record<keyof typeof shapes, Figures[]> = { files: [], folders: [] };
    for (let run = 0; run < runs; run++) {
      for (const shape of run % 2 === 0 ? (["files", "folders"] as const) : (["folders", "files"] as const)) taken[shape].push(await shapes[shape]());
    }
    const median = (values: number[]) => percentile(values, 50);
    const figure = (shape: keyof typeof shapes, pick: (figures: Figures) => number | number[]) => median(taken[shape].flatMap(pick));
    const verdicts: string[] = [];
    const row = (label: string, goal: string | undefined, pick: (figures: Figures) => number | number[], unit = "ms") => {
      const [a, b] = [figure("files", pick), figure("folders", pick)];
      const ratio = b / a;
      if (goal !== undefined) verdicts.push(`${`${goal}: SKILL.md folders ≤ ${GOAL_RATIO}× the files (${size.toLocaleString("en")})`.padEnd(62)}${`${ratio.toFixed(2)}×`.padStart(18)}   ${ratio <= GOAL_RATIO ? "holds" : "MISSED"}`);
      return `| ${label} | ${a.toFixed(1)} ${unit} | ${b.toFixed(1)} ${unit} | ${ratio.toFixed(2)}× |`;
    };
    const last = (shape: keyof typeof shapes) => taken[shape][taken[shape].length - 1];
    console.log(`${size.toLocaleString("en")} skills, ${runs} runs (alternating), ${rounds} rounds each: open editors and cold start the median of the runs, operations of ${runs * rounds} samples; load average ${loadAverage()}\n`);
    console.log("| figure | .skill.md files | SKILL.md folders | ratio |\n| --- | --- | --- | --- |");
    console.log(row("editors open at start: their 50 diagnostics", "open editors", (figures) => figures.openEditorsMs));
    // No goal of its own: what most of those editors wait for (an editor naming no skill waits for the whole listing).
    console.log(row("editors open at start: the first 25 of them", undefined, (figures) => figures.halfEditorsMs));
    // What the folders' editors that name a missing skill wait for at the least: every folder's entries (a skill may sit deep in one).
    console.log(`| listing every skill folder's entries, one thread, no server | — | ${listingMs(path.join(agent, "skills")).toFixed(1)} ms | |`);
    console.log(row("cold start to every file's diagnostics", "cold start", (figures) => figures.coldMs));
    console.log(row("peak resident memory then", "peak memory", (figures) => figures.peakMb, "MB"));
    console.log(row(`references of a skill (${last("files")?.references} / ${last("folders")?.references} locations)`, "references", (figures) => figures.referencesMs));
    console.log(row(`rename of that skill (${last("files")?.renamedFiles} / ${last("folders")?.renamedFiles} files edited)`, "rename", (figures) => figures.renameMs));
    console.log(row("completion after the sigil", "completion", (figures) => figures.completionMs));
    const colds = (shape: keyof typeof shapes) => taken[shape].map((figures) => figures.coldMs.toFixed(0)).join(", ");
    console.log(`\ncold starts, run by run: .skill.md files ${colds("files")} ms; SKILL.md folders ${colds("folders")} ms`);
    console.log(`\n== goals (Agent Skills, ${size.toLocaleString("en")}) ==\n${verdicts.join("\n")}`);
  } finally {
    if (process.argv.includes("--keep")) console.error(`kept: ${root}`);
    else await fs.rm(root, { recursive: true, force: true });
  }
}

/**
 * The least a complete listing of the skill folders costs in this process: the folder of skills, then each skill
 * folder's entries, as the server lists them (`readdirSync` with their types), on one thread with the page cache
 * warm. The median of three, after one that warms it.
 */
function listingMs(skills: string): number {
  const list = () => {
    const started = performance.now();
    for (const entry of readdirSync(skills, { withFileTypes: true })) if (entry.isDirectory()) readdirSync(path.join(skills, entry.name), { withFileTypes: true });
    return performance.now() - started;
  };
  list();
  return percentile([list(), list(), list()], 50);
}

function loadAverage(): string {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}

void main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
