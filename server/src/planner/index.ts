/**
 * The planner and executor on a local model. The language server creates one `LlamaPlannerModel` per settings
 * and one `WorkspaceTools` per workspace, and runs `new Planner({ model, tools }).run({ text, namespace,
 * onEvent, signal })`, streaming the events to the client.
 */
export * from "./events.js";
export * from "./model.js";
export { configuredContextSize, LlamaPlannerModel, llamaBinding, type LlamaModelSettings } from "./llamaModel.js";
export { checkModelFile, EXAMPLE_MODEL_URI, isModelUri } from "./modelFile.js";
export { MenuFitError, Planner, PlanError, boundTools, planFromHandles, type Answer, type Plan, type PlannerOptions, type PlanRequest, type RunResult, type ToolCallRecord } from "./planner.js";
export { CALL_TOOL, MAX_PLAN_HANDLES, NONE_HANDLE, PLANNING_DIRECTIVE, parsePlan, planSchema, planSentence, planningSystemPrompt } from "./prompts.js";
export * from "./routing.js";
