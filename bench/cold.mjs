// `node bench/cold.mjs <skills folder> [--server A.js --server B.js …] [--rounds N]`: the cold start of one or
// more builds of the server on one workspace, in alternating rounds so that a load that drifts treats each
// alike. Each round spawns the server over stdio (with the flags the extension gives it), sends
// `initialize` and `initialized`, waits for the end of indexing, asks `workspace/diagnostic` for every file and
// reads the process's figures: the main thread's CPU time and the whole process's (/proc), resident memory.
// Prints each run and the medians. `--profile DIR` runs each server with --cpu-prof into DIR (one file a thread).
// `--compare` then also opens one skill, types `@` at its end and asks for completion every 20 ms, as the bench
// does (`--pace MS`; 0: again as soon as answered), until the server logs that the menu's summaries are
// compared and the workspace report asked again with the result ids held brings their warnings: the
// completions' p95, p99 and longest, their median once the comparison had ended (while its warnings went out),
// when it ended and when its warnings were in (the bench's "completion p95 while they are compared", alone);
// `--each` prints every one as `ms after spawn:ms waited`, to set beside a profile. `--split` has the server stamp
// each completion's arrival and answer (bench/stamps.cjs, preloaded) and splits the waits over 2 ms into the
// way there, the server and the way back (with `--each`, every wait as `waited=there+server+back`), and counts
// those that overlapped a pause of the server's collector (the pauses stamped too). Needs
// `node esbuild.mjs` for the default server, dist/server.js.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { initializeOn, numberOption, serversOf, startServer } from "./serverProcess.mjs";
import VSCODE_DIAGNOSTICS from "./vscodeDiagnostics.json" with { type: "json" };

const args = process.argv.slice(2);
const folder = path.resolve(args[0] ?? "");
const servers = serversOf(args);
const rounds = numberOption(args, "--rounds", 3);
const profileAt = args.indexOf("--profile");
const profile = profileAt === -1 ? [] : ["--cpu-prof", `--cpu-prof-dir=${path.resolve(args[profileAt + 1] ?? "prof")}`];
const compare = args.includes("--compare");
const paceAt = args.indexOf("--pace");
const pace = paceAt === -1 ? 20 : Number(args[paceAt + 1]) || 0;
const each = args.includes("--each");
const split = args.includes("--split");
if (!args[0] || args[0].startsWith("--")) {
  console.error("usage: node bench/cold.mjs <skills folder> [--server dist/server.js …] [--rounds N] [--profile DIR] [--compare [--pace MS] [--each] [--split]]");
  process.exit(2);
}

/** user + system CPU of a /proc stat file, in ms (clock ticks of 10 ms). */
function cpuOf(file) {
  const fields = readFileSync(file, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function coldStart(server) {
  // With --split the server stamps each completion's arrival and answer (bench/stamps.cjs) into this file.
  const stampsFile = split ? path.join(tmpdir(), `skill-lsp-stamps-${process.pid}-${Date.now()}.txt`) : undefined;
  if (stampsFile) process.env.SKILL_LSP_STAMPS = stampsFile;
  const { child, connection, spawnedAt: started } = startServer(server, stampsFile ? [...profile, "--require", path.join(import.meta.dirname, "stamps.cjs")] : profile);
  // The server has its copy of the environment; nothing else this script starts gets the variable.
  delete process.env.SKILL_LSP_STAMPS;
  let indexed;
  const indexing = new Promise((resolve) => (indexed = resolve));
  connection.onNotification("$/progress", (params) => params.value?.kind === "end" && indexed());
  connection.onNotification("skill/status", (status) => status.indexing === false && indexed());
  let compared;
  const comparing = new Promise((resolve) => (compared = resolve));
  connection.onNotification("window/logMessage", (params) => /^Compared the menu's summaries/.test(params.message ?? "") && compared(performance.now()));
  connection.listen();
  await initializeOn(connection, folder, {
    // Diagnostics and completion as the bench (and VS Code) declares them: related locations, tags and data; a
    // completion list may share its edit range and data among its items.
    textDocument: {
      ...VSCODE_DIAGNOSTICS,
      completion: { completionItem: { snippetSupport: true, labelDetailsSupport: true }, completionList: { itemDefaults: ["commitCharacters", "editRange", "insertTextFormat", "insertTextMode", "data"] } },
    },
    workspace: { workspaceFolders: true, diagnostics: { refreshSupport: true } },
    window: { workDoneProgress: true },
  });
  await indexing;
  const indexedAt = performance.now() - started;
  const report = await connection.sendRequest("workspace/diagnostic", { previousResultIds: [] });
  const whole = performance.now() - started;
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
  const run = {
    whole,
    indexed: indexedAt,
    files: report.items.length,
    mainCpu: cpuOf(`/proc/${child.pid}/task/${child.pid}/stat`),
    processCpu: cpuOf(`/proc/${child.pid}/stat`),
    rss: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024,
    peak: Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]) / 1024,
  };
  if (compare) {
    const resultIds = report.items.flatMap((item) => (item.resultId === undefined ? [] : [{ uri: item.uri, value: item.resultId }]));
    Object.assign(run, await completionWhileCompared(connection, comparing, started, resultIds));
    run.peakCompared = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1]) / 1024;
  }
  await connection.sendRequest("shutdown");
  connection.sendNotification("exit");
  await new Promise((resolve) => child.once("exit", resolve));
  connection.dispose();
  if (stampsFile) {
    // Without --compare no completion is asked: the file is removed all the same.
    if (run.asked) run.split = splitWaits(run.asked, readFileSync(stampsFile, "utf8"), started);
    rmSync(stampsFile, { force: true });
  }
  return run;
}

/**
 * Completion after a fresh `@` in one skill, asked again and again until the comparison's warnings are in: its
 * p95, when the comparison ended and when the report that brings its warnings came.
 */
async function completionWhileCompared(connection, comparing, started, resultIds) {
  const file = readdirSync(folder).filter((name) => name.endsWith(".skill.md")).sort()[0];
  const uri = pathToFileURL(path.join(folder, file)).href;
  const text = `${readFileSync(path.join(folder, file), "utf8")}\nAsk @`;
  const lines = text.split("\n");
  connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "skill", version: 1, text } });
  const position = { line: lines.length - 1, character: lines[lines.length - 1].length };
  let done = false;
  const delivered = comparing.then(async () => {
    // In parts as VS Code asks it (the parts come as $/progress, unread here).
    await connection.sendRequest("workspace/diagnostic", { previousResultIds: resultIds, partialResultToken: "warnings" });
    done = true;
    return performance.now();
  });
  const times = [];
  // Each completion as [asked, waited], in ms after spawn, for --split.
  const asked = [];
  // The waits of the completions asked once the comparison had ended, while its warnings went out.
  const whileDelivered = [];
  let comparedAt = Infinity;
  comparing.then((at) => (comparedAt = at));
  // A server that never logs the end is not waited for past two minutes.
  const deadline = performance.now() + 120_000;
  while (!done && performance.now() < deadline) {
    const askedAt = performance.now();
    await connection.sendRequest("textDocument/completion", { textDocument: { uri }, position, context: { triggerKind: 2, triggerCharacter: "@" } });
    // Asked before the end, so counted even when answered after it: the comparison's last step is among the waits.
    times.push(performance.now() - askedAt);
    asked.push([askedAt - started, performance.now() - askedAt]);
    if (askedAt >= comparedAt) whileDelivered.push(performance.now() - askedAt);
    if (each && !split) process.stdout.write(`${(askedAt - started).toFixed(0)}:${(performance.now() - askedAt).toFixed(1)} `);
    if (pace > 0) await new Promise((resolve) => setTimeout(resolve, pace));
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? NaN;
  return {
    compared: done ? (await comparing) - started : NaN,
    delivered: done ? (await delivered) - started : NaN,
    completions: times.length, completionP95: at(0.95), completionP99: at(0.99), completionMax: at(1),
    deliveredMedian: whileDelivered.length > 0 ? median(whileDelivered) : NaN, asked };
}

/**
 * The waits of the completions over 2 ms, each split in three by the server's stamps: the way there (from the
 * ask to the request's arrival on the server's stdin), the server (to its answer's write) and the way back.
 * The completions are asked one at a time, so the n-th stamped is the n-th asked. With --each, every one is
 * printed as `ms after spawn:waited=there+server+back`.
 */
function splitWaits(asked, stamps, started) {
  const lines = stamps.split("\n").filter(Boolean).map((line) => line.split(" "));
  const arrived = lines.filter(([kind]) => kind === "in").map(([, , at]) => Number(at) - performance.timeOrigin - started);
  const answered = lines.filter(([kind]) => kind === "out").map(([, , at]) => Number(at) - performance.timeOrigin - started);
  // The open editor's own completions, if any, came first.
  const skip = arrived.length - asked.length;
  // The collector's pauses on the server's main thread, each as [from, to] in ms after spawn, with its kind.
  const pauses = lines.filter(([kind]) => kind === "gc").map(([, at, duration, kind]) => ({ from: Number(at) - performance.timeOrigin - started, to: Number(at) + Number(duration) - performance.timeOrigin - started, kind }));
  const most = { there: 0, server: 0, back: 0 };
  let slow = 0;
  let slowInPause = 0;
  asked.forEach(([at, waited], i) => {
    const there = (arrived[i + skip] ?? NaN) - at;
    const server = (answered[i + skip] ?? NaN) - (arrived[i + skip] ?? NaN);
    const back = at + waited - (answered[i + skip] ?? NaN);
    if (each) process.stdout.write(`${at.toFixed(0)}:${waited.toFixed(1)}=${there.toFixed(1)}+${server.toFixed(1)}+${back.toFixed(1)} `);
    if (waited <= 2) return;
    slow++;
    most[there >= server && there >= back ? "there" : server >= back ? "server" : "back"]++;
    if (pauses.some((pause) => pause.from < at + waited && pause.to > at)) slowInPause++;
  });
  // While completion was asked: how much of the server's main thread its collector held.
  const first = asked[0]?.[0] ?? 0;
  const last = asked.length > 0 ? (asked.at(-1)?.[0] ?? 0) + (asked.at(-1)?.[1] ?? 0) : 0;
  const meanwhile = pauses.filter((pause) => pause.to > first && pause.from < last);
  const held = (kind) => meanwhile.filter((pause) => pause.kind === kind);
  const total = (list) => list.reduce((sum, pause) => sum + (pause.to - pause.from), 0).toFixed(0);
  return (
    `${slow} waited over 2 ms; the most of it the way there in ${most.there}, the server in ${most.server}, the way back in ${most.back}; ` +
    `${slowInPause} of them overlapped a pause of the server's collector, which meanwhile paused its main thread ${held("1").length} times to scavenge (${total(held("1"))} ms) ` +
    `and ${meanwhile.length - held("1").length} times otherwise (${total(meanwhile.filter((pause) => pause.kind !== "1"))} ms) in ${(last - first).toFixed(0)} ms`
  );
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const row = (run) =>
  `whole ${run.whole.toFixed(0)} ms, indexed ${run.indexed.toFixed(0)} ms, main thread CPU ${run.mainCpu} ms, process CPU ${run.processCpu} ms, RSS ${run.rss.toFixed(0)} MB (peak ${run.peak.toFixed(0)} MB)` +
  (run.compared === undefined ? "" : `; compared ${run.compared.toFixed(0)} ms after spawn, its warnings in at ${run.delivered.toFixed(0)} ms (peak then ${run.peakCompared.toFixed(0)} MB), completion p95 meanwhile ${run.completionP95.toFixed(2)} ms${run.completions === undefined ? "" : ` (${run.completions} asked; p99 ${run.completionP99.toFixed(2)} ms, longest ${run.completionMax.toFixed(2)} ms)`}; median ${run.deliveredMedian.toFixed(2)} ms while the warnings went out`);
const runs = new Map(servers.map((server) => [server, []]));
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(`${folder}, ${rounds} rounds; load average before ${load()}`);
for (let round = 0; round < rounds; round++) {
  // The order swapped every round.
  for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
    const run = await coldStart(server);
    runs.get(server).push(run);
    console.log(`${server}: ${run.files} files; ${row(run)}${run.split ? `; of the completions, ${run.split}` : ""}`);
  }
}
console.log(`load average after ${load()}; medians:`);
for (const [server, list] of runs) {
  const pick = (key) => median(list.map((run) => run[key]));
  const compared = compare ? { compared: pick("compared"), delivered: pick("delivered"), peakCompared: pick("peakCompared"), completionP95: pick("completionP95"), deliveredMedian: pick("deliveredMedian") } : {};
  console.log(`${server}: ${row({ whole: pick("whole"), indexed: pick("indexed"), mainCpu: pick("mainCpu"), processCpu: pick("processCpu"), rss: pick("rss"), peak: pick("peak"), ...compared })}`);
}
