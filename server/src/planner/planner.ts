import { performance } from "node:perf_hooks";
import { composeSystemPrompt, menuCannotFit, menuFit, toolSignature, type Expansion, type Namespace, type SystemPrompt, type ToolSpec } from "../core/index.js";
import type { ToolOutcome, ToolRunner } from "../tools/types.js";
import type { BoundTool, PlannerEvent, PlannerEventListener } from "./events.js";
import { channelCandidates, channelContinuation, channelPrefix } from "./channel.js";
import { abortError, isAbortError, ModelError, type GenerateResult, type PlannerModel } from "./model.js";
import {
  CALL_TOOL,
  CALL_TOOL_PARAMETERS,
  callToolDescription,
  directSystemPrompt,
  executionSystemPrompt,
  menuHandles,
  parsePlan,
  planningSystemPrompt,
  planSchema,
  planSentence,
} from "./prompts.js";

/** What the planner needs: a model and the tools' implementations. */
export interface PlannerOptions {
  readonly model: PlannerModel;
  readonly tools: ToolRunner;
  /** Tokens for the plan's JSON. Default 512: with the grammar's limits a plan always fits. */
  readonly maxPlanTokens?: number;
  /** Tokens for the answer, tool calls included. Default 1024. */
  readonly maxAnswerTokens?: number;
  /** Tool calls per answer; later calls are refused and then generation stops. Default 8. */
  readonly maxToolCalls?: number;
  /** A tool result longer than this (as JSON) is cut before the model reads it. Default 6000 characters. */
  readonly maxToolResultChars?: number;
}

/** One request to the planner. */
export interface PlanRequest {
  /** What the user asked. */
  readonly text: string;
  /** The workspace's skills and tools; the menu and the expansion come from it. */
  readonly namespace: Namespace;
  readonly onEvent?: PlannerEventListener;
  readonly signal?: AbortSignal;
}

/** The first pass's outcome. */
export type Plan =
  /** No skill on the menu: the request goes straight to the model. */
  | { readonly kind: "direct"; readonly systemPrompt: SystemPrompt }
  /** The model chose from the menu (no handle at all for "none"); `expansion.tools` is the toolset to bind. */
  | {
      readonly kind: "plan";
      readonly systemPrompt: SystemPrompt;
      readonly handles: readonly string[];
      readonly reason: string;
      /** The seed's form: "I'll use @search-info to find their PAN number." */
      readonly text: string;
      readonly expansion: Expansion;
    };

/** One call of `call_tool`, as the executor handled it. */
export interface ToolCallRecord {
  readonly id: number;
  readonly name: string;
  readonly args: unknown;
  /** False when the tool was not bound (or past the call limit): it was not run. */
  readonly bound: boolean;
  readonly outcome: ToolOutcome;
}

/** The second pass's outcome. */
export interface Answer {
  readonly text: string;
  readonly toolCalls: readonly ToolCallRecord[];
  readonly outputTokens: number;
  readonly stopReason: string;
}

/** A whole run: the plan and the answer. */
export interface RunResult {
  readonly plan: Plan;
  readonly answer: Answer;
}

const DEFAULT_MAX_PLAN_TOKENS = 512;
const DEFAULT_MAX_ANSWER_TOKENS = 1024;
const DEFAULT_MAX_TOOL_CALLS = 8;
const DEFAULT_MAX_TOOL_RESULT_CHARS = 6000;

/** The tools of an expansion, as the events show them. */
export function boundTools(tools: readonly ToolSpec[]): BoundTool[] {
  return tools.map((tool) => ({ name: tool.name, slug: tool.slug, signature: toolSignature(tool) }));
}

/**
 * A plan made without the model, from handles a person chose (or a test). Handles must be on the menu, as a
 * model's are; "none" or no handle makes the plan that binds nothing.
 * @throws Error naming the handles that are not on the menu.
 */
export function planFromHandles(namespace: Namespace, handles: readonly string[], reason = ""): Plan {
  const systemPrompt = composeSystemPrompt(namespace);
  if (!systemPrompt.planning) return { kind: "direct", systemPrompt };
  const parsed = parsePlan(JSON.stringify({ handles, reason }), menuHandles(systemPrompt));
  if ("problem" in parsed) throw new Error(parsed.problem);
  return { kind: "plan", systemPrompt, handles: parsed.handles, reason: parsed.reason, text: planSentence(parsed.handles, parsed.reason), expansion: namespace.expand(parsed.handles) };
}

/**
 * The planner and executor (the seed's L1–L2 split): a first pass in which the model, seeing only the menu's
 * one-liners, picks handles under a grammar that admits nothing else; the core expands them into the toolset;
 * a second pass in which the chosen skills' bodies enter the prompt and exactly that toolset is callable through
 * one `call_tool` function. With no skill on the menu the request goes straight to the model.
 */
export class Planner {
  readonly #model: PlannerModel;
  readonly #tools: ToolRunner;
  readonly #maxPlanTokens: number;
  readonly #maxAnswerTokens: number;
  readonly #maxToolCalls: number;
  readonly #maxToolResultChars: number;

  constructor(options: PlannerOptions) {
    this.#model = options.model;
    this.#tools = options.tools;
    this.#maxPlanTokens = options.maxPlanTokens ?? DEFAULT_MAX_PLAN_TOKENS;
    this.#maxAnswerTokens = options.maxAnswerTokens ?? DEFAULT_MAX_ANSWER_TOKENS;
    this.#maxToolCalls = options.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
    this.#maxToolResultChars = options.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS;
  }

  /** Plans and then executes, reporting every step. Rejects with an `AbortError` when cancelled, a `ModelError` when the model cannot run. */
  async run(request: PlanRequest): Promise<RunResult> {
    return this.#reporting(request, async (emit) => {
      const plan = await this.#plan(request, emit);
      const answer = await this.#execute(plan, request, emit, true);
      return { plan, answer };
    });
  }

  /** The first pass alone: the model's choice from the menu and the toolset it binds (or the direct path). */
  plan(request: PlanRequest): Promise<Plan> {
    return this.#reporting(request, (emit) => this.#plan(request, emit));
  }

  /** The second pass alone, for a plan made earlier (by {@link plan} or {@link planFromHandles}). */
  execute(plan: Plan, request: PlanRequest): Promise<Answer> {
    return this.#reporting(request, (emit) => this.#execute(plan, request, emit));
  }

  /** Wraps a piece of work so that its end, failure or cancellation is reported exactly once. */
  async #reporting<T>(request: PlanRequest, work: (emit: (event: PlannerEvent) => void) => Promise<T>): Promise<T> {
    const started = performance.now();
    const emit = (event: PlannerEvent) => {
      try {
        request.onEvent?.(event);
      } catch {
        // A listener's failure must not break the run.
      }
    };
    try {
      if (request.signal?.aborted) throw abortError(request.signal);
      return await work(emit);
    } catch (error) {
      if (isAbortError(error) || request.signal?.aborted) {
        emit({ type: "cancelled" });
        throw isAbortError(error) ? error : abortError(request.signal);
      }
      const code = error instanceof ModelError ? error.code : error instanceof PlanError ? "plan" : error instanceof MenuFitError ? "menu" : undefined;
      emit({ type: "error", message: error instanceof Error ? error.message : String(error), ...(code ? { code } : {}) });
      throw error;
    } finally {
      emit({ type: "done", ms: performance.now() - started });
    }
  }

  async #prepare(request: PlanRequest, emit: (event: PlannerEvent) => void): Promise<void> {
    await this.#model.prepare({
      signal: request.signal,
      onProgress: (progress) => emit(progress.stage === "ready" ? { type: "model", stage: "ready", info: progress.info } : { type: "model", ...progress }),
    });
  }

  async #plan(request: PlanRequest, emit: (event: PlannerEvent) => void): Promise<Plan> {
    const systemPrompt = composeSystemPrompt(request.namespace);
    // A menu that cannot fit is refused before the model is loaded; one that may fit, once its tokens are counted.
    const configured = this.#model.contextSize?.();
    if (configured !== undefined && menuCannotFit(systemPrompt, configured)) throw new MenuFitError(menuFit(systemPrompt, configured).sentence ?? "");
    await this.#prepare(request, emit);
    const contextSize = this.#model.contextSize?.();
    if (contextSize !== undefined && systemPrompt.planning) {
      const fit = menuFit(systemPrompt, contextSize, this.#model.tokenCounter?.());
      if (fit.sentence !== undefined) throw new MenuFitError(fit.sentence);
    }
    const menu = menuHandles(systemPrompt);
    const tokens = await this.#model.countTokens(systemPrompt.text);
    emit({ type: "systemPrompt", path: systemPrompt.planning ? "plan" : "direct", tokens, characters: systemPrompt.text.length, label: `${tokens} tokens`, menu });
    if (!systemPrompt.planning) return { kind: "direct", systemPrompt };
    if (this.#model.score) return this.#planByLikelihood(this.#model.score.bind(this.#model), systemPrompt, request, emit);

    const result = await this.#model.generate({
      slot: "plan",
      systemPrompt: planningSystemPrompt(systemPrompt),
      messages: [{ role: "user", text: request.text }],
      jsonSchema: planSchema(menu),
      maxTokens: this.#maxPlanTokens,
      signal: request.signal,
      onText: (text) => emit({ type: "text", phase: "plan", text }),
    });
    const parsed = parsePlan(result.text, menu);
    if ("problem" in parsed) {
      throw new PlanError(`${parsed.problem}${result.stopReason === "maxTokens" ? ` It ran out of tokens (${this.#maxPlanTokens}).` : ""} Nothing was bound.`);
    }
    const text = planSentence(parsed.handles, parsed.reason);
    emit({ type: "plan", handles: parsed.handles, reason: parsed.reason, text, evaluatedInputTokens: result.evaluatedInputTokens, outputTokens: result.outputTokens, ms: result.durationMs });
    const expansion = request.namespace.expand(parsed.handles);
    emit({ type: "bound", tools: boundTools(expansion.tools), skills: expansion.skills.map((skill) => skill.slug), unresolved: expansion.unresolved, disabled: expansion.disabled });
    return { kind: "plan", systemPrompt, handles: parsed.handles, reason: parsed.reason, text, expansion };
  }

  /**
   * The plan pass on a model that scores: the menu entry (or "none") under which the request is likeliest wins.
   * Measured on the labelled set (docs/planner.md), this routes far better on small models than asking them
   * to write a plan.
   */
  async #planByLikelihood(
    score: NonNullable<PlannerModel["score"]>,
    systemPrompt: SystemPrompt,
    request: PlanRequest,
    emit: (event: PlannerEvent) => void,
  ): Promise<Plan> {
    const candidates = channelCandidates(systemPrompt);
    const result = await score({ prefixes: candidates.map(channelPrefix), continuation: channelContinuation(request.text), signal: request.signal });
    let best = 0;
    result.scores.forEach((value, index) => {
      if (value > (result.scores[best] ?? Number.NEGATIVE_INFINITY)) best = index;
    });
    const winner = candidates[best];
    const handles = winner && winner.kind !== "none" ? [winner.handle] : [];
    const text = planSentence(handles, "");
    emit({ type: "text", phase: "plan", text });
    emit({ type: "plan", handles, reason: "", text, evaluatedInputTokens: result.evaluatedInputTokens, outputTokens: 0, ms: result.durationMs });
    const expansion = request.namespace.expand(handles);
    emit({ type: "bound", tools: boundTools(expansion.tools), skills: expansion.skills.map((skill) => skill.slug), unresolved: expansion.unresolved, disabled: expansion.disabled });
    return { kind: "plan", systemPrompt, handles, reason: "", text, expansion };
  }

  async #execute(plan: Plan, request: PlanRequest, emit: (event: PlannerEvent) => void, prepared = false): Promise<Answer> {
    if (!prepared) await this.#prepare(request, emit);
    const tools = plan.kind === "plan" ? plan.expansion.tools : [];
    let systemPrompt: string;
    if (plan.kind === "direct") systemPrompt = plan.systemPrompt.text;
    else if (plan.handles.length === 0) systemPrompt = directSystemPrompt(plan.systemPrompt);
    else systemPrompt = executionSystemPrompt(plan.systemPrompt, plan.text, plan.expansion.skills, tools, plan.handles);
    if (plan.kind === "plan") emit({ type: "executionPrompt", tokens: await this.#model.countTokens(systemPrompt), characters: systemPrompt.length });

    const records: ToolCallRecord[] = [];
    // Stops generation once the model keeps calling past the limit; the request's own signal still cancels.
    const limiter = new AbortController();
    const signal = request.signal ? AbortSignal.any([request.signal, limiter.signal]) : limiter.signal;
    const callTool = {
      name: CALL_TOOL,
      description: callToolDescription(tools),
      parameters: CALL_TOOL_PARAMETERS,
      handler: (params: unknown) => this.#callTool(params, tools, records, emit, request.signal, limiter),
    };
    let result: GenerateResult;
    try {
      result = await this.#model.generate({
        slot: "execute",
        systemPrompt,
        messages: [{ role: "user", text: request.text }],
        functions: tools.length > 0 ? [callTool] : undefined,
        maxTokens: this.#maxAnswerTokens,
        signal,
        onText: (text) => emit({ type: "text", phase: "answer", text }),
      });
    } catch (error) {
      if (request.signal?.aborted || !limiter.signal.aborted) throw error;
      result = { text: `(Stopped: more than ${this.#maxToolCalls} tool calls.)`, stopReason: "other", evaluatedInputTokens: 0, outputTokens: 0, durationMs: 0 };
    }
    const answer: Answer = { text: result.text.trim(), toolCalls: records, outputTokens: result.outputTokens, stopReason: result.stopReason };
    emit({
      type: "answer",
      text: answer.text,
      outputTokens: result.outputTokens,
      evaluatedInputTokens: result.evaluatedInputTokens,
      toolCalls: records.length,
      stopReason: result.stopReason,
      ms: result.durationMs,
    });
    return answer;
  }

  /** One `call_tool` call: only a bound tool runs; anything else is refused, and the refusal is the result. */
  async #callTool(
    params: unknown,
    tools: readonly ToolSpec[],
    records: ToolCallRecord[],
    emit: (event: PlannerEvent) => void,
    signal: AbortSignal | undefined,
    limiter: AbortController,
  ): Promise<unknown> {
    const id = records.length + 1;
    const { name, args } = readCall(params);
    emit({ type: "toolCall", id, name, args });
    const started = performance.now();
    const boundNames = tools.map((tool) => tool.name).join(", ") || "none";
    const wanted = name.replace(/^@/, "");
    const tool = tools.find((candidate) => candidate.name === wanted) ?? tools.find((candidate) => candidate.slug === wanted.toLowerCase());
    let outcome: ToolOutcome;
    let bound = true;
    if (records.length >= this.#maxToolCalls) {
      bound = false;
      outcome = { ok: false, kind: "refused", error: `The limit of ${this.#maxToolCalls} tool calls is reached: answer now with what you have.` };
      if (records.length >= this.#maxToolCalls + 2) limiter.abort();
    } else if (!tool) {
      bound = false;
      outcome = { ok: false, kind: "refused", error: `"${name}" is not bound for this plan, so it was not called. The bound tools are: ${boundNames}.` };
    } else {
      try {
        outcome = await this.#tools.run(tool, args, signal);
      } catch (error) {
        outcome = { ok: false, kind: "failed", error: `${tool.name} threw: ${error instanceof Error ? error.message : String(error)}` };
      }
    }
    records.push({ id, name, args, bound, outcome });
    const ms = performance.now() - started;
    if (outcome.ok) emit({ type: "toolResult", id, name, ok: true, result: outcome.result, ms });
    else emit({ type: "toolResult", id, name, ok: false, error: outcome.error, ...(bound ? {} : { refused: true }), ms });
    return outcome.ok ? this.#clip(outcome.result) : { error: outcome.error };
  }

  #clip(result: unknown): unknown {
    const json = JSON.stringify(result) ?? "null";
    if (json.length <= this.#maxToolResultChars) return result;
    return { truncated: true, firstCharacters: json.slice(0, this.#maxToolResultChars), note: `The result was ${json.length} characters long: ask for less.` };
  }
}

/** The model's plan could not be read; nothing was bound. */
export class PlanError extends Error {
  override readonly name = "PlanError";
}

/** The menu is larger than the model's context can hold; the message is the figures' sentence (core `menuFitSentence`). */
export class MenuFitError extends Error {
  override readonly name = "MenuFitError";
}

function readCall(params: unknown): { readonly name: string; readonly args: unknown } {
  if (typeof params !== "object" || params === null) return { name: "", args: {} };
  const { name, args } = params as { name?: unknown; args?: unknown };
  return { name: typeof name === "string" ? name : "", args: args ?? {} };
}
