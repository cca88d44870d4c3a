// UI test on the Agent Skills fixture: open CLAUDE.md, wait for the server's diagnostics, type `/` and save a
// screenshot of the skills offered with their descriptions (test-artifacts/agent-skills-completion.png).
//   node test/e2e/run.mjs --ui test/e2e/ui/agent-skills.mjs --extension . --workspace <copy of test/fixtures/agent-skills>
import path from "node:path";

/**
 * @param {import('playwright-core').Page} page
 * @param {{ artifactsDir: string }} context
 */
export async function run(page, { artifactsDir }) {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor();
  await input.pressSequentially("CLAUDE.md");
  await page.locator(".quick-input-list .monaco-list-row").filter({ hasText: "CLAUDE.md" }).first().waitFor();
  await page.keyboard.press("Enter");
  const editor = page.locator(".editor-instance .monaco-editor").first();
  await editor.waitFor();
  // The server is up once the near miss /pdff is counted in the status bar.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const label = (await page.locator(".statusbar-item[id='status.problems']").first().textContent().catch(() => "")) ?? "";
    if ((label.match(/\d+/g) ?? []).map(Number).reduce((a, b) => a + b, 0) > 0) break;
    if (Date.now() > deadline) throw new Error("no diagnostic from the server in CLAUDE.md");
    await page.waitForTimeout(250);
  }
  await editor.click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\nFor reports use /");
  await page.locator(".suggest-widget").getByText("/docx").first().waitFor({ timeout: 20_000 });
  // Open the details pane: the skill's description.
  await page.keyboard.press("Control+Space");
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(artifactsDir, "agent-skills-completion.png") });
  await page.keyboard.press("Escape");
}
