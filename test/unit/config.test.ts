import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { applyEdits, isConfigUri, parseConfigFile, type ConfigFile } from "../../server/src/core/index.js";
import { showRange, spans, uri } from "./helpers.js";

const CONFIG = uri("skills.json");

function problemsOf(config: ConfigFile): string[] {
  return config.problems.map((p) => `${p.code} ${showRange(p.range)}`);
}

/** Each fixture marks the expected problems' ranges ⟦like this⟧, in the order the problems come. */
const table: { name: string; fixture: string; problems: string[]; messages?: RegExp[] }[] = [
  { name: "an empty object", fixture: "{}", problems: [] },
  { name: "comments and trailing commas are allowed", fixture: '{\n  // the menu\n  "alignment": { "menu": ["@a",], },\n}', problems: [] },
  { name: "$schema is allowed", fixture: '{ "$schema": "./schema.json" }', problems: [] },
  { name: "a missing value", fixture: '{"tools": [ ⟦}⟧⟦⟧⟦⟧', problems: ["config-syntax", "config-syntax", "config-syntax"], messages: [/ValueExpected/, /CloseBracketExpected/, /CloseBraceExpected/] },
  { name: "an empty file", fixture: "⟦⟧", problems: ["config-syntax"], messages: [/not valid JSON: ValueExpected/] },
  { name: "not an object", fixture: "⟦[1, 2]⟧", problems: ["config-invalid"], messages: [/must hold one object/] },
  { name: "tools not a list", fixture: '{"tools": ⟦{}⟧}', problems: ["config-invalid"], messages: [/`tools` must be a list/] },
  { name: "a tool that is not an object", fixture: '{"tools": [⟦"x"⟧]}', problems: ["config-invalid"], messages: [/A tool declaration is an object/] },
  {
    name: "a tool without name and blurb",
    fixture: '{"tools": [⟦⟦{"slug": "x"}⟧⟧]}',
    problems: ["config-invalid", "config-invalid"],
    messages: [/needs "name"/, /needs "blurb"/],
  },
  { name: "a tool slug that is no handle", fixture: '{"tools": [{"slug": ⟦"Send_Message"⟧, "name": "send", "blurb": "b"}]}', problems: ["config-invalid"], messages: [/"Send_Message" is not a valid slug/] },
  { name: "a tool name that is no identifier", fixture: '{"tools": [{"slug": "send", "name": ⟦"send-message"⟧, "blurb": "b"}]}', problems: ["config-invalid"], messages: [/"send-message" is not a valid tool name/] },
  { name: "a field of the wrong type", fixture: '{"tools": [{"slug": "send", "name": "send", "blurb": ⟦42⟧}]}', problems: ["config-invalid"], messages: [/"blurb" must be a string/] },
  { name: "advertiseInMenu of the wrong type", fixture: '{"tools": [{"slug": "s", "name": "s", "blurb": "b", "advertiseInMenu": ⟦"yes"⟧}]}', problems: ["config-invalid"], messages: [/"advertiseInMenu" must be true or false/] },
  { name: "parameters that are no object schema", fixture: '{"tools": [{"slug": "s", "name": "s", "blurb": "b", "parameters": ⟦{"type": "array"}⟧}]}', problems: ["config-invalid"], messages: [/"parameters" must be a JSON schema of type "object"/] },
  { name: "alignment not an object", fixture: '{"alignment": ⟦[]⟧}', problems: ["config-invalid"], messages: [/`alignment` must be an object/] },
  { name: "instructions not a string", fixture: '{"alignment": {"instructions": ⟦["x"]⟧}}', problems: ["config-invalid"], messages: [/`alignment.instructions` must be a string/] },
  { name: "blurbs not a list", fixture: '{"alignment": {"blurbs": ⟦"date"⟧}}', problems: ["config-invalid"], messages: [/must be a list of: notebook, files, calendar, date/] },
  {
    name: "unknown blurbs",
    fixture: '{"alignment": {"blurbs": ["date", ⟦"weather"⟧, ⟦3⟧]}}',
    problems: ["config-unknown-blurb", "config-unknown-blurb"],
    messages: [/Unknown tool blurb "weather": choose from notebook, files, calendar, date/, /Unknown tool blurb 3/],
  },
  { name: "menu not a list", fixture: '{"alignment": {"menu": ⟦"@a"⟧}}', problems: ["config-invalid"], messages: [/`alignment.menu` must be a list of skill handles/] },
  {
    name: "menu entries that are not one handle with its @",
    fixture: '{"alignment": {"menu": ["@ok", ⟦"no-at"⟧, ⟦"@a @b"⟧, ⟦"@a "⟧, ⟦42⟧, ⟦"@bad-"⟧]}}',
    problems: ["config-invalid", "config-invalid", "config-invalid", "config-invalid", "config-invalid"],
    messages: [/one skill handle with its @/],
  },
  { name: "an unknown alignment key", fixture: '{"alignment": {⟦"menus"⟧: []}}', problems: ["config-invalid"], messages: [/Unknown key "menus" in alignment/] },
  { name: "an unknown top-level key", fixture: '{⟦"tool"⟧: []}', problems: ["config-invalid"], messages: [/Unknown key "tool" in skills.json: use tools or alignment/] },
];

describe("parseConfigFile problems, with exact ranges", () => {
  for (const row of table) {
    test(row.name, () => {
      const { text, ranges } = spans(row.fixture);
      const config = parseConfigFile(CONFIG, text);
      const expected = row.problems.map((code, i) => `${code} ${ranges[i] ? showRange(ranges[i]) : "(no range marked)"}`);
      assert.deepEqual(problemsOf(config), expected);
      row.messages?.forEach((message, i) => assert.match(config.problems[Math.min(i, config.problems.length - 1)]?.message ?? "", message));
    });
  }
});

describe("parseConfigFile content", () => {
  test("a declared tool with everything", () => {
    const { text, ranges } = spans(
      '{"tools": [{"slug": ⟦"send-message"⟧, "name": "send_message", "title": "Send Message", "blurb": "Send a message.", "implementation": "./send.mjs", "advertiseInMenu": true,\n "parameters": {"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]}}]}',
    );
    const config = parseConfigFile(CONFIG, text);
    assert.deepEqual(config.problems, []);
    const [tool] = config.tools;
    assert.ok(tool);
    assert.equal(tool.slug, "send-message");
    assert.equal(tool.name, "send_message");
    assert.equal(tool.title, "Send Message");
    assert.equal(tool.blurb, "Send a message.");
    assert.equal(tool.implementation, "./send.mjs");
    assert.equal(tool.advertiseInMenu, true);
    assert.deepEqual(JSON.parse(JSON.stringify(tool.parameters)), { type: "object", properties: { to: { type: "string" } }, required: ["to"] });
    assert.deepEqual(tool.origin, { kind: "config", uri: CONFIG, range: ranges[0] });
  });

  test("defaults: title is the slug, not advertised, no parameters", () => {
    const config = parseConfigFile(CONFIG, '{"tools": [{"slug": "ping", "name": "ping", "blurb": "Ping."}]}');
    const [tool] = config.tools;
    assert.equal(tool?.title, "ping");
    assert.equal(tool?.advertiseInMenu, false);
    assert.deepEqual(JSON.parse(JSON.stringify(tool?.parameters)), { type: "object", properties: {} });
    assert.equal(tool?.implementation, undefined);
  });

  test("an invalid declaration is left out, the valid ones kept", () => {
    const config = parseConfigFile(CONFIG, '{"tools": [{"slug": "Bad", "name": "b", "blurb": "b"}, {"slug": "good", "name": "g", "blurb": "g"}, 7]}');
    assert.deepEqual(config.tools.map((t) => t.slug), ["good"]);
  });

  test("alignment: instructions, blurbs, menu with @handle entries", () => {
    const config = parseConfigFile(CONFIG, '{"alignment": {"instructions": "Be brief.", "blurbs": ["date", "notebook"], "menu": ["@search-info", "@Plan-Trip"]}}');
    assert.deepEqual(config.alignment, { instructions: "Be brief.", blurbs: ["date", "notebook"], menu: ["search-info", "plan-trip"] });
  });

  test("no alignment: defaults", () => {
    assert.deepEqual(parseConfigFile(CONFIG, "{}").alignment, { instructions: undefined, blurbs: [], menu: undefined });
    assert.deepEqual(parseConfigFile(CONFIG, '{"alignment": {"menu": []}}').alignment.menu, []);
  });

  test("mentions: in the menu, in the instructions and in tool text; never in keys", () => {
    const { text, ranges } = spans(
      '{"tools": [{"slug": "s", "name": "s", "blurb": "Use after ⟦@fetch-file⟧", "@key": "x"}],\n "alignment": {"instructions": "First ⟦@search-info⟧, not bob@example.com", "menu": ["⟦@plan-trip⟧"]}}',
    );
    const config = parseConfigFile(CONFIG, text);
    assert.deepEqual(
      config.mentions.map((m) => [m.place, m.slug, showRange(m.range)]),
      [
        ["text", "fetch-file"],
        ["text", "search-info"],
        ["menu", "plan-trip"],
      ].map(([place, slug], i) => [place, slug, ranges[i] ? showRange(ranges[i]) : "?"]),
    );
  });

  test("a mention after a JSON escape is found in the string's value, and placed on its source", () => {
    const { text, offsets } = spans('{"alignment": {"instructions": "Be brief.\\n⟦@search-info⟧ first.\\t⟦@plan⟧ \\u0020⟦@x⟧ \\\\@escaped ⟦\\u0040y⟧ \\"⟦@q⟧\\""}}');
    const config = parseConfigFile(CONFIG, text);
    assert.deepEqual(config.problems, []);
    assert.deepEqual(config.mentions.map((m) => [m.start, m.end]), offsets);
    assert.deepEqual(config.mentions.map((m) => m.slug), ["search-info", "plan", "x", "y", "q"]);
    const renamed = applyEdits(text, config.mentions.filter((m) => m.slug === "search-info").map((m) => ({ start: m.start, end: m.end, newText: "@find-info" })));
    const value = (JSON.parse(renamed) as { alignment: { instructions: string } }).alignment.instructions;
    assert.ok(value.startsWith("Be brief.\n@find-info first."), value);
  });

  test("isConfigUri", () => {
    assert.equal(isConfigUri("file:///ws/skills.json"), true);
    assert.equal(isConfigUri("file:///ws/sub/skills.json?x"), true);
    assert.equal(isConfigUri("file:///ws/myskills.json"), false);
    assert.equal(isConfigUri("file:///ws/skills.json.bak"), false);
  });
});
