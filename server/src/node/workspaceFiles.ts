import { constants, promises as fs, readdirSync, realpathSync, statSync } from "node:fs";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { BackgroundReader } from "./backgroundReader.js";
import { uriFromPath } from "./fileUris.js";
import { ENTRY_DIRECTORY, ENTRY_FILE, ENTRY_LINKED_DIRECTORY, ENTRY_OTHER, type FolderEntries, type FolderTrees } from "./folderEntries.js";
import { FILE_DECODER, readFileBytesSync } from "./fileBytes.js";
import { CONFIG_FILE_NAME, IGNORE_FILE_NAME, IgnoreRules, MAX_SKILL_CHARS, SKILL_SUFFIX, agentDocumentRole, isAgentSkillUri, type Namespace } from "../core/index.js";
import { AGENT_SKILL_FILE } from "../core/agentSkills/paths.js";

/** Files past this size are not read whole: the core reports them as too large. */
const MAX_READ_BYTES = MAX_SKILL_CHARS * 4;

export { canonicalUri, pathFromUri, uriFromPath } from "./fileUris.js";

/** The ignore rules of a workspace folder: its `.skillignore` (if any) after the default folders. */
export async function readIgnoreRules(folder: string): Promise<IgnoreRules> {
  const text = await fs.readFile(path.join(folder, IGNORE_FILE_NAME), "utf8").catch(() => "");
  return new IgnoreRules(text);
}

/** True when the rules leave a file out: the file itself, or any folder on its way down from the root. */
export function isIgnoredPath(rules: IgnoreRules, root: string, filePath: string): boolean {
  const parts = relativePath(root, filePath).split(path.sep);
  for (let i = 1; i < parts.length; i++) if (rules.ignores(parts.slice(0, i).join("/"), true)) return true;
  return rules.ignores(parts.join("/"), false);
}

/**
 * `path.relative(root, filePath)`, with a plain path below the root taken as its part past the root: path.relative,
 * which normalises both, was most of the cost of the callers that ask it of every file.
 */
export function relativePath(root: string, filePath: string): string {
  const below = root.endsWith(path.sep) ? root : root + path.sep;
  const plain = filePath.startsWith(below) && !filePath.includes(`${path.sep}.${path.sep}`) && !filePath.includes(`${path.sep}..${path.sep}`) && !filePath.endsWith(path.sep) && !filePath.endsWith(`${path.sep}.`) && !filePath.endsWith(`${path.sep}..`) && !filePath.includes(`${path.sep}${path.sep}`);
  return plain ? filePath.slice(below.length) : path.relative(root, filePath);
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
  // A SKILL.md is a skill or a misplaced one, a skill.md a near miss, CLAUDE.md and AGENTS.md prose: read wherever they stand.
  if (ALWAYS_READ.has(baseName)) return true;
  const uri = uriFromPath(filePath);
  return isAgentSkillUri(uri) || agentDocumentRole(uri) !== undefined;
}

const MARKDOWN = ".md";

/** Markdown names read wherever they stand (see agentDocumentRole): no URI needs to be made for them. */
const ALWAYS_READ = new Set([AGENT_SKILL_FILE, "skill.md", "CLAUDE.md", "AGENTS.md"]);

/** True for a name that ends in `.skill.md`, in any case. */
export function hasSkillSuffix(name: string): boolean {
  // The lower-case ending first: no copy is made for it, and it is nearly every name a skills folder holds. A
  // copy in lower case only where the suffix's dot stands: a library's references (`api-guide.md`) make none.
  const dot = name.length - SKILL_SUFFIX.length;
  return name.endsWith(SKILL_SUFFIX) || (dot >= 0 && name.charCodeAt(dot) === DOT && name.slice(dot).toLowerCase() === SKILL_SUFFIX);
}

const DOT = 46;

/**
 * Lists the files below a folder that the server reads: skill files and Agent Skills' SKILL.md anywhere,
 * CLAUDE.md, AGENTS.md and the Markdown under the agents' folders, and the `skills.json` at its root. Leaves
 * out what the ignore rules match (`node_modules`, `.git`, `dist`, `build` and the folder's `.skillignore`),
 * follows symbolic links once (a link loop is visited one time; a link to the folder's own parent or any
 * other ancestor, `/` included, is a loop too, not more workspace), and skips what it cannot read.
 */
export async function findWorkspaceFiles(folder: string, ignore?: IgnoreRules): Promise<string[]> {
  const walk = await WorkspaceWalk.start(folder, ignore, false);
  await walk.walk();
  return walk.files.sort();
}

/** A folder of the walk with its real path and its path relative to the root (`/`-separated, for the ignore rules). */
interface WalkFolder {
  readonly directory: string;
  readonly real: string;
  readonly relative: string;
  /** Set for a skill folder whose SKILL.md the walk named before listing it (one of its `candidates`). */
  named?: boolean;
}

/** Who is told once a walk has deferred `count` skill folders. */
interface DeferredFolders {
  readonly count: number;
  readonly reached: () => void;
}

/**
 * The walk behind {@link findWorkspaceFiles}. With `deferSkillFolders`, a plain folder right under a `skills`
 * folder (an Agent Skill's) is not listed: its SKILL.md is a candidate, to be read at once (a missing one reads
 * as nothing), and the folder waits in `deferred` for {@link takeEntries}, which lists it and everything below
 * it. A workspace of 10,000 skills is then one listing before the first file is read, not 10,001.
 */
class WorkspaceWalk {
  /** Every file found so far. */
  readonly files: string[] = [];
  /** The SKILL.md of each deferred folder, found or not. */
  readonly candidates: string[] = [];
  /** The files {@link takeEntries} found that are not among the candidates: what the second step adds to the first. */
  readonly added: string[] = [];
  /** Folders the walk left to {@link takeEntries}, each claimed already (a link to one is a loop). */
  deferred: WalkFolder[] = [];
  /** Folders below the root that hold a `skills.json` of their own, in the order listed: each a library of its own. */
  readonly configFolders: string[] = [];
  readonly #rules: IgnoreRules;
  readonly #realRoot: string;
  readonly #rootConfig: string;
  readonly #deferSkillFolders: boolean;
  readonly #visited = new Set<string>();
  readonly #pending: WalkFolder[];
  /** Told when so many folders are deferred ({@link DeferredFolders}): whoever lists them may get ready meanwhile. */
  readonly #onDeferred: DeferredFolders | undefined;

  private constructor(root: string, realRoot: string, rules: IgnoreRules, deferSkillFolders: boolean, onDeferred?: DeferredFolders) {
    this.#rules = rules;
    this.#realRoot = realRoot;
    this.#rootConfig = path.join(root, CONFIG_FILE_NAME);
    this.#deferSkillFolders = deferSkillFolders;
    this.#onDeferred = onDeferred;
    this.#pending = [{ directory: root, real: realRoot, relative: "" }];
  }

  static async start(folder: string, ignore: IgnoreRules | undefined, deferSkillFolders: boolean, onDeferred?: DeferredFolders): Promise<WorkspaceWalk> {
    const rules = ignore ?? (await readIgnoreRules(folder));
    const root = path.resolve(folder);
    const realRoot = await fs.realpath(root).catch(() => root);
    return new WorkspaceWalk(root, realRoot, rules, deferSkillFolders, onDeferred);
  }

  /**
   * Lists every folder not deferred. A real path is asked of the disk only behind a symbolic link. Synchronous
   * reads with a turn of the event loop every 256 folders: a library of 10,000 skill folders read four times
   * faster than with a thread-pool round trip per folder. The root is read in the thread pool: when it holds
   * 10,000 files, the editors opened at start are taken in meanwhile.
   */
  async walk(): Promise<void> {
    let read = 0;
    for (let folder = this.#pending.pop(); folder !== undefined; folder = this.#pending.pop()) {
      const { directory, real } = folder;
      if (this.#visited.has(real) || (real !== this.#realRoot && isAncestor(real, this.#realRoot))) continue;
      this.#visited.add(real);
      if (++read % 256 === 0) await new Promise((resolve) => setImmediate(resolve));
      let entries: import("node:fs").Dirent[];
      try {
        entries = read === 1 ? await fs.readdir(directory, { withFileTypes: true }) : readdirSync(directory, { withFileTypes: true });
      } catch {
        continue;
      }
      // Joined by hand: path.join normalises every one of 10,000 names, a tenth of the listing's time.
      const prefix = directory.endsWith(path.sep) ? directory : directory + path.sep;
      const deferChildren = this.#deferSkillFolders && prefix.endsWith(`${path.sep}skills${path.sep}`);
      for (const entry of entries) {
        let kind = entry.isFile() ? ENTRY_FILE : entry.isDirectory() ? ENTRY_DIRECTORY : ENTRY_OTHER;
        let linkedReal: string | undefined;
        if (entry.isSymbolicLink()) {
          try {
            const full = prefix + entry.name;
            const target = statSync(full);
            kind = target.isFile() ? ENTRY_FILE : target.isDirectory() ? ENTRY_LINKED_DIRECTORY : ENTRY_OTHER;
            if (kind === ENTRY_LINKED_DIRECTORY) linkedReal = realpathSync(full);
          } catch {
            continue;
          }
        }
        this.#take(folder, prefix, entry.name, kind, linkedReal, deferChildren ? this.#deferSkillFolder : this.#listLater);
      }
    }
  }

  /** What the reading thread needs to list the deferred folders' trees ({@link FolderTrees}) as this walk would. */
  treesOf(folders: readonly WalkFolder[]): FolderTrees {
    return { ignore: this.#rules.text, relatives: folders.map((folder) => folder.relative) };
  }

  /**
   * Takes the listing of the deferred folders (in their order; {@link listFolderEntriesSync}), with their
   * trees or not, and defers the folders found in them that it did not list (all, or those behind a link) in
   * turn: files under a skill folder come from its listing, wherever it was made.
   */
  takeEntries(folders: readonly WalkFolder[], listed: FolderEntries): void {
    const { within, folderNames } = listed;
    // With the trees: each listed folder, undefined for one visited already (by a link) with all below it.
    const records: (WalkFolder | undefined)[] = [];
    let at = 0;
    let top = 0;
    for (let i = 0; i < listed.counts.length; i++) {
      const holder = within?.[i] ?? -1;
      const folder = holder < 0 ? folders[top++] : this.#listedBelow(records[holder], folderNames?.[i] ?? "");
      if (within) records.push(folder);
      const count = listed.counts[i] ?? -1;
      if (folder === undefined) {
        at += Math.max(count, 0);
        continue;
      }
      const prefix = folder.directory.endsWith(path.sep) ? folder.directory : folder.directory + path.sep;
      for (let n = 0; n < count; n++, at++) {
        const name = listed.names[at] ?? "";
        const kind = listed.kinds[at] ?? ENTRY_OTHER;
        // A plain folder of a tree came with it (its own record follows).
        if (within && kind === ENTRY_DIRECTORY) continue;
        const kept = kind === ENTRY_FILE ? this.#takeFileBelowSkills(folder, prefix, name) : this.#take(folder, prefix, name, kind, listed.reals[at], this.#deferBelow);
        if (kept !== undefined && !(folder.named === true && name === AGENT_SKILL_FILE)) this.added.push(kept);
      }
    }
  }

  /**
   * A file of a deferred folder, kept or not: every folder deferred is below a `skills` folder, one of the
   * agents' folders, where every Markdown is read (a skill file, a SKILL.md, or prose an agent reads).
   */
  #takeFileBelowSkills(folder: WalkFolder, prefix: string, name: string): string | undefined {
    if (name === CONFIG_FILE_NAME) this.configFolders.push(folder.directory);
    if (!name.slice(-MARKDOWN.length).toLowerCase().endsWith(MARKDOWN)) return undefined;
    if (this.#rules.matchesFiles && this.#rules.ignores(`${folder.relative}/${name}`, false)) return undefined;
    const full = prefix + name;
    this.files.push(full);
    return full;
  }

  /** A plain folder a tree's listing went down into, claimed now; undefined when it was visited already. */
  #listedBelow(holder: WalkFolder | undefined, name: string): WalkFolder | undefined {
    if (holder === undefined) return undefined;
    const directory = holder.directory.endsWith(path.sep) ? holder.directory + name : holder.directory + path.sep + name;
    const real = holder.real === holder.directory ? directory : path.join(holder.real, name);
    // No ancestor of the root: its holder is none (nor the root, visited first), and a folder inside it neither.
    if (this.#visited.has(real)) return undefined;
    this.#visited.add(real);
    return { directory, real, relative: holder.relative === "" ? name : `${holder.relative}/${name}` };
  }

  /** One entry of a folder's listing: a file kept (answered), or a folder handed to `queue` unless the rules leave it out. */
  #take(folder: WalkFolder, prefix: string, name: string, kind: number, linkedReal: string | undefined, queue: (child: WalkFolder, linked: boolean) => void): string | undefined {
    const full = prefix + name;
    const relative = folder.relative === "" ? name : `${folder.relative}/${name}`;
    if (kind === ENTRY_DIRECTORY || kind === ENTRY_LINKED_DIRECTORY) {
      const real = linkedReal ?? (folder.real === folder.directory ? full : path.join(folder.real, name));
      if (!this.#rules.ignores(relative, true)) queue({ directory: full, real, relative }, kind === ENTRY_LINKED_DIRECTORY);
    } else if (kind === ENTRY_FILE && (isReadFileName(name, full) || full === this.#rootConfig) && !(this.#rules.matchesFiles && this.#rules.ignores(relative, false))) {
      this.files.push(full);
      return full;
    } else if (name === CONFIG_FILE_NAME && kind === ENTRY_FILE && full !== this.#rootConfig) {
      this.configFolders.push(folder.directory);
    }
    return undefined;
  }

  /** A folder of this walk's own: listed in turn. */
  readonly #listLater = (child: WalkFolder): void => {
    this.#pending.push(child);
  };

  /** A folder right under `skills`: a plain one is claimed now and listed later, its SKILL.md read at once. */
  readonly #deferSkillFolder = (child: WalkFolder, linked: boolean): void => {
    // Behind a symbolic link: listed in turn, so that a loop or a second way in is settled as it always was.
    if (linked) return this.#listLater(child);
    if (this.#visited.has(child.real)) return;
    this.#visited.add(child.real);
    if (this.deferred.push(child) === this.#onDeferred?.count) this.#onDeferred.reached();
    if (!(this.#rules.matchesFiles && this.#rules.ignores(`${child.relative}/${AGENT_SKILL_FILE}`, false))) {
      this.candidates.push(child.directory + path.sep + AGENT_SKILL_FILE);
      child.named = true;
    }
  };

  /** A folder below a deferred one: deferred too, claimed now. */
  readonly #deferBelow = (child: WalkFolder): void => {
    if (this.#visited.has(child.real) || (child.real !== this.#realRoot && isAncestor(child.real, this.#realRoot))) return;
    this.#visited.add(child.real);
    this.deferred.push(child);
  };
}

/** Deferred folders listed per message to the reading thread: files asked for meanwhile are read between them. */
const LIST_CHUNK = 256;


/**
 * For a server's first listing, whose editors opened at start may wait for it ({@link FolderListing.hurry}):
 * `turn` lets their messages and answers by (a turn of the event loop, or more while they come).
 */
export interface EditorsFirst {
  readonly turn: () => Promise<void>;
}

/**
 * Where editors may wait for the skill folders' listing, the reading thread is started to share it only when
 * the walk has deferred this many folders, or when what is left would take longer than THREAD_WORTH_MS on this
 * thread. A listing shorter than that is made here alone: at 10,000 folders the thread's boot, taking a core
 * from the editors' answers, cost more than the half of the listing it made (the bench's 50 editors all
 * answered in a median of 300 ms alone against 344 ms with the thread started when they came). At 50,000 the
 * thread's half is worth it: the first 25 answered at 396 ms with it, 710 ms without.
 */
const THREAD_WORTH_FOLDERS = 20_000;
const THREAD_WORTH_MS = 120;

/**
 * The listing of workspace folders in two steps. `first` comes after one listing per folder that is not an Agent
 * Skill's: every file found so far and each skill folder's SKILL.md (there or not: reading it answers), enough
 * to read nearly every file. The skill folders are listed meanwhile, on the reading thread when it runs, a chunk
 * at a time between the batches of files; `added` is then what that found besides, `whole` every file.
 * The reader is the listing's, for whoever reads the files ({@link loadFolders}); {@link close} stops it.
 */
export class FolderListing {
  readonly reader: BackgroundReader;
  /**
   * The first step's files in the order listed, not sorted: who answers the editors open at start needs their
   * names alone, and a library's 50,000 paths took 16-24 ms to sort meanwhile ({@link loadFolders} sorts them
   * once those editors are answered).
   */
  readonly first: Promise<readonly string[]>;
  /** The files the skill folders' listing finds that {@link first} did not name, in the order listed. */
  readonly added: Promise<readonly string[]>;
  readonly #listed: Promise<readonly { walk: WorkspaceWalk; first: string[] }[]>;
  #whole: Promise<readonly string[]> | undefined;
  /** The Agent Skills' folders the reading thread is to list, counted when {@link first} settles. */
  skillFolders = 0;
  #urgent = false;
  #closed = false;
  #hurried: (() => void) | undefined;
  readonly #whenHurried = new Promise<void>((resolve) => (this.#hurried = resolve));

  readonly #editorsFirst: EditorsFirst | undefined;

  constructor(folders: readonly string[], editorsFirst?: EditorsFirst) {
    this.#editorsFirst = editorsFirst;
    // Its thread starts when the walk defers a skill folder (that folder is listed there), or else when the
    // listing first asks it to read (see BackgroundReader). Where editors may wait for the listing, only once
    // the walk has deferred enough folders for the thread to be worth its boot, or when the first index reads.
    this.reader = new BackgroundReader(MAX_READ_BYTES);
    const startReader = { count: editorsFirst ? THREAD_WORTH_FOLDERS : 1, reached: () => this.reader.start() };
    const walks = Promise.all(
      folders.map(async (folder) => {
        const walk = await WorkspaceWalk.start(folder, undefined, true, startReader);
        await walk.walk();
        return { walk, first: [...walk.files, ...walk.candidates] };
      }),
    );
    this.first = walks.then((all) => {
      this.skillFolders = all.reduce((sum, { walk }) => sum + walk.deferred.length, 0);
      return all.length === 1 ? (all[0]?.first ?? []) : all.flatMap(({ first }) => first);
    });
    this.#listed = walks.then(async (all) => {
      // The editors restored at start open right after `initialize`: a first chunk given to a thread still
      // booting would hold the whole listing back for them.
      if (all.some(({ walk }) => walk.deferred.length > 0)) {
        // Where editors may wait, no thread is started for the listing alone: it waits for them (then it is made
        // here, see listTogether) or for the first index's first read, which starts the thread.
        if (this.#editorsFirst) await Promise.race([this.#whenHurried, this.reader.whenStarted]);
        if (!this.#urgent) await Promise.race([this.#whenHurried, this.reader.whenOnline]);
      }
      for (const { walk } of all) {
        // Closed (the index cancelled, or the listing unused): what is not listed yet never is. Its reader gone,
        // each chunk left was listed on this thread, 50,000 folders seconds after nobody wanted them.
        while (walk.deferred.length > 0 && !this.#closed) {
          const folders = walk.deferred;
          walk.deferred = [];
          for (let at = 0; at < folders.length && !this.#closed; ) {
            if (this.#urgent) {
              const rest = folders.slice(at);
              const alone = this.#editorsFirst && rest.length < THREAD_WORTH_FOLDERS ? { turn: this.#editorsFirst.turn, threadWorthMs: THREAD_WORTH_MS } : undefined;
              const chunks = await this.reader.listTogether(rest.map((folder) => folder.directory), walk.treesOf(rest), alone);
              for (const { from, to, entries } of chunks) walk.takeEntries(rest.slice(from, to), entries);
              break;
            }
            const chunk = folders.slice(at, at + LIST_CHUNK);
            at += chunk.length;
            walk.takeEntries(chunk, await this.reader.list(chunk.map((folder) => folder.directory), walk.treesOf(chunk)));
          }
        }
      }
      return all;
    });
    // In the order listed, not sorted: a library's 30,000 files took 20 ms to sort, while the open editors wait.
    this.added = this.#listed.then((all) => all.flatMap(({ walk }) => walk.added));
  }

  /**
   * Every folder below those listed that holds a `skills.json` of its own (a library nested in a listed one),
   * sorted, once the whole listing is made: a search for libraries and the listing of their files are one.
   */
  get configFolders(): Promise<readonly string[]> {
    return this.#listed.then((all) => all.flatMap(({ walk }) => walk.configFolders).sort());
  }

  /**
   * The whole listing while someone waits for it ({@link hurry}): the first index reads nothing before it, as
   * those waiting come first. Undefined while nobody does.
   */
  get awaited(): Promise<unknown> | undefined {
    return this.#urgent ? this.added.catch(() => undefined) : undefined;
  }

  /**
   * Someone waits for the whole listing (editors open at start, whose diagnostics need it): what is left of the
   * skill folders is listed at once, by both threads or (a few thousand folders, see THREAD_WORTH_FOLDERS) this
   * one, rather than a chunk at a time between batches of files.
   */
  hurry(): void {
    this.#urgent = true;
    this.#hurried?.();
  }

  /** Every file, what {@link findWorkspaceFiles} answers: made only when asked (the first index needs {@link added} alone). */
  get whole(): Promise<readonly string[]> {
    this.#whole ??= this.#listed.then((all) => all.flatMap(({ walk }) => walk.files).sort());
    return this.#whole;
  }

  /** Stops the listing where it stands ({@link added} and {@link whole} then hold what was listed) and its reader. */
  close(): void {
    this.#closed = true;
    this.reader.close();
  }
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


/**
 * `readWorkspaceFile` done synchronously, for the first index: four thread-pool round trips per file cost more
 * than reading a page of text, so a folder of 10,000 skills read three times slower. Same answers, same limits.
 */
export function readWorkspaceFileSync(filePath: string): string | undefined {
  const bytes = readFileBytesSync(filePath, MAX_READ_BYTES);
  return bytes === undefined ? undefined : FILE_DECODER.decode(bytes);
}

/** What {@link loadFolders} can be told besides the folders. */
export interface LoadOptions {
  readonly onProgress?: (done: number, total: number) => void;
  readonly isCancelled?: () => boolean;
  /** False for a file the namespace must not take from the disk (open in an editor, or read already). */
  readonly shouldRead?: (uri: string) => boolean;
  /**
   * Called with every file found, once the whole listing is made (the first files are being read by then): the
   * names alone say which skills exist (a handle is a file or folder name), so whoever needs an answer early can
   * read the few files it depends on first. Without it the whole listing is never put together.
   */
  readonly onListed?: (files: readonly string[]) => void;
  /** The listing of these folders, if it was started already; {@link loadFolders} closes it. */
  readonly listing?: FolderListing;
  /** Told of a file whose text the namespace failed to take (a fault, never the file's own problem): the rest is read on. Without it the load fails. */
  readonly onFileFailure?: (filePath: string, error: unknown) => void;
  /** Whether the reading thread parses skills too; by default, in a workspace of {@link PARSE_ON_READER_FROM} files or more. */
  readonly parseOnReader?: boolean;
  /** Awaited after the first files are listed, before any is read. */
  readonly beforeRead?: () => Promise<void>;
}

/**
 * Reads every skill and `skills.json` in the folders into the namespace. Answers the number of files read. The
 * bytes come from a reading thread ({@link BackgroundReader}) while this thread parses; whether a file is taken
 * is asked when its text is applied, so an editor opened (or a file read ahead) meanwhile keeps its own text.
 * The files of the listing's first step are read first, those the skill folders' listing adds after them.
 */
export async function loadFolders(namespace: Namespace, folders: readonly string[], options: LoadOptions = {}): Promise<number> {
  const { onProgress, isCancelled, shouldRead = () => true, onListed, onFileFailure } = options;
  const listing = options.listing ?? new FolderListing(folders);
  try {
    const listedFirst = await listing.first;
    let total = listedFirst.length;
    const listed = onListed ? listing.whole.then(onListed) : listing.added;
    // Awaited below unless the reading stops first.
    listed.catch(() => undefined);
    await options.beforeRead?.();
    // Read in the order of their names, wherever the disk listed them.
    const first = [...listedFirst].sort();
    let done = 0;
    let until = performance.now() + READ_SLICE_MS;
    const read = async (files: readonly string[]): Promise<boolean> => {
      let at = 0;
      const parseOnReader = options.parseOnReader ?? (total >= PARSE_ON_READER_FROM && listing.skillFolders < total * LISTED_FOLDERS_SHARE);
      for await (const batch of listing.reader.readParsed(files, parseOnReader ? PARSED_ON_READER : 0)) {
        for (const [i, bytes] of batch.files.entries()) {
          const file = files[at++] ?? "";
          done++;
          // Read for a few milliseconds at a time, then let requests and cancellation in.
          if (performance.now() >= until) {
            onProgress?.(done - 1, total);
            for (let turn = 0; turn < READ_YIELD_TURNS; turn++) await new Promise((resolve) => setImmediate(resolve));
            if (isCancelled?.()) return false;
            until = performance.now() + READ_SLICE_MS;
          }
          if (bytes === undefined) continue;
          const uri = uriFromPath(file);
          if (!shouldRead(uri)) continue;
          try {
            const parts = batch.parts?.[i];
            const document = batch.documents?.[i];
            const taken = parts ? namespace.loadParts(uri, parts) : document ? namespace.loadDocument(uri, document) : false;
            if (!taken) namespace.load(uri, FILE_DECODER.decode(bytes));
          } catch (error) {
            // One file the core cannot take costs that file, not the index of the rest.
            if (!onFileFailure) throw error;
            onFileFailure(file, error);
          }
        }
      }
      return true;
    };
    if (!(await read(first))) return done - 1;
    await listed;
    const rest = await listing.added;
    total += rest.length;
    if (!(await read(rest))) return done - 1;
    onProgress?.(done, total);
    return done;
  } finally {
    listing.close();
  }
}

/**
 * The reading thread parses one batch in this many of those it reads, while it keeps ahead of this thread (see
 * BackgroundReader.readParsed), in a workspace of at least {@link PARSE_ON_READER_FROM} files. Every batch: it
 * then parses about half of them, as many as it can while it keeps ahead (one in two asked, 40%: 50,000 skills
 * were indexed about 8% later, 100,000 6%).
 */
const PARSED_ON_READER = 1;

/**
 * Below this many files the reading thread only reads: a thread's parse runs cold (its code not yet compiled)
 * for longer than a small workspace takes to read, and 10,000 files indexed later, not sooner.
 */
const PARSE_ON_READER_FROM = 20_000;

/**
 * Where the reading thread has this share of the files' count in Agent Skills' folders to list, it only reads:
 * the index ends when the listing does, and parsing there put it off. At 50,000 and 100,000 SKILL.md folders the
 * first index took 1,818 and 3,407 ms with the thread reading alone, against 2,097 and 4,070 ms with it parsing
 * too; 100,000 realistic skill files, 3,066 ms against 2,858 ms (bench/cold.mjs, medians of 3 alternating runs).
 * A tenth lies between the two ends measured. Two public libraries (32,487 files, 27% of them SKILL.md) showed no
 * clear difference either way.
 */
const LISTED_FOLDERS_SHARE = 0.1;

/** How long the first index reads before it lets requests in. */
const READ_SLICE_MS = 4;

/**
 * Turns of the event loop the first index gives away between slices. The connection handles one message per
 * turn: with one turn, 50 editors opened at start (100 messages) waited for 100 slices of reading.
 */
const READ_YIELD_TURNS = 16;
