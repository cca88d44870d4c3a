// Run Plan on a menu larger than the model's context, with the real SmolLM2-135M-Instruct file (`npm run models`):
// the planner refuses with the menu's sentence, before loading when the length alone rules the menu out, and
// before prompting when the model's own count does.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { generateWorkspaces } from "../../bench/workspace.js";
import { runCli } from "../../server/src/cli/index.js";
import { composeSystemPrompt, Namespace } from "../../server/src/core/index.js";
import { loadFolders } from "../../server/src/node/workspaceFiles.js";
import { LlamaPlannerModel } from "../../server/src/planner/llamaModel.js";
import { cachedModelPath, SMOLLM2 } from "../../server/src/planner/modelCatalog.js";
import { MenuFitError, Planner } from "../../server/src/planner/planner.js";
import { examplesNamespace, fixtureTools, recorder, tempDir } from "./helpers.js";

const MODEL = cachedModelPath(SMOLLM2);
const SENTENCE_START = "The menu does not fit the model's context: the system prompt is ";
let scratch: { readonly dir: string; readonly cleanup: () => Promise<void> };
let skills: string;
let large: Namespace;

before(async () => {
  assert.ok(existsSync(MODEL), `${SMOLLM2.title} is not in the model cache (${MODEL}): run \`npm run models\` first.`);
  scratch = await tempDir("skill-menu-fit-");
  skills = (await generateWorkspaces(scratch.dir, 3000, 20261203, "realistic")).skills;
  large = new Namespace();
  await loadFolders(large, [skills]);
});

after(async () => {
  await scratch?.cleanup();
});

describe("Run Plan on a menu the context cannot hold (SmolLM2)", () => {
  test("3,000 skills in 4096 tokens: refused with the estimated sentence, and the model is never loaded", async () => {
    const model = new LlamaPlannerModel({ model: MODEL, threads: 2, gpu: false, contextSize: 4096, idleUnloadMs: 0 });
    try {
      const events = recorder();
      const planner = new Planner({ model, tools: fixtureTools() });
      await assert.rejects(planner.run({ text: "Search my notes for the boiler invoice", namespace: large, onEvent: events.onEvent }), (error: unknown) => {
        assert.ok(error instanceof MenuFitError);
        assert.ok(error.message.startsWith(`${SENTENCE_START}~`), error.message);
        assert.match(error.message, /a context of 4,096 tokens leaves 3,328 for it .* only the first \d+ of the 3,001 entries fit\./);
        return true;
      });
      assert.equal(model.loaded, false);
      assert.deepEqual(events.of("model"), []);
      assert.deepEqual(events.of("error").map((event) => event.code), ["menu"]);
    } finally {
      await model.dispose();
    }
  });

  test("examples/ in a context just too small: the model loads, counts exactly, and refuses before any prompt", async () => {
    const examples = await examplesNamespace();
    // 300 tokens for the menu: examples/ is 1,292 characters (at least 215 tokens by length), 315 by SmolLM2's count.
    const model = new LlamaPlannerModel({ model: MODEL, threads: 2, gpu: false, contextSize: 768 + 300, idleUnloadMs: 0 });
    try {
      const events = recorder();
      const planner = new Planner({ model, tools: fixtureTools() });
      await assert.rejects(planner.plan({ text: "Do I have anything booked on Friday?", namespace: examples, onEvent: events.onEvent }), (error: unknown) => {
        assert.ok(error instanceof MenuFitError);
        const exact = (model.tokenCounter() ?? (() => -1))(composeSystemPrompt(examples).text);
        assert.ok(error.message.startsWith(`${SENTENCE_START}${exact} tokens (`), error.message);
        assert.match(error.message, /a context of 1,068 tokens leaves 300 for it/);
        return true;
      });
      assert.equal(model.loaded, true);
      assert.deepEqual(events.of("systemPrompt"), []);
      assert.deepEqual(events.of("plan"), []);
      assert.deepEqual(events.of("error").map((event) => event.code), ["menu"]);
    } finally {
      await model.dispose();
    }
  });

  test("skill-lsp plan refuses with the same sentence on standard error and exits 1", async () => {
    let out = "";
    let err = "";
    const code = await runCli(["plan", "Search my notes for the boiler invoice", "--model", MODEL, "--folder", skills, "--threads", "2", "--gpu", "off"], {
      out: (line) => void (out += `${line}\n`),
      err: (line) => void (err += `${line}\n`),
      write: (text) => void (out += text),
      writeBytes: (bytes) => void (out += new TextDecoder().decode(bytes)),
    });
    assert.equal(code, 1);
    assert.match(err, new RegExp(`^error {5}${SENTENCE_START.replace(/[()]/g, "\\$&")}~[\\d,]+ tokens`));
    assert.doesNotMatch(out, /^model/m);
  });

  test("skill-lsp menu --model counts with SmolLM2's tokenizer and clamps --context to its trained 8,192 tokens", async () => {
    let out = "";
    let err = "";
    const code = await runCli(["menu", "--folder", skills, "--model", MODEL, "--context", "100000", "--threads", "2", "--gpu", "off"], {
      out: (line) => void (out += `${line}\n`),
      err: (line) => void (err += `${line}\n`),
      write: (text) => void (out += text),
      writeBytes: (bytes) => void (out += new TextDecoder().decode(bytes)),
    });
    assert.equal(code, 1);
    const match = new RegExp(`^${SENTENCE_START}([\\d,]+) tokens \\(`).exec(err);
    assert.ok(match, err);
    assert.match(err, /a context of 8,192 tokens leaves 7,424 for it/);
    assert.match(out, new RegExp(`— ${match[1] ?? ""} tokens, [\\d,]+ characters; planning on \\(3,000 skills on the menu\\)`));
  });
});
