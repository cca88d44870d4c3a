import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { AGENTS, agentsReadingSkill, KEY_DOCUMENTED_AGENTS, type AgentId } from "../../server/src/core/agentSkills/agents.js";
import { completeAgentSkillKey, completeAgentSkillValue, hoverAgentSkillKey, hoverAgentSkillValue } from "../../server/src/core/agentSkills/assist.js";
import { agentSkillBoolean, checkAgentSkillFrontmatter, type AgentSkillFileKind } from "../../server/src/core/agentSkills/check.js";
import { frontmatterCursorAt } from "../../server/src/core/agentSkills/cursor.js";
import { BUILTIN_COMMANDS, builtinCommandsNamed, hoverBuiltinCommand, isBuiltinCommand } from "../../server/src/core/agentSkills/commands.js";
import { readFrontmatter, type FrontmatterEntry } from "../../server/src/core/agentSkills/frontmatter.js";
import { AGENT_SKILL_KEYS, AGENT_SKILL_METADATA_KEYS, agentSkillKey, describeKeyType } from "../../server/src/core/agentSkills/keys.js";
import { LineMap, type CoreDiagnostic } from "../../server/src/core/index.js";
import { cursor, REPO_ROOT, showRange, spans } from "./helpers.js";

/** The frontmatter of a SKILL.md text read and checked as the adapter does: YAML problems first, then the checker's. */
function problemsOf(text: string, options: { readers?: readonly AgentId[]; file?: AgentSkillFileKind } = {}): CoreDiagnostic[] {
  const lines = new LineMap(text);
  const open = /^---\r?\n/.exec(text);
  if (!open) throw new Error("fixture without frontmatter");
  const base = open[0].length;
  const close = /^---[ \t]*$/m.exec(text.slice(base));
  if (!close) throw new Error("fixture with an unclosed frontmatter");
  const read = readFrontmatter(text.slice(base, base + close.index), base, lines);
  const checked = read.entries ? checkAgentSkillFrontmatter(read.entries, { headerRange: lines.rangeOf(0, 3), ...options }) : [];
  return [...read.problems, ...checked];
}

function entriesOf(text: string): readonly FrontmatterEntry[] {
  const body = `---\n${text}---\n`;
  const entries = readFrontmatter(text, 4, new LineMap(body)).entries;
  if (!entries) throw new Error("unreadable fixture");
  return entries;
}

function byPlace(problems: readonly CoreDiagnostic[]): CoreDiagnostic[] {
  const key = (d: CoreDiagnostic) => [d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character];
  return [...problems].sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    for (let i = 0; i < 4; i++) if ((ka[i] ?? 0) !== (kb[i] ?? 0)) return (ka[i] ?? 0) - (kb[i] ?? 0);
    return a.code.localeCompare(b.code);
  });
}

const LONG_DESCRIPTION = "Turns meeting notes into a dated list of decisions and owners. ".repeat(17).trim(); // 1,070 characters

/**
 * Each fixture marks every expected problem's range ⟦like this⟧; `problems` lists "code severity" in text
 * order, and `messages` optionally matches each one's message. The clean rows copy the shapes of real
 * libraries' frontmatter (anthropics/skills: `license:` pointing at a file, `|-` block descriptions, quoted
 * descriptions with colons; Claude Code projects; Codex metadata) with text of our own.
 */
const table: {
  name: string;
  fixture: string;
  problems: string[];
  messages?: (RegExp | undefined)[];
  readers?: readonly AgentId[];
  file?: AgentSkillFileKind;
}[] = [
  {
    name: "a library skill: name, description, license pointing at a bundled file",
    fixture: "---\nname: invoice-reader\ndescription: Reads supplier invoices (PDF or scanned) and lists totals, dates and VAT. Use when the user shares an invoice.\nlicense: Complete terms in LICENSE.txt\n---\n# Invoice reader\n",
    problems: [],
  },
  {
    name: "a block description over several lines",
    fixture: "---\nname: trip-planner\ndescription: |-\n  Plans a trip day by day: transport, stays, opening hours.\n  SKIP when the user only asks for a single train time.\nlicense: Proprietary. LICENSE.txt has complete terms\n---\n",
    problems: [],
  },
  {
    name: "a quoted description holding colons",
    fixture: "---\nname: sheet-tools\ndescription: \"Use whenever a spreadsheet is involved: .xlsx, .csv, formulas, charts.\"\n---\n",
    problems: [],
  },
  {
    name: "a Claude Code project skill with its own keys",
    readers: ["claude-code", "vscode-copilot"],
    fixture:
      "---\nname: deploy\ndescription: Deploy the app to staging\ncontext: fork\nagent: Explore\ndisable-model-invocation: true\nallowed-tools: Bash(git *) Read\nargument-hint: \"[environment]\"\narguments: [env]\nmodel: sonnet\neffort: high\npaths:\n  - \"src/**/*.ts\"\nshell: bash\nwhen_to_use: When the user says ship it.\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ./check.sh\nbackground: false\nuser-invocable: true\ndisallowed-tools: AskUserQuestion\n---\n",
    problems: [],
  },
  {
    name: "specification keys with metadata and compatibility",
    fixture: "---\nname: pdf-processing\ndescription: Extract text from PDFs. Use when handling PDFs.\nlicense: Apache-2.0\ncompatibility: Requires Python 3.14+ and uv\nallowed-tools:\n  - Read\n  - Bash(jq:*)\nmetadata:\n  author: example-org\n  version: \"1.0\"\n  short-description: PDF text\n---\n",
    problems: [],
  },
  {
    name: "a name that is not a handle: an underscore",
    fixture: "---\nname: ⟦data_sync⟧\ndescription: d\n---\n",
    problems: ["invalid-handle error"],
    messages: [/"data_sync" is not a valid handle/],
  },
  {
    name: "a name with a space and capitals",
    fixture: "---\nname: ⟦Bad Name⟧\ndescription: d\n---\n",
    problems: ["invalid-handle error"],
  },
  {
    name: "a name over 64 characters",
    fixture: `---\nname: ⟦${"a".repeat(65)}⟧\ndescription: d\n---\n`,
    problems: ["invalid-handle error"],
    messages: [/at most 64 characters/],
  },
  { name: "a name with a doubled hyphen", fixture: "---\nname: ⟦pdf--tools⟧\ndescription: d\n---\n", problems: ["invalid-handle error"] },
  { name: "an upper-case name suggests its lower case", fixture: "---\nname: ⟦PDF-Tools⟧\ndescription: d\n---\n", problems: ["invalid-handle error"], messages: [/use "pdf-tools"/] },
  { name: "a number for a name", fixture: "---\nname: ⟦42⟧\ndescription: d\n---\n", problems: ["frontmatter-type error"], messages: [/"name" must be a string, not the number 42\. Quote it/] },
  { name: "an empty name is the caller's (it knows the folder)", fixture: "---\nname:\ndescription: d\n---\n", problems: [] },
  {
    name: "no description",
    fixture: "⟦---⟧\nname: a\n---\n",
    problems: ["missing-summary warning"],
    messages: [/no description/],
  },
  { name: "an empty description points at its key", fixture: "---\nname: a\n⟦description⟧:\n---\n", problems: ["missing-summary warning"], messages: [/description is empty/] },
  { name: "a blank quoted description", fixture: "---\nname: a\ndescription: ⟦\"  \"⟧\n---\n", problems: ["missing-summary warning"] },
  { name: "a list for a description", fixture: "---\nname: a\ndescription: ⟦[a, b]⟧\n---\n", problems: ["frontmatter-type error"], messages: [/"description" must be a string, not a list/] },
  {
    name: "a description over 1,024 characters",
    fixture: `---\nname: a\ndescription: ⟦${LONG_DESCRIPTION}⟧\n---\n`,
    problems: ["frontmatter-limit error"],
    messages: [/has 1,070 characters; the limit is 1,024 \(Codex does not load a skill with a longer one/],
  },
  {
    name: "a description of 1,024 characters outside the BMP is within the limit (characters, not UTF-16 units)",
    fixture: `---\nname: a\ndescription: ${"💡".repeat(1024)}\n---\n`,
    problems: [],
  },
  { name: "1,025 of them are not", fixture: `---\nname: a\ndescription: ⟦${"💡".repeat(1025)}⟧\n---\n`, problems: ["frontmatter-limit error"] },
  { name: "angle brackets in the description: a hint", fixture: "---\nname: a\ndescription: ⟦Wraps <div> soup⟧\n---\n", problems: ["frontmatter-limit hint"], messages: [/< or >/] },
  {
    name: "compatibility over 500 characters",
    fixture: `---\nname: a\ndescription: d\ncompatibility: ⟦${"x".repeat(501)}⟧\n---\n`,
    problems: ["frontmatter-limit error"],
    messages: [/"compatibility" has 501 characters; the limit is 500/],
  },
  { name: "an empty compatibility", fixture: "---\nname: a\ndescription: d\n⟦compatibility⟧:\n---\n", problems: ["frontmatter-limit warning"] },
  {
    name: "Codex's short-description over 500 characters",
    fixture: `---\nname: a\ndescription: d\nmetadata:\n  short-description: ⟦${"y".repeat(501)}⟧\n---\n`,
    problems: ["frontmatter-limit error"],
    messages: [/Codex does not load/],
  },
  { name: "Codex's other spelling of short-description", fixture: `---\nname: a\ndescription: d\nmetadata:\n  shortDescription: ⟦${"y".repeat(501)}⟧\n---\n`, problems: ["frontmatter-limit error"] },
  {
    name: "a metadata version YAML reads as a number",
    fixture: "---\nname: a\ndescription: d\nmetadata:\n  version: ⟦1.0⟧\n  beta: ⟦true⟧\n---\n",
    problems: ["frontmatter-type warning", "frontmatter-type warning"],
    messages: [/reads 1\.0 as a number\. Quote it: version: "1\.0"/, /as a boolean/],
  },
  {
    name: "nested metadata: a hint (Claude Code keeps it; the specification wants strings)",
    fixture: "---\nname: a\ndescription: d\nmetadata:\n  owner: ⟦{team: x}⟧\n  short-description: ⟦[a]⟧\n---\n",
    problems: ["frontmatter-type hint", "frontmatter-type warning"],
    messages: [/"metadata\.owner" is a map: the specification's metadata maps strings to strings/, /"short-description" must be a string, not a list/],
  },
  { name: "metadata that is not a map", fixture: "---\nname: a\ndescription: d\nmetadata: ⟦author⟧\n---\n", problems: ["frontmatter-type warning"], messages: [/Claude Code drops a metadata value that is not a map/] },
  { name: "a boolean key written as a string", fixture: "---\nname: a\ndescription: d\nuser-invocable: ⟦\"false\"⟧\n---\n", problems: ["frontmatter-type warning"], messages: [/"user-invocable" must be true or false, not a string/] },
  {
    name: "Claude Code's boolean words: information, not an error",
    fixture: "---\nname: a\ndescription: d\ndisable-model-invocation: ⟦yes⟧\nuser-invocable: ⟦Off⟧\nbackground: ⟦0⟧\ncontext: fork\n---\n",
    problems: ["frontmatter-type information", "frontmatter-type information", "frontmatter-type information"],
    messages: [/reads "yes" as true/, /reads "Off" as false/, /reads "0" as false.*as a number/],
  },
  { name: "a word that is no boolean anywhere", fixture: "---\nname: a\ndescription: d\ndisable-model-invocation: ⟦sometimes⟧\n---\n", problems: ["frontmatter-type warning"] },
  {
    name: "a value outside a finite set, with a did-you-mean",
    fixture: "---\nname: a\ndescription: d\ncontext: ⟦forked⟧\neffort: ⟦maximum⟧\nshell: ⟦zsh⟧\n---\n",
    problems: ["frontmatter-value warning", "frontmatter-value warning", "frontmatter-value warning"],
    messages: [/"forked" is not a value of "context": did you mean "fork"\?/, /"maximum" is not a value of "effort".*one of: low, medium, high, xhigh, max/, /"zsh".*one of: bash, powershell/],
  },
  {
    name: "empty values say nothing: a warning on the key (an empty metadata or hooks is fine)",
    fixture: "---\nname: a\ndescription: d\n⟦model⟧:\n⟦context⟧:\n⟦user-invocable⟧:\nmetadata:\nhooks:\n---\n",
    problems: ["frontmatter-limit warning", "frontmatter-limit warning", "frontmatter-limit warning"],
    messages: [/"model" is empty: write a value or leave the key out/, /"context" is empty/, /"user-invocable" is empty/],
  },
  { name: "a value far from every value of the set", fixture: "---\nname: a\ndescription: d\neffort: ⟦enormous⟧\n---\n", problems: ["frontmatter-value warning"], messages: [/^"enormous" is not a value of "effort"\. It takes one of/] },
  { name: "a finite set's value must be a string", fixture: "---\nname: a\ndescription: d\neffort: ⟦3⟧\n---\n", problems: ["frontmatter-type warning"] },
  {
    name: "list entries that are not strings",
    fixture: "---\nname: a\ndescription: d\nallowed-tools: [Read, ⟦{Bash: git}⟧]\npaths:\n  - ⟦12⟧\n---\n",
    problems: ["frontmatter-type warning", "frontmatter-type warning"],
    messages: [/Each entry of "allowed-tools"/, /Each entry of "paths"/],
  },
  { name: "a map where a list or string goes", fixture: "---\nname: a\ndescription: d\nallowed-tools: ⟦{Read: yes}⟧\n---\n", problems: ["frontmatter-type warning"], messages: [/space- or comma-separated string or a list of strings/] },
  { name: "hooks that are not a map", fixture: "---\nname: a\ndescription: d\nhooks: ⟦[PreToolUse]⟧\n---\n", problems: ["frontmatter-type warning"] },
  {
    name: "misspelt keys: case, underscores, an older spelling",
    fixture: "---\n⟦Name⟧: a\ndescription: d\n⟦allowed_tools⟧: Read\n⟦user-invokable⟧: false\n⟦when-to-use⟧: x\n---\n",
    problems: ["frontmatter-unknown-key warning", "frontmatter-unknown-key warning", "frontmatter-unknown-key warning", "frontmatter-unknown-key warning"],
    messages: [/did you mean "name"/, /did you mean "allowed-tools"/, /did you mean "user-invocable"/, /did you mean "when_to_use"/],
  },
  {
    name: "a key no agent knows: a hint that points at metadata",
    fixture: "---\nname: a\ndescription: d\n⟦tags⟧: [x]\n---\n",
    problems: ["frontmatter-unknown-key hint"],
    messages: [/belongs under metadata:/],
  },
  {
    name: "agent and background without context: fork",
    fixture: "---\nname: a\ndescription: d\n⟦agent⟧: Explore\n⟦background⟧: false\n---\n",
    problems: ["frontmatter-ignored hint", "frontmatter-ignored hint"],
    messages: [/effect only with context: fork/, /effect only with context: fork/],
  },
  {
    name: "description and when_to_use past Claude Code's listing",
    fixture: `---\nname: a\ndescription: ${"d".repeat(1000)}\n⟦when_to_use⟧: ${"w".repeat(600)}\n---\n`,
    problems: ["frontmatter-limit hint"],
    messages: [/1,600 characters together; Claude Code's skill listing cuts them at 1,536/],
  },
  {
    name: "a Claude-only key where only Codex and VS Code read: a hint",
    readers: ["codex", "vscode-copilot"],
    fixture: "---\nname: a\ndescription: d\n⟦allowed-tools⟧: Read\n⟦model⟧: opus\ncontext: fork\n---\n",
    problems: ["frontmatter-ignored hint", "frontmatter-ignored hint"],
    messages: [/"allowed-tools" is read by Claude Code, not by OpenAI Codex and GitHub Copilot in VS Code/, /"model"/],
  },
  {
    name: "a Claude-only key in .codex/skills, which only Codex reads",
    readers: ["codex"],
    fixture: "---\nname: a\ndescription: d\n⟦when_to_use⟧: x\n⟦argument-hint⟧: \"[x]\"\n---\n",
    problems: ["frontmatter-ignored hint", "frontmatter-ignored hint"],
    messages: [/"when_to_use" is read by Claude Code, not by OpenAI Codex, which reads skills/, /read by Claude Code and GitHub Copilot in VS Code, not by OpenAI Codex/],
  },
  {
    name: "a key VS Code acts on is no hint where Codex and VS Code read",
    readers: ["codex", "vscode-copilot"],
    fixture: "---\nname: a\ndescription: d\ndisable-model-invocation: true\nargument-hint: \"[x]\"\n---\n",
    problems: [],
  },
  {
    name: "nothing is said to be ignored where an agent of undocumented keys reads (Copilot CLI, in .agents/skills)",
    readers: ["codex", "vscode-copilot", "copilot-cli"],
    fixture: "---\nname: a\ndescription: d\nallowed-tools: Read\n---\n",
    problems: [],
  },
  {
    name: "a Claude Code command file: name and paths are ignored, the description is optional",
    file: "command",
    fixture: "---\n⟦name⟧: deploy\n⟦paths⟧: src/**\nargument-hint: \"[env]\"\n---\n",
    problems: ["frontmatter-ignored hint", "frontmatter-ignored hint"],
    messages: [/ignores "name" in a command file: a command is named by its file/, /ignores "paths"/],
  },
  { name: "bad YAML", fixture: "---\nname: a\n⟦description: [unclosed⟧\n---\n", problems: ["frontmatter-syntax error"] },
  { name: "a duplicate key", fixture: "---\nname: a\ndescription: d\n⟦n⟧ame: b\n---\n", problems: ["frontmatter-syntax error"], messages: [/unique/] },
  { name: "a frontmatter that is a list", fixture: "---\n⟦- name: a⟧\n---\n", problems: ["frontmatter-type error"] },
  { name: "an empty frontmatter: no description", fixture: "⟦---⟧\n---\n", problems: ["missing-summary warning"] },
  { name: "CRLF line ends keep exact ranges", fixture: "---\r\nname: ⟦Bad_Name⟧\r\ndescription: d\r\ncontext: ⟦inline⟧\r\n---\r\n", problems: ["invalid-handle error", "frontmatter-value warning"] },
];

describe("checkAgentSkillFrontmatter: problems with exact ranges", () => {
  for (const row of table) {
    test(row.name, () => {
      const { text, ranges } = spans(row.fixture);
      const problems = byPlace(problemsOf(text, { ...(row.readers ? { readers: row.readers } : {}), ...(row.file ? { file: row.file } : {}) }));
      assert.deepEqual(problems.map((p) => `${p.code} ${p.severity}`), row.problems, problems.map((p) => p.message).join("\n"));
      assert.deepEqual(problems.map((p) => showRange(p.range)), ranges.map(showRange));
      row.messages?.forEach((pattern, i) => {
        if (pattern) assert.match(problems[i]?.message ?? "", pattern);
      });
    });
  }

  test("a frontmatter nested past 64 levels is refused before the YAML library sees it", () => {
    const text = `---\nname: ${"[".repeat(100)}\n---\n`;
    assert.deepEqual(problemsOf(text).map((p) => p.code), ["frontmatter-syntax"]);
  });

  test("every problem is one line with a period or a question mark at its end", () => {
    const all = table.flatMap((row) => problemsOf(spans(row.fixture).text, { ...(row.readers ? { readers: row.readers } : {}), ...(row.file ? { file: row.file } : {}) }));
    assert.ok(all.length > 40);
    for (const problem of all) assert.match(problem.message, /^[^\n]+[.?]$/, problem.message);
  });
});

describe("the keys' data", () => {
  test("keys are unique, and each has a type, a one-line summary, a paragraph and https sources", () => {
    const keys = [...AGENT_SKILL_KEYS, ...AGENT_SKILL_METADATA_KEYS].map((spec) => spec.key);
    assert.equal(new Set(keys).size, keys.length);
    for (const spec of [...AGENT_SKILL_KEYS, ...AGENT_SKILL_METADATA_KEYS]) {
      assert.ok(spec.summary.length > 10 && !spec.summary.includes("\n"), spec.key);
      assert.ok(spec.documentation.length > 80 && spec.documentation.length < 700, `${spec.key}: ${spec.documentation.length}`);
      assert.ok(spec.sources.length > 0, spec.key);
      for (const source of spec.sources) assert.match(source.url, /^https:\/\//, spec.key);
      assert.ok(describeKeyType(spec.type).length > 0);
      for (const agent of spec.actedOnBy ?? []) assert.ok(KEY_DOCUMENTED_AGENTS.includes(agent), `${spec.key}: ${agent}`);
      if (spec.type.kind === "choice") assert.equal(new Set(spec.type.values.map((v) => v.value)).size, spec.type.values.length);
    }
  });

  test("the specification's six keys, and name and description required", () => {
    const fromSpec = AGENT_SKILL_KEYS.filter((spec) => spec.sources.some((source) => source.url.startsWith("https://agentskills.io"))).map((spec) => spec.key);
    assert.deepEqual(fromSpec, ["name", "description", "license", "compatibility", "metadata", "allowed-tools"]);
    assert.deepEqual(AGENT_SKILL_KEYS.filter((spec) => spec.required).map((spec) => spec.key), ["name", "description"]);
  });

  test("the keys Claude Code documents, and the ones VS Code reads", () => {
    const claude = AGENT_SKILL_KEYS.filter((spec) => spec.sources.some((source) => source.label === "Claude Code")).map((spec) => spec.key).sort();
    assert.deepEqual(claude, [
      "agent", "allowed-tools", "argument-hint", "arguments", "background", "compatibility", "context", "description", "disable-model-invocation",
      "disallowed-tools", "effort", "hooks", "license", "metadata", "model", "name", "paths", "shell", "user-invocable", "when_to_use",
    ]);
    const vscode = AGENT_SKILL_KEYS.filter((spec) => spec.sources.some((source) => source.label === AGENTS["vscode-copilot"].name)).map((spec) => spec.key).sort();
    assert.deepEqual(vscode, ["argument-hint", "compatibility", "context", "description", "disable-model-invocation", "license", "metadata", "name", "user-invocable"]);
  });

  test("lookups are exact: YAML keys are case-sensitive", () => {
    assert.equal(agentSkillKey("name")?.key, "name");
    assert.equal(agentSkillKey("Name"), undefined);
    assert.equal(agentSkillKey("short-description"), undefined);
  });
});

describe("completion and hover data", () => {
  test("keys not yet written, the specification's first", () => {
    const items = completeAgentSkillKey(["name", "license"]);
    assert.equal(items[0]?.label, "description");
    assert.ok(!items.some((item) => item.label === "name" || item.label === "license"));
    assert.equal(items.length, AGENT_SKILL_KEYS.length - 2);
    assert.deepEqual([...items].sort((a, b) => a.sortText.localeCompare(b.sortText)), items);
    assert.equal(items.find((item) => item.label === "metadata")?.insertText, "metadata:\n  ");
    assert.equal(items.find((item) => item.label === "effort")?.insertText, "effort: ");
  });

  test("inside metadata: Codex's short-description, unless one of its spellings is written", () => {
    assert.deepEqual(completeAgentSkillKey([], { place: "metadata" }).map((item) => item.label), ["short-description"]);
    assert.deepEqual(completeAgentSkillKey(["short_description"], { place: "metadata" }), []);
  });

  test("a command file is offered neither name nor paths", () => {
    const labels = completeAgentSkillKey([], { file: "command" }).map((item) => item.label);
    assert.ok(!labels.includes("name") && !labels.includes("paths") && labels.includes("argument-hint"));
  });

  test("values: a boolean's two, a finite set, an open set's usual ones, nothing for free text", () => {
    assert.deepEqual(completeAgentSkillValue("disable-model-invocation").map((item) => item.label), ["true", "false"]);
    assert.match(completeAgentSkillValue("disable-model-invocation")[1]?.documentation.plain ?? "", /default/);
    assert.deepEqual(completeAgentSkillValue("context").map((item) => item.label), ["fork"]);
    assert.deepEqual(completeAgentSkillValue("shell").map((item) => item.label), ["bash", "powershell"]);
    assert.ok(completeAgentSkillValue("model").some((item) => item.label === "inherit"));
    assert.ok(completeAgentSkillValue("agent").some((item) => item.label === "Explore"));
    assert.deepEqual(completeAgentSkillValue("description"), []);
    assert.deepEqual(completeAgentSkillValue("nonsense"), []);
  });

  test("a key's hover: type, meaning, who acts on it, sources as links", () => {
    const hover = hoverAgentSkillKey("allowed-tools");
    assert.ok(hover);
    assert.match(hover.markdown, /^\*\*allowed-tools\*\*: a space- or comma-separated string or a list of strings/);
    assert.match(hover.markdown, /Read by Claude Code; ignored by GitHub Copilot in VS Code and OpenAI Codex\./);
    assert.match(hover.markdown, /\[Agent Skills specification\]\(https:\/\/agentskills\.io\/specification\)/);
    assert.doesNotMatch(hover.plain, /\*\*|\]\(/);
    assert.match(hoverAgentSkillKey("description")?.plain ?? "", /required by the specification · at most 1,024 characters/);
    assert.match(hoverAgentSkillKey("license")?.plain ?? "", /Informational: no agent acts on it/);
    assert.match(hoverAgentSkillKey("model", { readers: ["codex"] })?.plain ?? "", /None of the agents that read this folder acts on it/);
    assert.match(hoverAgentSkillKey("name", { file: "command" })?.plain ?? "", /ignores it in a command file/);
    assert.match(hoverAgentSkillKey("shortDescription", { place: "metadata" })?.plain ?? "", /^short-description: a string/);
    assert.equal(hoverAgentSkillKey("colour"), undefined);
  });

  test("a value's hover", () => {
    assert.match(hoverAgentSkillValue("context", "fork")?.plain ?? "", /^context: fork: Run the skill as a subagent/);
    assert.equal(hoverAgentSkillValue("context", "inline"), undefined);
    assert.equal(hoverAgentSkillValue("description", "x"), undefined);
  });

  test("the boolean an agent reads, Claude Code's words included", () => {
    const entries = entriesOf("a: true\nb: yes\nc: \"yes\"\nd: 0\ne: maybe\n");
    assert.deepEqual(["a", "b", "c", "d", "e", "z"].map((key) => agentSkillBoolean(entries, key)), [true, true, undefined, false, undefined, undefined]);
  });
});

describe("which agents read a skill folder", () => {
  const rows: [string, readonly AgentId[] | undefined][] = [
    ["file:///ws/.claude/skills/pdf/SKILL.md", ["claude-code", "vscode-copilot", "copilot-cli"]],
    ["file:///ws/.github/skills/pdf/SKILL.md", ["vscode-copilot", "copilot-cli"]],
    ["file:///ws/.agents/skills/pdf/SKILL.md", ["codex", "vscode-copilot", "copilot-cli"]],
    ["file:///ws/apps/web/.codex/skills/pdf/SKILL.md", ["codex"]],
    ["file:///ws/skills/pdf/SKILL.md", undefined],
    ["file:///ws/.claude/pdf/SKILL.md", undefined],
  ];
  for (const [uri, readers] of rows) test(uri, () => assert.deepEqual(agentsReadingSkill(uri), readers));
});

describe("the agents' built-in commands", () => {
  test("the commands the issue names are commands, of the agents that have them", () => {
    for (const name of ["help", "compact", "review", "clear", "init"]) assert.ok(isBuiltinCommand(name), name);
    assert.deepEqual(builtinCommandsNamed("/help").map((c) => c.agent), ["claude-code", "copilot-cli", "vscode-copilot"]);
    assert.deepEqual(builtinCommandsNamed("compact").map((c) => c.agent), ["claude-code", "codex", "copilot-cli"]);
    assert.deepEqual(builtinCommandsNamed("skills").map((c) => c.agent), ["claude-code", "codex", "copilot-cli"]);
  });

  test("aliases name the command they stand for, in the same agent", () => {
    const review = builtinCommandsNamed("review").find((c) => c.agent === "claude-code");
    assert.deepEqual(review && { kind: review.kind, aliasOf: review.aliasOf }, { kind: "bundled-skill", aliasOf: "code-review" });
    assert.equal(builtinCommandsNamed("reset").find((c) => c.agent === "claude-code")?.aliasOf, "clear");
    for (const command of BUILTIN_COMMANDS) {
      if (command.aliasOf === undefined) continue;
      assert.ok(BUILTIN_COMMANDS.some((other) => other.agent === command.agent && other.name === command.aliasOf), `${command.agent} /${command.name} → /${command.aliasOf}`);
    }
  });

  test("no agent lists a name twice, every name is a slash-command word, every source is https", () => {
    const seen = new Set<string>();
    for (const command of BUILTIN_COMMANDS) {
      const key = `${command.agent} ${command.name.toLowerCase()}`;
      assert.ok(!seen.has(key), key);
      seen.add(key);
      assert.match(command.name, /^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/);
      assert.match(command.source, /^https:\/\//);
    }
    assert.ok(BUILTIN_COMMANDS.filter((c) => c.agent === "claude-code").length > 100);
  });

  test("bundled skills, workflows and removed commands are marked", () => {
    assert.equal(builtinCommandsNamed("simplify")[0]?.kind, "bundled-skill");
    assert.equal(builtinCommandsNamed("deep-research")[0]?.kind, "workflow");
    assert.equal(builtinCommandsNamed("ultraplan")[0]?.removed, true);
  });

  test("names the agents do not have are not commands; case does not matter", () => {
    for (const name of ["pdf", "meeting-prep", "usr", "docs", ""]) assert.equal(isBuiltinCommand(name), false, name);
    assert.ok(isBuiltinCommand("fixtestfailure"));
  });

  test("a command's hover names each agent and says it is no skill", () => {
    const hover = hoverBuiltinCommand("compact");
    assert.ok(hover);
    assert.match(hover.plain, /^\/compact is a built-in command of Claude Code\./);
    assert.match(hover.plain, /not a skill of this workspace/);
    assert.match(hover.markdown, /\(\[commands\]\(https:\/\/code\.claude\.com\/docs\/en\/commands\)\)/);
    assert.match(hoverBuiltinCommand("checkup")?.plain ?? "", /a skill bundled with Claude Code \(another name for \/doctor\)/);
    assert.equal(hoverBuiltinCommand("pdf"), undefined);
  });
});

describe("docs/agent-skills.md tells the data as it is", () => {
  const doc = readFileSync(join(REPO_ROOT, "docs", "agent-skills.md"), "utf8");

  test("a row for every key, with its type", () => {
    const rows = [...AGENT_SKILL_KEYS.map((spec) => [spec.key, spec] as const), ...AGENT_SKILL_METADATA_KEYS.map((spec) => [`metadata.${spec.key}`, spec] as const)];
    for (const [key, spec] of rows) {
      const row = doc.split("\n").find((line) => line.startsWith(`| \`${key}\` | ${describeKeyType(spec.type)} |`));
      assert.ok(row, key);
      // One link per source, and the agents that act on the key.
      const cells = row.split(" | ");
      assert.equal(cells[3]?.split(", ").length, spec.sources.length, key);
      assert.equal(cells[4]?.replace(/ \|$/, "") === "none: informational", spec.actedOnBy === undefined, key);
    }
    const documented = [...doc.matchAll(/^\| `([a-z_.-]+)` \| /gm)].map((match) => match[1]).filter((key) => key !== undefined && !key.startsWith("."));
    assert.deepEqual(documented.slice(0, rows.length), rows.map(([key]) => key));
  });

  test("the command counts", () => {
    const count = (agent: AgentId) => BUILTIN_COMMANDS.filter((command) => command.agent === agent).length;
    const bundled = BUILTIN_COMMANDS.filter((command) => command.agent === "claude-code" && command.kind !== "built-in" && command.aliasOf === undefined).length;
    assert.match(doc, new RegExp(`\\| Claude Code \\| ${count("claude-code")} \\| ${bundled} `));
    assert.match(doc, new RegExp(`\\| OpenAI Codex \\| ${count("codex")} \\|`));
    assert.match(doc, new RegExp(`\\| GitHub Copilot CLI \\| ${count("copilot-cli")} \\|`));
    assert.match(doc, new RegExp(`\\| Copilot Chat in VS Code \\| ${count("vscode-copilot")} \\|`));
  });
});

describe("frontmatterCursorAt: what a completion at the cursor completes", () => {
  /** A SKILL.md with `$0` at the cursor and ⟦⟧ around the expected replace range. */
  function at(marked: string) {
    const { text, offset } = cursor(spans(marked).text);
    const base = 4;
    const end = text.indexOf("\n---", base);
    const found = frontmatterCursorAt(text.slice(base, end + 1), base, new LineMap(text), offset);
    return { found, expected: spans(marked.replace("$0", "")).ranges[0] };
  }
  const rows: { name: string; fixture: string; want: Record<string, unknown> | undefined }[] = [
    { name: "an empty line at the top", fixture: "---\nname: a\n⟦$0⟧\n---\n", want: { kind: "key", place: "top", present: ["name"] } },
    { name: "a key half typed", fixture: "---\nname: a\n⟦desc$0⟧\ndescription: x\n---\n", want: { kind: "key", place: "top", present: ["name", "description"] } },
    { name: "inside a key that has its colon", fixture: "---\n⟦na$0me⟧: a\n---\n", want: { kind: "key", place: "top", present: [] } },
    { name: "under metadata", fixture: "---\nname: a\nmetadata:\n  author: me\n  ⟦sh$0⟧\nlicense: x\n---\n", want: { kind: "key", place: "metadata", present: ["author"] } },
    { name: "under another map: nothing", fixture: "---\nhooks:\n  $0\n---\n", want: undefined },
    { name: "a value after key: ", fixture: "---\ncontext: ⟦$0⟧\n---\n", want: { kind: "value", key: "context", place: "top" } },
    { name: "a value half typed", fixture: "---\neffort: ⟦hi$0gh⟧\n---\n", want: { kind: "value", key: "effort", place: "top" } },
    { name: "a metadata value", fixture: "---\nmetadata:\n  short-description: ⟦$0⟧\n---\n", want: { kind: "value", key: "short-description", place: "metadata" } },
    { name: "past the value's first word: nothing", fixture: "---\ndescription: Reads files $0\n---\n", want: undefined },
    { name: "a list item: nothing", fixture: "---\nallowed-tools:\n  - $0\n---\n", want: undefined },
    { name: "a comment line: nothing", fixture: "---\n# a note $0\n---\n", want: undefined },
  ];
  for (const row of rows) {
    test(row.name, () => {
      const { found, expected } = at(row.fixture);
      if (row.want === undefined) return assert.equal(found, undefined);
      assert.ok(found);
      const { range, ...rest } = found;
      assert.deepEqual(rest, row.want);
      assert.deepEqual(showRange(range), expected && showRange(expected));
    });
  }
});
