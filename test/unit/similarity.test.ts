/**
 * Menu competition: the measure and its threshold on calibration pairs, the index against brute force, and the
 * `menu-similar` diagnostics kept exact by incremental updates.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  MAX_SIMILAR_REPORTED,
  MENU_SIMILARITY_THRESHOLD,
  Namespace,
  SimilarityIndex,
  stem,
  summarySimilarity,
  summaryTerms,
  termSimilarity,
  type CoreDiagnostic,
} from "../../server/src/core/index.js";
import { termOf } from "../../server/src/core/similarity.js";
import { termsHash } from "../../server/src/core/similarityIndex.js";
import { loadExamples, skillUri, workspace } from "./helpers.js";

const similar = (diagnostics: readonly CoreDiagnostic[]) => diagnostics.filter((diagnostic) => diagnostic.code === "menu-similar");
const skill = (summary: string, extra = "") => `---\nsummary: ${summary}\n${extra}---\nBody.\n`;

describe("the measure", () => {
  test("stems plurals and -ing/-ed forms together, and leaves short words alone", () => {
    const cases: [string, string][] = [
      ["files", "fil"],
      ["file", "fil"],
      ["meetings", "meet"],
      ["meeting", "meet"],
      ["planned", "plan"],
      ["planning", "plan"],
      ["preparing", "prepar"],
      ["prepare", "prepar"],
      ["entries", "entry"],
      ["addresses", "address"],
      ["status", "status"],
      ["calling", "call"],
      ["missed", "miss"],
      ["bring", "bring"],
      ["string", "string"],
    ];
    for (const [word, expected] of cases) assert.equal(stem(word), expected, word);
  });

  test("terms: content words only, stemmed, unique and sorted; the user, skills and function words are dropped", () => {
    assert.deepEqual(summaryTerms("Find one of the user's own files on any of their devices."), ["devic", "fil", "find"]);
    assert.deepEqual(summaryTerms("Check the calendar — meetings, free/busy — for 3 days"), ["busy", "calendar", "check", "day", "fre", "meet"]);
    assert.deepEqual(summaryTerms("The skill to use whenever you need it"), []);
  });

  test("cosine of term sets: shared / √(|a|·|b|)", () => {
    assert.equal(termSimilarity(["a", "b", "c", "d"], ["a", "b", "c", "e"]), 0.75);
    assert.equal(termSimilarity(["a"], []), 0);
    assert.equal(termSimilarity(["a", "b"], ["a", "b"]), 1);
  });

  // The calibration the threshold rests on (docs/routing.md): rewordings of one job at or above it, different
  // jobs in one domain below it.
  const rewordings: [string, string][] = [
    ["Find one of the user's own files on any of their devices.", "Find a file the user owns on one of their devices."],
    ["Check the user's calendar for a given day.", "Look up the user's calendar for a given day."],
    ["Search the notebook and memory for what the user asked.", "Search memory and the notebook for anything the user asks about."],
    ["Keep track of what the user promised someone and remind them before it is due.", "Remind the user of what they promised someone before it is due."],
    ["Sort what is waiting for the user into now, later and never.", "Sort the user's inbox into now, later and never."],
    ["Draft a reply to a message in the user's own voice.", "Write a reply to a message, in the user's voice."],
    [
      "Check the user's calendar — meetings, appointments, free/busy — for a specific day or a relative one like today, tomorrow, or this weekend.",
      "Look at the user's calendar — meetings, appointments, free/busy — for today, tomorrow, or this weekend.",
    ],
  ];
  const distinct: [string, string][] = [
    ["Check the weather for a city.", "Check the traffic for a city."],
    ["Check the user's calendar for a given day.", "Plan a trip around the user's calendar."],
    ["Find information the user asked for.", "Find files the user asked for."],
    ["Book a table at a restaurant.", "Book a flight."],
    ["Summarise a long document.", "Translate a document into another language."],
    ["Prepare the user for an upcoming meeting.", "Get the user ready for an upcoming meeting."],
  ];
  for (const [a, b] of rewordings) {
    test(`rewordings warn: ${a} ~ ${b}`, () => assert.ok(summarySimilarity(a, b) >= MENU_SIMILARITY_THRESHOLD, String(summarySimilarity(a, b))));
  }
  for (const [a, b] of distinct) {
    test(`below the line: ${a} ~ ${b}`, () => assert.ok(summarySimilarity(a, b) < MENU_SIMILARITY_THRESHOLD, String(summarySimilarity(a, b))));
  }

  test("no two skills on the examples' menu come near the line (the highest pair is 0.26)", () => {
    const ns = workspace(loadExamples());
    const menu = [...ns.skills()].filter((one) => one.enabled && one.advertised && one.summary);
    let highest = 0;
    for (const a of menu) for (const b of menu) if (a !== b) highest = Math.max(highest, summarySimilarity(a.summary ?? "", b.summary ?? ""));
    assert.ok(highest < 0.3, String(highest));
    for (const one of ns.skills()) assert.deepEqual(similar(ns.diagnose(one.uri)), [], one.uri);
  });
});

describe("the index", () => {
  const vocabulary = ["find", "file", "files", "calendar", "day", "days", "check", "meeting", "plan", "trip", "search", "memory", "note", "the", "user", "reply", "draft", "inbox"];
  const summary = fc.array(fc.constantFrom(...vocabulary), { minLength: 0, maxLength: 7 }).map((words) => words.join(" "));

  function bruteForce(summaries: ReadonlyMap<string, string>, key: string): { key: string; score: number }[] {
    const own = summaryTerms(summaries.get(key) ?? "");
    if (own.length < 2) return [];
    const found: { key: string; score: number }[] = [];
    for (const [other, text] of summaries) {
      const terms = summaryTerms(text);
      if (other === key || terms.length < 2) continue;
      const score = termSimilarity(own, terms);
      if (score >= MENU_SIMILARITY_THRESHOLD - 1e-9) found.push({ key: other, score });
    }
    return found.sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : 1));
  }

  /** Applies the edits to the index (read in place, or as text) and to `current`; then every key's neighbours must be brute force's. */
  function assertEditsMatchBruteForce(index: SimilarityIndex, current: Map<string, string>, edits: readonly (readonly [number, string | undefined])[], inPlace: boolean): void {
    for (const [at, text] of edits) {
      const key = `k${at}`;
      if (inPlace) index.setSummary(key, text);
      else index.set(key, text);
      if (text === undefined) current.delete(key);
      else current.set(key, text);
    }
    for (const key of current.keys()) {
      const got = index.neighbours(key).map((n) => ({ key: n.key, score: Math.round(n.score * 1e9) }));
      const want = bruteForce(current, key).map((n) => ({ key: n.key, score: Math.round(n.score * 1e9) }));
      assert.deepEqual(got, want, key);
    }
  }

  test("property: a summary read in place (setSummary) has the terms and neighbours of one set as text", () => {
    // Words in any case, with digits, punctuation, stop words, stems, and now and then a character past ASCII.
    const word = fc.constantFrom("Find", "FILES", "file", "calendar", "Day's", "days", "the", "a", "user", "Plan", "planned", "x", "42", "r2d2", "éclair", "naïve", "—", "meeting-notes", "İstanbul", "ß");
    const text = fc.array(word, { maxLength: 9 }).map((words) => words.join(" "));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(6), fc.option(text, { nil: undefined })), { minLength: 1, maxLength: 16 }), (changes) => {
        const inPlace = new SimilarityIndex();
        const asText = new SimilarityIndex();
        const keys = new Set<string>();
        for (const [at, summary] of changes) {
          const key = `k${at}`;
          inPlace.setSummary(key, summary);
          asText.set(key, summary);
          keys.add(key);
        }
        for (const key of keys) {
          assert.equal(inPlace.has(key), asText.has(key), key);
          assert.deepEqual(inPlace.neighbours(key), asText.neighbours(key), key);
        }
      }),
      { numRuns: 1000 },
    );
  });

  test("property: after any sequence of sets and removals, neighbours are exactly the brute-force ones", () => {
    fc.assert(
      fc.property(
        fc.array(summary, { minLength: 1, maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(15), fc.option(summary, { nil: undefined })), { maxLength: 12 }),
        fc.boolean(),
        (initial, edits, bulk) => {
          const index = new SimilarityIndex();
          const current = new Map(initial.map((text, i) => [`k${i}`, text]));
          if (bulk) index.build(current);
          else for (const [key, text] of current) index.set(key, text);
          assertEditsMatchBruteForce(index, current, edits, false);
        },
      ),
      { numRuns: 300 },
    );
  });

  test("property: with more terms than a probe's 64 bits tell apart, a linked index's changes find exactly the brute-force pairs", () => {
    // 130 words, so that many terms share a bit; summaries near a few bases, so that many pairs are close.
    const words = Array.from({ length: 130 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
    const bases = Array.from({ length: 5 }, (_, b) => Array.from({ length: 7 }, (_, k) => words[(b * 29 + k * 17) % words.length] as string));
    const near = fc
      .tuple(fc.nat(bases.length - 1), fc.array(fc.tuple(fc.nat(6), fc.constantFrom(...words)), { maxLength: 3 }), fc.nat(2))
      .map(([base, swaps, dropped]) => {
        const chosen = [...(bases[base] as string[])];
        for (const [at, word] of swaps) chosen[at] = word;
        return chosen.slice(dropped).join(" ");
      });
    fc.assert(
      fc.property(fc.array(near, { minLength: 2, maxLength: 24 }), fc.array(fc.tuple(fc.nat(30), fc.option(near, { nil: undefined })), { maxLength: 12 }), (initial, edits) => {
        const index = new SimilarityIndex();
        const current = new Map(initial.map((text, i) => [`k${i}`, text]));
        index.build(current);
        assertEditsMatchBruteForce(index, current, edits, true);
      }),
      { numRuns: 300 },
    );
  });

  test("closest keeps the nearest and counts the rest; allClosest answers the same for every key", () => {
    const index = new SimilarityIndex();
    index.build([
      ["a", "check calendar day meeting"],
      ["b", "check calendar day meetings"],
      ["c", "check calendar days meeting plan"],
      ["d", "draft reply inbox"],
      ["e", "check calendar day meeting"],
    ]);
    assert.deepEqual(index.closest("a", 1), { closest: [{ key: "b", score: 1 }], total: 3 });
    assert.deepEqual(index.closest("d", 3), { closest: [], total: 0 });
    const all = index.allClosest(2);
    for (const key of ["a", "b", "c", "d", "e"]) assert.deepEqual(all.get(key), index.closest(key, 2), key);
  });

  test("property: a linked index's closest (kept as the pairs came, or read from its rows) and who has neighbours, after any changes, are an unlinked index's", () => {
    // Few words, so that many summaries are alike and some are copies (groups of several keys).
    const near = fc.array(fc.constantFrom("find", "file", "calendar", "day", "check", "meeting", "plan", "trip"), { minLength: 2, maxLength: 5 }).map((words) => words.join(" "));
    fc.assert(
      fc.property(
        fc.array(near, { minLength: 1, maxLength: 30 }),
        fc.array(fc.tuple(fc.nat(34), fc.option(near, { nil: undefined })), { maxLength: 10 }),
        fc.integer({ min: 1, max: 4 }),
        (texts, edits, limit) => {
          const key = (i: number) => `k${String(i).padStart(2, "0")}`;
          const linked = new SimilarityIndex();
          const probed = new SimilarityIndex();
          texts.forEach((text, i) => {
            linked.set(key(i), text);
            probed.set(key(i), text);
          });
          // The closest kept as the pairs come, up to `limit`; past it, and after a change, the rows are read.
          linked.link(limit);
          const keys = texts.map((_, i) => key(i));
          for (const asked of [1, limit, limit + 1]) for (const k of keys) assert.deepEqual(linked.closest(k, asked), probed.closest(k, asked), `${k}, ${asked} of ${limit}`);
          for (const [at, text] of edits) {
            linked.set(key(at), text);
            probed.set(key(at), text);
          }
          for (const k of [...keys, ...edits.map(([at]) => key(at))]) assert.deepEqual(linked.closest(k, limit), probed.closest(k, limit), k);
          assert.deepEqual(linked.allClosest(limit), probed.allClosest(limit));
          const withNeighbours = [...probed.allClosest(limit)].filter(([, found]) => found.total > 0).map(([k]) => k);
          assert.deepEqual([...linked.keysWithNeighbours()].sort(), withNeighbours.sort());
        },
      ),
      { numRuns: 300 },
    );
  });

  test("two term sets of one hash are two groups: set, linked, changed and removed, their neighbours are brute force's", () => {
    // Two sets of term ids with one hash, found by a search over random sets of three ids below 3,000.
    const first = [681, 1015, 1673];
    const second = [1513, 2177, 2335];
    assert.equal(termsHash(first), termsHash(second), "the hash changed: find two sets that share one again");
    // Words that are their own terms. Ids are given in the order words are first read: 300 summaries of ten words
    // give the words 0 to 2,999 their ids, then leave.
    const letters = "bcdfghjkmnpqrtvwxz";
    const word = (id: number) => `q${letters[Math.floor(id / 324)]}${letters[Math.floor(id / 18) % 18]}${letters[id % 18]}`;
    const index = new SimilarityIndex();
    for (let at = 0; at < 300; at++) index.setSummary(`dictionary ${at}`, Array.from({ length: 10 }, (_, k) => word(10 * at + k)).join(" "));
    for (let at = 0; at < 300; at++) index.setSummary(`dictionary ${at}`, undefined);
    for (const id of [...first, ...second, 2999]) assert.equal(termOf(word(id)), word(id));
    const text = (ids: readonly number[]) => ids.map(word).join(" ");
    // A near twin of each (one more term: similarity 3/√12 = 0.87), so that each has a neighbour of its own.
    const twin = (ids: readonly number[]) => `${text(ids)} ${word(2999)}`;
    const current = new Map<string, string>();
    index.link();
    assertEditsMatchBruteForce(index, current, [[1, text(first)], [2, text(second)], [3, twin(first)], [4, twin(second)], [5, text(first)]], true);
    assert.deepEqual(index.neighbours("k1"), [{ key: "k5", score: 1 }, { key: "k3", score: 3 / Math.sqrt(12) }]);
    assertEditsMatchBruteForce(index, current, [[1, undefined], [2, undefined]], true);
    assertEditsMatchBruteForce(index, current, [[5, undefined], [2, text(second)], [1, text(first)]], true);
    // And an index linked once every summary is in: the same pairs.
    const linked = new SimilarityIndex();
    for (const [key, summary] of current) linked.setSummary(key, summary);
    linked.link();
    for (const key of current.keys()) assert.deepEqual(linked.neighbours(key), index.neighbours(key), key);
    assert.deepEqual([...linked.keysWithNeighbours()].sort(), ["k1", "k2", "k3", "k4"]);
  });

  test("who has neighbours is asked of a linked index only", () => {
    const index = new SimilarityIndex();
    index.set("a", "check calendar day meeting");
    assert.throws(() => index.keysWithNeighbours(), /before its pairs were found/);
  });

  test("copies of one summary are one group: 10,000 of them cost one comparison", () => {
    const index = new SimilarityIndex();
    index.build(Array.from({ length: 10_000 }, (_, i) => [`k${String(i).padStart(5, "0")}`, "When to use this skill, in one line, as the planner's menu shows it."] as const));
    index.set("k00003", "Draft a reply to a message.");
    const all = index.allClosest(2);
    assert.deepEqual(all.get("k00000"), { closest: [{ key: "k00001", score: 1 }, { key: "k00002", score: 1 }], total: 9998 });
    assert.deepEqual(all.get("k00003"), { closest: [], total: 0 });
    assert.equal(index.neighbours("k09999").length, 9998);
  });

  test("a pair whose only shared terms within reach lie 140 deep (its rarer terms all its own) is found", () => {
    const letters = "bcdfghjkmnpqrstvwxz";
    let next = 0;
    const word = () => {
      const i = next++;
      return `q${letters[i % 19]}${letters[Math.floor(i / 19) % 19]}${letters[Math.floor(i / 361) % 19]}o`;
    };
    // Each side: 140 words of its own (the rarest, so first in the join's order), then 330 it shares with the
    // other: a cosine of 330/470, just past the line, and the first shared term is the 141st in either order.
    const texts = new Map<string, string>();
    for (let p = 0; p < 4; p++) {
      const shared = Array.from({ length: 330 }, word);
      texts.set(`a${p}`, [...Array.from({ length: 140 }, word), ...shared].join(" "));
      texts.set(`b${p}`, [...Array.from({ length: 140 }, word), ...shared].join(" "));
    }
    const index = new SimilarityIndex();
    index.build(texts);
    for (let p = 0; p < 4; p++) {
      assert.ok(termSimilarity(summaryTerms(texts.get(`a${p}`) ?? ""), summaryTerms(texts.get(`b${p}`) ?? "")) >= MENU_SIMILARITY_THRESHOLD);
      assert.deepEqual(index.neighbours(`a${p}`).map((neighbour) => neighbour.key), [`b${p}`]);
    }
  });

  test("2,000 summaries from a small vocabulary: the same pairs as brute force", () => {
    let state = 1;
    const random = () => ((state = (Math.imul(state, 48271) >>> 0) % 2147483647) / 2147483647);
    const words = vocabulary.concat(["weekly", "daily", "quick", "deep", "report", "digest", "audit", "brief", "filter", "index"]);
    const texts = new Map(Array.from({ length: 2000 }, (_, i) => [`k${i}`, Array.from({ length: 3 + Math.floor(random() * 4) }, () => words[Math.floor(random() * words.length)]).join(" ")]));
    const index = new SimilarityIndex();
    index.build(texts);
    const found = [...texts.keys()].reduce((sum, key) => sum + index.neighbours(key).length, 0) / 2;
    const terms = [...texts.values()].map(summaryTerms).filter((list) => list.length >= 2);
    let expected = 0;
    for (let i = 0; i < terms.length; i++) for (let j = i + 1; j < terms.length; j++) if (termSimilarity(terms[i] ?? [], terms[j] ?? []) >= MENU_SIMILARITY_THRESHOLD - 1e-9) expected++;
    assert.equal(found, expected);
    assert.ok(expected > 1000, String(expected));
  });
});

describe("menu-similar", () => {
  const A = skillUri("find-file-fast");
  const B = skillUri("fetch-my-file");
  const C = skillUri("check-schedule");
  const summaryA = "Find one of the user's own files on any of their devices.";
  const summaryB = "Find a file the user owns on one of their devices.";

  test("both skills get a warning on their summary naming the other, with the other's summary as related information", () => {
    const ns = workspace({ [A]: skill(summaryA), [B]: skill(summaryB), [C]: skill("Check the user's calendar for a day.") });
    const [onA] = similar(ns.diagnose(A));
    const [onB] = similar(ns.diagnose(B));
    assert.ok(onA && onB);
    assert.equal(onA.severity, "warning");
    assert.match(onA.message, /^The summary of @find-file-fast is so like @fetch-my-file's \(similarity 1\.00; the warning starts at 0\.70\)/);
    assert.match(onB.message, /@fetch-my-file is so like @find-file-fast's/);
    assert.deepEqual(onA.range, ns.skill(A)?.summaryRange);
    assert.deepEqual(onA.related, [{ uri: B, range: ns.skill(B)?.summaryRange, message: "@fetch-my-file's summary (similarity 1.00)" }]);
    assert.deepEqual(similar(ns.diagnose(C)), []);
  });

  test("only advertised, enabled skills with a summary of two words or more compete; one handle twice is another error", () => {
    const cases: [string, string][] = [
      ["advertised: false\n", "not advertised"],
      ["enabled: false\n", "disabled"],
    ];
    for (const [extra, why] of cases) {
      const ns = workspace({ [A]: skill(summaryA), [B]: skill(summaryB, extra) });
      assert.deepEqual(similar(ns.diagnose(A)), [], why);
      assert.deepEqual(similar(ns.diagnose(B)), [], why);
    }
    const short = workspace({ [A]: skill("A test skill."), [B]: skill("A test skill.") });
    assert.deepEqual(similar(short.diagnose(A)), []);
    const twice = workspace({ [A]: skill(summaryA), [skillUri("find-file-fast", "other")]: skill(summaryA) });
    assert.deepEqual(similar(twice.diagnose(A)), []);
  });

  test("a change re-diagnoses the skill and its neighbours before and after, no one else", () => {
    const ns = workspace({ [A]: skill(summaryA), [B]: skill(summaryB), [C]: skill("Check the user's calendar for a day.") });
    for (const uri of [A, B, C]) ns.diagnose(uri);
    assert.deepEqual([...ns.setSkill(B, skill("Check what is on the user's calendar for a day."))].sort(), [A, B, C].sort(), "B leaves A and joins C");
    assert.deepEqual(similar(ns.diagnose(A)), []);
    assert.equal(similar(ns.diagnose(C)).length, 1);
    assert.deepEqual([...ns.setSkill(B, `${skill("Check what is on the user's calendar for a day.")}More body.\n`)], [B], "a body edit stays local");
    assert.deepEqual([...ns.setSkill(A, skill(summaryA, "advertised: false\n"))], [A], "A had no neighbour left");
    assert.deepEqual([...ns.remove(C)].sort(), [B], "removing C clears B");
    assert.deepEqual(similar(ns.diagnose(B)), []);
  });

  test(`one warning names the ${MAX_SIMILAR_REPORTED} closest, each a related location, and says how many more`, () => {
    const files: Record<string, string> = { [A]: skill("check calendar day meeting") };
    for (let i = 0; i < 8; i++) files[skillUri(`twin-${i}`)] = skill(i < 2 ? "check calendar day meeting" : "check calendar day meeting plan");
    const ns = workspace(files);
    const found = similar(ns.diagnose(A));
    assert.equal(found.length, 1);
    const [warning] = found;
    assert.match(
      warning?.message ?? "",
      /^The summary of @find-file-fast is so like @twin-0's \(similarity 1\.00\), @twin-1's \(1\.00\), @twin-2's \(0\.89\), @twin-3's \(0\.89\) and @twin-4's \(0\.89\) that .* pick any of them .* \(the warning starts at 0\.70\)\..* 3 more skills are as close\.$/,
    );
    assert.deepEqual(
      warning?.related?.map((related) => [related.uri, related.message]),
      [0, 1, 2, 3, 4].map((i) => [skillUri(`twin-${i}`), `@twin-${i}'s summary (similarity ${i < 2 ? "1.00" : "0.89"})`]),
    );
    assert.deepEqual(warning?.related?.[2]?.range, ns.skill(skillUri("twin-2"))?.summaryRange);
  });

  test("a handle two files claim is named once in the message, each file a related location", () => {
    const summary = "check calendar day meeting";
    const twins = [skillUri("twin", "one"), skillUri("twin", "two")];
    const ns = workspace({ [A]: skill(summary), [twins[0] as string]: skill(summary), [twins[1] as string]: skill(summary), [B]: skill(`${summary} plan`) });
    const [warning, ...others] = similar(ns.diagnose(A));
    assert.deepEqual(others, []);
    assert.match(warning?.message ?? "", /is so like @twin's \(similarity 1\.00\) and @fetch-my-file's \(0\.89\) that/);
    assert.deepEqual(warning?.related?.map((related) => related.uri), [...twins, B]);
  });

  test("property: diagnostics kept by incremental updates equal those of a namespace built afresh", () => {
    const summaries = ["Find a file on a device.", "Find files on devices.", "Check the calendar for a day.", "Check calendar days.", "Draft a reply.", "A test skill.", ""];
    const file = fc.record({
      summary: fc.constantFrom(...summaries),
      advertised: fc.boolean(),
      enabled: fc.boolean(),
      title: fc.constantFrom("", "title: T\n"),
    });
    const text = (f: { summary: string; advertised: boolean; enabled: boolean; title: string }) =>
      `---\n${f.title}${f.summary ? `summary: ${f.summary}\n` : ""}advertised: ${f.advertised}\nenabled: ${f.enabled}\n---\nBody.\n`;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(5), fc.option(file, { nil: undefined })), { minLength: 1, maxLength: 25 }), fc.nat(3), (steps, firstDiagnosis) => {
        const ns = new Namespace();
        const texts = new Map<string, string>();
        steps.forEach(([at, next], step) => {
          const uri = skillUri(`s${at}`);
          if (next === undefined) {
            ns.remove(uri);
            texts.delete(uri);
          } else {
            ns.setSkill(uri, text(next));
            texts.set(uri, text(next));
          }
          // Diagnose (and so cache) from some step on, so that later steps must invalidate the cache.
          if (step >= firstDiagnosis) for (const one of texts.keys()) ns.diagnose(one);
        });
        const fresh = workspace(Object.fromEntries(texts));
        for (const uri of texts.keys()) assert.deepEqual(ns.diagnose(uri), fresh.diagnose(uri), uri);
      }),
      { numRuns: 300 },
    );
  });

  test("built in the background, started after the skills came or before (each indexed as it comes): no warning before it is ready, then exactly those of a namespace built at once, whatever changed meanwhile", () => {
    const summaries = ["Find a file on a device.", "Find files on devices.", "Check the calendar for a day.", "Check calendar days.", "Draft a reply.", "A test skill.", ""];
    const text = (summary: string) => (summary ? skill(summary) : "---\ntitle: T\n---\nBody.\n");
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(5), fc.option(fc.constantFrom(...summaries), { nil: undefined })), { minLength: 1, maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(5), fc.option(fc.constantFrom(...summaries), { nil: undefined }), fc.nat(3)), { maxLength: 12 }),
        fc.boolean(),
        (before, during, asAdded) => {
          const ns = new Namespace();
          ns.deferMenuSimilarity();
          if (asAdded) ns.startMenuSimilarity(undefined, true);
          const texts = new Map<string, string>();
          const apply = (at: number, summary: string | undefined) => {
            const uri = skillUri(`s${at}`);
            if (summary === undefined) {
              ns.remove(uri);
              texts.delete(uri);
            } else {
              ns.setSkill(uri, text(summary));
              texts.set(uri, text(summary));
            }
          };
          for (const [at, summary] of before) {
            apply(at, summary);
            if (asAdded) for (const uri of texts.keys()) assert.deepEqual(similar(ns.diagnose(uri)), [], "a warning before the index is ready");
          }
          // When it is ready, every skill with a warning is among those announced.
          const announced = (warned: Set<string>) => {
            const now = workspace(Object.fromEntries(texts));
            for (const uri of texts.keys()) if (similar(now.diagnose(uri)).length > 0) assert.ok(warned.has(uri), `${uri} gained warnings unannounced`);
          };
          if (!asAdded) ns.startMenuSimilarity();
          let warned: Set<string> | undefined;
          for (const [at, summary, units] of during) {
            if (!ns.menuSimilarityReady) for (const uri of texts.keys()) assert.deepEqual(similar(ns.diagnose(uri)), [], "a warning before the index is ready");
            apply(at, summary);
            if (warned === undefined) {
              warned = ns.advanceMenuSimilarity(units);
              if (warned) announced(warned);
            }
          }
          for (let guard = 0; warned === undefined && guard < 1000; guard++) {
            warned = ns.advanceMenuSimilarity(1);
            if (warned) announced(warned);
          }
          assert.ok(ns.menuSimilarityReady);
          const fresh = workspace(Object.fromEntries(texts));
          for (const uri of texts.keys()) assert.deepEqual(ns.diagnose(uri), fresh.diagnose(uri), uri);
        },
      ),
      { numRuns: 300 },
    );
  });
});
