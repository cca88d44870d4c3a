#!/usr/bin/env node
/**
 * The graph panel's page in Chromium, outside VS Code: it serves media/graph/ on 127.0.0.1 with the panel's
 * content security policy (bench/graph-page.mjs), hands the page a graph the way the extension does, and reads the page's own report
 * of its layout time. For the look of the page and for layout timings at scale, at a chosen page size.
 *
 *   node esbuild.mjs && node --import tsx test/e2e/ui/graph-layout-bench.mjs [examples | N…] [--out DIR] [--focus @handle] [--size 1400x860] [--zoomed]
 *
 * --zoomed also saves a picture zoomed in (at the centre) until the captions are 10 px on screen.
 *
 * N generates a namespace of N skills over the six built-in tools (test/fixtures/skillGraph.ts).
 */
import { mkdirSync } from "node:fs";
import * as path from "node:path";
import { buildGraph } from "../../../server/src/core/graph.ts";
import { Namespace } from "../../../server/src/core/namespace.ts";
import { loadExamples } from "../../unit/helpers.ts";
import { generatedNamespace } from "../../fixtures/skillGraph.ts";
import { ensureVsCodeServer, launchChromium, REPO_ROOT } from "../../../scripts/vscode-server.mjs";
import { servePanelPage } from "../../../bench/graph-page.mjs";

const args = process.argv.slice(2);
const outIndex = args.indexOf("--out");
const out = outIndex >= 0 ? path.resolve(args[outIndex + 1]) : path.join(REPO_ROOT, "test-artifacts", "graph-bench");
const focusIndex = args.indexOf("--focus");
const focus = focusIndex >= 0 ? args[focusIndex + 1] : undefined;
const sizeIndex = args.indexOf("--size");
const [pageWidth, pageHeight] = (sizeIndex >= 0 ? args[sizeIndex + 1] : "1400x860").split("x").map(Number);
const zoomed = args.includes("--zoomed");
const sizes = args.filter((arg, i) => !arg.startsWith("--") && !["--out", "--focus", "--size"].includes(args[i - 1]));
if (sizes.length === 0) sizes.push("examples");
mkdirSync(out, { recursive: true });

function graphFor(size) {
  if (size === "examples") {
    const namespace = new Namespace();
    for (const [uri, text] of Object.entries(loadExamples())) namespace.set(uri, text);
    return buildGraph(namespace);
  }
  return buildGraph(generatedNamespace(Number(size)));
}

const served = await servePanelPage();
const install = await ensureVsCodeServer();
const browser = await launchChromium(install);
try {
  for (const size of sizes) {
    const graph = { ...graphFor(size), signature: "bench" };
    const tab = await browser.newPage({ viewport: { width: pageWidth, height: pageHeight } });
    tab.on("pageerror", (error) => console.error(`[page] ${error.message}`));
    await tab.addInitScript(() => {
      globalThis.reports = [];
      globalThis.acquireVsCodeApi = () => ({ postMessage: (message) => globalThis.reports.push(message), getState: () => undefined, setState: () => {} });
    });
    await tab.goto(served.url);
    await tab.waitForFunction(() => globalThis.reports.some((report) => report.kind === "ready"));
    const started = Date.now();
    await tab.evaluate((data) => {
      // An in-page clock: from the message to the drawn layout, free of the harness's own costs.
      globalThis.sentAt = performance.now();
      new MutationObserver(() => {
        if (/laid out in/.test(document.getElementById("status")?.textContent ?? "")) globalThis.laidOutAt ??= performance.now();
      }).observe(document.getElementById("status"), { childList: true, characterData: true, subtree: true });
      window.postMessage({ kind: "graph", graph: data }, "*");
    }, graph);
    // The page answers input while the layout runs in slices: time a frame during the layout.
    const frame = await tab.evaluate(() => new Promise((resolve) => { const t = performance.now(); requestAnimationFrame(() => resolve(performance.now() - t)); }));
    await tab.waitForFunction(() => globalThis.reports.some((report) => report.kind === "rendered" || report.kind === "error"), undefined, { timeout: 30 * 60_000, polling: 100 });
    const report = await tab.evaluate(() => globalThis.reports.find((r) => r.kind === "rendered" || r.kind === "error"));
    const wall = Date.now() - started;
    const laidOutMs = await tab.evaluate(() => Math.round(globalThis.laidOutAt - globalThis.sentAt));
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
    // Back to the fitted view for the picture.
    await tab.keyboard.press("0");
    if (focus) {
      await tab.evaluate((handle) => window.postMessage({ kind: "focus", target: { handle } }, "*"), focus);
      await tab.waitForFunction(() => globalThis.reports.filter((r) => r.kind === "rendered").length >= 2);
    }
    await tab.waitForTimeout(300);
    const shot = path.join(out, `graph-${size}${focus ? `-${focus.replace(/^@/, "")}` : ""}-${pageWidth}x${pageHeight}.png`);
    await tab.screenshot({ path: shot });
    if (zoomed) {
      const box = await tab.locator("#canvas").boundingBox();
      for (let i = 0; i < 200 && Number(await tab.locator("#canvas").getAttribute("data-caption-px")) < 10; i++) {
        await tab.locator("#canvas").dispatchEvent("wheel", { deltaY: -120, clientX: box.x + box.width / 2, clientY: box.y + box.height / 2 });
        await tab.waitForTimeout(20);
      }
      await tab.waitForTimeout(400);
      await tab.screenshot({ path: shot.replace(/\.png$/, "-zoomed.png") });
    }
    const status = await tab.locator("#status").textContent();
    const { direction, layers, crossings, captionPixels, captions, milliseconds } = report;
    console.log(JSON.stringify({ size, page: `${pageWidth}x${pageHeight}`, nodes: graph.nodes.length, edges: graph.edges.length, layoutMs: milliseconds, pageLaidOutMs: laidOutMs, harnessWallMs: wall, direction, layers, crossings, captionPixels, captions, frameDuringLayoutMs: Math.round(frame), zoomFrameMs, fullFrameMs, status, screenshot: path.relative(REPO_ROOT, shot) }));
    await tab.close();
  }
} finally {
  await browser.close();
  await served.close();
}
