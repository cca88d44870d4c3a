import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { jsonBlock } from "../../shared/pageData.js";
import { GraphChangedNotification, GraphRequest, TOOL_SCHEME, type GraphResult } from "../../shared/protocol.js";
import { createMediaPanel, nonce, pagePart } from "./webview.js";

/** A skill to focus, by handle or by its file's URI (whatever the file's format); null for the whole graph. */
export type FocusTarget = { readonly handle: string } | { readonly uri: string } | null;

/** What the page reports after drawing: tests and the command's caller read it. */
export interface GraphRendered {
  readonly nodes: number;
  readonly edges: number;
  readonly cycles: number;
  /** The layout's time for what is shown. */
  readonly milliseconds: number;
  /** RIGHT: columns read left to right (a wide panel); DOWN: rows read top to bottom (a narrow one). */
  readonly direction: "RIGHT" | "DOWN";
  readonly layers: number;
  readonly crossings: number;
  /** The drawing area's size in CSS pixels. */
  readonly panel: { readonly width: number; readonly height: number };
  /** How tall a caption is on screen, in CSS pixels, at the current zoom; and whether captions are drawn at it. */
  readonly captionPixels: number;
  readonly captions: boolean;
  /** The focused node, or null for the whole graph. */
  readonly focus: string | null;
  /** The focused node's bound tools, in order (`skill/expand`'s answer), or null. */
  readonly binds: readonly string[] | null;
  /** The last focus request the page had applied when it drew this. */
  readonly request: number;
}

/**
 * The last overview layout a page made (opaque here): a panel opened again on the same graph draws it at once.
 * Kept in the workspace's state too, so that the next window on an unchanged workspace draws it as well.
 */
interface KeptLayout {
  readonly signature: string;
  readonly layout: { readonly nodes: readonly unknown[] };
}
let keptLayout: KeptLayout | undefined;
const KEPT_LAYOUT_KEY = "skill.graph.keptLayout";
/** Larger layouts stay in memory only: the workspace state is no place for megabytes. */
const KEPT_NODES_STORED = 2000;
/**
 * How long the panel waits for the graph before it makes its page without it. In code-server the page that waited
 * for a round trip after it was ready had the graph 140-240 ms after its script began.
 */
const GRAPH_IN_PAGE_WAIT_MS = 250;

type PageMessage = ({ readonly kind: "rendered" } & GraphRendered) | { readonly kind: "ready" } | { readonly kind: "layout"; readonly kept: KeptLayout } | { readonly kind: "open"; readonly id: string } | { readonly kind: "error"; readonly message: string };

/**
 * The Skill Graph panel: the namespace drawn in the editor's theme, live, laid out by the page to the panel's
 * shape. The content security policy allows the panel's script and style sheet (by nonce), nothing else.
 */
export class GraphPanel {
  static current: GraphPanel | undefined;
  readonly #panel: vscode.WebviewPanel;
  readonly #client: LanguageClient;
  readonly #state: vscode.Memento;
  readonly #disposables: vscode.Disposable[] = [];
  #graph: GraphResult | undefined;
  #ready = false;
  #pendingFocus: FocusTarget | undefined;
  /** Focus requests are numbered; the page reports the last one it has applied, so a waiter knows its answer. */
  #focusRequests = 0;
  #fetching: Promise<void> | undefined;
  #again = false;
  /** The signature of the graph the page was made with, and of the one it has now (undefined: none). */
  #inPage: string | undefined;
  #pageHas: string | undefined;
  /** The page's last report, and those waiting for the next one. */
  rendered: GraphRendered | undefined;
  readonly #waiters: ((rendered: GraphRendered) => void)[] = [];

  private constructor(context: vscode.ExtensionContext, client: LanguageClient) {
    this.#client = client;
    this.#state = context.workspaceState;
    keptLayout ??= context.workspaceState.get<KeptLayout>(KEPT_LAYOUT_KEY);
    const { panel, media } = createMediaPanel(context, "skill.graph", "Skill Graph", "graph");
    this.#panel = panel;
    this.#panel.iconPath = vscode.Uri.joinPath(context.extensionUri, "media", "skill-file.svg");
    const webview = this.#panel.webview;
    this.#disposables.push(
      webview.onDidReceiveMessage((message: PageMessage) => this.#onMessage(message)),
      this.#client.onNotification(GraphChangedNotification, (params) => {
        if (params.signature !== this.#graph?.signature) void this.refresh();
      }),
    );
    this.#panel.onDidDispose(() => this.dispose(), undefined, this.#disposables);
    // The graph is asked for at once, and the page made when it comes (or after a moment without it): the page
    // then carries it, where it waited for a round trip through the editor after saying it was ready.
    const asked = this.refresh();
    void Promise.race([asked, new Promise((resolve) => setTimeout(resolve, GRAPH_IN_PAGE_WAIT_MS))]).then(() => this.#makePage(media));
  }

  /** The page, with the graph in it when there is one already. */
  #makePage(media: vscode.Uri): void {
    if (GraphPanel.current !== this) return;
    const webview = this.#panel.webview;
    const script = pagePart(media, "graph.js");
    const style = pagePart(media, "graph.css");
    const scriptNonce = nonce();
    const graph = this.#graph;
    this.#inPage = graph?.signature;
    const data = graph ? `${jsonBlock("graph-data", { kind: "graph", graph, kept: this.#keptFor(graph) })}\n` : "";
    webview.html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${scriptNonce}'; script-src 'nonce-${scriptNonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<style nonce="${scriptNonce}">${style}</style><title>Skill Graph</title></head>
<body>
<header>
  <h1>Skill Graph</h1>
  <input id="search" list="handles" placeholder="Focus a skill: @handle" aria-label="Focus a skill by its handle" spellcheck="false">
  <datalist id="handles"></datalist>
  <button id="all" hidden>Show all</button>
  <button id="fit" title="Fit the graph to the panel (0)">Fit</button>
  <span id="stats" aria-live="polite"></span>
  <div class="legend" aria-label="Legend"><span class="skill">skill</span><span class="tool">tool</span><span class="unadvertised">not advertised</span><span class="disabled">disabled</span><span class="ghost">unknown</span><span class="cycle">cycle</span></div>
</header>
<main><canvas id="canvas" tabindex="0" aria-label="The graph of skills and tools"></canvas><aside id="details" class="empty" aria-live="polite"></aside></main>
<footer><span id="status" aria-live="polite">Loading the graph…</span><span class="muted">Click: open · double-click: its expansion · drag: pan · wheel: zoom · 0: fit</span></footer>
<div id="tooltip" hidden></div>
${data}<script nonce="${scriptNonce}">${script}</script></body></html>`;
  }

  /** Opens the panel (or reveals it), focused on a handle when one is given. */
  static show(context: vscode.ExtensionContext, client: LanguageClient, focus?: FocusTarget): GraphPanel {
    GraphPanel.current ??= new GraphPanel(context, client);
    const panel = GraphPanel.current;
    panel.#panel.reveal(undefined, true);
    if (focus !== undefined) panel.focus(focus);
    return panel;
  }

  /** Focuses one skill's expansion; null shows the whole graph. */
  focus(target: FocusTarget): void {
    this.#focusRequests++;
    if (this.#ready && this.#graph) void this.#panel.webview.postMessage({ kind: "focus", target, request: this.#focusRequests });
    else this.#pendingFocus = target;
  }

  /**
   * Resolves with the page's next report made after every focus asked so far (after the next layout or focus),
   * or the last one after `timeoutMs`.
   */
  nextRender(timeoutMs = 60_000): Promise<GraphRendered | undefined> {
    const request = this.#focusRequests;
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(this.rendered), timeoutMs);
      const wait = (rendered: GraphRendered) => {
        if (rendered.request < request) return this.#waiters.push(wait);
        clearTimeout(timer);
        resolve(rendered);
      };
      this.#waiters.push(wait);
    });
  }

  /** Asks the server for the graph and hands it to the page; calls made meanwhile coalesce into one more. */
  refresh(): Promise<void> {
    if (this.#fetching) {
      this.#again = true;
      return this.#fetching;
    }
    this.#fetching = (async () => {
      do {
        this.#again = false;
        try {
          const graph = await this.#client.sendRequest(GraphRequest, { watch: true });
          if (graph) this.#graph = graph;
        } catch (error) {
          void vscode.window.showErrorMessage(`Could not read the skill graph: ${error instanceof Error ? error.message : String(error)}`);
        }
        this.#post();
      } while (this.#again);
    })().finally(() => (this.#fetching = undefined));
    return this.#fetching;
  }

  #keptFor(graph: GraphResult): KeptLayout | undefined {
    return keptLayout?.signature === graph.signature ? keptLayout : undefined;
  }

  #post(): void {
    if (!this.#ready || !this.#graph) return;
    // The page has this graph already when it came with the page.
    if (this.#graph.signature !== this.#pageHas) void this.#panel.webview.postMessage({ kind: "graph", graph: this.#graph, kept: this.#keptFor(this.#graph) });
    this.#pageHas = this.#graph.signature;
    if (this.#pendingFocus !== undefined) {
      void this.#panel.webview.postMessage({ kind: "focus", target: this.#pendingFocus, request: this.#focusRequests });
      this.#pendingFocus = undefined;
    }
  }

  #onMessage(message: PageMessage): void {
    switch (message.kind) {
      case "ready":
        this.#ready = true;
        // A page (re)loaded has the graph it was made with, if any.
        this.#pageHas = this.#inPage;
        if (this.#graph) this.#post();
        else if (!this.#fetching) void this.refresh();
        break;
      case "open":
        void this.#open(message.id);
        break;
      case "layout":
        keptLayout = message.kept;
        void this.#state.update(KEPT_LAYOUT_KEY, message.kept.layout.nodes.length <= KEPT_NODES_STORED ? message.kept : undefined);
        break;
      case "rendered": {
        const { kind: _kind, ...rendered } = message;
        this.rendered = rendered;
        for (const wake of this.#waiters.splice(0)) wake(rendered);
        break;
      }
      case "error":
        void vscode.window.showErrorMessage(message.message);
        break;
    }
  }

  /** Opens a node's file: a skill's, a declared tool's skills.json, a built-in tool's description, a ghost's first mention. */
  async #open(id: string): Promise<void> {
    const node = this.#graph?.nodes.find((candidate) => candidate.id === id);
    if (!node) return;
    const uri = node.uri ? vscode.Uri.parse(node.uri) : node.kind === "tool" ? vscode.Uri.parse(`${TOOL_SCHEME}:/${node.slug}.md`) : undefined;
    if (!uri) return;
    const document = await vscode.workspace.openTextDocument(uri);
    let selection: vscode.Range | undefined;
    if (node.kind === "ghost" || (node.kind === "tool" && node.uri)) {
      const offset = document.getText().search(new RegExp(`@${node.slug.replace(/[-]/g, "\\-")}(?![a-z0-9-])|"${node.slug.replace(/[-]/g, "\\-")}"`, "i"));
      if (offset >= 0) selection = new vscode.Range(document.positionAt(offset), document.positionAt(offset + node.slug.length + 1));
    }
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.One, preserveFocus: false, selection });
  }

  dispose(): void {
    GraphPanel.current = undefined;
    void this.#client.sendRequest(GraphRequest, { watch: false }).catch(() => undefined);
    for (const disposable of this.#disposables.splice(0)) disposable.dispose();
    this.#panel.dispose();
  }
}

/**
 * `skill.showGraph [handle | uri | null]`: opens the panel, focused on a handle (or on the skill file's, from its
 * title button); null shows the whole graph. Answers the page's report once it has drawn.
 */
export function registerGraphCommands(context: vscode.ExtensionContext, client: LanguageClient): void {
  context.subscriptions.push(
    vscode.commands.registerCommand("skill.showGraph", async (target?: vscode.Uri | string | null) => {
      const focus: FocusTarget | undefined = target === null ? null : typeof target === "string" ? { handle: target } : target instanceof vscode.Uri ? { uri: target.toString() } : undefined;
      const opened = GraphPanel.current;
      const existing = opened?.rendered;
      const panel = GraphPanel.show(context, client, focus);
      if (existing && focus === undefined) return existing;
      const rendered = panel.nextRender();
      // A new panel has already asked for the graph.
      if (opened) await panel.refresh();
      return rendered;
    }),
  );
}
