/**
 * The menu-similar join shared out: probes of a whole prefix index in any order, and the join on real threads
 * (the worker script run from its source), give exactly the pairs of the join in steps and of brute force, on
 * generated summaries and on real skills' descriptions; a namespace whose pairs come from threads ends with the
 * warnings of one built at once, whatever changed meanwhile.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { getPriority } from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { MENU_SIMILARITY_THRESHOLD, MIN_SUMMARY_TERMS, Namespace, summaryTerms, termSimilarity, type CoreDiagnostic } from "../../server/src/core/index.js";
import { JoinIndex, JoinProber, SimilarityJoin, joinInputOf, joinSets, pairScore, type JoinInput, type JoinSets, type PairFinder } from "../../server/src/core/index.js";
import { ThreadedPairFinder } from "../../server/src/node/threadedJoin.js";
import { skillUri, workspace } from "./helpers.js";

/** Summaries from a small vocabulary: most share words, many pairs are at or above the line. */
function generated(count: number, seed: number): string[] {
  let state = seed;
  const random = () => (state = (Math.imul(state, 48271) >>> 0) % 2147483647) / 2147483647;
  const words = ["search", "notes", "calendar", "draft", "reply", "message", "check", "weekly", "daily", "report", "digest", "audit", "brief", "filter", "index", "meeting", "invoice", "travel", "budget", "review"];
  return Array.from({ length: count }, () => Array.from({ length: 2 + Math.floor(random() * 9) }, () => words[Math.floor(random() * words.length)]).join(" "));
}

/** The descriptions of the SKILL.md files under a folder (real skill libraries, when this machine has them). */
function descriptions(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name === "SKILL.md") {
        const line = /^description:\s*(.+)$/m.exec(readFileSync(full, "utf8"));
        if (line?.[1]) found.push(line[1].replace(/^["']|["']$/g, ""));
      }
    }
  };
  walk(folder);
  return found;
}

/** The join's sets over summaries, as the index makes them: term ids by first appearance, frequencies counted. */
function setsOf(summaries: readonly string[]): JoinSets {
  const ids = new Map<string, number>();
  const frequency: number[] = [];
  const sets = summaries
    .map(summaryTerms)
    .filter((terms) => terms.length >= MIN_SUMMARY_TERMS)
    .map((terms) => {
      const set = Int32Array.from(terms, (term) => {
        let id = ids.get(term);
        if (id === undefined) ids.set(term, (id = frequency.push(0) - 1));
        frequency[id] = (frequency[id] as number) + 1;
        return id;
      });
      return set.sort();
    });
  return joinSets(MENU_SIMILARITY_THRESHOLD, sets, frequency);
}

/** The join's input over summaries, as a finder makes it from their sets. */
function inputOf(summaries: readonly string[]): JoinInput {
  return joinInputOf(setsOf(summaries));
}

const sizeOf = (input: JoinInput, number: number) => {
  const position = input.order.indexOf(number);
  return (input.offsets[position + 1] as number) - (input.offsets[position] as number);
};

/** Pairs as sorted "a b score" lines, each pair once with the smaller number first. */
function lines(pairs: Iterable<readonly [number, number, number]>): string[] {
  return [...pairs].map(([a, b, score]) => `${Math.min(a, b)} ${Math.max(a, b)} ${score}`).sort();
}

function inSteps(input: JoinInput): string[] {
  const pairs: [number, number, number][] = [];
  const join = new SimilarityJoin(input, (a, b, score) => pairs.push([a, b, score]), () => undefined);
  while (!join.advance(7));
  return lines(pairs);
}

function bruteForce(summaries: readonly string[]): number {
  const terms = summaries.map(summaryTerms).filter((list) => list.length >= MIN_SUMMARY_TERMS);
  let count = 0;
  for (let i = 0; i < terms.length; i++) for (let j = i + 1; j < terms.length; j++) if (termSimilarity(terms[i] ?? [], terms[j] ?? []) >= MENU_SIMILARITY_THRESHOLD - 1e-9) count++;
  return count;
}

async function onThreads(summaries: readonly string[], threads: number, options: { background?: boolean; probers?: number; onBatch?: () => void } = {}): Promise<string[]> {
  return foundBy(new ThreadedPairFinder({ threads, minimumSets: 0, background: options.background, probers: options.probers }), summaries, options.onBatch);
}

/** The pairs a finder finds over summaries, as lines; `onBatch` is called as each batch comes. */
async function foundBy(finder: PairFinder, summaries: readonly string[], onBatch?: () => void): Promise<string[]> {
  const input = inputOf(summaries);
  const pairs: [number, number, number][] = [];
  const finding = finder.find(setsOf(summaries), (batch, count) => {
    onBatch?.();
    for (let k = 0; k < 3 * count; k += 3) {
      const a = batch[k] as number;
      const b = batch[k + 1] as number;
      pairs.push([a, b, pairScore(batch[k + 2] as number, sizeOf(input, a), sizeOf(input, b))]);
    }
  });
  assert.ok(finding, "the join threads started");
  await finding;
  return lines(pairs);
}

test("a whole prefix index, in one part or three, probed in any order finds each pair of the join in steps once, and brute force's count", () => {
  const summaries = generated(1500, 7);
  const input = inputOf(summaries);
  const index = JoinIndex.whole(input);
  const prober = new JoinProber(input, index);
  const positions = Array.from(input.order, (_, position) => position).reverse();
  const pairs: [number, number, number][] = [];
  for (const position of positions)
    prober.probe(position, (p, other, shared) => pairs.push([input.order[p] as number, input.order[other] as number, pairScore(shared, sizeOf(input, input.order[p] as number), sizeOf(input, input.order[other] as number))]));
  const expected = inSteps(input);
  assert.deepEqual(lines(pairs), expected);
  assert.equal(expected.length, bruteForce(summaries));
  assert.ok(expected.length > 1000, String(expected.length));
  // Built in three parts (by key), as three threads would, and put together: the same pairs.
  const parted = JoinIndex.of([0, 1, 2].map((part) => JoinIndex.whole(input, undefined, part, 3).arrays));
  const fromParts: [number, number, number][] = [];
  const partProber = new JoinProber(input, parted);
  for (const position of positions) partProber.probe(position, (p, other, shared) => fromParts.push([input.order[p] as number, input.order[other] as number, pairScore(shared, sizeOf(input, input.order[p] as number), sizeOf(input, input.order[other] as number))]));
  assert.deepEqual(lines(fromParts), expected);
});

test("an index laid out and filled part way: a position probed once those before it are filled finds its pairs of the whole join", () => {
  const summaries = generated(2000, 17);
  const input = inputOf(summaries);
  const count = input.order.length;
  const pairOf = (p: number, other: number, shared: number): [number, number, number] => [input.order[p] as number, input.order[other] as number, pairScore(shared, sizeOf(input, input.order[p] as number), sizeOf(input, input.order[other] as number))];
  // Each pair of the whole join, by its later position.
  const whole = new JoinProber(input, JoinIndex.whole(input));
  const byPosition = Array.from({ length: count }, (_, position) => {
    const found: [number, number, number][] = [];
    whole.probe(position, (p, other, shared) => found.push(pairOf(p, other, shared)));
    return lines(found);
  });
  assert.deepEqual(byPosition.flat().sort(), inSteps(input));
  for (const filledTo of [0, 1, 37, Math.floor(count / 2), count - 1]) {
    const building = JoinIndex.laidOut(input);
    building.fillTo(filledTo);
    // What a prober on another thread relies on: each key's list (a slot of four words: key, block, first
    // position, older block; a block: three words of header, then position and place) reads in increasing order
    // at every moment, the entries not yet written past every position filled.
    const arrays = building.index.arrays;
    for (let table = 0; table < arrays.length; table += 2) {
      const slots = arrays[table] as Int32Array;
      const data = arrays[table + 1] as Int32Array;
      for (let at = 0; at < slots.length; at += 4) {
        if (slots[at] === -1) continue;
        const block = slots[at + 1] as number;
        let previous = -1;
        for (let e = block + 3; e < block + 3 + 2 * (data[block + 2] as number); e += 2) {
          const entry = data[e] as number;
          assert.ok(entry >= previous, `a list out of order with ${filledTo} filled`);
          previous = entry;
        }
      }
    }
    const prober = new JoinProber(input, building.index);
    for (let position = 0; position <= filledTo; position++) {
      const found: [number, number, number][] = [];
      prober.probe(position, (p, other, shared) => found.push(pairOf(p, other, shared)));
      assert.deepEqual(lines(found), byPosition[position], `position ${position} with ${filledTo} filled`);
    }
  }
});

test("on one, two and three threads, and with threads that only probe: the pairs of the join in steps, each once", async () => {
  const summaries = generated(4000, 11);
  const expected = inSteps(inputOf(summaries));
  assert.ok(expected.length > 10_000, String(expected.length));
  for (const threads of [1, 2, 3]) assert.deepEqual(await onThreads(summaries, threads), expected, `${threads} threads`);
  for (const [threads, probers] of [[1, 1], [2, 1], [1, 2]] as const) assert.deepEqual(await onThreads(summaries, threads, { probers }), expected, `${threads} building, ${probers} probing`);
});

/** The nice value of each of this process's threads (Linux), by thread id. */
function threadNiceValues(): Map<number, number> {
  const values = new Map<number, number>();
  for (const thread of readdirSync("/proc/self/task")) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${thread}/stat`, "utf8");
    } catch {
      // A thread that ended since the folder was listed (an earlier test's worker stopping, say).
      continue;
    }
    // The fields after the command's closing parenthesis start at the third; the nice value is the nineteenth.
    const fields = stat.split(") ")[1]?.split(" ") ?? [];
    values.set(Number(thread), Number(fields[16]));
  }
  return values;
}

test("in the background on Linux: the join threads run at the lowest priority, the calling thread at its own, and the pairs are the same", { skip: process.platform !== "linux" ? "the priority is per thread on Linux only" : getPriority() >= 19 ? "this process runs at the lowest priority already" : false }, async () => {
  const summaries = generated(4000, 5);
  const own = getPriority();
  const seen: Map<number, number>[] = [];
  const pairs = await onThreads(summaries, 2, { background: true, onBatch: () => seen.push(threadNiceValues()) });
  assert.deepEqual(pairs, inSteps(inputOf(summaries)));
  assert.ok(seen.length > 0);
  const during = seen[0] as Map<number, number>;
  assert.equal(during.get(process.pid), own, "the calling thread keeps its priority");
  assert.equal([...during.values()].filter((nice) => nice === 19).length, 2, JSON.stringify([...during]));
  // Without it, no thread of the join is lowered.
  const plain: Map<number, number>[] = [];
  await onThreads(summaries, 2, { onBatch: () => plain.push(threadNiceValues()) });
  assert.ok(plain.length > 0 && [...(plain[0] as Map<number, number>).values()].every((nice) => nice === own), JSON.stringify([...(plain[0] ?? [])]));
});

test("a thread that only probes runs beside the one that builds, at the lowest priority too, and the pairs are the same, each once", { skip: process.platform !== "linux" ? "threads are counted by their priority, per thread on Linux only" : getPriority() >= 19 ? "this process runs at the lowest priority already" : false }, async () => {
  const summaries = generated(8000, 13);
  const expected = inSteps(inputOf(summaries));
  const lowered = () => [...threadNiceValues().values()].filter((nice) => nice === 19).length;
  // On a loaded machine one thread may take every chunk before the other has read the index (it then ends at
  // once): a few tries, each with the same pairs, and one of them must see both threads at a batch.
  const seen: string[] = [];
  for (let attempt = 0; attempt < 5 && !seen.some((counts) => counts.split(", ").includes("2")); attempt++) {
    const counts: number[] = [];
    assert.deepEqual(await onThreads(summaries, 1, { background: true, probers: 1, onBatch: () => counts.push(lowered()) }), expected);
    seen.push(counts.join(", "));
  }
  assert.ok(seen.some((counts) => counts.split(", ").includes("2")), `join threads seen at each batch, try by try: ${seen.join(" | ")}`);
  // Without one, a single thread at most (none once it has sent its last batch and ended).
  const alone: number[] = [];
  assert.deepEqual(await onThreads(summaries, 1, { background: true, onBatch: () => alone.push(lowered()) }), expected);
  assert.ok(alone.includes(1) && alone.every((count) => count <= 1), alone.join(", "));
});

test("threads started ahead of the join, when it is expected to be large enough, are the ones that find its pairs", { skip: process.platform !== "linux" ? "threads are counted in /proc" : false }, async () => {
  const summaries = generated(4000, 19);
  const expected = inSteps(inputOf(summaries));
  const threads = () => readdirSync("/proc/self/task").length;
  const finder = new ThreadedPairFinder({ threads: 1, probers: 1, minimumSets: 1000 });
  const before = threads();
  finder.expect(999);
  assert.equal(threads(), before, "no thread for a join too small");
  finder.expect(1000);
  const started = threads();
  assert.ok(started >= before + 2, `${before} threads, then ${started}`);
  finder.expect(4000);
  assert.equal(threads(), started, "started once");
  let during = 0;
  const found = await foundBy(finder, summaries, () => (during = Math.max(during, threads())));
  // The join runs on the threads that were waiting: none more.
  assert.ok(during > 0 && during <= started, `${during} threads during the join, ${started} before it`);
  assert.deepEqual(found, expected);
  // Expected, then declined (too few sets after all): the waiting threads are stopped.
  const declining = new ThreadedPairFinder({ threads: 1, probers: 1, minimumSets: 1000 });
  declining.expect(2000);
  assert.equal(declining.find(setsOf(generated(100, 3)), () => undefined), undefined);
});

const REAL = "/tmp/realskills";
test("on real skills' descriptions: the pairs of the join in steps", { skip: existsSync(REAL) ? false : `no real skill libraries at ${REAL}` }, async () => {
  const summaries = descriptions(REAL);
  assert.ok(summaries.length > 300, String(summaries.length));
  const input = inputOf(summaries);
  const expected = inSteps(input);
  assert.ok(expected.length > 0);
  assert.deepEqual(await onThreads(summaries, 2), expected);
});

test("SKILL_LSP_JOIN=main declines the threads, and so does a join too small for them", () => {
  const input = setsOf(generated(100, 3));
  const before = process.env.SKILL_LSP_JOIN;
  process.env.SKILL_LSP_JOIN = "main";
  try {
    assert.equal(new ThreadedPairFinder({ minimumSets: 0 }).find(input, () => undefined), undefined);
  } finally {
    if (before === undefined) delete process.env.SKILL_LSP_JOIN;
    else process.env.SKILL_LSP_JOIN = before;
  }
  assert.equal(new ThreadedPairFinder({ minimumSets: 1000 }).find(input, () => undefined), undefined);
});

test("pairs found on threads while summaries change: the warnings of a namespace built at once", async () => {
  const summaries = generated(3000, 5);
  const text = (summary: string) => `---\nsummary: ${summary}\n---\nBody.\n`;
  const texts = new Map(summaries.map((summary, k) => [skillUri(`s${k}`), text(summary)]));
  const ns = new Namespace();
  ns.deferMenuSimilarity();
  for (const [uri, body] of texts) ns.setSkill(uri, body);
  ns.startMenuSimilarity(new ThreadedPairFinder({ threads: 2, minimumSets: 0 }));
  let warned = ns.advanceMenuSimilarity(Number.MAX_SAFE_INTEGER);
  assert.equal(warned, undefined, "the pairs are being found on the threads");
  assert.ok(ns.menuSimilarityWaiting, "nothing to step while they are");
  // Changes while the threads run: a summary reworded, one removed, one added, one made like many.
  const changes: [string, string | undefined][] = [
    [skillUri("s1"), text("search notes weekly digest")],
    [skillUri("s2"), undefined],
    [skillUri("late"), text("check calendar meeting travel")],
    [skillUri("s3"), text(summaries[4] ?? "")],
  ];
  for (const [uri, body] of changes) {
    if (body === undefined) {
      ns.remove(uri);
      texts.delete(uri);
    } else {
      ns.setSkill(uri, body);
      texts.set(uri, body);
    }
  }
  const similar = (diagnostics: readonly CoreDiagnostic[]) => diagnostics.filter((diagnostic) => diagnostic.code === "menu-similar");
  for (const uri of [skillUri("s1"), skillUri("s3"), skillUri("late")]) assert.deepEqual(similar(ns.diagnose(uri)), [], "a warning before the pairs are all in");
  while ((warned = ns.advanceMenuSimilarity(64)) === undefined) await ns.menuSimilarityWaiting;
  assert.ok(ns.menuSimilarityReady);
  const fresh = workspace(Object.fromEntries(texts));
  let compared = 0;
  for (const uri of texts.keys()) {
    const expected = fresh.diagnose(uri);
    assert.deepEqual(ns.diagnose(uri), expected, uri);
    if (similar(expected).length > 0) compared++;
  }
  assert.ok(compared > 1000, String(compared));
});

test("a finder that fails after some pairs: the join runs again here, and the warnings are those of a namespace built at once", async () => {
  const summaries = generated(600, 9);
  const texts = Object.fromEntries(summaries.map((summary, k) => [skillUri(`s${k}`), `---\nsummary: ${summary}\n---\nBody.\n`]));
  const ns = new Namespace();
  ns.deferMenuSimilarity();
  for (const [uri, body] of Object.entries(texts)) ns.setSkill(uri, body);
  const failing: PairFinder = {
    find: (sets, deliver) => {
      // A real pair, then the thread is lost: what came must not stay half in.
      const first: number[] = [];
      new SimilarityJoin(joinInputOf(sets), (a, b) => first.length === 0 && first.push(a, b, 2), () => undefined).advance(Number.MAX_SAFE_INTEGER);
      deliver(Int32Array.from(first), first.length / 3);
      return new Promise((_, reject) => setTimeout(() => reject(new Error("lost")), 5));
    },
  };
  ns.startMenuSimilarity(failing);
  let warned: Set<string> | undefined;
  while ((warned = ns.advanceMenuSimilarity(64)) === undefined) await (ns.menuSimilarityWaiting ?? Promise.resolve());
  assert.ok(warned.size > 0);
  const fresh = workspace(texts);
  for (const uri of Object.keys(texts)) assert.deepEqual(ns.diagnose(uri), fresh.diagnose(uri), uri);
});
