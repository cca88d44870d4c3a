// `node bench/push.mjs <skills folder> [--server A.js --server B.js …] [--rounds N] [--ms MS]`: a client that takes
// pushed diagnostics (it announces no `textDocument.diagnostic`, as Neovim, Helix or Emacs), one editor open from
// the start, asking completion after `@` every 20 ms from the end of the first index for MS ms (default 8,000),
// while the server publishes the workspace's diagnostics. Prints, per run, the completions' median, p95 and
// longest wait, and how many `publishDiagnostics` came (with problems) and when the last did; the builds
// alternate round by round. Needs `node esbuild.mjs` for the default server, dist/server.js.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import * as rpc from "vscode-jsonrpc/node.js";

const args = process.argv.slice(2);
const folder = path.resolve(args[0] ?? "");
if (!args[0] || args[0].startsWith("--")) {
  console.error("usage: node bench/push.mjs <skills folder> [--server dist/server.js …] [--rounds N] [--ms MS]");
  process.exit(2);
}
const servers = args.flatMap((arg, i) => (args[i - 1] === "--server" ? [path.resolve(arg)] : []));
if (servers.length === 0) servers.push(path.resolve(import.meta.dirname, "../dist/server.js"));
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) || fallback : fallback);
const rounds = option("--rounds", 1);
const askingMs = option("--ms", 8000);

async function run(server) {
  // The flags and environment every launcher gives (SERVER_NODE_FLAGS and serverEnvironment in shared/protocol.ts).
  const env = { ...process.env, MALLOC_ARENA_MAX: "2" };
  delete env.NODE_EXTRA_CA_CERTS;
  const spawned = performance.now();
  const child = spawn(process.execPath, ["--max-semi-space-size=8", server, "--stdio"], { stdio: ["pipe", "pipe", "ignore"], env });
  const connection = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  for (const method of ["window/workDoneProgress/create", "client/registerCapability"]) connection.onRequest(method, () => null);
  let published = 0;
  let withProblems = 0;
  let lastAt = 0;
  connection.onNotification("textDocument/publishDiagnostics", (params) => {
    published++;
    if (params.diagnostics.length > 0) withProblems++;
    lastAt = performance.now() - spawned;
  });
  let indexed;
  const indexing = new Promise((resolve) => (indexed = resolve));
  connection.onNotification("$/progress", (params) => params.value?.kind === "end" && indexed());
  connection.listen();
  await connection.sendRequest("initialize", {
    processId: process.pid,
    rootUri: null,
    workspaceFolders: [{ uri: pathToFileURL(folder).href, name: path.basename(folder) }],
    capabilities: { textDocument: { completion: { completionItem: { snippetSupport: true } }, publishDiagnostics: {} }, window: { workDoneProgress: true } },
  });
  connection.sendNotification("initialized", {});
  const file = readdirSync(folder).filter((name) => name.endsWith(".skill.md")).sort()[0];
  const uri = pathToFileURL(path.join(folder, file)).href;
  const text = `${readFileSync(path.join(folder, file), "utf8")}\nThen @`;
  connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "skill", version: 1, text } });
  const lines = text.split("\n");
  const position = { line: lines.length - 1, character: lines[lines.length - 1].length };
  await indexing;
  const indexedAt = performance.now() - spawned;
  const waits = [];
  const until = performance.now() + askingMs;
  while (performance.now() < until) {
    const asked = performance.now();
    await connection.sendRequest("textDocument/completion", { textDocument: { uri }, position, context: { triggerKind: 2, triggerCharacter: "@" } });
    waits.push(performance.now() - asked);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  child.kill();
  waits.sort((a, b) => a - b);
  const at = (q) => waits[Math.min(waits.length - 1, Math.floor(q * waits.length))];
  console.log(
    `${server}: indexed ${indexedAt.toFixed(0)} ms after spawn; ${published} publishDiagnostics (${withProblems} with problems), the last ${lastAt.toFixed(0)} ms after spawn; ` +
      `${waits.length} completions, median ${at(0.5).toFixed(2)} ms, p95 ${at(0.95).toFixed(2)} ms, longest ${at(1).toFixed(1)} ms`,
  );
}

for (let round = 0; round < rounds; round++) for (const server of servers) await run(server);
