import type { Int32Allocator, JoinSets } from "../core/similarityIndex.js";

/** Arrays in memory shared between threads: posted to another thread, they are not copied. */
export const sharedArrays: Int32Allocator = (length) => new Int32Array(new SharedArrayBuffer(4 * length));

/** Positions a thread takes at a time from the shared counter: small, as positions grow costlier towards the end. */
export const JOIN_CHUNK = 64;

/** Positions a building thread fills between two reports of how far it has come. */
export const JOIN_FILL_STEP = 256;

/** Pairs (triples) a thread sends at a time: the main thread takes them in without a long pause. */
export const JOIN_BATCH_PAIRS = 16_384;

/**
 * To a join thread, first: the sets (it makes the join's input from them), and which part of the index to build
 * (into shared memory): it sends the part back once laid out, then fills it; then {@link JoinIndexParts}: every
 * thread's part, to probe against as far as every part is filled.
 */
export interface JoinRequest {
  readonly sets: JoinSets;
  /** Shared: the next chunk of positions to probe, taken with Atomics.add. */
  readonly next: Int32Array;
  /** Shared, by part: how many positions are filled in, stored (Atomics.store) as its builder goes. */
  readonly filled: Int32Array;
  /** The part of the index it builds; -1 for a thread that only probes. */
  readonly part: number;
  readonly parts: number;
  /** Run below the other threads' priority (see {@link ThreadedJoinOptions.background}). */
  readonly background: boolean;
}

/** To a join thread, second: the arrays ({@link JoinIndex.arrays}) of every part, in part order. */
export interface JoinIndexParts {
  readonly parts: readonly (readonly Int32Array[])[];
}

/** From a join thread: its part of the index (laid out, not yet filled), then its pairs in batches. */
export type JoinReply =
  | { readonly kind: "index"; readonly arrays: readonly Int32Array[] }
  | { readonly kind: "pairs"; readonly pairs: Int32Array; readonly count: number; readonly last: boolean };
