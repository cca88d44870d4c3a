/** The server's Node flags and environment are one list each: the `skill-lsp` command's `#!` line must carry the same ones. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { SERVER_ENV, SERVER_NODE_FLAGS } from "../../shared/protocol.js";

test("the skill-lsp command starts node with the server's environment and flags", () => {
  const firstLine = readFileSync(path.join(__dirname, "../../server/src/start.ts"), "utf8").split("\n")[0];
  const assignments = Object.entries(SERVER_ENV).map(([name, value]) => `${name}=${value}`);
  assert.equal(firstLine, `#!/usr/bin/env -S ${[...assignments, "node", ...SERVER_NODE_FLAGS].join(" ")}`);
});

test("the built skill-lsp command, run as a program, runs node with that environment and those flags", { skip: process.platform !== "linux" && "reads /proc" }, async () => {
  const program = path.join(__dirname, "../../dist/server.js");
  assert.ok(existsSync(program), "dist/server.js is built (node esbuild.mjs)");
  const child = spawn(program, ["--stdio"], { stdio: ["pipe", "pipe", "ignore"] });
  try {
    // The process is env at first (its arguments name server.js too), and node once env has run it.
    let environ = "";
    let args: string[] = [];
    for (let tries = 0; tries < 500 && path.basename(args[0] ?? "") !== "node"; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      args = readFileSync(`/proc/${child.pid}/cmdline`, "utf8").split("\0");
      environ = readFileSync(`/proc/${child.pid}/environ`, "utf8");
    }
    assert.equal(path.basename(args[0] ?? ""), "node", args.join(" "));
    for (const flag of SERVER_NODE_FLAGS) assert.ok(args.includes(flag), `${flag} in ${args.join(" ")}`);
    for (const [name, value] of Object.entries(SERVER_ENV)) assert.ok(environ.split("\0").includes(`${name}=${value}`), `${name}=${value}`);
  } finally {
    child.kill();
  }
});
