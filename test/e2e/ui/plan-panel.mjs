// The Run Plan panel in the real workbench renders hostile text as text. The workspace's @search-info holds
// `<script>` and `<img onerror>` in its summary and steps, the request typed holds them, and the model (a
// scripted GGUF that always plans @search-info) writes them into its answer (and its reason, which a plan by likelihood does not show). Each payload, if
// it ever ran, would mark the panel's <body>; the test reads the panel's DOM and finds the payloads shown
// literally, no <img>, no script but the panel's own, and no mark.
//   node test/e2e/run.mjs --ui test/e2e/ui/plan-panel.mjs --extension . --workspace <prepared copy of examples>
import path from "node:path";
import { expect, pickQuickItem, runCommand, webviewContent } from "./workbench.mjs";

/** What the payloads would do if they ran: set `data-pwned` on the panel's body. */
export const PAYLOADS = {
  img: `<img src=x onerror="document.body.dataset.pwned='img'">`,
  script: `<script>document.body.dataset.pwned='script'</script>`,
};

/**
 * @param {import('playwright-core').Page} page
 * @param {{ artifactsDir: string, workspace: string }} context
 */
export async function run(page, { artifactsDir }) {
  await page.setViewportSize({ width: 1280, height: 800 });
  // Open the skill that holds the payloads: the server starts, and the user sees what the model will get.
  await page.keyboard.press("Control+P");
  await pickQuickItem(page, "search-info.skill.md");
  await page.locator(".editor-instance .monaco-editor").first().waitFor();
  await page.locator(".view-lines").getByText("onerror", { exact: false }).first().waitFor({ timeout: 30_000 });

  const request = `Find my PAN ${PAYLOADS.img} ${PAYLOADS.script}`;
  await runCommand(page, "Skill: Run Plan");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor();
  await input.fill(request);
  await page.keyboard.press("Enter");

  const panel = webviewContent(page);
  await panel.locator(".step .label").filter({ hasText: /^Done$/ }).waitFor({ timeout: 120_000 });
  await page.waitForTimeout(500);

  const log = (await panel.locator("#log").innerText()) ?? "";
  // The request and the answer (the scripted model answers with its JSON, where the attribute's quotes are
  // escaped): two places, each shown character for character. A plan by likelihood carries no reason.
  for (const [name, shownAs] of [["img", "<img src=x onerror="], ["script", PAYLOADS.script]]) {
    const shown = log.split(shownAs).length - 1;
    expect(shown >= 2, `the ${name} payload is shown ${shown} times as text, expected 2 or more:\n${log}`);
  }
  expect(log.startsWith(`Request${request}`), `the panel's log does not start with the request:\n${log}`);
  const images = await panel.locator("img").count();
  expect(images === 0, `${images} <img> element(s) in the panel`);
  // VS Code's webview host adds a script of its own beside the panel's: none may hold a payload.
  const scripts = await panel.locator("script").evaluateAll((elements) => elements.map((element) => element.outerHTML));
  expect(!scripts.some((script) => script.includes("pwned")), `a payload became a <script>:\n${scripts.join("\n")}`);
  const handlers = await panel.locator("[onerror]").count();
  expect(handlers === 0, `${handlers} element(s) with an onerror attribute in the panel`);
  const mark = await panel.locator("body").getAttribute("data-pwned");
  expect(mark === null, `a payload ran in the panel: data-pwned=${mark}`);
  await page.screenshot({ path: path.join(artifactsDir, "plan-panel.png") });
}

