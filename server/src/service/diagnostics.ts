import { DiagnosticSeverity, DiagnosticTag, type Diagnostic } from "vscode-languageserver-types";
import { DiagnosticCodes, type CoreDiagnostic, type Severity } from "../core/index.js";
import { groupedDigits } from "../../../shared/words.js";

/**
 * The problems of a SKILL.md that VS Code's own `skill` language reports (checked in VS Code 1.139: "Skill
 * should provide a name", "… a description", "The skill name '…' should match the folder name '…'"). For an editor that validates SKILL.md
 * itself the server leaves these out, so one problem is one diagnostic; its quick fixes are still offered.
 */
export const EDITOR_VALIDATED_CODES: ReadonlySet<string> = new Set([DiagnosticCodes.missingName, DiagnosticCodes.missingSummary, DiagnosticCodes.nameMismatch]);

/** A SKILL.md's diagnostics without those the editor reports itself. */
export function leaveToEditor(diagnostics: readonly CoreDiagnostic[]): CoreDiagnostic[] {
  return diagnostics.filter((diagnostic) => !EDITOR_VALIDATED_CODES.has(diagnostic.code));
}

const SEVERITIES: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

/** The core's diagnostic as LSP data; the fix data rides along in `data` for the quick fixes. */
export function toLspDiagnostic(diagnostic: CoreDiagnostic): Diagnostic {
  return {
    range: diagnostic.range,
    severity: SEVERITIES[diagnostic.severity],
    code: diagnostic.code,
    source: "skill",
    message: diagnostic.message,
    relatedInformation: diagnostic.related?.map((related) => ({ location: { uri: related.uri, range: related.range }, message: related.message })),
    tags: diagnostic.code === "disabled-mention" ? [DiagnosticTag.Unnecessary] : undefined,
    data: diagnostic.fix,
  };
}

/** More problems than this in one file are not all sent: 100,000 diagnostics took seconds to send and to show. */
export const MAX_DIAGNOSTICS_PER_FILE = 1000;

/**
 * A file's diagnostics as LSP data, at most {@link MAX_DIAGNOSTICS_PER_FILE}: errors first, then the rest in
 * order, and when some are left out, a last one at the file's start that says how many.
 */
export function toLspDiagnostics(diagnostics: readonly CoreDiagnostic[]): Diagnostic[] {
  if (diagnostics.length <= MAX_DIAGNOSTICS_PER_FILE) return diagnostics.map(toLspDiagnostic);
  const shown = [...diagnostics.filter((one) => one.severity === "error"), ...diagnostics.filter((one) => one.severity !== "error")].slice(0, MAX_DIAGNOSTICS_PER_FILE - 1);
  const hidden = diagnostics.length - shown.length;
  return [
    ...shown.map(toLspDiagnostic),
    {
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      severity: DiagnosticSeverity.Information,
      code: "more-problems",
      source: "skill",
      message: `${groupedDigits(hidden)} more problems in this file are not shown; ${groupedDigits(shown.length)} are.`,
    },
  ];
}
