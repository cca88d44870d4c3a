import type { WorkspaceEdit } from "vscode-languageserver-types";
import type { AlignmentResult, CreateBuiltinsResult, ExpandResult, MintResult, NamespaceStatus, NewSkillParams, NewSkillResult, SkillAtResult } from "../../../shared/protocol.js";
import { AGENT_SKILL_FILE, agentSkillTemplate, approximateTokenSize, BUILTIN_SKILLS, composeSystemPrompt, kebabCase, menuFit, menuSize, siblingSkillUri, skillTemplate, tokenSize, type Namespace } from "../core/index.js";
import { describeTool } from "./navigation.js";

/** Counts tokens exactly when a model's tokenizer is loaded; undefined falls back to the `~` estimate. */
export type TokenCounter = ((text: string) => number) | undefined;

export function expandHandles(namespace: Namespace, handles: readonly string[]): ExpandResult {
  const expansion = namespace.expand(handles.map((handle) => handle.replace(/^@/, "")));
  return {
    tools: expansion.tools.map((tool) => ({ slug: tool.slug, name: tool.name })),
    skills: expansion.skills.map((skill) => skill.slug),
    unresolved: expansion.unresolved,
    disabled: expansion.disabled,
  };
}

/** The system prompt, its size, and whether it fits a context of `contextSize` tokens. */
export function alignment(namespace: Namespace, countTokens: TokenCounter, contextSize: number): AlignmentResult {
  const prompt = composeSystemPrompt(namespace);
  const size = tokenSize(prompt.text, countTokens);
  const entryTokens = prompt.entries.map((entry) => tokenSize(entry.text, countTokens).tokens);
  const fit = menuFit(prompt, contextSize, countTokens, entryTokens);
  return {
    text: prompt.text,
    tokens: size.tokens,
    exact: size.exact,
    label: size.label,
    planning: prompt.planning,
    menuSkills: prompt.menuSkills.map((skill) => skill.slug),
    menuTools: prompt.menuTools.map((tool) => tool.slug),
    entries: prompt.entries.map((entry, index) => ({ kind: entry.kind, handle: entry.handle, tokens: entryTokens[index] ?? 0 })),
    fit: { fits: fit.fits, contextSize: fit.contextSize, budget: fit.budget, entriesThatFit: fit.entriesThatFit, ...(fit.sentence ? { sentence: fit.sentence } : {}) },
  };
}

/** The last status per namespace: composing the menu walks every skill, and most changes (a body edit) leave it. */
const statusCache = new WeakMap<Namespace, { readonly menuGeneration: number; readonly countTokens: TokenCounter; readonly status: NamespaceStatus }>();

export function status(namespace: Namespace, countTokens: TokenCounter, indexing: boolean): NamespaceStatus {
  const cached = statusCache.get(namespace);
  if (cached && cached.menuGeneration === namespace.menuGeneration && cached.countTokens === countTokens) return { ...cached.status, indexing };
  // While the first index runs the status is sent every few hundred milliseconds: the menu's size, a pass over
  // every skill, waits for the end (100,000 skills: 150 ms of the index's time); the count stays current.
  if (cached && indexing) return { ...cached.status, skills: namespace.skillCount, indexing };
  // Without a tokenizer the size follows from the length alone: no need to write the whole prompt.
  let menu: { readonly skills: number; readonly label: string };
  if (countTokens) {
    const prompt = composeSystemPrompt(namespace);
    menu = { skills: prompt.menuSkills.length, label: tokenSize(prompt.text, countTokens).label };
  } else {
    const size = menuSize(namespace);
    menu = { skills: size.skills, label: approximateTokenSize(size.characters).label };
  }
  const computed: NamespaceStatus = {
    skills: namespace.skillCount,
    tools: namespace.tools().length,
    menuSkills: menu.skills,
    menuLabel: menu.label,
    planning: menu.skills > 0,
    indexing,
  };
  statusCache.set(namespace, { menuGeneration: namespace.menuGeneration, countTokens, status: computed });
  return computed;
}

export function mint(namespace: Namespace, title: string, currentUri?: string): MintResult {
  const current = currentUri ? namespace.skill(currentUri)?.slug : undefined;
  const handle = namespace.mint(title, current);
  return { handle, suffixed: handle !== kebabCase(title) };
}

function folderChild(folderUri: string, handle: string): string {
  return siblingSkillUri(`${folderUri.replace(/\/+$/, "")}/x`, handle);
}

function createFileEdit(uri: string, text: string): NonNullable<WorkspaceEdit["documentChanges"]> {
  return [
    { kind: "create", uri, options: { overwrite: false, ignoreIfExists: false } },
    { textDocument: { uri, version: null }, edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: text }] },
  ];
}

export function newSkill(namespace: Namespace, title: string, folderUri: string, format: NewSkillParams["format"] = "skill-file"): NewSkillResult {
  const handle = namespace.mint(title);
  if (format === "agent-skill") {
    const uri = `${folderUri.replace(/\/+$/, "")}/${encodeURIComponent(handle)}/${AGENT_SKILL_FILE}`;
    return { handle, uri, edit: { documentChanges: createFileEdit(uri, agentSkillTemplate(handle, title.trim() || handle)) } };
  }
  const uri = folderChild(folderUri, handle);
  return { handle, uri, edit: { documentChanges: createFileEdit(uri, skillTemplate(title.trim() || handle)) } };
}

/** Writes the built-in skills whose handles are free; skips those the workspace already has. */
export function createBuiltins(namespace: Namespace, folderUri: string): CreateBuiltinsResult {
  const created: string[] = [];
  const skipped: string[] = [];
  const documentChanges: NonNullable<WorkspaceEdit["documentChanges"]> = [];
  for (const builtin of BUILTIN_SKILLS) {
    const uri = folderChild(folderUri, builtin.handle);
    if (namespace.isTaken(builtin.handle) || namespace.has(uri)) {
      skipped.push(builtin.handle);
      continue;
    }
    created.push(builtin.handle);
    documentChanges.push(...createFileEdit(uri, builtin.text));
  }
  return { created, skipped, edit: { documentChanges } };
}

export function toolDescription(namespace: Namespace, slug: string): string | undefined {
  const tool = namespace.tool(slug.replace(/^@/, "").replace(/\.md$/, ""));
  return tool ? describeTool(tool) : undefined;
}

export function skillAt(namespace: Namespace, uri: string): SkillAtResult | null {
  const skill = namespace.skill(uri);
  return skill ? { handle: skill.slug, title: skill.title, valid: skill.validHandle } : null;
}
