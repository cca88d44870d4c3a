import * as vscode from "vscode";
import { State, type LanguageClient } from "vscode-languageclient/node";
import {
  NO_MODEL_ERROR,
  RoutingProgressNotification,
  RoutingTestsRequest,
  RunRoutingRequest,
  type RoutingCaseResult,
  type RoutingProgressParams,
  type RoutingStatus,
  type RoutingTestCase,
  type RoutingTestsResult,
} from "../../shared/protocol.js";

/** Commands for tests and other extensions: the items as plain data, and a run through the Testing view's own handler. */
export const RoutingCommands = {
  items: "skill.routingTests.items",
  run: "skill.routingTests.run",
} as const;

/** A test's last result as this extension reported it to the Testing view. */
export interface RoutingItemResult {
  readonly status: RoutingStatus;
  readonly message: string;
  readonly chosen: readonly string[];
  /** True once the skill (or the menu) changed after the run: VS Code shows the result as outdated. */
  readonly outdated: boolean;
}

/** A test item as the `items` command answers it. */
export interface RoutingItem {
  readonly id: string;
  readonly label: string;
  readonly description: string;
  readonly uri: string;
  /** Zero-based line of the item in its file. */
  readonly line: number;
  readonly result?: RoutingItemResult;
  readonly children: readonly RoutingItem[];
}

/** What the `run` command takes: which tests (by id; all when absent), and a cancellation after some results. */
export interface RoutingRunOptions {
  readonly ids?: readonly string[];
  readonly cancelAfter?: number;
}

const REFRESH_DELAY_MS = 300;

function isSkillDocument(document: vscode.TextDocument): boolean {
  return /\.skill\.md$/i.test(document.uri.path) || /\/skills\.json$/.test(document.uri.path);
}

const asRange = (range: { start: { line: number; character: number }; end: { line: number; character: number } }): vscode.Range =>
  new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);

/**
 * Routing tests in VS Code's Testing view: one item per skill that lists `examples:` or `near-misses:`, one child
 * per request, each placed on its line (so the editor shows run buttons in the gutter). A run asks the server
 * (`skill/runRouting`) and reports each test as the server finishes it; a failure shows what the planner chose
 * instead, with the model's reason. A skill's results are invalidated when its file changes, and every result
 * when the planner's menu does.
 */
export class RoutingTests implements vscode.Disposable {
  readonly #client: LanguageClient;
  readonly #controller: vscode.TestController;
  readonly #disposables: vscode.Disposable[] = [];
  /** Cases by test id, with their skill. */
  readonly #cases = new Map<string, { readonly routingCase: RoutingTestCase; readonly skill: string; readonly uri: string }>();
  readonly #results = new Map<string, RoutingItemResult>();
  /** The client keeps one handler per notification: this one hands progress to every run listening. */
  readonly #progressListeners = new Set<(params: RoutingProgressParams) => void>();
  #menuKey = "";
  #refreshTimer: NodeJS.Timeout | undefined;
  #refreshing: Promise<void> | undefined;

  constructor(client: LanguageClient) {
    this.#client = client;
    this.#controller = vscode.tests.createTestController("skill.routing", "Skill Routing");
    this.#controller.resolveHandler = (item) => (item ? undefined : this.refresh());
    this.#controller.refreshHandler = () => this.refresh();
    this.#controller.createRunProfile("Run Routing Tests", vscode.TestRunProfileKind.Run, (request, token) => this.run(request, token), true);
    const watcher = vscode.workspace.createFileSystemWatcher("**/{*.skill.md,skills.json}");
    this.#disposables.push(
      this.#controller,
      watcher,
      watcher.onDidCreate(() => this.#scheduleRefresh()),
      watcher.onDidDelete(() => this.#scheduleRefresh()),
      watcher.onDidChange(() => this.#scheduleRefresh()),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (!isSkillDocument(event.document) || event.contentChanges.length === 0) return;
        const item = this.#controller.items.get(event.document.uri.toString());
        if (item) this.#invalidate(item);
        this.#scheduleRefresh();
      }),
      client.onNotification(RoutingProgressNotification, (params) => {
        for (const listener of this.#progressListeners) listener(params);
      }),
      client.onDidChangeState((event) => {
        if (event.newState === State.Running) this.#scheduleRefresh();
      }),
    );
    if (client.isRunning()) this.#scheduleRefresh();
  }

  /** Asks the server for the tests and updates the tree in place (so results stay on unchanged ids). */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#refresh().finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  async #refresh(): Promise<void> {
    if (!this.#client.isRunning()) return;
    let tests: RoutingTestsResult;
    try {
      tests = await this.#client.sendRequest(RoutingTestsRequest);
    } catch {
      return;
    }
    if (this.#menuKey !== "" && tests.menuKey !== this.#menuKey) {
      // Another menu: every routing decision may differ now.
      this.#controller.invalidateTestResults();
      for (const [id, result] of this.#results) this.#results.set(id, { ...result, outdated: true });
    }
    this.#menuKey = tests.menuKey;
    this.#cases.clear();
    const skills: vscode.TestItem[] = [];
    for (const skill of tests.skills) {
      const uri = vscode.Uri.parse(skill.uri);
      const item = this.#controller.items.get(skill.uri) ?? this.#controller.createTestItem(skill.uri, `@${skill.handle}`, uri);
      item.label = `@${skill.handle}`;
      item.description = skill.offMenu === null ? skill.title : "not on the menu";
      item.range = asRange(skill.range);
      const children: vscode.TestItem[] = [];
      for (const routingCase of skill.cases) {
        this.#cases.set(routingCase.id, { routingCase, skill: skill.handle, uri: skill.uri });
        const child = item.children.get(routingCase.id) ?? this.#controller.createTestItem(routingCase.id, routingCase.text, uri);
        child.description = routingCase.kind === "example" ? "example" : "near miss";
        child.range = asRange(routingCase.range);
        children.push(child);
      }
      item.children.replace(children);
      skills.push(item);
    }
    this.#controller.items.replace(skills);
    for (const id of [...this.#results.keys()]) if (!this.#cases.has(id)) this.#results.delete(id);
  }

  #scheduleRefresh(): void {
    if (this.#refreshTimer) clearTimeout(this.#refreshTimer);
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = undefined;
      void this.refresh();
    }, REFRESH_DELAY_MS);
  }

  #invalidate(skillItem: vscode.TestItem): void {
    this.#controller.invalidateTestResults(skillItem);
    skillItem.children.forEach((child) => {
      const result = this.#results.get(child.id);
      if (result) this.#results.set(child.id, { ...result, outdated: true });
    });
  }

  /** The run profile's handler: the requested tests (all by default), one plan each, reported as they finish. */
  async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    await this.refresh();
    const leaves = new Map<string, vscode.TestItem>();
    const excluded = new Set((request.exclude ?? []).map((item) => item.id));
    const add = (item: vscode.TestItem) => {
      if (excluded.has(item.id)) return;
      if (this.#cases.has(item.id)) leaves.set(item.id, item);
      item.children.forEach(add);
    };
    if (request.include) request.include.forEach(add);
    else this.#controller.items.forEach(add);
    const run = this.#controller.createTestRun(request, "Routing tests", true);
    for (const item of leaves.values()) run.enqueued(item);
    const runId = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const source = new vscode.CancellationTokenSource();
    const cancel = token.onCancellationRequested(() => source.cancel());
    const done = new Set<string>();
    const progress = this.#onProgress((params) => {
      if (params.runId !== runId) return;
      const item = leaves.get(params.id);
      if (!item) return;
      if (params.state === "started") run.started(item);
      else {
        done.add(params.id);
        this.#report(run, item, params.result);
      }
    });
    try {
      run.appendOutput(`Routing ${leaves.size} request${leaves.size === 1 ? "" : "s"} through the planner…\r\n`);
      const result = await this.#client.sendRequest(RunRoutingRequest, { runId, ids: [...leaves.keys()], trusted: vscode.workspace.isTrusted }, source.token);
      // Results that raced their notifications still count.
      for (const one of result.results) {
        const item = leaves.get(one.id);
        if (item && !done.has(one.id)) {
          done.add(one.id);
          this.#report(run, item, one);
        }
      }
    } catch (error) {
      if (!source.token.isCancellationRequested) {
        const code = typeof error === "object" && error !== null && "code" in error ? (error as { code: unknown }).code : undefined;
        const text = `${error instanceof Error ? error.message : String(error)}${code === NO_MODEL_ERROR ? " (Skill: Choose Model File…)" : ""}`;
        run.appendOutput(`${text}\r\n`);
        for (const [id, item] of leaves) {
          if (done.has(id)) continue;
          done.add(id);
          run.errored(item, new vscode.TestMessage(text));
          this.#results.set(id, { status: "errored", message: text, chosen: [], outdated: false });
        }
      }
    } finally {
      progress.dispose();
      cancel.dispose();
      source.dispose();
      for (const [id, item] of leaves) if (!done.has(id)) run.skipped(item);
      run.end();
    }
  }

  #report(run: vscode.TestRun, item: vscode.TestItem, result: RoutingCaseResult): void {
    const entry = this.#cases.get(result.id);
    this.#results.set(result.id, { status: result.status, message: result.message, chosen: result.chosen, outdated: false });
    const location = item.uri && item.range ? new vscode.Location(item.uri, item.range) : undefined;
    // Output with a location is drawn inline at that line, under the failure's own badge: the two overlapped.
    // The Test Results pane gets the text; the line keeps the badge alone.
    run.appendOutput(`${result.status.toUpperCase().padEnd(7)} ${JSON.stringify(item.label)}: ${result.message}\r\n`, undefined, item);
    const message = () => {
      const text = new vscode.TestMessage(result.message);
      if (location) text.location = location;
      if (entry && result.status === "failed" && result.chosen.length + entry.skill.length > 0) {
        text.expectedOutput = entry.routingCase.kind === "example" ? `@${entry.skill}` : `not @${entry.skill}`;
        text.actualOutput = result.chosen.length > 0 ? result.chosen.map((handle) => `@${handle}`).join(", ") : "none";
      }
      return text;
    };
    if (result.status === "passed") run.passed(item, result.ms);
    else if (result.status === "failed") run.failed(item, message(), result.ms);
    else if (result.status === "errored") run.errored(item, message(), result.ms);
    else run.skipped(item);
  }

  /** The tree as plain data, with each test's last result. */
  async items(): Promise<RoutingItem[]> {
    await this.refresh();
    const line = (item: vscode.TestItem) => item.range?.start.line ?? 0;
    const plain = (item: vscode.TestItem): RoutingItem => {
      const children: RoutingItem[] = [];
      item.children.forEach((child) => void children.push(plain(child)));
      const result = this.#results.get(item.id);
      return { id: item.id, label: item.label, description: item.description ?? "", uri: item.uri?.toString() ?? "", line: line(item), ...(result ? { result } : {}), children };
    };
    const all: RoutingItem[] = [];
    this.#controller.items.forEach((item) => void all.push(plain(item)));
    return all.sort((a, b) => a.label.localeCompare(b.label));
  }

  /** Runs tests through the run handler, as the Testing view does; answers the tree with the results. */
  async runTests(options: RoutingRunOptions = {}): Promise<RoutingItem[]> {
    await this.refresh();
    const include: vscode.TestItem[] = [];
    if (options.ids) {
      const wanted = new Set(options.ids);
      this.#controller.items.forEach((skill) => {
        if (wanted.has(skill.id)) include.push(skill);
        skill.children.forEach((child) => void (wanted.has(child.id) && include.push(child)));
      });
    }
    const source = new vscode.CancellationTokenSource();
    let seen = 0;
    const counter = options.cancelAfter
      ? this.#onProgress((params) => {
          if (params.state === "done" && ++seen >= (options.cancelAfter ?? 0)) source.cancel();
        })
      : undefined;
    try {
      await this.run(new vscode.TestRunRequest(options.ids ? include : undefined), source.token);
    } finally {
      counter?.dispose();
      source.dispose();
    }
    return this.items();
  }

  #onProgress(listener: (params: RoutingProgressParams) => void): vscode.Disposable {
    this.#progressListeners.add(listener);
    return new vscode.Disposable(() => this.#progressListeners.delete(listener));
  }

  dispose(): void {
    if (this.#refreshTimer) clearTimeout(this.#refreshTimer);
    for (const disposable of this.#disposables.splice(0)) disposable.dispose();
  }
}

/** Puts the routing tests in the Testing view and registers the commands that read and run them. */
export function registerRoutingTests(context: vscode.ExtensionContext, client: LanguageClient): RoutingTests {
  const tests = new RoutingTests(client);
  context.subscriptions.push(
    tests,
    vscode.commands.registerCommand(RoutingCommands.items, () => tests.items()),
    vscode.commands.registerCommand(RoutingCommands.run, (options?: RoutingRunOptions) => tests.runTests(options)),
  );
  return tests;
}
