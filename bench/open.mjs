// `node bench/open.mjs <workspace folder> [--server A.js --server B.js …] [--rounds N] [--editors N] [--index]`:
// the user's first scenario, the editors of a restored window opened right after `initialize` while the server
// starts, for one or more builds of the server in alternating rounds (a load that drifts treats each alike).
// Each round spawns the server over stdio (with the flags the extension gives it), sends `initialize` and
// `initialized`, opens N skill files (20 by default; `.skill.md` files and SKILL.md files, spread evenly over the
// workspace's sorted list) and pulls their diagnostics at once: the time from spawn until all of them came, and
// until the first half did. `--index` also waits for the end of the first index and prints when it came. Prints
// each run and the medians. Needs `node esbuild.mjs` for the default server, dist/server.js.
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import VSCODE_DIAGNOSTICS from "./vscodeDiagnostics.json" with { type: "json" };
import { initializeOn, numberOption, serversOf, startServer } from "./serverProcess.mjs";

const args = process.argv.slice(2);
if (!args[0] || args[0].startsWith("--")) {
  console.error("usage: node bench/open.mjs <workspace folder> [--server dist/server.js …] [--rounds N] [--editors N] [--index]");
  process.exit(2);
}
const folder = path.resolve(args[0]);
const servers = serversOf(args);
const rounds = numberOption(args, "--rounds", 5);
const editors = numberOption(args, "--editors", 20);
const awaitIndex = args.includes("--index");

/** The skill files of the workspace, sorted, outside hidden and dependency folders. */
function skillFiles(root) {
  const found = [];
  const walk = (directory) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory() && entry.name !== "node_modules" && entry.name !== ".git") walk(full);
      else if (entry.isFile() && (entry.name === "SKILL.md" || entry.name.endsWith(".skill.md"))) found.push(full);
    }
  };
  walk(root);
  return found.sort();
}

const all = skillFiles(folder);
const step = Math.max(1, Math.floor(all.length / editors));
const opened = all.filter((_, i) => i % step === 0).slice(0, editors).map((file) => ({ uri: pathToFileURL(file).href, text: readFileSync(file, "utf8") }));
if (opened.length === 0) {
  console.error(`No skill file under ${folder}.`);
  process.exit(1);
}

async function openAtStart(server) {
  const { child, connection, spawnedAt } = startServer(server);
  let indexed;
  const indexing = new Promise((resolve) => (indexed = resolve));
  connection.onNotification("$/progress", (params) => params.value?.kind === "end" && indexed(performance.now() - spawnedAt));
  connection.listen();
  await initializeOn(connection, folder, {
    textDocument: { ...VSCODE_DIAGNOSTICS },
    workspace: { workspaceFolders: true, diagnostics: { refreshSupport: true } },
    window: { workDoneProgress: true },
  });
  for (const { uri, text } of opened) connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "markdown", version: 1, text } });
  const answered = [];
  await Promise.all(opened.map(({ uri }) => connection.sendRequest("textDocument/diagnostic", { textDocument: { uri } }).then(() => answered.push(performance.now() - spawnedAt))));
  answered.sort((a, b) => a - b);
  const run = { all: answered[answered.length - 1], half: answered[Math.ceil(answered.length / 2) - 1] };
  if (awaitIndex) run.indexed = await indexing;
  await connection.sendRequest("shutdown");
  connection.sendNotification("exit");
  await new Promise((resolve) => child.once("exit", resolve));
  connection.dispose();
  return run;
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const ms = (value) => `${Math.round(value)} ms`;
const describe = (run) => `all ${ms(run.all)}, the first half ${ms(run.half)}${run.indexed === undefined ? "" : `, indexed ${ms(run.indexed)}`}`;
const runs = servers.map(() => []);
console.log(`${folder}: ${opened.length} editors open at start, ${rounds} rounds`);
for (let round = 0; round < rounds; round++) {
  for (const [i, server] of servers.entries()) {
    const run = await openAtStart(server);
    runs[i].push(run);
    console.log(`${server}: ${describe(run)}`);
  }
}
console.log("medians:");
for (const [i, server] of servers.entries()) {
  const of = (key) => median(runs[i].map((run) => run[key]));
  console.log(`${server}: ${describe({ all: of("all"), half: of("half"), indexed: awaitIndex ? of("indexed") : undefined })}`);
}
