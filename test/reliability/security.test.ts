/**
 * skills.json cannot point a tool's implementation outside the workspace folders: not by `..`, an absolute
 * path, a look-alike sibling folder, a symbolic link (to a file or a folder), nor by swapping a link between
 * the check and the run. Every module outside writes a marker when it is so much as imported; no marker may
 * appear. The declarations are read from skills.json texts by the core's parser, as the server reads them.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { parseConfigFile, type DeclaredTool } from "../../server/src/core/index.js";
import { uriFromPath } from "../../server/src/node/workspaceFiles.js";
import { createWorkspaceTools, locateImplementation } from "../../server/src/tools/index.js";

describe("security: a declared tool's implementation stays inside the workspace folders", () => {
  let root: string;
  let workspace: string;
  let second: string;
  let outside: string;
  let markers: string;

  /** A module that leaves a marker named `name` when imported, and another when run. */
  const module = (name: string) =>
    `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(path.join(markers, `${name}.imported`))}, "");\n` +
    `export function run(args) { writeFileSync(${JSON.stringify(path.join(markers, `${name}.ran`))}, ""); return { ran: ${JSON.stringify(name)}, args }; }\n`;

  /** The tool a skills.json at the workspace root declares with this implementation. */
  const declare = (implementation: string, folder = workspace): DeclaredTool => {
    const text = JSON.stringify({ tools: [{ slug: "send-message", name: "send_message", blurb: "Sends a message.", implementation, parameters: { type: "object", properties: {} } }] });
    const config = parseConfigFile(uriFromPath(path.join(folder, "skills.json")), text);
    const tool = config.tools[0];
    assert.ok(tool, JSON.stringify(config.problems));
    return tool;
  };

  before(() => {
    root = realpathSync(mkdtempSync(path.join(tmpdir(), "skill-security-")));
    workspace = path.join(root, "workspace");
    second = path.join(root, "second-folder");
    outside = path.join(root, "outside");
    markers = path.join(root, "markers");
    for (const folder of [workspace, second, outside, markers, path.join(root, "workspace-evil"), path.join(workspace, "tools"), path.join(outside, "lib")]) mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(workspace, "tools/send.mjs"), module("inside"));
    writeFileSync(path.join(second, "send.mjs"), module("second-folder"));
    writeFileSync(path.join(outside, "evil.mjs"), module("outside"));
    writeFileSync(path.join(outside, "lib/evil.mjs"), module("outside-lib"));
    writeFileSync(path.join(root, "workspace-evil/evil.mjs"), module("look-alike"));
    writeFileSync(path.join(root, "evil.mjs"), module("parent"));
    symlinkSync(path.join(outside, "evil.mjs"), path.join(workspace, "tools/link.mjs"));
    symlinkSync(path.join(outside, "lib"), path.join(workspace, "lib"));
    symlinkSync(path.join(workspace, "tools/send.mjs"), path.join(workspace, "tools/inner-link.mjs"));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  const refused = [
    ["../outside/evil.mjs", "a relative path out of the folder"],
    ["tools/../../outside/evil.mjs", "out through a real folder first"],
    ["../workspace-evil/evil.mjs", "a sibling folder whose name starts with the workspace's"],
    ["../evil.mjs", "the parent folder"],
    ["tools/link.mjs", "a link to a file outside"],
    ["lib/evil.mjs", "a file in a linked folder outside"],
  ] as const;

  for (const [implementation, what] of refused) {
    it(`refuses ${what}: ${implementation}`, async () => {
      const runner = createWorkspaceTools({ folders: [workspace, second], allowWorkspaceCode: true });
      const outcome = await runner.run(declare(implementation), {});
      assert.equal(outcome.ok, false);
      assert.equal(outcome.ok === false && outcome.kind, "refused", JSON.stringify(outcome));
      assert.match(outcome.ok === false ? outcome.error : "", /outside the workspace folders.*Nothing was run/);
      assert.deepEqual(readdirSync(markers), [], "no module outside was imported");
    });
  }

  it("refuses an absolute path outside", async () => {
    const outcome = await createWorkspaceTools({ folders: [workspace], allowWorkspaceCode: true }).run(declare(path.join(outside, "evil.mjs")), {});
    assert.equal(outcome.ok === false && outcome.kind, "refused");
    assert.deepEqual(readdirSync(markers), []);
  });

  it("reads odd spellings as paths inside, which do not exist: nothing runs", async () => {
    const runner = createWorkspaceTools({ folders: [workspace], allowWorkspaceCode: true });
    for (const implementation of [`file://${path.join(outside, "evil.mjs")}`, "%2e%2e/outside/evil.mjs", "..\\outside\\evil.mjs", "~/evil.mjs", "tools/send.mjs\u0000../../outside/evil.mjs", "node:child_process", "data:text/javascript,export function run(){}"]) {
      const outcome = await runner.run(declare(implementation), {});
      assert.equal(outcome.ok, false, implementation);
      assert.ok(outcome.ok === false && (outcome.kind === "unimplemented" || outcome.kind === "refused"), `${JSON.stringify(implementation)}: ${JSON.stringify(outcome)}`);
    }
    assert.deepEqual(readdirSync(markers), []);
  });

  it("without a workspace folder, nothing is inside", async () => {
    const outcome = await createWorkspaceTools({ folders: [], allowWorkspaceCode: true }).run(declare("tools/send.mjs"), {});
    assert.equal(outcome.ok === false && outcome.kind, "refused");
    assert.deepEqual(readdirSync(markers), []);
  });

  it("runs an implementation inside: in the folder, through a link that stays inside, and in another workspace folder", async () => {
    const runner = createWorkspaceTools({ folders: [workspace, second], allowWorkspaceCode: true });
    assert.deepEqual(await runner.run(declare("tools/send.mjs"), {}), { ok: true, result: { ran: "inside", args: {} } });
    assert.deepEqual(await runner.run(declare("tools/inner-link.mjs"), {}), { ok: true, result: { ran: "inside", args: {} } });
    assert.deepEqual(await runner.run(declare("../second-folder/send.mjs"), {}), { ok: true, result: { ran: "second-folder", args: {} } });
    assert.deepEqual(readdirSync(markers).sort(), ["inside.imported", "inside.ran", "second-folder.imported", "second-folder.ran"]);
    for (const marker of readdirSync(markers)) unlinkSync(path.join(markers, marker));
  });

  it("runs the file it checked: a link swapped after the check still runs what was inside", async () => {
    const link = path.join(workspace, "tools/swapped.mjs");
    symlinkSync(path.join(workspace, "tools/send.mjs"), link);
    const tool = declare("tools/swapped.mjs");
    const located = await locateImplementation(tool, [workspace]);
    assert.ok(located.ok);
    // Between the check and the run, the link is pointed outside.
    unlinkSync(link);
    symlinkSync(path.join(outside, "evil.mjs"), link);
    const { runImplementation } = await import("../../server/src/tools/declared.js");
    const outcome = await runImplementation(tool, located.file, {}, { folders: [workspace], now: () => new Date(), signal: undefined });
    assert.equal(existsSync(path.join(markers, "outside.imported")), false, "the module outside was imported");
    assert.deepEqual(outcome, { ok: true, result: { ran: "inside", args: {} } });
  });

  it("never loads the workspace's code unless allowed (an untrusted workspace)", async () => {
    for (const marker of readdirSync(markers)) unlinkSync(path.join(markers, marker));
    const outcome = await createWorkspaceTools({ folders: [workspace] }).run(declare("tools/send.mjs"), {});
    assert.equal(outcome.ok === false && outcome.kind, "refused");
    assert.deepEqual(readdirSync(markers), []);
  });
});
