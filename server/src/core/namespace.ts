import { CONFIG_FILE_NAME, isConfigUri, parseConfigFile, type ConfigFile, type ConfigMention, type DeclaredTool } from "./config.js";
import { DiagnosticCodes, type CoreDiagnostic, type RelatedInformation } from "./diagnostics.js";
import { MenuCompetition, type PairFinder } from "./menuCompetition.js";
import { MentionCandidates, type CandidateSlots } from "./mentionCandidates.js";
import { MentionIndex } from "./mentionIndex.js";
import { NearNames } from "./nearNames.js";
import { advertisedLineLength, advertisedLineOf, countAdvertisedLines, MenuTally } from "./alignment.js";
import { handleProblem, makeSlug, slugKey } from "./slug.js";
import { stringsOf, withoutString, withString, type Strings } from "./strings.js";
import { everyMentionAsSlug, holdsText, mentionSlugs, mentionsWithSlug, nearest, releaseText, type Mention, type ReleasedParts, type SkillFile, type TextLoader } from "./skillFile.js";
import { isSkillText, parseSkill, skillFromParts, skillFromPath } from "./skillFormats.js";
import { documentFromPosted, parseAgentDocument, releasedDocument, type AgentDocument, type PostedDocument } from "./agentSkills/document.js";
import { AGENT_SKILL_FILE, relativeLink } from "./agentSkills/paths.js";
import { isBuiltinCommand } from "./agentSkills/commands.js";
import { sigilOf, type Reference } from "./agentSkills/references.js";
import type { Range } from "./text.js";
import { BUILTIN_TOOLS, type ToolSpec } from "./tools.js";

/** What a slug names: a skill, a tool, or (undefined) nothing. */
export type Resolution =
  | { readonly kind: "skill"; readonly skill: SkillFile }
  | { readonly kind: "tool"; readonly tool: ToolSpec };

/** The result of expanding a plan's handles into the toolset to bind. */
export interface Expansion {
  /** The tools to bind, deduplicated in first-appearance order. */
  readonly tools: readonly ToolSpec[];
  /** The enabled skills whose bodies were followed, in first-appearance order. */
  readonly skills: readonly SkillFile[];
  /** Handles that resolve to nothing. They can never be bound. */
  readonly unresolved: readonly string[];
  /** Handles of disabled skills: inert, not expanded. */
  readonly disabled: readonly string[];
}

/** One text edit on a file, by range in the text the namespace holds for it. */
export interface TextEdit {
  readonly range: Range;
  readonly newText: string;
}

/** Everything a rename of a skill changes: its file's name, and every `@old` in every file. */
export interface RenamePlan {
  readonly oldSlug: string;
  readonly newSlug: string;
  readonly skill: SkillFile;
  readonly fileRename: { readonly oldUri: string; readonly newUri: string };
  /** Edits by URI (the renamed skill's own file under its old URI), in the texts the namespace holds. */
  readonly edits: ReadonlyMap<string, readonly TextEdit[]>;
}

/** A refused operation, with a message that says why in words a person can act on. */
export interface Refusal {
  readonly refused: string;
}

export function isRefusal(value: unknown): value is Refusal {
  return typeof value === "object" && value !== null && "refused" in value;
}

interface Claim {
  readonly exists: boolean;
  readonly slug: string;
  readonly enabled: boolean;
  readonly advertised: boolean;
}

/** Mentions sealed into the index of who mentions what per skill of {@link Namespace.indexMentions}'s count. */
const SEAL_MENTIONS_PER_SKILL = 256;

/** Up to this many mentions, a file's repeated slugs are found by comparing each with those before it. */
const FEW_MENTIONS = 32;

/** The diagnostics of a file without problems, shared: most files have none. */
const NO_DIAGNOSTICS: readonly CoreDiagnostic[] = Object.freeze([]);

const BUILTIN_BY_SLUG: ReadonlyMap<string, ToolSpec> = new Map(BUILTIN_TOOLS.map((tool) => [tool.slug, tool]));

/**
 * Which skills keep their text: those an editor has open. The others give it up once parsed and read it back
 * through `load` when a rare request needs it. Without this every skill keeps its text.
 */
export interface TextHolding {
  readonly isOpen: (uri: string) => boolean;
  readonly load: TextLoader;
}

/**
 * The workspace's symbol table: every skill file and `skills.json`, the built-in tools, and the indexes that
 * make resolution, diagnostics and rename cheap. Updates are incremental: each change answers the set of URIs
 * whose diagnostics may have changed, and only those are recomputed.
 */
export class Namespace {
  readonly #skills = new Map<string, SkillFile>();
  readonly #holding: TextHolding | undefined;
  readonly #configs = new Map<string, ConfigFile>();
  /** CLAUDE.md, AGENTS.md and the agents' folders' Markdown: references, no claim. */
  readonly #documents = new Map<string, AgentDocument>();
  /** The user's command files by command name (`.claude/commands/deploy.md` → deploy): commands, not skills. */
  readonly #commands = new UriIndex();
  /** Skills with a valid handle, by slug: more than one is a duplicate. */
  readonly #claimants = new UriIndex();
  /**
   * The handles one enabled skill claims alone: what nearly every mention names. Diagnosing 50,000 skills asks
   * it of each mention, one look-up where the claimants and then the claimant's skill took two (a third of the
   * diagnosis).
   */
  readonly #enabledSoleClaims = new Set<string>();
  /**
   * The skills whose handle is invalid, by lower-cased handle: with the claimants, who would clash with a new
   * file name on a case-insensitive disk (an index of every skill again held 1.8 MB at 50,000 skills).
   */
  readonly #invalidHandles = new UriIndex();
  readonly #declaredTools = new Map<string, DeclaredTool[]>();
  /** Files (skills and configs) that mention a slug. */
  readonly #mentioners = new MentionIndex();
  /**
   * Skills taken by {@link load} whose mentions are not in {@link #mentioners} yet: no diagnosis needs them, so the
   * first index leaves them to {@link indexMentions} (or to the first question that reads the index).
   */
  readonly #mentionsToIndex = new Set<string>();
  /** Where {@link indexMentions} goes on in {@link #mentionsToIndex}. */
  #mentionsPending: Iterator<string> | undefined;
  readonly #diagnostics = new Map<string, readonly CoreDiagnostic[]>();
  /** Summaries too alike on the menu (`menu-similar`): indexed on first use, then kept up to date. */
  readonly #competition = new MenuCompetition(
    () => this.#skills.values(),
    (uri) => this.#skills.get(uri),
  );
  /** The skills as completion scans them: laid out at the first completion, then kept up to date. */
  readonly #candidates = new MentionCandidates();
  /** The menu's lines without a chosen menu, for its size: counted at the first ask, then kept up to date. */
  readonly #menuTally = new MenuTally((slug) => advertisedLineLength(this, slug));
  #generation = 0;
  #menuGeneration = 0;
  #nearCandidates:
    | {
        readonly generation: number;
        readonly names: NearNames;
        /** Each name's answer: a real library's 9,882 unknown references name 2,127 names (`/tmp` 123 times). */
        readonly answers: Map<string, readonly string[]>;
      }
    | undefined;

  constructor(holding?: TextHolding) {
    this.#holding = holding;
  }

  /** Grows on every change: a cheap way for callers to know their cached views are stale. */
  get generation(): number {
    return this.#generation;
  }

  /**
   * Grows on every change that can change the planner's menu or the counts beside it: a file added or removed,
   * a skill's handle, enabled, advertised, title or summary, any `skills.json`. An edit of a body leaves it.
   */
  get menuGeneration(): number {
    return this.#menuGeneration;
  }

  /**
   * Adds or replaces a file by URI: a `skills.json`, a SKILL.md, an agent document (CLAUDE.md, AGENTS.md, …)
   * or, for any other name, a `.skill.md`. Answers the URIs to diagnose again.
   */
  set(uri: string, text: string): Set<string> {
    if (isConfigUri(uri)) return this.setConfig(uri, text);
    if (!isSkillText(uri)) return this.setDocument(uri, text);
    return this.setSkill(uri, text);
  }

  /**
   * {@link set} for the first index, which reads every file and diagnoses them all after: no file to diagnose
   * again is worked out (a skill mentioned by 1,000 files would list them at each of its claimants), and every
   * cached diagnosis is dropped instead, so one asked for meanwhile is never stale. A skill's mentions wait for
   * {@link indexMentions}: no diagnosis reads who mentions what.
   */
  load(uri: string, text: string): void {
    if (!isSkillText(uri)) {
      this.set(uri, text);
      return;
    }
    const previous = this.#skills.get(uri);
    if (previous && holdsText(previous) && previous.text === text) {
      this.setSkill(uri, text);
      return;
    }
    this.#loadSkill(uri, previous, this.#parsed(uri, text));
  }

  /**
   * {@link load} for a skill another thread parsed and released ({@link parsedSkillParts}). Answers false, and takes
   * nothing, when this file's text must be kept (an editor has it open, or this namespace keeps every text)
   * or the skill it replaces holds its text: the caller loads the text instead.
   */
  loadParts(uri: string, parts: ReleasedParts): boolean {
    const load = this.#releaseLoader(uri);
    const previous = this.#skills.get(uri);
    if (!load || !isSkillText(uri) || (previous && holdsText(previous))) return false;
    this.#loadSkill(uri, previous, skillFromParts(uri, parts, load));
    return true;
  }

  #loadSkill(uri: string, previous: SkillFile | undefined, next: SkillFile): void {
    this.#menuTally.before(previous?.slug, next.slug);
    if (previous) this.#unindexSkill(previous);
    this.#skills.set(uri, next);
    this.#indexSkill(next, false);
    this.#mentionsToIndex.add(uri);
    this.#competition.change(uri, previous, next);
    this.#candidates.change(uri, next);
    this.#menuTally.after(previous?.slug, next.slug);
    this.#menuGeneration++;
    this.#generation++;
    if (this.#diagnostics.size > 0) this.#diagnostics.clear();
  }

  /** A skill's text parsed, and released once parsed unless an editor has it open. */
  #parsed(uri: string, text: string): SkillFile {
    const parsed = parseSkill(uri, text);
    const load = this.#releaseLoader(uri);
    return load ? releaseText(parsed, load) : parsed;
  }

  /** Where a skill's text goes once parsed: back to the disk (this loader reads it again), unless an editor has the file open. */
  #releaseLoader(uri: string): TextLoader | undefined {
    return this.#holding && !this.#holding.isOpen(uri) ? this.#holding.load : undefined;
  }

  /** True when `/name` names a command: one of the user's command files, or an agent's built-in command. */
  isCommand(name: string): boolean {
    const key = slugKey(name);
    return isBuiltinCommand(key) || this.#commands.get(key) !== undefined;
  }

  setSkill(uri: string, text: string): Set<string> {
    const previous = this.#skills.get(uri);
    const load = this.#releaseLoader(uri);
    // A released text is not read back to compare: parsing again is cheaper than reading the file.
    if (previous && holdsText(previous) && previous.text === text) {
      // The same text from the disk after its editor closed: the same skill, without its text; every index holds it by URI.
      if (load) this.#skills.set(uri, releaseText(previous, load));
      return new Set();
    }
    const next = this.#parsed(uri, text);
    const affected = new Set<string>([uri]);
    this.#menuTally.before(previous?.slug, next.slug);
    if (previous) this.#unindexSkill(previous);
    this.#skills.set(uri, next);
    this.#indexSkill(next);
    this.#candidates.change(uri, next);
    this.#menuTally.after(previous?.slug, next.slug);
    for (const other of this.#competition.change(uri, previous, next)) affected.add(other);
    const before = claimOf(previous);
    const after = claimOf(next);
    const claimChanged = before.exists !== after.exists || before.slug !== after.slug || before.enabled !== after.enabled || before.advertised !== after.advertised;
    if (claimChanged) {
      for (const slug of new Set([before.slug, after.slug])) this.#addDependents(slug, affected);
    }
    if (!previous || claimChanged || previous.title !== next.title || previous.summary !== next.summary) this.#menuGeneration++;
    return this.#invalidate(affected);
  }

  /**
   * Holds a skill by what its path alone tells ({@link skillFromPath}), without reading it, until its text is
   * set: the claim of a listed file that an open editor mentions. Answers undefined, and holds nothing, for a
   * file whose text its claim depends on (a `.skill.md`), or one held already.
   */
  holdByPath(uri: string): SkillFile | undefined {
    if (this.#skills.has(uri)) return undefined;
    const skill = skillFromPath(uri);
    if (!skill) return undefined;
    // Released as a claiming part is, so that the whole read later takes its parts from the reading thread.
    const load = this.#releaseLoader(uri);
    const held = load ? releaseText(skill, load) : skill;
    // As the first index loads a skill: every cached diagnosis dropped rather than those it changes worked out.
    this.#loadSkill(uri, undefined, held);
    return held;
  }

  setConfig(uri: string, text: string): Set<string> {
    const previous = this.#configs.get(uri);
    if (previous && previous.text === text) return new Set();
    const next = parseConfigFile(uri, text);
    const affected = new Set<string>([uri]);
    if (previous) this.#unindexConfig(previous);
    this.#configs.set(uri, next);
    this.#indexConfig(next);
    this.#menuTally.reset();
    const toolSlugs = new Set([...(previous?.tools ?? []), ...next.tools].map((tool) => slugKey(tool.slug)));
    for (const slug of toolSlugs) this.#addDependents(slug, affected);
    this.#menuGeneration++;
    return this.#invalidate(affected);
  }

  /** Adds or replaces an agent document. Answers the URIs to diagnose again. */
  setDocument(uri: string, text: string): Set<string> {
    const previous = this.#documents.get(uri);
    const release = this.#releaseLoader(uri) !== undefined;
    if (previous && previous.text === text) {
      // The same text from the disk after its editor closed: the same document, without its text (indexed by URI).
      if (release) this.#documents.set(uri, releasedDocument(previous));
      return new Set();
    }
    const parsed = parseAgentDocument(uri, text);
    return this.#takeDocument(uri, previous, release ? releasedDocument(parsed) : parsed);
  }

  /** Puts `next` in place of `previous` (if any) and answers the URIs to diagnose again. */
  #takeDocument(uri: string, previous: AgentDocument | undefined, next: AgentDocument): Set<string> {
    const affected = new Set<string>([uri]);
    if (previous) this.#unindexDocument(previous);
    this.#documents.set(uri, next);
    this.#indexDocument(next);
    if (previous?.command !== next.command) for (const name of [previous?.command, next.command]) if (name) this.#addDependents(name, affected);
    return this.#invalidate(affected);
  }

  /**
   * {@link load} for an agent document another thread parsed ({@link parsedDocumentParts}). Answers false, and
   * takes nothing, when this file's text must be kept (an editor has it open, or this namespace keeps every text)
   * or the document it replaces holds its text: the caller loads the text instead.
   */
  loadDocument(uri: string, posted: PostedDocument): boolean {
    const previous = this.#documents.get(uri);
    if (!this.#releaseLoader(uri) || isSkillText(uri) || isConfigUri(uri) || previous?.text !== undefined) return false;
    this.#takeDocument(uri, previous, documentFromPosted(uri, posted));
    return true;
  }

  /** Forgets a file (deleted, or moved out of the workspace). Answers the URIs to diagnose again. */
  remove(uri: string): Set<string> {
    const affected = new Set<string>();
    const document = this.#documents.get(uri);
    if (document) {
      this.#unindexDocument(document);
      this.#documents.delete(uri);
      if (document.command) this.#addDependents(document.command, affected);
    }
    this.#menuGeneration++;
    const skill = this.#skills.get(uri);
    if (skill) {
      this.#menuTally.before(skill.slug);
      this.#unindexSkill(skill);
      this.#skills.delete(uri);
      this.#candidates.change(uri, undefined);
      this.#menuTally.after(skill.slug);
      this.#addDependents(skill.slug, affected);
      for (const other of this.#competition.change(uri, skill, undefined)) affected.add(other);
    }
    const config = this.#configs.get(uri);
    if (config) {
      this.#unindexConfig(config);
      this.#configs.delete(uri);
      this.#menuTally.reset();
      for (const tool of config.tools) this.#addDependents(slugKey(tool.slug), affected);
    }
    this.#diagnostics.delete(uri);
    affected.delete(uri);
    return this.#invalidate(affected);
  }

  has(uri: string): boolean {
    return this.#skills.has(uri) || this.#configs.has(uri) || this.#documents.has(uri);
  }

  /** The URI of every file held: skills, `skills.json` files and agent documents. */
  uris(): string[] {
    return [...this.#skills.keys(), ...this.#configs.keys(), ...this.#documents.keys()];
  }

  document(uri: string): AgentDocument | undefined {
    return this.#documents.get(uri);
  }

  documents(): IterableIterator<AgentDocument> {
    return this.#documents.values();
  }

  skill(uri: string): SkillFile | undefined {
    return this.#skills.get(uri);
  }

  config(uri: string): ConfigFile | undefined {
    return this.#configs.get(uri);
  }

  skills(): IterableIterator<SkillFile> {
    return this.#skills.values();
  }

  /** The menu's lines when no menu is chosen (every advertised skill's): see {@link MenuTally}. */
  menuLines(): { readonly skills: number; readonly characters: number } {
    return this.#menuTally.totals(() => countAdvertisedLines(this));
  }

  /** Up to `steps` skills of the pass that {@link menuLines} makes first: true once it needs none. */
  countMenuLines(steps: number): boolean {
    return this.#menuTally.countSlice(() => this.#skills.values(), (skill) => advertisedLineOf(this, skill), steps);
  }

  /**
   * Every skill file as completion scans it, in {@link skills}' order (see {@link MentionCandidates}), as far as
   * it is laid out, and whether that is all of them: a scan that ends early in them needs no more (the rest of a
   * layout under way comes after them), and {@link layOutMentionCandidates} lays out more.
   */
  mentionCandidatesSoFar(): CandidateSlots & { readonly complete: boolean } {
    return this.#candidates.slotsSoFar(() => this.#skills.entries());
  }

  /** Up to `steps` skills of the layout {@link mentionCandidatesSoFar} reads: true once it needs none. */
  layOutMentionCandidates(steps: number): boolean {
    return this.#candidates.layOut(() => this.#skills.entries(), steps);
  }

  configs(): ConfigFile[] {
    return [...this.#configs.values()].sort((a, b) => a.uri.localeCompare(b.uri));
  }

  get skillCount(): number {
    return this.#skills.size;
  }

  /** Every tool: the built-ins, then those declared in `skills.json` files (first declaration of a slug wins). */
  tools(): ToolSpec[] {
    const tools: ToolSpec[] = [...BUILTIN_TOOLS];
    for (const [slug, declared] of this.#declaredTools) {
      const first = declared[0];
      if (first && !BUILTIN_BY_SLUG.has(slug)) tools.push(first);
    }
    return tools;
  }

  tool(slug: string): ToolSpec | undefined {
    const key = slugKey(slug);
    return BUILTIN_BY_SLUG.get(key) ?? this.#declaredTools.get(key)?.[0];
  }

  /** The skills that claim a slug, in URI order. */
  claimants(slug: string): SkillFile[] {
    const uris = this.#claimants.get(slugKey(slug));
    if (uris === undefined) return [];
    if (typeof uris === "string") {
      const only = this.#skills.get(uris);
      return only ? [only] : [];
    }
    return [...uris].sort().flatMap((uri) => this.#skills.get(uri) ?? []);
  }

  /** The URIs of the files that mention a slug. */
  mentioners(slug: string): string[] {
    this.#indexAllMentions();
    return [...this.#mentioners.uris(slugKey(slug))].sort();
  }

  /**
   * Puts the mentions of up to `count` more skills taken by {@link load} into the index of who mentions what (what
   * references, rename and a change's dependents read), then seals it in steps; true once none is left and it is
   * sealed. The index is complete whenever it is read: a question before the end takes the rest at once.
   */
  indexMentions(count: number): boolean {
    // One live iterator across the calls: a loop that began again at the set's start each call walked past every
    // entry deleted so far, which V8 leaves in place until the set shrinks (85 of 97 ms in a set of 100,000 URIs).
    const pending = (this.#mentionsPending ??= this.#mentionsToIndex.values());
    for (let left = count; left > 0; left--) {
      const next = pending.next();
      // Spent only once the set is empty: a live iterator also takes what was added after it began.
      if (next.done === true) break;
      const uri = next.value;
      this.#mentionsToIndex.delete(uri);
      const skill = this.#skills.get(uri);
      if (skill) this.#indexMentionsOf(skill, true);
    }
    if (this.#mentionsToIndex.size > 0) return false;
    this.#mentionsPending = undefined;
    return this.#mentioners.sealStep(count * SEAL_MENTIONS_PER_SKILL);
  }

  #indexAllMentions(): void {
    this.indexMentions(Number.MAX_SAFE_INTEGER);
  }

  /** Resolves a slug, case-insensitively, to a tool, a skill or nothing. A tool wins over a skill that collides with it. */
  resolve(slug: string): Resolution | undefined {
    const tool = this.tool(slug);
    if (tool) return { kind: "tool", tool };
    // The first claimant in URI order, without building the list (resolve runs once per completion item).
    const uris = this.#claimants.get(slugKey(slug));
    const skill = typeof uris === "string" ? this.#skills.get(uris) : uris === undefined ? undefined : this.claimants(slug)[0];
    return skill ? { kind: "skill", skill } : undefined;
  }

  /** For a skill the namespace holds, `resolve(skill.slug)` is it: what the menu asks of each of 100,000 skills, without a resolution made. */
  resolvesTo(skill: SkillFile): boolean {
    if (this.tool(skill.slug)) return false;
    const uris = this.#claimants.get(slugKey(skill.slug));
    return uris === skill.uri || (typeof uris === "object" && this.claimants(skill.slug)[0] === skill);
  }

  /** True when a tool or a skill (other than the one at `exceptUri`) holds the slug. */
  isTaken(slug: string, exceptUri?: string): boolean {
    if (this.tool(slug)) return true;
    for (const uri of this.#claimants.uris(slugKey(slug))) if (uri !== exceptUri) return true;
    return false;
  }

  /** Mints a free handle for a title (`-2`, `-3`… on a collision); `current` keeps its own slug. */
  mint(title: string, current?: string): string {
    return makeSlug(title, (slug) => this.isTaken(slug), current);
  }

  /** Who holds a slug, as a phrase: "the built-in tool find_file", "the skill in …/x.skill.md". */
  describeHolder(slug: string, exceptUri?: string): string | undefined {
    const tool = this.tool(slug);
    if (tool) return tool.origin.kind === "builtin" ? `the built-in tool ${tool.name}` : `the tool ${tool.name} declared in ${CONFIG_FILE_NAME}`;
    const other = this.claimants(slug).find((skill) => skill.uri !== exceptUri);
    return other ? `the skill ${other.uri}` : undefined;
  }

  /**
   * Expands a plan's handles into the toolset to bind (the seed's `toolsForPlan`): tools pass through; an
   * enabled skill expands to its body's mentions, recursively; each skill is followed once, which guards
   * cycles; results are deduplicated in first-appearance order. An explicit stack keeps a 10,000-long chain
   * of skills from overflowing the call stack.
   */
  expand(handles: readonly string[]): Expansion {
    const tools: ToolSpec[] = [];
    const toolNames = new Set<string>();
    const skills: SkillFile[] = [];
    const followed = new Set<string>();
    const unresolved: string[] = [];
    const disabled: string[] = [];
    const stack: { readonly slugs: readonly string[]; next: number; readonly owner?: SkillFile }[] = [{ slugs: handles.map(slugKey), next: 0 }];
    while (stack.length > 0) {
      const frame = stack[stack.length - 1];
      if (!frame || frame.next >= frame.slugs.length) {
        stack.pop();
        continue;
      }
      const slug = frame.slugs[frame.next++] ?? "";
      const target = this.resolve(slug);
      if (!target) {
        // Inline code that names nothing is code, not a requirement.
        if (!unresolved.includes(slug) && !frame.owner?.codeOnly.includes(slug)) unresolved.push(slug);
      } else if (target.kind === "tool") {
        if (!toolNames.has(target.tool.name)) {
          toolNames.add(target.tool.name);
          tools.push(target.tool);
        }
      } else if (!target.skill.enabled) {
        if (!disabled.includes(slug)) disabled.push(slug);
      } else if (!followed.has(slug)) {
        followed.add(slug);
        skills.push(target.skill);
        stack.push({ slugs: target.skill.requirements, next: 0, owner: target.skill });
      }
    }
    return { tools, skills, unresolved, disabled };
  }

  /**
   * Builds the `menu-similar` warnings in the background rather than on the first diagnosis: until
   * {@link advanceMenuSimilarity} reports them ready, every skill is diagnosed without them (an editor then asks
   * again for the skills it names). Call before the workspace is read; {@link startMenuSimilarity} once it is.
   */
  deferMenuSimilarity(): void {
    this.#competition.defer();
  }

  /**
   * Begins building the `menu-similar` index over the skills as they are now; later changes are followed. With
   * a `finder` the pairs are found there (another thread) and the steps here only take them in. With `asAdded`,
   * before the workspace is read: each skill's summary is indexed as the skill comes, until the first step.
   */
  startMenuSimilarity(finder?: PairFinder, asAdded = false): void {
    this.#competition.start(finder, asAdded);
  }

  /**
   * A skill's `menu-similar` warnings alone: what {@link diagnose} puts last in its list. For a report that
   * diagnosed the skill before they were ready and adds them after, without diagnosing it all again, once per
   * skill: nothing is kept for a later ask.
   */
  menuSimilarDiagnostics(uri: string): CoreDiagnostic[] {
    const skill = this.#skills.get(uri);
    return skill ? this.#competition.diagnoseOnce(skill, (other) => this.#skills.get(other)) : [];
  }

  /** True when the `menu-similar` pairs came from the finder given to {@link startMenuSimilarity}. */
  get menuSimilarityFoundElsewhere(): boolean {
    return this.#competition.foundElsewhere;
  }

  /** While the pairs are found elsewhere and nothing is there to take in: settles when there is (no need to step before). */
  get menuSimilarityWaiting(): Promise<void> | undefined {
    return this.#competition.waiting;
  }

  /** True once the `menu-similar` warnings are complete (after the background build, or built on first use). */
  get menuSimilarityReady(): boolean {
    return this.#competition.ready;
  }

  /**
   * Does about `units` steps of the background build (a step: one summary read, indexed or compared). Answers
   * undefined while it is not done; when it is, the URIs whose diagnostics gained warnings (their cached
   * diagnostics dropped), once; an empty set after that.
   */
  advanceMenuSimilarity(units: number): Set<string> | undefined {
    const wasReady = this.#competition.ready;
    const warned = this.#competition.advance(units);
    if (warned === undefined || wasReady) return warned;
    return this.#invalidate(warned);
  }

  /** The diagnostics of one file, cached until a change makes them stale. */
  diagnose(uri: string): readonly CoreDiagnostic[] {
    const cached = this.#diagnostics.get(uri);
    if (cached) return cached;
    const diagnostics = this.#diagnoseFile(uri);
    // A closed file's problems are sent once and asked for again only after a change: held for every file,
    // they were a fifth of the heap at 50,000 skills. A clean file is not held either: nearly every one takes
    // the short way again, and an entry for each of 50,000 was an insertion each in the first report.
    if (diagnostics.length === 0) return NO_DIAGNOSTICS;
    if (!this.#holding || this.#holding.isOpen(uri)) this.#diagnostics.set(uri, diagnostics);
    return diagnostics;
  }

  #diagnoseFile(uri: string): readonly CoreDiagnostic[] {
    const skill = this.#skills.get(uri);
    if (skill) return this.#diagnoseSkill(skill);
    const config = this.#configs.get(uri);
    if (config) return this.#diagnoseConfig(config);
    const document = this.#documents.get(uri);
    return document ? this.#diagnoseDocument(document) : NO_DIAGNOSTICS;
  }

  /**
   * Plans the rename of a skill's handle: the file's new name and every `@old` → `@new` in every skill file
   * and `skills.json`. Refuses an unknown, ambiguous, invalid or taken name, saying which skill or tool holds it.
   */
  planRename(oldSlug: string, newHandle: string): RenamePlan | Refusal {
    const oldKey = slugKey(oldSlug);
    const tool = this.tool(oldKey);
    if (tool) return { refused: `@${oldKey} is ${tool.origin.kind === "builtin" ? "a built-in tool" : `a tool declared in ${CONFIG_FILE_NAME}`}; only skills can be renamed.` };
    const claimants = this.claimants(oldKey);
    const skill = claimants[0];
    if (!skill) return { refused: `No skill is named @${oldKey}.` };
    if (claimants.length > 1) return { refused: `@${oldKey} is claimed by ${claimants.length} skills; rename one of the files first so the handle is unambiguous.` };
    const problem = handleProblem(newHandle);
    if (problem) return { refused: problem };
    if (newHandle === oldKey) return { refused: `The skill is already named @${oldKey}.` };
    const holder = this.describeHolder(newHandle, skill.uri);
    if (holder) return { refused: `@${newHandle} is taken by ${holder}.` };
    const newUri = skill.format.renamedUri(skill.uri, newHandle);
    // A file that differs only in case (an invalid `Plan.skill.md`) is the same file on a case-insensitive disk.
    let occupant: string | undefined;
    const lowered = newHandle.toLowerCase();
    for (const uri of [...this.#claimants.uris(lowered), ...this.#invalidHandles.uris(lowered)]) {
      if (uri !== skill.uri && equalsIgnoringCase(uri, newUri)) {
        occupant = uri;
        break;
      }
    }
    if (occupant) return { refused: `@${newHandle} would overwrite the file ${occupant}; rename or remove that file first.` };

    const edits = new Map<string, TextEdit[]>();
    // One new text per sigil, shared by the edits: a thousand-file rename built a thousand equal strings.
    const newTexts = new Map<string, string>();
    const newTextFor = (sigil: string): string => newTexts.get(sigil) ?? newTexts.set(sigil, `${sigil}${newHandle}`).get(sigil) ?? "";
    // One pass over each file's mentions, without the intermediate lists of referencesTo: a thousand-file rename
    // runs this loop a few thousand times, mostly before the JIT has compiled it.
    for (const uri of this.mentioners(oldKey)) {
      let fileEdits: TextEdit[] | undefined;
      for (const mention of this.mentionsOfSlug(uri, skill.slug)) {
        if (!this.#reaches(skill, mention)) continue;
        (fileEdits ??= []).push({ range: mention.range, newText: newTextFor(sigilOf(mention)) });
      }
      if (fileEdits) edits.set(uri, fileEdits);
    }
    const own = skill.format.ownEdits(skill, newHandle);
    if (own.length > 0) edits.set(skill.uri, [...own, ...(edits.get(skill.uri) ?? [])].sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character));
    return { oldSlug: oldKey, newSlug: newHandle, skill, fileRename: skill.format.move(skill, newHandle), edits };
  }

  /** The mentions among `mentions` that reach `skill`: by its handle, and for a link, only one that points at its folder. */
  referencesTo(skill: SkillFile, mentions: readonly (Mention | ConfigMention)[]): (Mention | ConfigMention)[] {
    return mentions.filter((mention) => this.#reaches(skill, mention));
  }

  #reaches(skill: SkillFile, mention: Mention | ConfigMention): boolean {
    if (mention.slug !== skill.slug) return false;
    const target = (mention as Reference).target;
    return target === undefined || target === skill.uri;
  }

  #mentionsOf(uri: string): readonly (Mention | ConfigMention)[] {
    return this.#skills.get(uri)?.mentions ?? this.#configs.get(uri)?.mentions ?? this.#documents.get(uri)?.mentions ?? [];
  }

  /** A file's mentions of one slug (a skill's, a config's or an agent document's). */
  mentionsOfSlug(uri: string, slug: string): readonly (Mention | ConfigMention)[] {
    const skill = this.#skills.get(uri);
    if (skill) return mentionsWithSlug(skill, slug);
    return this.#mentionsOf(uri).filter((mention) => mention.slug === slug);
  }

  #indexSkill(skill: SkillFile, withMentions = true): void {
    if (skill.validHandle) this.#followClaim(skill.slug, this.#claimants.add(skill.slug, skill.uri), skill);
    else this.#invalidHandles.add(skill.slug, skill.uri);
    if (withMentions) this.#indexMentionsOf(skill);
  }

  /** Keeps {@link #enabledSoleClaims} to a slug's claimants after a change (`known`: a skill among them, not looked up again). */
  #followClaim(slug: string, claimants: Strings, known?: SkillFile): void {
    const sole = typeof claimants !== "string" ? undefined : claimants === known?.uri ? known : this.#skills.get(claimants);
    if (sole?.enabled) this.#enabledSoleClaims.add(slug);
    else this.#enabledSoleClaims.delete(slug);
  }

  /** `bulk`: the mentions of a skill the first read took in, collected with the rest (see MentionIndex). */
  #indexMentionsOf(skill: SkillFile, bulk = false): void {
    // The slugs alone: a released skill makes no mention object for them.
    const slugs = mentionSlugs(skill);
    let unique: readonly string[];
    if (slugs.length > FEW_MENTIONS) unique = [...new Set(slugs)];
    else {
      // A few mentions, compared, cost less than a Set.
      unique = slugs.filter((slug, i) => slugs.indexOf(slug) === i);
    }
    if (bulk) this.#mentioners.collect(skill.uri, unique);
    else for (const slug of unique) this.#mentioners.add(slug, skill.uri);
  }

  /** Takes out one file's mention of a slug; a mention collected with the first read's is taken out once they are all in. */
  #removeMention(slug: string, uri: string): void {
    if (this.#mentioners.remove(slug, uri)) return;
    this.#indexAllMentions();
    this.#mentioners.remove(slug, uri);
  }

  #unindexSkill(skill: SkillFile): void {
    if (skill.validHandle) this.#followClaim(skill.slug, this.#claimants.remove(skill.slug, skill.uri));
    else this.#invalidHandles.remove(skill.slug, skill.uri);
    // Mentions never indexed have nothing to take out.
    if (this.#mentionsToIndex.delete(skill.uri)) return;
    for (const mention of skill.mentions) this.#removeMention(mention.slug, skill.uri);
  }

  #indexDocument(document: AgentDocument): void {
    for (const mention of document.mentions) this.#mentioners.add(mention.slug, document.uri);
    if (document.command) this.#commands.add(document.command, document.uri);
  }

  #unindexDocument(document: AgentDocument): void {
    for (const mention of document.mentions) this.#removeMention(mention.slug, document.uri);
    if (document.command) this.#commands.remove(document.command, document.uri);
  }

  #indexConfig(config: ConfigFile): void {
    for (const tool of config.tools) {
      const key = slugKey(tool.slug);
      const list = this.#declaredTools.get(key) ?? [];
      list.push(tool);
      list.sort((a, b) => (a.origin.kind === "config" && b.origin.kind === "config" ? a.origin.uri.localeCompare(b.origin.uri) : 0));
      this.#declaredTools.set(key, list);
    }
    for (const mention of config.mentions) this.#mentioners.add(mention.slug, config.uri);
  }

  #unindexConfig(config: ConfigFile): void {
    for (const tool of config.tools) {
      const key = slugKey(tool.slug);
      const rest = (this.#declaredTools.get(key) ?? []).filter((declared) => declared.origin.kind !== "config" || declared.origin.uri !== config.uri);
      if (rest.length > 0) this.#declaredTools.set(key, rest);
      else this.#declaredTools.delete(key);
    }
    for (const mention of config.mentions) this.#removeMention(mention.slug, config.uri);
  }

  /** Everything whose diagnostics depend on what a slug names: its mentioners, its claimants, and the configs. */
  #addDependents(slug: string, into: Set<string>): void {
    this.#indexAllMentions();
    for (const uri of this.#mentioners.uris(slug)) into.add(uri);
    for (const uri of this.#claimants.uris(slug)) into.add(uri);
    if (this.#declaredTools.has(slug) || BUILTIN_BY_SLUG.has(slug)) for (const uri of this.#configs.keys()) into.add(uri);
  }

  #invalidate(affected: Set<string>): Set<string> {
    this.#generation++;
    for (const uri of affected) this.#diagnostics.delete(uri);
    return affected;
  }

  #diagnoseSkill(skill: SkillFile): readonly CoreDiagnostic[] {
    if (this.#isPlainlyClean(skill)) return NO_DIAGNOSTICS;
    const diagnostics: CoreDiagnostic[] = [...skill.problems];
    // Most skills hold their handle alone, and most mentions name an enabled skill as written: nothing to build for those.
    if (skill.validHandle && (this.tool(skill.slug) || typeof this.#claimants.get(skill.slug) !== "string")) {
      const head = skill.lines.rangeOf(0, 0);
      const tool = this.tool(skill.slug);
      if (tool) {
        diagnostics.push({
          range: head,
          severity: "error",
          code: DiagnosticCodes.toolCollision,
          message: `@${skill.slug} is taken by ${this.describeHolder(skill.slug)}: skills and tools share one namespace. Rename this skill.`,
          related: tool.origin.kind === "config" ? [{ uri: tool.origin.uri, range: tool.origin.range, message: `the tool ${tool.name}` }] : [],
          fix: { kind: "rename-skill", reason: "tool" },
        });
      }
      const others = this.claimants(skill.slug).filter((other) => other.uri !== skill.uri);
      if (others.length > 0) {
        diagnostics.push({
          range: head,
          severity: "error",
          code: DiagnosticCodes.duplicateHandle,
          message: `@${skill.slug} is claimed by ${others.length + 1} skills: every handle must be unique. Rename one of them.`,
          related: others.map((other) => ({ uri: other.uri, range: other.lines.rangeOf(0, 0), message: `also @${skill.slug}` })),
          fix: { kind: "rename-skill", reason: "duplicate" },
        });
      }
    }
    const quiet = skill.format.quietReferences;
    // A quiet reference to an enabled skill reports nothing either, unless it is a link (its target is checked).
    for (const mention of skill.mentions) {
      if ((quiet && (mention as Reference).target !== undefined) || !this.#namesEnabledSkill(mention)) diagnostics.push(...this.#diagnoseMention(mention, quiet, skill.uri));
    }
    diagnostics.push(...this.#competition.diagnose(skill, (uri) => this.#skills.get(uri)));
    return diagnostics;
  }

  /**
   * True for most skills of a workspace, cheaply and without building anything: no problems of its own, the sole
   * claimant of a handle no tool has, every mention in lower case naming an enabled skill, and off the menu's
   * comparison (or on it with nobody alike). False means: look closer.
   */
  #isPlainlyClean(skill: SkillFile): boolean {
    if (skill.problems.length > 0 || skill.format.quietReferences || !skill.validHandle) return false;
    if (typeof this.#claimants.get(skill.slug) !== "string" || this.tool(skill.slug)) return false;
    if (!everyMentionAsSlug(skill, this.#namesEnabledSkillSlug)) return false;
    return !this.#competition.mayWarn(skill);
  }

  /**
   * True for a mention written in lower case of a handle one enabled skill claims: it has nothing to report
   * (a tool of that handle would win the resolution, and a tool's mention in lower case reports nothing either).
   */
  #namesEnabledSkill(mention: Mention): boolean {
    return mention.written === mention.slug && this.#namesEnabledSkillSlug(mention.slug);
  }

  /** True when a slug names one enabled skill. */
  readonly #namesEnabledSkillSlug = (slug: string): boolean => this.#enabledSoleClaims.has(slug);

  #diagnoseDocument(document: AgentDocument): CoreDiagnostic[] {
    const diagnostics: CoreDiagnostic[] = [...document.problems];
    for (const mention of document.mentions) diagnostics.push(...this.#diagnoseMention(mention, true, document.uri));
    return diagnostics;
  }

  /**
   * An unknown reference in Agent Skills prose costs more as an alarm than as a miss: a link to a missing skill
   * folder is a warning; a near miss of a real name a warning with "did you mean"; any other `/x` or `@x`
   * information; a `$x` nothing. A command (built in, or a user's command file) is no reference at all.
   */
  #diagnoseQuietReference(mention: Mention, fromUri: string): CoreDiagnostic[] {
    const sigil = sigilOf(mention);
    const { target, link } = mention as Reference;
    if (target !== undefined && link !== undefined) {
      if (this.#skills.has(target)) return [];
      const elsewhere = this.claimants(mention.slug);
      const only = elsewhere.length === 1 ? elsewhere[0] : undefined;
      return [{
        range: link.range,
        severity: "warning",
        code: DiagnosticCodes.brokenLink,
        message: only ? `This link points at no skill: the skill ${mention.slug} is in another folder.` : `This link points at a skill folder that does not exist: no skills/${mention.slug}/SKILL.md there.`,
        ...(only ? { fix: { kind: "relink", newTarget: relinkTarget(fromUri, only.uri, link.text) } as const } : {}),
      }];
    }
    if (sigil === "/" && this.isCommand(mention.slug)) return [];
    // A name in inline code that names nothing is code (`/svg`, `$dirs`), as an unknown @-mention there is.
    if (mention.inCode) return [];
    const near = this.#nearMisses(mention.slug);
    if (near.length > 0) {
      return [{
        range: mention.range,
        severity: "warning",
        code: DiagnosticCodes.unknownReference,
        message: `${sigil}${mention.written} is not a skill: did you mean ${near.map((name) => `${sigil}${name}`).join(", ")}?`,
        fix: { kind: "near-miss", sigil, names: near },
      }];
    }
    if (sigil === "$") return [];
    return [{ range: mention.range, severity: "information", code: DiagnosticCodes.unknownReference, message: `${sigil}${mention.written} names no skill in this workspace.` }];
  }

  /**
   * The enabled skills' handles near a name, for a "did you mean". The candidates are indexed once per change
   * of the menu's generation (which every change of a claim bumps) by first letter and length, each with its
   * letter counts, so a workspace of 10,000 skills with hundreds of unknown references compares each with a
   * few dozen handles, not all of them. A near miss keeps its first letter.
   */
  #nearMisses(name: string): readonly string[] {
    const known = this.#nearCandidates?.generation === this.#menuGeneration ? this.#nearCandidates.answers.get(name) : undefined;
    if (known) return known;
    if (this.#nearCandidates?.generation !== this.#menuGeneration) {
      // Each handle once (NearNames): a handle that several files claim (a library of libraries has three `seo`
      // skills) was suggested once for each of them ("did you mean /seo, /seo, /seo?").
      const names = new NearNames();
      for (const skill of this.#skills.values()) if (skill.validHandle && skill.enabled) names.add(skill.slug);
      this.#nearCandidates = { generation: this.#menuGeneration, names, answers: new Map() };
    }
    const near = nearest(name, this.#nearCandidates.names.candidates(name), 3);
    // Names typed one letter at a time would add up between claims' changes: a saving, not a registry.
    if (this.#nearCandidates.answers.size >= 10_000) this.#nearCandidates.answers.clear();
    this.#nearCandidates.answers.set(name, near);
    return near;
  }

  #diagnoseMention(mention: Mention | ConfigMention, quiet = false, fromUri = ""): CoreDiagnostic[] {
    const target = this.resolve(mention.slug);
    if (quiet && (!target || (mention as Reference).target !== undefined)) return this.#diagnoseQuietReference(mention as Mention, fromUri);
    if (!target) {
      if (mention.inCode) return [];
      return [
        {
          range: mention.range,
          severity: "error",
          code: DiagnosticCodes.unknownMention,
          message: `@${mention.written} — unknown: no skill or tool has this handle.`,
          fix: { kind: "unknown-mention", slug: mention.slug },
        },
      ];
    }
    const found: CoreDiagnostic[] = [];
    if (target.kind === "skill" && !target.skill.enabled) {
      found.push({
        range: mention.range,
        severity: "warning",
        code: DiagnosticCodes.disabledMention,
        message: `@${mention.slug} is disabled: it is inert and binds nothing. Enable it (enabled: true) or remove the mention.`,
        related: [{ uri: target.skill.uri, range: target.skill.lines.rangeOf(0, 0), message: "the disabled skill" }],
      });
    }
    if (mention.written !== mention.slug) {
      found.push({
        range: mention.range,
        severity: "warning",
        code: DiagnosticCodes.mentionCase,
        message: `Write @${mention.slug} in lower case: handles are lower-case.`,
        fix: { kind: "normalise-case", slug: mention.slug },
      });
    }
    return found;
  }

  #diagnoseConfig(config: ConfigFile): CoreDiagnostic[] {
    const diagnostics: CoreDiagnostic[] = [...config.problems];
    for (const tool of config.tools) {
      if (tool.origin.kind !== "config") continue;
      const key = slugKey(tool.slug);
      const related: RelatedInformation[] = [];
      let holder: string | undefined;
      if (BUILTIN_BY_SLUG.has(key)) holder = `the built-in tool ${BUILTIN_BY_SLUG.get(key)?.name ?? key}`;
      const declared = (this.#declaredTools.get(key) ?? []).filter((other) => other !== tool);
      for (const other of declared) if (other.origin.kind === "config") related.push({ uri: other.origin.uri, range: other.origin.range, message: `also declares @${key}` });
      if (!holder && declared.length > 0) holder = "another tool declaration";
      const skills = this.claimants(key);
      for (const skill of skills) related.push({ uri: skill.uri, range: skill.lines.rangeOf(0, 0), message: `the skill @${key}` });
      if (!holder && skills.length > 0) holder = "a skill";
      if (holder) {
        diagnostics.push({ range: tool.origin.range, severity: "error", code: DiagnosticCodes.toolCollision, message: `@${key} is taken by ${holder}: skills and tools share one namespace.`, related });
      }
    }
    for (const mention of config.mentions) {
      if (mention.place === "text") {
        diagnostics.push(...this.#diagnoseMention(mention, false));
        continue;
      }
      const target = this.resolve(mention.slug);
      if (!target || target.kind === "tool") {
        diagnostics.push({
          range: mention.range,
          severity: "error",
          code: DiagnosticCodes.configUnknownHandle,
          message: target ? `@${mention.slug} is a tool: the menu selects skills (a tool is on the menu when it sets advertiseInMenu).` : `@${mention.written} — unknown: no skill has this handle.`,
          fix: target ? undefined : { kind: "unknown-mention", slug: mention.slug },
        });
      } else if (!target.skill.enabled || !target.skill.advertised) {
        diagnostics.push({
          range: mention.range,
          severity: "warning",
          code: DiagnosticCodes.configUnknownHandle,
          message: `@${mention.slug} is ${target.skill.enabled ? "not advertised" : "disabled"}, so the menu leaves it out.`,
        });
      }
    }
    return diagnostics;
  }
}

function claimOf(skill: SkillFile | undefined): Claim {
  if (!skill || !skill.validHandle) return { exists: false, slug: skill?.slug ?? "", enabled: false, advertised: false };
  return { exists: true, slug: skill.slug, enabled: skill.enabled, advertised: skill.advertised };
}

/**
 * `a.toLowerCase() === b.toLowerCase()` without lower-casing two strings per call: the rename's occupant check
 * runs it against every skill. Compares ASCII letter by letter and stops at the first difference; anything else
 * (a non-ASCII character, one string a prefix of the other) takes the exact path.
 */
function equalsIgnoringCase(a: string, b: string): boolean {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x > 127 || y > 127) return a.toLowerCase() === b.toLowerCase();
    if (x >= 65 && x <= 90) x += 32;
    if (y >= 65 && y <= 90) y += 32;
    if (x !== y) return false;
  }
  return a.length === b.length || a.toLowerCase() === b.toLowerCase();
}

/**
 * Slug → the URIs of the files that hold it. Nearly every slug has one claimant and few mentioners, so a single
 * URI is held as itself and a few in a small array (see strings.ts).
 */
class UriIndex {
  readonly #entries = new Map<string, Strings>();

  get(key: string): string | Iterable<string> | undefined {
    return this.#entries.get(key);
  }

  uris(key: string): Iterable<string> {
    return stringsOf(this.#entries.get(key));
  }

  /** Answers the key's URIs after. */
  add(key: string, uri: string): Strings {
    const entry = this.#entries.get(key);
    const next = withString(entry, uri);
    if (next !== entry) this.#entries.set(key, next);
    return next;
  }

  /** Answers the key's URIs after. */
  remove(key: string, uri: string): Strings {
    const entry = this.#entries.get(key);
    const next = withoutString(entry, uri);
    if (next === undefined) this.#entries.delete(key);
    else if (next !== entry) this.#entries.set(key, next);
    return next;
  }
}

/** A link's target rewritten to reach a SKILL.md: to its folder when the link named a folder, else to the file. */
function relinkTarget(fromUri: string, skillUri: string, written: string): string {
  const link = relativeLink(fromUri, skillUri);
  return written.endsWith(AGENT_SKILL_FILE) ? link : link.slice(0, -AGENT_SKILL_FILE.length - 1);
}

/** How often each of a handle's characters (`a-z`, `0-9`, `-`) occurs in it. */
