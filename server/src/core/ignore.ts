/** The ignore file at a workspace folder's root: gitignore syntax, paths it matches are left out of everything. */
export const IGNORE_FILE_NAME = ".skillignore";

/** Folders skipped everywhere unless the ignore file re-includes them with `!`. */
export const DEFAULT_IGNORED = ["node_modules/", ".git/", "dist/", "build/"];

interface Rule {
  readonly pattern: RegExp;
  readonly negated: boolean;
  readonly directoryOnly: boolean;
  /** A run of plain characters every path the rule matches holds (or ""): most paths are then settled without the pattern. */
  readonly literal: string;
}

function escape(text: string): string {
  return text.replace(/[.+^${}()|[\]\\]/g, "\\$&");
}

/** One gitignore glob as a regular expression over a slash-separated relative path. */
function globToRegExp(glob: string, anchored: boolean): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob.charAt(i);
    if (char === "*") {
      if (glob.charAt(i + 1) === "*") {
        const slashAfter = glob.charAt(i + 2) === "/";
        const atStart = i === 0 || glob.charAt(i - 1) === "/";
        if (atStart && slashAfter) {
          source += "(?:.*/)?";
          i += 2;
        } else {
          source += ".*";
          i += 1;
        }
      } else {
        source += "[^/]*";
      }
    } else if (char === "?") {
      source += "[^/]";
    } else if (char === "[") {
      const close = glob.indexOf("]", i + 1);
      if (close === -1) source += "\\[";
      else {
        source += `[${glob.slice(i + 1, close).replace(/^!/, "^").replace(/\\/g, "\\\\")}]`;
        i = close;
      }
    } else if (char === "\\" && i + 1 < glob.length) {
      source += escape(glob.charAt(++i));
    } else {
      source += escape(char);
    }
  }
  // A match of a folder covers everything inside it.
  return new RegExp(`^${anchored ? "" : "(?:.*/)?"}${source}(?:/.*)?$`);
}

function parseRule(line: string): Rule | undefined {
  let text = line.replace(/(?<!\\)\s+$/, "");
  if (text === "" || text.startsWith("#")) return undefined;
  const negated = text.startsWith("!");
  if (negated) text = text.slice(1);
  if (text.startsWith("\\")) text = text.slice(1);
  const directoryOnly = text.endsWith("/");
  if (directoryOnly) text = text.replace(/\/+$/, "");
  const anchored = text.includes("/");
  text = text.replace(/^\//, "");
  if (text === "") return undefined;
  return { pattern: globToRegExp(text, anchored), negated, directoryOnly, literal: requiredLiteral(text) };
}

/** The longest run of a glob's plain characters inside one segment; none for a glob with a class or an escape. */
function requiredLiteral(glob: string): string {
  if (/[[\\]/.test(glob)) return "";
  return glob.split(/[*?/]/).reduce((longest, run) => (run.length > longest.length ? run : longest), "");
}

/**
 * A matcher for an ignore file's text (gitignore syntax: `#` comments, `!` negation, a trailing `/` for
 * folders, a `/` inside anchoring to the root, `*`, `?`, `**`), after the default folders. Paths are relative
 * to the folder's root, with `/` separators. The last rule that matches decides, as in git.
 */
export class IgnoreRules {
  readonly #rules: readonly Rule[];
  /** Some rule can match a file itself, not only a folder: without one, a file at the root is never left out. */
  readonly #matchesFiles: boolean;

  /** The ignore file's text, as given: another thread makes the same rules of it. */
  readonly text: string;

  constructor(text = "") {
    this.text = text;
    this.#rules = [...DEFAULT_IGNORED, ...text.split(/\r?\n/)].flatMap((line) => parseRule(line) ?? []);
    this.#matchesFiles = this.#rules.some((rule) => !rule.directoryOnly);
  }

  /**
   * False when every rule is for folders: a file is then left out exactly when its folder is (a folder rule
   * covers a file through its folder alone), so a walk that lists only folders kept need not ask of each file.
   */
  get matchesFiles(): boolean {
    return this.#matchesFiles;
  }

  /** True when the path (a folder when `directory`) is left out. */
  ignores(relativePath: string, directory: boolean): boolean {
    // The listing asks this of every file: 10,000 names at a folder's root need no rule tried.
    if (!directory && !this.#matchesFiles && !relativePath.includes("/")) return false;
    let ignored = false;
    for (const rule of this.#rules) {
      if (rule.negated !== ignored) continue;
      if (rule.literal !== "" && !relativePath.includes(rule.literal)) continue;
      if (rule.directoryOnly && !directory && !this.#insideMatch(rule, relativePath)) continue;
      if (rule.pattern.test(relativePath)) ignored = !rule.negated;
    }
    return ignored;
  }

  /** A folder-only rule still covers the files inside a folder it matches. */
  #insideMatch(rule: Rule, relativePath: string): boolean {
    const slash = relativePath.lastIndexOf("/");
    return slash > 0 && rule.pattern.test(relativePath.slice(0, slash));
  }
}
