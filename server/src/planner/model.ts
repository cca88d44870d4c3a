/**
 * The model as the planner sees it: a small interface, so the planner never touches node-llama-cpp and tests
 * or other back ends can stand in for it.
 */

/** A JSON schema, as plain data (the subset node-llama-cpp turns into a grammar). */
export type JsonSchema = { readonly [key: string]: unknown };

/** One turn of the conversation after the system prompt. The last one is the user's request. */
export interface ModelMessage {
  readonly role: "user" | "model";
  readonly text: string;
}

/** A function the model may call while it generates (the executor offers exactly one: `call_tool`). */
export interface ModelFunction {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  /** Answers the function result the model reads next. Never throws: failures are results too. */
  handler(params: unknown): Promise<unknown>;
}

/**
 * Which evaluated prefix a request may reuse. Each slot keeps its own context sequence, so the planning prompt
 * (stable while the menu is) is not evicted by the execution prompt (which changes with the plan).
 */
export type ModelSlot = "plan" | "execute";

/** A generation request: a system prompt, the conversation, and how to constrain and stop the output. */
export interface GenerateRequest {
  readonly slot: ModelSlot;
  readonly systemPrompt: string;
  readonly messages: readonly ModelMessage[];
  /** Constrains the output to JSON matching this schema (give strings `maxLength` and arrays `maxItems`). */
  readonly jsonSchema?: JsonSchema;
  /** Functions the model may call; not together with `jsonSchema`. */
  readonly functions?: readonly ModelFunction[];
  readonly maxTokens: number;
  readonly signal?: AbortSignal;
  /** Receives the generated text as it streams (function-call syntax excluded). */
  readonly onText?: (text: string) => void;
}

/**
 * A likelihood request: for each prefix, how likely `continuation` is right after it. Routing asks this with one
 * prefix per menu entry (see channel.ts), so nothing is generated.
 */
export interface ScoreRequest {
  readonly prefixes: readonly string[];
  readonly continuation: string;
  readonly signal?: AbortSignal;
}

/** The log-likelihood of the continuation after each prefix, in the prefixes' order. */
export interface ScoreResult {
  readonly scores: readonly number[];
  /** Tokens evaluated: low when the prefixes' evaluated state was kept from an earlier request. */
  readonly evaluatedInputTokens: number;
  readonly durationMs: number;
}

/** Why a generation stopped. */
export type StopReason = "end" | "maxTokens" | "contextFull" | "abort" | "other";

/** What a generation produced, with the figures the events report. */
export interface GenerateResult {
  readonly text: string;
  readonly stopReason: StopReason;
  /** Prompt tokens evaluated for this request: low when the system prompt's evaluated state was reused. */
  readonly evaluatedInputTokens: number;
  readonly outputTokens: number;
  readonly durationMs: number;
}

/** Where the model stands, for a status line. */
export interface ModelInfo {
  /** The resolved local file. */
  readonly path: string;
  readonly contextSize: number;
  /** Set when the context asked for was larger than the model's trained context, which is used instead. */
  readonly contextClamped?: { readonly requested: number; readonly trained: number };
  readonly threads: number;
  /** "cpu", or the GPU back end in use ("cuda", "vulkan", "metal"). */
  readonly device: string;
  readonly loadMs: number;
}

/** Progress while a model is being made ready: a download of an `hf:` URI, then the load. */
export type ModelProgress =
  | { readonly stage: "download"; readonly uri: string; readonly downloadedBytes: number; readonly totalBytes: number }
  | { readonly stage: "load"; readonly path: string }
  | { readonly stage: "ready"; readonly info: ModelInfo };

/** The model behind the planner. */
export interface PlannerModel {
  /** Loads the model if it is not loaded (downloading it first if it is an `hf:` URI). */
  prepare(options?: { readonly signal?: AbortSignal; readonly onProgress?: (progress: ModelProgress) => void }): Promise<ModelInfo>;
  /** Tokens in a text, by the model's own tokenizer. */
  countTokens(text: string): Promise<number>;
  /** A synchronous token counter while the model is loaded; undefined otherwise. */
  tokenCounter?(): ((text: string) => number) | undefined;
  /**
   * The tokens one request may use: the loaded context, else the configured one. A model that answers it has
   * menus larger than that refused before it is loaded or prompted.
   */
  contextSize?(): number;
  /** Generates one answer. Rejects with an `AbortError` when the signal aborts, and with a {@link ModelError} when the model cannot run. */
  generate(request: GenerateRequest): Promise<GenerateResult>;
  /** Scores a continuation after each prefix; models that cannot are planned with a grammar instead. */
  score?(request: ScoreRequest): Promise<ScoreResult>;
  /** Frees the model and everything it holds; it loads again on the next request. */
  unload(): Promise<void>;
  /** Frees everything for good. */
  dispose(): Promise<void>;
}

/** What went wrong with a model, so a caller can offer the right way out. */
export type ModelErrorCode = "missing" | "not-a-file" | "corrupt" | "truncated" | "download" | "load" | "context" | "disposed";

/** A model that cannot be used, with a message a person can act on: which file, what is wrong, what to do. */
export class ModelError extends Error {
  override readonly name = "ModelError";
  readonly code: ModelErrorCode;
  /** The file or URI concerned. */
  readonly source: string;

  constructor(code: ModelErrorCode, source: string, message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.source = source;
  }
}

/** True for the rejection of an aborted request. */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}

/** The error an aborted request rejects with. */
export function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === "AbortError") return reason;
  return new DOMException(typeof reason === "string" ? reason : "The request was cancelled.", "AbortError");
}
