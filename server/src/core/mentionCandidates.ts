import type { SkillFile } from "./skillFile.js";

/** The letters bit of a digit (any) and of `-`: with a–z's 26 bits, every character a typed handle can hold. */
const DIGIT_BIT = 1 << 26;
const HYPHEN_BIT = 1 << 27;
/** Set for a skill completion may offer (a valid handle, enabled): a query asks for it, so the others fail the one test. */
const OFFERED_BIT = 1 << 30;

/**
 * One bit for each character of `text` that a typed handle can hold (a–z, any digit, `-`), case folded as the
 * completion's match folds it. Other characters set nothing. A text whose letters do not cover a query's cannot
 * hold the query in order.
 */
export function lettersOf(text: string): number {
  let bits = 0;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    // The match lower-cases a text that is not ASCII whole: so do its letters.
    if (code > 127) return asciiLettersOf(text.toLowerCase());
    if (code >= 65 && code <= 90) code += 32;
    bits |= letterBit(code);
  }
  return bits;
}

/** The letters of a lower-cased text's ASCII characters: only those can match what was typed. */
function asciiLettersOf(lowered: string): number {
  let bits = 0;
  for (let i = 0; i < lowered.length; i++) {
    const code = lowered.charCodeAt(i);
    if (code < 128) bits |= letterBit(code);
  }
  return bits;
}

function letterBit(code: number): number {
  if (code >= 97 && code <= 122) return 1 << (code - 97);
  if (code >= 48 && code <= 57) return DIGIT_BIT;
  return code === 45 ? HYPHEN_BIT : 0;
}

/** What a completion scans: `length` slots, each a skill's handle, title, letters and handle's first character. */
export interface CandidateSlots {
  readonly length: number;
  readonly slugs: readonly string[];
  readonly titles: readonly string[];
  readonly letters: Uint32Array;
  readonly firstChars: Uint8Array;
}

/** The letters a skill must hold for completion to offer it after `typed`: {@link lettersOf}, and offered. */
export function wantedLetters(typed: string): number {
  return lettersOf(typed) | OFFERED_BIT;
}

/**
 * The namespace's skills as completion scans them: a slot per skill file, in the namespace's order, with its
 * handle and title, and beside them, in typed arrays, its letters ({@link lettersOf} of handle and title, and
 * whether it may be offered at all) and its handle's first character. A typed `@qui` then tests 100,000
 * skills' letters in one pass over contiguous memory and reads the strings of the few that hold q, u and i;
 * the loop over the skills themselves read every skill's fields, scattered across the heap (70 ms at
 * 100,000 skills, in the core).
 *
 * Built at the first completion, or ahead of it a few skills at a time ({@link layOut}), then kept up to date
 * skill by skill. The slots follow the order of the namespace's map of skills: a changed skill keeps its slot,
 * a new one takes a slot at the end, a removed one leaves a slot that is never offered (the slots are laid out
 * again once those are half of them).
 */
export class MentionCandidates {
  #slotOf: Map<string, number> | undefined;
  /** The skills a layout under way has still to take, in the namespace's order. */
  #layingOut: Iterator<[string, SkillFile]> | undefined;
  #slugs: string[] = [];
  #titles: string[] = [];
  #letters = new Uint32Array(0);
  #firstChars = new Uint8Array(0);
  #length = 0;
  #removed = 0;

  /** A skill file added, changed or removed (`next` undefined); nothing until the first completion. */
  change(uri: string, next: SkillFile | undefined): void {
    if (!this.#slotOf) return;
    const slot = this.#slotOf.get(uri);
    if (next === undefined) {
      if (slot === undefined) return;
      this.#slotOf.delete(uri);
      this.#letters[slot] = 0;
      this.#slugs[slot] = "";
      this.#titles[slot] = "";
      this.#removed++;
    } else if (slot === undefined) {
      // A layout under way reaches it in the namespace's order (a map's iterator takes entries added after it started).
      if (this.#layingOut) return;
      this.#slotOf.set(uri, this.#append(next));
    } else {
      this.#write(slot, next);
    }
  }

  /**
   * The slots, laid out from `skills` (the namespace's, in its order) the first time and whenever half are
   * removed: of a layout under way as far as it has come (each as it will stay, the rest coming after them), or
   * all of them when none is. When the slots were never laid out, or must be again, a layout begins with none
   * laid out yet: the caller lays out ({@link layOut}) as much as it needs.
   */
  slotsSoFar(skills: () => Iterable<[string, SkillFile]>): CandidateSlots & { readonly complete: boolean } {
    this.layOut(skills, 0);
    return { length: this.#length, slugs: this.#slugs, titles: this.#titles, letters: this.#letters, firstChars: this.#firstChars, complete: this.#layingOut === undefined };
  }

  /**
   * Takes up to `steps` skills into a layout ({@link slotsSoFar}): true once none is left. A skill changed meanwhile
   * is written again if taken already, and taken as it is now if not.
   */
  layOut(skills: () => Iterable<[string, SkillFile]>, steps: number): boolean {
    if (this.#slotOf && !this.#layingOut && this.#removed * 2 <= this.#length) return true;
    if (!this.#slotOf || !this.#layingOut) {
      this.#slotOf = new Map();
      this.#length = 0;
      this.#removed = 0;
      this.#slugs = [];
      this.#titles = [];
      this.#layingOut = skills()[Symbol.iterator]();
    }
    const slotOf = this.#slotOf;
    for (let step = 0; step < steps; step++) {
      const next = this.#layingOut.next();
      if (next.done === true) {
        this.#layingOut = undefined;
        return true;
      }
      const [uri, skill] = next.value;
      slotOf.set(uri, this.#append(skill));
    }
    return false;
  }

  #append(skill: SkillFile): number {
    if (this.#length === this.#letters.length) {
      const capacity = Math.max(1024, this.#length * 2);
      const letters = new Uint32Array(capacity);
      letters.set(this.#letters.subarray(0, this.#length));
      this.#letters = letters;
      const firstChars = new Uint8Array(capacity);
      firstChars.set(this.#firstChars.subarray(0, this.#length));
      this.#firstChars = firstChars;
    }
    const slot = this.#length++;
    this.#write(slot, skill);
    return slot;
  }

  #write(slot: number, skill: SkillFile): void {
    this.#slugs[slot] = skill.slug;
    this.#titles[slot] = skill.title;
    this.#letters[slot] = lettersOf(skill.slug) | lettersOf(skill.title) | (skill.validHandle && skill.enabled ? OFFERED_BIT : 0);
    this.#firstChars[slot] = skill.slug.charCodeAt(0);
  }
}
