// UI test in the real workbench for a new user's first hour: Show Output shows the server's channel, a refused
// rename is an error at once, a mention being typed is not flagged, alike summaries get one warning each, a YAML
// mistake is explained, and the two hovers share one style. Screenshots go to the artifacts folder (docs/screenshots/ holds copies).
//   node test/e2e/run.mjs --ui test/e2e/ui/firsthour.mjs --extension . --workspace <copy of examples>
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, pickQuickItem, runCommand } from "./workbench.mjs";

/**
 * @param {import('playwright-core').Page} page
 * @param {{ artifactsDir: string, workspace: string }} context
 */
export async function run(page, { artifactsDir, workspace }) {
  const shot = (name) => page.screenshot({ path: path.join(artifactsDir, name) });
  await page.setViewportSize({ width: 1280, height: 800 });
  await openFile(page, "meeting-prep.skill.md");
  const editor = page.locator(".editor-instance .monaco-editor").first();
  await editor.waitFor();
  await page.locator(".statusbar-item", { hasText: "skills" }).first().waitFor({ timeout: 60_000 });

  // Show Output, even with another channel chosen before: the Skill Language Server channel.
  await runCommand(page, "Output: Show Output Channels");
  await pickQuickItem(page, "Tasks");
  await waitForChannel(page, "Tasks");
  for (let i = 0; i < 2; i++) {
    await runCommand(page, "Skill: Show Output");
    await waitForChannel(page, "Skill Language Server");
  }
  await shot("show-output.png");
  await page.keyboard.press("Control+J");

  // Typing an @mention: nothing is flagged while the cursor is in it; a space after an unknown one flags it.
  await editor.click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\nThen use @pla", { delay: 60 });
  await page.waitForTimeout(600);
  expect((await problemCount(page)) === 0, "a mention being typed was reported as unknown");
  await shot("typing-mention.png");
  await page.keyboard.press("Escape");
  await page.keyboard.type("nz then stop.", { delay: 30 });
  await waitForProblems(page, 1);

  // A refused rename: F2 on a skill mention, an invalid handle typed: an error toast at once.
  await page.keyboard.press("Escape");
  await gotoText(page, editor, "@check-schedule", 3);
  await runCommand(page, "Rename Symbol");
  // The rename box opens with the handle selected: typing replaces it.
  await page.locator(".rename-box").first().waitFor({ state: "visible", timeout: 15_000 });
  await page.waitForTimeout(300);
  await page.keyboard.type("Bad Name");
  await page.keyboard.press("Enter");
  // Shown as an error notification (a toast, or in the centre where this headless workbench keeps toasts).
  await page.waitForTimeout(1500);
  let notice = page.locator(".notifications-toasts .notification-list-item", { hasText: "not a valid handle" }).first();
  if ((await notice.count()) === 0) {
    await runCommand(page, "Notifications: Show Notifications");
    notice = page.locator(".notifications-center .notification-list-item", { hasText: "not a valid handle" }).first();
  }
  await notice.waitFor({ timeout: 15_000 });
  expect((await notice.locator(".codicon-error").count()) > 0, "the refused rename is not shown as an error");
  await shot("rename-refused.png");
  await page.keyboard.press("Escape");

  // F2 on a tool: refused where the cursor is.
  await gotoText(page, editor, "@search-info", 3);
  await page.keyboard.press("Escape");
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\nAnd @current-date.");
  await gotoText(page, editor, "@current-date", 3);
  await runCommand(page, "Rename Symbol");
  await page.locator(".monaco-editor-overlaymessage", { hasText: "is a tool" }).first().waitFor({ timeout: 15_000 });
  await shot("rename-tool-inline.png");
  await page.keyboard.press("Escape");

  // Hovers: a skill and a tool, one style.
  await hoverText(page, editor, "@check-schedule");
  const skillHover = await page.locator(".monaco-hover-content").first().innerText();
  await shot("hover-skill.png");
  await page.mouse.move(5, 5);
  await page.waitForTimeout(300);
  await hoverText(page, editor, "@current-date");
  const toolHover = await page.locator(".monaco-hover-content").first().innerText();
  await shot("hover-tool.png");
  expect(/· skill @check-schedule/.test(skillHover), `skill hover: ${skillHover}`);
  expect(/· tool @current-date/.test(toolHover), `tool hover: ${toolHover}`);
  expect((await page.locator(".monaco-hover-content h1").count()) === 0, "the tool hover has a big heading");
  await page.mouse.move(5, 5);

  // The Testing view's routing results: a failed example's badge stands alone on its line, with no inline
  // output text drawn under it (the run-all workspace configures the scripted test model).
  await runCommand(page, "Test: Run All Tests");
  await page.locator(".editor-instance .monaco-editor", { hasText: "!= @meeting-prep" }).first().waitFor({ timeout: 120_000 });
  await page.waitForTimeout(1000);
  const editorText = await editor.innerText();
  expect(!/FAILED\s+"Prepare me/.test(editorText), "routing output is drawn inline under the failure badge");
  await shot("testing-badges.png");

  // Two new skills on the menu whose summaries are alike to follow-up's: each of the three gets one warning naming
  // the others, and the Problems pane lists their summaries under it as related locations.
  const work = path.join(workspace, "skills/work");
  writeFileSync(path.join(work, "promise-keeper.skill.md"), "---\nsummary: Keep track of what the user promised to someone and remind them before it is due.\n---\nList the promises.\n");
  writeFileSync(path.join(work, "due-reminder.skill.md"), "---\nsummary: Remind the user of what they promised someone, before it is due.\n---\nCheck the notebook.\n");
  const config = path.join(workspace, "skills.json");
  writeFileSync(config, readFileSync(config, "utf8").replace('"@retry-search"]', '"@retry-search", "@promise-keeper", "@due-reminder"]'));
  await page.keyboard.press("Control+Shift+M");
  const markers = page.locator(".markers-panel");
  await markers.getByText("The summary of @follow-up is so like @promise-keeper's (similarity 1.00) and @due-reminder's (0.82)", { exact: false }).first().waitFor({ timeout: 60_000 });
  await markers.getByText("@due-reminder's summary (similarity 0.82)", { exact: false }).first().waitFor({ timeout: 15_000 });
  // The pane's rows past its bottom are not drawn: the status bar counts the warnings, the examples' only ones.
  const warnings = await page.locator(".statusbar-item[id='status.problems']").first().textContent();
  expect(/^\D*\d+\D+3\D*$/.test(warnings ?? ""), `the status bar counts "${warnings}", not one warning for each of the three skills`);
  await shot("menu-similar.png");
  await page.keyboard.press("Control+J");

  // A YAML mistake in the summary: the Problems pane says what is wrong and how to fix it.
  await gotoText(page, editor, "summary: ", 9);
  await page.keyboard.press("End");
  await page.keyboard.type(" Note: bring coffee");
  await page.keyboard.press("Control+Shift+M");
  await page.locator(".markers-panel").getByText("put the value in quotes", { exact: false }).first().waitFor({ timeout: 20_000 });
  await shot("yaml-error.png");

}

async function openFile(page, name) {
  await page.keyboard.press("Control+P");
  await pickQuickItem(page, name);
}

async function waitForChannel(page, name) {
  const deadline = Date.now() + 15_000;
  let shown;
  while (Date.now() < deadline) {
    shown = await page.locator(".panel select.monaco-select-box").first().evaluate((select) => select.options[select.selectedIndex]?.text).catch(() => undefined);
    if (shown === name) return;
    await page.waitForTimeout(200);
  }
  throw new Error(`the Output view shows ${shown}, not ${name}`);
}

async function problemCount(page) {
  const label = (await page.locator(".statusbar-item[id='status.problems']").first().textContent().catch(() => "")) ?? "";
  return (label.match(/\d+/g) ?? []).map(Number).reduce((a, b) => a + b, 0);
}

async function waitForProblems(page, atLeast) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if ((await problemCount(page)) >= atLeast) return;
    await page.waitForTimeout(200);
  }
  throw new Error(`the Problems count never reached ${atLeast}`);
}

/** Puts the cursor `shift` characters into the first occurrence of `text`, with Find. */
async function gotoText(page, editor, text, shift) {
  await editor.click();
  await page.keyboard.press("Control+F");
  await page.keyboard.press("Control+A");
  await page.keyboard.type(text);
  await page.keyboard.press("Enter");
  await page.keyboard.press("Escape");
  // The match is selected: collapse to its start, then move in.
  await page.keyboard.press("ArrowLeft");
  for (let i = 0; i < shift; i++) await page.keyboard.press("ArrowRight");
}

async function hoverText(page, editor, text) {
  const span = editor.locator(".view-lines span span", { hasText: text }).first();
  await span.hover();
  await page.locator(".monaco-hover-content").first().waitFor({ timeout: 15_000 });
  await page.waitForTimeout(300);
}
