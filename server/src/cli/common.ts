import { promises as fs } from "node:fs";
import * as path from "node:path";
import { BUILTIN_SKILLS, Namespace, siblingSkillUri } from "../core/index.js";
import { belongsTo, librariesOf, type SkillLibrary } from "../node/libraries.js";
import { FolderListing, loadFolders, pathFromUri, readWorkspaceFileSync, uriFromPath } from "../node/workspaceFiles.js";

/**
 * Where a verb writes: whole lines to standard output and standard error, streamed text (no line break added),
 * and lines already encoded as UTF-8 (a long report, written without a string made for all of it).
 */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  write(text: string): void;
  writeBytes(bytes: Uint8Array): void;
}

/** The process's own streams. */
export const processIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  write: (text) => process.stdout.write(text),
  writeBytes: (bytes) => process.stdout.write(bytes),
};

/** A mistake in the arguments: the command line answers it with exit code 2. */
export class UsageError extends Error {}

/** One verb of the command line. */
export interface Verb {
  readonly name: string;
  /** Its help: the first line is the synopsis, the rest indented detail. */
  readonly usage: string;
  run(args: readonly string[], io: CliIo): Promise<number>;
}

/** Parsed arguments: positionals, repeatable --folder, options that take a value, and flags. */
export interface ParsedArgs {
  readonly positional: string[];
  readonly folders: string[];
  readonly values: Map<string, string>;
  readonly flags: Set<string>;
}

export interface ArgSpec {
  /** Options that take a value. */
  readonly valued?: readonly string[];
  /** Options that take none. */
  readonly flags?: readonly string[];
  /** Positional arguments are folders too (`check a b` is `check --folder a --folder b`). */
  readonly positionalFolders?: boolean;
}

/**
 * Splits the arguments. `--folder F` is repeatable and defaults to the current folder; every other valued
 * option may be given once; an unknown `--option` is a usage error.
 */
export function parseArgs(args: readonly string[], { valued = [], flags = [], positionalFolders = false }: ArgSpec = {}): ParsedArgs {
  const parsed: ParsedArgs = { positional: [], folders: [], values: new Map(), flags: new Set() };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--folder" || valued.includes(arg)) {
      const value = args[++i];
      if (value === undefined || value.startsWith("--")) throw new UsageError(`${arg} needs a value.`);
      if (arg === "--folder") parsed.folders.push(value);
      else if (parsed.values.has(arg)) throw new UsageError(`${arg} is given twice.`);
      else parsed.values.set(arg, value);
    } else if (flags.includes(arg)) {
      parsed.flags.add(arg);
    } else if (arg.startsWith("--")) {
      throw new UsageError(`Unknown option ${arg}.`);
    } else if (positionalFolders) {
      parsed.folders.push(arg);
    } else {
      parsed.positional.push(arg);
    }
  }
  if (parsed.folders.length === 0) parsed.folders.push(".");
  return parsed;
}

/** A whole number above 0, or undefined when the option is absent. */
export function positiveNumber(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${option} takes a whole number above 0; got ${value}.`);
  return n;
}

/** `--gpu auto|off` as the model settings take it. */
export function gpuOption(value: string | undefined): "auto" | false {
  const gpu = value ?? "auto";
  if (gpu !== "auto" && gpu !== "off") throw new UsageError("--gpu takes auto or off.");
  return gpu === "off" ? false : "auto";
}

export interface LoadOptions {
  /** With no skill in the folders, use the three built-in skills. */
  readonly builtins?: boolean;
  /** A folder that does not exist is a usage error (otherwise only a path that is not a folder is). */
  readonly mustExist?: boolean;
}

async function checkFolders(folders: readonly string[], mustExist: boolean): Promise<void> {
  for (const folder of folders) {
    const stat = await fs.stat(folder).catch(() => undefined);
    if (stat ? !stat.isDirectory() : mustExist) throw new UsageError(`${folder} is not a folder.`);
  }
}

/**
 * The folders' libraries, found by the listing of every folder below them, which then reads the top ones' files:
 * a search of its own listed every folder once more first, on this thread alone (0.4 s of 6 s of `check` on a
 * public library of 17,450 folders). Nothing is read before every library is known, so both threads list.
 */
async function listLibraries(folders: readonly string[]): Promise<{ listing: FolderListing; tops: SkillLibrary[]; nested: SkillLibrary[] }> {
  const roots = folders.map((folder) => path.resolve(folder));
  const listing = new FolderListing(roots);
  // No editor waits here: the reading thread boots beside the walk rather than after it (at 100,000 skills,
  // `check` took 4,963 against 5,027 ms, medians of 8 alternating runs; at 10,000, 904 against 918 ms).
  listing.reader.start();
  listing.hurry();
  return { listing, ...librariesOf(roots, await listing.configFolders) };
}

/** Reads libraries into one namespace, each library's files only (none of a nested library's), with their `listing` if made. */
async function loadLibraries(libraries: readonly SkillLibrary[], beforeReading?: (namespace: Namespace) => void, listing?: FolderListing): Promise<Namespace> {
  // No file is open here: each skill gives up its text once parsed, and a verb that needs it reads the file.
  const namespace = new Namespace({ isOpen: () => false, load: (uri) => readWorkspaceFileSync(pathFromUri(uri)) });
  beforeReading?.(namespace);
  // Every file listed under a lone library with none nested in it is its own: asked file by file, the question
  // was 170 ms of `check` on 100,000 skills.
  const alone = libraries.length === 1 && libraries[0]?.nested.length === 0;
  await loadFolders(namespace, libraries.map((library) => library.root), { listing, shouldRead: alone ? undefined : (uri) => libraries.some((library) => belongsTo(library, uri)) });
  return namespace;
}

/**
 * Reads the folders' skills and configs into one namespace, as a multi-root workspace. A subfolder with a
 * `skills.json` of its own is another library and is left out (`check` checks it on its own).
 */
export async function loadNamespace(folders: readonly string[], options: LoadOptions = {}): Promise<Namespace> {
  await checkFolders(folders, options.mustExist ?? true);
  const { listing, tops } = await listLibraries(folders);
  const namespace = await loadLibraries(tops, undefined, listing);
  if (options.builtins && namespace.skillCount === 0) {
    const home = uriFromPath(path.resolve("builtin.skill.md"));
    for (const skill of BUILTIN_SKILLS) namespace.setSkill(siblingSkillUri(home, skill.handle), skill.text);
  }
  return namespace;
}

/** A file path relative to the current folder, for output a person reads. */
export function relativePath(filePath: string): string {
  return path.relative(process.cwd(), filePath) || filePath;
}

/** A file URI as a path relative to the current folder. */
export function relativeUri(uri: string): string {
  return relativePath(pathFromUri(uri));
}

/**
 * The folders as namespaces to check: the folders themselves together (their `skills.json` applies to them
 * and below), then each library nested below them on its own, with its own `skills.json`.
 */
export async function loadLibraryNamespaces(folders: readonly string[], beforeReading?: (namespace: Namespace) => void): Promise<Namespace[]> {
  await checkFolders(folders, true);
  const { listing, tops, nested } = await listLibraries(folders);
  return Promise.all([loadLibraries(tops, beforeReading, listing), ...nested.map((library) => loadLibraries([library], beforeReading))]);
}
