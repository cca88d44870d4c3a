/** The server's Node flags and environment are one list each: the `skill-lsp` command's `#!` line must carry the same ones. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { SERVER_ENV, SERVER_ENV_REMOVED, SERVER_NODE_FLAGS, serverEnvironment } from "../../shared/protocol.js";

test("the skill-lsp command starts node with the server's environment and flags", () => {
  const firstLine = readFileSync(path.join(__dirname, "../../server/src/start.ts"), "utf8").split("\n")[0];
  const removals = SERVER_ENV_REMOVED.map((name) => `-u ${name}`);
  const assignments = Object.entries(SERVER_ENV).map(([name, value]) => `${name}=${value}`);
  assert.equal(firstLine, `#!/usr/bin/env -S ${[...removals, ...assignments, "node", ...SERVER_NODE_FLAGS].join(" ")}`);
});

test("the built skill-lsp command, run as a program, runs node with that environment and those flags", { skip: process.platform !== "linux" && "reads /proc" }, async () => {
  const program = path.join(__dirname, "../../dist/server.js");
  assert.ok(existsSync(program), "dist/server.js is built (node esbuild.mjs)");
  // Set in the caller's environment, as on a machine that names extra certificates: the server must not get it.
  const removed = Object.fromEntries(SERVER_ENV_REMOVED.map((name) => [name, "/nonexistent/extra-certificates.pem"]));
  const child = spawn(program, ["--stdio"], { stdio: ["pipe", "pipe", "ignore"], env: { ...process.env, ...removed } });
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
    for (const name of SERVER_ENV_REMOVED) assert.ok(!environ.split("\0").some((entry) => entry.startsWith(`${name}=`)), `${name} left out`);
  } finally {
    child.kill();
  }
});

test("the launchers' environment leaves out what the server has no use for, and keeps the rest", () => {
  const base = { PATH: "/usr/bin", HOME: "/home/someone", NODE_EXTRA_CA_CERTS: "/etc/ssl/company.pem", MALLOC_ARENA_MAX: "8" };
  const environment = serverEnvironment(base);
  assert.deepEqual(environment, { PATH: "/usr/bin", HOME: "/home/someone", ...SERVER_ENV });
  assert.equal(base.NODE_EXTRA_CA_CERTS, "/etc/ssl/company.pem", "the launcher's own environment is not changed");
});

test("a server started with extra certificates named, from the extension's environment, starts without reading them", async () => {
  // Node warns on stderr when it cannot load the certificates NODE_EXTRA_CA_CERTS names: so it did not try.
  const program = path.join(__dirname, "../../dist/server.js");
  assert.ok(existsSync(program), "dist/server.js is built (node esbuild.mjs)");
  const run = (env: Record<string, string | undefined>) =>
    new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, program, "--version"], { stdio: ["ignore", "ignore", "pipe"], env });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("error", reject);
      child.on("exit", () => resolve(stderr));
    });
  const named = { ...process.env, NODE_EXTRA_CA_CERTS: "/nonexistent/extra-certificates.pem" };
  assert.match(await run(named), /extra-certificates\.pem/, "node reads the named file when it is left in");
  assert.doesNotMatch(await run(serverEnvironment(named)), /extra-certificates\.pem/);
});
