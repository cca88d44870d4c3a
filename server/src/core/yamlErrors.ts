/**
 * The YAML library's errors in a skill author's words: what is wrong on the line and how to fix it, for the
 * mistakes people make in frontmatter. The range stays the library's; only the message changes.
 */

/** What the YAML library reports: its error code, its message, and the offsets in the frontmatter source. */
export interface YamlProblem {
  readonly code: string;
  readonly message: string;
  readonly pos: readonly [number, number];
}

/** A value as it would read in double quotes, when short enough to quote in a message. */
function quotedExample(key: string, value: string): string {
  const quoted = JSON.stringify(value.trim());
  return key !== "" && quoted.length <= 60 ? `: ${key}: ${quoted}` : "";
}

/** The line of the source holding an offset, split into its key (if any) and value. */
function lineAt(source: string, offset: number): { readonly text: string; readonly key: string; readonly value: string } {
  const start = source.lastIndexOf("\n", Math.max(0, offset - 1)) + 1;
  const end = source.indexOf("\n", start);
  const text = source.slice(start, end === -1 ? source.length : end).replace(/\r$/, "");
  const pair = /^\s*(?:-\s+)?([A-Za-z][\w-]*)\s*:(?:\s+(.*))?$/.exec(text);
  return { text, key: pair?.[1] ?? "", value: pair?.[2] ?? "" };
}

/**
 * The key whose value opens the unclosed `[` or `{` the library stumbled on: the library reports the line where
 * it noticed (often the next key), so the opener is searched from there back to the frontmatter's start.
 */
function openerKey(source: string, offset: number, opener: "[" | "{"): string | undefined {
  const lines = source.slice(0, source.indexOf("\n", offset) === -1 ? source.length : source.indexOf("\n", offset)).split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const pair = /^\s*(?:-\s+)?([A-Za-z][\w-]*)\s*:\s+(.*)$/.exec((lines[i] ?? "").replace(/\r$/, ""));
    if (pair?.[2]?.trimStart().startsWith(opener)) return pair[1];
  }
  return undefined;
}

const START_NAMES: Readonly<Record<string, string>> = {
  "@": "@ (YAML reserves it)",
  "`": "a backtick (YAML reserves it)",
  "%": "% (YAML reads it as a directive)",
  "*": "* (YAML reads it as a reference to an anchor)",
  "&": "& (YAML reads it as an anchor)",
  "!": "! (YAML reads it as a type tag)",
  "[": "[ (YAML reads it as a list)",
  "{": "{ (YAML reads it as a map)",
  "|": "| (YAML starts a block of lines after it)",
  ">": "> (YAML starts a folded block after it)",
  "?": "? (YAML reads it as a complex key)",
};

/** A message that says what is wrong and how to fix it; the library's own words only as a last resort. */
export function explainYamlError(source: string, problem: YamlProblem): string {
  const { key, value, text } = lineAt(source, problem.pos[0]);
  const name = key === "" ? "This value" : `The value of ${key}`;
  const quoteIt = `put the value in quotes${quotedExample(key, value)}`;
  const first = value.trimStart().charAt(0);
  const library = problem.message.split("\n")[0] ?? problem.message;

  switch (problem.code) {
    case "DUPLICATE_KEY":
      return `${key === "" ? "A key" : `\`${key}\``} is given twice in the frontmatter: keep one.`;
    case "TAB_AS_INDENT":
      return "A tab indents this line: YAML indents with spaces only.";
    case "MISSING_CHAR":
      if (/closing "/.test(library)) return `${name} opens a " quote that never closes: end it with ", or drop the quotes.`;
      if (/closing '/.test(library)) return `${name} opens a ' quote that never closes: end it with ', or drop the quotes.`;
      if (/followed by map values/.test(library)) return `This line is not \`key: value\`: add the colon and a value, or indent it under the key it belongs to.`;
      break;
    case "BAD_SCALAR_START":
    case "BAD_ALIAS":
      if (first !== "" && START_NAMES[first]) return `${name} starts with ${START_NAMES[first]}: ${quoteIt}.`;
      break;
    case "BAD_INDENT":
      if (/Flow sequence/.test(library)) {
        const opener = openerKey(source, problem.pos[0], "[") ?? key;
        return `${opener === "" ? "This value" : `The value of ${opener}`} opens a list with [ that is not closed: end it with ], or write one \`- item\` per line below ${opener === "" ? "the key" : `${opener}:`}.`;
      }
      if (/Flow map/.test(library)) {
        const opener = openerKey(source, problem.pos[0], "{") ?? key;
        return `${opener === "" ? "This value" : `The value of ${opener}`} opens a map with { that is not closed: end it with }, or put the value in quotes.`;
      }
      break;
    case "BLOCK_AS_IMPLICIT_KEY":
      if (/block sequence/.test(library)) return "This list item is indented differently from the ones above it: line up the dashes.";
      if (first !== "" && START_NAMES[first]) return `${name} starts with ${START_NAMES[first]}: ${quoteIt}.`;
      if (/: /.test(value)) return `${name} has a \`: \` inside it, which YAML reads as another key: ${quoteIt}.`;
      return `${name} goes on to an indented line holding \`: \`, which YAML reads as a key: put the whole value in quotes, or remove the indent if that line is a key of its own.`;
    case "MULTILINE_IMPLICIT_KEY":
      if (/^\s*[A-Za-z][\w-]*:\S/.test(text)) return "A colon needs a space after it: write `key: value`.";
      if (!text.includes(":")) return `\`${text.trim()}\` is not \`key: value\`: add a colon and a value, or indent it under the key it belongs to.`;
      return `This line is not \`key: value\`: ${quoteIt}.`;
    case "UNEXPECTED_TOKEN":
      if (/block-seq-ind on same line/.test(library)) return `A list cannot start on the key's line: put each \`- item\` on its own line below ${key === "" ? "the key" : `${key}:`}, or ${quoteIt}.`;
      if (first === "'" && value.trim().slice(1, -1).includes("'")) return `${name} is in single quotes and has a ' inside: write it twice ('') or use double quotes${quotedExample(key, value.trim().slice(1, -1).replace(/''/g, "'"))}.`;
      if (first === '"' || first === "'") return `Text follows the closing quote of ${key === "" ? "this value" : key}: put the whole value in one pair of quotes.`;
      if (first === "|" || first === ">") return `After ${first} the text must start on the next line, indented: move it there, or ${quoteIt}.`;
      if (first !== "" && START_NAMES[first]) return `${name} starts with ${START_NAMES[first]}: ${quoteIt}.`;
      if (/^\s*-\s/.test(source.trimStart())) return "The frontmatter starts with a list item, but it must be `key: value` lines: put the list under a key such as `examples:`.";
      if (key === "" && /^\s*-\s/.test(text)) return "A list item needs a key above it: write the key (such as `examples:`) on the line before the dashes.";
      break;
  }
  return `Frontmatter YAML: ${library}. If a value holds punctuation such as \`: \` or starts with a quote, put it in quotes.`;
}
