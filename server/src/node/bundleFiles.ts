import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import {
  AGENT_SKILL_FILE,
  bundleFromAgentSkills,
  bundleText,
  fromAgentSkill,
  MAX_BUNDLE_BYTES,
  parseBundle,
  type AgentSkillFolder,
  type Bundle,
  type ImportPlan,
  type IncomingSkill,
} from "../core/bundle.js";
import { isRefusal, MAX_SKILL_CHARS, type Refusal } from "../core/index.js";
import { pathFromUri } from "./workspaceFiles.js";

/** A file to put on disk. */
export interface FileToWrite {
  readonly path: string;
  readonly text: string;
}

/** A write that failed and was undone: nothing it was asked to write is left on disk. */
export class WriteRolledBack extends Error {}

/** Decodes bytes as UTF-8, refusing what is not (a bundle is text; a stray binary must not become U+FFFD prose). */
function decodeUtf8(bytes: Uint8Array, what: string): string | Refusal {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return { refused: `${what} is not UTF-8 text.` };
  }
}

/** Reads a file of at most `limit` bytes, refusing a larger one without reading it. */
async function readLimited(filePath: string, limit: number, what: string): Promise<string | Refusal> {
  let stat: import("node:fs").Stats;
  try {
    stat = await fs.stat(filePath);
  } catch {
    return { refused: `${filePath} cannot be read: there is no such file.` };
  }
  if (!stat.isFile()) return { refused: `${filePath} is not a file.` };
  if (stat.size > limit) return { refused: `${what} is ${(stat.size / (1024 * 1024)).toFixed(1)} MB; at most ${(limit / (1024 * 1024)).toFixed(1)} MB is read.` };
  try {
    return decodeUtf8(await fs.readFile(filePath), what);
  } catch (error) {
    return { refused: `${filePath} cannot be read: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Reads and checks a bundle file; an oversize file is refused before it is read. */
export async function readBundleFile(filePath: string): Promise<Bundle | Refusal> {
  const text = await readLimited(filePath, MAX_BUNDLE_BYTES, `The bundle ${filePath}`);
  return isRefusal(text) ? text : parseBundle(text);
}

/** True when `dir` holds a `SKILL.md`: it is one Agent Skill rather than a folder of them. */
async function holdsAgentSkill(dir: string): Promise<boolean> {
  const stat = await fs.lstat(path.join(dir, AGENT_SKILL_FILE)).catch(() => undefined);
  return stat !== undefined;
}

/**
 * Reads Agent Skills from disk: `dir` is one skill folder (it holds `SKILL.md`) or a folder of them. Only each
 * `SKILL.md` is read; scripts and other files are never read, let alone run. A `SKILL.md` that is a symbolic
 * link is refused, so a shared folder cannot point the reader at a file elsewhere.
 */
export async function readAgentSkills(dir: string): Promise<IncomingSkill[] | Refusal> {
  const root = path.resolve(dir);
  const stat = await fs.stat(root).catch(() => undefined);
  if (!stat?.isDirectory()) return { refused: `${dir} is not a folder.` };
  let folders: string[];
  if (await holdsAgentSkill(root)) {
    folders = [root];
  } else {
    const entries = await fs.readdir(root, { withFileTypes: true });
    folders = [];
    for (const entry of entries.filter((candidate) => candidate.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
      if (await holdsAgentSkill(path.join(root, entry.name))) folders.push(path.join(root, entry.name));
    }
  }
  const skills: IncomingSkill[] = [];
  for (const folder of folders) {
    const file = path.join(folder, AGENT_SKILL_FILE);
    const link = await fs.lstat(file);
    if (!link.isFile()) return { refused: `${file} is ${link.isSymbolicLink() ? "a symbolic link" : "not a regular file"}: copy the file itself into the folder.` };
    const text = await readLimited(file, MAX_SKILL_CHARS * 4, file);
    if (isRefusal(text)) return text;
    const skill = fromAgentSkill(path.basename(folder), text);
    if (isRefusal(skill)) return skill;
    skills.push(skill);
  }
  return skills;
}

/** Reads a bundle file or Agent Skills folder(s) into a bundle to import. */
export async function readImportSource(source: string): Promise<{ readonly bundle: Bundle; readonly dropped: readonly string[] } | Refusal> {
  const stat = await fs.stat(source).catch(() => undefined);
  if (!stat) return { refused: `${source} does not exist.` };
  const agentFolder = stat.isDirectory() ? source : path.basename(source) === AGENT_SKILL_FILE ? path.dirname(source) : undefined;
  if (agentFolder === undefined) {
    const bundle = await readBundleFile(source);
    return isRefusal(bundle) ? bundle : { bundle, dropped: [] };
  }
  const skills = await readAgentSkills(agentFolder);
  if (isRefusal(skills)) return skills;
  const bundle = bundleFromAgentSkills(skills);
  if (isRefusal(bundle)) return bundle;
  return { bundle, dropped: skills.flatMap((skill) => skill.dropped.map((key) => `@${skill.handle}: ${key}`)) };
}

function tempPathFor(filePath: string): string {
  return path.join(path.dirname(filePath), `.${path.basename(filePath)}.${randomBytes(6).toString("hex")}.tmp`);
}

async function exists(filePath: string): Promise<boolean> {
  return (await fs.lstat(filePath).catch(() => undefined)) !== undefined;
}

/** Moves a finished temp file into place without ever replacing a file that appeared there meanwhile. */
async function placeWithoutClobbering(temp: string, final: string): Promise<void> {
  try {
    // A hard link fails when the name exists, atomically, where a rename would silently replace it.
    await fs.link(temp, final);
    await fs.unlink(temp);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new Error(`${final} already exists.`);
    // A file system without hard links: check, then rename (a narrow window, but never a partial file).
    if (await exists(final)) throw new Error(`${final} already exists.`);
    await fs.rename(temp, final);
  }
}

/**
 * Creates files all or nothing: each is written to a temp file beside its target, then moved into place; an
 * existing file is never replaced. On any failure every temp file, every file already placed and every folder
 * made for them is removed, and a `WriteRolledBack` says why.
 */
export async function createFilesAtomically(files: readonly FileToWrite[]): Promise<void> {
  const temps: string[] = [];
  const placed: string[] = [];
  const madeFolders: string[] = [];
  try {
    for (const file of files) if (await exists(file.path)) throw new Error(`${file.path} already exists.`);
    for (const folder of new Set(files.map((file) => path.dirname(file.path)))) {
      const first = await fs.mkdir(folder, { recursive: true });
      if (first !== undefined) madeFolders.push(...foldersBetween(first, folder));
    }
    for (const file of files) {
      const temp = tempPathFor(file.path);
      temps.push(temp);
      await fs.writeFile(temp, file.text, { flag: "wx" });
    }
    for (const [index, file] of files.entries()) {
      await placeWithoutClobbering(temps[index] ?? "", file.path);
      placed.push(file.path);
    }
  } catch (error) {
    await Promise.all([...temps, ...placed].map((file) => fs.unlink(file).catch(() => undefined)));
    // Deepest first; a folder that holds anything else stays.
    for (const folder of madeFolders.sort((a, b) => b.length - a.length)) await fs.rmdir(folder).catch(() => undefined);
    throw new WriteRolledBack(`Nothing was written: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The folders from `first` down to `last` (both included), as `mkdir -p` made them. */
function foldersBetween(first: string, last: string): string[] {
  const folders: string[] = [];
  for (let folder = last; ; folder = path.dirname(folder)) {
    folders.push(folder);
    if (folder === first || path.dirname(folder) === folder) break;
  }
  return folders;
}

/**
 * Applies an accepted import plan: creates its files, all or nothing. Every file must lie directly inside the
 * plan's folder, whatever the plan says, so a forged plan cannot write elsewhere. Answers the paths written.
 */
export async function applyImportPlan(plan: ImportPlan): Promise<string[]> {
  const folder = pathFromUri(plan.folder);
  const files = plan.files.map((file) => ({ path: pathFromUri(file.uri), text: file.text }));
  for (const file of files) {
    if (path.dirname(file.path) !== path.resolve(folder)) throw new WriteRolledBack(`Nothing was written: ${file.path} is not directly inside ${folder}.`);
  }
  await createFilesAtomically(files);
  return files.map((file) => file.path);
}

/** Writes a text to a file through a temp file and a rename, so a reader never sees half of it. */
export async function writeFileAtomically(filePath: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(path.resolve(filePath)), { recursive: true });
  const temp = tempPathFor(path.resolve(filePath));
  try {
    await fs.writeFile(temp, text, { flag: "wx" });
    await fs.rename(temp, filePath);
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** Writes a bundle file (replacing an earlier export at that path). */
export async function writeBundleFile(filePath: string, bundle: Bundle): Promise<void> {
  await writeFileAtomically(filePath, bundleText(bundle));
}

/**
 * Writes Agent Skills folders under `dir`, all or nothing: `<dir>/<name>/SKILL.md` each. A `SKILL.md` already
 * there with the same text is left alone; one with another text is refused rather than overwritten (it may hold
 * someone's edits). Answers the paths written.
 */
export async function writeAgentSkills(dir: string, folders: readonly AgentSkillFolder[]): Promise<string[] | Refusal> {
  const files: FileToWrite[] = [];
  for (const folder of folders) {
    const file = path.join(path.resolve(dir), folder.folder, AGENT_SKILL_FILE);
    if (path.dirname(path.dirname(file)) !== path.resolve(dir)) return { refused: `${folder.folder} would write outside ${dir}.` };
    const current = await fs.readFile(file, "utf8").catch(() => undefined);
    if (current === folder.text) continue;
    if (current !== undefined) return { refused: `${file} exists and differs from this export: remove it or export to another folder.` };
    files.push({ path: file, text: folder.text });
  }
  await createFilesAtomically(files);
  return files.map((file) => file.path);
}
