import { readdir } from "node:fs/promises";
import * as path from "node:path";
import {
  CodeLensRefreshRequest,
  DidChangeWatchedFilesNotification,
  DocumentDiagnosticReportKind,
  ErrorCodes,
  FileChangeType,
  LSPErrorCodes,
  ProposedFeatures,
  ResponseError,
  SemanticTokensRefreshRequest,
  WorkspaceDiagnosticRequest,
  createConnection,
  type Connection,
  type Diagnostic,
  type InitializeParams,
  type InitializeResult,
  type WorkspaceEdit,
  type WorkDoneProgressServerReporter,
  type WorkspaceDocumentDiagnosticReport,
} from "vscode-languageserver/node.js";
import {
  AlignmentRequest,
  CreateBuiltinsRequest,
  ExpandRequest,
  ExportBundleRequest,
  PlanImportRequest,
  MintRequest,
  NamespaceStatusNotification,
  NewSkillRequest,
  RenameSkillRequest,
  SkillAtRequest,
  TOKEN_MODIFIERS,
  TOKEN_TYPES,
  ToolDescriptionRequest,
  type SkillInitializationOptions,
  type SkillSettings,
} from "../../../shared/protocol.js";
import { CONFIG_FILE_NAME, IGNORE_FILE_NAME, IgnoreRules, MoveDetector, Namespace, isRefusal, isSkillUri, skillBodyFingerprint, type Refusal } from "../core/index.js";
import { ListedWorkspace, namesOf } from "../node/listedWorkspace.js";
import { ThreadedPairFinder } from "../node/threadedJoin.js";
import { canonicalUri, findWorkspaceFiles, FolderListing, isIgnoredPath, isReadFile, loadFolders, pathFromUri, readIgnoreRules, readWorkspaceFile, readWorkspaceFileSync, uriFromPath } from "../node/workspaceFiles.js";
import { complete, resolveCompletion, type CompletionOptions } from "../service/completion.js";
import { exportSkillBundle, planSkillImport } from "../service/bundles.js";
import { skillClosure, type BundleFile } from "../core/bundle.js";
import { filesOfSkill } from "../node/bundleFiles.js";
import { capOldGenerationGrowth, capOldGenerationGrowthWhenLarge } from "../node/serverRuntime.js";
import { quickFixes } from "../service/codeActions.js";
import { leaveToEditor, toLspDiagnostics } from "../service/diagnostics.js";
import { editEnd, withoutMentionBeingTyped } from "../service/typing.js";
import { fileOf } from "../service/lookup.js";
import { codeLenses, definition, documentSymbols, hover, references, workspaceSymbols } from "../service/navigation.js";
import { moveActions } from "../service/moves.js";
import { prepareRename, rename, willRenameFiles } from "../service/rename.js";
import * as requests from "../service/requests.js";
import {
  fitCodeActions,
  fitCompletionItem,
  fitCompletionList,
  fitDiagnostics,
  fitDocumentSymbols,
  fitEdit,
  fitHover,
  readClientProfile,
  serverCapabilities,
  withFixData,
  type ClientProfile,
} from "./capabilities.js";
import { AnswersFirst } from "./answersFirst.js";
import { GraphHost } from "./graph.js";
import { OpenDocuments } from "./openDocuments.js";
import { PlannerHost } from "./planner.js";
import { RoutingHost } from "./routing.js";
import { semanticTokens } from "../service/semanticTokens.js";
import { VERSION } from "../version.js";
import { countOf } from "../../../shared/words.js";

/** How long a rename this server answered is expected to come back as a file rename from the client. */
const EXPECTED_RENAME_MS = 60_000;

/**
 * The background comparison of the menu's summaries works this long at a time before it lets requests in, in
 * steps of a few summaries. A millisecond, in steps of 16, let a completion wait a millisecond or more: at
 * 100,000 skills its p95 during the comparison was 2.25-2.72 ms against 1.68-2.34 ms now (3 alternating runs).
 */
const MENU_SIMILARITY_SLICE_MS = 0.5;
const MENU_SIMILARITY_STEP_UNITS = 4;
/**
 * From this many skills the comparison shows its progress, to a client that takes progress: it then runs for a
 * fifth of a second and more after the index (bench: about 70 ms at 1,000 skills, 360 ms at 10,000, 2.4 s at
 * 100,000), while the warnings it brings have not come yet.
 */
const COMPARISON_PROGRESS_MIN_SKILLS = 5_000;
/**
 * Background work after an index (the index of who mentions what, completion's table, the menu count, the
 * pushed diagnostics) runs this long at a time, a few skills per step: 256 skills of the mentions a slice took
 * 4 ms at 100,000 skills (garbage collections among them), and completions waited behind.
 */
const BACKGROUND_SLICE_MS = 0.5;
/** Turns of the event loop every background work gives away between its slices. */
const BACKGROUND_YIELD_TURNS = 8;
const MENTIONS_STEP_SKILLS = 16;
const CANDIDATES_STEP_SKILLS = 64;

/**
 * The status bar's menu size is first counted after an index a slice at a time between the requests: at once,
 * the pass over 100,000 skills held the main thread about 80 ms. Past this many slices (edits that keep
 * starting it over) the status counts the rest at once.
 */
const MENU_COUNT_STEP_SKILLS = 64;
const MENU_COUNT_MAX_SLICES = 1000;

/**
 * The first index reports its progress at most this often: a report each slice of reading (4 ms) was 360
 * messages at 50,000 skills, 100 ms of the index's main thread spent writing them.
 */
const PROGRESS_INTERVAL_MS = 100;

/**
 * Closed files' pushed diagnostics are published this many at a time, the requests let in between batches: at
 * 100,000 skills a completion asked right after the first index waited 7 s behind them, all sent at once.
 */
const PUBLISH_BATCH = 32;

/** Refreshes and status updates wait this long, so a burst of changes costs one round trip. */
const REFRESH_DELAY_MS = 40;

/**
 * The workspace report is made this long at a time, then the requests that came are let in. A thousand files at
 * a time, as it was, held the thread 20-40 ms when their diagnostics carried menu-similar warnings.
 */
const WORKSPACE_REPORT_SLICE_MS = 1;
/**
 * The most files, diagnostics and characters of their text (messages, and the messages and files of their
 * related locations) in one part of the workspace report when the client takes it in parts. A request asked
 * meanwhile is answered behind the part being written and read: parts of 100 menu-similar warnings (65 KB) held a
 * completion 4-5 ms (median) while 45,000 files' warnings went out, parts of 25 (17 KB) 1.5 ms. Short diagnostics
 * (a dangling mention's) still go 100 a part: 25 a part, the first report at 50,000 skills came 100-200 ms later.
 * The related locations count since VS Code takes them: counted out, its parts were 38 KB.
 */
const WORKSPACE_REPORT_PART_FILES = 1000;
const WORKSPACE_REPORT_PART_DIAGNOSTICS = 100;
const WORKSPACE_REPORT_PART_CHARACTERS = 10_000;

/**
 * An open editor that names this many skills not read yet is answered after the others asked with it (see
 * #othersFirst), for at most this many turns.
 */
const MANY_UNREAD_NAMES = 64;
const OTHERS_FIRST_MAX_TURNS = 20;

/** How long a typed unknown mention under the cursor waits before it is reported, when no other edit comes. */
const TYPING_IDLE_MS = 1000;

/** A waiting workspace-diagnostics request: the files changed since it last looked, and how to wake it. */
interface DiagnosticsWatcher {
  readonly changed: Set<string>;
  wake: (() => void) | undefined;
}
/**
 * The status (counts and the menu's size) waits longer than diagnostics: with a model's tokenizer it composes
 * the whole menu, 10 to 30 ms at 10,000 skills that must not land among the requests that follow an edit. It is
 * sent at once when an index starts, and {@link INDEXED_STATUS_DELAY_MS} after one ends.
 */
const STATUS_DELAY_MS = 300;
/** How long after the end of an index its status waits, for the requests that end prompts. */
const INDEXED_STATUS_DELAY_MS = 50;

/** The first index waits at most this many rounds of two turns for the restored editors' messages to stop. */
const QUIET_START_ROUNDS = 200;

/** A request waits at most this long for the disk work announced before it (a huge first index), then answers from what is read. */
const SETTLE_WAIT_MS = 10_000;

/** Turns a refusal into the error a client shows to the user. */
function refusalError(refusal: Refusal): ResponseError<void> {
  return new ResponseError(ErrorCodes.InvalidRequest, refusal.refused);
}

/** The characters of a diagnostic's text as sent: its message, and each related location's message and file. */
function textLength(diagnostic: Diagnostic): number {
  let length = diagnostic.message.length;
  for (const related of diagnostic.relatedInformation ?? []) length += related.message.length + related.location.uri.length;
  return length;
}

/**
 * The language server: the only code that knows the connection. Each handler finds the file, returns early
 * when it is not one of ours, and delegates to the service over the core namespace.
 */
export class SkillServer {
  readonly #connection: Connection;
  readonly #answersFirst: AnswersFirst;
  readonly #documents = new OpenDocuments();
  /** Skills no editor has open give up their text; a request that needs it reads the file again. */
  readonly #namespace = new Namespace({ isOpen: (uri) => this.#documents.get(uri) !== undefined, load: (uri) => readWorkspaceFileSync(pathFromUri(uri)) });
  #folders: string[] = [];
  /** What the client announced; until `initialize`, nothing. */
  #client: ClientProfile = readClientProfile({});
  readonly #moves = new MoveDetector();
  /** The client reports file changes on disk (it was sent watched-file events, or it lets the server register for them). */
  #fileEvents = false;
  /** Each workspace folder's ignore rules (its `.skillignore` after the default folders). */
  readonly #ignoreRules = new Map<string, IgnoreRules>();
  /** The editor reports a SKILL.md's name and description problems itself (VS Code's `skill` language). */
  #editorValidatesSkillFiles = false;
  #completion: CompletionOptions = { snippets: true, defaultEditRange: false };
  #indexing = false;
  /** While folders are being read: their listing, once made, for the open editors' diagnostics ahead of the rest. */
  #listing: Promise<ListedWorkspace> | undefined;
  /** The background comparison of the menu's summaries is under way. */
  #comparing = false;
  /** The first step of the first listing, while skill folders are still to be listed (see the diagnostics' handler). */
  #firstListed: Promise<ListedWorkspace | undefined> | undefined;
  /** Tells the listing started at `initialize`, until it ends, that an editor waits for it. */
  #hurryListing: (() => void) | undefined;
  /**
   * Open editors answered from the first listing's claims before the skill folders were all listed: listing
   * them can add a claimant to a name one of them holds (a duplicate), and then their client pulls again.
   */
  readonly #answeredEarly = new Set<string>();
  /** Open editors' diagnostics being answered from a listing, and how many of them let the others go first (see #othersFirst). */
  readonly #listedAnswers = { asked: 0, waiting: 0 };
  /** The same listing once it is made, until the folders are read. */
  #listed: ListedWorkspace | undefined;
  /** The workspace folders' listing, started as soon as `initialize` names them. */
  #firstListing: { readonly folders: readonly string[]; readonly listing: FolderListing } | undefined;
  #pendingStatus: ReturnType<typeof setTimeout> | undefined;
  /** `indexing` as the last status said it; undefined before the first. */
  #statusSentIndexing: boolean | undefined;
  #pendingFlush: NodeJS.Timeout | undefined;
  #othersChanged = false;
  /** Open workspace-diagnostics long polls, each told which files every change affected. */
  readonly #diagnosticsWatchers = new Set<DiagnosticsWatcher>();
  /** Files whose last pulled diagnostics (document or workspace) held a problem: the client may still show it. */
  readonly #problemsSent = new Set<string>();
  /** Disk work (reads after file events and closes, folder loads) runs one job at a time, in the order the client sent it. */
  #diskWork: Promise<void> = Promise.resolve();
  readonly #expectedRenames = new Map<string, number>();
  #pendingPush = new Set<string>();
  /** Closed files whose pushed diagnostics wait to be published, in order, from {@link #publishAt}; each once. */
  readonly #publishQueue: string[] = [];
  readonly #inPublishQueue = new Set<string>();
  #publishAt = 0;
  #publishing = false;
  /**
   * By URI, the number of its diagnostics' current result (a number, held; its text, sent), for the files whose
   * diagnostics changed since the last whole index; every other file's result is {@link #resultEpoch}. A map
   * of every file was 100,000 entries made while the first workspace report waited.
   */
  readonly #resultIds = new Map<string, number>();
  #resultEpoch = 0;
  /** Open documents' last text, to find where each edit ended. */
  readonly #openTexts = new Map<string, string>();
  /** Per open document: the offset where the last edit ended, while a mention typed there is not reported. */
  readonly #typing = new Map<string, { readonly offset: number; readonly timer: NodeJS.Timeout }>();
  #diagnosticsRefreshDue = false;
  /** Documents opened or changed and diagnostics asked for so far: the first index waits until they stop coming. */
  #arrivals = 0;
  #nextResultId = 0;
  #countTokens: requests.TokenCounter;

  readonly #planner: PlannerHost;
  readonly #graph: GraphHost;
  #initialSettings: SkillSettings = {};

  constructor(connection: Connection, answersFirst = new AnswersFirst()) {
    this.#connection = connection;
    this.#answersFirst = answersFirst;
    // Built in the background once the workspace is read: no answer waits for the menu-similar warnings.
    this.#namespace.deferMenuSimilarity();
    this.#planner = new PlannerHost({
      namespace: this.#namespace,
      folders: () => this.#folders,
      settings: () => this.#settings(),
      setTokenCounter: (counter) => this.setTokenCounter(counter),
    });
    this.#graph = new GraphHost({ namespace: this.#namespace, countTokens: () => this.#countTokens, settled: () => this.#settled(), codeLensRefresh: () => this.#client.codeLensRefresh });
  }

  /** The `skill` settings: asked of the client when it can answer, else those it gave at start. */
  async #settings(): Promise<SkillSettings> {
    if (!this.#client.configuration) return this.#initialSettings;
    const settings: unknown = await this.#connection.workspace.getConfiguration("skill").catch(() => undefined);
    return typeof settings === "object" && settings !== null ? (settings as SkillSettings) : this.#initialSettings;
  }

  get namespace(): Namespace {
    return this.#namespace;
  }

  /** Lets the planner supply the loaded model's tokenizer for exact token counts. */
  setTokenCounter(counter: requests.TokenCounter): void {
    this.#countTokens = counter;
    this.#scheduleFlush();
  }

  listen(): void {
    const connection = this.#connection;
    connection.onInitialize((params) => this.#initialize(params));
    connection.onInitialized(() => {
      this.#queueDiskWork(() => this.#loadFolders(this.#folders));
      void this.#initialized();
    });
    connection.onDidChangeWatchedFiles((params) => {
      this.#fileEvents = true;
      const changes = params.changes.map((change) => ({ uri: canonicalUri(change.uri), type: change.type }));
      this.#queueDiskWork(() => this.#onDiskChanges(changes));
    });

    // An open is never an edit being typed, even over a document the client left open under that name.
    this.#documents.onDidOpen((event) => {
      const uri = canonicalUri(event.document.uri);
      this.#forgetTyping(uri);
      // Pushed: an editor just opened shows nothing yet, even over a text read from the disk already (a `skills.json`
      // the listing read), whose setting then changes nothing.
      if (!this.#client.pullDiagnostics) {
        this.#pendingPush.add(uri);
        this.#scheduleFlush();
      }
      // The editors restored at start open one a turn: the work in slices waits until they all have.
      this.#answersFirst.noteMessage();
      // An editor open while the workspace is listed waits for the whole listing: it goes first.
      this.#hurryListing?.();
    });
    this.#documents.onDidChangeContent((event) => {
      this.#arrivals++;
      this.#update(canonicalUri(event.document.uri), event.document.getText());
    });
    this.#documents.onDidClose((event) => this.#queueDiskWork(() => this.#onClose(canonicalUri(event.document.uri))));

    connection.onCompletion((params) => this.#withFile(params.textDocument.uri, (file) => fitCompletionList(complete(this.#namespace, file, params.position, this.#completion), this.#client)));
    connection.onCompletionResolve((item) => fitCompletionItem(resolveCompletion(this.#namespace, item), this.#client));
    connection.onHover((params) => this.#withFile(params.textDocument.uri, (file) => fitHover(hover(this.#namespace, file, params.position), this.#client)));
    connection.onDefinition((params) => this.#withFile(params.textDocument.uri, (file) => definition(this.#namespace, file, params.position)));
    connection.onReferences((params, token) =>
      this.#withFile(params.textDocument.uri, (file) => references(this.#namespace, file, params.position, params.context.includeDeclaration, () => token.isCancellationRequested)),
    );
    connection.onDocumentSymbol((params) => this.#withFile(params.textDocument.uri, (file) => fitDocumentSymbols(file.file.uri, documentSymbols(this.#namespace, file), this.#client)));
    connection.onWorkspaceSymbol((params, token) => workspaceSymbols(this.#namespace, params.query, () => token.isCancellationRequested));
    connection.onCodeLens(async (params) => (await this.#withFile(params.textDocument.uri, (file) => codeLenses(this.#namespace, file, this.#countTokens))) ?? []);
    connection.onCodeAction((params) =>
      this.#withFile(params.textDocument.uri, (file) => {
        // A client without `dataSupport` sends the diagnostics back without their fix data.
        const diagnostics = withFixData(params.context.diagnostics, toLspDiagnostics(this.#namespace.diagnose(file.file.uri)));
        const actions = [...quickFixes(this.#namespace, file, diagnostics, this.#versionOf, params.range), ...moveActions(this.#namespace, this.#moves.moves(this.#namespace), file, diagnostics, this.#versionOf, params.context.only)];
        return fitCodeActions(actions, this.#client);
      }),
    );
    connection.languages.semanticTokens.on(async (params) => ({ data: (await this.#withFile(params.textDocument.uri, (file) => semanticTokens(this.#namespace, file))) ?? [] }));
    connection.languages.semanticTokens.onRange(async (params) => ({ data: (await this.#withFile(params.textDocument.uri, (file) => semanticTokens(this.#namespace, file, params.range))) ?? [] }));

    connection.onPrepareRename((params) =>
      this.#withFile(params.textDocument.uri, (file) => {
        const prepared = prepareRename(this.#namespace, file, params.position);
        if (isRefusal(prepared)) throw refusalError(prepared);
        return prepared;
      }),
    );
    connection.onRenameRequest((params) =>
      this.#withFile(params.textDocument.uri, (file) => {
        const prepared = prepareRename(this.#namespace, file, params.position);
        if (isRefusal(prepared)) throw refusalError(prepared);
        return this.#renameEdit(prepared.placeholder, params.newName);
      }),
    );
    connection.workspace.onWillRenameFiles(async (params) => {
      await this.#settled();
      // A rename this server planned already carries its text edits: cascading again would edit stale text.
      const files = params.files
        .map((file) => ({ oldUri: canonicalUri(file.oldUri), newUri: canonicalUri(file.newUri) }))
        .filter((file) => !this.#takeExpectedRename(file.oldUri, file.newUri));
      const planned = willRenameFiles(this.#namespace, files, this.#versionOf);
      const edit = planned && !isRefusal(planned) ? fitEdit(planned, this.#client) : planned;
      if (isRefusal(edit)) {
        void connection.window.showWarningMessage(edit.refused);
        return null;
      }
      return edit;
    });
    connection.workspace.onDidRenameFiles((params) => {
      for (const file of params.files) {
        this.#queueDiskWork(() => this.#onDiskChange(canonicalUri(file.oldUri), FileChangeType.Deleted));
        this.#queueDiskWork(() => this.#onDiskChange(canonicalUri(file.newUri), FileChangeType.Created));
      }
    });
    connection.workspace.onDidCreateFiles((params) => params.files.forEach((file) => this.#queueDiskWork(() => this.#onDiskChange(canonicalUri(file.uri), FileChangeType.Created))));
    connection.workspace.onDidDeleteFiles((params) => params.files.forEach((file) => this.#queueDiskWork(() => this.#onDiskChange(canonicalUri(file.uri), FileChangeType.Deleted))));

    connection.languages.diagnostics.on(async (params) => {
      this.#arrivals++;
      const uri = canonicalUri(params.textDocument.uri);
      const listing = this.#listing;
      // An open editor's diagnostics need only the files its own handle and its mentions name: read those, not the workspace.
      if (listing && this.#documents.get(uri)) {
        const isOpen = (other: string) => this.#documents.get(other) !== undefined;
        // While the skill folders are listed, the claims the first listing names are read here: an editor whose
        // every name they hold is answered at once (see #answeredEarly), the others once the whole listing adds
        // the claimants it alone finds (a skill deep in a folder).
        let early = false;
        this.#listedAnswers.asked++;
        try {
          if (!this.#listed) {
            const first = await this.#firstListed;
            if (!this.#listed && first) {
              first.readConfigs(this.#namespace, isOpen);
              // Awaited only when it waits: a turn for each editor would answer them all in step, the first last.
              if (first.unreadNames(this.#namespace, uri) >= MANY_UNREAD_NAMES) await this.#othersFirst();
              first.readFor(this.#namespace, uri, isOpen);
              early = this.#client.diagnosticRefresh && first.knowsEveryName(this.#namespace, uri);
              if (early) this.#answeredEarly.add(uri);
            }
          }
          if (!early) {
            const whole = await listing;
            if (whole.unreadNames(this.#namespace, uri) >= MANY_UNREAD_NAMES) await this.#othersFirst();
            whole.readFor(this.#namespace, uri, isOpen);
          }
        } finally {
          this.#listedAnswers.asked--;
        }
      } else await this.#settled();
      if (!this.#namespace.has(uri)) return { kind: DocumentDiagnosticReportKind.Full, items: [] };
      const resultId = this.#resultIdOf(uri);
      if (params.previousResultId === resultId) return { kind: DocumentDiagnosticReportKind.Unchanged, resultId };
      const items = this.#diagnosticsOf(uri);
      this.#noteProblemsSent(uri, items.length);
      this.#answersFirst.noteAnswer();
      return { kind: DocumentDiagnosticReportKind.Full, resultId, items };
    });
    // Taken as a plain request, so that each part of the report is sent here and its write awaited.
    connection.onRequest(WorkspaceDiagnosticRequest.type, async (params, token) => {
      const partialToken = params.partialResultToken;
      const partial =
        partialToken === undefined ? undefined : { report: (part: { items: WorkspaceDocumentDiagnosticReport[] }) => connection.sendProgress(WorkspaceDiagnosticRequest.partialResult, partialToken, part) };
      await this.#settled();
      const previous = new Map(params.previousResultIds.map((entry) => [canonicalUri(entry.uri), entry.value]));
      // What changed while this request waits: after the first look at every file, only those are looked at again.
      const watcher: DiagnosticsWatcher = { changed: new Set(), wake: undefined };
      this.#diagnosticsWatchers.add(watcher);
      try {
        // Every file held, then those the client or its problems still name: read as the report goes, rather
        // than one list of them all made first (at 100,000 skills with 50,000 results held, 50 ms at once).
        const namespace = this.#namespace;
        const problemsSent = this.#problemsSent;
        let candidates: Iterable<string> = (function* () {
          yield* namespace.uris();
          for (const uri of previous.keys()) if (!namespace.has(uri)) yield uri;
          for (const uri of problemsSent) if (!namespace.has(uri) && !previous.has(uri)) yield uri;
        })();
        // A client that gave a partial-result token gets the report in parts as it is made: the editor shows the
        // first files' problems at once, and no report of every file is held or encoded in one piece.
        let reported = false;
        for (;;) {
          let items: WorkspaceDocumentDiagnosticReport[] = [];
          let diagnosticsInPart = 0;
          let charactersInPart = 0;
          let firstHeld: string | undefined;
          let yieldAt = performance.now() + WORKSPACE_REPORT_SLICE_MS;
          let looked = 0;
          for (const uri of candidates) {
            if (++looked % 64 === 0 && performance.now() > yieldAt) {
              await this.#answersFirst.turn();
              if (token.isCancellationRequested) return { items: [] };
              yieldAt = performance.now() + WORKSPACE_REPORT_SLICE_MS;
            }
            if (!this.#namespace.has(uri)) {
              const shown = this.#problemsSent.delete(uri);
              if (previous.has(uri) || shown) items.push({ kind: DocumentDiagnosticReportKind.Full, uri, version: null, items: [] });
            } else {
              firstHeld ??= uri;
              if (previous.get(uri) === this.#resultIdOf(uri)) continue;
              const diagnostics = this.#diagnosticsOf(uri);
              // A clean file needs no entry when the client holds no result for it and was never sent a problem in
              // it (a closed editor keeps its last document pull's): at 50,000 skills the entries of the clean files
              // were 7 MB of a 8 MB first report, a quarter of a second to send and parse.
              if (diagnostics.length === 0 && !previous.has(uri) && !this.#problemsSent.has(uri)) continue;
              this.#noteProblemsSent(uri, diagnostics.length);
              diagnosticsInPart += diagnostics.length;
              for (const diagnostic of diagnostics) charactersInPart += textLength(diagnostic);
              items.push(this.#workspaceEntry(uri, diagnostics));
            }
            const partFull = items.length >= WORKSPACE_REPORT_PART_FILES || diagnosticsInPart >= WORKSPACE_REPORT_PART_DIAGNOSTICS || charactersInPart >= WORKSPACE_REPORT_PART_CHARACTERS;
            if (partial && partFull) {
              const written = partial.report({ items });
              items = [];
              diagnosticsInPart = 0;
              charactersInPart = 0;
              reported = true;
              // The next part waits for this one's write: the connection writes in order, and parts made faster
              // than the client reads them queued the answers to its other requests behind them. The part lives
              // until written: parts made in one turn outlived the young generation together, and 45,000 warned
              // files' parts doubled the resident memory until the next full collection.
              await written;
              await this.#answersFirst.turn();
              if (token.isCancellationRequested) return { items: [] };
              yieldAt = performance.now() + WORKSPACE_REPORT_SLICE_MS;
            }
          }
          // A client that holds no result and gets none would ask again at once, and again: one clean file's
          // result gives it one to send back, and its next request waits for a change.
          const anchor = items.length === 0 && !reported && previous.size === 0 ? firstHeld : undefined;
          if (anchor !== undefined) items.push(this.#workspaceEntry(anchor, []));
          // A long poll: when the client already has every current result, answer once something changes.
          if (items.length > 0 || previous.size === 0 || reported) {
            if (!reported) return { items };
            // Once a part went as progress, the rest does too, and the answer itself is empty (as LSP asks).
            if (items.length > 0) await partial?.report({ items });
            return { items: [] };
          }
          if (watcher.changed.size === 0) {
            await new Promise<void>((resolve) => {
              watcher.wake = resolve;
              token.onCancellationRequested(() => resolve());
            });
            watcher.wake = undefined;
          }
          if (token.isCancellationRequested) return { items: [] };
          candidates = [...watcher.changed];
          watcher.changed.clear();
        }
      } finally {
        this.#diagnosticsWatchers.delete(watcher);
      }
    });

    connection.onRequest(ExpandRequest, (params) => requests.expandHandles(this.#namespace, params.handles));
    connection.onRequest(AlignmentRequest, async () => requests.alignment(this.#namespace, this.#countTokens, await this.#planner.contextSize()));
    connection.onRequest(MintRequest, async (params) => (await this.#settled(), requests.mint(this.#namespace, params.title, params.currentUri && canonicalUri(params.currentUri))));
    connection.onRequest(NewSkillRequest, (params) => requests.newSkill(this.#namespace, params.title, canonicalUri(params.folderUri), params.format));
    connection.onRequest(CreateBuiltinsRequest, (params) => requests.createBuiltins(this.#namespace, canonicalUri(params.folderUri)));
    connection.onRequest(ToolDescriptionRequest, (params) => {
      const description = requests.toolDescription(this.#namespace, params.slug);
      if (description === undefined) throw new ResponseError(ErrorCodes.InvalidParams, `No tool is named @${params.slug}.`);
      return description;
    });
    connection.onRequest(RenameSkillRequest, async (params) => {
      await this.#settled();
      const skill = this.#namespace.skill(canonicalUri(params.uri));
      if (!skill) throw new ResponseError(ErrorCodes.InvalidParams, "This file is not a skill.");
      return this.#renameEdit(skill.slug, params.newName);
    });
    connection.onRequest(ExportBundleRequest, async (params) => {
      const uri = canonicalUri(params.uri);
      // The files of each shared skill's own folder go with it: read here, never run.
      const skill = this.#namespace.skill(uri);
      const closure = skill ? skillClosure(this.#namespace, skill.slug) : [];
      const files = new Map<string, readonly BundleFile[]>();
      if (!isRefusal(closure)) for (const one of closure) if (one.uri.startsWith("file:")) files.set(one.uri, (await filesOfSkill(one.uri)).files);
      const result = exportSkillBundle(this.#namespace, uri, (one) => files.get(one.uri) ?? []);
      if (isRefusal(result)) throw refusalError(result);
      return result;
    });
    connection.onRequest(PlanImportRequest, (params) => {
      const result = planSkillImport(this.#namespace, params.text, canonicalUri(params.folderUri));
      if (isRefusal(result)) throw refusalError(result);
      return result;
    });
    connection.onRequest(SkillAtRequest, (params) => requests.skillAt(this.#namespace, canonicalUri(params.uri)));

    this.#planner.register(connection);
    new RoutingHost({ namespace: this.#namespace, planner: this.#planner, settled: () => this.#settled() }).register(connection);
    this.#graph.register(connection);
    connection.onShutdown(() => this.#planner.dispose());
    this.#documents.listen(connection);
    connection.listen();
  }

  #initialize(params: InitializeParams): InitializeResult {
    const capabilities = params.capabilities;
    this.#client = readClientProfile(capabilities);
    const options: unknown = params.initializationOptions;
    if (typeof options === "object" && options !== null && "settings" in options) this.#initialSettings = (options as { settings: SkillSettings }).settings;
    this.#editorValidatesSkillFiles = typeof options === "object" && options !== null && (options as SkillInitializationOptions).editorValidatesSkillFiles === true;
    this.#completion = { snippets: this.#client.snippets, defaultEditRange: this.#client.defaultEditRange };
    const folders = params.workspaceFolders?.map((folder) => pathFromUri(folder.uri)) ?? (params.rootUri ? [pathFromUri(params.rootUri)] : []);
    this.#folders = folders;
    // No folder, no listing: its reading thread would wait for a load that never comes. While editors are open,
    // their diagnostics wait for the whole listing, which then goes first.
    this.#firstListing = folders.length > 0 ? { folders, listing: new FolderListing(folders, { turn: () => this.#answersFirst.turn() }) } : undefined;
    const started = this.#firstListing?.listing;
    this.#hurryListing = started && (() => started.hurry());
    // The open editors' diagnostics wait for this listing only, not for the first index to begin.
    if (this.#firstListing) {
      const listing = this.#firstListing.listing;
      // One workspace for both steps: what the skill folders' listing adds goes into the first's, whose claims
      // the open editors' answers read while those folders were listed (see the document diagnostics).
      const firstListed = listing.first.then((files) => new ListedWorkspace(files));
      this.#firstListed = firstListed.then((listed) => (listing.skillFolders > 0 ? listed : undefined), () => undefined);
      this.#listing = Promise.all([firstListed, listing.added]).then(([listed, added]) => {
        const claimed = new Set<string>();
        listed.add(added, claimed);
        this.#answerAgain(claimed);
        return this.#listedNow(listed);
      }, () => new ListedWorkspace([]));
    }
    return {
      capabilities: serverCapabilities(this.#client, { tokenTypes: TOKEN_TYPES, tokenModifiers: TOKEN_MODIFIERS }),
      serverInfo: { name: "skill-lsp", version: VERSION },
    };
  }

  /** A skill's rename as an edit this client applies whole, or the refusal that says what to do instead. */
  #renameEdit(slug: string, newName: string): WorkspaceEdit {
    const planned = rename(this.#namespace, slug, newName, this.#versionOf, this.#client.resourceOperations);
    const edit = isRefusal(planned) ? planned : fitEdit(planned, this.#client);
    if (isRefusal(edit)) throw refusalError(edit);
    this.#expectFileRenames(edit);
    return edit;
  }

  async #initialized(): Promise<void> {
    if (this.#client.workspaceFolders) {
      this.#connection.workspace.onDidChangeWorkspaceFolders((event) => {
        for (const removed of event.removed) this.#queueDiskWork(async () => this.#removeFolder(pathFromUri(removed.uri)));
        this.#queueDiskWork(() => this.#loadFolders(event.added.map((folder) => pathFromUri(folder.uri))));
      });
    }
    if (this.#client.watchRegistration) {
      await this.#connection.client.register(DidChangeWatchedFilesNotification.type, {
        watchers: [
          { globPattern: "**/*.skill.md" },
          { globPattern: `**/${CONFIG_FILE_NAME}` },
          { globPattern: `**/${IGNORE_FILE_NAME}` },
          { globPattern: "**/{SKILL,skill,CLAUDE,AGENTS}.md" },
          { globPattern: "**/{.claude,.agents,.codex,skills}/**/*.md" },
        ],
      });
    }
  }

  /**
   * What an editor whose names take many files to read ahead (a skill that names hundreds, see
   * MANY_UNREAD_NAMES) waits for: the other editors asked with it, each of which reads a few files, answered first.
   */
  async #othersFirst(): Promise<void> {
    const answers = this.#listedAnswers;
    answers.waiting++;
    try {
      // Until no other is being answered and a turn passed without a new request (the editors restored at
      // start ask one a turn).
      for (let turn = 0; turn < OTHERS_FIRST_MAX_TURNS; turn++) {
        const arrivals = this.#arrivals;
        await this.#answersFirst.turn();
        if (answers.asked - answers.waiting === 0 && this.#arrivals === arrivals) return;
      }
    } finally {
      answers.waiting--;
    }
  }

  /** The editors answered early that depend on a name the rest of the listing gave a claimant: their client pulls again. */
  #answerAgain(claimed: ReadonlySet<string>): void {
    const again = new Set<string>();
    for (const uri of this.#answeredEarly) {
      if (!this.#namespace.has(uri)) continue;
      for (const slug of namesOf(this.#namespace, uri)) if (claimed.has(slug)) again.add(uri);
    }
    this.#answeredEarly.clear();
    if (again.size === 0) return;
    this.#afterChange(again, true);
    // Sent now rather than after the usual pause: the client pulls again before the index reads on.
    clearTimeout(this.#pendingFlush);
    this.#pendingFlush = undefined;
    this.#flush();
  }

  /** The listing made: the `skills.json` files read, and the pushed diagnostics held back for it sent. */
  #listedNow(listing: ListedWorkspace): ListedWorkspace {
    listing.readConfigs(this.#namespace, (uri) => this.#documents.get(uri) !== undefined);
    this.#listed = listing;
    this.#firstListed = undefined;
    this.#hurryListing = undefined;
    if (this.#pendingPush.size > 0) this.#scheduleFlush();
    return listing;
  }

  /**
   * Waits while the editors restored at start are still opening and asking for their diagnostics (the
   * connection takes one message a turn): each read slice between them would delay the rest of their answers.
   */
  async #quietStart(): Promise<void> {
    for (let round = 0, seen = -1; seen !== this.#arrivals && round < QUIET_START_ROUNDS; round++) {
      seen = this.#arrivals;
      for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async #loadFolders(folders: readonly string[]): Promise<void> {
    if (folders.length === 0) return;
    this.#folders = [...new Set([...this.#folders, ...folders])];
    for (const folder of folders) this.#ignoreRules.set(folder, await readIgnoreRules(folder));
    this.#indexing = true;
    // The first load takes the listing started at `initialize`, if it is of the same folders.
    const first = this.#firstListing?.folders === folders ? this.#firstListing : undefined;
    if (!first) this.#firstListing?.listing.close();
    this.#firstListing = undefined;
    let listed: (listing: ListedWorkspace) => void = () => undefined;
    let listing: ListedWorkspace | undefined;
    if (!first) this.#listing = new Promise<ListedWorkspace>((resolve) => (listed = resolve));
    // The first listing's workspace is made as it comes (see #initialize).
    else void this.#listing?.then((whole) => (listing = whole));
    const isOpen = (uri: string) => this.#documents.get(uri) !== undefined;
    const started = Date.now();
    let progress: WorkDoneProgressServerReporter | undefined;
    let reportedAt = -Infinity;
    try {
      progress = await this.#connection.window.createWorkDoneProgress().catch(() => undefined);
      progress?.begin("Indexing skills", 0, undefined, true);
      await loadFolders(this.#namespace, folders, {
        onProgress: (done, total) => {
          const now = performance.now();
          if (now - reportedAt < PROGRESS_INTERVAL_MS && done < total) return;
          reportedAt = now;
          capOldGenerationGrowthWhenLarge();
          progress?.report(Math.round((100 * done) / Math.max(total, 1)), `${done}/${total} files`);
        },
        isCancelled: () => progress?.token.isCancellationRequested ?? false,
        onFileFailure: (file, error) => this.#connection.console.error(`Could not index ${file}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
        // The listing applied the ignore rules and the names the server reads already.
        shouldRead: (uri) => !isOpen(uri) && !listing?.wasRead(uri),
        ...(first
          ? {
              listing: first.listing,
              beforeRead: async () => {
                await this.#quietStart();
                await first.listing.awaited;
              },
            }
          : {
              onListed: (files: readonly string[]) => {
                listing = this.#listedNow(new ListedWorkspace(files));
                listed(listing);
              },
            }),
      });
    } catch (error) {
      // Even a failed read ends the indexing: whoever waits for its end must not wait forever.
      this.#indexing = false;
      this.#scheduleStatus();
      throw error;
    } finally {
      // What follows the first index makes garbage faster than the growth it had collects it.
      capOldGenerationGrowth();
      progress?.done();
      listed(listing ?? new ListedWorkspace([]));
      this.#listing = undefined;
      this.#listed = undefined;
    }
    this.#indexing = false;
    this.#connection.console.info(`Indexed ${countOf(this.#namespace.skillCount, "skill")} in ${Date.now() - started} ms.`);
    // Every file's diagnostics may have changed: one new result for all of them.
    this.#resultIds.clear();
    this.#resultEpoch = ++this.#nextResultId;
    this.#afterChange(new Set(this.#namespace.uris()), true, false);
    void this.#layOutCandidates();
    if (!this.#buildMenuSimilarity()) void this.#indexMentions();
  }

  /**
   * The first index leaves the index of who mentions what (references, rename, a change's dependents) to be
   * built here, a slice at a time between the requests: no diagnosis needs it, and a question that does builds
   * the rest at once.
   */
  async #indexMentions(): Promise<void> {
    await this.#inSlices(() => this.#namespace.indexMentions(MENTIONS_STEP_SKILLS));
  }

  /** One slice of the index of who mentions what (see BACKGROUND_SLICE_MS): true when it is complete. */
  #indexMentionsSlice(): boolean {
    return this.#slice(() => this.#namespace.indexMentions(MENTIONS_STEP_SKILLS));
  }

  /**
   * Completion's table of the skills, laid out after an index a slice at a time between the requests, beside the
   * comparison of the summaries: made at the first completion instead, it kept that completion 78 ms at 100,000
   * skills (13 ms at 10,000).
   */
  async #layOutCandidates(): Promise<void> {
    await this.#inSlices(() => this.#namespace.layOutMentionCandidates(CANDIDATES_STEP_SKILLS));
  }

  /** Steps of background work for BACKGROUND_SLICE_MS: true once `step` says the work is done. */
  #slice(step: () => boolean): boolean {
    const until = performance.now() + BACKGROUND_SLICE_MS;
    do if (step()) return true;
    while (performance.now() < until);
    return false;
  }

  /** Background work a slice at a time, the requests let in between, until done or after `maxSlices`. */
  async #inSlices(step: () => boolean, maxSlices = Number.POSITIVE_INFINITY): Promise<void> {
    for (let slice = 0; slice < maxSlices && !this.#slice(step); slice++) await this.#yieldToRequests();
  }

  /**
   * Turns of the event loop for the requests that came meanwhile (each takes several: read, dispatch, answer,
   * write), the last one held until they are answered (see AnswersFirst).
   */
  async #yieldToRequests(): Promise<void> {
    for (let turn = 1; turn < BACKGROUND_YIELD_TURNS; turn++) await new Promise((resolve) => setImmediate(resolve));
    await this.#answersFirst.turn();
  }

  /**
   * Builds the menu-similar warnings after the index, a millisecond at a time between the requests, the pairs
   * found on threads of their own (see ThreadedPairFinder) or, without them, here in steps: every other answer
   * comes first. When they are ready, the skills that gained one are diagnosed again. The mentions the first
   * index left are indexed while the pairs are found, or after. False when no comparison starts.
   */
  #buildMenuSimilarity(): boolean {
    if (this.#namespace.menuSimilarityReady || this.#comparing) return false;
    this.#comparing = true;
    // One thread builds the join's index, which leaves a core to this thread and the editor meanwhile; a second
    // thread, started with it, probes behind the index as it is filled, and the first joins it once the index is
    // full. Both run below this thread's
    // priority, so its answers seldom wait for a core. At 100,000 skills (bench/cold.mjs --compare, 3 alternating
    // runs) the comparison ended 2.3-2.5 s after the workspace's diagnostics rather than 2.7-3.5 s with one thread
    // (and one more after 2 s); from 50 words, 6.5-7.0 s rather than 7.6-8.0 s.
    this.#namespace.startMenuSimilarity(new ThreadedPairFinder({ spareCore: true, background: true, probers: 1 }));
    const started = Date.now();
    const progress = this.#comparisonProgress();
    void (async () => {
      for (;;) {
        // The pairs are being found on other threads: nothing to do here until some come.
        const waiting = this.#namespace.menuSimilarityWaiting;
        if (waiting) {
          // Idle until some come: meanwhile the mentions are indexed, a slice at a time between the requests.
          if (!this.#indexMentionsSlice()) await this.#yieldToRequests();
          else await waiting;
          continue;
        }
        await this.#yieldToRequests();
        const until = performance.now() + MENU_SIMILARITY_SLICE_MS;
        let warned: Set<string> | undefined;
        do warned = this.#namespace.advanceMenuSimilarity(MENU_SIMILARITY_STEP_UNITS);
        while (warned === undefined && performance.now() < until && !this.#namespace.menuSimilarityWaiting);
        if (warned === undefined) continue;
        const where = this.#namespace.menuSimilarityFoundElsewhere ? "on threads of their own" : "on the main thread";
        this.#connection.console.info(`Compared the menu's summaries in ${Date.now() - started} ms: ${warned.size} skills have a menu-similar warning (pairs found ${where}).`);
        void progress.then((reporter) => reporter?.done());
        this.#comparing = false;
        this.#afterChange(warned, true);
        return this.#indexMentions();
      }
    })();
    return true;
  }

  /** The comparison's progress, begun when the workspace is large enough to show it (see COMPARISON_PROGRESS_MIN_SKILLS). */
  async #comparisonProgress(): Promise<WorkDoneProgressServerReporter | undefined> {
    const skills = this.#namespace.skillCount;
    if (skills < COMPARISON_PROGRESS_MIN_SKILLS) return undefined;
    const reporter = await this.#connection.window.createWorkDoneProgress().catch(() => undefined);
    reporter?.begin("Comparing the menu's summaries", undefined, countOf(skills, "skill"));
    return reporter;
  }

  #removeFolder(folder: string, keepFolder = false): void {
    if (!keepFolder) {
      this.#folders = this.#folders.filter((known) => known !== folder);
      this.#ignoreRules.delete(folder);
    }
    const affected = new Set<string>();
    for (const uri of this.#namespace.uris()) {
      if (!pathFromUri(uri).startsWith(folder + path.sep)) continue;
      for (const other of this.#namespace.remove(uri)) affected.add(other);
      // Gone with its folder: its diagnostics are cleared like a deleted file's.
      affected.add(uri);
    }
    this.#afterChange(affected, true);
  }

  /** A workspace folder's `.skillignore` changed: the folder is read again under its new rules. */
  async #reloadFolder(folder: string): Promise<void> {
    this.#removeFolder(folder, true);
    await this.#loadFolders([folder]);
  }

  /**
   * True for a file the server reads (a skill file or a SKILL.md anywhere, CLAUDE.md, AGENTS.md, the agents'
   * folders' Markdown, a `skills.json` at a workspace folder's root) that its folder's ignore rules leave in.
   */
  #isWorkspaceFile(uri: string): boolean {
    const filePath = pathFromUri(uri);
    const root = this.#folders.find((folder) => filePath.startsWith(folder + path.sep));
    if (root !== undefined && isIgnoredPath(this.#ignoreRules.get(root) ?? new IgnoreRules(), root, filePath)) return false;
    if (isSkillUri(uri) || isReadFile(filePath)) return true;
    if (!uri.endsWith(`/${CONFIG_FILE_NAME}`)) return false;
    return this.#folders.includes(path.dirname(filePath));
  }

  #update(uri: string, text: string): void {
    if (!this.#isWorkspaceFile(uri)) return;
    this.#noteTyping(uri, text);
    const isNew = !this.#namespace.has(uri);
    const affected = this.#namespace.set(uri, text);
    if (isNew) this.#queueDiskWork(() => this.#sawAppear(uri));
    this.#afterChange(affected, [...affected].some((other) => other !== uri));
  }

  /**
   * Remembers where the edit ended, so the unknown mention the cursor is still inside is held back: until the
   * next edit ends elsewhere, or TYPING_IDLE_MS pass without one (then the diagnostics are sent again).
   */
  #noteTyping(uri: string, text: string): void {
    const previous = this.#openTexts.get(uri);
    this.#openTexts.set(uri, text);
    clearTimeout(this.#typing.get(uri)?.timer);
    this.#typing.delete(uri);
    const offset = previous === undefined ? undefined : editEnd(previous, text);
    if (offset === undefined) return;
    const timer = setTimeout(() => {
      if (this.#typing.get(uri)?.timer !== timer) return;
      this.#typing.delete(uri);
      this.#resultIds.set(uri, ++this.#nextResultId);
      this.#pendingPush.add(uri);
      this.#diagnosticsRefreshDue = true;
      this.#scheduleFlush();
    }, TYPING_IDLE_MS);
    timer.unref();
    this.#typing.set(uri, { offset, timer });
  }

  /** A file's diagnostics as the client gets them: without the mention being typed. */
  #diagnosticsOf(uri: string): Diagnostic[] {
    const found = this.#namespace.diagnose(uri);
    // Most files have none: the workspace report of 50,000 files is mostly this line.
    if (found.length === 0) return [];
    const typing = this.#typing.get(uri);
    const document = this.#documents.get(uri);
    const cursor = typing && document ? document.positionAt(typing.offset) : undefined;
    const diagnostics = withoutMentionBeingTyped(found, cursor);
    // Without those the editor reports itself (VS Code's own SKILL.md validator).
    return fitDiagnostics(toLspDiagnostics(this.#editorValidatesSkillFiles && this.#namespace.skill(uri)?.format.quietReferences ? leaveToEditor(diagnostics) : diagnostics), this.#client);
  }

  /** The document's text as typed and the mention held back under its cursor, forgotten. */
  #forgetTyping(uri: string): void {
    this.#openTexts.delete(uri);
    clearTimeout(this.#typing.get(uri)?.timer);
    this.#typing.delete(uri);
  }

  async #onClose(uri: string): Promise<void> {
    this.#forgetTyping(uri);
    // The editor's text no longer wins: the disk's does (and the skill gives its text up), or the file is gone.
    await this.#onDiskChange(uri, FileChangeType.Changed);
    // A file closed because it was moved: clients that send no file events leave the new name unknown, so
    // look for skill files that appeared beside it.
    if (!this.#namespace.has(uri)) await this.#discoverSiblings(path.dirname(pathFromUri(uri)));
  }

  async #discoverSiblings(directory: string): Promise<void> {
    const names = await readdir(directory).catch(() => [] as string[]);
    for (const name of names) {
      const uri = uriFromPath(path.join(directory, name));
      if (isSkillUri(uri) && !this.#namespace.has(uri)) await this.#onDiskChange(uri, FileChangeType.Created);
    }
  }

  /** A burst of file events (a branch switch): up to 64 files read at once, the changes applied in the order sent. */
  async #onDiskChanges(changes: readonly { readonly uri: string; readonly type: FileChangeType }[]): Promise<void> {
    for (let i = 0; i < changes.length; i += 64) {
      const batch = changes.slice(i, i + 64);
      const reads = batch.map((change) => (change.type === FileChangeType.Deleted || !this.#isWorkspaceFile(change.uri) ? undefined : readWorkspaceFile(pathFromUri(change.uri))));
      for (const [k, change] of batch.entries()) await this.#onDiskChange(change.uri, change.type, reads[k]);
    }
  }

  async #onDiskChange(uri: string, type: FileChangeType, read?: Promise<string | undefined>): Promise<void> {
    const filePath = pathFromUri(uri);
    if (path.basename(filePath) === IGNORE_FILE_NAME && this.#folders.includes(path.dirname(filePath))) return this.#reloadFolder(path.dirname(filePath));
    if (!this.#isWorkspaceFile(uri)) return this.#onFolderChange(uri, type);
    if (this.#documents.get(uri)) return;
    const text = type === FileChangeType.Deleted ? undefined : await (read ?? readWorkspaceFile(pathFromUri(uri)));
    if (this.#documents.get(uri)) return;
    const known = this.#namespace.skill(uri);
    if (text === undefined && known) this.#moves.vanished(known);
    const isNew = text !== undefined && !this.#namespace.has(uri);
    const affected = text === undefined ? this.#namespace.remove(uri) : this.#namespace.set(uri, text);
    if (text === undefined) affected.add(uri);
    this.#afterChange(affected, true);
    if (isNew) await this.#sawAppear(uri);
  }

  /**
   * A skill file new to the namespace, after the first index: a move when a skill with its body vanished. A
   * client that sends no file events never reports the old file gone, so a known skill with the same body
   * whose file no longer exists is read again (and so forgotten) first.
   */
  async #sawAppear(uri: string): Promise<void> {
    const skill = this.#namespace.skill(uri);
    if (!skill || this.#indexing) return;
    const reportsDeletes = this.#fileEvents || this.#client.watchRegistration;
    const body = reportsDeletes ? 0 : skillBodyFingerprint(skill);
    for (const other of reportsDeletes ? [] : [...this.#namespace.skills()]) {
      if (other.uri === uri || skillBodyFingerprint(other) !== body || this.#documents.get(other.uri)) continue;
      if ((await readWorkspaceFile(pathFromUri(other.uri))) === undefined) await this.#onDiskChange(other.uri, FileChangeType.Deleted);
    }
    const current = this.#namespace.skill(uri);
    if (current) this.#moves.appeared(current);
  }

  /** A folder moved, created or deleted (a skill folder renamed in the explorer): what it held leaves, what it holds now is read. */
  async #onFolderChange(uri: string, type: FileChangeType): Promise<void> {
    const prefix = `${uri.replace(/\/+$/, "")}/`;
    const affected = new Set<string>();
    for (const held of this.#namespace.uris()) {
      if (!held.startsWith(prefix) || this.#documents.get(held)) continue;
      for (const other of this.#namespace.remove(held)) affected.add(other);
      affected.add(held);
    }
    if (type !== FileChangeType.Deleted) {
      const folder = pathFromUri(uri);
      const root = this.#folders.find((known) => folder.startsWith(known + path.sep));
      if (root !== undefined) {
        // The whole folder's listing, not the subfolder's alone: its loop and link rules (a link to `/`, to an
        // ancestor, or to a folder listed already) hold only over the whole, and its ignore rules are the root's.
        const below = folder + path.sep;
        const files = (await findWorkspaceFiles(root, this.#ignoreRules.get(root))).filter((file) => file.startsWith(below));
        for (const file of files) {
          const fileUri = uriFromPath(file);
          if (!this.#isWorkspaceFile(fileUri) || this.#documents.get(fileUri)) continue;
          const text = await readWorkspaceFile(file);
          if (text !== undefined) for (const other of this.#namespace.set(fileUri, text)) affected.add(other);
        }
      }
    }
    if (affected.size > 0) this.#afterChange(affected, true);
  }

  /**
   * After a change: new result ids for what it affected (unless the caller gave every file one already),
   * pushed or refreshed diagnostics, a status update.
   */
  #afterChange(affected: Set<string>, othersChanged: boolean, newResultIds = true): void {
    for (const uri of affected) {
      if (newResultIds) this.#resultIds.set(uri, ++this.#nextResultId);
      this.#pendingPush.add(uri);
    }
    this.#othersChanged ||= othersChanged;
    this.#scheduleFlush();
    for (const watcher of this.#diagnosticsWatchers) {
      for (const uri of affected) watcher.changed.add(uri);
      watcher.wake?.();
    }
  }

  /** A file's entry in the workspace report: its current result id and, when open, the editor's version. */
  #workspaceEntry(uri: string, diagnostics: Diagnostic[]): WorkspaceDocumentDiagnosticReport {
    return { kind: DocumentDiagnosticReportKind.Full, uri, resultId: this.#resultIdOf(uri), version: this.#documents.get(uri)?.version ?? null, items: diagnostics };
  }

  #noteProblemsSent(uri: string, problems: number): void {
    if (problems > 0) this.#problemsSent.add(uri);
    else this.#problemsSent.delete(uri);
  }

  #scheduleFlush(): void {
    if (this.#pendingFlush) return;
    this.#pendingFlush = setTimeout(() => {
      this.#pendingFlush = undefined;
      this.#flush();
    }, REFRESH_DELAY_MS);
  }

  #flush(): void {
    const connection = this.#connection;
    const othersChanged = this.#othersChanged;
    const refreshDiagnostics = othersChanged || this.#diagnosticsRefreshDue;
    this.#othersChanged = false;
    this.#diagnosticsRefreshDue = false;
    const held = new Set<string>();
    if (!this.#client.pullDiagnostics) {
      const isOpen = (uri: string) => this.#documents.get(uri) !== undefined;
      for (const uri of this.#pendingPush) {
        if (!isOpen(uri)) {
          this.#queuePublish(uri);
          continue;
        }
        // An open editor's diagnostics while the folders are read: from the listing and the files it names, once listed.
        if (this.#listing) {
          if (!this.#listed) {
            held.add(uri);
            continue;
          }
          this.#listed.readFor(this.#namespace, uri, isOpen);
        }
        void this.#publish(uri);
      }
      void this.#publishQueued();
    }
    this.#pendingPush = held;
    if (refreshDiagnostics && this.#client.pullDiagnostics && this.#client.diagnosticRefresh) connection.languages.diagnostics.refresh();
    if (othersChanged) {
      if (this.#client.semanticTokens && this.#client.semanticRefresh) void connection.sendRequest(SemanticTokensRefreshRequest.type).catch(() => undefined);
      if (this.#client.codeLensRefresh) void connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
    }
    this.#scheduleStatus();
    this.#graph.changed();
  }

  /** Publishes a file's diagnostics now (pushed to a client that does not pull them); false when it needs none. */
  #publish(uri: string): Promise<void> | false {
    const diagnostics = this.#namespace.has(uri) ? this.#diagnosticsOf(uri) : [];
    const version = this.#client.publishVersion ? this.#documents.get(uri)?.version : undefined;
    // A closed file never shown a problem has nothing to clear: most files, 100,000 messages at the first index.
    if (diagnostics.length === 0 && version === undefined && !this.#problemsSent.has(uri) && !this.#documents.get(uri)) return false;
    this.#noteProblemsSent(uri, diagnostics.length);
    // An open editor's under the URI the client opened it by, which may be spelt otherwise (see OpenDocuments).
    return this.#connection.sendDiagnostics({ uri: this.#documents.get(uri)?.uri ?? uri, diagnostics, ...(version === undefined ? {} : { version }) });
  }

  #queuePublish(uri: string): void {
    if (this.#inPublishQueue.has(uri)) return;
    this.#inPublishQueue.add(uri);
    this.#publishQueue.push(uri);
  }

  /**
   * Publishes the closed files' queued diagnostics a batch at a time, each once the batch before is written, the
   * requests let in between: the connection writes its messages in order, one a turn, so a completion asked behind
   * a whole workspace's diagnostics waited for them all (at 100,000 skills, 7 s after the first index).
   */
  async #publishQueued(): Promise<void> {
    if (this.#publishing) return;
    this.#publishing = true;
    try {
      while (this.#publishAt < this.#publishQueue.length) {
        let written: Promise<void> | undefined;
        // A batch also ends after a slice of time: most files need no message, and each is diagnosed to know.
        const until = performance.now() + BACKGROUND_SLICE_MS;
        for (let sent = 0; sent < PUBLISH_BATCH && this.#publishAt < this.#publishQueue.length && performance.now() < until; ) {
          const uri = this.#publishQueue[this.#publishAt++] as string;
          this.#inPublishQueue.delete(uri);
          const publishing = this.#publish(uri);
          if (!publishing) continue;
          written = publishing;
          sent++;
        }
        if (this.#publishAt === this.#publishQueue.length) {
          this.#publishQueue.length = 0;
          this.#publishAt = 0;
        }
        await written;
        await this.#yieldToRequests();
      }
    } finally {
      this.#publishing = false;
    }
  }

  #scheduleStatus(): void {
    if (this.#statusSentIndexing === this.#indexing) {
      this.#pendingStatus ??= setTimeout(() => this.#sendStatus(), STATUS_DELAY_MS);
      return;
    }
    if (!this.#indexing) {
      // The end of an index: the menu's size may be counted anew, a pass over every skill (100,000 skills: 80 to
      // 150 ms). The requests the end of the progress prompts (the workspace's diagnostics) are answered first.
      clearTimeout(this.#pendingStatus);
      this.#pendingStatus = setTimeout(() => this.#sendStatus(), INDEXED_STATUS_DELAY_MS);
      return;
    }
    this.#sendStatus();
  }

  #sendStatus(): void {
    clearTimeout(this.#pendingStatus);
    this.#pendingStatus = undefined;
    this.#statusSentIndexing = this.#indexing;
    // While indexing, the status leaves the menu's size as it was (requests.status).
    void (this.#indexing ? Promise.resolve() : this.#menuCounted()).then(() =>
      this.#connection.sendNotification(NamespaceStatusNotification, requests.status(this.#namespace, this.#countTokens, this.#indexing)),
    );
  }

  /** The menu's lines counted, between the requests (see MENU_COUNT_STEP_SKILLS). */
  async #menuCounted(): Promise<void> {
    await this.#inSlices(() => this.#namespace.countMenuLines(MENU_COUNT_STEP_SKILLS), MENU_COUNT_MAX_SLICES);
  }

  #resultIdOf(uri: string): string {
    return String(this.#resultIds.get(uri) ?? this.#resultEpoch);
  }

  /** Remembers the file renames inside an edit this server answered, for a short while. */
  #expectFileRenames(edit: WorkspaceEdit): void {
    const now = Date.now();
    for (const [key, at] of this.#expectedRenames) if (now - at > EXPECTED_RENAME_MS) this.#expectedRenames.delete(key);
    for (const change of edit.documentChanges ?? []) {
      if ("kind" in change && change.kind === "rename") this.#expectedRenames.set(`${change.oldUri} ${change.newUri}`, now);
    }
  }

  #takeExpectedRename(oldUri: string, newUri: string): boolean {
    const key = `${oldUri} ${newUri}`;
    const at = this.#expectedRenames.get(key);
    this.#expectedRenames.delete(key);
    return at !== undefined && Date.now() - at <= EXPECTED_RENAME_MS;
  }

  readonly #versionOf = (uri: string): number | null => this.#documents.get(uri)?.version ?? null;

  /** Queues disk work behind the work already queued, so that events on one file apply in the order they were sent. */
  #queueDiskWork(job: () => Promise<void>): void {
    this.#diskWork = this.#diskWork.then(job).catch((error: unknown) => this.#connection.console.error(`Reading the workspace failed: ${error instanceof Error ? error.message : String(error)}`));
  }

  /** Resolves when the disk work queued before now is done (or after SETTLE_WAIT_MS): a request sees every change sent before it. */
  async #settled(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, SETTLE_WAIT_MS)));
    for (let seen = this.#diskWork; ; seen = this.#diskWork) {
      if ((await Promise.race([seen.then(() => true), deadline.then(() => false)])) === false || seen === this.#diskWork) break;
    }
    clearTimeout(timer);
  }

  /**
   * Runs a request on a file once the disk work sent before it is done. The request's positions are in the
   * text the client had when it asked: if the document changed while the request waited, it is answered with
   * ContentModified (the client asks again) rather than computed on a text its positions do not belong to.
   */
  async #withFile<T>(rawUri: string, handler: (file: NonNullable<ReturnType<typeof fileOf>>) => T): Promise<T | null> {
    const uri = canonicalUri(rawUri);
    const version = this.#documents.get(uri)?.version;
    await this.#settled();
    if (this.#documents.get(uri)?.version !== version) throw new ResponseError(LSPErrorCodes.ContentModified, "The document changed while the request waited; ask again.");
    const file = fileOf(this.#namespace, uri);
    try {
      return file ? handler(file) : null;
    } finally {
      this.#answersFirst.noteAnswer();
    }
  }
}

/** Starts the server on the transport named on the command line (`--stdio`, `--node-ipc`, `--socket=N`). */
export function startServer(): SkillServer {
  const answersFirst = new AnswersFirst();
  answersFirst.watchTransport();
  const connection = createConnection(ProposedFeatures.all);
  const server = new SkillServer(connection, answersFirst);
  server.listen();
  return server;
}
