import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { URI } from "vscode-uri";
import {
  createProtocolConnection,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type ClientCapabilities,
  type DataCallback,
  type Diagnostic,
  type Disposable,
  type Message,
  type ProtocolConnection,
} from "vscode-languageserver-protocol/node.js";
import { NamespaceStatusNotification, type NamespaceStatus, type SkillSettings } from "../../shared/protocol.js";

export const REPO = path.resolve(__dirname, "../..");
export const SERVER = path.join(REPO, "dist/server.js");

/** Copies a fixture folder (default: examples/) into a fresh temporary workspace. */
export function copyWorkspace(from = path.join(REPO, "examples")): string {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-lsp-"));
  cpSync(from, folder, { recursive: true });
  return folder;
}

export function uriOf(file: string): string {
  return URI.file(file).toString();
}

export interface ClientOptions {
  /** Pull diagnostics (textDocument/diagnostic) when true, push (publishDiagnostics) when false. */
  readonly pull?: boolean;
  readonly folders: readonly string[];
  /** Sent as `initializationOptions.settings` (this client answers no `workspace/configuration`). */
  readonly settings?: SkillSettings;
  /** Declare, as VS Code does, that completion lists may carry `itemDefaults` (editRange and data). */
  readonly completionItemDefaults?: boolean;
  /** Say, as the VS Code client does, that the editor validates SKILL.md itself. */
  readonly editorValidatesSkillFiles?: boolean;
  /** The client's whole capabilities (a profile): replaces those built from `pull` and `completionItemDefaults`. */
  readonly capabilities?: ClientCapabilities;
  /** False: `start` answers right after `initialized`, while the workspace is being read (then await `indexed`). */
  readonly awaitIndexing?: boolean;
  /**
   * The client answers the server's `window/workDoneProgress/create` once this settles, as a busy editor may
   * answer late: the server's first index waits for its progress, so the workspace is not read meanwhile.
   */
  readonly progressAnswered?: Promise<void>;
}

/** Every message the server sent, in order, and the method of every request the client sent, by id. */
export interface MessageLog {
  readonly received: Message[];
  readonly sentRequests: Map<number | string, string>;
}

class RecordingReader extends StreamMessageReader {
  readonly #log: MessageLog;
  constructor(stream: NodeJS.ReadableStream, log: MessageLog) {
    super(stream);
    this.#log = log;
  }
  override listen(callback: DataCallback): Disposable {
    return super.listen((message) => {
      this.#log.received.push(message);
      callback(message);
    });
  }
}

class RecordingWriter extends StreamMessageWriter {
  readonly #log: MessageLog;
  constructor(stream: NodeJS.WritableStream, log: MessageLog) {
    super(stream);
    this.#log = log;
  }
  override write(message: Message): Promise<void> {
    if ("method" in message && "id" in message && (typeof message.id === "number" || typeof message.id === "string")) this.#log.sentRequests.set(message.id, String(message.method));
    return super.write(message);
  }
}

/** A real client over stdio against the built server: requests, notifications and what the server sent back. */
export class TestClient {
  readonly connection: ProtocolConnection;
  readonly process: ChildProcessWithoutNullStreams;
  readonly pushed = new Map<string, Diagnostic[]>();
  readonly refreshes: string[] = [];
  readonly messages: string[] = [];
  readonly log: MessageLog = { received: [], sentRequests: new Map() };
  status: NamespaceStatus | undefined;
  readonly #versions = new Map<string, number>();
  readonly #waiters: (() => void)[] = [];
  #indexed!: Promise<void>;

  private constructor(child: ChildProcessWithoutNullStreams, progressAnswered?: Promise<void>) {
    this.process = child;
    this.connection = createProtocolConnection(new RecordingReader(child.stdout, this.log), new RecordingWriter(child.stdin, this.log));
    const note = (what: string) => {
      this.refreshes.push(what);
      this.#wake();
      return null;
    };
    this.connection.onRequest("window/workDoneProgress/create", async () => (await progressAnswered, null));
    this.connection.onRequest("client/registerCapability", () => null);
    this.connection.onRequest("workspace/diagnostic/refresh", () => note("diagnostics"));
    this.connection.onRequest("workspace/semanticTokens/refresh", () => note("semanticTokens"));
    this.connection.onRequest("workspace/codeLens/refresh", () => note("codeLens"));
    this.connection.onNotification("window/logMessage", (params: { message: string }) => this.messages.push(params.message));
    this.connection.onNotification("window/showMessage", (params: { message: string }) => this.messages.push(params.message));
    this.connection.onRequest("window/showMessageRequest", (params: { message: string }) => {
      this.messages.push(params.message);
      return null;
    });
    this.connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.pushed.set(params.uri, params.diagnostics);
      this.#wake();
    });
    this.connection.onNotification(NamespaceStatusNotification, (status) => {
      this.status = status;
      this.#wake();
    });
    this.connection.listen();
  }

  static async start(options: ClientOptions): Promise<TestClient> {
    const child = spawn(process.execPath, [SERVER, "--stdio"], { stdio: "pipe" });
    child.stderr.on("data", () => undefined);
    const client = new TestClient(child, options.progressAnswered);
    const pull = options.pull ?? true;
    const capabilities: ClientCapabilities = options.capabilities ?? {
      textDocument: {
        ...(pull ? { diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false } } : {}),
        publishDiagnostics: { relatedInformation: true, dataSupport: true, tagSupport: { valueSet: [1, 2] } },
        completion: {
          completionItem: { snippetSupport: true, labelDetailsSupport: true, documentationFormat: ["markdown", "plaintext"] },
          ...(options.completionItemDefaults ? { completionList: { itemDefaults: ["commitCharacters", "editRange", "insertTextFormat", "insertTextMode", "data"] } } : {}),
        },
        rename: { prepareSupport: true },
        synchronization: { didSave: true },
        hover: { contentFormat: ["markdown", "plaintext"] },
        documentSymbol: { hierarchicalDocumentSymbolSupport: true },
        codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ["quickfix", "source"] } } },
        semanticTokens: { requests: { full: true, range: true }, tokenTypes: [], tokenModifiers: [], formats: ["relative"] },
      },
      workspace: {
        workspaceFolders: true,
        fileOperations: { willRename: true, didRename: true, didCreate: true, didDelete: true },
        workspaceEdit: { documentChanges: true, resourceOperations: ["create", "rename", "delete"] },
        diagnostics: { refreshSupport: true },
        semanticTokens: { refreshSupport: true },
        codeLens: { refreshSupport: true },
        didChangeWatchedFiles: { dynamicRegistration: false },
      },
      window: { workDoneProgress: true },
    };
    await client.connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      capabilities,
      workspaceFolders: options.folders.map((folder) => ({ uri: uriOf(folder), name: path.basename(folder) })),
      initializationOptions: options.settings || options.editorValidatesSkillFiles ? { ...(options.settings ? { settings: options.settings } : {}), ...(options.editorValidatesSkillFiles ? { editorValidatesSkillFiles: true } : {}) } : undefined,
    });
    client.#indexed = client.waitFor(() => client.status !== undefined && !client.status.indexing, 20_000);
    await client.connection.sendNotification(InitializedNotification.type, {});
    if (options.awaitIndexing !== false) await client.#indexed;
    return client;
  }

  /** Resolves once the first status with `indexing: false` came: the workspace is read. */
  get indexed(): Promise<void> {
    return this.#indexed;
  }

  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }

  /** Resolves when the predicate holds, re-checking whenever the server sends something; rejects after the bound. */
  async waitFor(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("Timed out waiting for the server.");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 100));
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async open(uri: string, text: string): Promise<void> {
    this.#versions.set(uri, 1);
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "skill", version: 1, text } });
  }

  /** Replaces the whole text of an open document (a full-range incremental change). */
  async change(uri: string, text: string, range?: { start: { line: number; character: number }; end: { line: number; character: number } }): Promise<number> {
    const version = (this.#versions.get(uri) ?? 0) + 1;
    this.#versions.set(uri, version);
    const contentChanges = range ? [{ range, text }] : [{ text }];
    await this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges });
    return version;
  }

  /**
   * True when the server has the file: a document pull answers a result id for a file it read, none for any
   * other. (The workspace report leaves out clean files the client holds no result for, so it is no list.)
   */
  async has(uri: string): Promise<boolean> {
    const report = await this.connection.sendRequest<{ resultId?: string }>("textDocument/diagnostic", { textDocument: { uri } });
    return report.resultId !== undefined;
  }

  async close(uri: string): Promise<void> {
    this.#versions.delete(uri);
    await this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  }

  version(uri: string): number | undefined {
    return this.#versions.get(uri);
  }

  async stop(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => this.process.once("exit", (code) => resolve(code)));
    await this.connection.sendRequest(ShutdownRequest.type);
    await this.connection.sendNotification(ExitNotification.type);
    const code = await exited;
    this.connection.dispose();
    return code;
  }
}

/** Retries an async check until it passes or the bound runs out: for effects the server applies after a debounce. */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

export function removeWorkspace(folder: string): void {
  rmSync(folder, { recursive: true, force: true });
}
