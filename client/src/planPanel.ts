import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { MENU_TOO_LARGE_ERROR, NO_MODEL_ERROR, PlanEventNotification, RunPlanRequest, UNTRUSTED_ERROR, type PlanEventParams } from "../../shared/protocol.js";
import { createMediaPanel, nonce, pagePart } from "./webview.js";

/** Messages the panel's page receives: the run's events, and the state around them. */
type PanelMessage =
  | { readonly kind: "start"; readonly request: string }
  | { readonly kind: "event"; readonly event: PlanEventParams["event"] }
  | { readonly kind: "failed"; readonly message: string; readonly noModel: boolean }
  | { readonly kind: "modelChosen"; readonly path: string; readonly rerun: boolean }
  | { readonly kind: "finished" };

/**
 * The Run Plan panel: a webview in the editor's theme that streams one run (prompt size, plan, bound toolset,
 * each tool call and its result, the answer), with a Cancel button. Every text reaches the page as data and is
 * shown with textContent, never parsed as HTML; the content security policy allows only the panel's own script.
 */
export class PlanPanel {
  static current: PlanPanel | undefined;
  readonly #panel: vscode.WebviewPanel;
  readonly #client: LanguageClient;
  #run: vscode.CancellationTokenSource | undefined;
  #runId = "";
  readonly #disposables: vscode.Disposable[] = [];
  /** What the page was sent, in order: tests read it to see what the user saw. */
  readonly transcript: PanelMessage[] = [];
  /** Messages held until the page says it listens: a webview drops what is posted before its script runs. */
  #pending: PanelMessage[] | undefined = [];
  #disposed = false;

  private constructor(context: vscode.ExtensionContext, client: LanguageClient) {
    this.#client = client;
    const { panel, media } = createMediaPanel(context, "skill.plan", "Run Plan", "plan");
    this.#panel = panel;
    const webview = this.#panel.webview;
    const script = pagePart(media, "panel.js");
    const style = pagePart(media, "panel.css");
    const scriptNonce = nonce();
    webview.html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${scriptNonce}'; script-src 'nonce-${scriptNonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<style nonce="${scriptNonce}">${style}</style><title>Run Plan</title></head>
<body><header><h1>Run Plan</h1><button id="cancel" disabled>Cancel</button><button id="pick" hidden>Choose a model file…</button></header>
<main id="log" aria-live="polite"></main>
<script nonce="${scriptNonce}">${script}</script></body></html>`;
    this.#disposables.push(
      webview.onDidReceiveMessage((message: { kind?: string }) => {
        if (message.kind === "ready") this.#flush();
        if (message.kind === "cancel") this.cancel();
        if (message.kind === "pick") void vscode.commands.executeCommand("skill.chooseModel");
      }),
      this.#client.onNotification(PlanEventNotification, (params) => {
        if (params.runId === this.#runId) this.#post({ kind: "event", event: params.event });
      }),
    );
    this.#panel.onDidDispose(() => this.dispose(), undefined, this.#disposables);
  }

  static show(context: vscode.ExtensionContext, client: LanguageClient): PlanPanel {
    PlanPanel.current ??= new PlanPanel(context, client);
    PlanPanel.current.#panel.reveal(vscode.ViewColumn.Beside, true);
    return PlanPanel.current;
  }

  #post(message: PanelMessage): void {
    this.transcript.push(message);
    if (this.#disposed) return;
    if (this.#pending) this.#pending.push(message);
    else void this.#panel.webview.postMessage(message);
  }

  /**
   * The page listens. The first time, what was held goes out; after a reload of the page (which starts empty),
   * the current run is sent again from its start, which clears the log first.
   */
  #flush(): void {
    let messages = this.#pending;
    if (!messages) {
      const start = this.transcript.map((message) => message.kind).lastIndexOf("start");
      messages = start === -1 ? [] : this.transcript.slice(start);
    }
    this.#pending = undefined;
    for (const message of messages) void this.#panel.webview.postMessage(message);
  }

  /** Runs one request; answers when the run ends (done, failed or cancelled). */
  async run(request: string): Promise<void> {
    this.cancel();
    const source = new vscode.CancellationTokenSource();
    this.#run = source;
    this.#runId = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
    this.#post({ kind: "start", request });
    try {
      await this.#client.sendRequest(RunPlanRequest, { runId: this.#runId, request, trusted: vscode.workspace.isTrusted }, source.token);
    } catch (error) {
      const code = typeof error === "object" && error !== null && "code" in error ? (error as { code: unknown }).code : undefined;
      const message = error instanceof Error ? error.message : String(error);
      if (!source.token.isCancellationRequested) this.#post({ kind: "failed", message, noModel: code === NO_MODEL_ERROR || code === UNTRUSTED_ERROR || code === MENU_TOO_LARGE_ERROR ? code === NO_MODEL_ERROR : /model/i.test(message) });
    } finally {
      if (this.#run === source) this.#run = undefined;
      this.#post({ kind: "finished" });
    }
  }

  cancel(): void {
    this.#run?.cancel();
  }

  /** A model was chosen: say so in the panel, and run the last request again if it failed for want of a model. */
  async modelChosen(path: string): Promise<void> {
    const start = this.transcript.map((message) => message.kind).lastIndexOf("start");
    const last = start === -1 ? undefined : this.transcript[start];
    const failedForModel = this.transcript.slice(start + 1).some((message) => message.kind === "failed" && message.noModel);
    const rerun = last?.kind === "start" && failedForModel && this.#run === undefined;
    this.#post({ kind: "modelChosen", path, rerun });
    if (rerun && last?.kind === "start") await this.run(last.request);
  }

  dispose(): void {
    this.#disposed = true;
    this.cancel();
    PlanPanel.current = undefined;
    for (const disposable of this.#disposables.splice(0)) disposable.dispose();
    this.#panel.dispose();
  }
}

export function registerPlanCommands(context: vscode.ExtensionContext, client: LanguageClient): void {
  context.subscriptions.push(
    vscode.commands.registerCommand("skill.runPlan", async (givenRequest?: string) => {
      if (!vscode.workspace.isTrusted) {
        void vscode.window.showWarningMessage("The planner and its tools run only in a trusted workspace: they read your files and run a model. Trust this folder to use them.", "Manage Workspace Trust").then((choice) => {
          if (choice) void vscode.commands.executeCommand("workbench.trust.manage");
        });
        return undefined;
      }
      const request = givenRequest ?? (await vscode.window.showInputBox({ title: "Run Plan", prompt: "What should the agent do?", placeHolder: "What's on my calendar tomorrow?" }));
      if (!request) return undefined;
      const panel = PlanPanel.show(context, client);
      await panel.run(request);
      return panel.transcript;
    }),
    vscode.commands.registerCommand("skill.chooseModel", async () => {
      const picked = await vscode.window.showOpenDialog({ title: "Choose a GGUF model", canSelectMany: false, filters: { "GGUF models": ["gguf"] } });
      const file = picked?.[0];
      if (!file) return;
      await vscode.workspace.getConfiguration("skill").update("model.path", file.fsPath, vscode.ConfigurationTarget.Global);
      if (PlanPanel.current) await PlanPanel.current.modelChosen(file.fsPath);
      else void vscode.window.showInformationMessage(`The planner will use ${file.fsPath}.`);
    }),
  );
}
