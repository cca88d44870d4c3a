import type { OptionalVersionedTextDocumentIdentifier, Range as LspRange, RenameFile, TextDocumentEdit, WorkspaceEdit } from "vscode-languageserver-types";
import { AGENT_SKILL_FILE, handleFromUri, isRefusal, isSkillUri, segmentsOf, sigilOf, startsWithFromEnd, type Namespace, type Position, type RenamePlan, type Refusal, type TextEdit } from "../core/index.js";
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
  const { oldUri, newUri } = plan.fileRename;
  // A moved folder's own files are edited after the move, under their new URIs: VS Code resolves a workspace
  // edit's text edits after its file operations, so an edit of a file inside the old folder finds nothing.
  // Asked of every edited file, twice: `startsWith` (and the prefix made each time) were most of a thousand-file
  // folder rename's own time.
  const folderPrefix = includeFileRename && oldUri !== plan.skill.uri ? `${oldUri}/` : undefined;
  const inside = (uri: string) => folderPrefix !== undefined && startsWithFromEnd(uri, folderPrefix);
  const textEdit = (uri: string, edits: readonly TextEdit[] | undefined, version: number | null): TextDocumentEdit => ({
    textDocument: { uri, version } satisfies OptionalVersionedTextDocumentIdentifier,
    // The plan's edits are already { range, newText }: copied as an array, not object by object.
    edits: edits?.slice() ?? [],
  });
  // In URI order, for a stable answer: the default sort's code-unit order, with no comparator called a
  // thousand times (nor entry pairs taken apart) for a thousand-file rename.
  const uris = [...plan.edits.keys()].sort();
  for (const uri of uris) if (!inside(uri)) documentChanges.push(textEdit(uri, plan.edits.get(uri), versionOf(uri)));
  if (includeFileRename) {
    documentChanges.push({ kind: "rename", oldUri, newUri, options: { overwrite: false, ignoreIfExists: false } });
  }
  for (const uri of uris) if (inside(uri)) documentChanges.push(textEdit(newUri + uri.slice(oldUri.length), plan.edits.get(uri), null));
  return { documentChanges };
}

/** The file operations a client applies from a workspace edit. */
export type FileOperations = ReadonlySet<"create" | "rename" | "delete">;

const EVERY_OPERATION: FileOperations = new Set(["create", "rename", "delete"]);

/**
 * A skill's rename in the form the client can apply whole: with a file rename; without one, as the new file
 * created with the renamed text and the old one deleted; with neither, refused with the two steps that
 * work in such an editor (the file renamed outside, then the offered update of its mentions).
 */
export function rename(namespace: Namespace, slug: string, newName: string, versionOf: VersionOf, operations: FileOperations = EVERY_OPERATION): WorkspaceEdit | Refusal {
  const plan = namespace.planRename(slug, normaliseNewName(newName));
  if (isRefusal(plan)) return plan;
  if (operations.has("rename")) return renameEdit(plan, versionOf);
  if (operations.has("create") && operations.has("delete")) return renameByCopy(plan, versionOf);
  const oldName = `${plan.skill.handle}.skill.md`;
  return {
    refused:
      `This editor applies no file renames from a language server, so @${plan.oldSlug} is left as it is rather than half-renamed. ` +
      `Rename ${oldName} to ${plan.newSlug}.skill.md yourself (file manager, terminal or git mv); the server then offers the action ` +
      `"@${plan.oldSlug} was renamed to @${plan.newSlug}: update the mentions".`,
  };
}

/** The rename as create, write and delete, for a client that creates and deletes files but does not rename them. */
function renameByCopy(plan: RenamePlan, versionOf: VersionOf): WorkspaceEdit {
  const { skill, fileRename } = plan;
  const own = [...(plan.edits.get(skill.uri) ?? [])].sort((a, b) => skill.lines.offsetAt(b.range.start) - skill.lines.offsetAt(a.range.start));
  let text = skill.text;
  for (const edit of own) text = text.slice(0, skill.lines.offsetAt(edit.range.start)) + edit.newText + text.slice(skill.lines.offsetAt(edit.range.end));
  const others = new Map([...plan.edits].filter(([uri]) => uri !== skill.uri));
  const textEdits = renameEdit({ ...plan, edits: others }, versionOf, false).documentChanges ?? [];
  const start = { line: 0, character: 0 };
  return {
    documentChanges: [
      ...textEdits,
      { kind: "create", uri: fileRename.newUri, options: { overwrite: false, ignoreIfExists: false } },
      { textDocument: { uri: fileRename.newUri, version: null }, edits: [{ range: { start, end: start }, newText: text }] },
      { kind: "delete", uri: fileRename.oldUri, options: { recursive: false, ignoreIfNotExists: false } },
    ],
  };
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
