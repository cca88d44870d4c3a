/**
 * The first index (Namespace.load) leaves who-mentions-what to be indexed later, a slice at a time. Whatever the
 * slices done and the changes between them, every question that reads that index answers as if each file had
 * been set the ordinary way: the mentioners of a slug, the files a change makes stale, a rename's edits.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { Namespace, isRefusal } from "../../server/src/core/index.js";
import { MentionIndex } from "../../server/src/core/mentionIndex.js";
import { skillText, skillUri } from "./helpers.js";

const HANDLES = ["alpha", "beta", "gamma", "delta", "omega"];

/** A skill's text mentioning some of the handles (a few twice, one in another case) and a tool. */
function textOf(mentions: readonly number[], enabled: boolean): string {
  const body = mentions.map((m, i) => (i % 3 === 2 ? `@${(HANDLES[m % HANDLES.length] ?? "").toUpperCase()}` : `@${HANDLES[m % HANDLES.length]}`)).join(" and ");
  return skillText(`Use ${body || "nothing"} and @find-file.`, { summary: "A skill.", enabled });
}

type Step =
  | { readonly kind: "set"; readonly handle: number; readonly mentions: readonly number[]; readonly enabled: boolean }
  | { readonly kind: "remove"; readonly handle: number }
  | { readonly kind: "load"; readonly handle: number; readonly mentions: readonly number[] }
  | { readonly kind: "slice"; readonly count: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("set" as const), handle: fc.nat(HANDLES.length - 1), mentions: fc.array(fc.nat(9), { maxLength: 5 }), enabled: fc.boolean() }),
  fc.record({ kind: fc.constant("remove" as const), handle: fc.nat(HANDLES.length - 1) }),
  // A file read again later (a folder added, say): its mentions wait for the slices too, before or after they ran out.
  fc.record({ kind: fc.constant("load" as const), handle: fc.nat(HANDLES.length - 1), mentions: fc.array(fc.nat(9), { maxLength: 5 }) }),
  fc.record({ kind: fc.constant("slice" as const), count: fc.nat(3) }),
);

/** What the mention index answers, for every handle. */
function answers(namespace: Namespace): unknown {
  return HANDLES.map((handle) => {
    const plan = namespace.planRename(handle, `${handle}-renamed`);
    return { handle, mentioners: namespace.mentioners(handle), rename: isRefusal(plan) ? plan.refused : [...plan.edits.keys()].sort() };
  });
}

test("loaded files, indexed in slices with changes between, answer like files set one by one", () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ handle: fc.nat(HANDLES.length - 1), mentions: fc.array(fc.nat(9), { maxLength: 5 }), enabled: fc.boolean() }), { maxLength: 6 }),
      fc.array(step, { maxLength: 8 }),
      (loaded, steps) => {
        const deferred = new Namespace();
        const plain = new Namespace();
        for (const file of loaded) {
          const uri = skillUri(HANDLES[file.handle] ?? "");
          deferred.load(uri, textOf(file.mentions, file.enabled));
          plain.set(uri, textOf(file.mentions, file.enabled));
        }
        for (const each of steps) {
          if (each.kind === "slice") {
            deferred.indexMentions(each.count);
            continue;
          }
          const uri = skillUri(HANDLES[each.handle] ?? "");
          if (each.kind === "load") {
            deferred.remove(uri);
            plain.remove(uri);
            deferred.load(uri, textOf(each.mentions, true));
            plain.set(uri, textOf(each.mentions, true));
            continue;
          }
          if (each.kind === "remove") {
            assert.deepEqual([...deferred.remove(uri)].sort(), [...plain.remove(uri)].sort(), "the files a removal makes stale");
          } else {
            const text = textOf(each.mentions, each.enabled);
            // A change made stale what set() says; load() takes a file whole and drops every cached diagnosis.
            assert.deepEqual([...deferred.set(uri, text)].sort(), [...plain.set(uri, text)].sort(), "the files a change makes stale");
          }
        }
        assert.deepEqual(answers(deferred), answers(plain));
        for (const uri of plain.uris()) assert.deepEqual(deferred.diagnose(uri), plain.diagnose(uri), uri);
        assert.equal(deferred.indexMentions(1), true, "nothing left to index once the index was read");
      },
    ),
    { numRuns: 500 },
  );
});

test("indexMentions takes the loaded skills a slice at a time and says when none is left", () => {
  const namespace = new Namespace();
  for (const handle of HANDLES) namespace.load(skillUri(handle), textOf([0, 1], true));
  assert.equal(namespace.indexMentions(2), false);
  assert.equal(namespace.indexMentions(2), false);
  assert.equal(namespace.indexMentions(2), true);
  assert.deepEqual(namespace.mentioners("beta"), HANDLES.map((handle) => skillUri(handle)).sort());
  // Loaded after the slices ran out: taken by the next ones.
  namespace.load(skillUri("zeta"), textOf([1], true));
  namespace.load(skillUri("eta"), textOf([1], true));
  assert.equal(namespace.indexMentions(1), false);
  assert.equal(namespace.indexMentions(1), true);
  assert.deepEqual(namespace.mentioners("beta"), [...HANDLES, "eta", "zeta"].map((handle) => skillUri(handle)).sort());
});

test("property: the mention index, collected in bulk then sealed (at once or in steps), with changes before, between and after, answers as one set per slug", () => {
  const uri = fc.constantFrom("file:///a", "file:///b", "file:///c", "file:///d");
  const slug = fc.constantFrom("alpha", "beta", "gamma");
  const op = fc.oneof(
    fc.record({ kind: fc.constant("collect" as const), uri, slugs: fc.uniqueArray(slug, { maxLength: 3 }) }),
    fc.record({ kind: fc.constant("add" as const), uri, slug }),
    fc.record({ kind: fc.constant("remove" as const), uri, slug }),
    fc.record({ kind: fc.constant("seal" as const) }),
    // A few mentions of the seal at a time: collects, adds and removes may come between its steps.
    fc.record({ kind: fc.constant("sealStep" as const), units: fc.integer({ min: 1, max: 3 }) }),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
      const index = new MentionIndex();
      const model = new Map<string, Set<string>>();
      const has = (s: string, u: string) => model.get(s)?.has(u) === true;
      for (const o of ops) {
        if (o.kind === "seal") index.seal();
        else if (o.kind === "sealStep") index.sealStep(o.units);
        else if (o.kind === "collect") {
          // As the namespace does: a file's mentions go in once, after any it had are out.
          if (o.slugs.some((s) => has(s, o.uri))) continue;
          index.collect(o.uri, o.slugs);
          for (const s of o.slugs) model.set(s, (model.get(s) ?? new Set()).add(o.uri));
        } else if (o.kind === "add") {
          if (has(o.slug, o.uri)) continue;
          index.add(o.slug, o.uri);
          model.set(o.slug, (model.get(o.slug) ?? new Set()).add(o.uri));
        } else {
          if (!has(o.slug, o.uri)) continue;
          if (!index.remove(o.slug, o.uri)) {
            assert.equal(index.sealed, false, "only a mention collected and not sealed is refused");
            index.seal();
            assert.equal(index.remove(o.slug, o.uri), true);
          }
          model.get(o.slug)?.delete(o.uri);
        }
      }
      index.seal();
      for (const s of ["alpha", "beta", "gamma"]) assert.deepEqual([...index.uris(s)].sort(), [...(model.get(s) ?? [])].sort(), s);
    }),
    { numRuns: 2000 },
  );
});
