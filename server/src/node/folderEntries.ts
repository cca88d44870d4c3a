import { readdirSync, realpathSync, statSync } from "node:fs";
import * as path from "node:path";

/** What a directory entry is once a symbolic link is followed: the walk of a workspace needs no more. */
export const ENTRY_OTHER = 0;
export const ENTRY_FILE = 1;
export const ENTRY_DIRECTORY = 2;
/** A symbolic link to a directory: its real path comes with it (a link loop is visited once). */
export const ENTRY_LINKED_DIRECTORY = 3;

/**
 * The entries of several folders, flat, so that a listing crosses between threads as a few arrays rather than
 * an object per entry: folder `i` has `counts[i]` entries after those of the folders before it (-1: it could
 * not be read). `reals` holds, for each entry of kind {@link ENTRY_LINKED_DIRECTORY}, its real path.
 */
export interface FolderEntries {
  readonly counts: Int32Array;
  readonly names: string[];
  readonly kinds: Uint8Array;
  readonly reals: Record<number, string>;
}

/**
 * Lists each folder: every entry's name and kind, a symbolic link followed (a broken one, a pipe, a device:
 * {@link ENTRY_OTHER}). What a workspace's walk asks of the disk, done where the caller runs (the reading
 * thread lists Agent Skills' folders while the main thread parses their SKILL.md files).
 */
export function listFolderEntriesSync(folders: readonly string[]): FolderEntries {
  const counts = new Int32Array(folders.length).fill(-1);
  const names: string[] = [];
  const kinds: number[] = [];
  const reals: Record<number, string> = {};
  for (const [i, folder] of folders.entries()) {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    counts[i] = entries.length;
    const prefix = folder.endsWith(path.sep) ? folder : folder + path.sep;
    for (const entry of entries) {
      names.push(entry.name);
      if (entry.isFile()) kinds.push(ENTRY_FILE);
      else if (entry.isDirectory()) kinds.push(ENTRY_DIRECTORY);
      else if (!entry.isSymbolicLink()) kinds.push(ENTRY_OTHER);
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
  return { counts, names, kinds: Uint8Array.from(kinds), reals };
}

/** What the reading thread is asked to list: folders joined by NUL, as the paths to read are. */
export interface ListRequest {
  readonly id: number;
  readonly list: string;
  /** Listed by chunks shared with the asking thread ({@link listNextSharedChunk}): the next chunk's first folder. */
  readonly next?: Int32Array;
}

/** What it answers: the folders' entries, or with `next` those of each chunk it took, by the chunk's first folder. */
export interface ListResponse {
  readonly id: number;
  readonly entries?: FolderEntries;
  readonly chunks?: SharedChunks;
}

/** Folders listed per chunk when two threads share a listing: about a third of a millisecond each. */
export const SHARED_LIST_CHUNK = 64;

/** The chunks one thread listed of a shared listing: the entries of the chunk starting at each folder taken. */
export type SharedChunks = Map<number, FolderEntries>;

/**
 * Lists the next chunk of `folders` into `into`, taken by advancing `next`, which another thread shares and
 * advances the same way: the two end together, whichever was freer having taken more. False when none was left.
 */
export function listNextSharedChunk(folders: readonly string[], next: Int32Array, into: SharedChunks): boolean {
  const start = Atomics.add(next, 0, SHARED_LIST_CHUNK);
  if (start >= folders.length) return false;
  into.set(start, listFolderEntriesSync(folders.slice(start, start + SHARED_LIST_CHUNK)));
  return true;
}
