/**
 * dist/server.js runs the bundle from V8's code cache: the first start writes the cache, the next one reads it,
 * and a cache that is damaged, or made for another bundle, is replaced rather than trusted. Each start is a
 * real server over stdio, asked for its diagnostics.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { StreamMessageReader, StreamMessageWriter, createMessageConnection } from "vscode-jsonrpc/node.js";
import { REPO, SERVER, uriOf } from "./harness.js";

const cache = mkdtempSync(path.join(tmpdir(), "skill-lsp-code-cache-"));
after(() => rmSync(cache, { recursive: true, force: true }));

/** `skill-lsp check` on the examples through dist/server.js with this cache folder: its exit code and output. */
function check(): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [SERVER, "check", "--format", "json", path.join(REPO, "examples")], { env: { ...process.env, SKILL_LSP_CODE_CACHE: cache }, encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const caches = () => readdirSync(cache).filter((name) => name.endsWith(".bin"));

test("the first start writes the code cache, and later starts answer the same from it", () => {
  const plain = spawnSync(process.execPath, [path.join(REPO, "dist/server-bundle.js"), "check", "--format", "json", path.join(REPO, "examples")], { encoding: "utf8" });
  const first = check();
  assert.equal(first.stderr, "");
  assert.equal(first.status, plain.status);
  assert.equal(first.stdout, plain.stdout);
  assert.equal(caches().length, 1, "one cache for this bundle and this runtime");
  const written = readFileSync(path.join(cache, caches()[0] ?? ""));
  assert.ok(written.length > 10_000, `a cache of ${written.length} bytes`);
  const second = check();
  assert.equal(second.stdout, plain.stdout);
  assert.deepEqual(caches().length, 1);
});

test("a damaged cache is not trusted: the server still answers, and the cache is written again", () => {
  check();
  const file = path.join(cache, caches()[0] ?? "");
  writeFileSync(file, Buffer.from("not a code cache at all, just bytes"));
  const damaged = check();
  assert.equal(damaged.stderr, "");
  assert.match(damaged.stdout, /^[[{]/);
  assert.ok(readFileSync(file).length > 10_000, "the damaged cache was replaced");
});

test("a cache of an older bundle at the same path is removed when the new one is written", () => {
  check();
  const current = caches()[0] ?? "";
  const [pathPart] = current.split("-");
  const stale = `${pathPart}-0000000000000000-0000000000000000.bin`;
  writeFileSync(path.join(cache, stale), Buffer.from("old"));
  rmSync(path.join(cache, current));
  check();
  assert.deepEqual(caches(), [current]);
});

/**
 * A real language server on the examples through dist/server.js with this cache folder: initialize, one open
 * editor's diagnostics, shutdown. Returns what it wrote to stderr.
 */
async function serveOnce(nodeArgs: readonly string[] = [], holdMs = 0): Promise<string> {
  const child = spawn(process.execPath, [...nodeArgs, SERVER, "--stdio"], { env: { ...process.env, SKILL_LSP_CODE_CACHE: cache }, stdio: "pipe" });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  connection.onRequest("window/workDoneProgress/create", () => null);
  connection.onRequest("client/registerCapability", () => null);
  connection.onRequest("workspace/diagnostic/refresh", () => null);
  connection.listen();
  const folder = path.join(REPO, "examples");
  const file = path.join(folder, "skills/builtin/check-schedule.skill.md");
  await connection.sendRequest("initialize", { processId: process.pid, rootUri: null, workspaceFolders: [{ uri: uriOf(folder), name: "examples" }], capabilities: { textDocument: { diagnostic: {} } } });
  await connection.sendNotification("initialized", {});
  await connection.sendNotification("textDocument/didOpen", { textDocument: { uri: uriOf(file), languageId: "agent-skill", version: 1, text: readFileSync(file, "utf8") } });
  const report = await connection.sendRequest<{ kind: string }>("textDocument/diagnostic", { textDocument: { uri: uriOf(file) } });
  assert.equal(report.kind, "full");
  await new Promise((resolve) => setTimeout(resolve, holdMs));
  await connection.sendRequest("shutdown");
  await connection.sendNotification("exit");
  await new Promise((resolve) => child.once("exit", resolve));
  connection.dispose();
  return stderr;
}

test("a language server and the command line each accept the cache they wrote, started in turn", async () => {
  for (const name of caches()) rmSync(path.join(cache, name));
  await serveOnce();
  assert.equal(caches().length, 1, "the first start wrote one cache");
  const serverCache = path.join(cache, caches()[0] ?? "");
  const written = statSync(serverCache);
  check();
  assert.equal(caches().length, 2, "the command line keeps its own");
  const commandCache = path.join(cache, caches().find((name) => path.join(cache, name) !== serverCache) ?? "");
  const commandWritten = statSync(commandCache);
  // The server sets a V8 flag of its own: a cache stamped with other flags than a fresh start's would be
  // rejected, and replaced (a new file renamed over it) at every start.
  await serveOnce();
  check();
  await serveOnce();
  // A cache written anew is a new file renamed over the old one (a server that lives 2 s touches the one it read).
  assert.equal(statSync(serverCache).ino, written.ino, "the server's cache was read back, not written anew");
  assert.equal(statSync(commandCache).ino, commandWritten.ino, "the command line's too");
});

test("a server that reads the cache and runs on marks it as used", async () => {
  for (const name of caches()) rmSync(path.join(cache, name));
  await serveOnce();
  const file = path.join(cache, caches().find((name) => !name.startsWith("other")) ?? "");
  const hourAgo = Date.now() / 1000 - 3600;
  utimesSync(file, hourAgo, hourAgo);
  const ino = statSync(file).ino;
  await serveOnce([], 2500);
  assert.equal(statSync(file).ino, ino, "read, not written anew");
  assert.ok(statSync(file).mtimeMs > Date.now() - 60_000, "touched");
});

test("the folder keeps the eight most recently used caches, and temporary files a stopped write left long ago go", () => {
  for (const name of readdirSync(cache)) rmSync(path.join(cache, name));
  const hourAgo = Date.now() / 1000 - 3600;
  // Caches of other bundles and runtimes, each used a minute before the next.
  for (let i = 0; i < 10; i++) {
    const file = path.join(cache, `other${i}-0000000000000000-0000000000000000.bin`);
    writeFileSync(file, Buffer.from("other"));
    utimesSync(file, hourAgo + i * 60, hourAgo + i * 60);
  }
  writeFileSync(path.join(cache, "stopped.bin.1.tmp"), "partial");
  utimesSync(path.join(cache, "stopped.bin.1.tmp"), hourAgo - 60, hourAgo - 60);
  writeFileSync(path.join(cache, "writing.bin.2.tmp"), "partial");
  check();
  const left = readdirSync(cache).sort();
  const written = caches().filter((name) => !name.startsWith("other"));
  assert.equal(written.length, 1, "this bundle's cache was written");
  assert.deepEqual(left, [...written, ...["other3", "other4", "other5", "other6", "other7", "other8", "other9"].map((name) => `${name}-0000000000000000-0000000000000000.bin`), "writing.bin.2.tmp"].sort());
});

test("a fresh language server answers initialize and an open editor's diagnostics without loading node:crypto or node:child_process", async () => {
  // Loaded into the server before anything else: at exit it says whether Node's crypto and child_process modules were ever loaded.
  const probe = path.join(cache, "crypto-probe.cjs");
  writeFileSync(probe, 'process.on("exit", () => process.stderr.write(`crypto loaded: ${process.moduleLoadList.includes("NativeModule crypto")}, child_process loaded: ${process.moduleLoadList.includes("NativeModule child_process")}\\n`));\n');
  assert.match(await serveOnce(["--require", probe]), /crypto loaded: false, child_process loaded: false/);
});
