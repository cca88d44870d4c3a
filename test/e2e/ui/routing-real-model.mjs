// The Testing view runs the routing tests on the configured real model (SmolLM2-135M-Instruct from
// `npm run models`): every case of examples/ runs, and the view shows passes and failures. Screenshot:
// routing-testing-view.png in the artifacts folder.
//   node test/e2e/run.mjs --ui test/e2e/ui/routing-real-model.mjs --extension . --workspace <copy of examples with
//     .vscode/settings.json setting skill.model.path to the cached SmolLM2 file>
import path from "node:path";
import { expect, pickQuickItem, runCommand } from "./workbench.mjs";

/**
 * @param {import('playwright-core').Page} page
 * @param {{ artifactsDir: string, workspace: string }} context
 */
export async function run(page, { artifactsDir }) {
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.keyboard.press("Control+P");
  await pickQuickItem(page, "check-schedule.skill.md");
  await page.locator(".editor-instance .monaco-editor").first().waitFor();
  await runCommand(page, "Testing: Focus on Test Explorer View");
  const tree = page.locator(".test-explorer .monaco-list-row");
  await tree.filter({ hasText: "@check-schedule" }).first().waitFor({ timeout: 60_000 });
  await runCommand(page, "Test: Run All Tests");
  // 30 cases on a real model: the view's header shows "passed/total" when the run has finished.
  const finished = page.getByText(/^\d+\/30$/);
  await finished.first().waitFor({ timeout: 600_000 });
  const summary = await finished.first().innerText();
  expect(/^\d+\/30$/.test(summary.trim()), `unexpected summary: ${summary}`);
  await page.waitForTimeout(1000);
  await page.screenshot({ path: path.join(artifactsDir, "routing-testing-view.png") });
  console.log(`Testing view: ${summary}`);
}
