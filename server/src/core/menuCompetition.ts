/**
 * The `menu-similar` diagnostics: two skills on the menu whose summaries are alike (see similarity.ts), kept
 * exact as the workspace changes.
 */
import type { CoreDiagnostic, RelatedInformation } from "./diagnostics.js";
import { DiagnosticCodes } from "./diagnostics.js";
import { MAX_SIMILAR_REPORTED, MENU_SIMILARITY_THRESHOLD, summaryTerms } from "./similarity.js";
import { SimilarityIndex, type Closest, type Int32Allocator, type JoinSets, type PairIntake, type SimilarityJoin } from "./similarityIndex.js";
import type { SkillFile } from "./skillFile.js";
import { trimmedLength, type Range } from "./text.js";

/** True for a skill that competes on the default menu: a valid handle, enabled, advertised, with a summary. */
export function competesOnMenu(skill: SkillFile | undefined): skill is SkillFile {
  return skill !== undefined && skill.validHandle && skill.enabled && skill.advertised && skill.summary !== undefined && trimmedLength(skill.summary) > 0;
}

/** What of a skill the `menu-similar` diagnostics of its neighbours show: its summary and where it stands. */
function menuKey(skill: SkillFile | undefined): string | undefined {
  if (!competesOnMenu(skill)) return undefined;
  const start = skill.summaryRange?.start;
  return `${skill.summary ?? ""}\u0000${start?.line ?? 0}:${start?.character ?? 0}`;
}

/**
 * Finds a join's pairs away from the calling thread: `deliver` takes them in batches of (a, b, shared terms)
 * triples (the first `count` of the batch), the promise settles when all are delivered, and a rejection means
 * some may be missing. Undefined: it declines, and the join runs in steps on the calling thread.
 */
export interface PairFinder {
  /** Where the sets it is given are copied (shared memory, for threads); plain arrays when absent. */
  readonly allocate?: Int32Allocator;
  /** A join of at least this many sets is coming (told as the summaries are read): the finder may get ready. */
  expect?(sets: number): void;
  find(sets: JoinSets, deliver: (pairs: Int32Array, count: number) => void): Promise<void> | undefined;
}

/** Sets copied for the finder per unit of {@link MenuCompetition.advance}: a copy costs a fraction of reading a summary. */
const COPY_SETS_PER_UNIT = 64;

/** Groups read per unit of {@link MenuCompetition.advance} for who has a neighbour, once the pairs are in. */
const KEYS_PER_UNIT = 16;

/** Entries of the pairs' lists made per unit of {@link MenuCompetition.advance} once the pairs are in. */
const LIST_ENTRIES_PER_UNIT = 256;

/** Pairs taken in per unit of {@link MenuCompetition.advance} while they come from elsewhere. */
const PAIRS_PER_UNIT = 16;

/** Neighbours kept per skill: one more than shown, in case one is dropped (a second file with the same handle). */
const LIMIT = MAX_SIMILAR_REPORTED + 1;

/** The threshold as each warning writes it. */
const THRESHOLD_TEXT = MENU_SIMILARITY_THRESHOLD.toFixed(2);

/**
 * The `menu-similar` diagnostics of a namespace. Nothing is indexed until asked: by the first skill that
 * competes on the menu being diagnosed (then the whole index is built at once), or by {@link start}, which
 * builds it in steps ({@link advance}) while every other diagnostic is answered without it. Until it is ready
 * no skill has a `menu-similar` warning; from then on the index follows every change, and a change answers the
 * skills whose diagnostics it may change: the changed skill's neighbours before and after, nobody else.
 */
export class MenuCompetition {
  readonly #skills: () => Iterable<SkillFile>;
  readonly #lookup: (uri: string) => SkillFile | undefined;
  readonly #index = new SimilarityIndex();
  /** Each competing skill's closest neighbours, until a change near it. */
  readonly #closest = new Map<string, Closest>();
  #state: "idle" | "deferred" | "building" | "ready" = "idle";
  /**
   * While building: the skills still to index (each read as it is when its turn comes), then to query. A
   * skill's terms are found and indexed in one step: held for all skills until indexed, they were 100,000
   * arrays that outlived the young generation.
   */
  readonly #toIndex = new Set<string>();
  /** The URIs of the skills as the build began, indexed first (each looked up when its turn comes); those changed meanwhile are in #toIndex too. */
  #startedWith: readonly string[] = [];
  #startedAt = 0;
  /** Index a skill as it changes, until the first step (see {@link start}). */
  #indexAsAdded = false;
  /** Reading the summaries, finding the pairs, then reading who has a neighbour. */
  #phase: "index" | "join" | "keys" = "index";
  #keys: ((units: number) => Set<string> | undefined) | undefined;
  #indexing: IterableIterator<string> | undefined;
  #join: SimilarityJoin | undefined;
  /** Where the pairs are found while not in steps here, and what it found: batches still to take in. */
  #finder: PairFinder | undefined;
  #intake: PairIntake | undefined;
  /** False while the intake's sets are being copied, before the finder has them. */
  #handedOver = false;
  readonly #arrived: { readonly pairs: Int32Array; readonly count: number }[] = [];
  #arrivedAt = 0;
  #found = false;
  /** True once a build's pairs all came from the finder. */
  #foundElsewhere = false;
  #sleeping: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  /** Changes that came while the pairs were being found (the index is fixed meanwhile): applied after. */
  readonly #pending = new Map<string, readonly string[] | undefined>();

  /** `skills` lists the namespace's skills when the index is first needed; `lookup` finds one by URI. */
  constructor(skills: () => Iterable<SkillFile>, lookup: (uri: string) => SkillFile | undefined) {
    this.#skills = skills;
    this.#lookup = lookup;
  }

  /** True once every pair is known: from then on the warnings are complete and kept exact. */
  get ready(): boolean {
    return this.#state === "ready";
  }

  /** Until {@link start}, diagnosing a skill builds nothing: its warnings are left out rather than computed on the spot. */
  defer(): void {
    if (this.#state === "idle") this.#state = "deferred";
  }

  /**
   * Begins building the index in steps over the namespace's skills as they are now (later changes are followed);
   * with a `finder`, its pairs are found there while the steps here only take them in. With `asAdded`, a skill
   * added or changed before the first step is indexed at once rather than at its turn: a caller that starts
   * before reading the workspace then reads the summaries while it waits for the files.
   */
  start(finder?: PairFinder, asAdded = false): void {
    if (this.#state !== "idle" && this.#state !== "deferred") return;
    this.#state = "building";
    this.#finder = finder;
    this.#indexAsAdded = asAdded;
    this.#phase = "index";
    // A copy of the list, not a set of 100,000 URIs: hashing each held the main thread 40 ms or more.
    this.#startedWith = Array.from(this.#skills(), (skill) => skill.uri);
    this.#startedAt = 0;
  }

  /**
   * Does about `units` units of the building (a unit: one summary read and indexed, or compared). Answers
   * undefined while there is more to do; once the index is ready, the URIs of the skills that now have warnings.
   */
  advance(units: number): Set<string> | undefined {
    if (this.#state !== "building") return this.#state === "ready" ? new Set() : undefined;
    let budget = units;
    // From the first step on, a change is indexed at its turn again.
    this.#indexAsAdded = false;
    while (budget > 0) {
      if (this.#phase === "index") {
        if (this.#startedAt < this.#startedWith.length) {
          const uri = this.#startedWith[this.#startedAt++] as string;
          const skill = this.#lookup(uri);
          budget--;
          if (competesOnMenu(skill)) this.#index.setSummary(uri, skill.summary ?? "");
          continue;
        }
        this.#startedWith = [];
        // One live iterator: a skill deleted once visited and added again by a change comes round again at the end.
        this.#indexing ??= this.#toIndex.values();
        const next = this.#indexing.next();
        if (next.done) {
          this.#indexing = undefined;
          this.#phase = "join";
          continue;
        }
        budget--;
        const uri = next.value;
        this.#toIndex.delete(uri);
        const skill = this.#lookup(uri);
        this.#index.setSummary(uri, competesOnMenu(skill) ? (skill.summary ?? "") : undefined);
      } else {
        if (this.#phase === "keys") {
          // Who has a neighbour is read from the pairs kept; each skill's closest were kept as the pairs came.
          this.#keys ??= this.#index.keysWithNeighboursInSteps();
          const warned = this.#keys(budget * KEYS_PER_UNIT);
          budget = 0;
          if (!warned) continue;
          this.#keys = undefined;
          // The changes that came meanwhile: whoever they may give or take a warning is told too.
          for (const [uri, terms] of this.#pending) {
            for (const affected of this.#apply(uri, terms)) warned.add(affected);
            warned.add(uri);
          }
          this.#pending.clear();
          this.#state = "ready";
          return warned;
        }
        if (this.#finder && !this.#join && !this.#intake) this.#startElsewhere();
        if (this.#intake && !this.#handedOver) {
          // The sets are copied in steps, then handed to the finder (which may decline: then the steps are here).
          const copied = this.#intake.copy(budget * COPY_SETS_PER_UNIT);
          budget = 0;
          if (!copied) continue;
          this.#handOver();
          continue;
        }
        if (this.#intake) {
          budget = this.#takeIn(budget);
          if (!this.#found || this.#arrived.length > 0) {
            if (budget > 0) return undefined;
            continue;
          }
          const linked = this.#intake.finish(budget * LIST_ENTRIES_PER_UNIT);
          budget = 0;
          if (!linked) continue;
          this.#intake = undefined;
          this.#foundElsewhere = true;
        } else {
          this.#join ??= this.#index.startLink(LIMIT);
          const done = this.#join.advance(budget);
          budget = 0;
          if (!done) continue;
          this.#join = undefined;
        }
        this.#phase = "keys";
      }
    }
    return undefined;
  }

  /** True when the pairs of the build came from the finder (false: found here, in steps). */
  get foundElsewhere(): boolean {
    return this.#foundElsewhere;
  }

  /**
   * While the pairs are being found elsewhere and none waits to be taken in: settles when some come (or the
   * finder ends or fails), so the caller need not step in the meantime. Undefined otherwise.
   */
  get waiting(): Promise<void> | undefined {
    if (!this.#intake || !this.#handedOver || this.#found || this.#arrived.length > 0) return undefined;
    this.#sleeping ??= new Promise<void>((resolve) => (this.#wake = resolve));
    return this.#sleeping;
  }

  /** Begins a join whose pairs the finder finds: its sets are copied first ({@link advance}), then handed over. */
  #startElsewhere(): void {
    this.#intake = this.#index.startLinkElsewhere(LIMIT, (this.#finder as PairFinder).allocate);
    this.#handedOver = false;
  }

  /** Hands the copied sets to the finder; when it declines, the join is left to the steps here. */
  #handOver(): void {
    const intake = this.#intake as PairIntake;
    this.#handedOver = true;
    const wake = () => {
      const waiting = this.#wake;
      this.#wake = undefined;
      this.#sleeping = undefined;
      waiting?.();
    };
    // Set before asking: a finder may deliver before it answers.
    this.#found = false;
    const finding = (this.#finder as PairFinder).find(intake.sets, (pairs, count) => {
      if (this.#intake !== intake) return;
      this.#arrived.push({ pairs, count });
      wake();
    });
    if (!finding) {
      intake.abandon();
      this.#intake = undefined;
      this.#arrived.length = 0;
      this.#finder = undefined;
      return;
    }
    finding.then(
      () => {
        if (this.#intake !== intake) return;
        this.#found = true;
        wake();
      },
      () => {
        if (this.#intake !== intake) return;
        // Some pairs may be missing: they are all found again here, in steps.
        intake.abandon();
        this.#intake = undefined;
        this.#finder = undefined;
        this.#arrived.length = 0;
        this.#arrivedAt = 0;
        wake();
      },
    );
  }

  /** Takes in up to `budget` units of the pairs that came; answers the budget left. */
  #takeIn(budget: number): number {
    const intake = this.#intake as PairIntake;
    while (budget > 0) {
      const batch = this.#arrived[0];
      if (!batch) break;
      const to = Math.min(batch.count, this.#arrivedAt + budget * PAIRS_PER_UNIT);
      intake.accept(batch.pairs, this.#arrivedAt, to);
      budget -= Math.max(1, Math.ceil((to - this.#arrivedAt) / PAIRS_PER_UNIT));
      this.#arrivedAt = to;
      if (to === batch.count) {
        this.#arrived.shift();
        this.#arrivedAt = 0;
      }
    }
    return budget;
  }

  /** Follows a skill's change (undefined: absent before, or removed). Answers the other URIs to diagnose again. */
  change(uri: string, previous: SkillFile | undefined, next: SkillFile | undefined): string[] {
    if (this.#state === "idle" || this.#state === "deferred") return [];
    if (menuKey(previous) === menuKey(next)) return [];
    if (this.#state === "building" && this.#phase === "index" && !this.#index.has(uri)) {
      // Not indexed yet: indexed now when started so (see start), else its turn reads it as it is then (a skill
      // removed reads as nothing).
      if (this.#indexAsAdded) {
        this.#index.setSummary(uri, competesOnMenu(next) ? (next.summary ?? "") : undefined);
        this.#finder?.expect?.(this.#index.size);
      } else {
        this.#toIndex.add(uri);
      }
      return [];
    }
    const terms = termsOf(next);
    if (this.#state === "building" && this.#phase !== "index") {
      this.#pending.set(uri, terms);
      return [];
    }
    const affected = this.#apply(uri, terms);
    if (this.#state === "building") return [];
    affected.delete(uri);
    return [...affected];
  }

  /**
   * Sets a skill's terms in the index and forgets the closest neighbours of everyone it was or is now close to.
   */
  #apply(uri: string, terms: readonly string[] | undefined): Set<string> {
    const affected = new Set(this.#index.neighbours(uri).map((neighbour) => neighbour.key));
    this.#index.setTerms(uri, terms);
    for (const neighbour of this.#index.neighbours(uri)) affected.add(neighbour.key);
    this.#closest.delete(uri);
    for (const key of affected) this.#closest.delete(key);
    return affected;
  }

  /** False when {@link diagnose} surely answers nothing for the skill (true: it may warn, or build the index to tell). */
  mayWarn(skill: SkillFile): boolean {
    if (!competesOnMenu(skill) || this.#state === "deferred" || this.#state === "building") return false;
    if (this.#state === "idle") return true;
    let found = this.#closest.get(skill.uri);
    if (!found) {
      // Not asked yet since the comparison or since a change near it: asked now, and kept only when it has a
      // neighbour, whose warnings are made next.
      found = this.#index.closest(skill.uri, LIMIT);
      if (found.closest.length > 0) this.#closest.set(skill.uri, found);
    }
    return found.closest.length > 0;
  }

  /**
   * The skill's `menu-similar` warning: one, naming its closest neighbours (at most {@link MAX_SIMILAR_REPORTED}),
   * each also a related location, and how many more there are.
   */
  diagnose(skill: SkillFile, lookup: (uri: string) => SkillFile | undefined): CoreDiagnostic[] {
    return this.#diagnose(skill, lookup, true);
  }

  /**
   * {@link diagnose} for a report that asks each skill once (`check`): the skill's closest are not kept for the
   * next ask. Kept, they made the report after the join about 0.1 s longer at 100,000 skills (0.61 → 0.50 s,
   * medians of 4 alternating runs on the bench's realistic ones).
   */
  diagnoseOnce(skill: SkillFile, lookup: (uri: string) => SkillFile | undefined): CoreDiagnostic[] {
    return this.#diagnose(skill, lookup, false);
  }

  #diagnose(skill: SkillFile, lookup: (uri: string) => SkillFile | undefined, keep: boolean): CoreDiagnostic[] {
    if (!competesOnMenu(skill)) return [];
    if (this.#state === "idle") this.#activate();
    if (this.#state !== "ready") return [];
    let found = this.#closest.get(skill.uri);
    if (!found) {
      found = this.#index.closest(skill.uri, LIMIT);
      if (keep) this.#closest.set(skill.uri, found);
    }
    const { closest, total } = found;
    // One pass over the neighbours: `check` asks this of every warned skill (45,000 of 100,000 realistic ones).
    const shown: ShownNeighbour[] = [];
    let dropped = 0;
    for (const neighbour of closest) {
      const other = lookup(neighbour.key);
      // Two files with one handle are a duplicate-handle error already.
      if (!competesOnMenu(other) || other.slug === skill.slug) dropped++;
      else if (shown.length < MAX_SIMILAR_REPORTED) shown.push({ score: neighbour.score, other });
    }
    if (shown.length === 0) return [];
    const more = total - dropped - shown.length;
    return [new MenuSimilarWarning(skill.summaryRange ?? skill.lines.rangeOf(0, 0), similarMessage(skill.slug, shown, more), shown)];
  }

  #activate(): void {
    this.#state = "ready";
    const summaries: [string, string][] = [];
    for (const skill of this.#skills()) if (competesOnMenu(skill)) summaries.push([skill.uri, skill.summary ?? ""]);
    this.#index.build(summaries);
    // One query per group of identical summaries fills every skill's neighbours: diagnosing a whole workspace then reads them.
    for (const [uri, found] of this.#index.allClosest(LIMIT)) this.#closest.set(uri, found);
  }
}

/**
 * A skill's `menu-similar` warning. Its related locations are made when read: `check`'s text report names the
 * neighbours in its message and never reads them (at 100,000 skills, 45,000 warned, a profile of `check` had
 * 364 ms under this report, 297 ms with them made when read). A class rather than an object with a getter: made
 * for each of 45,000 skills at once when the comparison ends.
 */
class MenuSimilarWarning implements CoreDiagnostic {
  readonly severity = "warning";
  readonly code = DiagnosticCodes.menuSimilar;
  readonly #shown: readonly ShownNeighbour[];
  #related: RelatedInformation[] | undefined;

  constructor(
    readonly range: Range,
    readonly message: string,
    shown: readonly ShownNeighbour[],
  ) {
    this.#shown = shown;
  }

  get related(): readonly RelatedInformation[] {
    return (this.#related ??= this.#shown.map(({ score, other }) => ({
      uri: other.uri,
      range: other.summaryRange ?? other.lines.rangeOf(0, 0),
      message: `@${other.slug}'s summary (similarity ${score.toFixed(2)})`,
    })));
  }
}

/** A close neighbour a warning names, with its similarity. */
interface ShownNeighbour {
  readonly score: number;
  readonly other: SkillFile;
}

/**
 * The message of a skill's one warning for all its close neighbours. A warning for each put up to five alike
 * warnings on one summary: 141,000 lines of `check` at 100,000 realistic skills, of which 45,000 have a neighbour.
 */
function similarMessage(slug: string, shown: readonly ShownNeighbour[], more: number): string {
  const rest = more > 0 ? ` ${more} more skill${more === 1 ? " is" : "s are"} as close.` : "";
  const first = shown[0];
  if (shown.length === 1 && first)
    return (
      `The summary of @${slug} is so like @${first.other.slug}'s (similarity ${first.score.toFixed(2)}; the warning starts at ${THRESHOLD_TEXT}) ` +
      `that a small planner may not tell them apart and pick either for the same request. Say what sets each apart, or take one off the menu ` +
      `(advertised: false) and mention it from the other.${rest}`
    );
  // A handle that several files claim (a duplicate-handle error of its own) is named once, at its closest.
  const slugs = new Set<string>();
  const named = shown.filter(({ other }) => !slugs.has(other.slug) && slugs.add(other.slug));
  if (named.length === 1) return similarMessage(slug, named, more);
  const list = named.map(({ score, other }, index) => `${index === 0 ? "" : index === named.length - 1 ? " and " : ", "}@${other.slug}'s (${index === 0 ? "similarity " : ""}${score.toFixed(2)})`);
  return (
    `The summary of @${slug} is so like ${list.join("")} that a small planner may not tell them apart and pick any of them for the same ` +
    `request (the warning starts at ${THRESHOLD_TEXT}). Say what sets each apart, or take all but one off the menu (advertised: false) and ` +
    `mention them from the one left.${rest}`
  );
}

function termsOf(skill: SkillFile | undefined): readonly string[] | undefined {
  return competesOnMenu(skill) ? summaryTerms(skill.summary ?? "") : undefined;
}
