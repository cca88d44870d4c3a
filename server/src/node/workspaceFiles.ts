import { constants, promises as fs, readdirSync, realpathSync, statSync } from "node:fs";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { URI } from "vscode-uri";
import { BackgroundReader } from "./backgroundReader.js";
import { readFileBytesSync } from "./fileBytes.js";
import { CONFIG_FILE_NAME, IGNORE_FILE_NAME, IgnoreRules, MAX_SKILL_CHARS, SKILL_SUFFIX, agentDocumentRole, isAgentSkillUri, type Namespace } from "../core/index.js";

/** Files past this size are not read whole: the core reports them as too large. */
const MAX_READ_BYTES = MAX_SKILL_CHARS * 4;

/** The canonical string form of a file URI, the same one VS Code gives, so a file has one key everywhere. */
export function canonicalUri(uri: string): string {
  return URI.parse(uri).toString();
}

export function uriFromPath(filePath: string): string {
  return URI.file(path.resolve(filePath)).toString();
}

export function pathFromUri(uri: string): string {
  return URI.parse(uri).fsPath;
}

/** The ignore rules of a workspace folder: its `.skillignore` (if any) after the default folders. */
export async function readIgnoreRules(folder: string): Promise<IgnoreRules> {
  const text = await fs.readFile(path.join(folder, IGNORE_FILE_NAME), "utf8").catch(() => "");
  return new IgnoreRules(text);
}

/** True when the rules leave a file out: the file itself, or any folder on its way down from the root. */
export function isIgnoredPath(rules: IgnoreRules, root: string, filePath: string): boolean {
  // A plain path below the root is its part past the root: path.relative, which normalises both, was most of this check's cost.
  const below = root.endsWith(path.sep) ? root : root + path.sep;
  const plain = filePath.startsWith(below) && !filePath.includes(`${path.sep}.${path.sep}`) && !filePath.includes(`${path.sep}..${path.sep}`);
  const parts = (plain ? filePath.slice(below.length) : path.relative(root, filePath)).split(path.sep);
  for (let i = 1; i < parts.length; i++) if (rules.ignores(parts.slice(0, i).join("/"), true)) return true;
  return rules.ignores(parts.join("/"), false);
}

/** True for a file name the server reads wherever it stands: a `.skill.md`, and every Markdown an agent reads (SKILL.md, CLAUDE.md, …). */
export function isReadFile(filePath: string): boolean {
  return isReadFileName(path.basename(filePath), filePath);
}

/** {@link isReadFile} when the listing has the name already: most names are settled by their ending alone. */
function isReadFileName(baseName: string, filePath: string): boolean {
  // The ending alone is lower-cased: a folder of 10,000 skills is 10,000 names.
  if (hasSkillSuffix(baseName)) return true;
  if (!baseName.slice(-3).toLowerCase().endsWith(".md")) return false;
  const uri = uriFromPath(filePath);
  return isAgentSkillUri(uri) || agentDocumentRole(uri) !== undefined;
}

/** True for a name that ends in `.skill.md`, in any case. */
export function hasSkillSuffix(name: string): boolean {
  return name.length >= SKILL_SUFFIX.length && name.slice(-SKILL_SUFFIX.length).toLowerCase() === SKILL_SUFFIX;
}

/**
 * Lists the files below a folder that the server reads: skill files and Agent Skills' SKILL.md anywhere,
 * CLAUDE.md, AGENTS.md and the Markdown under the agents' folders, and the `skills.json` at its root. Leaves
 * out what the ignore rules match (`node_modules`, `.git`, `dist`, `build` and the folder's `.skillignore`),
 * follows symbolic links once (a link loop is visited one time; a link to the folder's own parent or any
 * other ancestor, `/` included, is a loop too, not more workspace), and skips what it cannot read.
 */
export async function findWorkspaceFiles(folder: string, ignore?: IgnoreRules): Promise<string[]> {
  const rules = ignore ?? (await readIgnoreRules(folder));
  const found: string[] = [];
  const visited = new Set<string>();
  const root = path.resolve(folder);
  const realRoot = await fs.realpath(root).catch(() => root);
  const rootConfig = path.join(root, CONFIG_FILE_NAME);
  // Each folder with its real path and its path relative to the root: a real path is asked of the disk only
  // behind a symbolic link. Synchronous reads with a turn of the event loop every 256 folders: a library of
  // 10,000 skill folders read four times faster than with a thread-pool round trip per folder. The root is
  // read in the thread pool: when it holds 10,000 files, the editors opened at start are taken in meanwhile.
  const pending: { directory: string; real: string; relative: string }[] = [{ directory: root, real: realRoot, relative: "" }];
  let read = 0;
  while (pending.length > 0) {
    const { directory, real, relative } = pending.pop() ?? { directory: root, real: realRoot, relative: "" };
    if (visited.has(real) || (real !== realRoot && isAncestor(real, realRoot))) continue;
    visited.add(real);
    if (++read % 256 === 0) await new Promise((resolve) => setImmediate(resolve));
    let entries: import("node:fs").Dirent[];
    try {
      entries = read === 1 ? await fs.readdir(directory, { withFileTypes: true }) : readdirSync(directory, { withFileTypes: true });
    } catch {
      continue;
    }
    // Joined by hand: path.join normalises every one of 10,000 names, a tenth of the listing's time.
    const prefix = directory.endsWith(path.sep) ? directory : directory + path.sep;
    for (const entry of entries) {
      const full = prefix + entry.name;
      const childRelative = relative === "" ? entry.name : `${relative}/${entry.name}`;
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      let childReal = real === directory ? full : path.join(real, entry.name);
      if (entry.isSymbolicLink()) {
        try {
          const target = statSync(full);
          isDirectory = target.isDirectory();
          isFile = target.isFile();
          if (isDirectory) childReal = realpathSync(full);
        } catch {
          continue;
        }
      }
      if (isDirectory) {
        if (!rules.ignores(childRelative, true)) pending.push({ directory: full, real: childReal, relative: childRelative });
      } else if (isFile && (isReadFileName(entry.name, full) || full === rootConfig) && !rules.ignores(childRelative, false)) {
        found.push(full);
      }
    }
  }
  return found.sort();
}

function isAncestor(directory: string, of: string): boolean {
  return of.startsWith(directory.endsWith(path.sep) ? directory : directory + path.sep);
}

/**
 * Reads a workspace file as text. A file too large to be a skill is cut past the limit (the core then reports
 * it); undecodable bytes become U+FFFD rather than failing. Answers undefined for a file that cannot be read
 * and for anything that is not a regular file: a named pipe is opened without blocking and never read (a
 * blocking open waits for a writer forever), a device like /dev/zero is no skill.
 */
export async function readWorkspaceFile(filePath: string): Promise<string | undefined> {
  let handle: import("node:fs/promises").FileHandle | undefined;
  try {
    handle = await fs.open(filePath, constants.O_RDONLY | constants.O_NONBLOCK);
    const stat = await handle.stat();
    if (!stat.isFile()) return undefined;
    const { size } = stat;
    const length = Math.min(size, MAX_READ_BYTES + 1);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return new TextDecoder("utf-8", { fatal: false, ignoreBOM: true }).decode(buffer.subarray(0, bytesRead));
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

/** Decodes without state between calls, so one instance serves every file. */
const DECODER = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/**
 * `readWorkspaceFile` done synchronously, for the first index: four thread-pool round trips per file cost more
 * than reading a page of text, so a folder of 10,000 skills read three times slower. Same answers, same limits.
 */
export function readWorkspaceFileSync(filePath: string): string | undefined {
  const bytes = readFileBytesSync(filePath, MAX_READ_BYTES);
  return bytes === undefined ? undefined : DECODER.decode(bytes);
}

/** What {@link loadFolders} can be told besides the folders. */
export interface LoadOptions {
  readonly onProgress?: (done: number, total: number) => void;
  readonly isCancelled?: () => boolean;
  /** False for a file the namespace must not take from the disk (open in an editor, or read already). */
  readonly shouldRead?: (uri: string) => boolean;
  /**
   * Called with every file found, before any is read: the names alone say which skills exist (a handle is a
   * file or folder name), so whoever needs an answer early can read the few files it depends on first.
   */
  readonly onListed?: (files: readonly string[]) => void;
  /** The listing of these folders, if it was started already ({@link listFolders}). */
  readonly listing?: Promise<readonly string[]>;
}

/** Lists the skill files and `skills.json` of every folder ({@link findWorkspaceFiles}). */
export async function listFolders(folders: readonly string[]): Promise<string[]> {
  return (await Promise.all(folders.map((folder) => findWorkspaceFiles(folder)))).flat();
}

/**
 * Reads every skill and `skills.json` in the folders into the namespace. Answers the number of files read. The
 * bytes come from a reading thread ({@link BackgroundReader}) while this thread parses; whether a file is taken
 * is asked when its text is applied, so an editor opened (or a file read ahead) meanwhile keeps its own text.
 */
export async function loadFolders(namespace: Namespace, folders: readonly string[], options: LoadOptions = {}): Promise<number> {
  const { onProgress, isCancelled, shouldRead = () => true, onListed } = options;
  // Started before the listing is awaited: the thread boots while the folders are listed.
  const reader = new BackgroundReader(MAX_READ_BYTES);
  try {
    const files = await (options.listing ?? listFolders(folders));
    onListed?.(files);
    let done = 0;
    let until = performance.now() + READ_SLICE_MS;
    for await (const batch of reader.read(files)) {
      for (const bytes of batch) {
        const file = files[done++] ?? "";
        // Read for a few milliseconds at a time, then let requests and cancellation in.
        if (performance.now() >= until) {
          onProgress?.(done - 1, files.length);
          for (let turn = 0; turn < READ_YIELD_TURNS; turn++) await new Promise((resolve) => setImmediate(resolve));
          if (isCancelled?.()) return done - 1;
          until = performance.now() + READ_SLICE_MS;
        }
        if (bytes === undefined) continue;
        const uri = uriFromPath(file);
        if (shouldRead(uri)) namespace.set(uri, DECODER.decode(bytes));
      }
    }
    onProgress?.(done, files.length);
    return done;
  } finally {
    reader.close();
  }
}

/** How long the first index reads before it lets requests in. */
const READ_SLICE_MS = 4;

/**
 * Turns of the event loop the first index gives away between slices. The connection handles one message per
 * turn: with one turn, 50 editors opened at start (100 messages) waited for 100 slices of reading.
 */
const READ_YIELD_TURNS = 16;
