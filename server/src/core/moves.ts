import type { Namespace } from "./namespace.js";
import { bodyFingerprint, skillBodyFingerprint, type SkillFile } from "./skillFile.js";

/** A skill file renamed outside the editor: `@oldSlug` vanished and the same body appeared as `@newSlug`. */
export interface SkillMove {
  readonly oldSlug: string;
  readonly newSlug: string;
  readonly oldUri: string;
  readonly newUri: string;
}

/** How many vanished and appeared files are remembered: a `git mv` of a folder of skills fits, a branch switch ages out. */
const REMEMBERED = 256;

interface Sighting {
  readonly uri: string;
  readonly slug: string;
  /** The body's fingerprint: the file's text may no longer be held, nor on disk once it vanished. */
  readonly body: number;
}

/** A body of white space alone. */
const EMPTY_BODY = bodyFingerprint("");

/**
 * Recognises skill files renamed where the language server is not told (a terminal, `git mv`, a client that
 * sends no `willRenameFiles`): a skill that vanished and a skill with the same body that appeared, in either
 * order. A move is offered while `@old` resolves to nothing, some file still mentions it, and the new file
 * still holds the new handle.
 */
export class MoveDetector {
  readonly #vanished: Sighting[] = [];
  readonly #appeared: Sighting[] = [];
  readonly #moves = new Map<string, SkillMove>();

  /** A skill file that was deleted (or moved away). */
  vanished(skill: SkillFile): void {
    const sighting = this.#sighting(skill);
    if (!sighting) return;
    const match = this.#take(this.#appeared, sighting);
    if (match) this.#record(sighting, match);
    else remember(this.#vanished, sighting);
  }

  /** A skill file that was created (or moved here), not one read when a folder was first indexed. */
  appeared(skill: SkillFile): void {
    const sighting = this.#sighting(skill);
    if (!sighting) return;
    const match = this.#take(this.#vanished, sighting);
    if (match) this.#record(match, sighting);
    else remember(this.#appeared, sighting);
  }

  /** The moves still worth offering, pruned of those the workspace no longer needs. */
  moves(namespace: Namespace): SkillMove[] {
    for (const [slug, move] of this.#moves) {
      const current = namespace.skill(move.newUri);
      const stillNeeded = namespace.resolve(move.oldSlug) === undefined && current?.slug === move.newSlug && namespace.resolve(move.newSlug)?.kind === "skill" && namespace.mentioners(move.oldSlug).length > 0;
      if (!stillNeeded) this.#moves.delete(slug);
    }
    return [...this.#moves.values()];
  }

  /** The move that explains a dangling `@slug`, if one is known. */
  moveOf(namespace: Namespace, slug: string): SkillMove | undefined {
    return this.moves(namespace).find((move) => move.oldSlug === slug);
  }

  #sighting(skill: SkillFile): Sighting | undefined {
    // Two files count as one moved when their bodies match, line endings and trailing blanks aside.
    const body = skillBodyFingerprint(skill);
    // An empty body (a fresh template) says nothing about where a file came from.
    return skill.validHandle && body !== EMPTY_BODY ? { uri: skill.uri, slug: skill.slug, body } : undefined;
  }

  /** The one remembered sighting with the same body and another handle; none when two or more match. */
  #take(list: Sighting[], sighting: Sighting): Sighting | undefined {
    const matches = list.filter((other) => other.body === sighting.body && other.slug !== sighting.slug);
    for (const other of list.filter((candidate) => candidate.uri === sighting.uri || matches.includes(candidate))) list.splice(list.indexOf(other), 1);
    return matches.length === 1 ? matches[0] : undefined;
  }

  #record(from: Sighting, to: Sighting): void {
    this.#moves.delete(to.slug);
    this.#moves.set(from.slug, { oldSlug: from.slug, newSlug: to.slug, oldUri: from.uri, newUri: to.uri });
  }
}

function remember(list: Sighting[], sighting: Sighting): void {
  const existing = list.findIndex((other) => other.uri === sighting.uri);
  if (existing >= 0) list.splice(existing, 1);
  list.push(sighting);
  if (list.length > REMEMBERED) list.shift();
}
