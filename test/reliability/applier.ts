/**
 * A client-side applier of workspace edits that behaves like a careful editor: it checks the whole edit first
 * and refuses all of it when any part is stale (a versioned document whose version moved on, a document the
 * server thought closed that is open, a range outside its text, overlapping edits, a rename onto an existing
 * file); otherwise it answers every effect to carry out. Nothing is half-applied.
 */
import type { CreateFile, DeleteFile, RenameFile, TextDocumentEdit, TextEdit, WorkspaceEdit } from "vscode-languageserver-protocol";
import { TextIndex } from "./support.js";

/** What the applier sees of the editor: its open documents and the files on disk. */
export interface EditorView {
  /** An open document's text and version. */
  open(uri: string): { readonly text: string; readonly version: number } | undefined;
  /** A file's text on disk, or undefined when there is no such file. */
  disk(uri: string): string | undefined;
}

/** One change to carry out: a document's new text (open: in the editor; closed: on disk), or a file moved. */
export type Effect =
  | { readonly kind: "text"; readonly uri: string; readonly text: string; readonly open: boolean }
  | { readonly kind: "move"; readonly oldUri: string; readonly newUri: string }
  | { readonly kind: "create"; readonly uri: string }
  | { readonly kind: "delete"; readonly uri: string };

export type Plan = { readonly effects: Effect[] } | { readonly refused: string };

/** Applies LSP text edits to a text; undefined (with the reason) when they overlap or leave it. */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): { text: string } | { refused: string } {
  const index = new TextIndex(text);
  const spans: { start: number; end: number; newText: string }[] = [];
  for (const edit of edits) {
    const start = index.offsetOf(edit.range.start);
    const end = index.offsetOf(edit.range.end);
    if (start === undefined || end === undefined || end < start) return { refused: `the range ${JSON.stringify(edit.range)} is not inside the document` };
    spans.push({ start, end, newText: edit.newText });
  }
  spans.sort((a, b) => a.start - b.start || a.end - b.end);
  let result = "";
  let cursor = 0;
  for (const span of spans) {
    if (span.start < cursor) return { refused: "two edits overlap" };
    result += text.slice(cursor, span.start) + span.newText;
    cursor = span.end;
  }
  return { text: result + text.slice(cursor) };
}

/** Plans a workspace edit against the editor's current state: every effect, or one refusal for the whole edit. */
export function planWorkspaceEdit(edit: WorkspaceEdit, view: EditorView): Plan {
  const texts = new Map<string, { text: string; open: boolean } | undefined>();
  const current = (uri: string) => {
    if (!texts.has(uri)) {
      const open = view.open(uri);
      const disk = view.disk(uri);
      texts.set(uri, open ? { text: open.text, open: true } : disk !== undefined ? { text: disk, open: false } : undefined);
    }
    return texts.get(uri);
  };
  const effects: Effect[] = [];
  const changes: (TextDocumentEdit | CreateFile | RenameFile | DeleteFile)[] = [
    ...(edit.documentChanges ?? []),
    ...Object.entries(edit.changes ?? {}).map(([uri, edits]): TextDocumentEdit => ({ textDocument: { uri, version: null }, edits })),
  ];
  for (const change of changes) {
    if ("textDocument" in change) {
      const { uri, version } = change.textDocument;
      const open = view.open(uri);
      if (version !== null && open?.version !== version) return { refused: `${uri} is at version ${open?.version ?? "(closed)"}, the edit was made for version ${version}` };
      if (version === null && open && !texts.has(uri)) return { refused: `${uri} is open, but the edit was made for the file on disk` };
      const document = current(uri);
      if (!document) return { refused: `${uri} does not exist` };
      const applied = applyTextEdits(document.text, change.edits);
      if ("refused" in applied) return { refused: `${uri}: ${applied.refused}` };
      texts.set(uri, { text: applied.text, open: document.open });
      effects.push({ kind: "text", uri, text: applied.text, open: document.open });
    } else if (change.kind === "rename") {
      const from = current(change.oldUri);
      if (!from) return { refused: `cannot rename ${change.oldUri}: it does not exist` };
      if (current(change.newUri) && !change.options?.overwrite && !change.options?.ignoreIfExists) return { refused: `cannot rename onto ${change.newUri}: it exists` };
      texts.set(change.newUri, from);
      texts.set(change.oldUri, undefined);
      effects.push({ kind: "move", oldUri: change.oldUri, newUri: change.newUri });
    } else if (change.kind === "create") {
      if (current(change.uri) && !change.options?.overwrite && !change.options?.ignoreIfExists) return { refused: `cannot create ${change.uri}: it exists` };
      texts.set(change.uri, { text: "", open: false });
      effects.push({ kind: "create", uri: change.uri });
    } else {
      if (!current(change.uri) && !change.options?.ignoreIfNotExists) return { refused: `cannot delete ${change.uri}: it does not exist` };
      texts.set(change.uri, undefined);
      effects.push({ kind: "delete", uri: change.uri });
    }
  }
  return { effects };
}
