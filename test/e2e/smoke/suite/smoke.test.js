// @ts-check
"use strict";
const assert = require("node:assert/strict");
const vscode = require("vscode");

const EXTENSION_ID = "skill-lsp.e2e-smoke";

suite("e2e smoke", () => {
  test("the extension under development is active", async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is not loaded`);
    await extension.activate();
    assert.equal(extension.isActive, true);
  });

  test("its command runs in the extension host", async () => {
    const reply = await vscode.commands.executeCommand("e2eSmoke.hello", "e2e");
    // E2E_SMOKE_FAIL=1 turns this into a failing test, to check that a failure
    // reaches the runner's exit code (see test/e2e/README.md).
    const expected = process.env.E2E_SMOKE_FAIL === "1" ? "deliberately wrong" : "hello e2e";
    assert.equal(reply, expected);
  });
});
