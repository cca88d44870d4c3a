// UI test in the real workbench: open a skill, wait for the server's first diagnostic, type `@`, and save
// screenshots of the completion list, the mention colours and the Problems pane (test-artifacts/).
//   node test/e2e/run.mjs --ui test/e2e/ui/editor.mjs --extension . --workspace <copy of examples>
import path from "node:path";

/**
 * @param {import('playwright-core').Page} page
 * @param {{ artifactsDir: string, workspace: string }} context
 */
export async function run(page, { artifactsDir }) {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openFile(page, "meeting-prep.skill.md");
  const editor = page.locator(".editor-instance .monaco-editor").first();
  await editor.waitFor();

  // Typing `@` before the server is up shows nothing: wait until it has answered with a diagnostic.
  await editor.click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\nAlso check @nowhere-yet, then @current-date.");
  await waitForProblems(page, 1);

  // Mentions are coloured by the server's semantic tokens: orange skills, blue tools, a red unknown one.
  await page.keyboard.press("Escape");
  const skillColour = await colourOf(editor, "@check-schedule");
  const toolColour = await colourOf(editor, "@current-date");
  await page.screenshot({ path: path.join(artifactsDir, "colours.png") });

  await page.keyboard.press("Escape");
  await page.keyboard.press("Control+End");
  await page.keyboard.press("Enter");
  await page.keyboard.type("Then @");
  const suggest = page.locator(".suggest-widget .monaco-list-row");
  await suggest.first().waitFor({ timeout: 20_000 });
  await page.locator(".suggest-widget").getByText("@search-info").first().waitFor({ timeout: 10_000 });
  await page.screenshot({ path: path.join(artifactsDir, "completion.png") });
  await page.keyboard.press("Escape");

  await page.keyboard.press("Control+Shift+M");
  await page.locator(".markers-panel").getByText("unknown", { exact: false }).first().waitFor({ timeout: 20_000 });
  await page.screenshot({ path: path.join(artifactsDir, "problems.png") });
  const problems = await page.locator(".markers-panel .monaco-list-row").allTextContents();
  if (problems.length !== 2 || !problems.some((row) => row.includes("@nowhere-yet — unknown"))) throw new Error(`Problems lists ${JSON.stringify(problems)}, not just the dangling mention`);

  if (skillColour !== "rgb(232, 145, 45)") throw new Error(`a skill mention is coloured ${skillColour}, not orange`);
  if (toolColour !== "rgb(55, 148, 255)") throw new Error(`a tool mention is coloured ${toolColour}, not blue`);
}

async function openFile(page, name) {
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor();
  await input.pressSequentially(name);
  await page.locator(".quick-input-list .monaco-list-row").filter({ hasText: name }).first().waitFor();
  await page.keyboard.press("Enter");
}

async function waitForProblems(page, atLeast) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const label = (await page.locator(".statusbar-item[id='status.problems']").first().textContent().catch(() => "")) ?? "";
    const counts = (label.match(/\d+/g) ?? []).map(Number);
    if (counts.reduce((a, b) => a + b, 0) >= atLeast) return;
    await page.waitForTimeout(250);
  }
  throw new Error("the Problems count never showed the dangling mention");
}

/** The colour of the rendered token that starts a mention (semantic tokens can take a moment to arrive). */
async function colourOf(editor, text) {
  const deadline = Date.now() + 20_000;
  let colour;
  while (Date.now() < deadline) {
    const span = editor.locator(".view-lines span span", { hasText: text }).first();
    if (await span.count()) {
      colour = await span.evaluate((node) => getComputedStyle(node).color);
      if (colour === "rgb(232, 145, 45)" || colour === "rgb(55, 148, 255)") return colour;
    }
    await editor.page().waitForTimeout(250);
  }
  throw new Error(`${text} never took a mention colour (last seen ${colour})`);
}
