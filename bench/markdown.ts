/**
 * The peer: `vscode-markdown-languageserver`, the server behind VS Code's Markdown links, driven over stdio on the
 * Markdown twin of the skill workspace.
 *
 * That server reads nothing by itself: it asks its client. The client side it needs is here:
 * - `markdown/findMarkdownFilesInWorkspace`, `markdown/fs/readFile` (bytes as a number array), `markdown/fs/stat`,
 *   `markdown/fs/readDirectory`, answered from disk;
 * - `markdown/fs/watcher/create` / `delete`: remembered, so a deletion can be reported back with
 *   `markdown/fs/watcher/onChange`, the way VS Code's file watcher does;
 * - `markdown/parse`: VS Code answers with markdown-it's tokens. markdown-it is not installed here, so
 *   `tokenize` below emits the only tokens the service reads for links and diagnostics: headings
 *   (`heading_open`/`inline`/`heading_close`, for the table of contents) and code blocks (`fence`,
 *   `code_block`, where links are not links). The links themselves the service finds with its own regular
 *   expressions. This costs the peer less than markdown-it would, so its figures here are, if anything, flattering.
 *
 * Its diagnostics are pulled per open document only (`workspaceDiagnostics: false`, and a closed document
 * answers nothing), so "all diagnostics" means: open every file, then pull each one, as VS Code would have to.
 */
import { spawnSync } from "node:child_process";
import { promises as fs, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { URI } from "vscode-uri";
import type { Diagnostic, Location, WorkspaceEdit } from "vscode-languageserver-protocol";
import VSCODE_DIAGNOSTICS from "./vscodeDiagnostics.json";
import { cpuTimeOf, EDIT_HUB, editedFiles, positionAt, RENAME_HUB, spawnServer, stopServer, timed, type ColdFigures, type GeneratedWorkspace, type OpenEditorsFigures, type ServerProcess, type Subject } from "./workspace.js";

/**
 * The peer is a benchmark's need, not a user's (it also asks for Node 22): it is installed on demand, once, into
 * a cache outside the repository's dependencies, shared by every checkout on the machine.
 */
export const PEER = Object.freeze({ name: "vscode-markdown-languageserver", version: "0.5.0" });
export const PEER_CACHE = path.resolve(process.env.SKILL_LSP_PEER_CACHE ?? path.join(homedir(), ".cache", "skill-lsp", "bench-peer"));
const PEER_DIR = path.join(PEER_CACHE, `${PEER.name}-${PEER.version}`);
const SERVER = path.join(PEER_DIR, "node_modules", PEER.name, "dist", "node", "workerMain.js");

export function peerVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(path.dirname(SERVER), "../../package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "missing";
  }
}

export function peerInstalled(): boolean {
  try {
    return statSync(SERVER).isFile();
  } catch {
    return false;
  }
}

/**
 * Installs the peer into its cache folder unless it is there: into a `.partial` folder, renamed when complete,
 * so an interrupted install is redone. Answers whether the peer can run, with the reason when not.
 */
export function ensurePeer(): { readonly ok: boolean; readonly reason?: string } {
  if (peerInstalled()) return { ok: true };
  const partial = `${PEER_DIR}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  writeFileSync(path.join(partial, "package.json"), JSON.stringify({ name: "skill-lsp-bench-peer", private: true }));
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["install", "--no-save", "--no-audit", "--no-fund", "--engine-strict=false", "--loglevel=error", `${PEER.name}@${PEER.version}`], { cwd: partial, encoding: "utf8" });
  if (result.status !== 0) return { ok: false, reason: `npm install ${PEER.name}@${PEER.version} failed: ${(result.stderr || result.error?.message || "").trim().split("\n")[0] ?? ""}` };
  rmSync(PEER_DIR, { recursive: true, force: true });
  renameSync(partial, PEER_DIR);
  return peerInstalled() ? { ok: true } : { ok: false, reason: `${SERVER} is missing after the install` };
}

/** A markdown-it token, reduced to the fields the Markdown language service reads. */
interface Token {
  type: string;
  tag: string;
  map: [number, number] | null;
  nesting: number;
  level: number;
  children: Token[] | null;
  content: string;
  markup: string;
  info: string;
  block: boolean;
  hidden: boolean;
}

function token(type: string, fields: Partial<Token>): Token {
  return { type, tag: "", map: null, nesting: 0, level: 0, children: null, content: "", markup: "", info: "", block: true, hidden: false, ...fields };
}

/** ATX headings and fenced code blocks as markdown-it would emit them (see the file comment for why only these). */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const lines = text.split(/\r?\n/);
  let fence: { marker: string; start: number; info: string } | undefined;
  const body: string[] = [];
  for (let line = 0; line < lines.length; line++) {
    const content = lines[line] ?? "";
    if (fence) {
      if (content.trimStart().startsWith(fence.marker)) {
        tokens.push(token("fence", { tag: "code", map: [fence.start, line + 1], content: body.join("\n"), markup: fence.marker, info: fence.info }));
        fence = undefined;
        body.length = 0;
      } else body.push(content);
      continue;
    }
    const opening = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(content);
    if (opening) {
      fence = { marker: opening[1] ?? "```", start: line, info: (opening[2] ?? "").trim() };
      continue;
    }
    const heading = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(content);
    if (heading) {
      const markup = heading[1] ?? "#";
      const title = heading[2] ?? "";
      tokens.push(token("heading_open", { tag: `h${markup.length}`, map: [line, line + 1], nesting: 1, markup }));
      tokens.push(token("inline", { map: [line, line + 1], content: title, level: 1, children: [token("text", { content: title, block: false })] }));
      tokens.push(token("heading_close", { tag: `h${markup.length}`, nesting: -1, markup }));
    }
  }
  if (fence) tokens.push(token("fence", { tag: "code", map: [fence.start, lines.length], content: body.join("\n"), markup: fence.marker, info: fence.info }));
  return tokens;
}

/** VS Code's defaults, with validation on (it is off by default in VS Code). */
const SETTINGS = {
  markdown: {
    server: { log: "off" },
    preferredMdPathExtensionStyle: "auto",
    suggest: { paths: { enabled: true, includeWorkspaceHeaderCompletions: "never" } },
    occurrencesHighlight: { enabled: false },
    validate: {
      enabled: true,
      referenceLinks: { enabled: "warning" },
      fragmentLinks: { enabled: "warning" },
      fileLinks: { enabled: "warning", markdownFragmentLinks: "inherit" },
      ignoredLinks: [],
      unusedLinkDefinitions: { enabled: "hint" },
      duplicateLinkDefinitions: { enabled: "warning" },
    },
  },
};

/** The client side of the peer: answers its file-system and parse requests from disk and from the open texts. */
class MarkdownClient {
  readonly server: ServerProcess;
  readonly #folder: string;
  readonly open = new Map<string, { text: string; version: number }>();
  readonly #watchers = new Map<number, string>();
  readonly #files: string[];
  refreshes = 0;

  constructor(folder: string) {
    this.#folder = folder;
    this.#files = readdirSync(folder).filter((name) => name.endsWith(".md")).map((name) => URI.file(path.join(folder, name)).toString());
    this.server = spawnServer(process.execPath, [SERVER, "--stdio"]);
    const connection = this.server.connection;
    const fsPath = (uri: string) => URI.parse(uri).fsPath;
    connection.onRequest("markdown/findMarkdownFilesInWorkspace", () => this.#files);
    connection.onRequest("markdown/parse", async (params: { uri: string; text?: string }) => {
      const text = params.text ?? this.open.get(params.uri)?.text ?? (await fs.readFile(fsPath(params.uri), "utf8"));
      return tokenize(text);
    });
    connection.onRequest("markdown/fs/readFile", async (params: { uri: string }) => Array.from(await fs.readFile(fsPath(params.uri))));
    connection.onRequest("markdown/fs/stat", async (params: { uri: string }) => {
      const stat = await fs.stat(fsPath(params.uri)).catch(() => undefined);
      return stat ? { isDirectory: stat.isDirectory() } : undefined;
    });
    connection.onRequest("markdown/fs/readDirectory", async (params: { uri: string }) => {
      const entries = await fs.readdir(fsPath(params.uri), { withFileTypes: true }).catch(() => []);
      return entries.map((entry) => [entry.name, { isDirectory: entry.isDirectory() }]);
    });
    connection.onRequest("markdown/fs/watcher/create", (params: { id: number; uri: string }) => {
      this.#watchers.set(params.id, params.uri);
      return null;
    });
    connection.onRequest("markdown/fs/watcher/delete", (params: { id: number }) => {
      this.#watchers.delete(params.id);
      return null;
    });
    connection.onRequest("workspace/diagnostic/refresh", () => {
      this.refreshes++;
      return null;
    });
    connection.onRequest("client/registerCapability", () => null);
    connection.onRequest("client/unregisterCapability", () => null);
    connection.onRequest("window/workDoneProgress/create", () => null);
    connection.onRequest("workspace/configuration", (params: { items: { section?: string }[] }) => params.items.map(() => SETTINGS));
    connection.onNotification("window/logMessage", () => undefined);
    connection.onNotification("$/progress", () => undefined);
    connection.listen();
  }

  get files(): readonly string[] {
    return this.#files;
  }

  uriOf(handle: string): string {
    return URI.file(path.join(this.#folder, `${handle}.md`)).toString();
  }

  async initialize(): Promise<void> {
    const connection = this.server.connection;
    await connection.sendRequest("initialize", {
      processId: process.pid,
      rootUri: URI.file(this.#folder).toString(),
      workspaceFolders: [{ uri: URI.file(this.#folder).toString(), name: "markdown" }],
      initializationOptions: { markdownFileExtensions: ["md"] },
      capabilities: {
        textDocument: { ...VSCODE_DIAGNOSTICS, rename: { prepareSupport: true }, synchronization: { didSave: true } },
        workspace: { workspaceFolders: true, configuration: true, diagnostics: { refreshSupport: true }, workspaceEdit: { documentChanges: true, resourceOperations: ["create", "rename", "delete"] } },
        window: { workDoneProgress: true },
      },
    });
    await connection.sendNotification("initialized", {});
    await connection.sendNotification("workspace/didChangeConfiguration", { settings: SETTINGS });
  }

  async openAll(): Promise<void> {
    for (let i = 0; i < this.#files.length; i += 256) {
      const slice = this.#files.slice(i, i + 256);
      const texts = await Promise.all(slice.map((uri) => fs.readFile(URI.parse(uri).fsPath, "utf8")));
      await Promise.all(slice.map((uri, index) => this.openText(uri, texts[index] ?? "")));
    }
  }

  async openText(uri: string, text: string): Promise<void> {
    this.open.set(uri, { text, version: 1 });
    await this.server.connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "markdown", version: 1, text } });
  }

  async close(uri: string): Promise<void> {
    this.open.delete(uri);
    await this.server.connection.sendNotification("textDocument/didClose", { textDocument: { uri } });
  }

  async replace(uri: string, offset: number, length: number, newText: string): Promise<void> {
    const document = this.open.get(uri);
    if (!document) throw new Error(`${uri} is not open`);
    const range = { start: positionAt(document.text, offset), end: positionAt(document.text, offset + length) };
    document.text = document.text.slice(0, offset) + newText + document.text.slice(offset + length);
    document.version++;
    await this.server.connection.sendNotification("textDocument/didChange", { textDocument: { uri, version: document.version }, contentChanges: [{ range, text: newText }] });
  }

  async diagnostics(uri: string): Promise<Diagnostic[]> {
    const report = await this.server.connection.sendRequest<{ kind: string; items?: Diagnostic[] }>("textDocument/diagnostic", { textDocument: { uri } });
    return report.items ?? [];
  }

  /** Pulls many documents' diagnostics with a bounded number of requests in flight. */
  async diagnoseAll(uris: readonly string[], inFlight = 64): Promise<Map<string, Diagnostic[]>> {
    const results = new Map<string, Diagnostic[]>();
    let next = 0;
    const worker = async () => {
      while (next < uris.length) {
        const uri = uris[next++] ?? "";
        results.set(uri, await this.diagnostics(uri));
      }
    };
    await Promise.all(Array.from({ length: Math.min(inFlight, uris.length) }, worker));
    return results;
  }

  /** Reports a deleted or re-created file to the watchers the server asked for, as VS Code's watcher would. */
  async fileEvent(uri: string, kind: "create" | "delete"): Promise<void> {
    const ids = [...this.#watchers].filter(([, watched]) => watched === uri).map(([id]) => id);
    await Promise.all(ids.map((id) => this.server.connection.sendRequest("markdown/fs/watcher/onChange", { id, uri, kind })));
  }
}

/** The peer under test: its client, and the operations the two servers share. */
export class MarkdownSubject implements Subject {
  readonly #client: MarkdownClient;
  readonly #workspace: GeneratedWorkspace;
  #edits = 0;
  #hubGone = false;
  readonly #hubText: string;

  constructor(workspace: GeneratedWorkspace) {
    this.#workspace = workspace;
    this.#client = new MarkdownClient(workspace.markdown);
    this.#hubText = readFileSync(URI.parse(this.#client.uriOf(EDIT_HUB)).fsPath, "utf8");
  }

  get server(): ServerProcess {
    return this.#client.server;
  }

  /** The user's scenario on this fresh process: the editors opened right after `initialize`, then their diagnostics pulled. */
  async openEditors(handles: readonly string[]): Promise<OpenEditorsFigures> {
    const client = this.#client;
    const spawnedAt = client.server.spawnedAt;
    await client.initialize();
    const uris = handles.map((handle) => client.uriOf(handle));
    const texts = await Promise.all(uris.map((uri) => fs.readFile(URI.parse(uri).fsPath, "utf8")));
    await Promise.all(uris.map((uri, k) => client.openText(uri, texts[k] ?? "")));
    const all = await client.diagnoseAll(uris);
    const ms = performance.now() - spawnedAt;
    let dangling = 0;
    for (const items of all.values()) dangling += items.filter((item) => item.code === "link.no-such-file").length;
    const expected = texts.reduce((sum, text) => sum + (text.match(/\]\(\.\/missing-/g)?.length ?? 0), 0);
    return { ms, dangling, expected };
  }

  /** Spawn, initialize, open every file (its diagnostics answer open documents only), pull each one. */
  async cold(): Promise<ColdFigures> {
    const client = this.#client;
    const spawnedAt = client.server.spawnedAt;
    await client.initialize();
    const initializeMs = performance.now() - spawnedAt;
    await client.openAll();
    const readyMs = performance.now() - spawnedAt;
    const all = await client.diagnoseAll(client.files);
    const ms = performance.now() - spawnedAt;
    const cpuMs = cpuTimeOf(client.server.child.pid);
    let dangling = 0;
    for (const items of all.values()) dangling += items.filter((item) => item.code === "link.no-such-file").length;
    return { ms, cpuMs, initializeMs, readyMs, files: all.size, dangling };
  }

  /**
   * For the operations without the cold start: initialize, then open only the files they use and pull their
   * diagnostics (which sets up the file watchers the dependents rely on). Its pull diagnostics cost grows with
   * the square of the files (each pull walks every linked-to file's watcher entry), so past a few thousand files
   * the cold start times out and the run goes on from here.
   */
  async prepare(): Promise<void> {
    const client = this.#client;
    await client.initialize();
    const handles = [this.#workspace.plain, EDIT_HUB, ...this.#workspace.editDependents, this.#workspace.renameDependents[0] ?? ""];
    const uris = [...new Set(handles.map((handle) => client.uriOf(handle)))];
    for (const uri of uris) await client.openText(uri, await fs.readFile(URI.parse(uri).fsPath, "utf8"));
    await client.diagnoseAll(uris);
  }

  async edit(): Promise<number> {
    const plain = this.#client.uriOf(this.#workspace.plain);
    const at = (this.#client.open.get(plain)?.text ?? "").indexOf("\n\n") + 2;
    const insert = this.#edits++ % 2 === 0;
    const { ms } = await timed(async () => {
      await this.#client.replace(plain, at, insert ? 0 : 1, insert ? "x" : "");
      await this.#client.diagnostics(plain);
    });
    return ms;
  }

  /**
   * The file 100 others link to disappears (closed, deleted, reported by the file watcher the server asked for,
   * as VS Code's watcher would), or comes back: until every dependent's pulled diagnostics show it.
   */
  async dependents(): Promise<number> {
    const client = this.#client;
    const hub = client.uriOf(EDIT_HUB);
    const hubPath = URI.parse(hub).fsPath;
    const dependents = this.#workspace.editDependents.map((handle) => client.uriOf(handle));
    const gone = !this.#hubGone;
    const brokenTo = (items: readonly Diagnostic[]) => items.some((item) => item.code === "link.no-such-file" && item.message.includes(EDIT_HUB));
    const { ms } = await timed(async () => {
      if (gone) {
        await client.close(hub);
        await fs.rename(hubPath, `${hubPath}.away`);
        await client.fileEvent(hub, "delete");
      } else {
        await fs.rename(`${hubPath}.away`, hubPath);
        await client.fileEvent(hub, "create");
        await client.openText(hub, this.#hubText);
      }
      this.#hubGone = gone;
      for (;;) {
        const results = await client.diagnoseAll(dependents, dependents.length);
        if ([...results.values()].every((items) => brokenTo(items) === gone)) break;
      }
    });
    return ms;
  }

  #linkToHub(): { uri: string; position: { line: number; character: number } } {
    const uri = this.#client.uriOf(this.#workspace.renameDependents[0] ?? "");
    const text = this.#client.open.get(uri)?.text ?? "";
    return { uri, position: positionAt(text, text.indexOf(`(./${RENAME_HUB}.md)`) + 3) };
  }

  async references(): Promise<{ ms: number; count: number }> {
    const { uri, position } = this.#linkToHub();
    const { ms, value } = await timed(() => this.#client.server.connection.sendRequest<Location[] | null>("textDocument/references", { textDocument: { uri }, position, context: { includeDeclaration: true } }));
    return { ms, count: value?.length ?? 0 };
  }

  /** Rename on the link's path: the file is renamed and every link to it rewritten. */
  async rename(): Promise<{ ms: number; files: number; bytes: number }> {
    const { uri, position } = this.#linkToHub();
    const { ms, value } = await timed(() => this.#client.server.connection.sendRequest<WorkspaceEdit | null>("textDocument/rename", { textDocument: { uri }, position, newName: `./${RENAME_HUB}-2.md` }));
    return { ms, files: editedFiles(value), bytes: Buffer.byteLength(JSON.stringify(value)) };
  }

  /** `markdown/getEditForFileRenames`: what VS Code asks when a Markdown file is moved in the explorer. */
  async fileRename(): Promise<{ ms: number; files: number }> {
    const files = [{ oldUri: this.#client.uriOf(RENAME_HUB), newUri: this.#client.uriOf(`${RENAME_HUB}-3`) }];
    const { ms, value } = await timed(() => this.#client.server.connection.sendRequest<{ edit: WorkspaceEdit } | null>("markdown/getEditForFileRenames", files));
    return { ms, files: editedFiles(value?.edit) };
  }

  async stop(): Promise<void> {
    const hubPath = URI.parse(this.#client.uriOf(EDIT_HUB)).fsPath;
    if (this.#hubGone) await fs.rename(`${hubPath}.away`, hubPath).catch(() => undefined);
    await stopServer(this.#client.server, 2000).catch(() => undefined);
    if (this.#client.server.child.exitCode === null) this.#client.server.child.kill("SIGKILL");
  }
}
