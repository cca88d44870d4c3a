#!/usr/bin/env node
/**
 * The graph panel's page in Chromium, outside VS Code: it serves media/graph/ on 127.0.0.1 with the panel's
 * content security policy, hands the page a graph the way the extension does, and reads the page's own report
 * of ELK's layout time (in its worker). For the look of the page and for layout timings at scale.
 *
 *   node esbuild.mjs && node --import tsx test/e2e/ui/graph-layout-bench.mjs [examples | N…] [--out DIR] [--focus @handle]
 *
 * N generates a namespace of N skills over the six built-in tools: 60% mention tools only, 30% mention those
 * skills, 10% mention the middle ones; about 1% close a cycle; 1% of mentions name nothing.
 */
import { createServer } from "node:http";
import { mkdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { buildGraph } from "../../../server/src/core/graph.ts";
import { Namespace } from "../../../server/src/core/namespace.ts";
import { loadExamples } from "../../unit/helpers.ts";
import { ensureVsCodeServer, launchChromium, REPO_ROOT } from "../../../scripts/vscode-server.mjs";

const args = process.argv.slice(2);
const outIndex = args.indexOf("--out");
const out = outIndex >= 0 ? path.resolve(args[outIndex + 1]) : path.join(REPO_ROOT, "test-artifacts", "graph-bench");
const focusIndex = args.indexOf("--focus");
const focus = focusIndex >= 0 ? args[focusIndex + 1] : undefined;
const sizes = args.filter((arg, i) => !arg.startsWith("--") && args[i - 1] !== "--out" && args[i - 1] !== "--focus");
if (sizes.length === 0) sizes.push("examples");
mkdirSync(out, { recursive: true });

function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A generated namespace of `count` skills (see the header). */
export function generatedNamespace(count, seed = 20261202) {
  const rand = random(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const tools = ["check-notebook", "find-file", "list-devices", "grep-memory", "current-date", "calendar"];
  const leaf = [];
  const middle = [];
  const namespace = new Namespace();
  for (let i = 0; i < count; i++) {
    const handle = `skill-${i.toString(36)}`;
    const kind = rand();
    const mentions = [];
    const many = 1 + Math.floor(rand() * 3);
    if (kind < 0.6 || leaf.length < 3) {
      for (let k = 0; k < many; k++) mentions.push(pick(tools));
      leaf.push(handle);
    } else if (kind < 0.9 || middle.length < 3) {
      for (let k = 0; k < many; k++) mentions.push(pick(leaf));
      if (rand() < 0.5) mentions.push(pick(tools));
      middle.push(handle);
    } else {
      for (let k = 0; k < many; k++) mentions.push(rand() < 0.6 ? pick(middle) : pick(leaf));
    }
    if (rand() < 0.01 && i > 0) mentions.push(`skill-${Math.floor(rand() * i).toString(36)}`);
    if (rand() < 0.01) mentions.push(`missing-${i.toString(36)}`);
    const advertised = kind >= 0.6 || rand() < 0.1;
    const text = `---\nsummary: Do thing ${i} for the user.\nadvertised: ${advertised}\n---\n${mentions.map((slug) => `Use @${slug}.`).join(" ")}\n`;
    namespace.setSkill(`file:///ws/${handle}.skill.md`, text);
  }
  return namespace;
}

function graphFor(size) {
  if (size === "examples") {
    const namespace = new Namespace();
    for (const [uri, text] of Object.entries(loadExamples())) namespace.set(uri, text);
    return buildGraph(namespace);
  }
  return buildGraph(generatedNamespace(Number(size)));
}

const media = path.join(REPO_ROOT, "media", "graph");
const TYPES = { ".js": "text/javascript", ".css": "text/css" };
function page() {
  const csp = "default-src 'none'; style-src 'self'; script-src 'nonce-bench'; connect-src 'self'; worker-src blob:;";
  const panel = readFileSync(path.join(REPO_ROOT, "client", "src", "graphPanel.ts"), "utf8");
  // The panel's own markup, from graphPanel.ts, so this page is the one VS Code shows.
  const body = panel.slice(panel.indexOf("<header>"), panel.indexOf("<script nonce"));
  return `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="${csp}">
<link rel="stylesheet" href="/graph.css"><link rel="stylesheet" href="/theme.css"></head>
<body class="vscode-dark" data-worker="/elk-worker.js" data-nonce="bench">${body}<script nonce="bench" src="/graph.js"></script></body></html>`;
}
/** VS Code's Dark Modern colours for the variables the page reads. */
const THEME = `:root { --vscode-font-family: system-ui, "Segoe UI", Ubuntu, sans-serif; --vscode-font-size: 13px; --vscode-foreground: #cccccc; --vscode-editor-foreground: #cccccc;
  --vscode-editor-background: #1f1f1f; --vscode-descriptionForeground: #9d9d9d; --vscode-focusBorder: #0078d4; --vscode-panel-border: #2b2b2b;
  --vscode-input-background: #313131; --vscode-input-foreground: #cccccc; --vscode-input-border: #3c3c3c; --vscode-button-secondaryBackground: #313131;
  --vscode-button-secondaryForeground: #cccccc; --vscode-sideBar-background: #181818; --vscode-editorHoverWidget-background: #202020; }`;

const server = createServer((request, response) => {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  if (url.pathname === "/") return response.writeHead(200, { "content-type": "text/html" }).end(page());
  if (url.pathname === "/theme.css") return response.writeHead(200, { "content-type": "text/css" }).end(THEME);
  const file = path.join(media, path.basename(url.pathname));
  try {
    response.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
  } catch {
    response.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const address = server.address();
const install = await ensureVsCodeServer();
const browser = await launchChromium(install);
try {
  for (const size of sizes) {
    const graph = { ...graphFor(size), signature: "bench" };
    const tab = await browser.newPage({ viewport: { width: 1400, height: 860 } });
    tab.on("pageerror", (error) => console.error(`[page] ${error.message}`));
    await tab.addInitScript(() => {
      globalThis.reports = [];
      globalThis.acquireVsCodeApi = () => ({ postMessage: (message) => globalThis.reports.push(message), getState: () => undefined, setState: () => {} });
    });
    await tab.goto(`http://127.0.0.1:${address.port}/`);
    await tab.waitForFunction(() => globalThis.reports.some((report) => report.kind === "ready"));
    const started = Date.now();
    await tab.evaluate((data) => {
      // In-page clocks: from the message to the first picture and to ELK's layout, free of the harness's own costs.
      globalThis.sentAt = performance.now();
      new MutationObserver(() => {
        const text = document.getElementById("status")?.textContent ?? "";
        if (/rough drawing|laid out in/.test(text)) globalThis.firstPictureAt ??= performance.now();
        if (/laid out in/.test(text)) globalThis.laidOutAt ??= performance.now();
      }).observe(document.getElementById("status"), { childList: true, characterData: true, subtree: true });
      window.postMessage({ kind: "graph", graph: data }, "*");
    }, graph);
    // The page answers input while ELK works in its worker: time a frame during the layout.
    const frame = await tab.evaluate(() => new Promise((resolve) => { const t = performance.now(); requestAnimationFrame(() => resolve(performance.now() - t)); }));
    // Above 200 nodes the page first shows a rough drawing: the time to that first picture.
    let firstPictureMs = null;
    if (graph.nodes.length > 200) {
      await tab.locator("#status").filter({ hasText: /rough drawing|laid out in/ }).waitFor({ timeout: 10 * 60_000 });
      firstPictureMs = Date.now() - started;
      await tab.waitForTimeout(200);
      await tab.screenshot({ path: path.join(out, `graph-${size}-rough.png`) });
    }
    await tab.waitForFunction(() => globalThis.reports.some((report) => report.kind === "rendered" || report.kind === "error"), undefined, { timeout: 30 * 60_000, polling: 500 });
    const report = await tab.evaluate(() => globalThis.reports.find((r) => r.kind === "rendered" || r.kind === "error"));
    const wall = Date.now() - started;
    const inPage = await tab.evaluate(() => ({ firstPicture: Math.round(globalThis.firstPictureAt - globalThis.sentAt), laidOut: Math.round(globalThis.laidOutAt - globalThis.sentAt) }));
    // The average time from a wheel event to the frame after it (two animation frames: at least 33 ms); then how
    // long the full frame took that follows once the wheel rests.
    const zoomFrameMs = await tab.evaluate(async () => {
      const canvas = document.getElementById("canvas");
      const times = [];
      for (let i = 0; i < 10; i++) {
        const started = performance.now();
        canvas.dispatchEvent(new WheelEvent("wheel", { deltaY: i % 2 ? 60 : -60, clientX: 500, clientY: 400, bubbles: true, cancelable: true }));
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
        times.push(performance.now() - started);
      }
      return Math.round(times.reduce((a, b) => a + b, 0) / times.length);
    });
    await tab.waitForTimeout(400);
    const fullFrameMs = Number(await tab.locator("#canvas").getAttribute("data-draw-ms"));
    if (focus) {
      await tab.evaluate((handle) => window.postMessage({ kind: "focus", handle }, "*"), focus);
      await tab.waitForFunction(() => globalThis.reports.filter((r) => r.kind === "rendered").length >= 2);
    }
    await tab.waitForTimeout(300);
    const shot = path.join(out, `graph-${size}${focus ? `-${focus.replace(/^@/, "")}` : ""}.png`);
    await tab.screenshot({ path: shot });
    const status = await tab.locator("#status").textContent();
    console.log(JSON.stringify({ size, nodes: graph.nodes.length, edges: graph.edges.length, cycles: graph.cycles.length, elkMs: report.milliseconds, pageFirstPictureMs: inPage.firstPicture, pageLaidOutMs: inPage.laidOut, harnessWallMs: wall, harnessFirstPictureMs: firstPictureMs, worker: report.worker, frameDuringLayoutMs: Math.round(frame), zoomFrameMs, fullFrameMs, status, screenshot: path.relative(REPO_ROOT, shot) }));
    await tab.close();
  }
} finally {
  await browser.close();
  server.close();
}
