import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { BUILTIN_TOOLS, composeSystemPrompt, DEFAULT_INSTRUCTIONS, effectiveAlignment, menuSize, menuSkills, PROMPT_BLURBS, tokenSize } from "../../server/src/core/index.js";
import { loadExamples, skillText, skillUri, uri, workspace } from "./helpers.js";

const CONFIG = uri("skills.json");
const currentDate = BUILTIN_TOOLS.find((tool) => tool.slug === "current-date");

describe("composeSystemPrompt on examples/", () => {
  const ns = workspace(loadExamples());
  const prompt = composeSystemPrompt(ns);
  const menu = ["search-info", "check-schedule", "meeting-prep", "triage-inbox", "follow-up", "plan-trip", "retry-search"];

  test("the seed's form: instructions, then Your skills: with - @handle: summary lines, then Your tools: with @current-date", () => {
    const summaryOf = (handle: string) => ns.claimants(handle)[0]?.summary ?? "(missing)";
    const expected = [
      DEFAULT_INSTRUCTIONS,
      "",
      "Your skills:",
      ...menu.map((handle) => `- @${handle}: ${summaryOf(handle)}`),
      "",
      "Your tools:",
      `- @current-date: ${currentDate?.blurb ?? "(missing)"}`,
      "",
    ].join("\n");
    assert.equal(prompt.text, expected);
    assert.equal(prompt.planning, true);
    assert.equal(prompt.customInstructions, false);
    assert.deepEqual(prompt.blurbs, []);
  });

  test("the menu is skills.json's selection, in its order; fetch-file, resolve-dates (unadvertised) and draft-reply (disabled) stay off", () => {
    assert.deepEqual(prompt.menuSkills.map((skill) => skill.slug), menu);
    assert.deepEqual(prompt.menuTools.map((tool) => tool.slug), ["current-date"]);
    for (const off of ["fetch-file", "resolve-dates", "draft-reply"]) assert.ok(!prompt.text.includes(`@${off}`), off);
  });

  test("each entry knows its exact place in the text", () => {
    assert.deepEqual(prompt.entries.map((entry) => `${entry.kind} ${entry.handle}`), [...menu.map((h) => `skill ${h}`), "tool current-date"]);
    for (const entry of prompt.entries) {
      assert.equal(prompt.text.slice(entry.start, entry.end), entry.text);
      assert.ok(entry.text.startsWith(`- @${entry.handle}: `));
    }
  });

  test("its size: ~ and characters / 4 without a tokenizer, exact with one", () => {
    const estimate = tokenSize(prompt.text);
    assert.equal(estimate.exact, false);
    assert.equal(estimate.tokens, Math.ceil(prompt.text.length / 4));
    assert.equal(estimate.label, `~${Math.ceil(prompt.text.length / 4)} tokens`);
    const exact = tokenSize(prompt.text, (text) => text.split(/\s+/).length);
    assert.deepEqual(exact, { tokens: prompt.text.split(/\s+/).length, exact: true, label: `${prompt.text.split(/\s+/).length} tokens` });
  });
});

describe("composeSystemPrompt: planning and menus", () => {
  test("an empty menu turns planning off: the prompt is the instructions alone", () => {
    const ns = workspace({ [skillUri("a")]: skillText("x"), [CONFIG]: '{"alignment": {"menu": []}}' });
    const prompt = composeSystemPrompt(ns);
    assert.equal(prompt.planning, false);
    assert.equal(prompt.text, `${DEFAULT_INSTRUCTIONS}\n`);
    assert.deepEqual(prompt.menuSkills, []);
    assert.deepEqual(prompt.menuTools, []);
    assert.deepEqual(prompt.entries, []);
  });

  test("no skills at all: no planning", () => {
    assert.equal(composeSystemPrompt(workspace({})).planning, false);
    assert.equal(composeSystemPrompt(workspace({ [skillUri("hidden")]: skillText("x", { advertised: false }) })).planning, false);
  });

  test("without a menu selection: every advertised, enabled skill once, by handle; never a tool's name or a bad handle", () => {
    const ns = workspace({
      [skillUri("zeta")]: skillText("x", { summary: "Z." }),
      [skillUri("alpha")]: skillText("x", { summary: "A." }),
      [skillUri("hidden")]: skillText("x", { summary: "H.", advertised: false }),
      [skillUri("off")]: skillText("x", { summary: "O.", enabled: false }),
      [skillUri("calendar")]: skillText("x", { summary: "C." }),
      [skillUri("Upper")]: skillText("x", { summary: "U." }),
      [skillUri("twin", "a")]: skillText("x", { summary: "T1." }),
      [skillUri("twin", "b")]: skillText("x", { summary: "T2." }),
    });
    assert.deepEqual(menuSkills(ns).map((skill) => skill.uri), [skillUri("alpha"), skillUri("twin", "a"), skillUri("zeta")]);
  });

  test("a menu selection keeps its order, drops repeats, unknown, unadvertised and disabled handles", () => {
    const ns = workspace({
      [skillUri("a")]: skillText("x", { summary: "A." }),
      [skillUri("b")]: skillText("x", { summary: "B." }),
      [skillUri("hidden")]: skillText("x", { summary: "H.", advertised: false }),
      [skillUri("off")]: skillText("x", { summary: "O.", enabled: false }),
      [CONFIG]: '{"alignment": {"menu": ["@b", "@ghost", "@A", "@b", "@hidden", "@off", "@find-file"]}}',
    });
    assert.deepEqual(menuSkills(ns).map((skill) => skill.slug), ["b", "a"]);
  });

  test("custom instructions and blurbs, in the blurbs' own order; a multi-line summary; a title for a missing summary", () => {
    const ns = workspace({
      [skillUri("multi")]: "---\nsummary: |\n  First line.\n  Second line.\n---\n",
      [skillUri("untitled")]: "---\ntitle: The Title\nsummary: ''\n---\n",
      [CONFIG]: '{"tools": [{"slug": "ping", "name": "ping", "blurb": "Check the line.", "advertiseInMenu": true}], "alignment": {"instructions": "  Be terse.  ", "blurbs": ["date", "notebook"]}}',
    });
    const prompt = composeSystemPrompt(ns);
    const blurb = (id: string) => PROMPT_BLURBS.find((b) => b.id === id)?.text ?? "(missing)";
    assert.equal(
      prompt.text,
      [
        "Be terse.",
        "",
        blurb("notebook"),
        "",
        blurb("date"),
        "",
        "Your skills:",
        "- @multi: First line.",
        "  Second line.",
        "- @untitled: The Title",
        "",
        "Your tools:",
        `- @current-date: ${currentDate?.blurb ?? ""}`,
        "- @ping: Check the line.",
        "",
      ].join("\n"),
    );
    assert.equal(prompt.customInstructions, true);
    assert.equal(prompt.instructions, "Be terse.");
  });

  test("effectiveAlignment: the first skills.json (by URI) that sets each part wins", () => {
    const ns = workspace({
      [uri("b/skills.json")]: '{"alignment": {"instructions": "B", "blurbs": ["files"], "menu": ["@x"]}}',
      [uri("a/skills.json")]: '{"alignment": {"blurbs": ["date"]}}',
    });
    assert.deepEqual(effectiveAlignment(ns), { instructions: "B", blurbs: ["date"], menu: ["x"] });
  });
});

describe("menuSize: the composed prompt's size, without composing it", () => {
  const cases: Record<string, () => ReturnType<typeof workspace>> = {
    "examples/": () => workspace(loadExamples()),
    "no skills": () => workspace({}),
    "an empty menu": () => workspace({ [skillUri("a")]: skillText("x"), [CONFIG]: '{"alignment": {"menu": []}}' }),
    "a menu selection with repeats and unknowns": () =>
      workspace({
        [skillUri("a")]: skillText("x", { summary: "A." }),
        [skillUri("b")]: skillText("x", { summary: "B." }),
        [skillUri("off")]: skillText("x", { summary: "O.", enabled: false }),
        [CONFIG]: '{"alignment": {"menu": ["@b", "@ghost", "@a", "@b", "@off"]}}',
      }),
    "instructions, blurbs, a declared tool, a multi-line summary, a title, twins and a bad handle": () =>
      workspace({
        [skillUri("multi")]: "---\nsummary: |\n  First line.\n    Indented.\n  Third.\n---\n",
        [skillUri("untitled")]: "---\ntitle: The Title\nsummary: ''\n---\n",
        [skillUri("twin", "a")]: skillText("x", { summary: "T1." }),
        [skillUri("twin", "b")]: skillText("x", { summary: "T2 is longer." }),
        [skillUri("Upper")]: skillText("x", { summary: "U." }),
        [CONFIG]: '{"tools": [{"slug": "ping", "name": "ping", "blurb": "Check the line.", "advertiseInMenu": true}], "alignment": {"instructions": "  Be terse.  ", "blurbs": ["date", "notebook"]}}',
      }),
  };
  for (const [name, make] of Object.entries(cases)) {
    test(name, () => {
      const ns = make();
      const prompt = composeSystemPrompt(ns);
      assert.deepEqual(menuSize(ns), { skills: prompt.menuSkills.length, characters: prompt.text.length });
    });
  }
  test("any summary: spaces, tabs, carriage returns and line breaks anywhere", () => {
    const piece = fc.constantFrom("a", "Word", " ", "  ", "\t", "\r", "\n", "\r\n", "é", "—", "x y");
    fc.assert(
      fc.property(fc.array(fc.array(piece, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 }), (summaries) => {
        const files: Record<string, string> = {};
        summaries.forEach((pieces, i) => {
          files[skillUri(`s${i}`)] = `---\nsummary: ${JSON.stringify(pieces.join(""))}\n---\nBody.\n`;
        });
        const ns = workspace(files);
        const prompt = composeSystemPrompt(ns);
        assert.deepEqual(menuSize(ns), { skills: prompt.menuSkills.length, characters: prompt.text.length });
      }),
      { numRuns: 500 },
    );
  });
});

describe("menuSize, kept up to date edit by edit", () => {
  const operation = fc.oneof(
    fc.record({
      kind: fc.constant("skill" as const),
      handle: fc.constantFrom("a", "b", "ab", "Ab", "c"),
      folder: fc.constantFrom("", "x", "y"),
      summary: fc.constantFrom("A.", "Longer summary.", "Two\nlines.", ""),
      enabled: fc.boolean(),
      advertised: fc.boolean(),
    }),
    fc.record({ kind: fc.constant("remove" as const), handle: fc.constantFrom("a", "b", "ab", "Ab", "c"), folder: fc.constantFrom("", "x", "y") }),
    fc.record({ kind: fc.constant("tools" as const), slug: fc.option(fc.constantFrom("a", "b", "c"), { nil: undefined }), menu: fc.boolean() }),
  );
  test("after every add, change and removal of a skill, and every change of the tools or the chosen menu, it is the composed prompt's", () => {
    fc.assert(
      fc.property(fc.array(operation, { minLength: 1, maxLength: 40 }), (operations) => {
        const ns = workspace({});
        for (const op of operations) {
          if (op.kind === "skill") {
            ns.set(skillUri(op.handle, op.folder), `---\nsummary: ${JSON.stringify(op.summary)}\nenabled: ${op.enabled}\nadvertised: ${op.advertised}\n---\nBody.\n`);
          } else if (op.kind === "remove") {
            ns.remove(skillUri(op.handle, op.folder));
          } else if (op.slug === undefined && !op.menu) {
            ns.remove(CONFIG);
          } else {
            const tools = op.slug === undefined ? [] : [{ slug: op.slug, name: `tool_${op.slug}`, blurb: "A tool.", advertiseInMenu: true }];
            ns.set(CONFIG, JSON.stringify({ tools, ...(op.menu ? { alignment: { menu: ["@b", "@a"] } } : {}) }));
          }
          const prompt = composeSystemPrompt(ns);
          assert.deepEqual(menuSize(ns), { skills: prompt.menuSkills.length, characters: prompt.text.length });
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("menuSize, counted a slice at a time", () => {
  const operation = fc.record({
    handle: fc.constantFrom("a", "b", "ab", "Ab", "c", "d", "e", "f"),
    summary: fc.option(fc.constantFrom("A.", "Longer summary.", "Two\nlines."), { nil: undefined }),
    advertised: fc.boolean(),
    // Slices of the first count before the change, of these many lines each.
    slices: fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 3 }),
  });
  test("with skills added, changed and removed between the slices, the count it ends with is the composed prompt's", () => {
    fc.assert(
      fc.property(fc.array(operation, { minLength: 1, maxLength: 30 }), (operations) => {
        const ns = workspace({});
        for (const handle of ["a", "b", "c", "d", "e", "f"]) ns.set(skillUri(handle), `---\nsummary: Start.\n---\nBody.\n`);
        for (const op of operations) {
          for (const steps of op.slices) ns.countMenuLines(steps);
          if (op.summary === undefined) ns.remove(skillUri(op.handle));
          else ns.set(skillUri(op.handle), `---\nsummary: ${JSON.stringify(op.summary)}\nadvertised: ${op.advertised}\n---\nBody.\n`);
        }
        while (!ns.countMenuLines(2));
        const prompt = composeSystemPrompt(ns);
        assert.deepEqual(menuSize(ns), { skills: prompt.menuSkills.length, characters: prompt.text.length });
      }),
      { numRuns: 300 },
    );
  });
});

describe("tokenSize", () => {
  const cases: [string, string][] = [
    ["", "~0 tokens"],
    ["abc", "~1 tokens"],
    ["abcd", "~1 tokens"],
    ["abcde", "~2 tokens"],
  ];
  for (const [text, label] of cases) test(JSON.stringify(text), () => assert.equal(tokenSize(text).label, label));
});
