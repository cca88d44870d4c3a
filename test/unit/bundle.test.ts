/**
 * Bundles: export with the closure, parse as data (every malformed kind refused), the import plan (re-slugging,
 * rewritten mentions, reuse of the same content, missing tools), Agent Skills interop, and a property test that
 * imports random bundles into random workspaces.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import * as fc from "fast-check";
import {
  bundleFile,
  bundleFromAgentSkills,
  bundleText,
  exportAgentSkills,
  exportBundle,
  fromAgentSkill,
  MAX_BUNDLE_BYTES,
  parseBundle,
  planImport,
  reviewLines,
  sha256Hex,
  toAgentSkill,
  validateBundle,
  type Bundle,
  type ImportPlan,
} from "../../server/src/core/bundle.js";
import { isRefusal, Namespace, parseSkillFile, type Refusal } from "../../server/src/core/index.js";
import { loadExamples, REPO_ROOT, skillText, skillUri, uri, workspace } from "./helpers.js";

const TARGET = uri("in/");
const EMPTY_TARGET = "file:///fresh/";

function must<T>(value: T | Refusal): T {
  if (isRefusal(value)) throw new Error(`refused: ${value.refused}`);
  return value;
}

/** A bundle from handle → text, with correct hashes; `tools` as slug → name. */
function bundleOf(skills: Readonly<Record<string, string>>, tools: Readonly<Record<string, string>> = {}, root?: string): Bundle {
  const entries = Object.entries(skills);
  return {
    format: "skill-bundle",
    version: 1,
    root: root ?? entries[0]?.[0] ?? "",
    skills: entries.map(([handle, text]) => ({ handle, text, sha256: sha256Hex(text) })),
    tools: Object.entries(tools).map(([slug, name]) => ({ slug, name })),
  };
}

/** The workspace after the import: the old files plus the planned ones. */
function afterImport(files: Readonly<Record<string, string>>, plan: ImportPlan): Namespace {
  const namespace = workspace(files);
  for (const file of plan.files) namespace.set(file.uri, file.text);
  return namespace;
}

const examples = loadExamples();

describe("export", () => {
  test("ships the skill and its transitive closure, root first, with the tools it needs by slug and bound name", () => {
    const bundle = must(exportBundle(workspace(examples), "@meeting-prep"));
    assert.equal(bundle.format, "skill-bundle");
    assert.equal(bundle.version, 1);
    assert.equal(bundle.root, "meeting-prep");
    assert.deepEqual(bundle.skills.map((skill) => skill.handle), ["meeting-prep", "check-schedule", "search-info", "fetch-file"]);
    assert.deepEqual(bundle.tools, [
      { slug: "current-date", name: "current_date" },
      { slug: "calendar", name: "queryCalendar" },
      { slug: "check-notebook", name: "check_notebook" },
      { slug: "grep-memory", name: "grep_memory" },
      { slug: "list-devices", name: "list_devices" },
      { slug: "find-file", name: "find_file" },
    ]);
    for (const skill of bundle.skills) {
      assert.equal(skill.text, examples[Object.keys(examples).find((key) => key.endsWith(`/${skill.handle}.skill.md`)) ?? ""]);
      assert.equal(skill.sha256, sha256Hex(skill.text));
      assert.match(skill.sha256, /^[0-9a-f]{64}$/);
    }
  });

  test("cycles and self-mentions end; a tool declared in skills.json is listed like a built-in", () => {
    const cycle = must(exportBundle(workspace(examples), "follow-up"));
    assert.deepEqual(cycle.skills.map((skill) => skill.handle), ["follow-up", "triage-inbox"]);
    const self = must(exportBundle(workspace(examples), "retry-search"));
    assert.deepEqual(self.skills.map((skill) => skill.handle), ["retry-search"]);
    const disabled = must(exportBundle(workspace(examples), "draft-reply"));
    assert.deepEqual(disabled.tools, [{ slug: "check-notebook", name: "check_notebook" }, { slug: "send-message", name: "send_message" }]);
  });

  test("mentions in the summary are part of the closure too", () => {
    const files = { [skillUri("a")]: skillText("Body.", { summary: "Wraps @b." }), [skillUri("b")]: skillText("Use @calendar.") };
    assert.deepEqual(must(exportBundle(workspace(files), "a")).skills.map((skill) => skill.handle), ["a", "b"]);
  });

  test("the bundle text is stable JSON that parses back to the same bundle", () => {
    const bundle = must(exportBundle(workspace(examples), "plan-trip"));
    const text = bundleText(bundle);
    assert.equal(text, bundleText(must(exportBundle(workspace(examples), "plan-trip"))));
    assert.ok(text.endsWith("}\n"));
    assert.deepEqual(must(parseBundle(text)), bundle);
  });

  const refusals: [string, Record<string, string>, string, RegExp][] = [
    ["a tool", examples, "calendar", /tool queryCalendar.*only skills/],
    ["an unknown handle", examples, "nope", /No skill is named @nope/],
    ["a dangling mention in the closure", { [skillUri("a")]: skillText("Use @b."), [skillUri("b")]: skillText("Use @ghost.") }, "a", /@b \(line 4\) mentions @ghost, which names nothing/],
    ["an ambiguous handle", { [skillUri("a", "x")]: skillText("A."), [skillUri("a", "y")]: skillText("A.") }, "a", /claimed by 2 skills/],
    ["an ambiguous mention", { [skillUri("r")]: skillText("Use @a."), [skillUri("a", "x")]: skillText("A."), [skillUri("a", "y")]: skillText("A.") }, "r", /@a is claimed by 2 skills/],
  ];
  const handles = Array.from({ length: 18 }, (_, index) => `s${index}`);
  const chain = Object.fromEntries(handles.map((handle, index, all) => [skillUri(handle), `${"word ".repeat(190_000)}@${all[index + 1] ?? "s0"}\n`]));
  refusals.push(["a bundle past the size an import accepts", chain, "s0", /makes a 16\.3 MB bundle; a bundle is at most 16\.0 MB/]);
  for (const [name, files, handle, message] of refusals) {
    test(`refuses ${name}`, () => {
      const result = exportBundle(workspace(files), handle);
      assert.ok(isRefusal(result), "expected a refusal");
      assert.match(result.refused, message);
    });
  }
});

describe("export then import into an empty workspace gives identical files", () => {
  for (const key of Object.keys(examples).filter((name) => name.endsWith(".skill.md"))) {
    const handle = key.slice(key.lastIndexOf("/") + 1, -".skill.md".length);
    test(`@${handle}`, () => {
      const bundle = must(parseBundle(bundleText(must(exportBundle(workspace(examples), handle)))));
      const plan = must(planImport(new Namespace(), bundle, EMPTY_TARGET));
      assert.equal(plan.files.length, bundle.skills.length);
      for (const skill of plan.review.skills) {
        assert.equal(skill.action, "create");
        assert.equal(skill.handle, skill.incoming);
        assert.deepEqual(skill.rewrites, []);
      }
      for (const file of plan.files) {
        const name = file.uri.slice(EMPTY_TARGET.length);
        const original = Object.entries(examples).find(([path]) => path.endsWith(`/${name}`));
        assert.equal(file.text, original?.[1], name);
      }
    });
  }
});

describe("parseBundle: a bundle is data, and every malformed kind is refused", () => {
  const good = bundleOf({ a: skillText("Use @b and @calendar."), b: skillText("B.") }, { calendar: "queryCalendar" });
  const goodJson = (): Record<string, unknown> => JSON.parse(bundleText(good)) as Record<string, unknown>;
  const edit = (change: (value: Record<string, unknown>) => void): string => {
    const value = goodJson();
    change(value);
    return JSON.stringify(value);
  };
  const skillAt = (value: Record<string, unknown>, index: number): Record<string, unknown> => (value.skills as Record<string, unknown>[])[index] ?? {};
  const cases: [string, string, RegExp][] = [
    ["an oversize file", `{"pad":"${"x".repeat(MAX_BUNDLE_BYTES)}"}`, /at most 16\.0 MB/],
    ["an oversize file by UTF-8 bytes", `{"pad":"${"é".repeat(MAX_BUNDLE_BYTES / 2)}"}`, /at most 16\.0 MB/],
    ["malformed JSON", "{ \"format\": ", /not valid JSON/],
    ["an empty file", "", /not valid JSON/],
    ["a JSON array", "[]", /one JSON object/],
    ["a JSON string", "\"skill-bundle\"", /one JSON object/],
    ["no format", edit((value) => delete value.format), /no "format"/],
    ["an unknown format", edit((value) => (value.format = "zip")), /format is "zip"/],
    ["an unknown version", edit((value) => (value.version = 2)), /version 2; this editor reads version 1\. Update/],
    ["a version as a string", edit((value) => (value.version = "1")), /version "1"/],
    ["an unknown key", edit((value) => (value.run = "rm -rf /")), /Unknown key "run"/],
    ["a __proto__ key", `{"__proto__": {"x": 1}, ${bundleText(good).slice(1)}`, /Unknown key "__proto__"/],
    ["no skills", edit((value) => (value.skills = [])), /at least one skill/],
    ["skills not a list", edit((value) => (value.skills = { a: 1 })), /"skills" must be a list/],
    ["a skill that is not an object", edit((value) => (value.skills = ["a"])), /skills\[0\] must be an object/],
    ["an unknown key in a skill", edit((value) => (skillAt(value, 0).script = "x")), /Unknown key "script" in skills\[0\]/],
    ["a handle that is not a slug", edit((value) => (skillAt(value, 1).handle = "Plan Trip")), /skills\[1\]\.handle: "Plan Trip" is not a valid handle/],
    ["an upper-case handle", edit((value) => (skillAt(value, 1).handle = "B")), /A handle is lower-case/],
    ["an empty handle", edit((value) => (skillAt(value, 1).handle = "")), /cannot be empty/],
    ["a handle over 64 characters", edit((value) => (skillAt(value, 1).handle = "a".repeat(65))), /at most 64 characters/],
    ["a handle that is not a string", edit((value) => (skillAt(value, 1).handle = 7)), /handle must be a string/],
    ["a parent-folder handle", edit((value) => (skillAt(value, 1).handle = "../../etc/passwd")), /would write outside the target folder/],
    ["a handle with a slash", edit((value) => (skillAt(value, 1).handle = "sub/b")), /would write outside the target folder/],
    ["a handle with a backslash", edit((value) => (skillAt(value, 1).handle = "..\\b")), /would write outside the target folder/],
    ["a dot handle", edit((value) => (skillAt(value, 1).handle = "..")), /would write outside the target folder/],
    ["duplicate handles", edit((value) => (skillAt(value, 1).handle = "a")), /@a appears twice/],
    ["a text that is a number", edit((value) => (skillAt(value, 1).text = 42)), /The text of @b \(skills\[1\]\.text\) is not a string/],
    ["a text that is null", edit((value) => (skillAt(value, 1).text = null)), /is not a string/],
    ["a text that is a list", edit((value) => (skillAt(value, 1).text = ["B."])), /is not a string/],
    ["a text with NUL bytes", edit((value) => Object.assign(skillAt(value, 1), { text: "B\u0000", sha256: sha256Hex("B\u0000") })), /binary data/],
    ["a text over the skill limit", edit((value) => Object.assign(skillAt(value, 1), { text: "b".repeat(1_000_001), sha256: sha256Hex("b".repeat(1_000_001)) })), /at most 1,000,000/],
    ["a missing sha256", edit((value) => delete skillAt(value, 1).sha256), /sha256 must be the 64/],
    ["a sha256 that does not match", edit((value) => (skillAt(value, 1).text = "Changed on the way.")), /does not match its sha256/],
    ["an upper-case sha256", edit((value) => (skillAt(value, 1).sha256 = String(skillAt(value, 1).sha256).toUpperCase())), /64 lower-case hex/],
    ["no root", edit((value) => delete value.root), /"root" must be the handle/],
    ["a root that is not shipped", edit((value) => (value.root = "c")), /root @c is not one of the bundle's skills/],
    ["no tools list", edit((value) => delete value.tools), /"tools" must be a list/],
    ["a tool slug that is not a slug", edit((value) => (value.tools = [{ slug: "Cal", name: "queryCalendar" }])), /tools\[0\]\.slug/],
    ["a tool name that is not a name", edit((value) => (value.tools = [{ slug: "calendar", name: "query calendar()" }])), /tools\[0\]\.name must be a tool name/],
    ["an unknown key in a tool", edit((value) => (value.tools = [{ slug: "calendar", name: "queryCalendar", implementation: "./x.js" }])), /Unknown key "implementation" in tools\[0\]/],
    ["a tool listed twice", edit((value) => (value.tools = [{ slug: "calendar", name: "queryCalendar" }, { slug: "calendar", name: "queryCalendar" }])), /listed twice/],
    ["a tool named like a skill", edit((value) => (value.tools = [{ slug: "calendar", name: "queryCalendar" }, { slug: "b", name: "b" }])), /@b is both a skill and a tool/],
    ["a mention the bundle does not ship", edit((value) => (value.tools = [])), /@a mentions @calendar \(line 4\), which the bundle neither ships nor lists/],
  ];

  test("the well-formed bundle the cases start from parses", () => {
    assert.deepEqual(must(parseBundle(bundleText(good))), good);
    assert.deepEqual(must(parseBundle(`\uFEFF${bundleText(good)}`)), good);
  });

  for (const [name, text, message] of cases) {
    test(`refuses ${name}`, () => {
      const result = parseBundle(text);
      assert.ok(isRefusal(result), "expected a refusal");
      assert.match(result.refused, message);
      // Nothing is written: there is no plan. A caller that skips parseBundle is stopped by planImport as well.
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return;
      }
      if (text.length <= MAX_BUNDLE_BYTES && !/does not ship|neither ships/.test(message.source)) assert.ok(isRefusal(planImport(new Namespace(), value as Bundle, EMPTY_TARGET)));
    });
  }

  test("nothing in a bundle is run: a text full of code is just prose", () => {
    const text = "---\nsummary: x\n---\n<script>alert(1)</script> ${process.exit(1)} `rm -rf /` {{constructor}}";
    const plan = must(planImport(new Namespace(), must(parseBundle(bundleText(bundleOf({ x: text })))), EMPTY_TARGET));
    assert.deepEqual(plan.files, [{ uri: `${EMPTY_TARGET}x.skill.md`, text }]);
  });

  test("planImport refuses a target that is not a URI", () => {
    const result = planImport(new Namespace(), good, "/home/me/skills");
    assert.ok(isRefusal(result));
    assert.match(result.refused, /must be a URI/);
  });
});

describe("the JSON schema agrees with the parser", () => {
  interface Schema {
    readonly type?: string;
    readonly const?: unknown;
    readonly required?: readonly string[];
    readonly additionalProperties?: boolean;
    readonly properties?: Readonly<Record<string, Schema>>;
    readonly items?: Schema;
    readonly minItems?: number;
    readonly pattern?: string;
    readonly maxLength?: number;
    readonly $ref?: string;
  }
  const schema = JSON.parse(readFileSync(join(REPO_ROOT, "schemas/skill-bundle.schema.json"), "utf8")) as Schema & { definitions: Record<string, Schema> };
  /** The few draft-07 keywords the schema uses; answers the first violation. */
  const violation = (value: unknown, node: Schema, at: string): string | undefined => {
    const resolved = node.$ref ? schema.definitions[node.$ref.replace("#/definitions/", "")] ?? {} : node;
    if (resolved.const !== undefined && value !== resolved.const) return `${at}: const`;
    if (resolved.type === "string" && typeof value !== "string") return `${at}: type`;
    if (resolved.type === "array" && !Array.isArray(value)) return `${at}: type`;
    if (resolved.type === "object" && (typeof value !== "object" || value === null || Array.isArray(value))) return `${at}: type`;
    if (typeof value === "string" && resolved.pattern && !new RegExp(resolved.pattern).test(value)) return `${at}: pattern`;
    if (typeof value === "string" && resolved.maxLength !== undefined && value.length > resolved.maxLength) return `${at}: maxLength`;
    if (Array.isArray(value)) {
      if (resolved.minItems !== undefined && value.length < resolved.minItems) return `${at}: minItems`;
      for (const [index, item] of value.entries()) {
        const found = resolved.items ? violation(item, resolved.items, `${at}[${index}]`) : undefined;
        if (found) return found;
      }
    } else if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>;
      for (const key of resolved.required ?? []) if (!(key in record)) return `${at}.${key}: required`;
      for (const [key, item] of Object.entries(record)) {
        const child = resolved.properties?.[key];
        if (!child) {
          if (resolved.additionalProperties === false) return `${at}.${key}: additionalProperties`;
          continue;
        }
        const found = violation(item, child, `${at}.${key}`);
        if (found) return found;
      }
    }
    return undefined;
  };

  test("every exported bundle of the examples is valid", () => {
    for (const key of Object.keys(examples).filter((name) => name.endsWith(".skill.md"))) {
      const handle = key.slice(key.lastIndexOf("/") + 1, -".skill.md".length);
      assert.equal(violation(JSON.parse(bundleText(must(exportBundle(workspace(examples), handle)))), schema, "$"), undefined, handle);
    }
  });

  test("what the schema rejects, the parser refuses", () => {
    const base = JSON.parse(bundleText(bundleOf({ a: "A." }))) as Record<string, unknown>;
    const variants: Record<string, unknown>[] = [
      { ...base, version: 2 },
      { ...base, format: "other" },
      { ...base, extra: true },
      { ...base, skills: [] },
      { ...base, skills: [{ handle: "../a", text: "A.", sha256: sha256Hex("A.") }] },
      { ...base, skills: [{ handle: "a", text: 1, sha256: sha256Hex("A.") }] },
      { ...base, tools: [{ slug: "x", name: "bad name" }] },
    ];
    for (const variant of variants) {
      assert.notEqual(violation(variant, schema, "$"), undefined, JSON.stringify(variant));
      assert.ok(isRefusal(parseBundle(JSON.stringify(variant))), JSON.stringify(variant));
    }
  });
});

describe("import", () => {
  test("a skill already here with the same content is reused, not duplicated", () => {
    const bundle = must(exportBundle(workspace(examples), "meeting-prep"));
    const plan = must(planImport(workspace(examples), bundle, TARGET));
    assert.deepEqual(plan.files, []);
    assert.deepEqual(plan.review.skills.map((skill) => [skill.incoming, skill.action, skill.uri]), [
      ["meeting-prep", "reuse", uri("skills/work/meeting-prep.skill.md")],
      ["check-schedule", "reuse", uri("skills/builtin/check-schedule.skill.md")],
      ["search-info", "reuse", uri("skills/builtin/search-info.skill.md")],
      ["fetch-file", "reuse", uri("skills/builtin/fetch-file.skill.md")],
    ]);
    assert.deepEqual(plan.review.missingTools, []);
  });

  test("only the skills that differ are created; the closure points at the reused ones", () => {
    const files = { ...examples, [uri("skills/builtin/fetch-file.skill.md")]: skillText("A different procedure. Use @find-file.") };
    const bundle = must(exportBundle(workspace(examples), "search-info"));
    const plan = must(planImport(workspace(files), bundle, TARGET));
    assert.deepEqual(plan.review.skills.map((skill) => [skill.incoming, skill.handle, skill.action]), [
      ["search-info", "search-info-2", "create"],
      ["fetch-file", "fetch-file-2", "create"],
    ]);
    // search-info differs only because it must mention the new fetch-file-2: it cannot reuse the old one.
    const searchInfo = plan.files.find((file) => file.uri === `${TARGET}search-info-2.skill.md`);
    assert.match(searchInfo?.text ?? "", /THEN use @fetch-file-2 to look/);
  });

  test("re-slug on a collision with a tool rewrites the mentions inside the bundle", () => {
    const bundle = bundleOf(
      {
        "plan-week": skillText("First @Calendar, then @calendar again, never @calendar-sync.", { summary: "Plan with @calendar." }),
        calendar: skillText("Read the diary. Use @current-date."),
        "calendar-sync": skillText("Sync."),
      },
      { "current-date": "current_date" },
    );
    const plan = must(planImport(workspace(examples), must(parseBundle(bundleText(bundle))), TARGET));
    const calendar = plan.review.skills.find((skill) => skill.incoming === "calendar");
    assert.equal(calendar?.handle, "calendar-2");
    assert.deepEqual(calendar?.takenBy, { kind: "tool", name: "queryCalendar" });
    const planWeek = plan.review.skills.find((skill) => skill.incoming === "plan-week");
    assert.deepEqual(planWeek?.rewrites.map((rewrite) => [rewrite.from, rewrite.to, rewrite.position.line]), [
      ["@calendar", "@calendar-2", 1],
      ["@Calendar", "@calendar-2", 3],
      ["@calendar", "@calendar-2", 3],
    ]);
    const text = plan.files.find((file) => file.uri === `${TARGET}plan-week.skill.md`)?.text;
    assert.equal(text, skillText("First @calendar-2, then @calendar-2 again, never @calendar-sync.", { summary: "Plan with @calendar-2." }));
    const after = afterImport(examples, plan);
    for (const mention of parseSkillFile(`${TARGET}plan-week.skill.md`, text ?? "").mentions) {
      const target = after.resolve(mention.slug);
      assert.equal(target?.kind, "skill", mention.slug);
    }
    assert.deepEqual(after.diagnose(`${TARGET}calendar-2.skill.md`), []);
    assert.ok(reviewLines(plan.review).some((line) => line.includes("@calendar → @calendar-2") && line.includes("the tool queryCalendar")));
  });

  test("a bundle's own x-2 keeps its handle; the colliding x takes the next free one", () => {
    const bundle = bundleOf({ "plan-trip": skillText("Mine. Then @plan-trip-2."), "plan-trip-2": skillText("Also mine, back to @plan-trip.") });
    const plan = must(planImport(workspace(examples), bundle, TARGET));
    assert.deepEqual(plan.review.skills.map((skill) => [skill.incoming, skill.handle]), [["plan-trip", "plan-trip-3"], ["plan-trip-2", "plan-trip-2"]]);
    assert.equal(plan.files.find((file) => file.uri.endsWith("/plan-trip-2.skill.md"))?.text, skillText("Also mine, back to @plan-trip-3."));
    assert.equal(plan.review.root, "plan-trip-3");
  });

  test("importing the same bundle again creates nothing, re-slugged skills included", () => {
    const bundle = bundleOf({ calendar: skillText("Diary. Then @notes."), notes: skillText("Notes about @calendar.") });
    const first = must(planImport(workspace(examples), bundle, TARGET));
    assert.equal(first.files.length, 2);
    const files = { ...examples, ...Object.fromEntries(first.files.map((file) => [file.uri, file.text])) };
    const second = must(planImport(workspace(files), bundle, TARGET));
    assert.deepEqual(second.files, []);
    assert.deepEqual(second.review.skills.map((skill) => [skill.handle, skill.action]), [["calendar-2", "reuse"], ["notes", "reuse"]]);
  });

  test("a file name that differs only in case counts as taken", () => {
    const files = { [uri("in/Plan.skill.md")]: skillText("Invalid handle.") };
    const plan = must(planImport(workspace(files), bundleOf({ plan: skillText("P.") }), TARGET));
    assert.equal(plan.review.skills[0]?.handle, "plan-2");
    assert.deepEqual(plan.review.skills[0]?.takenBy, { kind: "file", uri: uri("in/Plan.skill.md") });
  });

  test("the review lists the tools the workspace lacks, or holds under another name, or as a skill", () => {
    const bundle = must(exportBundle(workspace(examples), "draft-reply"));
    const bare = must(planImport(new Namespace(), bundle, TARGET));
    assert.deepEqual(bare.review.missingTools.map((tool) => [tool.slug, tool.status]), [["send-message", "missing"]]);
    assert.deepEqual(bare.review.tools.map((tool) => [tool.slug, tool.status]), [["check-notebook", "present"], ["send-message", "missing"]]);
    const renamed = workspace({ [uri("skills.json")]: JSON.stringify({ tools: [{ slug: "send-message", name: "sendMessage", blurb: "Send." }] }) });
    assert.deepEqual(must(planImport(renamed, bundle, TARGET)).review.tools[1], { slug: "send-message", name: "send_message", status: "other-name", here: "sendMessage" });
    const shadowed = workspace({ [skillUri("send-message")]: skillText("Not a tool.") });
    const review = must(planImport(shadowed, bundle, TARGET)).review;
    assert.deepEqual(review.missingTools.map((tool) => [tool.slug, tool.status, tool.here]), [["send-message", "skill", skillUri("send-message")]]);
  });

  test("a created skill never takes the slug of a tool the bundle needs", () => {
    const bundle = bundleOf({ notes: skillText("Use @notes-2.") }, { "notes-2": "notes_two" });
    const plan = must(planImport(workspace({ [skillUri("notes")]: skillText("Other notes.") }), bundle, TARGET));
    assert.equal(plan.review.skills[0]?.handle, "notes-3");
    assert.deepEqual(plan.review.missingTools.map((tool) => tool.slug), ["notes-2"]);
  });

  test("every planned file lies directly in the target folder, whatever the target's spelling", () => {
    for (const target of ["file:///ws/in", "file:///ws/in/", "file:///ws/in//"]) {
      const plan = must(planImport(new Namespace(), bundleOf({ a: "A." }), target));
      assert.equal(plan.folder, "file:///ws/in/");
      assert.deepEqual(plan.files.map((file) => file.uri), ["file:///ws/in/a.skill.md"]);
    }
  });
});

describe("Agent Skills interop", () => {
  const examplesNs = workspace(examples);
  const fields = (file: ReturnType<typeof parseSkillFile>) => ({
    handle: file.handle,
    title: file.title,
    summary: file.summary,
    enabled: file.enabled,
    advertised: file.advertised,
    examples: file.examples.map((entry) => entry.text),
    nearMisses: file.nearMisses.map((entry) => entry.text),
    body: file.body,
  });

  test("every example survives a round trip through SKILL.md", () => {
    for (const skill of examplesNs.skills()) {
      const folder = toAgentSkill(skill, examplesNs);
      assert.equal(folder.folder, skill.slug);
      assert.match(folder.text, new RegExp(`^---\\nname: ${skill.slug}\\ndescription: `));
      const back = must(fromAgentSkill(folder.folder, folder.text));
      assert.deepEqual(fields(parseSkillFile(skill.uri, back.text)), fields(skill), skill.slug);
      // And SKILL.md → .skill.md → SKILL.md is a fixed point.
      assert.equal(toAgentSkill(parseSkillFile(skill.uri, back.text), examplesNs).text, folder.text);
    }
  });

  test("a skill without a summary, with a long one, or with a custom title comes back the same", () => {
    const cases = [
      "Just a body with @calendar.\n",
      skillText("Body.", { title: "A Custom: Title", summary: "x".repeat(1500), enabled: false, advertised: false }),
      skillText("Body.", { summary: "'@check-notebook first, then: a colon'" }),
    ];
    for (const text of cases) {
      const skill = parseSkillFile(skillUri("odd-one"), text);
      const folder = toAgentSkill(skill, examplesNs);
      const description = /^description: (.*)$/m.exec(folder.text)?.[1] ?? "";
      assert.ok(description.length > 0 && description.length <= 1030, "the description is present and within the format's limit");
      assert.deepEqual(fields(parseSkillFile(skill.uri, must(fromAgentSkill(folder.folder, folder.text)).text)), fields(skill));
    }
  });

  test("a plain Agent Skill from another tool keeps its text byte for byte; description is its summary", () => {
    const text = "\uFEFF---\r\nname: pdf-tools\r\ndescription: Extract text from PDF files.\r\nlicense: MIT\r\nallowed-tools: Bash(pdftotext:*)\r\nmetadata:\r\n  author: someone\r\n---\r\n# PDF tools\r\n\r\nRun scripts/extract.py. Mail bob@example.com.\r\n";
    const skill = must(fromAgentSkill("pdf-tools", text));
    assert.equal(skill.handle, "pdf-tools");
    assert.equal(skill.text, text);
    assert.deepEqual(skill.dropped, []);
    const file = parseSkillFile(skillUri("pdf-tools"), skill.text);
    assert.equal(file.summary, "Extract text from PDF files.");
    assert.equal(file.body, "# PDF tools\r\n\r\nRun scripts/extract.py. Mail bob@example.com.\r\n");
    assert.deepEqual(file.problems, []);
    // And back: the same bytes, BOM and CRLF included.
    assert.equal(toAgentSkill(file).text, text);
  });

  test("a description past 1,024 characters is written whole, with a note", () => {
    const long = "d".repeat(1100);
    const folder = toAgentSkill(parseSkillFile(skillUri("long"), `---\nname: long\ndescription: ${long}\n---\nBody.\n`));
    assert.match(folder.text, new RegExp(`description: ${long}\n`));
    assert.match(folder.notes[0] ?? "", /1,100 characters; the Agent Skills format allows 1,024/);
    const ours = toAgentSkill(parseSkillFile(skillUri("ours"), `---\nsummary: ${long}\n---\nBody.\n`));
    assert.match(ours.text, new RegExp(`description: ${long}\n`));
    assert.equal(ours.notes.length, 1);
  });

  test("a re-slugged Agent Skill gets its name: rewritten on export, and nothing else", () => {
    const text = "---\nname: pdf # the name\ndescription: d\n---\nBody.\n";
    const folder = toAgentSkill(parseSkillFile(skillUri("pdf-2", "pdf-2"), text));
    assert.equal(folder.text, "---\nname: pdf-2 # the name\ndescription: d\n---\nBody.\n");
    assert.match(folder.notes[0] ?? "", /name: pdf is written name: pdf-2/);
  });

  const refusals: [string, string, string, RegExp][] = [
    ["a name that differs from the folder", "pdf", "---\nname: pdf-tools\ndescription: d\n---\n", /name: pdf-tools, but its folder is pdf\//],
    ["no name", "pdf", "---\ndescription: d\n---\n", /has no name/],
    ["no description", "pdf", "---\nname: pdf\n---\n", /has no description/],
    ["an empty description", "pdf", "---\nname: pdf\ndescription: '  '\n---\n", /has no description/],
    ["no frontmatter", "pdf", "# PDF\n", /has no frontmatter/],
    ["bad YAML", "pdf", "---\nname: [pdf\n---\n", /not valid YAML/],
    ["a folder that is not a valid name", "PDF_Tools", "---\nname: PDF_Tools\ndescription: d\n---\n", /not a valid Agent Skills name/],
    ["a folder that is a path", "../pdf", "---\nname: ../pdf\ndescription: d\n---\n", /would write outside the target folder/],
  ];
  for (const [name, folder, text, message] of refusals) {
    test(`refuses ${name}`, () => {
      const result = fromAgentSkill(folder, text);
      assert.ok(isRefusal(result));
      assert.match(result.refused, message);
    });
  }

  test("importing Agent Skills back into the workspace they came from reuses every skill", () => {
    const folders = must(exportAgentSkills(examplesNs, "plan-trip"));
    assert.deepEqual(folders.map((folder) => folder.folder), ["plan-trip", "check-schedule", "search-info", "fetch-file"]);
    const incoming = [...folders].reverse().map((folder) => must(fromAgentSkill(folder.folder, folder.text)));
    const bundle = must(bundleFromAgentSkills(incoming));
    assert.equal(bundle.root, "plan-trip", "the root is the skill no other mentions");
    assert.deepEqual(must(planImport(examplesNs, bundle, TARGET)).files, []);
    const fresh = must(planImport(new Namespace(), bundle, EMPTY_TARGET));
    assert.equal(fresh.files.length, 4);
    assert.deepEqual(fresh.review.missingTools, []);
  });

  test("a mention that names nothing in the set or here is escaped, and the review says so; a declared tool is not", () => {
    const text = "---\nname: helper\ndescription: Help.\nmetadata:\n  skill-lsp.tools: send-message=send_message\n---\nAsk @docs, then @send-message, then @calendar.\n";
    const bundle = must(bundleFromAgentSkills([must(fromAgentSkill("helper", text))]));
    assert.deepEqual(bundle.tools, [{ slug: "send-message", name: "send_message" }]);
    const plan = must(planImport(workspace(examples), bundle, TARGET));
    assert.equal(plan.files[0]?.text, "---\nsummary: Help.\n---\nAsk \\@docs, then @send-message, then @calendar.\n");
    assert.deepEqual(plan.review.skills[0]?.rewrites.map((rewrite) => [rewrite.kind, rewrite.from, rewrite.to]), [["escape", "@docs", "\\@docs"]]);
    assert.ok(reviewLines(plan.review).some((line) => line.includes("@docs names nothing here")));
  });

  test("duplicate Agent Skills names are refused", () => {
    const one = must(fromAgentSkill("a", "---\nname: a\ndescription: d\n---\n"));
    const result = bundleFromAgentSkills([one, one]);
    assert.ok(isRefusal(result));
    assert.match(result.refused, /@a appears twice/);
  });
});

describe("property: random bundles into random workspaces", () => {
  const POOL = ["plan", "plan-2", "plan-3", "notes", "calendar", "find-file", "a", "b", "b-2", "trip"];
  const TOOLS: Readonly<Record<string, string>> = { "current-date": "current_date", calendar: "queryCalendar", "send-message": "send_message" };
  const FOLDERS = ["", "x", "in"];
  const WORDS = ["Use", " ", "then", ".", "\n", ", ", "-", "word"];

  /** Text fragments: words, and mentions of `slugs` (sometimes upper-cased, sometimes escaped so they are no mention). */
  const textFrom = (slugs: readonly string[]) =>
    fc
      .array(
        fc.oneof(
          fc.constantFrom(...WORDS),
          slugs.length > 0 ? fc.constantFrom(...slugs.map((slug) => ` @${slug} `)) : fc.constant(" "),
          slugs.length > 0 ? fc.constantFrom(...slugs.map((slug) => ` @${slug.toUpperCase()} `)) : fc.constant(" "),
          slugs.length > 0 ? fc.constantFrom(...slugs.map((slug) => ` \\@${slug} `)) : fc.constant(" "),
        ),
        { maxLength: 8 },
      )
      .map((parts) => parts.join(""));

  const skillTextFrom = (slugs: readonly string[]) =>
    fc.tuple(textFrom(slugs), fc.option(textFrom(slugs), { nil: undefined }), fc.option(fc.constantFrom("Plan", "Notes", "A"), { nil: undefined })).map(([body, summary, title]) => {
      const fields: Record<string, string> = {};
      if (title !== undefined) fields.title = title;
      if (summary !== undefined && summary.trim() !== "") fields.summary = JSON.stringify(summary.trim());
      return Object.keys(fields).length > 0 ? skillText(body, fields) : body;
    });

  const scenario = fc
    .uniqueArray(fc.constantFrom(...POOL), { minLength: 1, maxLength: 5 })
    .chain((handles) => {
      const toolSlugs = Object.keys(TOOLS).filter((slug) => !handles.includes(slug));
      return fc.record({
        handles: fc.constant(handles),
        texts: fc.tuple(...handles.map(() => skillTextFrom([...handles, ...toolSlugs]))),
        existing: fc.array(fc.tuple(fc.constantFrom(...POOL), fc.constantFrom(...FOLDERS), skillTextFrom([...POOL, ...Object.keys(TOOLS)])), { maxLength: 6 }),
        copies: fc.array(fc.tuple(fc.nat({ max: handles.length - 1 }), fc.constantFrom("", "-2", "-3"), fc.constantFrom(...FOLDERS)), { maxLength: 3 }),
        declaresSendMessage: fc.boolean(),
      });
    });

  test("no dangling mention, no duplicate handle, the closure's references kept, and a second import creates nothing", () => {
    fc.assert(
      fc.property(scenario, ({ handles, texts, existing, copies, declaresSendMessage }) => {
        const skills: Record<string, string> = {};
        handles.forEach((handle, index) => (skills[handle] = texts[index] ?? ""));
        const mentioned = new Set(Object.entries(skills).flatMap(([handle, text]) => parseSkillFile(skillUri(handle), text).mentions.map((mention) => mention.slug)));
        const tools = Object.fromEntries(Object.entries(TOOLS).filter(([slug]) => mentioned.has(slug) && !handles.includes(slug)));
        const bundle = must(parseBundle(bundleText(bundleOf(skills, tools))));

        const files: Record<string, string> = {};
        for (const [handle, folder, text] of existing) files[skillUri(handle, folder)] = text;
        // Copies of incoming skills, some under another handle, so reuse has something to find.
        for (const [index, suffix, folder] of copies) {
          const handle = handles[index] ?? "a";
          files[skillUri(`${handle}${suffix}`, folder)] = skills[handle] ?? "";
        }
        if (declaresSendMessage) files[uri("skills.json")] = JSON.stringify({ tools: [{ slug: "send-message", name: "send_message", blurb: "Send." }] });

        const before = workspace(files);
        const plan = must(planImport(before, bundle, TARGET));
        const reviewByIncoming = new Map(plan.review.skills.map((skill) => [skill.incoming, skill]));
        assert.equal(plan.review.skills.length, handles.length);
        assert.equal(new Set(plan.review.skills.map((skill) => skill.handle)).size, handles.length, "every incoming skill gets its own handle");
        const lowerUris = new Set(Object.keys(files).map((name) => name.toLowerCase()));
        for (const file of plan.files) {
          assert.ok(!lowerUris.has(file.uri.toLowerCase()), `${file.uri} would overwrite a file`);
          assert.ok(file.uri.startsWith(TARGET) && !file.uri.slice(TARGET.length).includes("/"));
        }

        const after = afterImport(files, plan);
        const missing = new Set(plan.review.missingTools.filter((tool) => tool.status === "missing").map((tool) => tool.slug));
        for (const skill of plan.review.skills) {
          if (skill.action === "create") {
            assert.equal(after.claimants(skill.handle).length, 1, `@${skill.handle} is claimed once`);
            assert.equal(after.tool(skill.handle), undefined, `@${skill.handle} is no tool`);
            for (const diagnostic of after.diagnose(skill.uri)) {
              assert.notEqual(diagnostic.code, "duplicate-handle");
              assert.notEqual(diagnostic.code, "tool-collision");
              assert.notEqual(diagnostic.code, "invalid-handle");
              if (diagnostic.code === "unknown-mention") {
                const slug = diagnostic.fix?.kind === "unknown-mention" ? diagnostic.fix.slug : "";
                assert.ok(missing.has(slug), `@${slug} dangles in ${skill.uri} but is no missing tool`);
              }
            }
            // Mention by mention, the created file points where the bundle pointed.
            const incomingMentions = parseSkillFile(skillUri(skill.incoming), skills[skill.incoming] ?? "").mentions;
            const createdMentions = after.skill(skill.uri)?.mentions ?? [];
            assert.equal(createdMentions.length, incomingMentions.length);
            incomingMentions.forEach((mention, index) => {
              const now = createdMentions[index];
              const meant = reviewByIncoming.get(mention.slug);
              if (meant) {
                const target = after.resolve(now?.slug ?? "");
                assert.ok(target?.kind === "skill" && target.skill.uri === meant.uri, `@${mention.slug} → ${meant.uri}`);
              } else {
                assert.equal(now?.slug, mention.slug);
              }
            });
          } else {
            assert.ok(before.skill(skill.uri), "a reused skill is one already here");
          }
        }

        const again = must(planImport(after, bundle, TARGET));
        assert.deepEqual(again.files, [], "importing the same bundle twice creates nothing the second time");
      }),
      { numRuns: 1000 },
    );
  });
});

describe("a skill's folder files in a bundle", () => {
  const text = "---\nsummary: s\n---\nRun scripts/a.sh.\n";
  const file = bundleFile("scripts/a.sh", new TextEncoder().encode("#!/bin/sh\necho hi\n"), true);
  const withFiles = (files: unknown[]) => JSON.stringify({ format: "skill-bundle", version: 1, root: "a", skills: [{ handle: "a", text, sha256: sha256Hex(text), files }], tools: [] });

  test("travel with their path, mode and sha256, and plan into the skill's own folder", () => {
    const bundle = must(parseBundle(withFiles([file])));
    assert.deepEqual(bundle.skills[0]?.files, [file]);
    assert.equal(file.mode, "755");
    const plan = must(planImport(new Namespace(), bundle, "file:///t/"));
    assert.deepEqual(plan.files.map((planned) => [planned.uri, planned.bytes?.mode]), [["file:///t/a/a.skill.md", undefined], ["file:///t/a/scripts/a.sh", "755"]]);
    assert.deepEqual(plan.review.skills[0]?.files, [{ path: "scripts/a.sh", mode: "755" }]);
    assert.match(reviewLines(plan.review).join("\n"), /with 1 file of its folder: scripts\/a\.sh \(executable\)/);
  });

  const refusals: [string, unknown, RegExp][] = [
    ["a path out of the folder", { ...file, path: "../x.sh" }, /leaves or repeats its folder/],
    ["an absolute path", { ...file, path: "/etc/x" }, /not relative to the skill's folder/],
    ["a backslash path", { ...file, path: "a\\b" }, /not relative/],
    ["a skill file", { ...file, path: "more/other.skill.md" }, /a skill file/],
    ["another mode", { ...file, mode: "4755" }, /"644" or "755"/],
    ["bytes that do not match their sha256", { ...file, base64: Buffer.from("changed").toString("base64") }, /does not match its sha256/],
    ["an unknown key", { ...file, run: "sh" }, /Unknown key "run"/],
  ];
  for (const [name, entry, message] of refusals) {
    test(`refuses ${name}`, () => {
      const result = parseBundle(withFiles([entry]));
      assert.ok(isRefusal(result), "expected a refusal");
      assert.match(result.refused, message);
    });
  }

  test("refuses one path twice, letter case aside", () => {
    const result = parseBundle(withFiles([file, { ...file, path: "Scripts/A.sh" }]));
    assert.ok(isRefusal(result));
    assert.match(result.refused, /appears twice/);
  });
});
