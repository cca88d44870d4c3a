import { promises as fs } from "node:fs";
import * as path from "node:path";
import { CONFIG_FILE_NAME } from "../core/index.js";
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
 * the folder itself or to any folder above it (`/` included) is a loop, not more library.
 */
export async function nestedConfigFolders(folder: string): Promise<string[]> {
  const found: string[] = [];
  const visited = new Set<string>();
  const top = path.resolve(folder);
  const realTop = await fs.realpath(top).catch(() => top);
  const rules = await readIgnoreRules(top);
  const pending = [top];
  while (pending.length > 0) {
    const directory = pending.pop() ?? top;
    const real = await fs.realpath(directory).catch(() => undefined);
    if (real === undefined || visited.has(real)) continue;
    if (real !== realTop && realTop.startsWith(real.endsWith(path.sep) ? real : real + path.sep)) continue;
    visited.add(real);
    const entries = await fs.readdir(directory, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      // A plain file is only looked at by name: a folder of 100,000 skill files makes no path for each.
      if (entry.isDirectory() || entry.isSymbolicLink()) {
        const full = path.join(directory, entry.name);
        const isDirectory = entry.isDirectory() || (await fs.stat(full).catch(() => undefined))?.isDirectory() === true;
        if (isDirectory) {
          if (!rules.ignores(path.relative(top, full).split(path.sep).join("/"), true)) pending.push(full);
          continue;
        }
      }
      if (entry.name === CONFIG_FILE_NAME && directory !== top) found.push(directory);
    }
  }
  return found.sort();
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
