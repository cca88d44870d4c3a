import { CodeLensRefreshRequest, type Connection } from "vscode-languageserver/node.js";
import { GraphChangedNotification, GraphRequest, type GraphResult } from "../../../shared/protocol.js";
import { buildGraph } from "../core/graph.js";
import type { Namespace } from "../core/index.js";
import type { TokenCounter } from "../service/requests.js";

/** Graph-changed notifications wait at least this long after the previous one: typing costs one rebuild per pause. */
const NOTIFY_INTERVAL_MS = 250;

export interface GraphHostDependencies {
  readonly namespace: Namespace;
  readonly countTokens: () => TokenCounter;
  /** Resolves when the disk work queued before the request is done. */
  readonly settled: () => Promise<void>;
  /** True when the client accepts `workspace/codeLens/refresh`. */
  readonly codeLensRefresh: () => boolean;
}

/** FNV-1a over a string, as 8 hex digits: a cheap content signature for the graph. */
function signatureOf(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return `${(hash >>> 0).toString(16).padStart(8, "0")}-${text.length.toString(36)}`;
}

/**
 * Serves `skill/graph` and tells a watching client when the graph changed (`skill/graphChanged`), so an open
 * graph panel updates live. It also asks the client to refresh code lenses when the menu's prices may have
 * changed (a summary, the menu selection, or the tokenizer), since each skill's lens shows its entry's price.
 */
export class GraphHost {
  readonly #deps: GraphHostDependencies;
  #connection: Connection | undefined;
  #watching = false;
  #cache: { readonly generation: number; readonly counter: TokenCounter; readonly result: GraphResult } | undefined;
  #sentSignature = "";
  #timer: NodeJS.Timeout | undefined;
  #lastNotified = 0;
  #menuKey: { readonly menuGeneration: number; readonly counter: TokenCounter } | undefined;

  constructor(deps: GraphHostDependencies) {
    this.#deps = deps;
  }

  register(connection: Connection): void {
    this.#connection = connection;
    connection.onRequest(GraphRequest, async (params) => {
      await this.#deps.settled();
      this.#watching = params.watch !== false;
      if (!this.#watching) return null;
      const result = this.#graph();
      this.#sentSignature = result.signature;
      return result;
    });
  }

  /** The graph now, built once per namespace generation and tokenizer. */
  #graph(): GraphResult {
    const { namespace } = this.#deps;
    const counter = this.#deps.countTokens();
    if (this.#cache && this.#cache.generation === namespace.generation && this.#cache.counter === counter) return this.#cache.result;
    const graph = buildGraph(namespace, { countTokens: counter });
    const result: GraphResult = { ...graph, signature: signatureOf(JSON.stringify(graph)) };
    this.#cache = { generation: namespace.generation, counter, result };
    return result;
  }

  /** Called after the server has applied a batch of changes (or a new tokenizer). */
  changed(): void {
    this.#refreshLenses();
    if (!this.#watching || this.#timer) return;
    const wait = Math.max(0, this.#lastNotified + NOTIFY_INTERVAL_MS - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#lastNotified = Date.now();
      if (!this.#watching) return;
      const { signature } = this.#graph();
      if (signature === this.#sentSignature) return;
      this.#sentSignature = signature;
      void this.#connection?.sendNotification(GraphChangedNotification, { signature });
    }, wait);
  }

  #refreshLenses(): void {
    const key = { menuGeneration: this.#deps.namespace.menuGeneration, counter: this.#deps.countTokens() };
    const previous = this.#menuKey;
    this.#menuKey = key;
    if (!previous || (previous.menuGeneration === key.menuGeneration && previous.counter === key.counter)) return;
    if (this.#deps.codeLensRefresh()) void this.#connection?.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
