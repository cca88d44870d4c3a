import {
  CodeLens,
  MarkupKind,
  SymbolKind,
  type DocumentSymbol,
  type Hover,
  type Location,
  type SymbolInformation,
} from "vscode-languageserver-types";
import { ClientCommands, TOOL_SCHEME } from "../../../shared/protocol.js";
import { agentsReadingSkill, CONFIG_FILE_NAME, hoverAgentSkillKey, hoverAgentSkillValue, hoverBuiltinCommand, SKILL_FILE_FORMAT, sigilOf, toolSignature, type Namespace, type Position, type Range, type SkillFile, type ToolSpec } from "../core/index.js";
import { cachedMenuPrices, offMenuReason } from "../core/graph.js";
import { bindsLine } from "./completion.js";
import { fileOf, mentionAt, subjectAt, type WorkspaceFile } from "./lookup.js";

const FILE_START: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/** Every mention of the slug at a position, across the workspace; with the declaration, the skill's file too. */
export function references(namespace: Namespace, file: WorkspaceFile, position: Position, includeDeclaration: boolean, isCancelled: () => boolean = () => false): Location[] | null {
  const subject = subjectAt(file, position);
  if (!subject) return null;
  const locations: Location[] = [];
  const claimants = namespace.claimants(subject.slug);
  if (includeDeclaration) for (const skill of claimants) locations.push({ uri: skill.uri, range: skill.declaration });
  const only = claimants.length === 1 ? claimants[0] : undefined;
  for (const uri of namespace.mentioners(subject.slug)) {
    if (isCancelled()) return null;
    const other = fileOf(namespace, uri);
    if (!other) continue;
    const named = namespace.mentionsOfSlug(uri, subject.slug);
    const reaching = only ? namespace.referencesTo(only, named) : named;
    for (const mention of reaching) locations.push({ uri, range: mention.range });
  }
  return locations;
}

/** The URI of a built-in tool's read-only description. */
export function toolDescriptionUri(tool: ToolSpec): string {
  return `${TOOL_SCHEME}:/${tool.slug}.md`;
}

/** A skill mention goes to the skill's file; a tool mention to its entry in skills.json or its description. */
export function definition(namespace: Namespace, file: WorkspaceFile, position: Position): Location[] | null {
  const mention = mentionAt(file, position);
  if (!mention) return null;
  const target = namespace.resolve(mention.slug);
  if (!target) return null;
  if (target.kind === "tool" && sigilOf(mention) !== "") {
    const origin = target.tool.origin;
    return [origin.kind === "config" ? { uri: origin.uri, range: origin.range } : { uri: toolDescriptionUri(target.tool), range: FILE_START }];
  }
  const linked = (mention as { target?: string }).target;
  return namespace.claimants(mention.slug).filter((skill) => linked === undefined || skill.uri === linked).map((skill) => ({ uri: skill.uri, range: skill.declaration }));
}

/** The first line of a hover, the same shape for a tool and a skill: `**Title** · kind \`handle\``. */
function hoverHeading(title: string, kind: string, code: string): string {
  return `**${title}** · ${kind} \`${code}\``;
}

/** What a tool's hover and its read-only page share: the blurb, the signature, the arguments, the menu. */
function toolDetails(tool: ToolSpec): string[] {
  const properties = Object.entries(tool.parameters.properties);
  const required = new Set(tool.parameters.required ?? []);
  return [
    tool.blurb,
    "",
    `\`${toolSignature(tool)}\``,
    "",
    ...(properties.length > 0 ? properties.map(([name, schema]) => `- \`${name}\`${required.has(name) ? "" : " (optional)"}: ${schema.description ?? schema.type}`) : ["No arguments."]),
    "",
    tool.advertiseInMenu ? "Advertised on the planner's menu." : "Not on the planner's menu: reachable through the skills that mention it.",
  ];
}

const toolOrigin = (tool: ToolSpec) => (tool.origin.kind === "builtin" ? "built in" : `declared in ${CONFIG_FILE_NAME}`);

/** A built-in or declared tool, described in Markdown for its read-only page. */
export function describeTool(tool: ToolSpec): string {
  return [`# @${tool.slug}`, "", `**Tool** \`${tool.name}\` (${toolOrigin(tool)})`, "", ...toolDetails(tool)].join("\n");
}

/** A tool's hover: the skill hover's one-line heading, then the details. */
function toolHover(tool: ToolSpec): string {
  return [`${hoverHeading(tool.title, "tool", `@${tool.slug}`)} · \`${tool.name}\` (${toolOrigin(tool)})`, "", ...toolDetails(tool)].join("\n");
}

function describeSkill(namespace: Namespace, skill: SkillFile): string {
  const mentioners = namespace.mentioners(skill.slug).filter((uri) => uri !== skill.uri).length;
  return [
    hoverHeading(skill.title, skill.format === SKILL_FILE_FORMAT ? "skill" : skill.format.label, `${skill.format.sigils.length > 1 ? "/" : "@"}${skill.slug}`),
    "",
    skill.summary ?? "_No summary._",
    "",
    `${skill.enabled ? "Enabled" : "**Disabled** (inert: binds nothing)"} · ${skill.advertised ? "advertised on the planner's menu" : "not advertised"}`,
    "",
    skill.enabled ? bindsLine(namespace, skill.slug) : "",
    "",
    `Mentioned by ${mentioners} ${mentioners === 1 ? "file" : "files"}`,
  ].join("\n");
}

/** A SKILL.md frontmatter key (or its value) under the cursor, documented with where it comes from. */
function frontmatterHover(skill: SkillFile, position: Position): Hover | null {
  const range = skill.frontmatterRange;
  if (!range || skill.format === SKILL_FILE_FORMAT || position.line <= range.start.line || position.line >= range.end.line - 1) return null;
  const lineStart = skill.lines.offsetAt({ line: position.line, character: 0 });
  const line = skill.text.slice(lineStart, skill.lines.offsetAt({ line: position.line + 1, character: 0 })).replace(/\r?\n$/, "");
  const match = /^(\s*)([A-Za-z_-]+):\s*(.*?)\s*$/.exec(line);
  if (!match?.[2]) return null;
  const indent = match[1]?.length ?? 0;
  const options = { readers: agentsReadingSkill(skill.uri), place: indent > 0 ? ("metadata" as const) : ("top" as const) };
  const onKey = position.character >= indent && position.character <= indent + match[2].length;
  const doc = onKey ? hoverAgentSkillKey(match[2], options) : hoverAgentSkillValue(match[2], match[3] ?? "", options);
  if (!doc) return null;
  const start = onKey ? indent : line.indexOf(match[3] ?? "", indent + match[2].length + 1);
  const end = onKey ? indent + match[2].length : start + (match[3] ?? "").length;
  return { contents: { kind: MarkupKind.Markdown, value: doc.markdown }, range: { start: { line: position.line, character: start }, end: { line: position.line, character: end } } };
}

export function hover(namespace: Namespace, file: WorkspaceFile, position: Position): Hover | null {
  const mention = mentionAt(file, position);
  if (!mention) return file.kind === "skill" ? frontmatterHover(file.file, position) : null;
  const target = namespace.resolve(mention.slug);
  const command = !target && sigilOf(mention) === "/" ? hoverBuiltinCommand(mention.slug) : undefined;
  if (command) return { contents: { kind: MarkupKind.Markdown, value: command.markdown }, range: mention.range };
  const value = !target
    ? `\`${sigilOf(mention)}${mention.slug}\` — unknown: no skill or tool has this handle.`
    : target.kind === "tool"
      ? toolHover(target.tool)
      : describeSkill(namespace, target.skill);
  return { contents: { kind: MarkupKind.Markdown, value }, range: mention.range };
}

/** The skill as the file's symbol, with its mentions as children. */
export function documentSymbols(namespace: Namespace, file: WorkspaceFile): DocumentSymbol[] {
  const children: DocumentSymbol[] = file.file.mentions.map((mention) => {
    const target = namespace.resolve(mention.slug);
    return {
      name: `${sigilOf(mention) || "link to "}${mention.slug}`,
      detail: !target ? "unknown" : target.kind,
      kind: target?.kind === "tool" ? SymbolKind.Function : SymbolKind.Module,
      range: mention.range,
      selectionRange: mention.range,
    };
  });
  if (file.kind !== "skill") return children;
  const skill = file.file;
  const whole = skill.lines.rangeOf(0, skill.lines.length);
  return [{ name: `@${skill.slug}`, detail: skill.title, kind: SymbolKind.Module, range: whole, selectionRange: skill.frontmatterRange ?? FILE_START, children }];
}

/** Skills and tools whose slug or title holds the query's letters in order. */
export function workspaceSymbols(namespace: Namespace, query: string, isCancelled: () => boolean = () => false): SymbolInformation[] {
  const wanted = query.toLowerCase().replace(/^@/, "");
  const matches = (text: string) => {
    let index = 0;
    for (let i = 0; i < text.length && index < wanted.length; i++) if (text[i] === wanted[index]) index++;
    return index === wanted.length;
  };
  const symbols: SymbolInformation[] = [];
  for (const skill of namespace.skills()) {
    if (symbols.length % 512 === 0 && isCancelled()) return [];
    if (matches(skill.slug) || matches(skill.title.toLowerCase())) {
      symbols.push({ name: `@${skill.handle}`, kind: SymbolKind.Module, containerName: skill.title, location: { uri: skill.uri, range: FILE_START } });
    }
  }
  for (const tool of namespace.tools()) {
    if (matches(tool.slug) || matches(tool.name.toLowerCase())) {
      const location = tool.origin.kind === "config" ? { uri: tool.origin.uri, range: tool.origin.range } : { uri: toolDescriptionUri(tool), range: FILE_START };
      symbols.push({ name: `@${tool.slug}`, kind: SymbolKind.Function, containerName: tool.name, location });
    }
  }
  return symbols;
}

/**
 * "N references · binds check_notebook, …" on the first line of a skill file, and on its summary the price of
 * its planner-menu entry: exact with the loaded model's tokenizer (`countTokens`), else `~` characters / 4.
 */
export function codeLenses(namespace: Namespace, file: WorkspaceFile, countTokens?: (text: string) => number): CodeLens[] {
  if (file.kind !== "skill" || !file.file.validHandle) return [];
  const skill = file.file;
  const references = namespace.mentioners(skill.slug).reduce((count, uri) => count + (uri === skill.uri ? 0 : namespace.referencesTo(skill, fileOf(namespace, uri)?.file.mentions ?? []).length), 0);
  const tools = skill.enabled ? namespace.expand([skill.slug]).tools.map((tool) => tool.name) : [];
  const title = `${references} ${references === 1 ? "reference" : "references"} · ${skill.enabled ? (tools.length > 0 ? `binds ${tools.join(", ")}` : "binds no tool") : "disabled"}`;
  return [{ range: FILE_START, command: { title, command: ClientCommands.showReferences, arguments: [skill.uri, FILE_START.start] } }, menuLens(namespace, skill, countTokens)];
}

/** The price of a skill's menu entry and its share of the planner's prompt, or why it is not on the menu. */
function menuLens(namespace: Namespace, skill: SkillFile, countTokens?: (text: string) => number): CodeLens {
  const { prices } = cachedMenuPrices(namespace, countTokens);
  const price = prices.get(`skill:${skill.slug}`);
  const reason = price ? undefined : offMenuReason(namespace, skill, prices);
  const title = price
    ? `menu entry: ${price.label} · ${Math.max(1, Math.round(price.share * 100))}% of the planner's prompt`
    : `not on the planner's menu: ${reason ?? "not selected"}`;
  return { range: skill.summaryRange ?? FILE_START, command: { title, command: ClientCommands.showAlignment } };
}
