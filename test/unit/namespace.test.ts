import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DiagnosticCodes, Namespace, type CoreDiagnostic } from "../../server/src/core/index.js";
import { brief, codes, showRange, skillText, skillUri, spans, uri, workspace } from "./helpers.js";

const CONFIG = uri("skills.json");
const sorted = (set: Iterable<string>) => [...set].sort();
const only = (diagnostics: readonly CoreDiagnostic[], code: string) => diagnostics.filter((d) => d.code === code);

const sendMessageTool = (slug = "send-message", name = "send_message") => `{"tools": [{"slug": "${slug}", "name": "${name}", "blurb": "Send a message."}]}`;

describe("resolve", () => {
  const ns = workspace({
    [skillUri("plan-trip")]: skillText("Use @calendar."),
    [skillUri("calendar")]: skillText("A skill that collides with a tool."),
    [CONFIG]: sendMessageTool(),
  });

  const cases: [string, string | undefined][] = [
    ["find-file", "tool find_file"],
    ["Find-FILE", "tool find_file"],
    ["plan-trip", "skill plan-trip"],
    ["PLAN-Trip", "skill plan-trip"],
    ["calendar", "tool queryCalendar"],
    ["send-message", "tool send_message"],
    ["nothing-here", undefined],
  ];
  for (const [slug, expected] of cases) {
    test(`${slug} → ${expected ?? "nothing"}`, () => {
      const target = ns.resolve(slug);
      const found = target === undefined ? undefined : target.kind === "tool" ? `tool ${target.tool.name}` : `skill ${target.skill.slug}`;
      assert.equal(found, expected);
    });
  }

  test("tools(): the six built-ins in the seed's order, then the declared ones", () => {
    assert.deepEqual(
      ns.tools().map((t) => t.slug),
      ["check-notebook", "find-file", "list-devices", "grep-memory", "current-date", "calendar", "send-message"],
    );
    assert.deepEqual(ns.tools().filter((t) => t.advertiseInMenu).map((t) => t.slug), ["current-date"]);
  });

  test("a built-in wins over a declaration of its slug; the first declaring skills.json (by URI) wins over later ones", () => {
    const two = workspace({
      [uri("b/skills.json")]: sendMessageTool("send-message", "send_b"),
      [uri("a/skills.json")]: sendMessageTool("send-message", "send_a"),
      [uri("c/skills.json")]: sendMessageTool("calendar", "my_calendar"),
    });
    assert.equal(two.tool("send-message")?.name, "send_a");
    assert.equal(two.tool("calendar")?.name, "queryCalendar");
    assert.deepEqual(two.tools().map((t) => t.name).slice(6), ["send_a"]);
  });

  test("isTaken, describeHolder and mint", () => {
    const named = workspace({ [skillUri("meeting-prep", "work")]: skillText("x"), [CONFIG]: sendMessageTool() });
    assert.equal(named.isTaken("Meeting-Prep"), true);
    assert.equal(named.isTaken("meeting-prep", skillUri("meeting-prep", "work")), false);
    assert.equal(named.isTaken("find-file"), true);
    assert.equal(named.isTaken("free-name"), false);
    assert.equal(named.describeHolder("find-file"), "the built-in tool find_file");
    assert.equal(named.describeHolder("send-message"), "the tool send_message declared in skills.json");
    assert.equal(named.describeHolder("meeting-prep"), `the skill ${skillUri("meeting-prep", "work")}`);
    assert.equal(named.describeHolder("meeting-prep", skillUri("meeting-prep", "work")), undefined);
    assert.equal(named.mint("Meeting Prep"), "meeting-prep-2");
    assert.equal(named.mint("Meeting Prep", "meeting-prep"), "meeting-prep");
    assert.equal(named.mint("Find File"), "find-file-2");
    assert.equal(named.mint("Send Message!"), "send-message-2");
    assert.equal(named.mint("Plan Trip"), "plan-trip");
  });
});

describe("duplicates and collisions", () => {
  test("two skills with one handle in two folders: an error on each, the other as related info", () => {
    const a = skillUri("search", "home");
    const b = skillUri("search", "work");
    const ns = workspace({ [a]: skillText("x"), [b]: skillText("y") });
    for (const [self, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const [duplicate] = only(ns.diagnose(self), DiagnosticCodes.duplicateHandle);
      assert.ok(duplicate, `a duplicate-handle error on ${self}`);
      assert.equal(duplicate.severity, "error");
      assert.match(duplicate.message, /@search is claimed by 2 skills/);
      assert.deepEqual(duplicate.related, [{ uri: other, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, message: "also @search" }]);
      assert.deepEqual(duplicate.fix, { kind: "rename-skill", reason: "duplicate" });
    }
    assert.equal(ns.claimants("search").length, 2);
  });

  test("three claimants: each names the other two", () => {
    const uris = ["a", "b", "c"].map((folder) => skillUri("dup", folder));
    const ns = workspace(Object.fromEntries(uris.map((u) => [u, skillText("x")])));
    for (const self of uris) {
      const [duplicate] = only(ns.diagnose(self), DiagnosticCodes.duplicateHandle);
      assert.match(duplicate?.message ?? "", /claimed by 3 skills/);
      assert.deepEqual(duplicate?.related?.map((r) => r.uri), uris.filter((u) => u !== self));
    }
  });

  test("a skill named like a built-in tool", () => {
    const ns = workspace({ [skillUri("find-file")]: skillText("x") });
    const [collision] = only(ns.diagnose(skillUri("find-file")), DiagnosticCodes.toolCollision);
    assert.equal(collision?.severity, "error");
    assert.match(collision?.message ?? "", /@find-file is taken by the built-in tool find_file/);
    assert.deepEqual(collision?.related, []);
    assert.deepEqual(collision?.fix, { kind: "rename-skill", reason: "tool" });
  });

  test("a skill named like a declared tool: an error on both, each pointing at the other", () => {
    const { text, ranges } = spans('{"tools": [{"slug": ⟦"send-message"⟧, "name": "send_message", "blurb": "b"}]}');
    const skill = skillUri("send-message", "home");
    const ns = workspace({ [CONFIG]: text, [skill]: skillText("x") });
    const [onSkill] = only(ns.diagnose(skill), DiagnosticCodes.toolCollision);
    assert.match(onSkill?.message ?? "", /taken by the tool send_message declared in skills.json/);
    assert.deepEqual(onSkill?.related, [{ uri: CONFIG, range: ranges[0], message: "the tool send_message" }]);
    const [onConfig] = only(ns.diagnose(CONFIG), DiagnosticCodes.toolCollision);
    assert.equal(onConfig && showRange(onConfig.range), ranges[0] && showRange(ranges[0]));
    assert.match(onConfig?.message ?? "", /@send-message is taken by a skill/);
    assert.deepEqual(onConfig?.related?.map((r) => r.uri), [skill]);
  });

  test("a declared tool named like a built-in, and one declared twice", () => {
    const first = uri("a/skills.json");
    const second = uri("b/skills.json");
    const ns = workspace({
      [first]: '{"tools": [{"slug": "calendar", "name": "cal", "blurb": "b"}, {"slug": "ping", "name": "ping", "blurb": "b"}]}',
      [second]: '{"tools": [{"slug": "ping", "name": "ping2", "blurb": "b"}]}',
    });
    const firstCollisions = only(ns.diagnose(first), DiagnosticCodes.toolCollision);
    assert.deepEqual(firstCollisions.map((d) => d.message), [
      "@calendar is taken by the built-in tool queryCalendar: skills and tools share one namespace.",
      "@ping is taken by another tool declaration: skills and tools share one namespace.",
    ]);
    assert.deepEqual(firstCollisions[1]?.related?.map((r) => r.uri), [second]);
    assert.deepEqual(only(ns.diagnose(second), DiagnosticCodes.toolCollision).map((d) => d.related?.map((r) => r.uri)), [[first]]);
  });

  test("an invalid handle claims nothing", () => {
    const ns = workspace({ [skillUri("Plan")]: skillText("x"), [skillUri("a")]: skillText("Use @plan.") });
    assert.equal(ns.resolve("plan"), undefined);
    assert.deepEqual(codes(ns.diagnose(skillUri("Plan"))), [DiagnosticCodes.invalidHandle]);
    assert.deepEqual(codes(ns.diagnose(skillUri("a"))), [DiagnosticCodes.unknownMention]);
  });
});

describe("mention diagnostics", () => {
  test("unknown, disabled and case, each with its range", () => {
    const { text, ranges } = spans("Use ⟦@nope⟧, ⟦@off⟧, ⟦@Plan-Trip⟧, @find-file and @plan-trip.");
    const ns = workspace({
      [skillUri("a")]: skillText(text),
      [skillUri("off")]: skillText("x", { enabled: false }),
      [skillUri("plan-trip")]: skillText("x"),
    });
    const lineShift = (r: (typeof ranges)[number] | undefined) => (r ? showRange({ start: { ...r.start, line: r.start.line + 3 }, end: { ...r.end, line: r.end.line + 3 } }) : "?");
    const diagnostics = ns.diagnose(skillUri("a"));
    assert.deepEqual(brief(diagnostics), [
      `unknown-mention@${lineShift(ranges[0])}`,
      `disabled-mention@${lineShift(ranges[1])}`,
      `mention-case@${lineShift(ranges[2])}`,
    ]);
    const [unknown, disabled, casing] = diagnostics;
    assert.equal(unknown?.severity, "error");
    assert.match(unknown?.message ?? "", /@nope — unknown: no skill or tool has this handle/);
    assert.deepEqual(unknown?.fix, { kind: "unknown-mention", slug: "nope" });
    assert.equal(disabled?.severity, "warning");
    assert.deepEqual(disabled?.related?.map((r) => r.uri), [skillUri("off")]);
    assert.match(casing?.message ?? "", /Write @plan-trip in lower case/);
    assert.deepEqual(casing?.fix, { kind: "normalise-case", slug: "plan-trip" });
  });

  test("summary mentions are diagnosed like body mentions", () => {
    const ns = workspace({ [skillUri("a")]: "---\nsummary: Wraps @missing\n---\nbody\n" });
    assert.deepEqual(brief(ns.diagnose(skillUri("a"))), ["unknown-mention@1:15-1:23"]);
  });

  test("skills.json: menu entries and text mentions", () => {
    const { text, ranges } = spans('{"alignment": {"instructions": "Use ⟦@ghost⟧.", "menu": ["⟦@nope⟧", "⟦@find-file⟧", "⟦@hidden⟧", "⟦@off⟧", "@ok"]}}');
    const ns = workspace({
      [CONFIG]: text,
      [skillUri("hidden")]: skillText("x", { advertised: false }),
      [skillUri("off")]: skillText("x", { enabled: false }),
      [skillUri("ok")]: skillText("x"),
    });
    const diagnostics = ns.diagnose(CONFIG);
    assert.deepEqual(
      diagnostics.map((d) => `${d.code} ${d.severity} ${showRange(d.range)}`),
      [
        ["unknown-mention", "error"],
        ["config-unknown-handle", "error"],
        ["config-unknown-handle", "error"],
        ["config-unknown-handle", "warning"],
        ["config-unknown-handle", "warning"],
      ].map(([code, severity], i) => `${code} ${severity} ${ranges[i] ? showRange(ranges[i]) : "?"}`),
    );
    assert.deepEqual(diagnostics.slice(1).map((d) => d.message), [
      "@nope — unknown: no skill has this handle.",
      "@find-file is a tool: the menu selects skills (a tool is on the menu when it sets advertiseInMenu).",
      "@hidden is not advertised, so the menu leaves it out.",
      "@off is disabled, so the menu leaves it out.",
    ]);
  });
});

describe("incremental updates", () => {
  const A = skillUri("a");
  const B = skillUri("b");
  const C = skillUri("c", "sub");
  const D = skillUri("d");
  const base = () =>
    workspace({
      [A]: skillText("Use @b."),
      [C]: skillText("Then @B."),
      [D]: skillText("Unrelated: @find-file."),
      [CONFIG]: '{"alignment": {"menu": ["@d"]}}',
    });
  const diagnoseAll = (ns: Namespace) => {
    for (const skill of ns.skills()) ns.diagnose(skill.uri);
    for (const config of ns.configs()) ns.diagnose(config.uri);
  };

  test("creating a missing skill re-diagnoses exactly it and its mentioners, and clears their unknown-mention", () => {
    const ns = base();
    assert.deepEqual(codes(ns.diagnose(A)), ["unknown-mention"]);
    assert.deepEqual(codes(ns.diagnose(C)), ["unknown-mention"], "an unknown mention gets no case warning on top");
    assert.deepEqual(sorted(ns.set(B, skillText("x"))), sorted([B, A, C]));
    assert.deepEqual(codes(ns.diagnose(A)), []);
    assert.deepEqual(codes(ns.diagnose(C)), ["mention-case"]);
  });

  test("disabling a skill adds disabled-mention in its mentioners; enabling it takes it away", () => {
    const ns = base();
    ns.set(B, skillText("x"));
    diagnoseAll(ns);
    assert.deepEqual(sorted(ns.set(B, skillText("x", { summary: "s", enabled: false }))), sorted([B, A, C]));
    assert.deepEqual(codes(ns.diagnose(A)), ["disabled-mention"]);
    assert.deepEqual(codes(ns.diagnose(C)), ["disabled-mention", "mention-case"]);
    assert.deepEqual(sorted(ns.set(B, skillText("x"))), sorted([B, A, C]));
    assert.deepEqual(codes(ns.diagnose(A)), []);
  });

  test("editing a body re-diagnoses only that file; the same text again re-diagnoses nothing", () => {
    const ns = base();
    ns.set(B, skillText("x"));
    assert.deepEqual(sorted(ns.set(B, skillText("now with @find-file"))), [B]);
    assert.deepEqual(sorted(ns.set(B, skillText("now with @find-file"))), []);
    assert.deepEqual(sorted(ns.set(A, skillText("Use @b and @d."))), [A]);
  });

  test("removing a skill re-diagnoses its mentioners (not itself) and they get unknown-mention back", () => {
    const ns = base();
    ns.set(B, skillText("x"));
    diagnoseAll(ns);
    assert.deepEqual(sorted(ns.remove(B)), sorted([A, C]));
    assert.equal(ns.has(B), false);
    assert.deepEqual(ns.diagnose(B), []);
    assert.deepEqual(codes(ns.diagnose(A)), ["unknown-mention"]);
    assert.deepEqual(sorted(ns.remove(uri("never-there.skill.md"))), []);
  });

  test("a second claimant re-diagnoses both claimants and the mentioners; removing it clears the duplicate", () => {
    const ns = base();
    ns.set(B, skillText("x"));
    diagnoseAll(ns);
    const B2 = skillUri("b", "other");
    assert.deepEqual(sorted(ns.set(B2, skillText("y"))), sorted([B2, B, A, C]));
    assert.deepEqual(codes(ns.diagnose(B)), ["duplicate-handle"]);
    assert.deepEqual(sorted(ns.remove(B2)), sorted([B, A, C]));
    assert.deepEqual(codes(ns.diagnose(B)), []);
  });

  test("declaring a tool re-diagnoses its mentioners and the skill it collides with", () => {
    const ns = base();
    ns.set(B, skillText("x"));
    diagnoseAll(ns);
    assert.deepEqual(sorted(ns.set(CONFIG, '{"tools": [{"slug": "b", "name": "b_tool", "blurb": "b"}], "alignment": {"menu": ["@d"]}}')), sorted([CONFIG, B, A, C]));
    assert.deepEqual(codes(ns.diagnose(B)), ["tool-collision"]);
    assert.equal(ns.resolve("b")?.kind, "tool");
    assert.deepEqual(sorted(ns.set(CONFIG, '{"alignment": {"menu": ["@d"]}}')), sorted([CONFIG, B, A, C]));
    assert.deepEqual(codes(ns.diagnose(B)), []);
  });

  test("a config edit that changes no tool re-diagnoses only the config", () => {
    const ns = base();
    assert.deepEqual(sorted(ns.set(CONFIG, '{"alignment": {"menu": ["@d", "@b"]}}')), [CONFIG]);
    assert.deepEqual(codes(ns.diagnose(CONFIG)), ["config-unknown-handle"]);
  });

  test("hiding a skill from the menu re-diagnoses the config that selects it", () => {
    const ns = base();
    diagnoseAll(ns);
    assert.deepEqual(sorted(ns.set(D, skillText("Unrelated: @find-file.", { summary: "s", advertised: false }))), sorted([D, CONFIG]));
    assert.deepEqual(codes(ns.diagnose(CONFIG)), ["config-unknown-handle"]);
  });

  test("removing a skills.json that declares a tool re-diagnoses the tool's mentioners", () => {
    const ns = base();
    ns.set(CONFIG, '{"tools": [{"slug": "b", "name": "b_tool", "blurb": "b"}]}');
    diagnoseAll(ns);
    assert.deepEqual(codes(ns.diagnose(A)), []);
    assert.deepEqual(sorted(ns.remove(CONFIG)), sorted([A, C]));
    assert.deepEqual(codes(ns.diagnose(A)), ["unknown-mention"]);
  });
});

describe("the diagnostics cache", () => {
  test("cached until a change that concerns the file; unrelated changes keep it", () => {
    const A = skillUri("a");
    const ns = workspace({ [A]: skillText("Use @b."), [skillUri("z")]: skillText("z") });
    const first = ns.diagnose(A);
    assert.equal(ns.diagnose(A), first, "the same array, from the cache");
    const generation = ns.generation;
    ns.set(skillUri("z"), skillText("z changed"));
    assert.ok(ns.generation > generation);
    assert.equal(ns.diagnose(A), first, "an unrelated change keeps the cache");
    const before = ns.generation;
    ns.set(skillUri("z"), skillText("z changed"));
    assert.equal(ns.generation, before, "the same text is no change");
    ns.set(skillUri("b"), skillText("b"));
    const second = ns.diagnose(A);
    assert.notEqual(second, first, "recomputed after a change that concerns it");
    assert.deepEqual(second, []);
    assert.equal(ns.diagnose(A), second);
  });

  test("a removed file's diagnostics are forgotten", () => {
    const A = skillUri("a");
    const ns = workspace({ [A]: skillText("Use @b.") });
    assert.equal(ns.diagnose(A).length, 1);
    ns.remove(A);
    assert.deepEqual(ns.diagnose(A), []);
    ns.set(A, skillText("Use @find-file."));
    assert.deepEqual(ns.diagnose(A), []);
  });
});

describe("skill and mention indexes", () => {
  test("claimants and mentioners, case-insensitively", () => {
    const ns = workspace({
      [skillUri("a")]: skillText("Use @X and @x."),
      [skillUri("b")]: "---\nsummary: wraps @x\n---\n",
      [CONFIG]: '{"alignment": {"menu": ["@x"]}}',
      [skillUri("x")]: skillText("x"),
    });
    assert.deepEqual(ns.mentioners("X"), [skillUri("a"), skillUri("b"), CONFIG].sort());
    assert.deepEqual(ns.claimants("X").map((s) => s.uri), [skillUri("x")]);
    assert.equal(ns.skillCount, 3);
    ns.set(skillUri("a"), skillText("nothing"));
    assert.deepEqual(ns.mentioners("x"), [skillUri("b"), CONFIG].sort());
  });
});
