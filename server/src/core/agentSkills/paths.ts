/**
 * Where files of an Agent Skills workspace stand, read from their URIs alone (the core sees no disk): a
 * skill is `skills/<name>/SKILL.md`, the agents' instruction files and their folders hold prose that
 * references skills, and the user's command files are commands, not skills.
 */

/** The file name that makes a folder an Agent Skill. */
export const AGENT_SKILL_FILE = "SKILL.md";

/** Files at any depth whose prose references skills as `/name`, `$name` and `@name`. */
const INSTRUCTION_FILES = new Set(["CLAUDE.md", "AGENTS.md"]);

/** Folders whose Markdown references skills the same way. */
const AGENT_FOLDERS = new Set([".claude", ".agents", ".codex", "skills"]);

function pathOf(uri: string): string {
  return uri.includes("?") || uri.includes("#") ? uri.replace(/[?#].*$/, "") : uri;
}

function decoded(segment: string): string {
  // Most names have no escape: every file of a workspace is classified more than once.
  if (!segment.includes("%")) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The decoded path segments of a URI (the scheme and authority dropped). */
export function segmentsOf(uri: string): string[] {
  const path = pathOf(uri).replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "");
  return path.split("/").filter((segment) => segment !== "").map(decoded);
}

/**
 * The last `count` decoded path segments of a URI (fewer when it has fewer): {@link segmentsOf}'s end, without
 * splitting and decoding the folders above them.
 */
function lastSegments(uri: string, count: number): string[] {
  const path = pathOf(uri);
  const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(path)?.[0].length ?? 0;
  const last: string[] = [];
  let end = path.length;
  while (last.length < count && end > authority) {
    const slash = path.lastIndexOf("/", end - 1);
    const start = Math.max(slash + 1, authority);
    if (start < end) last.unshift(decoded(path.slice(start, end)));
    end = slash < authority ? authority : slash;
  }
  return last;
}

/**
 * The decoded file name of a URI, or undefined when its path ends with `/`. Every file of a workspace is
 * classified by name first: decoding its folders' names too cost a tenth of reading 10,000 skills.
 */
function fileNameOf(uri: string): string | undefined {
  const path = pathOf(uri);
  return path.endsWith("/") ? undefined : decoded(path.slice(path.lastIndexOf("/") + 1));
}

/** The last URI {@link isAgentSkillUri} was asked about, and its answer: a file being read is asked about four times in a row. */
let lastUri = "";
let lastAnswer = false;

/** True for `…/skills/<name>/SKILL.md`: an Agent Skill whose handle is `<name>`. */
export function isAgentSkillUri(uri: string): boolean {
  if (uri === lastUri) return lastAnswer;
  const name = fileNameOf(uri);
  let answer = false;
  if (name === undefined || name === AGENT_SKILL_FILE) {
    const segments = lastSegments(uri, 3);
    answer = segments.length === 3 && segments[2] === AGENT_SKILL_FILE && segments[0] === "skills";
  }
  lastUri = uri;
  lastAnswer = answer;
  return answer;
}

/** The handle of an Agent Skill: its folder's name. */
export function agentSkillHandle(uri: string): string {
  const segments = lastSegments(uri, 2);
  return segments.length === 2 ? (segments[0] ?? "") : "";
}

/** The URI of the folder that holds a SKILL.md. */
export function skillFolderUri(uri: string): string {
  const path = pathOf(uri);
  return path.slice(0, path.lastIndexOf("/"));
}

/** The URI of a sibling skill folder's SKILL.md, for a handle. */
export function siblingAgentSkillUri(uri: string, handle: string): string {
  const folder = skillFolderUri(uri);
  return `${folder.slice(0, folder.lastIndexOf("/") + 1)}${encodeURIComponent(handle)}/${AGENT_SKILL_FILE}`;
}

/**
 * What a Markdown file that is not an Agent Skill is to the server: a file whose prose references skills
 * (CLAUDE.md, AGENTS.md, Markdown under `.claude/`, `.agents/`, `.codex/`, `skills/`), or a near miss of a
 * skill that is not read (`skill.md` in lower case, a SKILL.md outside a `skills/` folder). Undefined for
 * every other file.
 */
export type AgentDocumentRole = "prose" | "misplaced-skill" | "lower-case-skill";

/** The last URI {@link agentDocumentRole} was asked about, and its answer: a file being read is asked about several times in a row. */
let lastRoleUri = "";
let lastRole: AgentDocumentRole | undefined;

export function agentDocumentRole(uri: string): AgentDocumentRole | undefined {
  if (uri === lastRoleUri) return lastRole;
  const role = roleOf(uri);
  lastRoleUri = uri;
  lastRole = role;
  return role;
}

function roleOf(uri: string): AgentDocumentRole | undefined {
  const fileName = fileNameOf(uri)?.toLowerCase();
  if (fileName !== undefined && (!fileName.endsWith(".md") || fileName.endsWith(".skill.md"))) return undefined;
  const name = lastSegments(uri, 1)[0] ?? "";
  const lower = name.toLowerCase();
  if (!lower.endsWith(".md") || lower.endsWith(".skill.md")) return undefined;
  if (name === AGENT_SKILL_FILE) return isAgentSkillUri(uri) ? undefined : "misplaced-skill";
  if (lower === "skill.md") return "lower-case-skill";
  if (INSTRUCTION_FILES.has(name)) return "prose";
  return inAgentFolder(uri) ? "prose" : undefined;
}

/** The lengths of {@link AGENT_FOLDERS}' names: a folder of another length is passed over unless it holds an escape. */
const AGENT_FOLDER_LENGTHS = new Set([...AGENT_FOLDERS].map((folder) => folder.length));

/**
 * True when a folder above the URI's last segment is one of {@link AGENT_FOLDERS}: {@link segmentsOf} without an
 * array, and only the few folders that could match cut out and decoded (a real library's deep paths, split and
 * decoded for each of its 32,000 files, cost a tenth of a second).
 */
function inAgentFolder(uri: string): boolean {
  const path = pathOf(uri);
  const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(path)?.[0].length ?? 0;
  let end = path.length;
  while (end > authority && path.charCodeAt(end - 1) === SLASH) end--;
  const lastSlash = path.lastIndexOf("/", end - 1);
  for (let start = authority; start < lastSlash; ) {
    const slash = path.indexOf("/", start);
    const length = slash - start;
    if (length > 0 && (AGENT_FOLDER_LENGTHS.has(length) || path.lastIndexOf("%", slash) >= start) && AGENT_FOLDERS.has(decoded(path.slice(start, slash)))) return true;
    start = slash + 1;
  }
  return false;
}

const SLASH = 47;

/**
 * The command a user's command file defines (`.claude/commands/deploy.md` is `/deploy`, and so is
 * `.codex/prompts/deploy.md`), or undefined for any other file.
 */
export function commandNameOf(uri: string): string | undefined {
  // Nearly every file is in no such folder: answered without splitting its path (an escape could spell one).
  if (!uri.includes("/commands/") && !uri.includes("/prompts/") && !uri.includes("%")) return undefined;
  const segments = segmentsOf(uri);
  const name = segments[segments.length - 1] ?? "";
  if (!name.toLowerCase().endsWith(".md")) return undefined;
  for (let i = segments.length - 2; i >= 1; i--) {
    const folder = segments[i];
    const parent = segments[i - 1];
    if ((parent === ".claude" && folder === "commands") || (parent === ".codex" && folder === "prompts")) return name.slice(0, -3).toLowerCase();
  }
  return undefined;
}

/**
 * Resolves a relative link target against the URI of the file that holds it, as a browser would (`.` and `..`
 * segments folded). Answers undefined for a target with a scheme, an absolute path, or only a fragment.
 */
export function resolveLink(fromUri: string, target: string): string | undefined {
  if (target === "" || target.startsWith("#") || target.startsWith("/") || /^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const base = pathOf(fromUri);
  const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(base)?.[0] ?? "";
  const folder = base.slice(authority.length, base.lastIndexOf("/"));
  const parts = folder.split("/").filter((part) => part !== "");
  for (const part of target.replace(/[?#].*$/, "").split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `${authority}/${parts.join("/")}`;
}

/** The relative link from one file to another URI (both of one scheme and authority). */
export function relativeLink(fromUri: string, toUri: string): string {
  const from = segmentsOf(fromUri).slice(0, -1);
  const to = segmentsOf(toUri);
  let common = 0;
  while (common < from.length && common < to.length && from[common] === to[common]) common++;
  const up = from.slice(common).map(() => "..");
  const rest = to.slice(common).map(encodeURIComponent);
  const joined = [...up, ...rest].join("/");
  return up.length === 0 ? `./${joined}` : joined;
}
