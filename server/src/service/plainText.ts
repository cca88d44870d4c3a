/**
 * Markdown as plain text, for clients that show only plain text: emphasis, code spans, headings and links lose
 * their marks (the text inside a code span is kept as written), list items and paragraphs keep their lines.
 */
export function markdownToPlainText(markdown: string): string {
  return markdown
    .split("\n")
    .map((line) =>
      line
        .replace(/^#{1,6}\s+/, "")
        .split(/(`[^`]*`)/)
        .map((part) => (part.length >= 2 && part.startsWith("`") && part.endsWith("`") ? part.slice(1, -1) : plainSpan(part)))
        .join(""),
    )
    .join("\n");
}

function plainSpan(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\(([^)\s]*)\)/g, (_whole, label: string, target: string) => (target && target !== label ? `${label} (${target})` : label))
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, "$2")
    .replace(/(^|[^\w*])[*_](?=\S)([^*_]+?)(?<=\S)[*_](?=$|[^\w*])/g, "$1$2");
}
