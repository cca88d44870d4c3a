import * as path from "node:path";
import { pathFromUri } from "./workspaceFiles.js";

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
 * The libraries of `roots` (the folders asked for) given `configFolders`, every folder below them with a
 * `skills.json` of its own (FolderListing.configFolders: found by the walk that lists their files, which
 * follows the ignore rules and never goes round a loop). `tops`: one library per root, in order; `nested`: one
 * per config folder, outermost first.
 */
export function librariesOf(roots: readonly string[], configFolders: readonly string[]): { tops: SkillLibrary[]; nested: SkillLibrary[] } {
  const nestedRoots = [...new Set(configFolders)].sort();
  const libraryAt = (root: string): SkillLibrary => ({ root, nested: nestedRoots.filter((other) => other !== root && isInside(other, root)) });
  return { tops: roots.map(libraryAt), nested: nestedRoots.map(libraryAt) };
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
