/** How the entry point knows it runs as a language server, and the V8 settings the server and the command line take. */
import { availableParallelism } from "node:os";
import { getHeapStatistics, setFlagsFromString } from "node:v8";

const TRANSPORTS = ["--stdio", "--node-ipc", "--socket", "--pipe", "--clientProcessId"];

/** Whether these arguments start the language server (a transport flag) rather than the command line. */
export function runsAsServer(args: readonly string[]): boolean {
  return args.some((arg) => TRANSPORTS.some((flag) => arg === flag || arg.startsWith(`${flag}=`)));
}

/**
 * How much a long-lived server's old generation may grow from one full collection to the next (V8's
 * `--heap-growing-percent`; its own factor goes up to 4×). During the first index the heap only grows, and each
 * full collection marks all of it on the collector's helper thread, which shares two cores with the reading
 * thread: at 40% the first index of 100,000 skills ran six marking cycles, at 100% three, and the index ended
 * 7-14% sooner (50,000 and 100,000 skills, alternating cold starts). After it, the comparison and the workspace
 * report make garbage faster than V8's factor collects it, so the growth is capped at 40% then, and once the heap
 * is large: at 100,000 skills 380-390 MB at the peak against 500 with V8's factor, and 474 with 150% kept
 * through the index.
 * A one-shot command keeps V8's factor: `check` on 100,000 skills spent 1.8 s collecting at 40% against 1.3 s.
 */
const FIRST_INDEX_GROWTH_PERCENT = 100;
const SETTLED_GROWTH_PERCENT = 40;

/**
 * The growth in force, kept on the global object: the launcher (dist/server.js) and the bundle each hold their
 * own copy of this module.
 */
const GROWTH = Symbol.for("skill-lsp.oldGenerationGrowth");

/** The growth last set by {@link setGrowth}; undefined in a process that never set one (the command line). */
function growthInForce(): number | undefined {
  const percent = (globalThis as Record<symbol, unknown>)[GROWTH];
  return typeof percent === "number" ? percent : undefined;
}

function applyGrowthFlag(percent: number): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}

function setGrowth(percent: number): void {
  applyGrowthFlag(percent);
  (globalThis as Record<symbol, unknown>)[GROWTH] = percent;
}

/** The server's growth from its start to the end of its first index (or a large heap). Setting the same value again changes nothing. */
export function growOldGenerationForFirstIndex(): void {
  setGrowth(FIRST_INDEX_GROWTH_PERCENT);
}

/** The server's growth once its first index has ended. */
export function capOldGenerationGrowth(): void {
  setGrowth(SETTLED_GROWTH_PERCENT);
}

/**
 * The heap in use above which the first index's growth is capped already: a limit set at double the heap near
 * the index's end is one the comparison's garbage then fills before the next collection.
 */
const CAP_ABOVE_BYTES = 128 * 1024 * 1024;

/** Caps the growth once the heap in use is large (see CAP_ABOVE_BYTES): asked now and then while the first index runs. */
export function capOldGenerationGrowthWhenLarge(): void {
  if (growthInForce() === SETTLED_GROWTH_PERCENT) return;
  if (getHeapStatistics().used_heap_size >= CAP_ABOVE_BYTES) capOldGenerationGrowth();
}

/**
 * `make` run under the growth a fresh server compiles its bundle under, the growth in force restored after: V8
 * stamps a code cache with the flags in force when it is made, and rejects a cache made under other flags.
 */
export function underStartFlags<T>(make: () => T): T {
  const now = growthInForce();
  if (now === undefined || now === FIRST_INDEX_GROWTH_PERCENT) return make();
  applyGrowthFlag(FIRST_INDEX_GROWTH_PERCENT);
  try {
    return make();
  } finally {
    applyGrowthFlag(now);
  }
}

/**
 * On two cores or fewer, a command compiles its optimized code on the thread that runs it rather than on V8's
 * background thread: `check` keeps its own threads busy (the main one, the reading thread, the two join threads),
 * so a background job only waits for a core while the code it would replace runs slower. On 100,000 skills,
 * `check` took 5.01 s rather than 5.35 s, and in a second set 5.01 s rather than 5.19 s (medians of 10 and of 6
 * alternating runs on two cores). The language server keeps compiling in the background: its threads are idle
 * between requests, and a compile on its thread would hold up an answer (its first index was no faster without,
 * 1,992 against 2,058 ms at 50,000 skills).
 */
export function compileInForegroundOnFewCores(): void {
  if (availableParallelism() <= 2) setFlagsFromString("--no-concurrent-recompilation");
}
