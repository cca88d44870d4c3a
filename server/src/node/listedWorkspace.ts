import { statSync } from "node:fs";
import * as path from "node:path";
import { CONFIG_FILE_NAME, NearNames, SKILL_SUFFIX, claimedByPath, claimingPart, commandNameOf, isConfigUri, slugKey, type ConfigMention, type Mention, type Namespace, type Reference, type SkillFile } from "../core/index.js";
import { AGENT_SKILL_FILE } from "../core/agentSkills/paths.js";
import { hasSkillSuffix, readWorkspaceFileSync, uriFromPath } from "./workspaceFiles.js";

/**
 * A workspace whose files are listed but not all read yet. Handles are file names, so the listing alone says
 * which skills exist; a diagnosis of one file depends only on the files that claim its own handle and the
 * handles it mentions, and on the `skills.json` files (the declared tools). Reading those few first gives an
 * open editor its exact diagnostics while the rest of the workspace is still being read. Of a file the open
 * editor mentions, only the claim counts (it exists, it is enabled): that file is parsed up to the end of its
 * frontmatter, a fraction of its text, and read whole with the rest of the workspace. An Agent Skill's claim is
 * its path's (see Namespace.holdByPath): it is not read ahead at all, unless a `skills.json` asks whether it is
 * advertised.
 */
export class ListedWorkspace {
  /** Listed skill files by the slug their name claims: one file, or the files when several claim it. */
  readonly #claimants = new Map<string, string | string[]>();
  readonly #configs: string[] = [];
  /** Listed command files (`.claude/commands/deploy.md` is `/deploy`) by the command's name: a `/name` that no skill claims may be one. */
  readonly #commands = new Map<string, string[]>();
  /** URIs read whole ahead of the rest. */
  readonly #read = new Set<string>();
  /** URIs whose claiming part alone was read ahead: the whole read takes them in full. */
  readonly #claimsRead = new Set<string>();
  /** Skills held by their path alone (URIs in {@link #claimsRead} too), as held: read when a claim needs the file. */
  readonly #heldByPath = new Map<string, SkillFile>();
  /** The URI of each listed file asked for so far. */
  readonly #uris = new Map<string, string>();
  readonly #claimedHandle: (file: string) => string | undefined;
  /** Every listed handle, for the near misses of a name no file claims; made when first asked. */
  #nearNames: NearNames | undefined;

  /**
   * `files` as the listing found them (skill files and `skills.json`); `claimedHandle` says which handle a
   * skill file's path claims (each file format has its rule: by default a `.skill.md` file's name or an Agent Skill's folder).
   */
  constructor(files: readonly string[], claimedHandle: (file: string) => string | undefined = skillFileHandle) {
    this.#claimedHandle = claimedHandle;
    this.add(files);
  }

  /**
   * Takes in more listed files: what listing the skill folders found besides their SKILL.md. The files read
   * ahead so far stay read: the same workspace serves the open editors before and after. `claimed` is given
   * the slugs that gained a claimant.
   */
  add(files: readonly string[], claimed?: Set<string>): this {
    const configName = path.sep + CONFIG_FILE_NAME;
    for (const file of files) {
      if (file.endsWith(configName)) {
        this.#configs.push(file);
        continue;
      }
      const handle = this.#claimedHandle(file);
      if (handle === undefined) {
        this.#takeCommand(file);
        continue;
      }
      const slug = slugKey(handle);
      claimed?.add(slug);
      this.#nearNames?.add(slug);
      const claimants = this.#claimants.get(slug);
      if (claimants === undefined) this.#claimants.set(slug, file);
      else if (typeof claimants === "string") this.#claimants.set(slug, [claimants, file]);
      else claimants.push(file);
    }
    return this;
  }

  /**
   * True when every name the diagnostics of `uri` depend on (its own handle, each slug it mentions, a link's
   * skill) is held already, read ahead from the files this listing names: listing more files can then add a
   * claimant to a name (a duplicate), never take one away, so no reference is reported falsely as unknown.
   */
  knowsEveryName(namespace: Namespace, uri: string): boolean {
    for (const mention of mentionsOf(namespace, uri)) {
      if (namespace.claimants(mention.slug).length === 0 && namespace.tool(mention.slug) === undefined) return false;
      const target = (mention as Reference).target;
      if (target !== undefined && !namespace.has(target)) return false;
    }
    return true;
  }

  /** True for a file read whole ahead: the whole read skips it (not one read for its claim alone). */
  wasRead(uri: string): boolean {
    return this.#read.has(uri);
  }

  /** Reads the `skills.json` files: every diagnosis may depend on the tools they declare. */
  readConfigs(namespace: Namespace, skip: (uri: string) => boolean): void {
    for (const file of this.#configs) this.#readInto(namespace, file, skip, false);
  }

  /**
   * Reads into the namespace every listed file that the diagnostics of `uri` (a file the namespace holds)
   * depend on and that it does not hold yet: the claimants of the file's handle and of each slug it mentions,
   * and for a slug nobody claims, the command file of that name and the claimants of the names near it (its
   * "did you mean"), each up to the end of its frontmatter. `skip` names files not to take from the disk (open
   * in an editor).
   */
  readFor(namespace: Namespace, uri: string, skip: (uri: string) => boolean): void {
    // Only a `skills.json` asks whether a skill is advertised, which an Agent Skill's path does not tell.
    const byPath = !isConfigUri(uri);
    for (const slug of namesOf(namespace, uri)) {
      if (this.#claimants.has(slug)) {
        this.#readClaimants(namespace, slug, skip, byPath);
        continue;
      }
      // A name no file claims may be a user's command (then no reference), or a slip for a skill reported with it.
      for (const file of this.#commands.get(slug) ?? []) this.#readInto(namespace, file, skip, true);
      for (const near of this.#listedNearNames().candidates(slug)) this.#readClaimants(namespace, near, skip, byPath);
    }
  }

  /** How many names `uri`'s diagnostics depend on have listed claimants the namespace does not hold yet: what {@link readFor} would read. */
  unreadNames(namespace: Namespace, uri: string): number {
    let unread = 0;
    for (const slug of namesOf(namespace, uri)) if (this.#claimants.has(slug) && namespace.claimants(slug).length === 0) unread++;
    return unread;
  }

  #takeCommand(file: string): void {
    // Nearly every file is in no such folder: the path is looked at before a URI is made of it.
    if (!file.includes(`${path.sep}commands${path.sep}`) && !file.includes(`${path.sep}prompts${path.sep}`)) return;
    const command = commandNameOf(uriFromPath(file));
    if (command === undefined) return;
    const files = this.#commands.get(command);
    if (files) files.push(file);
    else this.#commands.set(command, [file]);
  }

  #readClaimants(namespace: Namespace, slug: string, skip: (uri: string) => boolean, byPath: boolean): void {
    const claimants = this.#claimants.get(slug);
    if (typeof claimants === "string") this.#readInto(namespace, claimants, skip, true, byPath);
    else for (const file of claimants ?? []) this.#readInto(namespace, file, skip, true, byPath);
  }

  #listedNearNames(): NearNames {
    if (this.#nearNames === undefined) {
      this.#nearNames = new NearNames();
      for (const slug of this.#claimants.keys()) this.#nearNames.add(slug);
    }
    return this.#nearNames;
  }

  /**
   * `claimOnly`: the namespace is given the file's claiming part ({@link claimingPart}), not its whole text;
   * `byPath` too: a skill whose path tells its claim is held by it, unread (at 10,000 Agent Skills, an open
   * editor that names 2,000 of them waited 170-290 ms for their frontmatter, read and parsed on this thread).
   */
  #readInto(namespace: Namespace, file: string, skip: (uri: string) => boolean, claimOnly: boolean, byPath = false): void {
    // The skills most files mention are asked for by every open editor: their URI is made once.
    let uri = this.#uris.get(file);
    if (uri === undefined) {
      uri = uriFromPath(file);
      this.#uris.set(file, uri);
    }
    if (this.#read.has(uri) || skip(uri)) return;
    const held = this.#heldByPath.get(uri);
    // Held by its path and still as held, when a claim needs the file: read now.
    const readHeld = held !== undefined && !byPath && namespace.skill(uri) === held;
    if (!readHeld && (this.#claimsRead.has(uri) || namespace.has(uri))) return;
    if (claimOnly && byPath && claimedByPath(uri)) {
      // Only a file claims (a named pipe, a folder or nothing at that path does not), as when read.
      if (!isFile(file)) {
        this.#read.add(uri);
        return;
      }
      const skill = namespace.holdByPath(uri);
      if (skill) {
        this.#claimsRead.add(uri);
        this.#heldByPath.set(uri, skill);
        return;
      }
    }
    this.#heldByPath.delete(uri);
    const text = readWorkspaceFileSync(file);
    if (text === undefined) {
      this.#read.add(uri);
      return;
    }
    const part = claimOnly ? claimingPart(text) : text;
    (part.length < text.length ? this.#claimsRead : this.#read).add(uri);
    namespace.set(uri, part);
  }
}

function isFile(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}

/** What a held file mentions: a skill's, an agent document's or a `skills.json` file's mentions. */
function mentionsOf(namespace: Namespace, uri: string): readonly (Mention | ConfigMention)[] {
  return namespace.skill(uri)?.mentions ?? namespace.document(uri)?.mentions ?? namespace.config(uri)?.mentions ?? [];
}

/** The slugs (as keys) a held file's diagnostics depend on: its own handle and the slugs it mentions. */
export function namesOf(namespace: Namespace, uri: string): Set<string> {
  const skill = namespace.skill(uri);
  const slugs = new Set<string>(skill ? [slugKey(skill.slug)] : []);
  for (const mention of mentionsOf(namespace, uri)) slugs.add(slugKey(mention.slug));
  return slugs;
}

/** The handle a skill's path claims: a `<handle>.skill.md` file's name without the suffix, an Agent Skill's folder name. */
export function skillFileHandle(file: string): string | undefined {
  const start = file.lastIndexOf(path.sep) + 1;
  // Nearly every listed file: its handle cut from the path at once, without the name or a lower-cased copy.
  if (file.endsWith(SKILL_SUFFIX) && file.length - SKILL_SUFFIX.length > start) return file.slice(start, -SKILL_SUFFIX.length);
  const name = file.slice(start);
  if (hasSkillSuffix(name)) return name.slice(0, -SKILL_SUFFIX.length);
  // An Agent Skill (`skills/<name>/SKILL.md`) claims its folder's name. Read from the path: a listed path is
  // absolute and plain already, so its folders' names are the URI's segments, decoded. Found by the last two
  // separators rather than a split: at start-up every one of 10,000 skill folders' paths is asked twice.
  if (name !== AGENT_SKILL_FILE) return undefined;
  const folderEnd = start - 1;
  const folderStart = file.lastIndexOf(path.sep, folderEnd - 1) + 1;
  if (folderStart === 0 || folderStart === folderEnd) return undefined;
  const parentEnd = folderStart - 1;
  const parentStart = file.lastIndexOf(path.sep, parentEnd - 1) + 1;
  return parentEnd - parentStart === AGENT_SKILLS_FOLDER.length && file.startsWith(AGENT_SKILLS_FOLDER, parentStart) ? file.slice(folderStart, folderEnd) : undefined;
}

const AGENT_SKILLS_FOLDER = "skills";
