import type { Range } from "./text.js";

/** A JSON Schema for a tool's arguments (an object schema). */
export interface ArgumentSchema {
  readonly type: "object";
  readonly properties: Readonly<Record<string, { readonly type: string; readonly description?: string; readonly maxLength?: number; readonly enum?: readonly string[] }>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean;
}

/** Where a tool is declared: built into the product, or in a workspace's `skills.json`. */
export type ToolOrigin =
  | { readonly kind: "builtin" }
  | { readonly kind: "config"; readonly uri: string; readonly range: Range };

/** A fixed capability implemented in code: addressed by its slug, bound by its tool name. */
export interface ToolSpec {
  readonly slug: string;
  /** The identifier the model's tool-calling machinery sees. */
  readonly name: string;
  readonly title: string;
  /** One line: what the tool does. */
  readonly blurb: string;
  readonly parameters: ArgumentSchema;
  /** Offered to the planner as a top-level choice. */
  readonly advertiseInMenu: boolean;
  readonly origin: ToolOrigin;
}

const noArguments: ArgumentSchema = { type: "object", properties: {}, additionalProperties: false };

function described(description: string): { type: string; description: string; maxLength: number } {
  return { type: "string", description, maxLength: 200 };
}

/** The six built-in tools of the seed, in its order. Only `@current-date` is advertised on its own. */
export const BUILTIN_TOOLS: readonly ToolSpec[] = [
  {
    slug: "check-notebook",
    name: "check_notebook",
    title: "Check Notebook",
    blurb: "Search the agent's distilled private Notebook of facts about the user.",
    parameters: { type: "object", properties: { query: described("What to look for") }, required: ["query"], additionalProperties: false },
    advertiseInMenu: false,
    origin: { kind: "builtin" },
  },
  {
    slug: "find-file",
    name: "find_file",
    title: "Find File",
    blurb: "Find one of the user's own files across their devices by description.",
    parameters: {
      type: "object",
      properties: { description: described("Words from the file's name or path"), device: described("A device id from list_devices; all devices when left out") },
      required: ["description"],
      additionalProperties: false,
    },
    advertiseInMenu: false,
    origin: { kind: "builtin" },
  },
  {
    slug: "list-devices",
    name: "list_devices",
    title: "List Devices",
    blurb: "List the user's device ids (plumbing for find_file).",
    parameters: noArguments,
    advertiseInMenu: false,
    origin: { kind: "builtin" },
  },
  {
    slug: "grep-memory",
    name: "grep_memory",
    title: "Grep Memory",
    blurb: "Last-resort search of the full long-term memory log.",
    parameters: { type: "object", properties: { pattern: described("Words or a regular expression to find") }, required: ["pattern"], additionalProperties: false },
    advertiseInMenu: false,
    origin: { kind: "builtin" },
  },
  {
    slug: "current-date",
    name: "current_date",
    title: "Current Date",
    blurb: "You do NOT know the current date/day on your own — use this for ANY question about today's date or day of the week.",
    parameters: noArguments,
    advertiseInMenu: true,
    origin: { kind: "builtin" },
  },
  {
    slug: "calendar",
    name: "queryCalendar",
    title: "Calendar",
    blurb: "List calendar events for a described time range.",
    parameters: {
      type: "object",
      properties: { start: described("First day, YYYY-MM-DD"), end: described("Last day, YYYY-MM-DD"), query: described("Optional words to filter events by") },
      required: ["start", "end"],
      additionalProperties: false,
    },
    advertiseInMenu: false,
    origin: { kind: "builtin" },
  },
];

/** A tool's compact signature, as the execution pass lists it: `find_file(description: string, device?: string)`. */
export function toolSignature(tool: ToolSpec): string {
  const required = new Set(tool.parameters.required ?? []);
  const parameters = Object.entries(tool.parameters.properties).map(
    ([name, schema]) => `${name}${required.has(name) ? "" : "?"}: ${schema.type}`,
  );
  return `${tool.name}(${parameters.join(", ")})`;
}

/** A "here is what you have" paragraph for the direct path. Prompt composition only: it grants nothing. */
export interface PromptBlurb {
  readonly id: "notebook" | "files" | "calendar" | "date";
  readonly label: string;
  readonly text: string;
}

/** The seed's four prompt blurbs, all off by default. */
export const PROMPT_BLURBS: readonly PromptBlurb[] = [
  { id: "notebook", label: "Notebook", text: "Notebook: you keep a private notebook of facts about the user; search it before saying you do not know something about them." },
  { id: "files", label: "Files", text: "Files: the user's files live on several devices; list the devices first, then look for a file by a short description." },
  { id: "calendar", label: "Calendar", text: "Calendar: you can list the user's events for a range of days; work out the exact dates first." },
  { id: "date", label: "Date", text: "Date: you do not know today's date on your own; look it up before answering anything that depends on it." },
];

export const PROMPT_BLURB_IDS: readonly string[] = PROMPT_BLURBS.map((blurb) => blurb.id);
