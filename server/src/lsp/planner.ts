import { ErrorCodes, LSPErrorCodes, ResponseError, type Connection } from "vscode-languageserver/node.js";
import {
  MENU_TOO_LARGE_ERROR,
  NO_MODEL_ERROR,
  PlanEventNotification,
  PrepareModelRequest,
  RunPlanRequest,
  UNTRUSTED_ERROR,
  type RunPlanResult,
  type SkillSettings,
} from "../../../shared/protocol.js";
import type { Namespace } from "../core/index.js";
import { configuredContextSize, LlamaPlannerModel, MenuFitError, ModelError, Planner, isAbortError, type LlamaModelSettings } from "../planner/index.js";
import { createWorkspaceTools } from "../tools/index.js";

/** What the host needs from the server: the namespace, the folders, and where exact token counts go. */
export interface PlannerHostContext {
  readonly namespace: Namespace;
  folders(): readonly string[];
  settings(): Promise<SkillSettings>;
  setTokenCounter(counter: ((text: string) => number) | undefined): void;
}

function modelSettings(settings: SkillSettings): LlamaModelSettings | undefined {
  const model = settings.model;
  const path = model?.path?.trim();
  if (!path) return undefined;
  return {
    model: path,
    gpu: model?.gpu === "off" ? false : "auto",
    threads: model?.threads && model.threads > 0 ? model.threads : undefined,
    contextSize: model?.contextSize,
    idleUnloadMs: model?.idleUnloadSeconds === undefined ? undefined : model.idleUnloadSeconds * 1000,
  };
}

/**
 * Runs the planner for the client: one model per settings, loaded lazily and reused, its tokenizer lent to
 * the namespace's token counts while it is loaded. The model runs in the server process, never in the editor.
 */
export class PlannerHost {
  readonly #context: PlannerHostContext;
  #model: LlamaPlannerModel | undefined;
  #modelKey = "";

  constructor(context: PlannerHostContext) {
    this.#context = context;
  }

  register(connection: Connection): void {
    connection.onRequest(RunPlanRequest, async (params, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      try {
        return await this.#run(connection, params.runId, params.request, params.trusted, abort.signal);
      } catch (error) {
        throw this.#toResponseError(error);
      }
    });
    connection.onRequest(PrepareModelRequest, async (token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      try {
        const model = await this.#modelFor(await this.#context.settings());
        const info = await model.prepare({ signal: abort.signal });
        this.#context.setTokenCounter(model.tokenCounter());
        return { description: `${info.path} ready on ${info.device}, ${info.threads} threads, context ${info.contextSize}` };
      } catch (error) {
        throw this.#toResponseError(error);
      }
    });
    connection.onDidChangeConfiguration(() => void this.#context.settings().then((settings) => this.#modelFor(settings).catch(() => undefined)));
  }

  /**
   * The model the settings name, shared with Run Plan (loaded lazily, reused); its tokenizer is lent to the
   * token counts once it is ready. Rejects with NO_MODEL_ERROR when none is configured.
   */
  async model(): Promise<LlamaPlannerModel> {
    const model = await this.#modelFor(await this.#context.settings());
    void model.prepare().then(() => this.#context.setTokenCounter(model.tokenCounter()), () => undefined);
    return model;
  }

  /**
   * The context the menu is measured against: the loaded model's (clamped to its trained context), else the
   * configured skill.model.contextSize (default 4096).
   */
  async contextSize(): Promise<number> {
    const settings = await this.#context.settings();
    const wanted = modelSettings(settings);
    if (this.#model && wanted && JSON.stringify(wanted) === this.#modelKey) return this.#model.contextSize();
    return configuredContextSize(settings.model?.contextSize);
  }

  /** Turns a planner failure into the error a client shows (cancelled, model problems, the rest). */
  responseError(error: unknown): ResponseError<void> {
    return this.#toResponseError(error);
  }

  async #modelFor(settings: SkillSettings): Promise<LlamaPlannerModel> {
    const wanted = modelSettings(settings);
    if (!wanted) {
      throw new ResponseError(NO_MODEL_ERROR, "No model is configured: set skill.model.path to a local .gguf file (or an hf: URI).");
    }
    const key = JSON.stringify(wanted);
    if (!this.#model || key !== this.#modelKey) {
      await this.dispose();
      this.#model = new LlamaPlannerModel({ ...wanted, onLog: undefined });
      this.#modelKey = key;
    }
    return this.#model;
  }

  async #run(connection: Connection, runId: string, request: string, trusted: boolean, signal: AbortSignal): Promise<RunPlanResult> {
    if (!trusted) {
      throw new ResponseError(UNTRUSTED_ERROR, "The planner and its tools run only in a trusted workspace: trust this folder to run a plan.");
    }
    const settings = await this.#context.settings();
    const model = await this.#modelFor(settings);
    const tools = createWorkspaceTools({
      folders: this.#context.folders(),
      notebookFile: settings.tools?.notebookFile,
      memoryFile: settings.tools?.memoryFile,
      calendarGlob: settings.tools?.calendarGlob,
      allowWorkspaceCode: false,
    });
    const planner = new Planner({ model, tools });
    const result = await planner.run({
      text: request,
      namespace: this.#context.namespace,
      signal,
      onEvent: (event) => {
        if (event.type === "model" && event.stage === "ready") this.#context.setTokenCounter(model.tokenCounter());
        void connection.sendNotification(PlanEventNotification, { runId, event });
      },
    });
    const plan = result.plan;
    return {
      plan: plan.kind === "plan" ? plan.text : "",
      handles: plan.kind === "plan" ? [...plan.handles] : [],
      tools: plan.kind === "plan" ? plan.expansion.tools.map((tool) => tool.name) : [],
      answer: result.answer.text,
    };
  }

  #toResponseError(error: unknown): ResponseError<void> {
    if (error instanceof ResponseError) return error;
    if (isAbortError(error)) return new ResponseError(LSPErrorCodes.RequestCancelled, "The run was cancelled.");
    if (error instanceof MenuFitError) return new ResponseError(MENU_TOO_LARGE_ERROR, error.message);
    if (error instanceof ModelError) return new ResponseError(ErrorCodes.InvalidRequest, error.message);
    return new ResponseError(ErrorCodes.InternalError, error instanceof Error ? error.message : String(error));
  }

  async dispose(): Promise<void> {
    const model = this.#model;
    this.#model = undefined;
    this.#context.setTokenCounter(undefined);
    await model?.dispose();
  }
}
