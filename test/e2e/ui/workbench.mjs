// What the Playwright UI tests do in the workbench: pick from the quick input, run a command, check a condition.

/** Types into the open quick input and picks the first row that holds `text`, once it shows (within `timeout` ms). */
export async function pickQuickItem(page, text, timeout = 30_000) {
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ timeout });
  await input.pressSequentially(text);
  await page.locator(".quick-input-list .monaco-list-row").filter({ hasText: text }).first().waitFor({ timeout });
  await page.keyboard.press("Enter");
}

/**
 * Runs a command by its title from the command palette. The palette can close as it opens under a view that
 * takes the focus (the Output panel just shown): its row then stays hidden, and the palette is opened again.
 */
export async function runCommand(page, title) {
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press("F1");
    try {
      await pickQuickItem(page, title, attempt < 3 ? 10_000 : 30_000);
      return;
    } catch (error) {
      if (attempt >= 3) throw error;
      await page.keyboard.press("Escape");
    }
  }
}

export function expect(condition, message) {
  if (!condition) throw new Error(message);
}

/** A webview panel's page: VS Code nests it in two frames (the webview host, then the active frame). */
export function webviewContent(page) {
  return page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
}
