/**
 * `npm run bench`: the language server at scale, side by side with VS Code's Markdown language server.
 *
 *     node --import tsx bench/run.ts [--sizes 1000,10000,50000] [--quick] [--json] [--rounds N]
 *                                    [--no-peer] [--peer-timeout SECONDS] [--keep] [--out FILE] [--profile DIR]
 *     node --import tsx bench/run.ts --planner [planner options]     the planner's figures (bench/planner.ts)
 *     node --import tsx bench/run.ts --graph [graph options]         the graph's layout engines (bench/graph.ts)
 *
 * For each size it writes a workspace of skills and its Markdown twin (bench/workspace.ts) into a temp folder,
 * then drives the built server (`dist/server.js --stdio`; build it with `node esbuild.mjs`) and the peer
 * (bench/markdown.ts) over stdio, as an editor would. The operations both servers have run alternately, one
 * sample of each in turn, so that a machine whose load changes treats both alike. bench/README.md says what
 * each figure means.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, promises as fs, readdirSync, readFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { URI } from "vscode-uri";
import type { Diagnostic, Location, WorkspaceDocumentDiagnosticReport, WorkspaceEdit } from "vscode-languageserver-protocol";
import { LANGUAGE_ID, SERVER_NODE_FLAGS } from "../shared/protocol.js";
import { scanMentions } from "../server/src/core/mentions.js";
import { ensurePeer, MarkdownSubject, PEER, PEER_CACHE, peerInstalled, peerVersion } from "./markdown.js";
import {
  BIG_FILE,
  BIG_MENTIONS,
  cpuTimeOf,
  EDIT_FANOUT,
  EDIT_HUB,
  editedFiles,
  emptyFigures,
  generateWorkspaces,
  median,
  memoryOf,
  percentile,
  positionAt,
  RENAME_HUB,
  spawnServer,
  stopServer,
  timed,
  Timeout,
  within,
  type ColdFigures,
  type GeneratedWorkspace,
  type ServerFigures,
  type ServerProcess,
  type Subject,
} from "./workspace.js";

const REPO = path.resolve(__dirname, "..");
const SERVER = path.join(REPO, "dist/server.js");

interface Args {
  readonly sizes: number[];
  readonly quick: boolean;
  readonly json: boolean;
  readonly rounds: number;
  readonly peer: boolean;
  readonly peerTimeoutMs: number | undefined;
  readonly keep: boolean;
  /** Also writes the JSON figures to this file. */
  readonly out: string | undefined;
  /** Runs our server with `--cpu-prof` into this folder. */
  readonly profile: string | undefined;
  /** Then runs bench/planner.ts (not with --quick, --json or --no-planner). */
  readonly planner: boolean;
  /** Then runs bench/graph.ts (not with --quick, --json or --no-graph). */
  readonly graph: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  let sizes = [1000, 10000, 50000];
  let quick = false;
  let json = false;
  let rounds: number | undefined;
  let peer = true;
  let peerTimeoutMs: number | undefined;
  let keep = false;
  let out: string | undefined;
  let profile: string | undefined;
  let planner = true;
  let graph = true;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--quick") quick = true;
    else if (arg === "--json") json = true;
    else if (arg === "--no-peer") peer = false;
    else if (arg === "--no-planner") planner = false;
    else if (arg === "--no-graph") graph = false;
    else if (arg === "--keep") keep = true;
    else if (arg === "--sizes") sizes = (argv[++i] ?? "").split(",").map((size) => Number(size.replace(/_/g, "").replace(/k$/i, "000")));
    else if (arg === "--rounds") rounds = Number(argv[++i]);
    else if (arg === "--peer-timeout") peerTimeoutMs = Number(argv[++i]) * 1000;
    else if (arg === "--out") out = path.resolve(argv[++i] ?? "bench.json");
    else if (arg === "--profile") profile = path.resolve(argv[++i] ?? "profiles");
    else throw new Error(`Unknown argument ${arg}. Options: --sizes 1000,10000 --quick --json --rounds N --no-peer --peer-timeout SECONDS --keep --out FILE --profile DIR --no-planner --planner --no-graph --graph`);
  }
  if (quick) sizes = [1000];
  if (sizes.some((size) => !Number.isInteger(size) || size < 20)) throw new Error("--sizes wants whole numbers of at least 20, comma-separated.");
  if (rounds !== undefined && !(Number.isInteger(rounds) && rounds > 0)) throw new Error("--rounds wants a whole number of at least 1.");
  return { sizes, quick, json, rounds: rounds ?? (quick ? 3 : 9), peer, peerTimeoutMs, keep, out, profile, planner: planner && !quick && !json, graph: graph && !quick && !json };
}

/** Our figures: the shared operations, and those only we have. */
interface OurFigures extends ServerFigures {
  completionMs: number[];
  completionItems: number;
  /** After `@qui`: every skill is matched against the letters. */
  completionTypedMs: number[];
  completionTypedItems: number;
  semanticTokensMs: number[];
  semanticTokens: number;
}

interface SizeResult {
  readonly count: number;
  readonly workspace: { bytes: number; mentions: number; dangling: number; renameDependents: number; editDependents: number; generateMs: number };
  /** Reading every file and scanning its mentions in this process, no server: the floor for a cold start. */
  readonly floorMs: number;
  readonly ours: OurFigures;
  readonly peer: ServerFigures | undefined;
}

const log = (message: string) => process.stderr.write(`${message}\n`);

const uriOf = (folder: string, handle: string) => URI.file(path.join(folder, `${handle}.skill.md`)).toString();

/** The floor: list the folder, read every file and scan its mentions, the plainest fastest way (no server). */
function floor(folder: string): number {
  const started = performance.now();
  let mentions = 0;
  for (const name of readdirSync(folder)) {
    if (name.endsWith(".skill.md")) mentions += scanMentions(readFileSync(path.join(folder, name), "utf8")).mentions.length;
  }
  if (mentions === 0) throw new Error("The floor found no mentions.");
  return performance.now() - started;
}

/** Our server under test: pull diagnostics, progress, and the status notification. */
class SkillSubject implements Subject {
  readonly server: ServerProcess;
  readonly #workspace: GeneratedWorkspace;
  readonly #documents = new Map<string, { text: string; version: number }>();
  readonly #indexed: Promise<number>;
  #edits = 0;
  #disabled = false;

  constructor(workspace: GeneratedWorkspace, profile: string | undefined) {
    this.#workspace = workspace;
    this.server = spawnServer(process.execPath, [...SERVER_NODE_FLAGS, ...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : []), SERVER, "--stdio"]);
    const connection = this.server.connection;
    let indexed: () => void = () => undefined;
    this.#indexed = new Promise<number>((resolve) => (indexed = () => resolve(performance.now())));
    connection.onRequest("window/workDoneProgress/create", () => null);
    connection.onRequest("client/registerCapability", () => null);
    connection.onRequest("workspace/diagnostic/refresh", () => null);
    connection.onRequest("workspace/semanticTokens/refresh", () => null);
    connection.onRequest("workspace/codeLens/refresh", () => null);
    // Indexing is done at the end of its progress, or at the first status that says so, whichever comes first.
    connection.onNotification("$/progress", (params: { value?: { kind?: string } }) => {
      if (params.value?.kind === "end") indexed();
    });
    connection.onNotification("skill/status", (status: { indexing?: boolean }) => {
      if (status.indexing === false) indexed();
    });
    connection.onNotification("window/logMessage", () => undefined);
    connection.onNotification("window/showMessage", () => undefined);
    connection.listen();
  }

  get #connection() {
    return this.server.connection;
  }

  async cold(): Promise<ColdFigures> {
    const spawnedAt = this.server.spawnedAt;
    await this.#connection.sendRequest("initialize", {
      processId: process.pid,
      rootUri: null,
      workspaceFolders: [{ uri: URI.file(this.#workspace.skills).toString(), name: "skills" }],
      capabilities: {
        textDocument: {
          diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
          // As VS Code declares it: a list may share its edit range and data among its items.
          completion: { completionItem: { snippetSupport: true, labelDetailsSupport: true }, completionList: { itemDefaults: ["commitCharacters", "editRange", "insertTextFormat", "insertTextMode", "data"] } },
          rename: { prepareSupport: true },
          synchronization: { didSave: true },
        },
        workspace: {
          workspaceFolders: true,
          workspaceEdit: { documentChanges: true, resourceOperations: ["create", "rename", "delete"] },
          diagnostics: { refreshSupport: true },
          semanticTokens: { refreshSupport: true },
          codeLens: { refreshSupport: true },
          didChangeWatchedFiles: { dynamicRegistration: false },
        },
        window: { workDoneProgress: true },
      },
    });
    const initializeMs = performance.now() - spawnedAt;
    await this.#connection.sendNotification("initialized", {});
    const readyMs = (await this.#indexed) - spawnedAt;
    const report = await this.#connection.sendRequest<{ items: WorkspaceDocumentDiagnosticReport[] }>("workspace/diagnostic", { previousResultIds: [] });
    const ms = performance.now() - spawnedAt;
    const cpuMs = cpuTimeOf(this.server.child.pid);
    const dangling = report.items.reduce((sum, item) => sum + (item.kind === "full" ? item.items.filter((diagnostic) => diagnostic.code === "unknown-mention").length : 0), 0);
    if (report.items.length < this.#workspace.count) throw new Error(`workspace/diagnostic answered ${report.items.length} of ${this.#workspace.count} files.`);
    return { ms, cpuMs, initializeMs, readyMs, files: report.items.length, dangling };
  }

  async #open(handle: string): Promise<string> {
    const uri = uriOf(this.#workspace.skills, handle);
    if (!this.#documents.has(uri)) {
      const text = await fs.readFile(URI.parse(uri).fsPath, "utf8");
      this.#documents.set(uri, { text, version: 1 });
      await this.#connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: LANGUAGE_ID, version: 1, text } });
    }
    return uri;
  }

  #text(uri: string): string {
    return this.#documents.get(uri)?.text ?? "";
  }

  async #replace(uri: string, offset: number, length: number, newText: string): Promise<void> {
    const document = this.#documents.get(uri);
    if (!document) throw new Error(`${uri} is not open`);
    const range = { start: positionAt(document.text, offset), end: positionAt(document.text, offset + length) };
    document.text = document.text.slice(0, offset) + newText + document.text.slice(offset + length);
    document.version++;
    await this.#connection.sendNotification("textDocument/didChange", { textDocument: { uri, version: document.version }, contentChanges: [{ range, text: newText }] });
  }

  async #diagnostics(uri: string): Promise<Diagnostic[]> {
    const report = await this.#connection.sendRequest<{ items?: Diagnostic[] }>("textDocument/diagnostic", { textDocument: { uri } });
    return report.items ?? [];
  }

  /** Completion right after a fresh `@` at the end of a small skill, then after `@qui`. */
  async completion(requests: number): Promise<Pick<OurFigures, "completionMs" | "completionItems" | "completionTypedMs" | "completionTypedItems">> {
    const uri = await this.#open(this.#workspace.plain);
    const run = async (typed: string, context: object) => {
      await this.#replace(uri, this.#text(uri).length, 0, `\nAsk @${typed}`);
      const position = positionAt(this.#text(uri), this.#text(uri).length);
      const times: number[] = [];
      let items = 0;
      for (let i = 0; i < requests + 20; i++) {
        const { ms, value } = await timed(() => this.#connection.sendRequest<{ items: unknown[] } | null>("textDocument/completion", { textDocument: { uri }, position, context }));
        if (i >= 20) times.push(ms);
        items = value?.items.length ?? 0;
      }
      await this.#replace(uri, this.#text(uri).length - typed.length - 6, typed.length + 6, "");
      return { times, items };
    };
    const bare = await run("", { triggerKind: 2, triggerCharacter: "@" });
    const typed = await run("qui", { triggerKind: 3 });
    return { completionMs: bare.times, completionItems: bare.items, completionTypedMs: typed.times, completionTypedItems: typed.items };
  }

  async semanticTokens(runs: number): Promise<Pick<OurFigures, "semanticTokensMs" | "semanticTokens">> {
    const uri = uriOf(this.#workspace.skills, BIG_FILE);
    const times: number[] = [];
    let tokens = 0;
    for (let i = 0; i < runs; i++) {
      const { ms, value } = await timed(() => this.#connection.sendRequest<{ data: number[] }>("textDocument/semanticTokens/full", { textDocument: { uri } }));
      times.push(ms);
      tokens = value.data.length / 5;
    }
    return { semanticTokensMs: times, semanticTokens: tokens };
  }

  async edit(): Promise<number> {
    const uri = await this.#open(this.#workspace.plain);
    const at = this.#text(uri).indexOf("\n\n") + 2;
    const insert = this.#edits++ % 2 === 0;
    const { ms } = await timed(async () => {
      await this.#replace(uri, at, insert ? 0 : 1, insert ? "x" : "");
      await this.#diagnostics(uri);
    });
    return ms;
  }

  /** Disables the skill 100 others mention (or enables it again): until every dependent's pulled diagnostics show it. */
  async dependents(): Promise<number> {
    const hub = await this.#open(EDIT_HUB);
    const dependents = this.#workspace.editDependents.map((handle) => uriOf(this.#workspace.skills, handle));
    if (dependents.length !== EDIT_FANOUT) throw new Error(`${EDIT_HUB} has ${dependents.length} dependents, not ${EDIT_FANOUT}.`);
    const disable = !this.#disabled;
    const { ms } = await timed(async () => {
      const offset = this.#text(hub).indexOf(disable ? "enabled: true" : "enabled: false") + "enabled: ".length;
      await this.#replace(hub, offset, disable ? 4 : 5, disable ? "false" : "true");
      this.#disabled = disable;
      for (;;) {
        const results = await Promise.all(dependents.map((uri) => this.#diagnostics(uri)));
        if (results.every((items) => items.some((item) => item.code === "disabled-mention") === disable)) break;
      }
    });
    return ms;
  }

  #mentionOfHub(): { uri: string; position: { line: number; character: number } } {
    const uri = uriOf(this.#workspace.skills, this.#workspace.renameDependents[0] ?? "");
    const text = readFileSync(URI.parse(uri).fsPath, "utf8");
    return { uri, position: positionAt(text, text.indexOf(`@${RENAME_HUB}`) + 2) };
  }

  async references(): Promise<{ ms: number; count: number }> {
    const { uri, position } = this.#mentionOfHub();
    const { ms, value } = await timed(() => this.#connection.sendRequest<Location[] | null>("textDocument/references", { textDocument: { uri }, position, context: { includeDeclaration: true } }));
    return { ms, count: value?.length ?? 0 };
  }

  async rename(): Promise<{ ms: number; files: number }> {
    const { uri, position } = this.#mentionOfHub();
    const { ms, value } = await timed(() => this.#connection.sendRequest<WorkspaceEdit | null>("textDocument/rename", { textDocument: { uri }, position, newName: `${RENAME_HUB}-2` }));
    return { ms, files: editedFiles(value) };
  }

  async fileRename(): Promise<{ ms: number; files: number }> {
    // Another new name than rename()'s: the server skips the cascade for a file rename it planned itself.
    const files = [{ oldUri: uriOf(this.#workspace.skills, RENAME_HUB), newUri: uriOf(this.#workspace.skills, `${RENAME_HUB}-3`) }];
    const { ms, value } = await timed(() => this.#connection.sendRequest<WorkspaceEdit | null>("workspace/willRenameFiles", { files }));
    return { ms, files: editedFiles(value) };
  }

  async stop(): Promise<void> {
    await stopServer(this.server);
  }
}

/** Runs one operation on a subject into its figures; a failure (or a peer's timeout) ends that subject's run. */
type Operation = (subject: Subject, figures: ServerFigures) => Promise<void>;

const OPERATIONS: readonly Operation[] = [
  async (subject, figures) => {
    for (let i = 0; i < 4; i++) figures.editMs.push(await subject.edit());
  },
  async (subject, figures) => {
    for (let i = 0; i < 2; i++) figures.dependentsMs.push(await subject.dependents());
  },
  async (subject, figures) => {
    const { ms, count } = await subject.references();
    figures.referencesMs.push(ms);
    figures.references = count;
  },
  async (subject, figures) => {
    const { ms, files } = await subject.rename();
    figures.renameMs.push(ms);
    figures.renameFiles = files;
  },
  async (subject, figures) => {
    const { ms, files } = await subject.fileRename();
    figures.fileRenameMs.push(ms);
    figures.fileRenameFiles = files;
  },
];

function describeFailure(error: unknown): string {
  return error instanceof Timeout ? `timed out: ${error.message}` : error instanceof Error ? error.message : String(error);
}

async function benchSize(workspace: GeneratedWorkspace, args: Args, peerEnabled: boolean): Promise<{ ours: OurFigures; peer: ServerFigures | undefined }> {
  const ours: OurFigures = { ...emptyFigures(), completionMs: [], completionItems: 0, completionTypedMs: [], completionTypedItems: 0, semanticTokensMs: [], semanticTokens: 0 };
  const peerTimeoutMs = args.peerTimeoutMs ?? 120_000;
  const ourTimeoutMs = Math.max(120_000, workspace.count * 20);
  const skill = new SkillSubject(workspace, args.profile);
  let markdown: MarkdownSubject | undefined;
  let peer: ServerFigures | undefined;
  try {
    ours.cold = await within(ourTimeoutMs, "skill-lsp's cold start", skill.cold());
    ours.rssAfterIndexMb = memoryOf(skill.server.child.pid).rssMb;
    log(`  skill-lsp: cold start ${ms(ours.cold.ms)} (server CPU ${ms(ours.cold.cpuMs)})`);
    Object.assign(ours, await within(ourTimeoutMs, "skill-lsp's completion", skill.completion(200)));
    Object.assign(ours, await within(ourTimeoutMs, "skill-lsp's semantic tokens", skill.semanticTokens(args.rounds * 4)));
    log(`  skill-lsp: completion p95 ${ms(percentile(ours.completionMs, 95))}, after @qui ${ms(percentile(ours.completionTypedMs, 95))}`);

    if (peerEnabled) {
      peer = emptyFigures();
      markdown = new MarkdownSubject(workspace);
      try {
        peer.cold = await within(peerTimeoutMs, "the Markdown server's cold diagnostics", markdown.cold());
        peer.rssAfterIndexMb = memoryOf(markdown.server.child.pid).rssMb;
        log(`  markdown: cold start ${ms(peer.cold.ms)} (server CPU ${ms(peer.cold.cpuMs)})`);
      } catch (error) {
        log(`  markdown: ${describeFailure(error)}; the operations run on a fresh process with only their files open`);
        if (!(error instanceof Timeout)) peer.failure = describeFailure(error);
        else peer.coldTimeoutMs = peerTimeoutMs;
        await markdown.stop();
        markdown = undefined;
        if (!peer.failure) {
          try {
            markdown = new MarkdownSubject(workspace);
            await within(Math.max(peerTimeoutMs, 120_000), "the Markdown server's start", markdown.prepare());
          } catch (prepareError) {
            peer.failure = describeFailure(prepareError);
            await markdown?.stop();
            markdown = undefined;
          }
        }
      }
    }

    // The shared operations, alternately: one sample of each for one server, then the other (order swapped every
    // round). Round -1 warms both servers' code paths up and is not recorded: a first request pays for compiling.
    for (let round = -1; round < args.rounds; round++) {
      for (const operation of OPERATIONS) {
        const turns: [Subject, ServerFigures, number][] = [[skill, round < 0 ? emptyFigures() : ours, ourTimeoutMs]];
        if (markdown && peer) turns.push([markdown, round < 0 ? emptyFigures() : peer, peerTimeoutMs]);
        if (round % 2 === 1) turns.reverse();
        for (const [subject, figures, bound] of turns) {
          if (subject === markdown && peer) {
            try {
              await within(bound, "a Markdown server operation", operation(subject, figures));
            } catch (error) {
              peer.failure = describeFailure(error);
              log(`  markdown: ${peer.failure}`);
              await markdown.stop();
              markdown = undefined;
            }
          } else {
            await within(bound, "a skill-lsp operation", operation(subject, figures));
          }
        }
      }
    }
    log(`  skill-lsp: edit ${ms(median(ours.editMs))}, dependents ${ms(median(ours.dependentsMs))}, file rename ${ms(median(ours.fileRenameMs))}`);
    Object.assign(ours, memoryOf(skill.server.child.pid));
    if (markdown && peer) Object.assign(peer, memoryOf(markdown.server.child.pid));
  } finally {
    await markdown?.stop();
    await skill.stop();
  }
  return { ours, peer };
}

// ---------------------------------------------------------------------------------------------------------------
// Output.

const ms = (value: number | undefined): string =>
  value === undefined || Number.isNaN(value) ? "—" : value >= 100 ? `${Math.round(value).toLocaleString("en")} ms` : value >= 10 ? `${value.toFixed(1)} ms` : `${value.toFixed(2)} ms`;
const mb = (value: number | undefined): string => (value === undefined || Number.isNaN(value) ? "—" : `${value.toFixed(0)} MB`);
const ratio = (ours: number | undefined, theirs: number | undefined): string =>
  ours === undefined || theirs === undefined || Number.isNaN(ours) || Number.isNaN(theirs) || theirs === 0 ? "" : `${(ours / theirs).toFixed(2)}`;
const count = (value: number) => value.toLocaleString("en");
const med = (values: readonly number[] | undefined) => (values && values.length > 0 ? median(values) : undefined);
const p95 = (values: readonly number[] | undefined) => (values && values.length > 0 ? percentile(values, 95) : undefined);

interface Row {
  readonly label: string;
  readonly ours: string;
  readonly theirs?: string;
  readonly ratio?: string;
}

const pair = (label: string, mine: number | undefined, theirs: number | undefined, format = ms): Row => ({ label, ours: format(mine), theirs: format(theirs), ratio: ratio(mine, theirs) });

/** Every row the table prints, in order (test/bench/bench.test.ts checks them by these labels). */
function rowsFor(result: SizeResult): Row[] {
  const { ours, peer } = result;
  return [
    { label: "floor: read every file + scan mentions", ours: ms(result.floorMs) },
    peer?.coldTimeoutMs
      ? { label: "cold start → complete diagnostics", ours: ms(ours.cold?.ms), theirs: `> ${ms(peer.coldTimeoutMs)}`, ratio: ours.cold ? `< ${(ours.cold.ms / peer.coldTimeoutMs).toFixed(2)}` : "" }
      : pair("cold start → complete diagnostics", ours.cold?.ms, peer?.cold?.ms),
    { label: "  cold start as a multiple of the floor", ours: ours.cold ? `${(ours.cold.ms / result.floorMs).toFixed(1)}×` : "—" },
    pair("  server CPU time (user + system) for it", ours.cold?.cpuMs, peer?.cold?.cpuMs),
    pair("  of which: initialize answered", ours.cold?.initializeMs, peer?.cold?.initializeMs),
    pair("  of which: indexed (ours) / all opened (theirs)", ours.cold?.readyMs, peer?.cold?.readyMs),
    { label: "completion after @, median", ours: ms(med(ours.completionMs)) },
    { label: "completion after @, 95th percentile", ours: ms(p95(ours.completionMs)) },
    { label: "completion after @qui, 95th percentile", ours: ms(p95(ours.completionTypedMs)) },
    { label: `semantic tokens, ${count(BIG_MENTIONS)}-mention file`, ours: ms(med(ours.semanticTokensMs)) },
    pair("edit → its diagnostics, median", med(ours.editMs), med(peer?.editMs)),
    pair("edit → its diagnostics, 95th percentile", p95(ours.editMs), p95(peer?.editMs)),
    pair(`change → its ${EDIT_FANOUT} dependents' diagnostics`, med(ours.dependentsMs), med(peer?.dependentsMs)),
    pair("references, 1,000 files", med(ours.referencesMs), med(peer?.referencesMs)),
    pair("rename from a mention/link, 1,000 files", med(ours.renameMs), med(peer?.renameMs)),
    pair("file rename cascade, 1,000 files", med(ours.fileRenameMs), med(peer?.fileRenameMs)),
    pair("resident memory after indexing", ours.rssAfterIndexMb, peer?.rssAfterIndexMb, mb),
    {
      label: "resident memory at the end / peak",
      ours: `${mb(ours.rssMb)} / ${mb(ours.peakMb)}`,
      theirs: peer && !Number.isNaN(peer.peakMb) ? `${mb(peer.rssMb)} / ${mb(peer.peakMb)}` : "—",
      ratio: ratio(ours.peakMb, peer?.peakMb),
    },
  ];
}

function printTable(results: readonly SizeResult[], context: Record<string, unknown>): void {
  const out: string[] = [];
  const line = (row: Row) => out.push(`${row.label.padEnd(50)}${row.ours.padStart(16)}${(row.theirs ?? "").padStart(16)}${(row.ratio ?? "").padStart(13)}`);
  out.push(`skill-lsp bench: ${context["cpus"]} cores (${context["cpu"]}), node ${process.version}, peer vscode-markdown-languageserver ${context["peerVersion"]}`);
  out.push(`load average before ${context["loadBefore"]}, after ${context["loadAfter"]} (1, 5, 15 min); an empty node starts in ${ms(context["nodeStartMs"] as number)}`);
  out.push("Figures are medians unless marked. ours/theirs below 1: skill-lsp is faster (or smaller).");
  for (const result of results) {
    const { workspace, ours, peer } = result;
    out.push("");
    out.push(
      `== ${count(result.count)} files: ${(workspace.bytes / 1e6).toFixed(1)} MB of skills, ${count(workspace.mentions)} mentions (${count(workspace.dangling)} dangling), ` +
        `${count(workspace.renameDependents)} files mention @${RENAME_HUB}; the Markdown twin has the same links ==`,
    );
    if (peer?.failure) out.push(`   peer: ${peer.failure}`);
    if (peer?.coldTimeoutMs) out.push(`   peer: its cold start did not finish in ${ms(peer.coldTimeoutMs)}; its other figures come from a fresh process with only the files they use open`);
    line({ label: "", ours: "skill-lsp", theirs: "markdown-ls", ratio: "ours/theirs" });
    for (const row of rowsFor(result)) line(row);
    const sane = ours.cold?.dangling === workspace.dangling && (peer?.cold === undefined || peer.cold.dangling === workspace.dangling);
    out.push(
      `   check: ${count(ours.cold?.dangling ?? 0)} unknown mentions, ${peer?.cold ? count(peer.cold.dangling) : "—"} broken links, ${count(workspace.dangling)} generated; ` +
        `references ${count(ours.references)} / ${peer?.referencesMs.length ? count(peer.references) : "—"}, ` +
        `rename edits ${count(ours.renameFiles)} / ${peer?.renameMs.length ? count(peer.renameFiles) : "—"} files, ` +
        `cascade ${count(ours.fileRenameFiles)} / ${peer?.fileRenameMs.length ? count(peer.fileRenameFiles) : "—"} files${sane ? "" : "  (MISMATCH)"}`,
    );
  }
  if (results.length > 1) {
    const first = results[0];
    const last = results[results.length - 1];
    out.push("");
    out.push(`== growth with the workspace (skill-lsp): ${count(first?.count ?? 0)} → ${count(last?.count ?? 0)} files is ${((last?.count ?? 0) / (first?.count ?? 1)).toFixed(0)}× ==`);
    out.push(`${"".padEnd(50)}${results.map((result) => count(result.count).padStart(12)).join("")}${"growth".padStart(10)}`);
    const growthRows: [string, (result: SizeResult) => number | undefined, (value: number | undefined) => string][] = [
      ["floor", (result) => result.floorMs, ms],
      ["cold start → complete diagnostics", (result) => result.ours.cold?.ms, ms],
      ["  server CPU time for it", (result) => result.ours.cold?.cpuMs, ms],
      ["completion after @, 95th percentile", (result) => p95(result.ours.completionMs), ms],
      ["completion after @qui, 95th percentile", (result) => p95(result.ours.completionTypedMs), ms],
      ["edit → its diagnostics, median", (result) => med(result.ours.editMs), ms],
      [`change → its ${EDIT_FANOUT} dependents' diagnostics`, (result) => med(result.ours.dependentsMs), ms],
      ["rename from a mention, 1,000 files", (result) => med(result.ours.renameMs), ms],
      ["file rename cascade, 1,000 files", (result) => med(result.ours.fileRenameMs), ms],
      ["resident memory after indexing", (result) => result.ours.rssAfterIndexMb, mb],
    ];
    for (const [label, pick, format] of growthRows) {
      const a = first ? pick(first) : undefined;
      const b = last ? pick(last) : undefined;
      const growth = a !== undefined && b !== undefined && a > 0 ? `${(b / a).toFixed(1)}×` : "—";
      out.push(`${label.padEnd(50)}${results.map((result) => format(pick(result)).padStart(12)).join("")}${growth.padStart(10)}`);
    }
  }
  const target = results.find((result) => result.count === 10000);
  if (target) {
    const { ours, peer } = target;
    out.push("");
    out.push("== targets at 10,000 skills ==");
    const check = (label: string, holds: boolean | undefined, figure: string) => out.push(`${label.padEnd(50)}${figure.padStart(16)}   ${holds === undefined ? "not measured" : holds ? "holds" : "MISSED"}`);
    const rename = Math.max(med(ours.renameMs) ?? Number.NaN, med(ours.fileRenameMs) ?? Number.NaN);
    check("cold start → complete diagnostics < 1 s", ours.cold ? ours.cold.ms < 1000 : undefined, ms(ours.cold?.ms));
    check("completion 95th percentile < 5 ms", (p95(ours.completionMs) ?? Infinity) < 5, ms(p95(ours.completionMs)));
    check("edit → its diagnostics < 10 ms", (med(ours.editMs) ?? Infinity) < 10, ms(med(ours.editMs)));
    check("1,000-file rename < 150 ms", rename < 150, ms(rename));
    check("resident memory < 150 MB", ours.peakMb < 150, mb(ours.peakMb));
    const pairs: [number | undefined, number | undefined][] = [
      [ours.cold?.ms, peer?.cold?.ms ?? peer?.coldTimeoutMs],
      [med(ours.editMs), med(peer?.editMs)],
      [med(ours.dependentsMs), med(peer?.dependentsMs)],
      [med(ours.referencesMs), med(peer?.referencesMs)],
      [med(ours.renameMs), med(peer?.renameMs)],
      [med(ours.fileRenameMs), med(peer?.fileRenameMs)],
    ];
    const measured = pairs.filter(([mine, theirs]) => mine !== undefined && theirs !== undefined);
    const faster = measured.filter(([mine, theirs]) => (mine ?? 0) < (theirs ?? 0)).length;
    check("faster than the Markdown server on every pair", measured.length === pairs.length ? faster === pairs.length : undefined, `${faster}/${pairs.length} pairs`);
  }
  console.log(out.join("\n"));
}

// ---------------------------------------------------------------------------------------------------------------

function nodeStartMs(): number {
  const started = performance.now();
  spawnSync(process.execPath, ["-e", ""]);
  return performance.now() - started;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const plannerAt = argv.indexOf("--planner");
  if (plannerAt !== -1) {
    process.exitCode = await runPlannerBench(argv.filter((_, i) => i !== plannerAt));
    return;
  }
  const graphAt = argv.indexOf("--graph");
  if (graphAt !== -1) {
    process.exitCode = await runBenchModule("graph.ts", argv.filter((_, i) => i !== graphAt));
    return;
  }
  const args = parseArgs(argv);
  if (!existsSync(SERVER)) throw new Error("dist/server.js is missing: build it first with `node esbuild.mjs`.");
  if (args.peer && !peerInstalled()) log(`Installing the peer, ${PEER.name}@${PEER.version}, once into ${PEER_CACHE} (SKILL_LSP_PEER_CACHE)…`);
  const peerSetup = args.peer ? ensurePeer() : { ok: false };
  const peer = args.peer && peerSetup.ok;
  if (args.peer && !peer) log(`${peerSetup.reason ?? "The peer cannot run"}: running without the peer.`);
  const loadBefore = loadavg().map((value) => value.toFixed(2)).join(" ");
  const root = await fs.mkdtemp(path.join(tmpdir(), "skill-bench-"));
  const results: SizeResult[] = [];
  try {
    for (const size of args.sizes) {
      log(`${count(size)} files: generating both workspaces…`);
      const generated = await timed(() => generateWorkspaces(path.join(root, String(size)), size));
      const workspace = generated.value;
      floor(workspace.skills); // warms the page cache
      const floorMs = median([floor(workspace.skills), floor(workspace.skills), floor(workspace.skills)]);
      log(`${count(size)} files: floor ${ms(floorMs)}; running both servers…`);
      const { ours, peer: peerFigures } = await benchSize(workspace, args, peer);
      results.push({
        count: size,
        workspace: {
          bytes: workspace.bytes,
          mentions: workspace.totalMentions,
          dangling: workspace.danglingMentions,
          renameDependents: workspace.renameDependents.length,
          editDependents: workspace.editDependents.length,
          generateMs: generated.ms,
        },
        floorMs,
        ours,
        peer: peerFigures,
      });
      if (!args.keep) await fs.rm(workspace.root, { recursive: true, force: true });
    }
  } finally {
    if (!args.keep) await fs.rm(root, { recursive: true, force: true });
    else log(`workspaces kept in ${root}`);
  }
  const context = {
    cpus: availableParallelism(),
    cpu: cpus()[0]?.model.trim() ?? "?",
    node: process.version,
    peerVersion: peer ? peerVersion() : "not run",
    loadBefore,
    loadAfter: loadavg().map((value) => value.toFixed(2)).join(" "),
    nodeStartMs: nodeStartMs(),
  };
  if (args.out) await fs.writeFile(args.out, JSON.stringify({ context, results }, null, 2));
  if (args.json) console.log(JSON.stringify({ context, results }, null, 2));
  else printTable(results, context);
  // The planner's own cost, on generated models: a plan with and without the reused system prompt, and the
  // pipeline without the model.
  if (args.planner) {
    console.log("");
    // One thread: the generated model is too small to share among threads (two are slower on it, not faster).
    process.exitCode = await runPlannerBench(["--threads", "1", "--runs", "8"]);
  }
  // The graph panel's layout engines (bench/graph.ts).
  if (args.graph && !process.exitCode) {
    console.log("");
    process.exitCode = await runBenchModule("graph.ts", []);
  }
}

/** Another bench module in its own process, its output inline. */
async function runBenchModule(file: string, args: readonly string[]): Promise<number> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(__dirname, file), ...args], { stdio: "inherit" });
  return new Promise<number>((resolve) => child.once("exit", (code) => resolve(code ?? 1)));
}

/** bench/planner.ts in its own process (node-llama-cpp's threads stay out of the server figures). */
async function runPlannerBench(args: readonly string[]): Promise<number> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(__dirname, "planner.ts"), ...args], { stdio: "inherit" });
  return new Promise<number>((resolve) => child.once("exit", (code) => resolve(code ?? 1)));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
