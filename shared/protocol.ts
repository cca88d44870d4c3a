/**
 * The custom requests and the semantic-token legend that the client and the server share. One module, used by
 * both sides, so a message type cannot drift between them.
 */
import { NotificationType, RequestType, RequestType0, type WorkspaceEdit } from "vscode-languageserver-protocol";

/** Semantic token types, in legend order. */
export const TOKEN_TYPES = ["skillMention", "toolMention", "unresolvedMention"] as const;
/** Semantic token modifiers, in legend order. */
export const TOKEN_MODIFIERS = ["disabled", "selfMention"] as const;

export type TokenType = (typeof TOKEN_TYPES)[number];
export type TokenModifier = (typeof TOKEN_MODIFIERS)[number];

export const LANGUAGE_ID = "skill";

/** Client-side commands that the server's code lenses and quick fixes name. */
export const ClientCommands = {
  showReferences: "skill.showReferences",
} as const;

/** URI scheme of the read-only description of a built-in tool (the target of "Go to Definition" on a tool). */
export const TOOL_SCHEME = "skill-tool";

export interface ExpandParams {
  readonly handles: readonly string[];
}
export interface ExpandResult {
  readonly tools: readonly { readonly slug: string; readonly name: string }[];
  readonly skills: readonly string[];
  readonly unresolved: readonly string[];
  readonly disabled: readonly string[];
}
/** Expands a plan's handles into the toolset to bind. */
export const ExpandRequest = new RequestType<ExpandParams, ExpandResult, void>("skill/expand");

export interface AlignmentEntry {
  readonly kind: "skill" | "tool";
  readonly handle: string;
  readonly tokens: number;
}
export interface AlignmentResult {
  /** The planner's whole system prompt. */
  readonly text: string;
  readonly tokens: number;
  /** True when counted with the loaded model's tokenizer; false for the `~` characters/4 estimate. */
  readonly exact: boolean;
  /** "412 tokens" or "~412 tokens". */
  readonly label: string;
  readonly planning: boolean;
  readonly menuSkills: readonly string[];
  readonly menuTools: readonly string[];
  readonly entries: readonly AlignmentEntry[];
}
/** The planner's system prompt and its size. */
export const AlignmentRequest = new RequestType0<AlignmentResult, void>("skill/alignment");

export interface MintParams {
  readonly title: string;
  /** The skill being renamed keeps its own slug. */
  readonly currentUri?: string;
}
export interface MintResult {
  readonly handle: string;
  /** True when the plain kebab-cased title was taken and a numeric suffix was added. */
  readonly suffixed: boolean;
}
/** Mints a free handle for a title. */
export const MintRequest = new RequestType<MintParams, MintResult, void>("skill/mint");

export interface NewSkillParams {
  readonly title: string;
  /** The folder to create the skill in. */
  readonly folderUri: string;
}
export interface NewSkillResult {
  readonly handle: string;
  readonly uri: string;
  readonly edit: WorkspaceEdit;
}
/** The edit that creates a skill file from the template, with a minted handle. */
export const NewSkillRequest = new RequestType<NewSkillParams, NewSkillResult, void>("skill/newSkill");

export interface CreateBuiltinsParams {
  readonly folderUri: string;
}
export interface CreateBuiltinsResult {
  readonly created: readonly string[];
  readonly skipped: readonly string[];
  readonly edit: WorkspaceEdit;
}
/** The edit that writes the built-in skills that the workspace lacks. */
export const CreateBuiltinsRequest = new RequestType<CreateBuiltinsParams, CreateBuiltinsResult, void>("skill/createBuiltins");

export interface ToolDescriptionParams {
  readonly slug: string;
}
/** A built-in tool's read-only description, in Markdown. */
export const ToolDescriptionRequest = new RequestType<ToolDescriptionParams, string, void>("skill/toolDescription");

export interface SkillAtParams {
  readonly uri: string;
}
export interface SkillAtResult {
  readonly handle: string;
  readonly title: string;
  readonly valid: boolean;
}
/** The skill a file defines (for Rename Skill from anywhere in its file). */
export const SkillAtRequest = new RequestType<SkillAtParams, SkillAtResult | null, void>("skill/skillAt");

export interface NamespaceStatus {
  readonly skills: number;
  readonly tools: number;
  readonly menuSkills: number;
  /** The planner menu's size: "~412 tokens" or "412 tokens". */
  readonly menuLabel: string;
  readonly planning: boolean;
  readonly indexing: boolean;
}
/** Sent by the server after the namespace changes (debounced), for the status bar. */
export const NamespaceStatusNotification = new NotificationType<NamespaceStatus>("skill/status");

export interface RenameSkillParams {
  /** Any position in the skill's own file is fine: the file names the skill. */
  readonly uri: string;
  readonly newName: string;
}
/** The same cascade as F2, for the skill a file defines: every `@old` → `@new`, and the file's new name. */
export const RenameSkillRequest = new RequestType<RenameSkillParams, WorkspaceEdit, void>("skill/renameSkill");
