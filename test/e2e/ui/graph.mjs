// The Skill Graph panel in the real VS Code workbench, driven with Playwright on a copy of examples/:
//   node test/e2e/run.mjs --ui test/e2e/ui/graph.mjs --extension . --workspace <copy of examples> --artifacts test-artifacts/ui-graph
// Opens the panel from the command palette, waits for ELK's layout, checks what the page says, focuses
// @search-info and checks the toolset it binds. Saves graph.png (the workbench), graph-panel.png (the panel
// alone), graph-focus.png and graph-wide.png (the panel with the window to itself) in the artifacts folder,
// and graph.png in test-artifacts/ too.
import { copyFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { expect, pickQuickItem, runCommand, webviewContent } from "./workbench.mjs";

const REPO = path.resolve(import.meta.dirname, "../../..");

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
  expect(/17 nodes and 23 edges, laid out in .* by ELK \(layered, in a worker\)\./.test((await status.textContent()) ?? ""), `status: ${await status.textContent()}`);
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(artifactsDir, "graph.png") });
  await panelFrame(page).screenshot({ path: path.join(artifactsDir, "graph-panel.png") });

  // Focus a skill by its handle: the panel shows its expansion and the tools it binds.
  const search = panel.locator("#search");
  await search.fill("@search-info");
  await search.press("Enter");
  await status.filter({ hasText: /^Focused: 6 nodes/ }).waitFor({ timeout: 60_000 });
  const binds = (await panel.locator("#details .row").filter({ hasText: "Binds" }).locator(".handle").allTextContents()).join("");
  expect(binds === "check_notebook, list_devices, find_file, grep_memory", `binds: ${binds}`);
  await page.waitForTimeout(300);
  await panelFrame(page).screenshot({ path: path.join(artifactsDir, "graph-focus.png") });

  // The whole graph again, with the panel given the window: the picture for the documentation.
  await panel.locator("#all").click();
  await status.filter({ hasText: /laid out in/ }).waitFor({ timeout: 60_000 });
  await runCommand(page, "View: Single Column Editor Layout");
  // The title bar's layout control; a workbench without it keeps its side bar, which only makes the picture narrower.
  await page.locator('[aria-label^="Toggle Primary Side Bar"]').first().click({ timeout: 5_000 }).catch(() => undefined);
  await page.waitForTimeout(1000);
  await panelFrame(page).screenshot({ path: path.join(artifactsDir, "graph-wide.png") });

  const shared = path.join(REPO, "test-artifacts");
  mkdirSync(shared, { recursive: true });
  if (path.resolve(artifactsDir) !== shared) copyFileSync(path.join(artifactsDir, "graph.png"), path.join(shared, "graph.png"));
}

function panelFrame(page) {
  return page.locator("iframe.webview.ready").first();
}

