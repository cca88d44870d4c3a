import type { OptionalVersionedTextDocumentIdentifier, Range as LspRange, RenameFile, TextDocumentEdit, WorkspaceEdit } from "vscode-languageserver-types";
import { AGENT_SKILL_FILE, handleFromUri, isRefusal, isSkillUri, segmentsOf, sigilOf, type Namespace, type Position, type RenamePlan, type Refusal } from "../core/index.js";
import { mentionAt, onDeclaration, type WorkspaceFile } from "./lookup.js";

/** The version a client holds for an open document, or null for one read from disk. */
export type VersionOf = (uri: string) => number | null;

/** Where a rename may start: the slug of a skill mention (without its `@`, `/` or `$`), or a SKILL.md's `name:` value. */
export function prepareRename(namespace: Namespace, file: WorkspaceFile, position: Position): { range: LspRange; placeholder: string } | Refusal {
  const mention = mentionAt(file, position);
  if (!mention && file.kind === "skill" && onDeclaration(file, position) && file.file.validHandle) return { range: file.file.declaration, placeholder: file.file.slug };
  if (!mention) return { refused: "Place the cursor on an @mention of a skill to rename it (or run Rename Skill in the skill's file)." };
  const target = namespace.resolve(mention.slug);
  if (!target) return { refused: `@${mention.slug} is unknown: there is no skill to rename.` };
  if (target.kind === "tool") return { refused: `@${mention.slug} is a tool; only skills can be renamed.` };
  const range = { start: { line: mention.range.start.line, character: mention.range.start.character + sigilOf(mention).length }, end: mention.range.end };
  return { range, placeholder: mention.slug };
}

/** The new handle a user typed, without the `@` they may have kept. */
export function normaliseNewName(newName: string): string {
  return newName.trim().replace(/^[@/$]/, "");
}

/** A planned rename as one workspace edit: versioned text edits for every `@old`, then the file's rename. */
export function renameEdit(plan: RenamePlan, versionOf: VersionOf, includeFileRename = true): WorkspaceEdit {
  const documentChanges: (TextDocumentEdit | RenameFile)[] = [];
  // In URI order, for a stable answer; code-unit order, as a thousand-file rename sorts a thousand URIs.
  for (const [uri, edits] of [...plan.edits].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const textDocument: OptionalVersionedTextDocumentIdentifier = { uri, version: versionOf(uri) };
    documentChanges.push({ textDocument, edits: edits.map((edit) => ({ range: edit.range, newText: edit.newText })) });
  }
  if (includeFileRename) {
    documentChanges.push({ kind: "rename", oldUri: plan.fileRename.oldUri, newUri: plan.fileRename.newUri, options: { overwrite: false, ignoreIfExists: false } });
  }
  return { documentChanges };
}

export function rename(namespace: Namespace, slug: string, newName: string, versionOf: VersionOf): WorkspaceEdit | Refusal {
  const plan = namespace.planRename(slug, normaliseNewName(newName));
  return isRefusal(plan) ? plan : renameEdit(plan, versionOf);
}

/**
 * The cascade for skill files, and Agent Skill folders, renamed in the file explorer: every reference to the
 * old handle rewritten (and a SKILL.md's `name:`). The client moves the files itself, so the edit holds text
 * edits only. A new name that is invalid or taken is refused.
 */
export function willRenameFiles(namespace: Namespace, files: readonly { oldUri: string; newUri: string }[], versionOf: VersionOf): WorkspaceEdit | Refusal | null {
  const documentChanges: NonNullable<WorkspaceEdit["documentChanges"]> = [];
  for (const { oldUri, newUri } of files) {
    const folderSkill = namespace.skill(`${oldUri.replace(/\/+$/, "")}/${AGENT_SKILL_FILE}`);
    if (folderSkill?.validHandle) {
      const newHandle = segmentsOf(newUri).pop() ?? "";
      if (newHandle === folderSkill.slug) continue;
      const plan = namespace.planRename(folderSkill.slug, newHandle);
      if (isRefusal(plan)) return { refused: `Renaming the folder ${folderSkill.handle} to ${newHandle} leaves its references unchanged: ${plan.refused}` };
      documentChanges.push(...(renameEdit(plan, versionOf, false).documentChanges ?? []));
      continue;
    }
    const skill = namespace.skill(oldUri);
    if (!skill || !skill.validHandle || !isSkillUri(newUri)) continue;
    const newHandle = handleFromUri(newUri);
    if (newHandle === skill.slug) continue;
    const plan = namespace.planRename(skill.slug, newHandle);
    if (isRefusal(plan)) return { refused: `Renaming ${skill.handle}.skill.md to ${newHandle}.skill.md leaves its mentions unchanged: ${plan.refused}` };
    documentChanges.push(...(renameEdit(plan, versionOf, false).documentChanges ?? []));
  }
  return documentChanges.length > 0 ? { documentChanges } : null;
}
