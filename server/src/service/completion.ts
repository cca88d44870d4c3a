import {
  CompletionItemKind,
  InsertTextFormat,
  MarkupKind,
  type CompletionItem,
  type CompletionList,
} from "vscode-languageserver-types";
import { AGENT_SIGILS, agentsReadingSkill, completeAgentSkillKey, completeAgentSkillValue, FRONTMATTER_KEYS, type AgentSkillCompletionItem, SKILL_FILE_FORMAT, isProseAt, slugKey, toolSignature, wantedLetters, type CandidateSlots, type Namespace, type Position, type SkillFile, type ToolSpec } from "../core/index.js";
import type { WorkspaceFile } from "./lookup.js";

/** More matches than this come back as an incomplete list: the client asks again as the user types. */
const MAX_ITEMS = 100;

/** Skills laid out at a time into completion's table while a completion needs more of it than is there. */
const LAYOUT_PART_SKILLS = 2048;

function isSlugChar(char: string): boolean {
  return /[A-Za-z0-9-]/.test(char);
}

/** Before `/` or `$`: a character that makes it a path, a URL or a variable, where nothing is offered. */
const PATH_BEFORE = /[\p{L}\p{M}\p{N}_/\\.~:<>$@%=+*&|-]/u;

/** The `@partial` (or `/partial`, `$partial` where the file takes them) under the cursor: its sigil, where it starts and ends, what was typed. */
function partialMentionAt(text: string, offset: number, sigils: readonly string[]): { sigil: string; start: number; end: number; typed: string } | undefined {
  let start = offset;
  while (start > 0 && isSlugChar(text.charAt(start - 1))) start--;
  const sigil = text.charAt(start - 1);
  if (!sigils.includes(sigil)) return undefined;
  const at = start - 1;
  if (at > 0 && (sigil === "@" ? /[\p{L}\p{N}_@\\]/u : PATH_BEFORE).test(text.charAt(at - 1))) return undefined;
  let end = offset;
  while (end < text.length && isSlugChar(text.charAt(end))) end++;
  return { sigil, start: at, end, typed: text.slice(start, offset).toLowerCase() };
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

/** What the client can take, from its capabilities. */
export interface CompletionOptions {
  readonly snippets: boolean;
  /**
   * The client reads a list's shared edit range (LSP 3.17 `itemDefaults.editRange`): each mention item is then
   * its label and little else, a third of the bytes, which is most of a 10,000-skill completion's cost.
   */
  readonly defaultEditRange: boolean;
}

const FULL_CLIENT: CompletionOptions = { snippets: true, defaultEditRange: false };

/** Completion inside a skill file or skills.json: mentions after `@`, and the frontmatter's keys and values. */
export function complete(namespace: Namespace, file: WorkspaceFile, position: Position, options: CompletionOptions = FULL_CLIENT): CompletionList | null {
  const { text, lines } = file.file;
  // A document no editor has open lets its text go: completion is asked only in an open one.
  if (text === undefined) return null;
  const offset = lines.offsetAt(position);
  if (file.kind === "skill") {
    const frontmatter = file.file.format === SKILL_FILE_FORMAT ? frontmatterCompletion(file.file, offset, options.snippets) : agentFrontmatterCompletion(file.file, offset);
    if (frontmatter) return frontmatter;
  }
  const sigils = file.kind === "skill" ? file.file.format.sigils : file.kind === "document" ? AGENT_SIGILS : ["@"];
  const partial = partialMentionAt(text, offset, sigils);
  // Nothing is offered where the scanner would not read a mention: in fenced code, a URL or a path.
  const fencesFrom = file.kind === "skill" ? file.file.bodyStart : file.kind === "document" ? 0 : text.length;
  if (!partial || !isProseAt(text, partial.start, fencesFrom)) return null;
  const range = lines.rangeOf(partial.start, partial.end);
  // With a shared range the label (`@slug`) is the text inserted; otherwise each item carries the edit.
  const edit = options.defaultEditRange ? undefined : range;
  const self = file.kind === "skill" ? file.file.slug : undefined;
  const matches = (slug: string, title: string) =>
    partial.typed === "" || isSubsequence(partial.typed, slug) || isSubsequenceIgnoringCase(partial.typed, title);

  // The workspace's few tools are always offered, however many skills there are: their places are kept first.
  const tools: CompletionItem[] = [];
  if (partial.sigil === "@") for (const tool of namespace.tools()) if (matches(tool.slug, tool.title)) tools.push(toolItem(tool, edit));
  // Then the skills whose handle starts with what was typed, then the others that match it: past the limit the
  // list is incomplete and the client asks again as the user types, so the closest matches are the ones sent.
  const room = Math.max(0, MAX_ITEMS - tools.length);
  // A skill whose handle a tool declares resolves to the tool: it is not offered (tools are few).
  const toolSlugs = new Set(namespace.tools().map((tool) => slugKey(tool.slug)));
  const offeredSkill = (slug: string) => slug !== self && !toolSlugs.has(slug);
  const wanted = wantedLetters(partial.typed);
  const firstChar = partial.typed.charCodeAt(0);
  const starting: CompletionItem[] = [];
  const others: CompletionItem[] = [];
  let incomplete = false;
  // True once the list is full of handles that start with the text: what comes after cannot change it.
  let settled = false;
  const seen = new Set<string>();
  /** Scans the slots from `from` on, where the scan of those before it stopped. */
  const scan = ({ length, slugs, titles, letters, firstChars }: CandidateSlots, from: number) => {
    for (let i = from; i < length; i++) {
      // The letters first: one test in a typed array, and most skills fail it once a letter is typed.
      if (((letters[i] as number) & wanted) !== wanted) continue;
      const slug = slugs[i] as string;
      // The first character from a typed array too: once the other matches are full, the scan reads no string
      // but those of the handles that start like the text.
      const startsWithTyped = partial.typed === "" || (firstChars[i] === firstChar && slug.startsWith(partial.typed));
      if (!startsWithTyped && others.length >= room) {
        // Only a handle that starts with the text can still take a place. Another match makes the list
        // incomplete, which the first such match settles.
        if (!incomplete && offeredSkill(slug) && !seen.has(slug) && matches(slug, titles[i] as string)) incomplete = true;
        continue;
      }
      if (!offeredSkill(slug)) continue;
      const title = titles[i] as string;
      if (!startsWithTyped && !matches(slug, title)) continue;
      if (seen.has(slug)) continue;
      seen.add(slug);
      const list = startsWithTyped ? starting : others;
      if (list.length >= room) {
        incomplete = true;
        // Full of handles that start with the text: no other match can take a place, so the rest is not walked.
        if (list === starting) {
          settled = true;
          break;
        }
        continue;
      }
      list.push(skillItem(slug, title, edit, partial.sigil));
    }
  };
  // Right after an index the table may still be being laid out (in slices): the skills in it so far come first
  // in its order, so a list they fill with handles that start with the text is the whole table's answer too.
  // Otherwise more is laid out, a part at a time, until the list is settled or the table whole: at once, the
  // first completion after an index of 100,000 skills waited 50 ms or more for it.
  for (let scanned = 0; ; ) {
    const soFar = namespace.mentionCandidatesSoFar();
    scan(soFar, scanned);
    scanned = soFar.length;
    if (settled || soFar.complete) break;
    namespace.layOutMentionCandidates(LAYOUT_PART_SKILLS);
  }
  // Skills, then tools, as their sort texts order them.
  const items = starting;
  for (const item of others) {
    if (items.length < room) items.push(item);
    else incomplete = true;
  }
  for (const item of tools) items.push(item);
  if (edit) return { isIncomplete: incomplete, items };
  return { isIncomplete: incomplete, itemDefaults: { editRange: range }, items };
}

type Range = ReturnType<SkillFile["lines"]["rangeOf"]>;

// `detail` and `documentation` come with completionItem/resolve, for the one item the user looks at.
function skillItem(slug: string, title: string, range: Range | undefined, sigil: string): CompletionItem {
  const item: CompletionItem = { label: `${sigil}${slug}`, kind: CompletionItemKind.Module, labelDetails: { detail: " skill", description: title }, sortText: `0${slug}` };
  if (range) item.textEdit = { range, newText: item.label };
  return item;
}

function toolItem(tool: ToolSpec, range: Range | undefined): CompletionItem {
  const item: CompletionItem = { label: `@${tool.slug}`, kind: CompletionItemKind.Function, labelDetails: { detail: " tool", description: tool.name }, sortText: `1${tool.slug}` };
  if (range) item.textEdit = { range, newText: item.label };
  return item;
}

/** Fills in the detail and documentation of a mention item: the summary or blurb, and what a skill binds. */
export function resolveCompletion(namespace: Namespace, item: CompletionItem): CompletionItem {
  if (!/^[@/$]/.test(item.label)) return item;
  const target = namespace.resolve(item.label.slice(1));
  if (!target) return item;
  if (target.kind === "tool") {
    const signature = toolSignature(target.tool);
    return { ...item, detail: `Tool: ${signature}`, documentation: { kind: MarkupKind.Markdown, value: `${target.tool.blurb}\n\n\`${signature}\`` } };
  }
  const { skill } = target;
  const value = `${skill.summary ?? "_No summary._"}\n\n${bindsLine(namespace, skill.slug)}`;
  return { ...item, detail: `Skill: ${skill.title}${skill.advertised ? "" : " (not advertised)"}`, documentation: { kind: MarkupKind.Markdown, value } };
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

/** The line of the frontmatter before the cursor, or undefined outside the frontmatter. */
function frontmatterLineBefore(skill: SkillFile, offset: number): string | undefined {
  const { text } = skill;
  const fenceEnd = skill.frontmatterRange ? skill.lines.offsetAt(skill.frontmatterRange.end) : text.startsWith("---") ? text.length : 0;
  if (offset <= 3 || offset >= fenceEnd) return undefined;
  const before = text.slice(Math.max(text.lastIndexOf("\n", offset - 1) + 1, 0), offset);
  return /^---/.test(before) ? undefined : before;
}

/** A SKILL.md's frontmatter: the keys of the Agent Skills format and of the agents that read it, and their values where the set is known. */
function agentFrontmatterCompletion(skill: SkillFile, offset: number): CompletionList | undefined {
  const before = frontmatterLineBefore(skill, offset);
  if (before === undefined) return undefined;
  const options = { readers: agentsReadingSkill(skill.uri), place: /^\s+/.test(before) ? ("metadata" as const) : ("top" as const) };
  const toItem = (item: AgentSkillCompletionItem, kind: CompletionItemKind): CompletionItem => ({
    label: item.label,
    kind,
    detail: item.detail,
    documentation: { kind: MarkupKind.Markdown, value: item.documentation.markdown },
    insertText: item.insertText,
    sortText: item.sortText,
  });
  if (/^\s*[A-Za-z_-]*$/.test(before)) {
    const fenceEnd = skill.frontmatterRange ? skill.lines.offsetAt(skill.frontmatterRange.end) : skill.text.length;
    const present = [...skill.text.slice(0, fenceEnd).matchAll(/^([A-Za-z_-]+):/gm)].flatMap((match) => (match[1] ? [match[1]] : []));
    return { isIncomplete: false, items: completeAgentSkillKey(present, options).map((item) => toItem(item, CompletionItemKind.Property)) };
  }
  const value = /^\s*([A-Za-z_-]+):\s*([A-Za-z0-9.-]*)$/.exec(before);
  if (!value?.[1]) return undefined;
  const items = completeAgentSkillValue(value[1], options);
  return items.length > 0 ? { isIncomplete: false, items: items.map((item) => toItem(item, CompletionItemKind.Value)) } : undefined;
}

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
