// Routing runs on the real node-llama-cpp: a generated model that always plans @search-info routes every
// request there, so exactly search-info's examples and everyone else's near misses pass.
import assert from "node:assert/strict";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Namespace } from "../../server/src/core/index.js";
import { LlamaPlannerModel } from "../../server/src/planner/llamaModel.js";
import { isAbortError, ModelError } from "../../server/src/planner/model.js";
import { judge, menuKeyOf, routingSuite, runRouting, type RoutingCase, type RoutingResult } from "../../server/src/planner/routing.js";
import { writeScriptedModel } from "../fixtures/model/gguf.js";
import { examplesNamespace, FakeModel, namespaceOf, tempDir } from "./helpers.js";

const REASON = "it checks every place";

let cleanup = async (): Promise<void> => undefined;
let examples: Namespace;
let model: LlamaPlannerModel;

before(async () => {
  const temp = await tempDir("planner-routing-");
  cleanup = temp.cleanup;
  const file = path.join(temp.dir, "plans-search-info.gguf");
  await writeScriptedModel(file, JSON.stringify({ handles: ["search-info"], reason: REASON }), { contextLength: 8192 });
  model = new LlamaPlannerModel({ model: file, threads: 1, gpu: false, contextSize: 4096, idleUnloadMs: 0 });
  examples = await examplesNamespace();
});

after(async () => {
  await model.dispose();
  await cleanup();
});

describe("the routing suite", () => {
  test("lists each skill's examples and near misses where they stand in its frontmatter", () => {
    const suite = routingSuite(examples);
    assert.deepEqual(
      suite.skills.map((skill) => skill.skill),
      ["check-schedule", "follow-up", "meeting-prep", "plan-trip", "retry-search", "search-info", "triage-inbox"],
    );
    for (const skill of suite.skills) {
      assert.equal(skill.offMenu, undefined, skill.skill);
      const file = examples.skill(skill.uri);
      assert.ok(file);
      for (const routingCase of skill.cases) {
        const { start, end } = routingCase.range;
        assert.equal(start.line, end.line);
        const source: string = file.text.split("\n")[start.line] ?? "";
        assert.equal(source.slice(start.character, end.character).replace(/^"|"$/g, ""), routingCase.text);
      }
    }
    const searchInfo = suite.skills.find((skill) => skill.skill === "search-info");
    assert.deepEqual(
      searchInfo?.cases.map((routingCase) => [routingCase.kind, routingCase.text]),
      [
        ["example", "What's my PAN number?"],
        ["example", "Find my passport scan"],
        ["example", "What is my sister's address?"],
        ["near-miss", "What's on my calendar tomorrow?"],
        ["near-miss", "Write a haiku about autumn"],
      ],
    );
    assert.ok(suite.menu.includes("search-info") && suite.menu.includes("current-date"));
  });

  test("ids are stable for a request and distinct for a repeat; the menu key follows the planning prompt only", () => {
    const text = (summary: string, body: string) => `---\nsummary: ${summary}\nexamples:\n  - "Do it"\n  - "Do it"\nnear-misses:\n  - "Do it"\n---\n${body}\n`;
    const namespace = namespaceOf({ "/ws/a.skill.md": text("Does a.", "Body.") });
    const ids = routingSuite(namespace).skills[0]?.cases.map((routingCase) => routingCase.id);
    assert.deepEqual(ids, ["file:///ws/a.skill.md#example:Do it", "file:///ws/a.skill.md#example:Do it#2", "file:///ws/a.skill.md#near-miss:Do it"]);
    const key = menuKeyOf(namespace);
    namespace.set("file:///ws/a.skill.md", text("Does a.", "Another body."));
    assert.equal(menuKeyOf(namespace), key, "a body is not on the menu");
    namespace.set("file:///ws/a.skill.md", text("Does a and b.", "Another body."));
    assert.notEqual(menuKeyOf(namespace), key);
  });

  test("the verdicts name what was chosen and why", () => {
    const example: RoutingCase = { id: "x", uri: "u", skill: "check-schedule", kind: "example", text: "Am I free?", range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } };
    assert.deepEqual(judge(example, ["search-info"], "it checks every place"), { status: "failed", message: 'Routed to @search-info instead of @check-schedule (the model\'s reason: "it checks every place")' });
    assert.deepEqual(judge(example, [], ""), { status: "failed", message: "Routed to nothing (none) instead of @check-schedule" });
    assert.equal(judge(example, ["search-info", "check-schedule"], "").status, "passed");
    const nearMiss = { ...example, kind: "near-miss" as const };
    assert.deepEqual(judge(nearMiss, ["check-schedule"], "r"), { status: "failed", message: 'Routed to @check-schedule, and this near miss must not reach @check-schedule (the model\'s reason: "r")' });
    assert.equal(judge(nearMiss, ["search-info"], "r").status, "passed");
  });
});

describe("a routing run on a model that always plans @search-info", () => {
  test("passes exactly search-info's examples and the other skills' near misses; each failure names the choice and the reason", async () => {
    const seen: string[] = [];
    const report = await runRouting({ model, namespace: examples, onStart: (routingCase) => seen.push(routingCase.id) });
    const suite = routingSuite(examples);
    const all = suite.skills.flatMap((skill) => skill.cases);
    assert.deepEqual(report.outcomes.map((outcome) => outcome.case.id), all.map((routingCase) => routingCase.id), "every case, in suite order");
    assert.deepEqual(seen, all.map((routingCase) => routingCase.id), "each one asked the model");
    for (const { case: routingCase, result } of report.outcomes) {
      const expected = (routingCase.skill === "search-info") === (routingCase.kind === "example") ? "passed" : "failed";
      assert.equal(result.status, expected, `${routingCase.skill} ${routingCase.kind} ${routingCase.text}`);
      assert.deepEqual(result.chosen, ["search-info"]);
      // Routing by likelihood gives no reason; the scripted model scores every entry alike, so the first, @search-info, wins.
      assert.equal(result.reason, "");
      if (result.status === "failed") {
        assert.match(result.message, routingCase.kind === "example" ? new RegExp(`^Routed to @search-info instead of @${routingCase.skill}$`) : /must not reach @search-info/);
      }
    }
    const examplesCount = all.filter((routingCase) => routingCase.kind === "example").length;
    const searchInfo = all.filter((routingCase) => routingCase.skill === "search-info");
    const passed = searchInfo.filter((routingCase) => routingCase.kind === "example").length + all.filter((routingCase) => routingCase.kind === "near-miss" && routingCase.skill !== "search-info").length;
    assert.deepEqual(report.counts, { passed, failed: all.length - passed, errored: 0, skipped: 0 });
    assert.ok(examplesCount >= 14);
    assert.equal(report.menuKey, menuKeyOf(examples));
  });

  test("runs only the cases asked for", async () => {
    const suite = routingSuite(examples);
    const wanted = suite.skills.find((skill) => skill.skill === "check-schedule")?.cases[0];
    assert.ok(wanted);
    const report = await runRouting({ model, namespace: examples, ids: [wanted.id, "file:///nowhere#example:x"] });
    assert.deepEqual(report.outcomes.map((outcome) => [outcome.case.id, outcome.result.status]), [[wanted.id, "failed"]]);
  });

  test("cancelling stops the run between two plans; what finished stands", async () => {
    const controller = new AbortController();
    const results: RoutingResult[] = [];
    await assert.rejects(
      runRouting({
        model,
        namespace: examples,
        signal: controller.signal,
        onResult: (_case, result) => {
          results.push(result);
          if (results.length === 2) controller.abort();
        },
      }),
      (error: unknown) => isAbortError(error),
    );
    assert.equal(results.length, 2);
    const again = await runRouting({ model, namespace: examples, ids: [results[0]?.id ?? ""] });
    assert.equal(again.outcomes.length, 1, "the model serves the next run");
  });

  test("a skill off the menu fails its examples and skips its near misses without asking the model", async () => {
    const namespace = namespaceOf({
      "/ws/search-info.skill.md": "---\nsummary: Finds information.\nexamples:\n  - \"Where is my passport?\"\n---\nUse @check-notebook.\n",
      "/ws/fetch-file.skill.md": "---\nsummary: Finds a file.\nadvertised: false\nexamples:\n  - \"Find my scan\"\nnear-misses:\n  - \"What day is it?\"\n---\nUse @find-file.\n",
      "/ws/old.skill.md": "---\nsummary: Old.\nenabled: false\nexamples:\n  - \"Anything\"\n---\nOld.\n",
    });
    const asked: string[] = [];
    const report = await runRouting({ model, namespace, onStart: (routingCase) => asked.push(routingCase.text) });
    assert.deepEqual(asked, ["Where is my passport?"]);
    const byText = new Map(report.outcomes.map((outcome) => [outcome.case.text, outcome.result]));
    assert.equal(byText.get("Where is my passport?")?.status, "passed");
    assert.equal(byText.get("Find my scan")?.status, "failed");
    assert.match(byText.get("Find my scan")?.message ?? "", /@fetch-file is not on the planner's menu \(advertised: false\)/);
    assert.equal(byText.get("What day is it?")?.status, "skipped");
    assert.match(byText.get("Anything")?.message ?? "", /enabled: false/);
  });
});

describe("routing failures", () => {
  test("a garbled plan is an errored case and the run goes on", async () => {
    let calls = 0;
    const fake = new FakeModel(() => (++calls === 1 ? "not json" : JSON.stringify({ handles: ["search-info"], reason: "ok" })));
    const report = await runRouting({ model: fake, namespace: examples, ids: routingSuite(examples).skills.flatMap((skill) => skill.cases).slice(0, 2).map((routingCase) => routingCase.id) });
    assert.deepEqual(report.outcomes.map((outcome) => outcome.result.status), ["errored", "failed"]);
    assert.match(report.outcomes[0]?.result.message ?? "", /not JSON/);
  });

  test("a model that cannot load stops the run with its message", async () => {
    const missing = new LlamaPlannerModel({ model: "/nowhere/model.gguf", threads: 1, gpu: false });
    await assert.rejects(runRouting({ model: missing, namespace: examples }), (error: unknown) => error instanceof ModelError && /Model file not found: \/nowhere\/model\.gguf/.test(error.message));
    await missing.dispose();
  });
});
