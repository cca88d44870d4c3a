import { findNodeAtLocation, getNodeValue, parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser";
import { DiagnosticCodes, type CoreDiagnostic } from "./diagnostics.js";
import { scanMentions, type MentionToken } from "./mentions.js";
import { MAX_SKILL_CHARS } from "./skillFile.js";
import { isValidHandle } from "./slug.js";
import { LineMap, type Range } from "./text.js";
import { PROMPT_BLURB_IDS, type ArgumentSchema, type ToolSpec } from "./tools.js";
import { groupedDigits } from "../../../shared/words.js";

/** The workspace configuration file at a workspace folder's root. */
export const CONFIG_FILE_NAME = "skills.json";

/** A mention inside `skills.json`: in the alignment menu (a selection) or in free text. */
export interface ConfigMention extends MentionToken {
  readonly place: "menu" | "text";
  readonly range: Range;
}

/** The planner's choices, stored in `skills.json` under `alignment`. */
export interface Alignment {
  /** The user's base instructions; undefined means the default. */
  readonly instructions: string | undefined;
  /** The prompt blurbs switched on (ids of PROMPT_BLURBS). */
  readonly blurbs: readonly string[];
  /** The selected menu skills' slugs; undefined means every advertised, enabled skill. */
  readonly menu: readonly string[] | undefined;
}

/** A tool declared in `skills.json`, with an optional implementation module inside the workspace folder. */
export interface DeclaredTool extends ToolSpec {
  readonly implementation: string | undefined;
}

export interface ConfigFile {
  readonly uri: string;
  readonly text: string;
  readonly lines: LineMap;
  readonly tools: readonly DeclaredTool[];
  readonly alignment: Alignment;
  readonly mentions: readonly ConfigMention[];
  readonly problems: readonly CoreDiagnostic[];
}

export function isConfigUri(uri: string): boolean {
  return uri.replace(/[?#].*$/, "").endsWith(`/${CONFIG_FILE_NAME}`);
}

const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Parses `skills.json`. Never throws: problems become diagnostics with the range of the offending value. */
export function parseConfigFile(uri: string, text: string): ConfigFile {
  let problem: Pick<CoreDiagnostic, "code" | "message">;
  if (text.length > MAX_SKILL_CHARS) {
    // The same limit as a skill's: a 10 MB skills.json took seconds per keystroke to parse and scan.
    problem = { code: DiagnosticCodes.fileTooLarge, message: `skills.json has ${groupedDigits(text.length)} characters; it is read up to ${groupedDigits(MAX_SKILL_CHARS)}. Its tools, alignment and mentions are ignored until it is shorter.` };
  } else {
    try {
      return readConfigFile(uri, text);
    } catch (error) {
      // The JSON parser recurses once per level of nesting: tens of thousands of `[` overflow the stack.
      problem = { code: DiagnosticCodes.configSyntax, message: `skills.json cannot be read${error instanceof RangeError ? ": it is nested too deeply" : ""}.` };
    }
  }
  const lines = new LineMap(text);
  const problems: CoreDiagnostic[] = [{ range: lines.rangeOf(0, 0), severity: "error", ...problem }];
  return { uri, text, lines, tools: [], alignment: { instructions: undefined, blurbs: [], menu: undefined }, mentions: [], problems };
}

function readConfigFile(uri: string, text: string): ConfigFile {
  const lines = new LineMap(text);
  const problems: CoreDiagnostic[] = [];
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const rangeOf = (node: Node) => lines.rangeOf(node.offset, node.offset + node.length);
  const invalid = (node: Node, message: string, severity: CoreDiagnostic["severity"] = "error") =>
    problems.push({ range: rangeOf(node), severity, code: DiagnosticCodes.configInvalid, message });

  for (const error of errors) {
    problems.push({
      range: lines.rangeOf(error.offset, error.offset + error.length),
      severity: "error",
      code: DiagnosticCodes.configSyntax,
      message: `skills.json is not valid JSON: ${printParseErrorCode(error.error)}.`,
    });
  }
  const empty: ConfigFile = { uri, text, lines, tools: [], alignment: { instructions: undefined, blurbs: [], menu: undefined }, mentions: [], problems };
  if (!root) return empty;
  if (root.type !== "object") {
    invalid(root, "skills.json must hold one object with `tools` and `alignment`.");
    return empty;
  }

  const mentions: ConfigMention[] = [];
  const collectMentions = (node: Node, place: ConfigMention["place"]) => {
    if (node.type === "string") {
      for (const token of stringMentions(text, node)) {
        mentions.push({ ...token, place, range: lines.rangeOf(token.start, token.end) });
      }
    }
    // Keys are names, not references: only walk values.
    if (node.type === "property") {
      const value = node.children?.[1];
      if (value) collectMentions(value, place);
    } else {
      for (const child of node.children ?? []) collectMentions(child, place);
    }
  };

  const tools: DeclaredTool[] = [];
  const toolsNode = findNodeAtLocation(root, ["tools"]);
  if (toolsNode && toolsNode.type !== "array") invalid(toolsNode, "`tools` must be a list of tool declarations.");
  for (const toolNode of toolsNode?.type === "array" ? toolsNode.children ?? [] : []) {
    const tool = parseTool(toolNode, uri, rangeOf, invalid);
    if (tool) tools.push(tool);
    collectMentions(toolNode, "text");
  }

  let instructions: string | undefined;
  let blurbs: string[] = [];
  let menu: string[] | undefined;
  const alignmentNode = findNodeAtLocation(root, ["alignment"]);
  if (alignmentNode && alignmentNode.type !== "object") invalid(alignmentNode, "`alignment` must be an object with `instructions`, `blurbs` and `menu`.");
  if (alignmentNode?.type === "object") {
    for (const property of alignmentNode.children ?? []) {
      const [keyNode, valueNode] = property.children ?? [];
      if (!keyNode || !valueNode) continue;
      const key = String(keyNode.value);
      if (key === "instructions") {
        if (valueNode.type === "string") instructions = String(valueNode.value);
        else invalid(valueNode, "`alignment.instructions` must be a string (the planner's base instructions).");
        collectMentions(valueNode, "text");
      } else if (key === "blurbs") {
        if (valueNode.type !== "array") {
          invalid(valueNode, `\`alignment.blurbs\` must be a list of: ${PROMPT_BLURB_IDS.join(", ")}.`);
          continue;
        }
        blurbs = [];
        for (const item of valueNode.children ?? []) {
          const id = item.type === "string" ? String(item.value) : undefined;
          if (id !== undefined && PROMPT_BLURB_IDS.includes(id)) blurbs.push(id);
          else
            problems.push({
              range: rangeOf(item),
              severity: "error",
              code: DiagnosticCodes.configUnknownBlurb,
              message: `Unknown tool blurb ${JSON.stringify(getNodeValue(item))}: choose from ${PROMPT_BLURB_IDS.join(", ")}.`,
            });
        }
      } else if (key === "menu") {
        if (valueNode.type !== "array") {
          invalid(valueNode, "`alignment.menu` must be a list of skill handles like \"@search-info\".");
          continue;
        }
        menu = [];
        for (const item of valueNode.children ?? []) {
          const before = mentions.length;
          collectMentions(item, "menu");
          const added = mentions.slice(before);
          const whole = added.length === 1 && added[0] && added[0].start === item.offset + 1 && added[0].end === item.offset + item.length - 1;
          if (item.type !== "string" || !whole || !added[0]) {
            invalid(item, "Each menu entry is one skill handle with its @, like \"@search-info\".");
            continue;
          }
          menu.push(added[0].slug);
        }
      } else {
        problems.push({ range: rangeOf(keyNode), severity: "warning", code: DiagnosticCodes.configInvalid, message: `Unknown key "${key}" in alignment: use instructions, blurbs or menu.` });
      }
    }
  }
  for (const property of root.children ?? []) {
    const keyNode = property.children?.[0];
    const key = keyNode ? String(keyNode.value) : "";
    if (keyNode && key !== "tools" && key !== "alignment" && key !== "$schema") {
      problems.push({ range: rangeOf(keyNode), severity: "warning", code: DiagnosticCodes.configInvalid, message: `Unknown key "${key}" in skills.json: use tools or alignment.` });
    }
  }
  return { uri, text, lines, tools, alignment: { instructions, blurbs, menu }, mentions, problems };
}

const JSON_ESCAPES: Readonly<Record<string, string>> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/**
 * The mentions in a JSON string, found in its value (so the `@x` in `"line\n@x"` follows a line break, not the
 * letter n) and placed on its source text, so a rename rewrites exactly the characters that spell them.
 */
function stringMentions(text: string, node: Node): MentionToken[] {
  const rawEnd = node.offset + node.length - 1;
  let value = "";
  const sourceAt: number[] = [];
  for (let i = node.offset + 1; i < rawEnd; ) {
    const unit = i;
    let decoded = text.charAt(i);
    i++;
    if (decoded === "\\" && i < rawEnd) {
      const escape = text.charAt(i);
      const hex = escape === "u" ? text.slice(i + 1, i + 5) : "";
      if (/^[0-9a-fA-F]{4}$/.test(hex)) {
        decoded = String.fromCharCode(parseInt(hex, 16));
        i += 5;
      } else {
        decoded = JSON_ESCAPES[escape] ?? escape;
        i++;
      }
    }
    for (let k = 0; k < decoded.length; k++) sourceAt.push(unit);
    value += decoded;
  }
  sourceAt.push(Math.max(node.offset + 1, rawEnd));
  return scanMentions(value).mentions.map((token) => ({ ...token, start: sourceAt[token.start] ?? token.start, end: sourceAt[token.end] ?? token.end }));
}

function parseTool(
  node: Node,
  uri: string,
  rangeOf: (node: Node) => Range,
  invalid: (node: Node, message: string) => void,
): DeclaredTool | undefined {
  if (node.type !== "object") {
    invalid(node, "A tool declaration is an object with slug, name and blurb.");
    return undefined;
  }
  const field = (key: string) => findNodeAtLocation(node, [key]);
  const stringField = (key: string, required: boolean): string | undefined => {
    const value = field(key);
    if (!value) {
      if (required) invalid(node, `This tool declaration needs "${key}".`);
      return undefined;
    }
    if (value.type !== "string") {
      invalid(value, `"${key}" must be a string.`);
      return undefined;
    }
    return String(value.value);
  };
  const slug = stringField("slug", true);
  const name = stringField("name", true);
  const blurb = stringField("blurb", true);
  const title = stringField("title", false);
  const implementation = stringField("implementation", false);
  const slugNode = field("slug");
  if (slug !== undefined && slugNode && !isValidHandle(slug)) {
    invalid(slugNode, `"${slug}" is not a valid slug: lower-case letters and digits joined by single hyphens.`);
    return undefined;
  }
  const nameNode = field("name");
  if (name !== undefined && nameNode && !TOOL_NAME.test(name)) {
    invalid(nameNode, `"${name}" is not a valid tool name: letters, digits and underscores, starting with a letter.`);
    return undefined;
  }
  const advertiseNode = field("advertiseInMenu");
  if (advertiseNode && advertiseNode.type !== "boolean") invalid(advertiseNode, '"advertiseInMenu" must be true or false.');
  const parametersNode = field("parameters");
  let parameters: ArgumentSchema = { type: "object", properties: {} };
  if (parametersNode) {
    const value: unknown = getNodeValue(parametersNode);
    if (typeof value === "object" && value !== null && (value as { type?: unknown }).type === "object") {
      const schema = value as Partial<ArgumentSchema>;
      parameters = { ...schema, type: "object", properties: schema.properties ?? {} };
    } else {
      invalid(parametersNode, '"parameters" must be a JSON schema of type "object".');
    }
  }
  if (slug === undefined || name === undefined || blurb === undefined || !slugNode) return undefined;
  return {
    slug,
    name,
    title: title ?? slug,
    blurb,
    parameters,
    advertiseInMenu: advertiseNode?.type === "boolean" ? Boolean(advertiseNode.value) : false,
    origin: { kind: "config", uri, range: rangeOf(slugNode) },
    implementation,
  };
}
