import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BUILTIN_SKILLS, Namespace, parseMentions, type Expansion } from "../../server/src/core/index.js";
import { skillText, skillUri, uri, workspace } from "./helpers.js";

const builtins = () => workspace(Object.fromEntries(BUILTIN_SKILLS.map((skill) => [skillUri(skill.handle, "builtin"), skill.text])));
const names = (expansion: Expansion) => expansion.tools.map((tool) => tool.name);
const slugs = (expansion: Expansion) => expansion.skills.map((skill) => skill.slug);

describe("expand on the built-in skills", () => {
  test("the seed's @search-info → check_notebook, list_devices, find_file, grep_memory", () => {
    const expansion = builtins().expand(["search-info"]);
    assert.deepEqual(names(expansion), ["check_notebook", "list_devices", "find_file", "grep_memory"]);
    assert.deepEqual(slugs(expansion), ["search-info", "fetch-file"]);
    assert.deepEqual(expansion.unresolved, []);
    assert.deepEqual(expansion.disabled, []);
  });

  test("a plan's handles are parsed from its text, case-insensitively", () => {
    const plan = "I'll use @Search-Info to find their PAN number.";
    assert.deepEqual(names(builtins().expand(parseMentions(plan))), ["check_notebook", "list_devices", "find_file", "grep_memory"]);
  });

  test("@check-schedule binds the date first, then the calendar", () => {
    assert.deepEqual(names(builtins().expand(["check-schedule"])), ["current_date", "queryCalendar"]);
  });

  test("several handles: first appearance order, each tool once", () => {
    const expansion = builtins().expand(["current-date", "check-schedule", "search-info", "fetch-file", "find-file"]);
    assert.deepEqual(names(expansion), ["current_date", "queryCalendar", "check_notebook", "list_devices", "find_file", "grep_memory"]);
    assert.deepEqual(slugs(expansion), ["check-schedule", "search-info", "fetch-file"]);
  });

  test("a handle the model invents binds nothing", () => {
    const expansion = builtins().expand(["delete-everything", "search-info", "Delete-Everything"]);
    assert.deepEqual(expansion.unresolved, ["delete-everything"]);
    assert.ok(!names(expansion).some((name) => /delete/i.test(name)));
  });

  test("nothing in, nothing out", () => {
    assert.deepEqual(builtins().expand([]), { tools: [], skills: [], unresolved: [], disabled: [] });
  });
});

describe("expand: cycles, self-mention, disabled skills", () => {
  test("a cycle stops where it closes", () => {
    const ns = workspace({
      [skillUri("a")]: skillText("@b then @find-file"),
      [skillUri("b")]: skillText("@a then @grep-memory"),
    });
    assert.deepEqual(names(ns.expand(["a"])), ["grep_memory", "find_file"]);
    assert.deepEqual(slugs(ns.expand(["a"])), ["a", "b"]);
    assert.deepEqual(names(ns.expand(["b"])), ["find_file", "grep_memory"]);
  });

  test("a self-mention is legal and inert", () => {
    const ns = workspace({ [skillUri("retry-search")]: skillText("Use @grep-memory; run @retry-search once more.") });
    const expansion = ns.expand(["retry-search"]);
    assert.deepEqual(names(expansion), ["grep_memory"]);
    assert.deepEqual(slugs(expansion), ["retry-search"]);
  });

  test("a disabled skill is inert, as a plan handle and inside another skill", () => {
    const ns = workspace({
      [skillUri("off")]: skillText("@find-file", { enabled: false }),
      [skillUri("on")]: skillText("@off then @grep-memory"),
    });
    assert.deepEqual(ns.expand(["off"]), { tools: [], skills: [], unresolved: [], disabled: ["off"] });
    const inner = ns.expand(["on"]);
    assert.deepEqual(names(inner), ["grep_memory"]);
    assert.deepEqual(inner.disabled, ["off"]);
  });

  test("summary mentions are references, not requirements: they bind nothing", () => {
    const ns = workspace({ [skillUri("a")]: "---\nsummary: Like @fetch-file, but @grep-memory\n---\nUse @find-file.\n" });
    assert.deepEqual(names(ns.expand(["a"])), ["find_file"]);
  });

  test("a skill named like a tool: the tool passes through, the skill is not followed", () => {
    const ns = workspace({ [skillUri("find-file")]: skillText("@grep-memory") });
    assert.deepEqual(names(ns.expand(["find-file"])), ["find_file"]);
  });

  test("declared tools pass through like built-ins", () => {
    const ns = workspace({
      [uri("skills.json")]: '{"tools": [{"slug": "send-message", "name": "send_message", "blurb": "b"}]}',
      [skillUri("reply")]: skillText("Use @check-notebook, then @send-message."),
    });
    assert.deepEqual(names(ns.expand(["reply"])), ["check_notebook", "send_message"]);
  });
});

describe("expand at scale", () => {
  test("a 10,000-long chain of skills expands without overflowing the stack", () => {
    const ns = new Namespace();
    const length = 10_000;
    for (let i = 0; i < length; i++) ns.set(skillUri(`s${i}`), i + 1 < length ? `Then @s${i + 1}.` : "Finally @find-file.");
    const expansion = ns.expand(["s0"]);
    assert.deepEqual(names(expansion), ["find_file"]);
    assert.equal(expansion.skills.length, length);
    assert.equal(expansion.skills[length - 1]?.slug, `s${length - 1}`);
  });

  test("a 1,000-skill cycle binds each of its tools once, in order", () => {
    const size = 1_000;
    const tools = Array.from({ length: size }, (_, i) => ({ slug: `t${i}`, name: `tool_${i}`, blurb: "b" }));
    const ns = new Namespace();
    ns.set(uri("skills.json"), JSON.stringify({ tools }));
    for (let i = 0; i < size; i++) ns.set(skillUri(`c${i}`), `Use @t${i}, then @c${(i + 1) % size}.`);
    const fromStart = ns.expand(["c0"]);
    assert.deepEqual(names(fromStart), tools.map((tool) => tool.name));
    assert.equal(fromStart.skills.length, size);
    const fromMiddle = ns.expand(["c500"]);
    assert.deepEqual(names(fromMiddle), [...tools.slice(500), ...tools.slice(0, 500)].map((tool) => tool.name));
  });
});
