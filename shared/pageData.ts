/**
 * A webview page's own script or style sheet, to be written into the page: `</` escaped so that it cannot end its
 * element early, and the source map's line dropped (its address would not resolve from the page).
 */
export function inPageText(text: string): string {
  return text.replace(/\n\/\/# sourceMappingURL=.*\s*$/, "\n").replaceAll("</", "<\\/");
}

/**
 * A value written into a webview's page as a JSON block (`<script type="application/json">`, which never runs),
 * for the page to read at once instead of waiting for a message. Every `<` is written `\u003c`, so no text in the
 * value (a summary holding `</script>` or `<!--`) can end the block or start anything else.
 */
export function jsonBlock(id: string, value: unknown): string {
  return `<script type="application/json" id="${id}">${JSON.stringify(value).replace(/</g, "\\u003c")}</script>`;
}
