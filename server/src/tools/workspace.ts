import { promises as fs } from "node:fs";
import * as path from "node:path";

/** Folders no tool looks into. */
const EXCLUDED_DIRECTORIES = new Set(["node_modules", ".git"]);

/** A walk stops after this many files, so a huge folder cannot stall a tool call. */
export const MAX_WALKED_FILES = 20_000;

/** One of the user's devices: a workspace folder. */
export interface Device {
  readonly id: string;
  readonly name: string;
  readonly folder: string;
}

/** The devices, one per workspace folder, with ids made from the folder names (`-2`, `-3` on a clash). */
export function devicesOf(folders: readonly string[]): Device[] {
  const taken = new Set<string>();
  return folders.map((folder) => {
    const name = path.basename(path.resolve(folder)) || folder;
    const base = name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || "device";
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
    taken.add(id);
    return { id, name, folder: path.resolve(folder) };
  });
}

/** A file found by a walk: its absolute path and its path relative to the walked folder, with `/`. */
export interface WalkedFile {
  readonly path: string;
  readonly relative: string;
}

/**
 * Lists the files below a folder, skipping `node_modules`, `.git` and symbolic links (so a walk never leaves
 * the folder), stopping at {@link MAX_WALKED_FILES} or when the signal aborts.
 */
export async function walkFiles(folder: string, signal?: AbortSignal): Promise<WalkedFile[]> {
  const root = path.resolve(folder);
  const found: WalkedFile[] = [];
  const pending = [root];
  while (pending.length > 0 && found.length < MAX_WALKED_FILES && !signal?.aborted) {
    const directory = pending.pop() ?? root;
    const entries = await fs.readdir(directory, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) {
        if (!EXCLUDED_DIRECTORIES.has(entry.name)) pending.push(full);
      } else if (entry.isFile()) {
        found.push({ path: full, relative: path.relative(root, full).split(path.sep).join("/") });
      }
    }
  }
  return found.sort((a, b) => a.relative.localeCompare(b.relative));
}

/** A glob (`**`, `*`, `?`, `{a,b}`) as a regular expression over `/`-separated relative paths. */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob.charAt(i);
    if (char === "*") {
      if (glob.charAt(i + 1) === "*") {
        const slash = glob.charAt(i + 2) === "/";
        source += slash ? "(?:.*/)?" : ".*";
        i += slash ? 2 : 1;
      } else {
        source += "[^/]*";
      }
    } else if (char === "?") {
      source += "[^/]";
    } else if (char === "{") {
      const close = glob.indexOf("}", i);
      if (close < 0) {
        source += "\\{";
        continue;
      }
      source += `(?:${glob.slice(i + 1, close).split(",").map(escapeRegExp).join("|")})`;
      i = close;
    } else {
      source += escapeRegExp(char);
    }
  }
  return new RegExp(`^${source}$`, "i");
}

/** Escapes text for use inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** True when `target` is `folder` or inside it, after resolving symbolic links on both (a missing target is resolved lexically). */
export async function isInside(folder: string, target: string): Promise<boolean> {
  const realFolder = await fs.realpath(folder).catch(() => path.resolve(folder));
  const realTarget = await fs.realpath(target).catch(() => path.resolve(target));
  const relative = path.relative(realFolder, realTarget);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/**
 * Finds a configured file: an absolute path as is; a relative one in each workspace folder in order, the first
 * that exists. Answers undefined when there is none.
 */
export async function locateFile(setting: string, folders: readonly string[]): Promise<string | undefined> {
  const candidates = path.isAbsolute(setting) ? [setting] : folders.map((folder) => path.join(folder, setting));
  for (const candidate of candidates) {
    const stat = await fs.stat(candidate).catch(() => undefined);
    if (stat?.isFile()) return candidate;
  }
  return undefined;
}

/** Files past this size are read only up to it: a tool answers in a moment, not after reading a gigabyte. */
export const MAX_READ_BYTES = 8 * 1024 * 1024;

/** Reads a text file, at most {@link MAX_READ_BYTES}. */
export async function readText(file: string): Promise<string> {
  const handle = await fs.open(file, "r");
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(Math.min(size, MAX_READ_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

const STOP_WORDS = new Set(
  "a an and are as at be by can could did do does for from has have how i in is it its me my of on or our please show tell that the their them there these this to was we what when where which who whom why will with you your find look search".split(
    " ",
  ),
);

/** The words of a query that carry meaning: lower-cased, two characters or more, without stop words, a plural `s` dropped. */
export function queryWords(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const kept = words.filter((word) => word.length > 1 && !STOP_WORDS.has(word)).map((word) => (word.length > 3 && word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word));
  return [...new Set(kept)];
}

/** How many of the words occur in the text (case-insensitive, as parts of words too). */
export function matchCount(words: readonly string[], text: string): number {
  const haystack = text.toLowerCase();
  return words.reduce((count, word) => count + (haystack.includes(word) ? 1 : 0), 0);
}
