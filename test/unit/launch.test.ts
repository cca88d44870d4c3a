/** The server's Node flags are one list: the `skill-lsp` command's `#!` line must carry the same ones. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { SERVER_NODE_FLAGS } from "../../shared/protocol.js";

test("the skill-lsp command starts node with the server's flags", () => {
  const firstLine = readFileSync(path.join(__dirname, "../../server/src/start.ts"), "utf8").split("\n")[0];
  assert.equal(firstLine, `#!/usr/bin/env -S node ${SERVER_NODE_FLAGS.join(" ")}`);
});
