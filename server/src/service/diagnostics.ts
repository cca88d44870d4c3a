import { DiagnosticSeverity, DiagnosticTag, type Diagnostic } from "vscode-languageserver-types";
import type { CoreDiagnostic, Severity } from "../core/index.js";

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
