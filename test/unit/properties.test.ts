/**
 * Property tests of the core with fast-check: rename, minting, expansion, the parser/rename agreement, and the
 * incremental namespace against one built from scratch. Each runs at least 1,000 random cases.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as fc from "fast-check";
import {
  BUILTIN_TOOLS,
  isRefusal,
  isValidHandle,
  kebabCase,
  makeSlug,
  Namespace,
  parseConfigFile,
  parseMentions,
  parseSkillFile,
  type RenamePlan,
} from "../../server/src/core/index.js";
import { applyPlan, skillUri, uri, workspace } from "./helpers.js";

const RUNS = 1000;
const CONFIG = uri("skills.json");
const FRONT = "---\nsummary: s\n---\n";

/** A text made of fragments drawn from `pieces`, joined with nothing between them (so they glue in every way). */
const textOf = (pieces: readonly string[], maxLength = 30) => fc.array(fc.constantFrom(...pieces), { maxLength }).map((parts) => parts.join(""));

function mustPlan(files: Record<string, string>, oldSlug: string, newHandle: string): RenamePlan {
  const plan = workspace(files).planRename(oldSlug, newHandle);
  if (isRefusal(plan)) throw new Error(`refused: ${plan.refused}`);
  return plan;
}

/** How many mentions of `slug` the parser finds in a file (a skill or skills.json). */
function mentionCount(fileUri: string, text: string, slug: string): number {
  const mentions = fileUri.endsWith("/skills.json") ? parseConfigFile(fileUri, text).mentions : parseSkillFile(fileUri, text).mentions;
  return mentions.filter((mention) => mention.slug === slug).length;
}

const totalMentions = (files: Record<string, string>, slug: string) =>
  Object.entries(files).reduce((sum, [fileUri, text]) => sum + mentionCount(fileUri, text, slug), 0);

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

describe("properties", () => {
  test("(a) a rename never touches a longer slug and leaves no mention of the old one", () => {
    const pieces = ["@old", "@Old", "@OLD", "@old-thing", "@old2", "@old-", "x@old", "\\@old", "@@old", "@oldé", "@old.", " ", "\n", "\r\n", ",", "-", "é", "word", "@other", "2"];
    fc.assert(
      fc.property(textOf(pieces), textOf(pieces), textOf(pieces), (own, other, instructions) => {
        const oldUri = skillUri("old", "dir");
        const files = {
          [oldUri]: `${FRONT}${own}`,
          [skillUri("other")]: `${FRONT}${other}`,
          [CONFIG]: JSON.stringify({ alignment: { instructions, menu: ["@old", "@old-thing"] } }, null, 2),
        };
        const plan = mustPlan(files, "old", "fresh");
        const after = applyPlan(files, plan);
        const moved = (fileUri: string) => (fileUri === oldUri ? skillUri("fresh", "dir") : fileUri);
        for (const [fileUri, text] of Object.entries(files)) {
          const renamed = after[moved(fileUri)] ?? "";
          for (const longer of ["@old-thing", "@old2", "@oldé", "x@old", "\\@old", "@@old"]) {
            assert.equal(occurrences(renamed, longer), occurrences(text, longer), `${longer} in ${fileUri}`);
          }
        }
        assert.equal(totalMentions(after, "old"), 0);
        assert.equal(totalMentions(after, "fresh"), totalMentions(files, "old"));
        assert.deepEqual(workspace(after).mentioners("old"), []);
        // What the planner reads is the JSON value, escapes decoded: no @old may be left in it either.
        const value = (JSON.parse(after[CONFIG] ?? "{}") as { alignment: { instructions: string } }).alignment.instructions;
        assert.ok(!parseMentions(value).includes("old"), JSON.stringify(value));
        assert.equal(parseMentions(value).includes("fresh"), parseMentions(instructions).includes("old"));
      }),
      { numRuns: RUNS },
    );
  });

  test("(b) renaming a → b, then b → a, restores every file byte for byte", () => {
    // No "b" anywhere, so the text holds no mention of the new name; lower case only, as a rename writes lower case.
    const pieces = ["@a", "@a-x", "@ax", "x@a", "\\@a", "@a-", "@aé", "@a.", "@c", "é", " ", "\n", "\r\n", ".", "-", "@", "a", "x", "\\"];
    fc.assert(
      fc.property(textOf(pieces), textOf(pieces), textOf(pieces), fc.boolean(), (own, other, instructions, crlf) => {
        const eol = crlf ? "\r\n" : "\n";
        const files = {
          [skillUri("a", "dir")]: `---${eol}summary: Uses @a and @c${eol}---${eol}${own}`,
          [skillUri("c", "sub")]: `${FRONT}${other}`,
          [skillUri("plain")]: `${other}${own}`,
          [CONFIG]: JSON.stringify({ alignment: { instructions, menu: ["@a", "@c"] } }),
        };
        const there = applyPlan(files, mustPlan(files, "a", "bee"));
        assert.ok(skillUri("bee", "dir") in there);
        const back = applyPlan(there, mustPlan(there, "bee", "a"));
        assert.deepEqual(back, files);
      }),
      { numRuns: RUNS },
    );
  });

  test("(c) minted slugs are always valid and never collide with taken ones; an unchanged handle keeps its slug", () => {
    const words = ["Meeting", "prep", "Réunion", "d'équipe", "🎉", "会议", "a", "-", "  ", "!!", "x".repeat(30), "Q3", "ﬁle", "é"];
    const title = fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 40 }),
      fc.string({ unit: "binary", maxLength: 70 }),
      fc.array(fc.constantFrom(...words), { maxLength: 14 }).map((parts) => parts.join(" ")),
    );
    const slug = fc.stringMatching(/^[a-z0-9]{1,6}(-[a-z0-9]{1,3}){0,2}$/);
    fc.assert(
      fc.property(title, fc.uniqueArray(slug, { maxLength: 10 }), fc.boolean(), fc.integer({ min: 1, max: 8 }), (text, others, baseTaken, mints) => {
        const base = kebabCase(text);
        const taken = new Set(others);
        if (baseTaken) taken.add(base);
        const isTaken = (candidate: string) => taken.has(candidate);
        assert.ok(isValidHandle(base), base);
        for (let i = 0; i < mints; i++) {
          const minted = makeSlug(text, isTaken);
          assert.ok(isValidHandle(minted), minted);
          assert.ok(!taken.has(minted), `${minted} was taken`);
          if (i === 0 && !taken.has(base)) assert.equal(minted, base);
          if (minted !== base) assert.match(minted, /-\d+$/);
          taken.add(minted);
          assert.equal(makeSlug(text, isTaken, minted), minted, "the handle it already has");
        }
      }),
      { numRuns: RUNS },
    );
  });

  test("(d) expansion terminates, is deduplicated, and equals a recursive reference on random graphs with cycles", () => {
    const toolNames = new Map(BUILTIN_TOOLS.map((tool) => [tool.slug, tool.name]));
    const graph = fc.integer({ min: 1, max: 8 }).chain((size) => {
      const skills = Array.from({ length: size }, (_, i) => `s${i}`);
      const targets = [...skills, "find-file", "calendar", "grep-memory", "ghost", "phantom"];
      const mention = fc.record({ slug: fc.constantFrom(...targets), upper: fc.boolean() });
      return fc.record({
        skills: fc.tuple(...skills.map(() => fc.record({ enabled: fc.integer({ min: 0, max: 9 }).map((n) => n > 0), mentions: fc.array(mention, { maxLength: 5 }) }))),
        collides: fc.boolean(),
        collisionMentions: fc.array(mention, { maxLength: 3 }),
        handles: fc.array(mention, { maxLength: 5 }),
        separator: fc.constantFrom(" ", ", ", "\n", " then ", ". "),
      });
    });
    fc.assert(
      fc.property(graph, (g) => {
        const model = new Map<string, { enabled: boolean; mentions: string[] }>();
        const files: Record<string, string> = {};
        const write = (handle: string, enabled: boolean, mentions: readonly { slug: string; upper: boolean }[]) => {
          const body = mentions.map((m) => `@${m.upper ? m.slug.toUpperCase() : m.slug}`).join(g.separator);
          files[skillUri(handle)] = `---\nsummary: s\nenabled: ${enabled}\n---\nUse ${body}.\n`;
          model.set(handle, { enabled, mentions: mentions.map((m) => m.slug) });
        };
        g.skills.forEach((skill, i) => write(`s${i}`, skill.enabled, skill.mentions));
        if (g.collides) write("calendar", true, g.collisionMentions);

        const tools: string[] = [];
        const skills: string[] = [];
        const unresolved: string[] = [];
        const disabled: string[] = [];
        const visit = (slug: string) => {
          const tool = toolNames.get(slug);
          if (tool !== undefined) {
            if (!tools.includes(tool)) tools.push(tool);
            return;
          }
          const skill = model.get(slug);
          if (!skill) {
            if (!unresolved.includes(slug)) unresolved.push(slug);
          } else if (!skill.enabled) {
            if (!disabled.includes(slug)) disabled.push(slug);
          } else if (!skills.includes(slug)) {
            skills.push(slug);
            for (const next of skill.mentions) visit(next);
          }
        };
        for (const handle of g.handles) visit(handle.slug);

        const expansion = workspace(files).expand(g.handles.map((h) => (h.upper ? h.slug.toUpperCase() : h.slug)));
        const names = expansion.tools.map((tool) => tool.name);
        assert.equal(new Set(names).size, names.length, "tools deduplicated");
        assert.deepEqual(names, tools);
        assert.deepEqual(expansion.skills.map((skill) => skill.slug), skills);
        assert.deepEqual(expansion.unresolved, unresolved);
        assert.deepEqual(expansion.disabled, disabled);
      }),
      { numRuns: RUNS },
    );
  });

  test("(e) the parser and the rename agree on what a mention of a slug is, on random text", () => {
    const unit = fc.constantFrom("@", "@", "x", "X", "y", "a", "1", "-", "\\", "é", " ", "\n", "@x", "_");
    const text = fc.string({ unit, maxLength: 60 });
    fc.assert(
      fc.property(text, text, text, fc.constantFrom("y", "new-name"), (own, other, instructions, newSlug) => {
        const files = {
          [skillUri("x")]: `${FRONT}${own}`,
          [skillUri("m", "sub")]: `${FRONT}${other}`,
          [CONFIG]: JSON.stringify({ alignment: { instructions } }),
        };
        const found = totalMentions(files, "x");
        const plan = mustPlan(files, "x", newSlug);
        const planned = [...plan.edits.values()].reduce((sum, edits) => sum + edits.length, 0);
        assert.equal(planned, found, "one edit per mention the parser finds");
        const after = applyPlan(files, plan);
        assert.equal(totalMentions(after, "x"), 0);
        assert.equal(totalMentions(after, newSlug), totalMentions(files, newSlug) + found);
      }),
      { numRuns: RUNS },
    );
  });

  test("(f) after any sequence of changes, every file's diagnostics equal a namespace built from scratch", () => {
    const skillUris = [skillUri("a", "p"), skillUri("b", "p"), skillUri("a", "q"), skillUri("c", "q"), skillUri("calendar", "q"), skillUri("B", "p")];
    const configUris = [CONFIG, uri("q/skills.json")];
    const skillTextArb = fc
      .record({
        enabled: fc.boolean(),
        advertised: fc.boolean(),
        summary: fc.boolean(),
        mentions: fc.array(fc.constantFrom("a", "b", "c", "B", "calendar", "t1", "find-file", "zz"), { maxLength: 4 }),
      })
      .map((s) => `---\n${s.summary ? "summary: s\n" : ""}enabled: ${s.enabled}\nadvertised: ${s.advertised}\n---\n${s.mentions.map((m) => `@${m}`).join(" ")}\n`);
    const configTextArb = fc
      .record({
        tools: fc.subarray(["t1", "b", "calendar"]),
        menu: fc.option(fc.subarray(["@a", "@b", "@c", "@t1", "@calendar"]), { nil: undefined }),
        instructions: fc.option(fc.constantFrom("Use @b.", "Use @t1 and @zz."), { nil: undefined }),
      })
      .map((c) => JSON.stringify({ tools: c.tools.map((slug) => ({ slug, name: `${slug}_tool`, blurb: "b" })), alignment: { instructions: c.instructions, menu: c.menu } }));
    const op = fc.oneof(
      fc.record({ kind: fc.constant("set" as const), uri: fc.constantFrom(...skillUris), text: skillTextArb }),
      fc.record({ kind: fc.constant("set" as const), uri: fc.constantFrom(...configUris), text: configTextArb }),
      fc.record({ kind: fc.constant("remove" as const), uri: fc.constantFrom(...skillUris, ...configUris) }),
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 8 }), (ops) => {
        const ns = new Namespace();
        const files: Record<string, string> = {};
        for (const step of ops) {
          for (const fileUri of Object.keys(files)) ns.diagnose(fileUri); // fill the cache
          if (step.kind === "set") {
            ns.set(step.uri, step.text);
            files[step.uri] = step.text;
          } else {
            ns.remove(step.uri);
            delete files[step.uri];
          }
          const fresh = workspace(files);
          for (const fileUri of Object.keys(files)) assert.deepEqual(ns.diagnose(fileUri), fresh.diagnose(fileUri), `${fileUri} after ${step.kind} ${step.uri}`);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
