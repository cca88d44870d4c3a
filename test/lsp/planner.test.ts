import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { CancellationTokenSource, ResponseError } from "vscode-languageserver-protocol";
import { AlignmentRequest, MENU_TOO_LARGE_ERROR, NO_MODEL_ERROR, PlanEventNotification, RunPlanRequest, UNTRUSTED_ERROR, type PlanEventParams } from "../../shared/protocol.js";
import { writeScriptedModel } from "../fixtures/model/gguf.js";
import { TestClient, copyWorkspace, removeWorkspace } from "./harness.js";

const PLAN_SCRIPT = '{"handles":["search-info"],"reason":"finds the number"}';

describe("the planner over the protocol", () => {
  let folder: string;
  let models: string;
  let client: TestClient;
  const events: PlanEventParams[] = [];

  before(async () => {
    folder = copyWorkspace();
    models = mkdtempSync(path.join(tmpdir(), "skill-models-"));
    const model = path.join(models, "plans-search-info.gguf");
    await writeScriptedModel(model, PLAN_SCRIPT, { contextLength: 8192 });
    client = await TestClient.start({ folders: [folder], settings: { model: { path: model, threads: 1, contextSize: 4096, gpu: "off" } } });
    client.connection.onNotification(PlanEventNotification, (params) => events.push(params));
  });
  after(async () => {
    await client.stop();
    removeWorkspace(folder);
    rmSync(models, { recursive: true, force: true });
  });

  it("refuses to run in a restricted workspace", async () => {
    await assert.rejects(client.connection.sendRequest(RunPlanRequest, { runId: "r0", request: "What's my PAN?", trusted: false }), (error: unknown) => {
      assert.ok(error instanceof ResponseError);
      assert.equal(error.code, UNTRUSTED_ERROR);
      assert.match(error.message, /trusted workspace/);
      return true;
    });
  });

  it("plans, binds exactly the expanded toolset, and streams every step", async () => {
    const result = await client.connection.sendRequest(RunPlanRequest, { runId: "r1", request: "What's my PAN number?", trusted: true });
    assert.deepEqual(result.handles, ["search-info"]);
    // Routing by likelihood: the scripted model scores every entry alike, and a tie goes to the first, @search-info.
    assert.equal(result.plan, "I'll use @search-info.");
    assert.deepEqual(result.tools, ["check_notebook", "list_devices", "find_file", "grep_memory"]);
    const types = events.filter((event) => event.runId === "r1").map((event) => event.event.type);
    for (const type of ["systemPrompt", "plan", "bound", "answer", "done"]) assert.ok(types.includes(type), `${type} in ${types.join(",")}`);
    assert.ok(types.indexOf("plan") < types.indexOf("bound") && types.indexOf("bound") < types.indexOf("answer"));
  });

  it("counts the alignment's tokens with the loaded model's tokenizer", async () => {
    const alignment = await client.connection.sendRequest(AlignmentRequest);
    assert.equal(alignment.exact, true);
    assert.match(alignment.label, /^\d{1,3}(,\d{3})* tokens$/);
    assert.notEqual(alignment.tokens, Math.ceil(alignment.text.length / 4));
  });

  it("stops a run when the request is cancelled, and runs the next one", async () => {
    const source = new CancellationTokenSource();
    const run = client.connection.sendRequest(RunPlanRequest, { runId: "r2", request: "Find my passport scan", trusted: true }, source.token);
    await client.waitFor(() => events.some((event) => event.runId === "r2"), 10_000);
    source.cancel();
    await assert.rejects(run);
    const again = await client.connection.sendRequest(RunPlanRequest, { runId: "r3", request: "What's my PAN number?", trusted: true });
    assert.deepEqual(again.handles, ["search-info"]);
  });
});

describe("the planner without a model", () => {
  it("says plainly that no model is configured", async () => {
    const folder = copyWorkspace();
    const client = await TestClient.start({ folders: [folder] });
    await assert.rejects(client.connection.sendRequest(RunPlanRequest, { runId: "x", request: "Hi", trusted: true }), (error: unknown) => {
      assert.ok(error instanceof ResponseError);
      assert.equal(error.code, NO_MODEL_ERROR);
      assert.match(error.message, /skill\.model\.path/);
      return true;
    });
    await client.stop();
    removeWorkspace(folder);
  });

  it("gives a clear error for a corrupt model file and keeps serving", async () => {
    const folder = copyWorkspace();
    const models = mkdtempSync(path.join(tmpdir(), "skill-models-"));
    const corrupt = path.join(models, "corrupt.gguf");
    (await import("node:fs")).writeFileSync(corrupt, "GGUF but not really a model");
    const client = await TestClient.start({ folders: [folder], settings: { model: { path: corrupt, threads: 1 } } });
    await assert.rejects(client.connection.sendRequest(RunPlanRequest, { runId: "y", request: "Hi", trusted: true }), /corrupt\.gguf/);
    const alignment = await client.connection.sendRequest(AlignmentRequest);
    assert.equal(alignment.planning, true);
    await client.stop();
    removeWorkspace(folder);
    rmSync(models, { recursive: true, force: true });
  });

  it("a menu larger than skill.model.contextSize: the Alignment document and Run Plan give the same sentence, before the model loads", async () => {
    const folder = copyWorkspace();
    const models = mkdtempSync(path.join(tmpdir(), "skill-models-"));
    const model = path.join(models, "plans-search-info.gguf");
    await writeScriptedModel(model, PLAN_SCRIPT, { contextLength: 8192 });
    // 900 tokens leave 132 for the menu: examples/ is about 323.
    const client = await TestClient.start({ folders: [folder], settings: { model: { path: model, threads: 1, contextSize: 900, gpu: "off" } } });
    try {
      const alignment = await client.connection.sendRequest(AlignmentRequest);
      assert.equal(alignment.fit.fits, false);
      assert.equal(alignment.fit.contextSize, 900);
      assert.equal(alignment.fit.budget, 132);
      assert.match(alignment.fit.sentence ?? "", /^The menu does not fit the model's context: the system prompt is ~\d+ tokens/);
      await assert.rejects(client.connection.sendRequest(RunPlanRequest, { runId: "big", request: "What's my PAN number?", trusted: true }), (error: unknown) => {
        assert.ok(error instanceof ResponseError);
        assert.equal(error.code, MENU_TOO_LARGE_ERROR);
        assert.equal(error.message, alignment.fit.sentence);
        return true;
      });
    } finally {
      await client.stop();
      removeWorkspace(folder);
      rmSync(models, { recursive: true, force: true });
    }
  });
});
