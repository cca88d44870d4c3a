/**
 * The graph panel's page in Chromium, as VS Code shows it: served on 127.0.0.1 with the panel's markup (from
 * client/src/graphPanel.ts), its script and style sheet written in as the extension writes them (VS Code's theme
 * variables with them, as VS Code sets them on the page itself) and its content security policy. `timePanelPages`
 * opens fresh pages made with the graph in them, as the extension makes its page once the server has answered
 * (the graph in a JSON block the page parses), and reads the page's own clock: from the page's first byte to the
 * first frame with the graph on screen, phase by phase. Used by bench/graph.ts and
 * test/e2e/ui/graph-layout-bench.mjs. Run `node esbuild.mjs` first (the page's bundle).
 */
import { createServer } from "node:http";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import { ensureVsCodeServer, launchChromium, REPO_ROOT } from "../scripts/vscode-server.mjs";
// Under tsx (bench/graph.ts, test/e2e/ui/graph-layout-bench.mjs): the page's parts as the extension writes them.
import { inPageText, jsonBlock } from "../shared/pageData.ts";

const MEDIA = path.join(REPO_ROOT, "media", "graph");
const TYPES = { ".js": "text/javascript", ".css": "text/css" };

/** A script or style sheet written into the page as the extension writes it (pagePart in client/src/webview.ts). */
function inPage(name) {
  return inPageText(readFileSync(path.join(MEDIA, name), "utf8"));
}

/** The page; with a graph (and a kept layout), that graph in its JSON block, as the extension makes it when it has one. */
function pageHtml(graphJson, keptJson = "null") {
  const csp = "default-src 'none'; style-src 'nonce-bench'; script-src 'nonce-bench';";
  const panel = readFileSync(path.join(REPO_ROOT, "client", "src", "graphPanel.ts"), "utf8");
  // The panel's own markup, so this page is the one VS Code shows, with its script and style sheet written in.
  const body = panel.slice(panel.indexOf("<header>"), panel.indexOf("${data}<script nonce"));
  const data = graphJson === undefined ? "" : `${jsonBlock("graph-data", { kind: "graph", graph: JSON.parse(graphJson), kept: JSON.parse(keptJson) ?? undefined })}\n`;
  return `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="${csp}">
<style nonce="bench">${THEME}
${inPage("graph.css")}</style></head>
<body class="vscode-dark">${body}${data}<script nonce="bench">${inPage("graph.js")}</script></body></html>`;
}

/** VS Code's Dark Modern colours for the variables the page reads. */
const THEME = `:root { --vscode-font-family: system-ui, "Segoe UI", Ubuntu, sans-serif; --vscode-font-size: 13px; --vscode-foreground: #cccccc; --vscode-editor-foreground: #cccccc;
  --vscode-editor-background: #1f1f1f; --vscode-descriptionForeground: #9d9d9d; --vscode-focusBorder: #0078d4; --vscode-panel-border: #2b2b2b;
  --vscode-input-background: #313131; --vscode-input-foreground: #cccccc; --vscode-input-border: #3c3c3c; --vscode-button-secondaryBackground: #313131;
  --vscode-button-secondaryForeground: #cccccc; --vscode-sideBar-background: #181818; --vscode-editorHoverWidget-background: #202020; }`;

/** Serves the panel's page; resolves with its address and a close function. */
export async function servePanelPage() {
  const bundle = path.join(MEDIA, "graph.js");
  const sources = path.join(MEDIA, "src");
  const newest = Math.max(...readdirSync(sources).map((name) => statSync(path.join(sources, name)).mtimeMs));
  if (!existsSync(bundle) || statSync(bundle).mtimeMs < newest) throw new Error("media/graph/graph.js is missing or older than media/graph/src: build it first with `node esbuild.mjs`.");
  // Pages made for one graph each (withGraph), served once.
  const pages = new Map();
  let made = 0;
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/") {
      const page = pages.get(url.searchParams.get("graph"));
      pages.delete(url.searchParams.get("graph"));
      return response.writeHead(200, { "content-type": "text/html" }).end(pageHtml(page?.graphJson, page?.keptJson));
    }
    try {
      const file = path.join(MEDIA, path.basename(url.pathname));
      response.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  const url = `http://127.0.0.1:${port}/`;
  return {
    url,
    /** The address of a page made with this graph in it (and the layout kept for it, as JSON). */
    withGraph: (graphJson, keptJson = "null") => {
      const id = String(made++);
      pages.set(id, { graphJson, keptJson });
      return `${url}?graph=${id}`;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * The page in a fresh browser context, made with the graph in it (and the layout the extension kept from the page
 * before, when there was one: a panel opened again), as the extension makes it once the server has answered; the
 * extension's side of the messages is played by an init script.
 */
export async function openPanelPage(browser, served, graphJson, { width, height }, keptJson = "null") {
  const context = await browser.newContext({ viewport: { width, height } });
  const tab = await context.newPage();
  tab.on("pageerror", (error) => console.error(`[page] ${error.message}`));
  await tab.addInitScript(() => {
    globalThis.reports = [];
    globalThis.acquireVsCodeApi = () => ({ postMessage: (message) => globalThis.reports.push(message), getState: () => undefined, setState: () => {} });
  });
  await tab.goto(served.withGraph(graphJson, keptJson));
  return { tab, close: () => context.close() };
}

/** Waits for the first painted graph; returns the page's phases (ms since the page began loading) and its report. */
export async function firstPaint(tab, timeoutMs = 10 * 60_000) {
  await tab.waitForFunction(() => document.getElementById("canvas")?.dataset.phases !== undefined || globalThis.reports.some((r) => r.kind === "error"), undefined, { timeout: timeoutMs, polling: 50 });
  return tab.evaluate(() => {
    const kept = globalThis.reports.find((r) => r.kind === "layout")?.kept;
    return { phases: JSON.parse(document.getElementById("canvas")?.dataset.phases ?? "null"), report: globalThis.reports.find((r) => r.kind === "rendered" || r.kind === "error"), layout: kept ? JSON.stringify(kept) : undefined };
  });
}

/**
 * Opens the page `rounds` times for each graph and panel, each time fresh; resolves with every round's phases.
 * @param {{ label: string, nodes: number, json: string }[]} graphs
 * @param {{ name: string, width: number, height: number }[]} panels
 */
export async function timePanelPages(graphs, panels, rounds, log = () => undefined) {
  const served = await servePanelPage();
  const install = await ensureVsCodeServer();
  const browser = await launchChromium(install);
  const results = [];
  try {
    for (const graph of graphs) {
      for (const panel of panels) {
        log(`graph: the panel's page, ${graph.label}, ${panel.name}…`);
        // Opened for the first time (no kept layout), then opened again with the layout the extension kept.
        const runs = [];
        const reopened = [];
        let kept = "null";
        for (let round = 0; round < 2 * rounds; round++) {
          const again = round >= rounds;
          const { tab, close } = await openPanelPage(browser, served, graph.json, panel, again ? kept : "null");
          try {
            const { phases, report, layout } = await firstPaint(tab);
            if (!phases) throw new Error(`the page did not draw ${graph.label}: ${report?.message ?? "no report"}`);
            (again ? reopened : runs).push({ ...phases, layoutMs: report?.milliseconds, direction: report?.direction, captionPixels: report?.captionPixels });
            if (!again && layout) kept = layout;
          } finally {
            await close();
          }
        }
        results.push({ label: graph.label, nodes: graph.nodes, panel: panel.name, width: panel.width, height: panel.height, runs, reopened });
      }
    }
  } finally {
    await browser.close();
    await served.close();
  }
  return results;
}
