import { readdirSync, realpathSync, statSync } from "node:fs";
import * as path from "node:path";
import { IgnoreRules } from "../core/ignore.js";

/** What a directory entry is once a symbolic link is followed: the walk of a workspace needs no more. */
export const ENTRY_OTHER = 0;
export const ENTRY_FILE = 1;
export const ENTRY_DIRECTORY = 2;
/** A symbolic link to a directory: its real path comes with it (a link loop is visited once). */
export const ENTRY_LINKED_DIRECTORY = 3;

/**
 * The entries of several folders, flat, so that a listing crosses between threads as a few arrays rather than
 * an object per entry: listed folder `i` has `counts[i]` entries after those of the folders before it (-1: it
 * could not be read). `reals` holds, for each entry of kind {@link ENTRY_LINKED_DIRECTORY}, its real path.
 * Listed with their trees ({@link FolderTrees}), the folders listed are the ones asked and every folder below
 * them: `within[i]` is then the listed folder that folder `i` is in (-1: the next of those asked), and
 * `folderNames[i]` its name there.
 */
export interface FolderEntries {
  readonly counts: Int32Array;
  readonly names: string[];
  readonly kinds: Uint8Array;
  readonly reals: Record<number, string>;
  readonly within?: Int32Array;
  readonly folderNames?: string[];
}

/**
 * Asks a listing to go down every folder below those asked that is no symbolic link and that the ignore rules
 * (a `.skillignore`'s text; `relatives`: each folder's path from the workspace's root, `/`-separated) keep. A
 * tree of plain folders has no loop, so a skill folder with its scripts and references is one listing, not one
 * per level; a link to a folder is left to the caller, who knows what was visited.
 */
export interface FolderTrees {
  readonly ignore: string;
  readonly relatives: readonly string[];
}

/**
 * Lists each folder: every entry's name and kind, a symbolic link followed (a broken one, a pipe, a device:
 * {@link ENTRY_OTHER}); with `trees`, the folders below too. What a workspace's walk asks of the disk, done where
 * the caller runs (the reading thread lists Agent Skills' folders while the main thread parses their SKILL.md files).
 */
export function listFolderEntriesSync(folders: readonly string[], trees?: FolderTrees): FolderEntries {
  const counts: number[] = [];
  const names: string[] = [];
  const kinds: number[] = [];
  const reals: Record<number, string> = {};
  const within: number[] = [];
  const folderNames: string[] = [];
  const rules = trees && ignoreRulesOf(trees.ignore);
  // Each folder to list: its path, its path from the root, the listed folder it is in, its name there.
  const pending: [string, string, number, string][] = [];
  for (const [i, top] of folders.entries()) {
    pending.length = 0;
    pending.push([top, trees?.relatives[i] ?? "", -1, ""]);
    for (let next = 0; next < pending.length; next++) {
      const [folder, relative, holder, name] = pending[next] as [string, string, number, string];
      const record = counts.length;
      within.push(holder);
      folderNames.push(name);
      let entries: import("node:fs").Dirent[];
      try {
        entries = readdirSync(folder, { withFileTypes: true });
      } catch {
        counts.push(-1);
        continue;
      }
      counts.push(entries.length);
      const prefix = folder.endsWith(path.sep) ? folder : folder + path.sep;
      for (const entry of entries) {
        names.push(entry.name);
        if (entry.isFile()) kinds.push(ENTRY_FILE);
        else if (entry.isDirectory()) {
          kinds.push(ENTRY_DIRECTORY);
          if (rules) {
            const below = relative === "" ? entry.name : `${relative}/${entry.name}`;
            if (!rules.ignores(below, true)) pending.push([prefix + entry.name, below, record, entry.name]);
          }
        } else if (!entry.isSymbolicLink()) kinds.push(ENTRY_OTHER);
        else {
          try {
            const full = prefix + entry.name;
            const target = statSync(full);
            if (target.isFile()) kinds.push(ENTRY_FILE);
            else if (target.isDirectory()) {
              reals[kinds.length] = realpathSync(full);
              kinds.push(ENTRY_LINKED_DIRECTORY);
            } else kinds.push(ENTRY_OTHER);
          } catch {
            kinds.push(ENTRY_OTHER);
          }
        }
      }
    }
  }
  return { counts: Int32Array.from(counts), names, kinds: Uint8Array.from(kinds), reals, ...(trees ? { within: Int32Array.from(within), folderNames } : {}) };
}

/** The rules of the last ignore text asked for: one workspace's, asked of every listing. */
let lastRules: { readonly text: string; readonly rules: IgnoreRules } | undefined;

function ignoreRulesOf(text: string): IgnoreRules {
  if (lastRules?.text !== text) lastRules = { text, rules: new IgnoreRules(text) };
  return lastRules.rules;
}

/** What the reading thread is asked to list: folders joined by NUL, as the paths to read are. */
export interface ListRequest {
  readonly id: number;
  readonly list: string;
  /** Listed by chunks shared with the asking thread ({@link listNextSharedChunk}): the next chunk's first folder. */
  readonly next?: Int32Array;
  /** The folders of each such chunk ({@link sharedChunkSize}). */
  readonly chunk?: number;
  /** Listed with their trees ({@link FolderTrees}), each folder's path from the root joined by NUL. */
  readonly trees?: { readonly ignore: string; readonly relatives: string };
}

/** The trees of a request as the listing takes them. */
export function treesOf(request: ListRequest): FolderTrees | undefined {
  return request.trees && { ignore: request.trees.ignore, relatives: request.trees.relatives.split("\0") };
}

/** The trees of a listing as a request carries them. */
export function treesRequested(trees: FolderTrees | undefined): ListRequest["trees"] {
  return trees && { ignore: trees.ignore, relatives: trees.relatives.join("\0") };
}

/** What it answers: the folders' entries, or with `next` those of each chunk it took, by the chunk's first folder. */
export interface ListResponse {
  readonly id: number;
  readonly entries?: FolderEntries;
  readonly chunks?: SharedChunks;
}

/**
 * Folders listed per chunk when two threads share a listing of `count`: at most 64 (a third of a millisecond
 * for plain skill folders), and at least 64 chunks, so that the threads end together even when a few folders
 * hold most of the trees below them (a library's category folders).
 */
export function sharedChunkSize(count: number): number {
  return Math.min(64, Math.max(1, Math.ceil(count / 64)));
}

/** The chunks one thread listed of a shared listing: the entries of the chunk starting at each folder taken. */
export type SharedChunks = Map<number, FolderEntries>;

/**
 * Lists the next chunk of `folders` into `into`, taken by advancing `next`, which another thread shares and
 * advances the same way: the two end together, whichever was freer having taken more. False when none was left.
 */
export function listNextSharedChunk(folders: readonly string[], next: Int32Array, size: number, into: SharedChunks, trees?: FolderTrees): boolean {
  const start = Atomics.add(next, 0, size);
  if (start >= folders.length) return false;
  into.set(start, listChunkSync(folders, start, size, trees));
  return true;
}

/** The chunk of `size` folders of a shared listing that starts at `start`, listed on the calling thread. */
export function listChunkSync(folders: readonly string[], start: number, size: number, trees?: FolderTrees): FolderEntries {
  const end = start + size;
  return listFolderEntriesSync(folders.slice(start, end), trees && { ignore: trees.ignore, relatives: trees.relatives.slice(start, end) });
}
