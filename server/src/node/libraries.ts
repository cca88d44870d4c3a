import { realpathSync } from "node:fs";
import * as path from "node:path";
import { CONFIG_FILE_NAME } from "../core/index.js";
import { ENTRY_DIRECTORY, ENTRY_LINKED_DIRECTORY, listFolderEntriesSync } from "./folderEntries.js";
import { pathFromUri, readIgnoreRules } from "./workspaceFiles.js";

/**
 * A skill library: a folder whose `skills.json` (if any) applies to it and everything below it, except the
 * subtrees of deeper libraries. A folder below with a `skills.json` of its own starts a library of its own,
 * as a nested `package.json` starts a package.
 */
export interface SkillLibrary {
  readonly root: string;
  /** Roots of the libraries nested inside this one: their files are not this library's. */
  readonly nested: readonly string[];
}

/**
 * Every folder below `folder` (not `folder` itself) that holds a `skills.json`, sorted. The walk follows the
 * rules of workspace discovery: the ignore rules (`.skillignore` and the default folders) apply, and a link to
 * the folder itself or to any folder above it (`/` included) is a loop, not more library. It lists the folders
 * one after another on this thread (the command line's, which has nothing else to do meanwhile): a folder's
 * real path is its parent's and its name, asked of the disk only for a link. Awaiting each folder's real path
 * and listing took 2.3 s over the 17,450 folders of two public skill libraries.
 */
export async function nestedConfigFolders(folder: string): Promise<string[]> {
  const found: string[] = [];
  const visited = new Set<string>();
  const top = path.resolve(folder);
  const realTop = realPathOf(top) ?? top;
  const rules = await readIgnoreRules(top);
  const pending: { directory: string; real: string }[] = [{ directory: top, real: realTop }];
  while (pending.length > 0) {
    const next = pending.pop();
    if (!next) break;
    const { directory, real } = next;
    if (visited.has(real)) continue;
    if (real !== realTop && realTop.startsWith(real.endsWith(path.sep) ? real : real + path.sep)) continue;
    visited.add(real);
    // The listing the workspace's walk makes: each entry's kind with a link followed, and a linked folder's real path.
    const { counts, names, kinds, reals } = listFolderEntriesSync([directory]);
    for (let i = 0; i < Math.max(0, counts[0] ?? -1); i++) {
      const name = names[i] ?? "";
      const kind = kinds[i];
      if (kind === ENTRY_DIRECTORY || kind === ENTRY_LINKED_DIRECTORY) {
        // A plain file is only looked at by name: a folder of 100,000 skill files makes no path for each.
        const full = path.join(directory, name);
        if (!rules.ignores(path.relative(top, full).split(path.sep).join("/"), true)) pending.push({ directory: full, real: kind === ENTRY_DIRECTORY ? path.join(real, name) : (reals[i] ?? full) });
      } else if (name === CONFIG_FILE_NAME && directory !== top) found.push(directory);
    }
  }
  return found.sort();
}

function realPathOf(directory: string): string | undefined {
  try {
    return realpathSync(directory);
  } catch {
    return undefined;
  }
}

/** The library rooted at `folder` and every library nested below it, outermost first. */
export async function findLibraries(folder: string): Promise<SkillLibrary[]> {
  const root = path.resolve(folder);
  const roots = [root, ...(await nestedConfigFolders(root))];
  return roots.map((libraryRoot) => ({
    root: libraryRoot,
    nested: roots.filter((other) => other !== libraryRoot && isInside(other, libraryRoot)),
  }));
}

/** Whether a file (by URI) belongs to the library: inside its root and inside none of its nested libraries. */
export function belongsTo(library: SkillLibrary, uri: string): boolean {
  const file = pathFromUri(uri);
  return isInside(file, library.root) && !library.nested.some((nested) => isInside(file, nested));
}

function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}
