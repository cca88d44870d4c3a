/**
 * A value written into a webview's page as a JSON block (`<script type="application/json">`, which never runs),
 * for the page to read at once instead of waiting for a message. Every `<` is written `\u003c`, so no text in the
 * value (a summary holding `</script>` or `<!--`) can end the block or start anything else.
 */
export function jsonBlock(id: string, value: unknown): string {
  return `<script type="application/json" id="${id}">${JSON.stringify(value).replace(/</g, "\\u003c")}</script>`;
}
