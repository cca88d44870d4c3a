// What the Playwright UI tests do in the workbench: pick from the quick input, run a command, check a condition.

/** Types into the open quick input and picks the first row that holds `text`. */
export async function pickQuickItem(page, text) {
  const input = page.locator(".quick-input-widget input");
  await input.waitFor();
  await input.pressSequentially(text);
  await page.locator(".quick-input-list .monaco-list-row").filter({ hasText: text }).first().waitFor();
  await page.keyboard.press("Enter");
}

/** Runs a command by its title from the command palette. */
export async function runCommand(page, title) {
  await page.keyboard.press("F1");
  await pickQuickItem(page, title);
}

export function expect(condition, message) {
  if (!condition) throw new Error(message);
}

/** A webview panel's page: VS Code nests it in two frames (the webview host, then the active frame). */
export function webviewContent(page) {
  return page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
}
