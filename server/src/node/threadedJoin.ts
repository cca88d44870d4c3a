import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import { startBundledWorker } from "./bundledWorker.js";
import type { PairFinder } from "../core/menuCompetition.js";
import { setCount, type JoinSets } from "../core/similarityIndex.js";
import { sharedArrays, type JoinIndexParts, type JoinReply, type JoinRequest } from "./joinMessages.js";

/** Below this many summaries the join takes less than starting a thread does. */
const MINIMUM_SETS = 2_000;

/** Up to `count` join threads: as many as start. */
function startWorkers(count: number): Worker[] {
  const workers: Worker[] = [];
  try {
    for (let k = 0; k < count; k++) {
      const worker = startBundledWorker("join-worker.js", "joinWorker.ts");
      if (!worker) break;
      workers.push(worker);
    }
  } catch {
    // Those that started.
  }
  return workers;
}

export interface ThreadedJoinOptions {
  /** Threads that build the index, then probe (default: `SKILL_LSP_JOIN_THREADS`, else the cores, at most 2). */
  readonly threads?: number;
  /** Leave one core to the calling thread (and the editor beside it): by default one thread fewer than the cores. */
  readonly spareCore?: boolean;
  /** Run the threads below the caller's priority, on a system that sets it per thread (Linux; see joinWorker.ts). */
  readonly background?: boolean;
  /**
   * Threads that only probe, started with the builders and given the index once it is built (default none): the
   * index is built once rather than in parts whose keys every builder enumerates in full.
   */
  readonly probers?: number;
  /** The fewest sets worth a thread (default 2,000). */
  readonly minimumSets?: number;
}

/**
 * Finds the menu-similar join's pairs on threads of their own, so the calling thread stays free: each building
 * thread lays out a part of the whole prefix index (the keys ≡ its number modulo the threads) in shared memory, at
 * the same time, and fills it in position order; once every part is laid out, threads that only probe (`probers`)
 * probe chunks of positions, taken from one shared counter, as far as every part is filled, and each builder
 * joins them when its part is full. The index is in memory once,
 * whatever the threads. Declines (undefined) for a small join, when `SKILL_LSP_JOIN=main`, or when no thread can
 * start; a thread that fails rejects the promise (the caller then finds the pairs itself, from the start).
 */
export class ThreadedPairFinder implements PairFinder {
  readonly #threads: number;
  readonly #minimumSets: number;
  readonly #background: boolean;
  readonly #probers: number;
  /** The sets are copied into shared memory: posted to each thread, they are not copied again. */
  readonly allocate = sharedArrays;
  /** Threads started by {@link expect}, waiting for a join. */
  #early: Worker[] = [];
  readonly #lost = new WeakSet<Worker>();

  constructor(options: ThreadedJoinOptions = {}) {
    const fromEnvironment = Number(process.env.SKILL_LSP_JOIN_THREADS);
    const cores = availableParallelism() - (options.spareCore ? 1 : 0);
    this.#threads = Math.max(1, options.threads ?? (Number.isInteger(fromEnvironment) && fromEnvironment > 0 ? fromEnvironment : Math.min(2, cores)));
    this.#minimumSets = options.minimumSets ?? MINIMUM_SETS;
    this.#background = options.background ?? false;
    this.#probers = Math.max(0, options.probers ?? 0);
  }

  /**
   * A join of at least `sets` sets is coming: once that is as many as threads are worth, they start now, and are
   * ready when the sets are (at 100,000 skills each took 60-70 ms to start and load its script).
   */
  expect(sets: number): void {
    if (this.#early.length > 0 || sets < this.#minimumSets || process.env.SKILL_LSP_JOIN === "main") return;
    const workers = startWorkers(this.#threads + this.#probers);
    for (const worker of workers) {
      // Idle, they hold nothing open; one that fails meanwhile is left out of the join.
      worker.unref();
      worker.once("error", () => undefined);
      worker.once("exit", () => this.#lost.add(worker));
    }
    this.#early = workers;
  }

  find(sets: JoinSets, deliver: (pairs: Int32Array, count: number) => void): Promise<void> | undefined {
    const early = this.#early.filter((worker) => !this.#lost.has(worker));
    this.#early = [];
    if (process.env.SKILL_LSP_JOIN === "main" || setCount(sets) < this.#minimumSets) {
      for (const worker of early) void worker.terminate();
      return undefined;
    }
    for (const worker of early) worker.ref();
    // Fewer threads than asked, or none, when some cannot start: the join runs on those that did.
    const workers = early.length > 0 ? early.slice(0, this.#threads) : startWorkers(this.#threads);
    if (workers.length === 0) return undefined;
    const builders = workers.length;
    // Without probers the builders probe alone.
    workers.push(...(early.length > 0 ? early.slice(this.#threads) : startWorkers(this.#probers)));
    const next = new Int32Array(new SharedArrayBuffer(4));
    const filled = new Int32Array(new SharedArrayBuffer(4 * builders));
    const parts: (readonly Int32Array[])[] = [];
    let partsIn = 0;
    return new Promise<void>((resolve, reject) => {
      let running = 0;
      let settled = false;
      const stop = () => {
        settled = true;
        for (const worker of workers) void worker.terminate();
      };
      const watch = (worker: Worker, part: number) => {
        running++;
        let finished = false;
        worker.on("message", (reply: JoinReply) => {
          if (settled) return;
          if (reply.kind === "index") {
            parts[part] = reply.arrays;
            if (++partsIn < builders) return;
            const index: JoinIndexParts = { parts };
            for (const each of workers) each.postMessage(index);
            return;
          }
          deliver(reply.pairs, reply.count);
          if (reply.last) finished = true;
          if (reply.last && --running === 0) {
            stop();
            resolve();
          }
        });
        const lost = (error?: unknown) => {
          if (settled || finished) return;
          stop();
          reject(error instanceof Error ? error : new Error("A join thread stopped before its end."));
        };
        worker.on("error", lost);
        worker.on("exit", () => lost());
      };
      workers.forEach((worker, k) => {
        const part = k < builders ? k : -1;
        watch(worker, part);
        worker.postMessage({ sets, next, filled, part, parts: builders, background: this.#background } satisfies JoinRequest);
      });
    });
  }
}
