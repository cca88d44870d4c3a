import type { ModelErrorCode, ModelInfo } from "./model.js";

/** A bound tool as the events show it. */
export interface BoundTool {
  readonly name: string;
  readonly slug: string;
  /** `find_file(description: string, device?: string)`. */
  readonly signature: string;
}

/**
 * What the planner reports while it works, in order. Plain JSON data, so the language server can stream it to a
 * panel unchanged (`skill/runPlan`).
 */
export type PlannerEvent =
  /** The model is being made ready: an `hf:` download's progress, the load, then ready. */
  | { readonly type: "model"; readonly stage: "download"; readonly uri: string; readonly downloadedBytes: number; readonly totalBytes: number }
  | { readonly type: "model"; readonly stage: "load"; readonly path: string }
  | { readonly type: "model"; readonly stage: "ready"; readonly info: ModelInfo }
  /**
   * The system prompt of the first pass and its size by the model's tokenizer. `path` is "plan" when at least
   * one skill is on the menu, "direct" otherwise.
   */
  | {
      readonly type: "systemPrompt";
      readonly path: "plan" | "direct";
      readonly tokens: number;
      readonly characters: number;
      /** "412 tokens": always exact here, the model being loaded. */
      readonly label: string;
      /** The handles on the menu, skills first. */
      readonly menu: readonly string[];
    }
  /** Generated text as it streams: the plan's JSON, then the answer. */
  | { readonly type: "text"; readonly phase: "plan" | "answer"; readonly text: string }
  /** The model's choice, in the seed's form: "I'll use @search-info to find their PAN number." */
  | { readonly type: "plan"; readonly handles: readonly string[]; readonly reason: string; readonly text: string; readonly evaluatedInputTokens: number; readonly outputTokens: number; readonly ms: number }
  /** The toolset bound for the execution pass: the plan's handles expanded, and no other tool. */
  | { readonly type: "bound"; readonly tools: readonly BoundTool[]; readonly skills: readonly string[]; readonly unresolved: readonly string[]; readonly disabled: readonly string[] }
  /** The execution pass's system prompt (the chosen skills' bodies enter here) and its size. */
  | { readonly type: "executionPrompt"; readonly tokens: number; readonly characters: number }
  /** The model called `call_tool`. */
  | { readonly type: "toolCall"; readonly id: number; readonly name: string; readonly args: unknown }
  /** What the call answered. `refused` is set for a tool the plan did not bind (or past the call limit). */
  | { readonly type: "toolResult"; readonly id: number; readonly name: string; readonly ok: boolean; readonly result?: unknown; readonly error?: string; readonly refused?: boolean; readonly ms: number }
  /** The answer, complete. */
  | { readonly type: "answer"; readonly text: string; readonly outputTokens: number; readonly evaluatedInputTokens: number; readonly toolCalls: number; readonly stopReason: string; readonly ms: number }
  /** Something went wrong; for a model problem `code` says what (see `ModelError`). The run then rejects. */
  | { readonly type: "error"; readonly message: string; readonly code?: ModelErrorCode | "plan" | "menu" }
  /** The run was cancelled; it rejects with an `AbortError`. */
  | { readonly type: "cancelled" }
  /** The run is over (after "answer", "error" or "cancelled"). */
  | { readonly type: "done"; readonly ms: number };

/** Receives the events of one run. */
export type PlannerEventListener = (event: PlannerEvent) => void;
