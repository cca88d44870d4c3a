// Routing tests over the protocol, against the built server with a generated model that always plans @search-info.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { CancellationTokenSource, ResponseError } from "vscode-languageserver-protocol";
import { RoutingProgressNotification, RoutingTestsRequest, RunRoutingRequest, UNTRUSTED_ERROR, type RoutingProgressParams } from "../../shared/protocol.js";
import { writeScriptedModel } from "../fixtures/model/gguf.js";
import { TestClient, copyWorkspace, eventually, removeWorkspace, uriOf } from "./harness.js";

describe("routing tests over the protocol", () => {
  let folder: string;
  let models: string;
  let client: TestClient;
  const progress: RoutingProgressParams[] = [];

  before(async () => {
    folder = copyWorkspace();
    models = mkdtempSync(path.join(tmpdir(), "skill-models-"));
    const model = path.join(models, "plans-search-info.gguf");
    await writeScriptedModel(model, '{"handles":["search-info"],"reason":"it checks every place"}', { contextLength: 8192 });
    client = await TestClient.start({ folders: [folder], settings: { model: { path: model, threads: 1, contextSize: 4096, gpu: "off" } } });
    client.connection.onNotification(RoutingProgressNotification, (params) => progress.push(params));
  });
  after(async () => {
    await client.stop();
    removeWorkspace(folder);
    rmSync(models, { recursive: true, force: true });
  });

  it("lists each skill's tests with the range of each request in its frontmatter", async () => {
    const tests = await client.connection.sendRequest(RoutingTestsRequest);
    assert.equal(tests.skills.length, 7);
    assert.match(tests.menuKey, /^[0-9a-f]{16}$/);
    const searchInfo = tests.skills.find((skill) => skill.handle === "search-info");
    assert.ok(searchInfo);
    assert.equal(searchInfo.uri, uriOf(path.join(folder, "skills/builtin/search-info.skill.md")));
    assert.equal(searchInfo.offMenu, null);
    const first = searchInfo.cases[0];
    assert.deepEqual(first && { kind: first.kind, text: first.text, range: first.range }, {
      kind: "example",
      text: "What's my PAN number?",
      range: { start: { line: 4, character: 4 }, end: { line: 4, character: 27 } },
    });
    const line = readFileSync(path.join(folder, "skills/builtin/search-info.skill.md"), "utf8").split("\n")[4];
    assert.equal(line?.slice(4, 27), '"What\'s my PAN number?"');
  });

  it("follows an edit: a new example appears, and the menu key changes with a summary", async () => {
    const uri = uriOf(path.join(folder, "skills/work/follow-up.skill.md"));
    const text = readFileSync(path.join(folder, "skills/work/follow-up.skill.md"), "utf8");
    const before = await client.connection.sendRequest(RoutingTestsRequest);
    await client.open(uri, text.replace('  - "Which follow-ups are overdue?"\n', '  - "Which follow-ups are overdue?"\n  - "What did I promise Priya?"\n'));
    const after = await client.connection.sendRequest(RoutingTestsRequest);
    assert.deepEqual(after.skills.find((skill) => skill.handle === "follow-up")?.cases.map((routingCase) => routingCase.text).slice(0, 3), ["Remind me what I promised Sam", "Which follow-ups are overdue?", "What did I promise Priya?"]);
    assert.equal(after.menuKey, before.menuKey, "examples are not on the menu");
    await client.change(uri, text.replace("summary: ", "summary: Always "));
    assert.notEqual((await client.connection.sendRequest(RoutingTestsRequest)).menuKey, before.menuKey);
    await client.change(uri, text);
    await client.close(uri);
  });

  it("runs a set of tests, reporting each as it starts and ends", async () => {
    const tests = await client.connection.sendRequest(RoutingTestsRequest);
    const ids = ["search-info", "check-schedule"].flatMap((handle) => tests.skills.find((skill) => skill.handle === handle)?.cases.slice(0, 1).map((routingCase) => routingCase.id) ?? []);
    const result = await client.connection.sendRequest(RunRoutingRequest, { runId: "r1", ids, trusted: true });
    assert.equal(result.menuKey, tests.menuKey);
    assert.deepEqual(result.results.map((one) => [one.id, one.status, one.chosen]), [
      [ids[1], "failed", ["search-info"]],
      [ids[0], "passed", ["search-info"]],
    ]);
    // A plan by likelihood gives no reason.
    assert.equal(result.results[0]?.message, "Routed to @search-info instead of @check-schedule");
    await eventually(async () => assert.equal(progress.filter((one) => one.runId === "r1").length, 4));
    assert.deepEqual(progress.filter((one) => one.runId === "r1").map((one) => one.state), ["started", "done", "started", "done"]);
  });

  it("stops when cancelled, and runs again afterwards", async () => {
    const source = new CancellationTokenSource();
    const run = client.connection.sendRequest(RunRoutingRequest, { runId: "r2", ids: null, trusted: true }, source.token);
    await client.waitFor(() => progress.some((one) => one.runId === "r2" && one.state === "done"), 20_000);
    source.cancel();
    await assert.rejects(run);
    const total = (await client.connection.sendRequest(RoutingTestsRequest)).skills.reduce((sum, skill) => sum + skill.cases.length, 0);
    assert.ok(progress.filter((one) => one.runId === "r2" && one.state === "done").length < total);
    const all = await client.connection.sendRequest(RunRoutingRequest, { runId: "r3", ids: null, trusted: true });
    assert.equal(all.results.length, total);
  });

  it("refuses to run in a restricted workspace", async () => {
    await assert.rejects(client.connection.sendRequest(RunRoutingRequest, { runId: "r4", ids: null, trusted: false }), (error: unknown) => {
      assert.ok(error instanceof ResponseError);
      assert.equal(error.code, UNTRUSTED_ERROR);
      return true;
    });
  });
});
