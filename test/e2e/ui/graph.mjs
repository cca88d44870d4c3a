// The Skill Graph panel in the real VS Code workbench, driven with Playwright on a copy of examples/:
//   node test/e2e/run.mjs --ui test/e2e/ui/graph.mjs --extension . --workspace <copy of examples> --artifacts test-artifacts/ui-graph
// Opens the panel from the command palette beside the editor (half the window), waits for the layout, checks
// what the page says and that its captions are legible, focuses @search-info and checks the card (the toolset
// it binds, the skill it goes through, never itself); then narrows the window (a narrow panel: rows, top to
// bottom) and gives the panel the whole window (columns), with captions legible at each width. Saves
// graph.png (the workbench), graph-panel.png, graph-focus.png, graph-narrow.png and graph-wide.png (the panel
// alone) in the artifacts folder, and graph.png in test-artifacts/ too.
import { copyFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { expect, pickQuickItem, runCommand, webviewContent } from "./workbench.mjs";

const REPO = path.resolve(import.meta.dirname, "../../..");
/** The page never fits a small graph below 10 px captions (layout.ts READABLE_SCALE). */
const LEGIBLE_PX = 10;

/**
 * @param {import('playwright-core').Page} page
 * @param {{ artifactsDir: string, workspace: string }} context
 */
export async function run(page, { artifactsDir }) {
  // The extension activates on the workspace's skill files; open one so its language server is up.
  await page.keyboard.press("Control+P");
  await pickQuickItem(page, "search-info.skill.md");
  await page.locator(".editor-instance .monaco-editor").first().waitFor();
  // The summary's code lens carries the price of its menu entry.
  await page.locator(".contentWidgets .codelens-decoration, .codelens-decoration").filter({ hasText: /menu entry: ~\d+ tokens/ }).first().waitFor({ timeout: 60_000 });

  await runCommand(page, "Skill: Show Skill Graph");
  const panel = webviewContent(page);
  const status = panel.locator("#status");
  await status.filter({ hasText: /laid out in/ }).waitFor({ timeout: 120_000 });
  const stats = (await panel.locator("#stats").textContent()) ?? "";
  expect(/^10 skills · 7 tools · 2 cycles · 0 unknown mentions · menu ~\d+ tokens$/.test(stats), `stats: ${stats}`);
  expect(/^17 nodes and 23 edges, laid out in \d+ ms \(layered: (rows, top to bottom|columns, left to right)\)\.( Drag or zoom out to see the rest\.)?$/.test((await status.textContent()) ?? ""), `status: ${await status.textContent()}`);
  const beside = await drawn(page, panel, "beside the editor");
  await page.screenshot({ path: path.join(artifactsDir, "graph.png") });
  await panelFrame(page).screenshot({ path: path.join(artifactsDir, "graph-panel.png") });

  // Focus a skill by its handle: the panel shows its expansion, the tools it binds and the skills it goes through.
  const search = panel.locator("#search");
  await search.fill("@search-info");
  await search.press("Enter");
  await status.filter({ hasText: /^Focused: 6 nodes/ }).waitFor({ timeout: 60_000 });
  const row = async (label) => (await panel.locator("#details .row").filter({ has: panel.locator(".label", { hasText: new RegExp(`^${label}$`) }) }).locator(".handle, .muted").allTextContents()).join("");
  expect((await row("Binds")) === "check_notebook, list_devices, find_file, grep_memory", `binds: ${await row("Binds")}`);
  expect((await row("Through")) === "@fetch-file", `through: ${await row("Through")}`);
  const card = (await panel.locator("#details").innerText()).replace(/^@search-info\n/, "");
  expect(!card.includes("@search-info"), `the card names the focused skill again: ${card}`);
  expect(!/Follows/.test(card), `card: ${card}`);
  await drawn(page, panel, "focused");
  await panelFrame(page).screenshot({ path: path.join(artifactsDir, "graph-focus.png") });
  await panel.locator("#all").click();
  await status.filter({ hasText: /laid out in/ }).waitFor({ timeout: 60_000 });

  // A narrow panel: the window narrowed, the panel a third of it beside the editor.
  await page.setViewportSize({ width: 900, height: 800 });
  const narrow = await relaidOut(page, panel, beside.width, "narrow");
  expect(narrow.width < 420, `the panel is narrow: ${narrow.width} px`);
  expect(narrow.direction === "DOWN", `a narrow panel reads top to bottom: ${narrow.direction}`);
  await panelFrame(page).screenshot({ path: path.join(artifactsDir, "graph-narrow.png") });

  // The whole graph with the panel given the window: the picture for the documentation.
  await page.setViewportSize({ width: 1280, height: 800 });
  await runCommand(page, "View: Single Column Editor Layout");
  // The title bar's layout control; a workbench without it keeps its side bar, which only makes the picture narrower.
  await page.locator('[aria-label^="Toggle Primary Side Bar"]').first().click({ timeout: 5_000 }).catch(() => undefined);
  const wide = await relaidOut(page, panel, narrow.width, "wide");
  expect(wide.width > 900, `the panel has the window: ${wide.width} px`);
  await panelFrame(page).screenshot({ path: path.join(artifactsDir, "graph-wide.png") });
  console.log(`graph panel: beside the editor ${beside.width} px ${beside.direction} captions ${beside.captionPx} px; narrow ${narrow.width} px ${narrow.direction} ${narrow.captionPx} px; wide ${wide.width} px ${wide.direction} ${wide.captionPx} px`);

  const shared = path.join(REPO, "test-artifacts");
  mkdirSync(shared, { recursive: true });
  if (path.resolve(artifactsDir) !== shared) copyFileSync(path.join(artifactsDir, "graph.png"), path.join(shared, "graph.png"));
}

/** What the canvas shows once it has settled: its width, the layout's direction and the captions' size on screen. */
async function drawn(page, panel, where) {
  await page.waitForTimeout(500);
  const canvas = panel.locator("#canvas");
  const state = {
    width: Math.round((await canvas.boundingBox())?.width ?? 0),
    direction: await canvas.getAttribute("data-direction"),
    captionPx: Number(await canvas.getAttribute("data-caption-px")),
    captions: (await canvas.getAttribute("data-captions")) === "true",
  };
  expect(state.captions, `${where}: the boxes carry their captions`);
  expect(state.captionPx >= LEGIBLE_PX, `${where}: captions of ${state.captionPx} px`);
  return state;
}

/** Waits for the panel to change width and be laid out again for its new shape. */
async function relaidOut(page, panel, previousWidth, where) {
  const canvas = panel.locator("#canvas");
  for (let waited = 0; waited < 20_000; waited += 250) {
    const width = Math.round((await canvas.boundingBox())?.width ?? 0);
    if (Math.abs(width - previousWidth) > 40) break;
    await page.waitForTimeout(250);
  }
  // The page lays out again once the resizing has rested for 200 ms.
  await page.waitForTimeout(1200);
  await panel.locator("#status").filter({ hasText: /laid out in/ }).waitFor({ timeout: 60_000 });
  return drawn(page, panel, where);
}

function panelFrame(page) {
  return page.locator("iframe.webview.ready").first();
}
