import {
  CompletionItemKind,
  InsertTextFormat,
  MarkupKind,
  type CompletionItem,
  type CompletionList,
} from "vscode-languageserver-types";
import { FRONTMATTER_KEYS, toolSignature, type Namespace, type Position, type SkillFile, type ToolSpec } from "../core/index.js";
import type { WorkspaceFile } from "./lookup.js";

/** More matches than this come back as an incomplete list: the client asks again as the user types. */
const MAX_ITEMS = 300;

interface CompletionData {
  readonly slug: string;
}

function isSlugChar(char: string): boolean {
  return /[A-Za-z0-9-]/.test(char);
}

/** The `@partial` under the cursor: where it starts (the `@`), where it ends, and what was typed. */
function partialMentionAt(text: string, offset: number): { start: number; end: number; typed: string } | undefined {
  let start = offset;
  while (start > 0 && isSlugChar(text.charAt(start - 1))) start--;
  if (text.charAt(start - 1) !== "@") return undefined;
  const at = start - 1;
  if (at > 0 && /[\p{L}\p{N}_@\\]/u.test(text.charAt(at - 1))) return undefined;
  let end = offset;
  while (end < text.length && isSlugChar(text.charAt(end))) end++;
  return { start: at, end, typed: text.slice(start, offset).toLowerCase() };
}

/** True when the letters of `query` appear in `target` in order: "mp" matches "meeting-prep". */
function isSubsequence(query: string, target: string): boolean {
  let index = 0;
  for (let i = 0; i < target.length && index < query.length; i++) if (target.charCodeAt(i) === query.charCodeAt(index)) index++;
  return index === query.length;
}

/** `isSubsequence(query, target.toLowerCase())`, without building the lower-cased copy while `target` is ASCII. */
function isSubsequenceIgnoringCase(query: string, target: string): boolean {
  let index = 0;
  for (let i = 0; i < target.length && index < query.length; i++) {
    let code = target.charCodeAt(i);
    if (code > 127) return isSubsequence(query, target.toLowerCase());
    if (code >= 65 && code <= 90) code += 32;
    if (code === query.charCodeAt(index)) index++;
  }
  return index === query.length;
}

/** Completion inside a skill file or skills.json: mentions after `@`, and the frontmatter's keys and values. */
export function complete(namespace: Namespace, file: WorkspaceFile, position: Position, snippets = true): CompletionList | null {
  const { text, lines } = file.file;
  const offset = lines.offsetAt(position);
  if (file.kind === "skill") {
    const frontmatter = frontmatterCompletion(file.file, offset, snippets);
    if (frontmatter) return frontmatter;
  }
  const partial = partialMentionAt(text, offset);
  if (!partial) return null;
  const range = lines.rangeOf(partial.start, partial.end);
  const self = file.kind === "skill" ? file.file.slug : undefined;
  const matches = (slug: string, title: string) =>
    partial.typed === "" || isSubsequence(partial.typed, slug) || isSubsequenceIgnoringCase(partial.typed, title);

  const items: CompletionItem[] = [];
  let incomplete = false;
  const push = (item: CompletionItem) => {
    if (items.length >= MAX_ITEMS) incomplete = true;
    else items.push(item);
  };
  const seen = new Set<string>();
  for (const skill of namespace.skills()) {
    if (!skill.validHandle || !skill.enabled || skill.slug === self) continue;
    // The text match first: it is the cheapest test, and most skills fail it once a letter is typed.
    if (!matches(skill.slug, skill.title) || seen.has(skill.slug) || namespace.resolve(skill.slug)?.kind !== "skill") continue;
    seen.add(skill.slug);
    push(skillItem(skill, range));
    // Over-full: nothing more is added (tools included), so stop instead of walking the rest of the workspace.
    if (incomplete) break;
  }
  if (!incomplete) {
    for (const tool of namespace.tools()) {
      if (matches(tool.slug, tool.title)) push(toolItem(tool, range));
    }
  }
  return { isIncomplete: incomplete, items };
}

function skillItem(skill: SkillFile, range: ReturnType<SkillFile["lines"]["rangeOf"]>): CompletionItem {
  return {
    label: `@${skill.slug}`,
    kind: CompletionItemKind.Module,
    labelDetails: { detail: " skill", description: skill.title },
    detail: `Skill: ${skill.title}${skill.advertised ? "" : " (not advertised)"}`,
    sortText: `0${skill.slug}`,
    textEdit: { range, newText: `@${skill.slug}` },
    data: { slug: skill.slug } satisfies CompletionData,
  };
}

function toolItem(tool: ToolSpec, range: ReturnType<SkillFile["lines"]["rangeOf"]>): CompletionItem {
  return {
    label: `@${tool.slug}`,
    kind: CompletionItemKind.Function,
    labelDetails: { detail: " tool", description: tool.name },
    detail: `Tool: ${toolSignature(tool)}`,
    sortText: `1${tool.slug}`,
    textEdit: { range, newText: `@${tool.slug}` },
    data: { slug: tool.slug } satisfies CompletionData,
  };
}

/** Fills in the documentation of a mention item: the summary or blurb, and what a skill binds. */
export function resolveCompletion(namespace: Namespace, item: CompletionItem): CompletionItem {
  const data = item.data as Partial<CompletionData> | undefined;
  if (!data?.slug) return item;
  const target = namespace.resolve(data.slug);
  if (!target) return item;
  const value =
    target.kind === "tool"
      ? `${target.tool.blurb}\n\n\`${toolSignature(target.tool)}\``
      : `${target.skill.summary ?? "_No summary._"}\n\n${bindsLine(namespace, target.skill.slug)}`;
  return { ...item, documentation: { kind: MarkupKind.Markdown, value } };
}

/** "Binds `check_notebook`, `find_file`" for a skill. */
export function bindsLine(namespace: Namespace, slug: string): string {
  const tools = namespace.expand([slug]).tools.map((tool) => `\`${tool.name}\``);
  return tools.length > 0 ? `Binds ${tools.join(", ")}` : "Binds no tool";
}

const VALUE_CHOICES: Readonly<Record<string, readonly string[]>> = { enabled: ["true", "false"], advertised: ["true", "false"] };

const KEY_DOCS: Readonly<Record<string, string>> = {
  title: "Display name. Default: the handle, words capitalised.",
  summary: "One to three lines: the planner's menu entry for this skill.",
  enabled: "false makes the skill inert: it does not validate as a mention and does not expand.",
  advertised: "false keeps the skill off the planner's menu; it is still usable through mentions.",
  examples: "Requests that must route to this skill (routing tests).",
  "near-misses": "Requests that must not route to this skill (routing tests).",
};

function frontmatterCompletion(skill: SkillFile, offset: number, snippets: boolean): CompletionList | undefined {
  const { text } = skill;
  const fenceEnd = skill.frontmatterRange ? skill.lines.offsetAt(skill.frontmatterRange.end) : text.startsWith("---") ? text.length : 0;
  if (offset <= 3 || offset >= fenceEnd) return undefined;
  const lineStart = Math.max(text.lastIndexOf("\n", offset - 1) + 1, 0);
  const before = text.slice(lineStart, offset);
  if (/^---/.test(before)) return undefined;
  const keyTyped = /^([A-Za-z-]*)$/.exec(before);
  if (keyTyped) {
    const present = new Set([...text.slice(0, fenceEnd).matchAll(/^([A-Za-z-]+):/gm)].map((match) => match[1]));
    const items = Object.keys(FRONTMATTER_KEYS)
      .filter((key) => !present.has(key))
      .map((key): CompletionItem => ({
        label: key,
        kind: CompletionItemKind.Property,
        detail: FRONTMATTER_KEYS[key as keyof typeof FRONTMATTER_KEYS],
        documentation: KEY_DOCS[key],
        insertText: FRONTMATTER_KEYS[key as keyof typeof FRONTMATTER_KEYS] === "string list" ? `${key}:\n  - "${snippets ? "$1" : ""}"` : `${key}: ${snippets ? "$1" : ""}`,
        insertTextFormat: snippets ? InsertTextFormat.Snippet : InsertTextFormat.PlainText,
      }));
    return { isIncomplete: false, items };
  }
  const valueTyped = /^([A-Za-z-]+):\s*([A-Za-z]*)$/.exec(before);
  const choices = valueTyped ? VALUE_CHOICES[valueTyped[1] ?? ""] : undefined;
  if (choices) return { isIncomplete: false, items: choices.map((choice) => ({ label: choice, kind: CompletionItemKind.Value })) };
  return undefined;
}
