import type { CoreDiagnostic, DiagnosticCode, Severity } from "../core/index.js";

/** The formats `check --format` writes. */
export const CHECK_FORMATS = ["text", "json", "sarif"] as const;
export type CheckFormat = (typeof CHECK_FORMATS)[number];

/** One diagnostic of one file, the file named by a path relative to where the check ran (`/`-separated). */
export interface FileDiagnostic {
  readonly file: string;
  readonly diagnostic: CoreDiagnostic;
}

/** The tool that made a report, as SARIF and the JSON report name it. */
export interface ToolInfo {
  readonly name: string;
  readonly version: string;
  readonly informationUri: string;
}

/** What each code means, for the rules of a SARIF report (the README's table, shorter): every code must have one. */
const RULE_TEXT: Readonly<Record<DiagnosticCode | "more-problems", string>> = {
  "unknown-mention": "A mention names no skill or tool.",
  "disabled-mention": "A mention names a disabled skill, which binds nothing.",
  "mention-case": "A mention is not written in lower case.",
  "malformed-mention": "Text that looks like a mention but is not one.",
  "duplicate-handle": "Two skills claim one handle.",
  "tool-collision": "A skill or a declared tool takes a tool's handle.",
  "invalid-handle": "The file name is not a valid handle.",
  "frontmatter-syntax": "The frontmatter is not valid YAML.",
  "frontmatter-unclosed": "The frontmatter's opening --- has no closing line.",
  "frontmatter-type": "A frontmatter key has the wrong type.",
  "frontmatter-unknown-key": "A frontmatter key the format does not know.",
  "frontmatter-value": "A frontmatter value outside what its key accepts.",
  "frontmatter-limit": "A frontmatter value over a documented limit.",
  "frontmatter-ignored": "A frontmatter key the agents reading this folder ignore.",
  "missing-summary": "An advertised, enabled skill has no summary.",
  "long-summary": "A summary of more than three lines.",
  "menu-similar": "Two skills' summaries are too alike for a small model to tell apart.",
  "config-syntax": "skills.json is not valid JSON.",
  "config-invalid": "A malformed entry in skills.json.",
  "config-unknown-handle": "A menu entry in skills.json that cannot be on the menu.",
  "config-unknown-blurb": "An unknown alignment blurb in skills.json.",
  "file-too-large": "A file too large to read.",
  "more-problems": "More problems than are listed.",
  "binary-file": "A skill file with NUL bytes.",
  "name-mismatch": "A SKILL.md's name differs from its folder's name.",
  "missing-name": "A SKILL.md without a name.",
  "misplaced-skill": "A SKILL.md outside a skills/ folder, which agents do not read.",
  "lower-case-skill-file": "A skill.md in lower case, which agents do not read.",
  "unknown-reference": "A /name, $name or @name in Agent Skills prose that names no skill.",
  "broken-link": "A link to a skill folder that does not exist.",
};

/** A diagnostic as the text report's line: `file:line:col severity code message`. */
export function textLine(file: string, diagnostic: CoreDiagnostic): string {
  const { line, character } = diagnostic.range.start;
  return `${file}:${line + 1}:${character + 1} ${diagnostic.severity} ${diagnostic.code} ${diagnostic.message}`;
}

/** Lines and columns counted from 1, columns in UTF-16 code units (as LSP and SARIF consumers count them). */
function region(diagnostic: CoreDiagnostic) {
  const { start, end } = diagnostic.range;
  return { startLine: start.line + 1, startColumn: start.character + 1, endLine: end.line + 1, endColumn: end.character + 1 };
}

/** The JSON report: a summary and every diagnostic with its place. Stable keys; `version` counts changes to the shape. */
export function jsonReport(tool: ToolInfo, files: number, diagnostics: readonly FileDiagnostic[]): unknown {
  const count = (severity: Severity) => diagnostics.filter(({ diagnostic }) => diagnostic.severity === severity).length;
  return {
    version: 1,
    tool: { name: tool.name, version: tool.version },
    summary: { files, errors: count("error"), warnings: count("warning"), information: count("information"), hints: count("hint") },
    diagnostics: diagnostics.map(({ file, diagnostic }) => ({
      file,
      ...region(diagnostic),
      severity: diagnostic.severity,
      code: diagnostic.code,
      message: diagnostic.message,
      ...(diagnostic.related && diagnostic.related.length > 0 ? { related: diagnostic.related.map((related) => ({ uri: related.uri, line: related.range.start.line + 1, column: related.range.start.character + 1, message: related.message })) } : {}),
    })),
  };
}

const SARIF_LEVEL: Readonly<Record<Severity, "error" | "warning" | "note">> = { error: "error", warning: "warning", information: "note", hint: "note" };

/**
 * A SARIF 2.1.0 log, as GitHub code scanning reads it: one run, one rule per code that occurs, each result
 * located by a path relative to `%SRCROOT%` (the folder the check ran in: run it from the repository root).
 */
export function sarifReport(tool: ToolInfo, rootUri: string, diagnostics: readonly FileDiagnostic[]): unknown {
  const codes = [...new Set(diagnostics.map(({ diagnostic }) => diagnostic.code))].sort();
  const rules = codes.map((code) => ({ id: code, name: code, shortDescription: { text: (RULE_TEXT as Readonly<Record<string, string>>)[code] ?? code }, helpUri: `${tool.informationUri}#diagnostics` }));
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: tool.name, version: tool.version, semanticVersion: tool.version, informationUri: tool.informationUri, rules } },
        originalUriBaseIds: { SRCROOT: { uri: rootUri.endsWith("/") ? rootUri : `${rootUri}/` } },
        columnKind: "utf16CodeUnits",
        results: diagnostics.map(({ file, diagnostic }) => ({
          ruleId: diagnostic.code,
          ruleIndex: codes.indexOf(diagnostic.code),
          level: SARIF_LEVEL[diagnostic.severity],
          message: { text: diagnostic.message },
          locations: [{ physicalLocation: { artifactLocation: { uri: encodeURI(file), uriBaseId: "SRCROOT" }, region: region(diagnostic) } }],
        })),
      },
    ],
  };
}
