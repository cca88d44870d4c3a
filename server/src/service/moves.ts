import { CodeActionKind, type CodeAction, type Diagnostic, type TextDocumentEdit, type WorkspaceEdit } from "vscode-languageserver-types";
import type { FixData, Namespace, SkillMove } from "../core/index.js";
import { fileOf, type WorkspaceFile } from "./lookup.js";
import type { VersionOf } from "./rename.js";

/** The kind of the workspace-wide action that updates every mention of a skill renamed outside the editor. */
export const UPDATE_MOVED_MENTIONS_KIND = `${CodeActionKind.Source}.updateRenamedSkill`;

/** Every `@old` → `@new` of one move, as one edit of versioned documents in URI order, with its counts. */
export function moveEdit(namespace: Namespace, move: SkillMove, versionOf: VersionOf): { edit: WorkspaceEdit; mentions: number; files: number } {
  const documentChanges: TextDocumentEdit[] = [];
  let mentions = 0;
  for (const uri of namespace.mentioners(move.oldSlug)) {
    const file = fileOf(namespace, uri);
    const edits = (file?.file.mentions ?? []).filter((mention) => mention.slug === move.oldSlug).map((mention) => ({ range: mention.range, newText: `@${move.newSlug}` }));
    if (edits.length === 0) continue;
    mentions += edits.length;
    documentChanges.push({ textDocument: { uri, version: versionOf(uri) }, edits });
  }
  return { edit: { documentChanges }, mentions, files: documentChanges.length };
}

/** The title of the workspace action (plain text, as menus show it): "@old was renamed to @new: update 3 mentions in 2 files". */
export function moveTitle(move: SkillMove, mentions: number, files: number): string {
  return `@${move.oldSlug} was renamed to @${move.newSlug}: update ${mentions} ${mentions === 1 ? "mention" : "mentions"} in ${files} ${files === 1 ? "file" : "files"}`;
}

/**
 * The actions for skills renamed outside the editor, in a code-action request on `file`: a quick fix on each
 * dangling mention of a moved skill among `diagnostics`, and one source action per move that this file
 * takes part in (it mentions `@old`, or it is the moved file), which updates every mention in the workspace.
 */
export function moveActions(namespace: Namespace, moves: readonly SkillMove[], file: WorkspaceFile, diagnostics: readonly Diagnostic[], versionOf: VersionOf, only: readonly string[] | undefined): CodeAction[] {
  if (moves.length === 0) return [];
  const wants = (kind: string) => only === undefined || only.some((wanted) => kind === wanted || kind.startsWith(`${wanted}.`));
  const actions: CodeAction[] = [];
  const uri = file.file.uri;
  const bySlug = new Map(moves.map((move) => [move.oldSlug, move]));
  if (wants(CodeActionKind.QuickFix)) {
    for (const diagnostic of diagnostics) {
      const fix = diagnostic.data as FixData | undefined;
      const move = fix?.kind === "unknown-mention" && diagnostic.source === "skill" ? bySlug.get(fix.slug) : undefined;
      if (!move) continue;
      actions.push({
        title: `Change to @${move.newSlug} (the skill was renamed from @${move.oldSlug})`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnostic],
        isPreferred: true,
        edit: { documentChanges: [{ textDocument: { uri, version: versionOf(uri) }, edits: [{ range: diagnostic.range, newText: `@${move.newSlug}` }] }] },
      });
    }
  }
  if (wants(UPDATE_MOVED_MENTIONS_KIND)) {
    for (const move of moves) {
      const involved = move.newUri === uri || file.file.mentions.some((mention) => mention.slug === move.oldSlug);
      if (!involved) continue;
      const { edit, mentions, files } = moveEdit(namespace, move, versionOf);
      if (mentions > 0) actions.push({ title: moveTitle(move, mentions, files), kind: UPDATE_MOVED_MENTIONS_KIND, edit });
    }
  }
  return actions;
}
