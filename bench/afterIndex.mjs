// `node bench/afterIndex.mjs <skills folder> [--pull] [--server A.js --server B.js …] [--rounds N] [--ms MS]`: one
// editor open from the start, completion asked after `@` every 20 ms from the end of the first index for MS ms
// (default 8,000), while the server delivers the workspace's diagnostics: pushed by default (the client announces
// no `textDocument.diagnostic`, as Neovim, Helix or Emacs), or with `--pull` pulled as VS Code does (the
// workspace report asked with a partial-result token, its result ids sent back with the next request, which
// waits for a change: the menu-similar warnings come so). Prints, per run, the completions' median, p95 and
// longest wait, how many files' diagnostics came (with problems) and when the last did; the builds alternate
// round by round. Needs `node esbuild.mjs` for the default server, dist/server.js.
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { initializeOn, numberOption, serversOf, startServer } from "./serverProcess.mjs";

const args = process.argv.slice(2);
const folder = path.resolve(args[0] ?? "");
if (!args[0] || args[0].startsWith("--")) {
  console.error("usage: node bench/afterIndex.mjs <skills folder> [--pull] [--server dist/server.js …] [--rounds N] [--ms MS]");
  process.exit(2);
}
const servers = serversOf(args);
const rounds = numberOption(args, "--rounds", 1);
const askingMs = numberOption(args, "--ms", 8000);
const pull = args.includes("--pull");

const REPORT_TOKEN = "workspace-report";

async function run(server) {
  const { child, connection, spawnedAt: spawned } = startServer(server);
  let delivered = 0;
  let withProblems = 0;
  let lastAt = 0;
  /** By URI, the result id of the report a pull client holds. */
  const held = new Map();
  const take = (uri, diagnostics, resultId) => {
    delivered++;
    if (diagnostics.length > 0) withProblems++;
    if (resultId !== undefined) held.set(uri, resultId);
    lastAt = performance.now() - spawned;
  };
  connection.onNotification("textDocument/publishDiagnostics", (params) => take(params.uri, params.diagnostics));
  let indexed;
  const indexing = new Promise((resolve) => (indexed = resolve));
  connection.onNotification("$/progress", (params) => {
    if (params.token === REPORT_TOKEN) for (const item of params.value.items ?? []) take(item.uri, item.items ?? [], item.resultId);
    else if (params.value?.kind === "end") indexed();
  });
  connection.listen();
  await initializeOn(connection, folder, {
    textDocument: { ...(pull ? { diagnostic: { dynamicRegistration: false } } : {}), completion: { completionItem: { snippetSupport: true } }, publishDiagnostics: {} },
    workspace: pull ? { diagnostics: { refreshSupport: true } } : {},
    window: { workDoneProgress: true },
  });
  const file = readdirSync(folder).filter((name) => name.endsWith(".skill.md")).sort()[0];
  const uri = pathToFileURL(path.join(folder, file)).href;
  const text = `${readFileSync(path.join(folder, file), "utf8")}\nThen @`;
  connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "skill", version: 1, text } });
  const lines = text.split("\n");
  const position = { line: lines.length - 1, character: lines[lines.length - 1].length };
  await indexing;
  const indexedAt = performance.now() - spawned;
  let stopped = false;
  if (pull) {
    void (async () => {
      while (!stopped) {
        const previousResultIds = [...held].map(([uri, value]) => ({ uri, value }));
        const answer = await connection.sendRequest("workspace/diagnostic", { previousResultIds, partialResultToken: REPORT_TOKEN }).catch(() => ({ items: [] }));
        for (const item of answer.items) take(item.uri, item.items ?? [], item.resultId);
      }
    })();
  }
  const waits = [];
  const until = performance.now() + askingMs;
  while (performance.now() < until) {
    const asked = performance.now();
    await connection.sendRequest("textDocument/completion", { textDocument: { uri }, position, context: { triggerKind: 2, triggerCharacter: "@" } });
    waits.push(performance.now() - asked);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  stopped = true;
  child.kill();
  waits.sort((a, b) => a - b);
  const at = (q) => waits[Math.min(waits.length - 1, Math.floor(q * waits.length))];
  console.log(
    `${server}: indexed ${indexedAt.toFixed(0)} ms after spawn; ${delivered} files' diagnostics ${pull ? "reported" : "published"} (${withProblems} with problems), the last ${lastAt.toFixed(0)} ms after spawn; ` +
      `${waits.length} completions, median ${at(0.5).toFixed(2)} ms, p95 ${at(0.95).toFixed(2)} ms, longest ${at(1).toFixed(1)} ms`,
  );
}

for (let round = 0; round < rounds; round++) for (const server of servers) await run(server);
