import { DiagnosticCodes, type CoreDiagnostic, type Position } from "../core/index.js";

/**
 * Where an edit ended in the new text: the offset just past what it inserted (where the cursor is after
 * typing), found from the common prefix and suffix of the two texts; undefined when nothing changed, or when
 * it ended between a CR and its LF: a line break was typed, so no mention is (and a position there would be
 * put back at the end of the line, on the mention before it).
 */
export function editEnd(before: string, after: string): number | undefined {
  if (before === after) return undefined;
  const shorter = Math.min(before.length, after.length);
  let prefix = 0;
  while (prefix < shorter && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  while (suffix < shorter - prefix && before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)) suffix++;
  const end = after.length - suffix;
  return after.charCodeAt(end - 1) === 13 && after.charCodeAt(end) === 10 ? undefined : end;
}

const before = (a: Position, b: Position) => a.line < b.line || (a.line === b.line && a.character < b.character);

/**
 * The diagnostics without an unknown mention that the cursor is still inside (or right after): while `@pla`
 * is being typed towards `@plan-trip`, it is no mistake yet.
 */
export function withoutMentionBeingTyped(diagnostics: readonly CoreDiagnostic[], cursor: Position | undefined): CoreDiagnostic[] {
  if (!cursor) return [...diagnostics];
  return diagnostics.filter(
    (diagnostic) => diagnostic.code !== DiagnosticCodes.unknownMention || !(before(diagnostic.range.start, cursor) && !before(diagnostic.range.end, cursor)),
  );
}
