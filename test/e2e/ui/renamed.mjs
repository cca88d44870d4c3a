// UI test in the real workbench: a skill file renamed on disk (as `git mv` does, not through the editor) leaves
// `@check-schedule` dangling; the quick fix and the workspace source action are shown and the latter applied.
// Screenshots: renamed-quickfix.png, renamed-source-action.png.
//   node test/e2e/run.mjs --ui test/e2e/ui/renamed.mjs --extension . --workspace <copy of examples>
import { renameSync } from "node:fs";
import path from "node:path";
import { expect, runCommand } from "./workbench.mjs";

/**
 * @param {import('playwright-core').Page} page
 * @param {{ artifactsDir: string, workspace: string }} context
 */
export async function run(page, { artifactsDir, workspace }) {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor();
  await input.pressSequentially("meeting-prep.skill.md");
  await page.locator(".quick-input-list .monaco-list-row").filter({ hasText: "meeting-prep.skill.md" }).first().waitFor();
  await page.keyboard.press("Enter");
  const editor = page.locator(".editor-instance .monaco-editor").first();
  await editor.waitFor();
  // The server is up once the mentions take their colours.
  await editor.locator(".view-lines span span", { hasText: "@check-schedule" }).first().waitFor({ timeout: 60_000 });
  await page.waitForTimeout(1500);

  const skills = path.join(workspace, "skills/builtin");
  renameSync(path.join(skills, "check-schedule.skill.md"), path.join(skills, "calendar-check.skill.md"));
  await page.locator(".squiggly-error").first().waitFor({ timeout: 30_000 });

  // The cursor on the dangling mention: find it, and Escape leaves it selected.
  await editor.click();
  await page.keyboard.press("Control+F");
  await page.keyboard.type("@check-schedule");
  await page.keyboard.press("Escape");

  // The squiggle can come from the delete before the server has seen the file appear under its new name, and
  // the quick-fix menu is made once when opened: open it again until the fix is offered (at most 30 s).
  const actions = page.locator(".action-widget");
  const fix = actions.getByText("Change to @calendar-check (the skill was renamed from @check-schedule)").first();
  for (const deadline = Date.now() + 30_000; ; ) {
    await page.keyboard.press("Control+.");
    if (await fix.waitFor({ timeout: 3_000 }).then(() => true, () => false)) break;
    if (Date.now() > deadline) await fix.waitFor({ timeout: 1 });
    await page.keyboard.press("Escape");
  }
  await page.screenshot({ path: path.join(artifactsDir, "renamed-quickfix.png") });
  await page.keyboard.press("Escape");

  // The source-action menu is made once too: ask again until it offers the update (at most 30 s), and say what
  // the last menu held when it never does.
  const update = actions.getByText("was renamed to", { exact: false }).first();
  for (const deadline = Date.now() + 30_000; ; ) {
    await runCommand(page, "Source Action...");
    if (await update.waitFor({ timeout: 5_000 }).then(() => true, () => false)) break;
    // A menu, or the editor's "No source actions available" message.
    const shown = [...(await actions.locator(".monaco-list-row").allTextContents()), ...(await page.locator(".monaco-editor-overlaymessage").allTextContents())].join(" | ") || "nothing";
    expect(Date.now() < deadline, `the Source Action menu never offered the update; the last one showed: ${shown}`);
    await page.keyboard.press("Escape");
  }
  const title = (await update.textContent()) ?? "";
  expect(/^@check-schedule was renamed to @calendar-check: update 3 mentions in 3 files$/.test(title.trim()), `the source action reads ${JSON.stringify(title)}`);
  await page.screenshot({ path: path.join(artifactsDir, "renamed-source-action.png") });
  await page.keyboard.press("Enter");

  await editor.locator(".view-lines span span", { hasText: "@calendar-check" }).first().waitFor({ timeout: 20_000 });
  const lines = (await editor.locator(".view-lines").textContent()) ?? "";
  expect(!lines.includes("@check-schedule"), "a mention of @check-schedule is left after the update");
}
