/**
 * The same skills served from `.skill.md` files and from Agent Skills folders (`skills/<handle>/SKILL.md`):
 * cold start to every file's diagnostics, references and rename of a skill 1,000 files mention, completion
 * after the sigil, in both workspaces, with the ratio of the folders' figure to the files'.
 *
 *     node --import tsx bench/agentSkills.ts [--size 10000] [--rounds 9]
 */
import { promises as fs, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { URI } from "vscode-uri";
import { SERVER_NODE_FLAGS } from "../shared/protocol.js";
import { generateWorkspaces, percentile, RENAME_HUB, spawnServer, type GeneratedWorkspace } from "./workspace.js";

const SERVER = path.resolve(__dirname, "../dist/server.js");

interface Figures {
  readonly coldMs: number;
  readonly referencesMs: number;
  readonly renameMs: number;
  readonly completionMs: number;
  readonly references: number;
  readonly renamedFiles: number;
}

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

function positionAt(text: string, offset: number): { line: number; character: number } {
  const before = text.slice(0, offset);
  return { line: before.split("\n").length - 1, character: offset - before.lastIndexOf("\n") - 1 };
}

async function measure(folder: string, fileOf: (handle: string) => string, sigil: string, workspace: GeneratedWorkspace, rounds: number): Promise<Figures> {
  const server = spawnServer(process.execPath, [...SERVER_NODE_FLAGS, SERVER, "--stdio"]);
  const connection = server.connection;
  let indexed: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (indexed = resolve));
  for (const method of ["window/workDoneProgress/create", "client/registerCapability", "workspace/diagnostic/refresh", "workspace/semanticTokens/refresh", "workspace/codeLens/refresh"]) connection.onRequest(method, () => null);
  connection.onNotification("skill/status", (status: { indexing?: boolean }) => status.indexing === false && indexed());
  connection.onNotification("$/progress", () => undefined);
  connection.onNotification("window/logMessage", () => undefined);
  connection.listen();
  try {
    await connection.sendRequest("initialize", {
      processId: process.pid,
      rootUri: null,
      workspaceFolders: [{ uri: URI.file(folder).toString(), name: "bench" }],
      capabilities: {
        textDocument: { diagnostic: {}, completion: { completionItem: { snippetSupport: true }, completionList: { itemDefaults: ["editRange", "data"] } }, rename: { prepareSupport: true } },
        workspace: { workspaceFolders: true, workspaceEdit: { documentChanges: true, resourceOperations: ["create", "rename", "delete"] }, diagnostics: { refreshSupport: true } },
        window: { workDoneProgress: true },
      },
    });
    await connection.sendNotification("initialized", {});
    await ready;
    const report = await connection.sendRequest<{ items: unknown[] }>("workspace/diagnostic", { previousResultIds: [] });
    const coldMs = performance.now() - server.spawnedAt;
    if (report.items.length < workspace.count) throw new Error(`${report.items.length} diagnostics reports for ${workspace.count} files`);

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
    const median = (values: number[]) => percentile(values, 50);
    return { coldMs, referencesMs: median(times.references), renameMs: median(times.rename), completionMs: median(times.completion), references, renamedFiles };
  } finally {
    await connection.sendRequest("shutdown").catch(() => undefined);
    await connection.sendNotification("exit").catch(() => undefined);
    server.child.kill();
  }
}

async function main(): Promise<void> {
  const size = arg("--size", 10_000);
  const rounds = arg("--rounds", 9);
  const root = await fs.mkdtemp(path.join(tmpdir(), "skill-bench-agent-"));
  try {
    const workspace = await generateWorkspaces(root, size, undefined, "distinct", { agentSkills: true });
    const agent = workspace.agentSkills ?? "";
    const files = await measure(workspace.skills, (handle) => path.join(workspace.skills, `${handle}.skill.md`), "@", workspace, rounds);
    const folders = await measure(agent, (handle) => path.join(agent, "skills", handle, "SKILL.md"), "/", workspace, rounds);
    const row = (label: string, a: number, b: number) => `| ${label} | ${a.toFixed(0)} ms | ${b.toFixed(0)} ms | ${(b / a).toFixed(2)}× |`;
    console.log(`${size.toLocaleString("en")} skills, median of ${rounds} rounds (cold start: one run)\n`);
    console.log("| figure | .skill.md files | SKILL.md folders | ratio |\n| --- | --- | --- | --- |");
    console.log(row("cold start to every file's diagnostics", files.coldMs, folders.coldMs));
    console.log(row(`references of a skill (${files.references} / ${folders.references} locations)`, files.referencesMs, folders.referencesMs));
    console.log(row(`rename of that skill (${files.renamedFiles} / ${folders.renamedFiles} files edited)`, files.renameMs, folders.renameMs));
    console.log(row("completion after the sigil", files.completionMs, folders.completionMs));
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
