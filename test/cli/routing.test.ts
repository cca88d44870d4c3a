/**
 * `skill-lsp test-routing`: the report, the JUnit XML a CI system reads, and the exit codes, on a generated
 * model that always plans @search-info (loaded by the real node-llama-cpp).
 */
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { writeScriptedModel } from "../fixtures/model/gguf.js";
import { capture, type Run } from "./capture.js";

const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const EXAMPLES = path.join(REPO, "examples");

let root = "";
let model = "";

function run(...args: string[]): Promise<Run> {
  return capture(["test-routing", ...args]);
}

/** The attributes of every element with this tag, in order. */
function elements(xml: string, tag: string): Record<string, string>[] {
  return [...xml.matchAll(new RegExp(`<${tag}\\b([^>]*?)/?>`, "g"))].map((match) => Object.fromEntries([...(match[1] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((attribute) => [attribute[1] ?? "", attribute[2] ?? ""])));
}

before(async () => {
  root = await fs.mkdtemp(path.join(tmpdir(), "skill-routing-cli-"));
  // Routing is by likelihood: this model scores every menu entry alike, so a tie goes to the first, @search-info.
  model = path.join(root, "plans-search-info.gguf");
  await writeScriptedModel(model, '{"handles":["search-info"],"reason":"it checks every place"}', { contextLength: 8192 });
});

after(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe("test-routing", () => {
  test("on examples/: a report by skill, JUnit XML with a failure per misrouted request, exit 1", async () => {
    const junit = path.join(root, "reports", "routing.xml");
    const result = await run(EXAMPLES, "--model", model, "--threads", "1", "--context", "4096", "--gpu", "off", "--junit", junit);
    assert.equal(result.code, 1, result.err);
    assert.match(result.out, /^Routing 30 requests on .*plans-search-info\.gguf; the menu: @search-info @check-schedule .* @current-date$/m);
    assert.match(result.out, /^@check-schedule {2}.*check-schedule\.skill\.md$/m);
    assert.match(result.out, /^ {2}FAIL {2}example {4}"What's on my calendar tomorrow\?" {2}\(line 5, \d+ ms\)\n {9}Routed to @search-info instead of @check-schedule$/m);
    assert.match(result.out, /^ {2}pass {2}example {4}"What's my PAN number\?"/m);
    assert.match(result.out, /^ {2}FAIL {2}near miss {2}"Write a haiku about autumn"/m);
    assert.match(result.out, /^30 routing tests: 15 passed, 15 failed, 0 errored, 0 skipped in [\d.]+ s\.$/m);

    const xml = await fs.readFile(junit, "utf8");
    assert.ok(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="skill-lsp routing" tests="30" failures="15" errors="0" skipped="0"'));
    const suites = elements(xml, "testsuite");
    assert.deepEqual(suites.map((suite) => suite.name), ["@check-schedule", "@follow-up", "@meeting-prep", "@plan-trip", "@retry-search", "@search-info", "@triage-inbox"]);
    assert.deepEqual(suites.find((suite) => suite.name === "@search-info"), { ...suites.find((suite) => suite.name === "@search-info"), tests: "5", failures: "2", errors: "0", skipped: "0", file: path.join("examples", "skills", "builtin", "search-info.skill.md") });
    const cases = elements(xml, "testcase");
    assert.equal(cases.length, 30);
    assert.deepEqual(cases[0], { ...cases[0], classname: "routing.check-schedule", name: "example: What&apos;s on my calendar tomorrow?", line: "5" });
    const failures = elements(xml, "failure");
    assert.equal(failures.length, 15);
    for (const failure of failures) {
      assert.equal(failure.type, "misrouted");
      assert.match(failure.message ?? "", /^Routed to @search-info/);
    }
    // A plan by likelihood has no reason to report: the failure names the choice alone.
    assert.match(xml, /<failure [^>]*>chosen: @search-info<\/failure>/);
    assert.equal((xml.match(/<testsuite /g) ?? []).length, (xml.match(/<\/testsuite>/g) ?? []).length);
    assert.ok(xml.trimEnd().endsWith("</testsuites>"));
    assert.match(result.out, /JUnit XML written to .*routing\.xml\./);
  });

  test("exits 0 when every request routes where it should; escapes what XML cannot hold", async () => {
    const folder = path.join(root, "passing");
    await fs.mkdir(folder, { recursive: true });
    await fs.writeFile(
      path.join(folder, "search-info.skill.md"),
      '---\nsummary: Finds any information the user asks for.\nexamples:\n  - "Where is <my> \\"A&B\\" file?"\n---\nUse @check-notebook.\n',
    );
    // Named to come after @search-info on the menu, which wins the scripted model's ties.
    await fs.writeFile(path.join(folder, "view-schedule.skill.md"), '---\nsummary: Reads the calendar.\nnear-misses:\n  - "Find my passport"\n---\nUse @calendar.\n');
    const junit = path.join(root, "passing.xml");
    const result = await run(folder, "--model", model, "--threads", "1", "--junit", junit);
    assert.equal(result.code, 0, result.out + result.err);
    assert.match(result.out, /2 routing tests: 2 passed, 0 failed/);
    const xml = await fs.readFile(junit, "utf8");
    assert.match(xml, /name="example: Where is &lt;my&gt; &quot;A&amp;B&quot; file\?"/);
    assert.match(xml, /failures="0" errors="0"/);
  });

  test("a folder without routing cases has nothing to test", async () => {
    const folder = path.join(root, "none");
    await fs.mkdir(folder, { recursive: true });
    await fs.writeFile(path.join(folder, "a.skill.md"), "---\nsummary: A.\n---\nBody.\n");
    const result = await run(folder, "--model", model);
    assert.equal(result.code, 0);
    assert.match(result.out, /lists examples or near-misses: nothing to test/);
  });

  test("usage errors and a model that cannot run exit 2 with a message", async () => {
    const noModel = await run(EXAMPLES);
    assert.equal(noModel.code, 2);
    assert.match(noModel.err, /^skill-lsp test-routing: needs --model/);
    assert.match((await run(EXAMPLES, "--model", model, "--frobnicate")).err, /Unknown option --frobnicate/);
    assert.match((await run(path.join(root, "missing"), "--model", model)).err, /is not a folder/);
    const missing = await run(EXAMPLES, "--model", path.join(root, "nowhere.gguf"));
    assert.equal(missing.code, 2);
    assert.match(missing.err, /Model file not found: .*nowhere\.gguf/);
  });

  test("is a verb of the skill-lsp command line", async () => {
    const usage = await capture(["test-routing", EXAMPLES]);
    assert.equal(usage.code, 2);
    assert.match(usage.err, /^skill-lsp test-routing: needs --model/);
    assert.match((await capture(["help"])).out, /test-routing \[folder…\] --model M \[--junit FILE\]/);
  });
});
