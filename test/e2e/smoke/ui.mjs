// UI self-test of the e2e infrastructure: drives the real workbench with Playwright.
//   node test/e2e/run.mjs --ui test/e2e/smoke/ui.mjs --extension test/e2e/smoke --workspace test/e2e/smoke/workspace
// It types into a.md without saving; screenshots land in the artifacts folder.
import path from "node:path";
import { pickQuickItem, runCommand } from "../ui/workbench.mjs";

/**
 * @param {import('playwright-core').Page} page
 * @param {{ artifactsDir: string, workspace: string }} context
 */
export async function run(page, { artifactsDir }) {
  await runCommand(page, "Output: Show Output Channels...");
  await pickQuickItem(page, "E2E Smoke");
  const output = page.locator(".output-view .view-lines");
  await output.getByText("e2e smoke extension activated").waitFor({ timeout: 20_000 });
  await page.screenshot({ path: path.join(artifactsDir, "output-channel.png") });

  await page.keyboard.press("Control+P");
  await pickQuickItem(page, "a.md");
  const editor = page.locator(".editor-instance .monaco-editor").first();
  await editor.waitFor();
  await editor.click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\ntyped by playwright");
  await editor.locator(".view-lines").getByText("typed by playwright").waitFor({ timeout: 10_000 });
  await page.screenshot({ path: path.join(artifactsDir, "editor.png") });
}

