import { toolSignature, type SkillFile, type SystemPrompt, type ToolSpec } from "../core/index.js";
import type { JsonSchema } from "./model.js";

/** The handle a plan names when nothing on the menu fits. */
export const NONE_HANDLE = "none";

/** A plan names at most this many handles: limits keep a weak model from never closing the list. */
export const MAX_PLAN_HANDLES = 3;

/** The plan's reason is one short phrase. */
export const MAX_REASON_CHARS = 200;

/**
 * Appended to the composed system prompt for the planning pass only. It is fixed text, so the prompt's
 * evaluated state stays reusable while the menu is unchanged.
 */
export const PLANNING_DIRECTIVE = [
  "First make a plan. Choose from the menu above (your skills and your tools) the handles this request needs: usually one, the one whose description fits best.",
  'Answer with JSON only: {"handles": ["handle"], "reason": "what you will do, starting with a verb"}. Write each handle without its @.',
  `If nothing on the menu fits, answer {"handles": ["${NONE_HANDLE}"], "reason": "…"}.`,
].join("\n");

/** The planning pass's whole system message. */
export function planningSystemPrompt(prompt: SystemPrompt): string {
  return `${prompt.text.trimEnd()}\n\n${PLANNING_DIRECTIVE}\n`;
}

/** The handles a plan may name: the menu's, in menu order. */
export function menuHandles(prompt: SystemPrompt): string[] {
  return prompt.entries.map((entry) => entry.handle);
}

/**
 * The JSON schema the plan must match, turned into a grammar by the model: a handle outside the menu (or
 * "none") cannot be generated at all.
 */
export function planSchema(handles: readonly string[]): JsonSchema {
  return {
    type: "object",
    properties: {
      handles: { type: "array", items: { enum: [...handles, NONE_HANDLE] }, minItems: 1, maxItems: MAX_PLAN_HANDLES },
      reason: { type: "string", maxLength: MAX_REASON_CHARS },
    },
  };
}

/** A plan read from the model's output. */
export interface ParsedPlan {
  /** Menu handles, deduplicated in the model's order; empty for "none". */
  readonly handles: readonly string[];
  readonly reason: string;
}

/**
 * Reads the model's plan. Checks it again even though the grammar already forces the shape: another model
 * back end may have no grammar. Answers a problem in words when the output is no plan.
 */
export function parsePlan(text: string, menu: readonly string[]): ParsedPlan | { readonly problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: `The model's plan is not JSON: ${JSON.stringify(text.slice(0, 120))}.` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { problem: "The model's plan is not a JSON object." };
  const { handles, reason } = value as { handles?: unknown; reason?: unknown };
  if (!Array.isArray(handles) || !handles.every((handle): handle is string => typeof handle === "string")) {
    return { problem: "The model's plan has no list of handles." };
  }
  const onMenu = new Set(menu);
  const chosen: string[] = [];
  for (const raw of handles) {
    const handle = raw.trim().replace(/^@/, "").toLowerCase();
    if (handle === NONE_HANDLE) continue;
    if (!onMenu.has(handle)) return { problem: `The model's plan names @${handle}, which is not on the menu.` };
    if (!chosen.includes(handle)) chosen.push(handle);
  }
  return { handles: chosen, reason: typeof reason === "string" ? reason.trim().slice(0, MAX_REASON_CHARS) : "" };
}

/** The plan in the seed's form: "I'll use @search-info to find their PAN number." */
export function planSentence(handles: readonly string[], reason: string): string {
  const phrase = reason.trim().replace(/[.!\s]+$/, "").replace(/^to\s+/i, "");
  const purpose = phrase === "" ? "" : ` to ${phrase.charAt(0).toLowerCase()}${phrase.slice(1)}`;
  if (handles.length === 0) return `No skill fits this request: I'll answer directly${phrase === "" ? "" : ` (${phrase})`}.`;
  const mentions = handles.map((handle) => `@${handle}`);
  const list = mentions.length === 1 ? (mentions[0] ?? "") : `${mentions.slice(0, -1).join(", ")} and ${mentions.at(-1) ?? ""}`;
  return `I'll use ${list}${purpose}.`;
}

/** The name of the one function the execution pass offers. */
export const CALL_TOOL = "call_tool";

/** `call_tool`'s description: what it does and each bound tool's compact signature with its blurb. */
export function callToolDescription(tools: readonly ToolSpec[]): string {
  const lines = tools.map((tool) => `- ${toolSignature(tool)}: ${tool.blurb}`);
  return ["Calls one of the tools bound for this plan. name: the tool's name; args: its arguments as an object.", "Tools:", ...lines].join("\n");
}

/** `call_tool`'s parameters. The name is free text so that a call to an unbound tool can be refused in words. */
export const CALL_TOOL_PARAMETERS: JsonSchema = {
  type: "object",
  properties: {
    name: { type: "string", maxLength: 64 },
    args: { type: "object", additionalProperties: true },
  },
};

/**
 * The execution pass's system message: the base instructions, the plan, the full bodies of the skills it
 * follows (only now do they enter the prompt), and which tool each @-mention calls.
 */
export function executionSystemPrompt(prompt: SystemPrompt, planText: string, skills: readonly SkillFile[], tools: readonly ToolSpec[], chosen: readonly string[]): string {
  const parts = [prompt.instructions, `Your plan: ${planText}`];
  if (skills.length > 0) {
    parts.push("Follow these steps.");
    for (const skill of skills) {
      const role = chosen.includes(skill.slug) ? "" : " (used by the steps above)";
      parts.push(`### @${skill.slug}: ${skill.title}${role}\n${skill.body.trim()}`);
    }
  }
  if (tools.length > 0) {
    const mapping = tools.map((tool) => `- @${tool.slug} → ${toolSignature(tool)}`);
    parts.push(
      [`Each @-mention of a tool in the steps is a tool you call with ${CALL_TOOL}, by its name:`, ...mapping].join("\n"),
      "Call one tool at a time and read its result before the next step. Never invent a result. When you have the answer, reply to the user briefly.",
    );
  } else {
    parts.push("No tool is bound for this plan: answer from the steps and what the user said.");
  }
  return `${parts.join("\n\n")}\n`;
}

/** The system message when no skill fits or none is on the menu: instructions and blurbs, no menu. */
export function directSystemPrompt(prompt: SystemPrompt): string {
  return `${[prompt.instructions, ...prompt.blurbs].join("\n\n")}\n`;
}
