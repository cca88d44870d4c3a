/**
 * A thread of the menu-similar join (dist/join-worker.js): lays out its part of the whole prefix index in shared
 * memory, sends it, and fills it in position order, saying how far it has come; then probes chunks of positions
 * against every part. A chunk is probed once every part is filled past it, so a thread that only probes starts
 * while the index is still being filled: at 100,000 realistic summaries it had waited 0.4-0.5 s for the whole
 * index. The pairs go back in batches of (a, b, shared terms), the sets' numbers in the input.
 */
import { readlinkSync } from "node:fs";
import { constants, setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { JoinIndex, JoinProber, joinInputOf, type JoinInput } from "../core/similarityIndex.js";
import { JOIN_BATCH_PAIRS, JOIN_CHUNK, JOIN_FILL_STEP, sharedArrays, type JoinIndexParts, type JoinReply, type JoinRequest } from "./joinMessages.js";

const port = parentPort;
port?.once("message", (request: JoinRequest) => {
  if (request.background) lowerThisThread();
  const input = joinInputOf(request.sets);
  port.once("message", (index: JoinIndexParts) => probe(request, input, JoinIndex.of(index.parts)));
  // A thread that only probes (part -1) waits for the others' parts, laid out, and probes as they are filled.
  if (request.part < 0) return;
  const building = JoinIndex.laidOut(input, sharedArrays, request.part, request.parts);
  const laidOut: JoinReply = { kind: "index", arrays: building.index.arrays };
  port.postMessage(laidOut);
  const count = input.order.length;
  for (let to = 0; to < count; ) {
    to = Math.min(count, to + JOIN_FILL_STEP);
    building.fillTo(to);
    Atomics.store(request.filled, request.part, to);
    Atomics.notify(request.filled, request.part);
  }
});

/** Returns once every part of the index is filled up to `position`. */
function waitUntilFilled(filled: Int32Array, position: number): void {
  for (let part = 0; part < filled.length; part++) {
    let now: number;
    // A bounded wait: a thread told to stop meanwhile is not held here.
    while ((now = Atomics.load(filled, part)) < position) Atomics.wait(filled, part, now, 50);
  }
}

function probe(request: JoinRequest, input: JoinInput, index: JoinIndex): void {
  const { next } = request;
  const out = port as NonNullable<typeof port>;
  const prober = new JoinProber(input, index);
  const order = input.order;
  const count = order.length;
  let pairs = new Int32Array(3 * JOIN_BATCH_PAIRS);
  let found = 0;
  const send = (last: boolean) => {
    const reply: JoinReply = { kind: "pairs", pairs, count: found, last };
    out.postMessage(reply, [pairs.buffer as ArrayBuffer]);
    pairs = new Int32Array(last ? 0 : 3 * JOIN_BATCH_PAIRS);
    found = 0;
  };
  const take = (position: number, other: number, sharedTerms: number) => {
    pairs[3 * found] = order[position] as number;
    pairs[3 * found + 1] = order[other] as number;
    pairs[3 * found + 2] = sharedTerms;
    if (++found === JOIN_BATCH_PAIRS) send(false);
  };
  for (;;) {
    const from = Atomics.add(next, 0, 1) * JOIN_CHUNK;
    if (from >= count) break;
    const to = Math.min(count, from + JOIN_CHUNK);
    // A position's probe reads only the entries of those before it.
    waitUntilFilled(request.filled, to - 1);
    for (let position = from; position < to; position++) prober.probe(position, take);
  }
  send(true);
}

/**
 * Linux keeps a nice value per thread: this thread's becomes 19, the lowest, so the server's own thread and the
 * editor take a core the moment they need one, and the join still gets about a seventieth of one against a busy
 * normal-priority process. Elsewhere the priority is the whole process's, and it stays. At 100,000 skills, with
 * completion asked every 20 ms during the comparison as the bench asks it (`bench/cold.mjs --compare`, two join
 * threads on two cores), its p95 was 4.0-8.8 ms (median 4.4 ms) at 19 against 4.9-10.7 ms (median 6.5 ms) at 10,
 * the nice value these threads had (6 alternating runs each); the comparison took as long. With one join thread
 * and completion asked without pause, 10 and 19 had come out alike (1.5-2.2 ms).
 */
function lowerThisThread(): void {
  if (process.platform !== "linux") return;
  try {
    const thread = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(thread) && thread > 0) setPriority(thread, constants.priority.PRIORITY_LOW);
  } catch {
    // No /proc, or not allowed: the join runs at the usual priority.
  }
}
