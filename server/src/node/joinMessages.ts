import type { JoinInput } from "../core/similarityIndex.js";

/** Positions a thread takes at a time from the shared counter: small, as positions grow costlier towards the end. */
export const JOIN_CHUNK = 64;

/** Pairs (triples) a thread sends at a time: the main thread takes them in without a long pause. */
export const JOIN_BATCH_PAIRS = 16_384;

/** To a join thread: the input, and either the shared index or `build` (build it, send it, then probe). */
export interface JoinRequest {
  readonly input: JoinInput;
  /** Shared: the next chunk of positions to probe, taken with Atomics.add. */
  readonly next: Int32Array;
  readonly build: boolean;
  /** The index's arrays ({@link JoinIndex.arrays}), shared, when not `build`. */
  readonly index?: readonly Int32Array[];
}

/** From a join thread. */
export type JoinReply =
  | { readonly kind: "index"; readonly arrays: readonly Int32Array[] }
  | { readonly kind: "pairs"; readonly pairs: Int32Array; readonly count: number; readonly last: boolean };
