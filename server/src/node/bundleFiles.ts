import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import {
  AGENT_SKILL_FILE,
  bundleFile,
  bundleFromAgentSkills,
  folderPathProblem,
  MAX_SKILL_FILE_BYTES,
  type BundleFile,
  type LeftOut,
  bundleText,
  fromAgentSkill,
  MAX_BUNDLE_BYTES,
  parseBundle,
  type AgentSkillFolder,
  type Bundle,
  type ImportPlan,
  type IncomingSkill,
} from "../core/bundle.js";
import { isRefusal, MAX_SKILL_CHARS, SKILL_SUFFIX, type Refusal } from "../core/index.js";
import { pathFromUri } from "./workspaceFiles.js";

/** A file to put on disk: a text, or bytes with a mode. */
export interface FileToWrite {
  readonly path: string;
  readonly text: string;
  readonly bytes?: Uint8Array;
  readonly mode?: number;
}

/** A write that failed and was undone: nothing it was asked to write is left on disk. */
export class WriteRolledBack extends Error {}

/** Decodes bytes as UTF-8, refusing what is not (a bundle is text; a stray binary must not become U+FFFD prose). */
function decodeUtf8(bytes: Uint8Array, what: string): string | Refusal {
  try {
    // The BOM is kept: a round trip gives back the bytes it was given.
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
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

/** A skill folder's other files, and what stays behind with the reason. */
export interface FolderFiles {
  readonly files: BundleFile[];
  readonly leftOut: LeftOut[];
}

/**
 * Reads every file of a skill's folder but `skip` (the skill's own file), byte for byte, with its executable
 * bit. The one symbolic link policy: a link is never followed and never carried, whatever it points at; it is
 * left out by name. So is anything that is not a regular file, a file past the size limit, and a skill file.
 */
export async function readFolderFiles(folder: string, skip: string): Promise<FolderFiles> {
  const result: FolderFiles = { files: [], leftOut: [] };
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const entries = (await fs.readdir(dir, { withFileTypes: true })).sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    for (const entry of entries) {
      const relative = `${prefix}${entry.name}`;
      const full = path.join(dir, entry.name);
      if (prefix === "" && entry.name === skip) continue;
      if (entry.isSymbolicLink()) result.leftOut.push({ path: relative, reason: "a symbolic link: links are never followed" });
      else if (entry.isDirectory()) await walk(full, `${relative}/`);
      else if (!entry.isFile()) result.leftOut.push({ path: relative, reason: "not a regular file" });
      else {
        const problem = folderPathProblem(relative);
        const stat = await fs.lstat(full);
        if (problem) result.leftOut.push({ path: relative, reason: problem });
        else if (stat.size > MAX_SKILL_FILE_BYTES) result.leftOut.push({ path: relative, reason: `${(stat.size / (1024 * 1024)).toFixed(1)} MB, past the ${MAX_SKILL_FILE_BYTES / (1024 * 1024)} MB a file may have` });
        else result.files.push(bundleFile(relative, await fs.readFile(full), (stat.mode & 0o111) !== 0));
      }
    }
  };
  await walk(folder, "");
  return result;
}

/** The folder a skill owns: a SKILL.md's folder, or `<handle>/` around a `<handle>.skill.md`; none for a lone file. */
export function ownFolderOf(skillPath: string): string | undefined {
  const name = path.basename(skillPath);
  const dir = path.dirname(skillPath);
  if (name === AGENT_SKILL_FILE) return dir;
  return name.toLowerCase().endsWith(SKILL_SUFFIX) && path.basename(dir) === name.slice(0, -SKILL_SUFFIX.length) ? dir : undefined;
}

/** The files of a skill's own folder (none for a lone skill file). */
export async function filesOfSkill(skillUri: string): Promise<FolderFiles> {
  const skillPath = pathFromUri(skillUri);
  const folder = ownFolderOf(skillPath);
  return folder === undefined ? { files: [], leftOut: [] } : readFolderFiles(folder, path.basename(skillPath));
}

/** Agent Skills read from disk: the good ones, and one line per folder that cannot be read. */
export interface AgentSkillsRead {
  readonly skills: IncomingSkill[];
  readonly problems: string[];
}

/**
 * Reads Agent Skills from disk: `dir` is one skill folder (it holds `SKILL.md`) or a folder of them. Each
 * skill comes with every file of its folder (read, never run; see `readFolderFiles`). Every folder is read
 * and every bad one reported, so a batch shows all its problems at once. A `SKILL.md` that is a symbolic link
 * is a problem, so a shared folder cannot point the reader at a file elsewhere.
 */
export async function readAgentSkills(dir: string): Promise<AgentSkillsRead | Refusal> {
  const root = path.resolve(dir);
  const stat = await fs.stat(root).catch(() => undefined);
  if (!stat?.isDirectory()) return { refused: `${dir} is not a folder.` };
  let folders: string[];
  if (await holdsAgentSkill(root)) {
    folders = [root];
  } else {
    const entries = await fs.readdir(root, { withFileTypes: true });
    folders = [];
    for (const entry of entries.filter((candidate) => candidate.isDirectory()).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (await holdsAgentSkill(path.join(root, entry.name))) folders.push(path.join(root, entry.name));
    }
  }
  const skills: IncomingSkill[] = [];
  const problems: string[] = [];
  for (const folder of folders) {
    const file = path.join(folder, AGENT_SKILL_FILE);
    const link = await fs.lstat(file);
    if (!link.isFile()) {
      problems.push(`${file} is ${link.isSymbolicLink() ? "a symbolic link" : "not a regular file"}: copy the file itself into the folder.`);
      continue;
    }
    const text = await readLimited(file, MAX_SKILL_CHARS * 4, file);
    if (isRefusal(text)) {
      problems.push(text.refused);
      continue;
    }
    const skill = fromAgentSkill(path.basename(folder), text);
    if (isRefusal(skill)) {
      problems.push(skill.refused);
      continue;
    }
    const { files, leftOut } = await readFolderFiles(folder, AGENT_SKILL_FILE);
    skills.push({ ...skill, files, leftOut });
  }
  return { skills, problems };
}

/** What an import reads: a bundle to plan, the skills left behind (with `skipInvalid`), and each skill's left-out files. */
export interface ImportSource {
  readonly bundle: Bundle;
  readonly dropped: readonly string[];
  readonly skipped: readonly string[];
  readonly leftOut: ReadonlyMap<string, readonly LeftOut[]>;
}

/**
 * Reads a bundle file or Agent Skills folder(s) into a bundle to import. Bad folders refuse the whole batch,
 * every one of them named (one per line), unless `skipInvalid`: then the good ones come and the bad are listed.
 */
export async function readImportSource(source: string, skipInvalid = false): Promise<ImportSource | Refusal> {
  const stat = await fs.stat(source).catch(() => undefined);
  if (!stat) return { refused: `${source} does not exist.` };
  const agentFolder = stat.isDirectory() ? source : path.basename(source) === AGENT_SKILL_FILE ? path.dirname(source) : undefined;
  if (agentFolder === undefined) {
    const bundle = await readBundleFile(source);
    return isRefusal(bundle) ? bundle : { bundle, dropped: [], skipped: [], leftOut: new Map() };
  }
  const read = await readAgentSkills(agentFolder);
  if (isRefusal(read)) return read;
  if (read.problems.length > 0 && !skipInvalid) {
    const count = read.problems.length;
    return { refused: `${count} folder${count === 1 ? "" : "s"} cannot be imported (nothing was read; --skip-invalid imports the others):\n${read.problems.map((line) => `  ${line}`).join("\n")}` };
  }
  const bundle = bundleFromAgentSkills(read.skills);
  if (isRefusal(bundle)) return read.problems.length > 0 ? { refused: `${bundle.refused} Skipped: ${read.problems.join(" ")}` } : bundle;
  return {
    bundle,
    dropped: read.skills.flatMap((skill) => skill.dropped.map((key) => `@${skill.handle}: ${key}`)),
    skipped: read.problems,
    leftOut: new Map(read.skills.map((skill) => [skill.handle, skill.leftOut ?? []])),
  };
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
      await fs.writeFile(temp, file.bytes ?? file.text, { flag: "wx", mode: file.mode ?? 0o644 });
      // The process's umask must not take an executable bit away, nor add one.
      if (file.mode !== undefined) await fs.chmod(temp, file.mode);
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

/** True when `filePath` holds exactly these bytes. */
async function holdsBytes(filePath: string, bytes: Uint8Array): Promise<boolean> {
  const current = await fs.readFile(filePath).catch(() => undefined);
  return current !== undefined && Buffer.compare(current, bytes) === 0;
}

/** True when `target` lies inside `folder` once links are resolved (as far as the path exists). */
async function staysInside(folder: string, target: string): Promise<boolean> {
  const realFolder = await fs.realpath(folder).catch(() => path.resolve(folder));
  let existing = path.dirname(target);
  while (!(await exists(existing)) && path.dirname(existing) !== existing) existing = path.dirname(existing);
  const real = await fs.realpath(existing).catch(() => existing);
  const rest = path.relative(existing, path.dirname(target));
  const inside = path.relative(realFolder, path.join(real, rest));
  return inside === "" || (!inside.startsWith("..") && !path.isAbsolute(inside));
}

/** The plan's files that an apply would write: a folder file already there with the same bytes is not one. */
export async function filesToCreate(plan: ImportPlan): Promise<ImportPlan["files"]> {
  const pending: ImportPlan["files"][number][] = [];
  for (const planned of plan.files) {
    if (planned.bytes && (await holdsBytes(pathFromUri(planned.uri), Buffer.from(planned.bytes.base64, "base64")))) continue;
    pending.push(planned);
  }
  return pending;
}

/**
 * Applies an accepted import plan: creates its files, all or nothing, with the bytes and modes of a skill's
 * folder files. Every file must lie inside the plan's folder, links resolved, whatever the plan says, so a
 * forged plan or a linked folder cannot write elsewhere. A folder file already there with the same bytes is
 * left alone (a second import); one with other bytes refuses the whole plan. Answers the paths written.
 */
export async function applyImportPlan(plan: ImportPlan): Promise<string[]> {
  const folder = path.resolve(pathFromUri(plan.folder));
  const files: FileToWrite[] = [];
  for (const planned of plan.files) {
    const filePath = pathFromUri(planned.uri);
    const inside = path.relative(folder, filePath);
    if (inside === "" || inside.startsWith("..") || path.isAbsolute(inside) || !(await staysInside(folder, filePath))) {
      throw new WriteRolledBack(`Nothing was written: ${filePath} is not inside ${folder}.`);
    }
    if (!planned.bytes) {
      files.push({ path: filePath, text: planned.text });
      continue;
    }
    const bytes = Buffer.from(planned.bytes.base64, "base64");
    if (await holdsBytes(filePath, bytes)) continue;
    files.push({ path: filePath, text: "", bytes, mode: planned.bytes.mode === "755" ? 0o755 : 0o644 });
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
 * Writes Agent Skills folders under `dir`, all or nothing: `<dir>/<name>/SKILL.md` each, with every file of the
 * skill's own folder (bytes and executable bit kept; links never followed: see `readFolderFiles`). A file
 * already there with the same bytes is left alone; one with other bytes is refused rather than overwritten (it
 * may hold someone's edits), and so is a plain file where a folder must go. Answers the paths written and what
 * was left out, by skill.
 */
export async function writeAgentSkills(dir: string, folders: readonly AgentSkillFolder[]): Promise<{ readonly written: string[]; readonly leftOut: ReadonlyMap<string, readonly LeftOut[]>; readonly fileCount: number } | Refusal> {
  const files: FileToWrite[] = [];
  const leftOut = new Map<string, readonly LeftOut[]>();
  let fileCount = 0;
  const root = path.resolve(dir);
  const rootStat = await fs.stat(root).catch(() => undefined);
  if (rootStat && !rootStat.isDirectory()) return { refused: `${dir} is a file, not a folder: export to a folder.` };
  for (const folder of folders) {
    const skillDir = path.join(root, folder.folder);
    if (path.dirname(skillDir) !== root) return { refused: `${folder.folder} would write outside ${dir}.` };
    const dirStat = await fs.lstat(skillDir).catch(() => undefined);
    if (dirStat && !dirStat.isDirectory()) return { refused: `${skillDir} is ${dirStat.isSymbolicLink() ? "a symbolic link" : "a file"}, not a folder: remove it or export to another folder.` };
    const carried = await filesOfSkill(folder.source);
    leftOut.set(folder.folder, carried.leftOut);
    const wanted: FileToWrite[] = [
      { path: path.join(skillDir, AGENT_SKILL_FILE), text: folder.text, bytes: Buffer.from(folder.text, "utf8") },
      ...carried.files.map((file) => ({ path: path.join(skillDir, ...file.path.split("/")), text: "", bytes: Buffer.from(file.base64, "base64"), mode: file.mode === "755" ? 0o755 : 0o644 })),
    ];
    fileCount += wanted.length;
    for (const file of wanted) {
      const bytes = file.bytes ?? Buffer.from(file.text, "utf8");
      if (await holdsBytes(file.path, bytes)) continue;
      if (await exists(file.path)) return { refused: `${file.path} exists and differs from this export: remove it or export to another folder.` };
      if (!(await staysInside(root, file.path))) return { refused: `${file.path} would be written through a symbolic link out of ${dir}.` };
      files.push(file);
    }
  }
  try {
    await createFilesAtomically(files);
  } catch (error) {
    if (error instanceof WriteRolledBack) return { refused: error.message };
    throw error;
  }
  return { written: files.map((file) => file.path), leftOut, fileCount };
}
