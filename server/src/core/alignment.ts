import type { Alignment } from "./config.js";
import type { Namespace } from "./namespace.js";
import type { SkillFile } from "./skillFile.js";
import { groupedDigits } from "../../../shared/words.js";
import { trimmedLength } from "./text.js";
import { PROMPT_BLURBS, type ToolSpec } from "./tools.js";

/** The base instructions a workspace gets until it writes its own (`alignment.instructions` in skills.json). */
export const DEFAULT_INSTRUCTIONS = [
  "You are a personal assistant that runs on the user's own device.",
  "Answer briefly and plainly. When a request needs information or an action, use the skills and tools you are given, in the order their steps say.",
  "Never invent facts about the user: when you cannot find something, say so.",
].join("\n");

/** One entry of the planner's menu: a skill or an advertised tool, with the exact text it adds to the prompt. */
export interface MenuEntry {
  readonly kind: "skill" | "tool";
  readonly handle: string;
  readonly text: string;
  /** Offset of the entry in the composed prompt. */
  readonly start: number;
  readonly end: number;
}

/** The planner's whole system prompt, as one document, with what it is made of. */
export interface SystemPrompt {
  readonly text: string;
  readonly instructions: string;
  readonly customInstructions: boolean;
  readonly blurbs: readonly string[];
  readonly menuSkills: readonly SkillFile[];
  readonly menuTools: readonly ToolSpec[];
  readonly entries: readonly MenuEntry[];
  /** Planning is on exactly when the menu holds at least one skill. */
  readonly planning: boolean;
}

/**
 * The alignment in force: the first `skills.json` (in URI order) that sets each part wins; with none, the
 * default instructions, no blurbs, and every advertised, enabled skill on the menu.
 */
export function effectiveAlignment(namespace: Namespace): Alignment {
  let instructions: string | undefined;
  let blurbs: readonly string[] | undefined;
  let menu: readonly string[] | undefined;
  for (const config of namespace.configs()) {
    instructions ??= config.alignment.instructions;
    if (blurbs === undefined && config.alignment.blurbs.length > 0) blurbs = config.alignment.blurbs;
    menu ??= config.alignment.menu;
  }
  return { instructions, blurbs: blurbs ?? [], menu };
}

/** The advertised, enabled skills the user selected (all of them by default), in menu order. */
export function menuSkills(namespace: Namespace, alignment: Alignment = effectiveAlignment(namespace)): SkillFile[] {
  const onMenu = (skill: SkillFile | undefined): skill is SkillFile =>
    skill !== undefined && offersItself(skill) && namespace.resolve(skill.slug)?.kind === "skill";
  if (alignment.menu) {
    const seen = new Set<string>();
    const chosen: SkillFile[] = [];
    for (const slug of alignment.menu) {
      const skill = namespace.claimants(slug)[0];
      if (!seen.has(slug) && onMenu(skill)) chosen.push(skill);
      seen.add(slug);
    }
    return chosen;
  }
  const all = advertisedSkills(namespace);
  // Valid handles are [a-z0-9-]: code-unit order is the locale's order for them, and ten times cheaper.
  return all.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
}

/** A skill that asks for a place on the menu: a valid handle, enabled, advertised (it must also hold its handle). */
function offersItself(skill: SkillFile): boolean {
  return skill.validHandle && skill.enabled && skill.advertised;
}

/** Every advertised, enabled skill that holds its handle, in no particular order. */
function advertisedSkills(namespace: Namespace): SkillFile[] {
  // onMenu(skill) && claimants(slug)[0] === skill, resolving once: resolve's skill is that first claimant.
  const advertised: SkillFile[] = [];
  for (const skill of namespace.skills()) if (offersItself(skill) && namespace.resolvesTo(skill)) advertised.push(skill);
  return advertised;
}

function entryLine(handle: string, text: string): string {
  const [first = "", ...rest] = text.trim().split(/\r?\n/).map((line) => line.trim());
  return [`- @${handle}: ${first}`, ...rest.map((line) => `  ${line}`)].join("\n");
}

/**
 * Composes the planner's system prompt (SPEC "The planner"): base instructions, then the enabled tool blurbs,
 * then the menu in the seed's form: `Your skills:` with `- @handle: summary` lines, then `Your tools:` with the
 * advertised tools. With no skill on the menu there is no menu: the request takes the direct path.
 */
export function composeSystemPrompt(namespace: Namespace): SystemPrompt {
  const alignment = effectiveAlignment(namespace);
  const instructions = (alignment.instructions ?? DEFAULT_INSTRUCTIONS).trim();
  const blurbs = PROMPT_BLURBS.filter((blurb) => alignment.blurbs.includes(blurb.id)).map((blurb) => blurb.text);
  const skills = menuSkills(namespace, alignment);
  const tools = skills.length > 0 ? namespace.tools().filter((tool) => tool.advertiseInMenu) : [];
  let text = instructions;
  for (const blurb of blurbs) text += `\n\n${blurb}`;
  const entries: MenuEntry[] = [];
  const add = (kind: MenuEntry["kind"], handle: string, summary: string) => {
    // The entry's own text, not a slice of the prompt: slicing the growing prompt flattens it every time (quadratic).
    const line = entryLine(handle, summary);
    text += "\n";
    const start = text.length;
    text += line;
    entries.push({ kind, handle, text: line, start, end: text.length });
  };
  if (skills.length > 0) {
    text += SKILLS_HEADING;
    for (const skill of skills) add("skill", skill.slug, menuText(skill));
    if (tools.length > 0) {
      text += TOOLS_HEADING;
      for (const tool of tools) add("tool", tool.slug, tool.blurb);
    }
  }
  return {
    text: `${text}\n`,
    instructions,
    customInstructions: alignment.instructions !== undefined,
    blurbs,
    menuSkills: skills,
    menuTools: tools,
    entries,
    planning: skills.length > 0,
  };
}

const SKILLS_HEADING = "\n\nYour skills:";
const TOOLS_HEADING = "\n\nYour tools:";

function menuText(skill: SkillFile): string {
  return skill.summary !== undefined && trimmedLength(skill.summary) > 0 ? skill.summary : skill.title;
}

/** `entryLine(handle, text).length`, without writing the line when the text is one line, as nearly every summary is. */
function entryLength(handle: string, text: string): number {
  return text.includes("\n") ? entryLine(handle, text).length : "- @".length + handle.length + ": ".length + trimmedLength(text);
}

/**
 * How many skills the menu holds and the length of the prompt `composeSystemPrompt` would write, without writing
 * it: the status bar asks after every change to the menu. Without a chosen menu the skills' lines come from the
 * namespace's {@link MenuTally}, kept up to date skill by skill: a pass over every skill took 80 ms at 100,000
 * skills, after every edit of a summary.
 */
export function menuSize(namespace: Namespace): { readonly skills: number; readonly characters: number } {
  const alignment = effectiveAlignment(namespace);
  let characters = (alignment.instructions ?? DEFAULT_INSTRUCTIONS).trim().length;
  for (const blurb of PROMPT_BLURBS) if (alignment.blurbs.includes(blurb.id)) characters += 2 + blurb.text.length;
  let lines: { readonly skills: number; readonly characters: number };
  if (alignment.menu) {
    const skills = menuSkills(namespace, alignment);
    lines = { skills: skills.length, characters: skills.reduce((sum, skill) => sum + menuLineLength(skill), 0) };
  } else {
    lines = namespace.menuLines();
  }
  if (lines.skills > 0) {
    characters += SKILLS_HEADING.length + lines.characters;
    const tools = namespace.tools().filter((tool) => tool.advertiseInMenu);
    if (tools.length > 0) characters += TOOLS_HEADING.length + tools.reduce((sum, tool) => sum + 1 + entryLength(tool.slug, tool.blurb), 0);
  }
  return { skills: lines.skills, characters: characters + 1 };
}

/** The characters a skill's line adds to the menu, its line break included. */
function menuLineLength(skill: SkillFile): number {
  return 1 + entryLength(skill.slug, menuText(skill));
}

/**
 * The characters a handle's line adds to the menu when no menu is chosen: that of the skill it resolves to, if
 * that skill is on the menu (a valid handle, enabled, advertised), as {@link advertisedSkills} picks them.
 */
export function advertisedLineLength(namespace: Namespace, slug: string): number | undefined {
  const resolution = namespace.resolve(slug);
  if (resolution?.kind !== "skill") return undefined;
  const skill = resolution.skill;
  return offersItself(skill) ? menuLineLength(skill) : undefined;
}

/**
 * The advertised skills' menu lines, counted and summed: by one pass over every skill at the first count, then
 * kept up to date around each change. A change touches the lines of the handles it names (a skill's, each
 * resolved to its first claimant): their lines are taken out before the change and put back after it. A
 * change of tools starts the count over.
 */
export class MenuTally {
  readonly #lineOf: (slug: string) => number | undefined;
  #counted = false;
  #skills = 0;
  #characters = 0;
  /** The first count, part done ({@link countSlice}); any change starts it over. */
  #partial: { readonly skills: Iterator<SkillFile>; lines: number; characters: number } | undefined;

  constructor(lineOf: (slug: string) => number | undefined) {
    this.#lineOf = lineOf;
  }

  /** Before a change: the lines of the handles it touches come out (nothing until the first count). */
  before(first: string | undefined, second?: string): void {
    this.#add(first, second, -1);
  }

  /** After it: their lines as they are now go back in. */
  after(first: string | undefined, second?: string): void {
    this.#add(first, second, 1);
  }

  /** Counts over again at the next {@link totals}. */
  reset(): void {
    this.#counted = false;
    this.#partial = undefined;
  }

  /**
   * Up to `steps` skills of the first count (the pass `totals` makes at once), `skills` giving every skill and
   * `lineOf` its line's length on the menu, or undefined: true once counted. A caller that must not wait a whole
   * pass counts a slice at a time.
   */
  countSlice(skills: () => Iterator<SkillFile>, lineOf: (skill: SkillFile) => number | undefined, steps: number): boolean {
    if (this.#counted) return true;
    const partial = (this.#partial ??= { skills: skills(), lines: 0, characters: 0 });
    for (let step = 0; step < steps; step++) {
      const next = partial.skills.next();
      if (next.done === true) {
        this.#skills = partial.lines;
        this.#characters = partial.characters;
        this.#counted = true;
        this.#partial = undefined;
        return true;
      }
      const line = lineOf(next.value);
      if (line === undefined) continue;
      partial.lines++;
      partial.characters += line;
    }
    return false;
  }

  /** The lines on the menu and their characters; `count` is the pass that starts the tally. */
  totals(count: () => { readonly skills: number; readonly characters: number }): { readonly skills: number; readonly characters: number } {
    if (!this.#counted) {
      ({ skills: this.#skills, characters: this.#characters } = count());
      this.#counted = true;
    }
    return { skills: this.#skills, characters: this.#characters };
  }

  #add(first: string | undefined, second: string | undefined, sign: 1 | -1): void {
    // A change in the middle of the first count may touch a line counted already.
    this.#partial = undefined;
    if (!this.#counted) return;
    for (const slug of second === first ? [first] : [first, second]) {
      const line = slug === undefined ? undefined : this.#lineOf(slug);
      if (line === undefined) continue;
      this.#skills += sign;
      this.#characters += sign * line;
    }
  }
}

/** Every advertised skill's menu line, counted and summed: the pass that starts a {@link MenuTally}. */
export function countAdvertisedLines(namespace: Namespace): { readonly skills: number; readonly characters: number } {
  let characters = 0;
  const skills = advertisedSkills(namespace);
  for (const skill of skills) characters += menuLineLength(skill);
  return { skills: skills.length, characters };
}

/** A skill's menu line's length if it is on the menu as {@link advertisedSkills} picks them, else undefined. */
export function advertisedLineOf(namespace: Namespace, skill: SkillFile): number | undefined {
  return offersItself(skill) && namespace.resolvesTo(skill) ? menuLineLength(skill) : undefined;
}

/** A size in tokens: exact when a tokenizer is given, otherwise `~` and characters / 4. */
export function tokenSize(text: string, countTokens?: (text: string) => number): { readonly tokens: number; readonly exact: boolean; readonly label: string } {
  if (countTokens) {
    const tokens = countTokens(text);
    return { tokens, exact: true, label: `${groupedDigits(tokens)} tokens` };
  }
  return approximateTokenSize(text.length);
}

/** The size in tokens of a text of this many characters, without a tokenizer: `~` and characters / 4. */
export function approximateTokenSize(characters: number): { readonly tokens: number; readonly exact: false; readonly label: string } {
  const tokens = Math.ceil(characters / 4);
  return { tokens, exact: false, label: `~${groupedDigits(tokens)} tokens` };
}

/**
 * Tokens the plan pass needs beside the menu: the planning directive (about 110 tokens), the chat template, the
 * request, and the plan's JSON (at most 512 tokens).
 */
export const PLAN_ROOM_TOKENS = 768;

/**
 * No text measured (docs/planner.md) has more than 4.41 characters per token on the catalogue's tokenizers, so
 * characters / 6 is a floor: a menu whose floor is over the budget cannot fit, whatever the model.
 */
const FLOOR_CHARACTERS_PER_TOKEN = 6;

/** Whether the menu fits a context, with the figures that say so. */
export interface MenuFit {
  readonly fits: boolean;
  /** The whole system prompt's tokens, exact or estimated. */
  readonly tokens: number;
  readonly exact: boolean;
  /** The instructions, blurbs and headings: the prompt without its entries. */
  readonly baseTokens: number;
  readonly contextSize: number;
  /** What the menu may take: the context less {@link PLAN_ROOM_TOKENS}. */
  readonly budget: number;
  readonly entries: number;
  /** How many entries, in menu order, fit the budget after the base. */
  readonly entriesThatFit: number;
  /** The one sentence every surface shows when the menu does not fit; undefined when it fits. */
  readonly sentence: string | undefined;
}

/**
 * Whether the menu of `prompt` fits a context of `contextSize` tokens with room for the plan pass, counted with
 * the model's tokenizer when one is given, else estimated (characters / 4). `entryTokens`, the entries' exact
 * counts when the caller already has them, saves counting them again.
 */
export function menuFit(prompt: SystemPrompt, contextSize: number, countTokens?: (text: string) => number, entryTokens?: readonly number[]): MenuFit {
  const total = tokenSize(prompt.text, countTokens).tokens;
  // The base is the prompt without its entry lines; each entry costs its own tokens and its line break.
  let base = "";
  let from = 0;
  for (const entry of prompt.entries) {
    base += prompt.text.slice(from, entry.start - 1);
    from = entry.end;
  }
  base += prompt.text.slice(from);
  const baseTokens = Math.min(total, tokenSize(base, countTokens).tokens);
  const costs = countTokens
    ? prompt.entries.map((entry, index) => (entryTokens?.[index] ?? countTokens(entry.text)) + 1)
    : prompt.entries.map((entry) => (entry.text.length + 1) / 4);
  const budget = Math.max(0, contextSize - PLAN_ROOM_TOKENS);
  let used = baseTokens;
  let entriesThatFit = 0;
  for (const cost of costs) {
    if (used + cost > budget) break;
    used += cost;
    entriesThatFit++;
  }
  const fits = !prompt.planning || total <= budget;
  const figures = { fits, tokens: total, exact: countTokens !== undefined, baseTokens, contextSize, budget, entries: costs.length, entriesThatFit };
  return { ...figures, sentence: fits ? undefined : menuFitSentence(figures) };
}

/**
 * True when the menu certainly does not fit, judged on its length alone: the check a planner makes before it
 * loads a model to count exactly.
 */
export function menuCannotFit(prompt: SystemPrompt, contextSize: number): boolean {
  return prompt.planning && Math.floor(prompt.text.length / FLOOR_CHARACTERS_PER_TOKEN) > Math.max(0, contextSize - PLAN_ROOM_TOKENS);
}

/** The sentence for a menu that does not fit: written once, shown by the Alignment document, `menu` and Run Plan. */
export function menuFitSentence(fit: Omit<MenuFit, "sentence">): string {
  const about = fit.exact ? "" : "~";
  const unit = fit.exact ? "tokens" : "tokens, estimated at 4 characters a token";
  return (
    `The menu does not fit the model's context: the system prompt is ${about}${groupedDigits(fit.tokens)} ${unit} ` +
    `(${about}${groupedDigits(fit.baseTokens)} of instructions and headings, ${about}${groupedDigits(fit.tokens - fit.baseTokens)} for ${groupedDigits(fit.entries)} entries), ` +
    `and a context of ${groupedDigits(fit.contextSize)} tokens leaves ${groupedDigits(fit.budget)} for it once ${groupedDigits(PLAN_ROOM_TOKENS)} are kept for the request and the plan; ` +
    `${fit.entriesThatFit === 0 ? "not even the first entry fits" : `only the first ${groupedDigits(fit.entriesThatFit)} of the ${groupedDigits(fit.entries)} entries fit`}. ` +
    `Put fewer skills on the menu (alignment.menu in skills.json), or raise the context size (skill.model.contextSize, or --context).`
  );
}
