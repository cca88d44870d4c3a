/**
 * The test's editor: open documents with versions, the files on disk, and the applier wired to both. Edits to
 * open documents go to the server as incremental changes (the smallest range that differs); disk changes are
 * written, then announced as watched-file events, as VS Code's file watcher would.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { DidChangeWatchedFilesNotification, DidRenameFilesNotification, FileChangeType, type FileEvent, type WorkspaceEdit } from "vscode-languageserver-protocol";
import { uriOf } from "../lsp/harness.js";
import { planWorkspaceEdit, type EditorView } from "./applier.js";
import { TextIndex, decode, type Range, type Session } from "./support.js";

/** The smallest single change that turns `before` into `after`: the range in `before` and the text to put there. */
export function smallestChange(before: string, after: string): { range: Range; text: string } {
  let start = 0;
  while (start < before.length && start < after.length && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let end = 0;
  while (end < before.length - start && end < after.length - start && before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)) end++;
  // Never split a CRLF or a surrogate pair: widen the change until both ends sit on whole characters.
  const splits = (text: string, at: number) => at > 0 && at < text.length && ((text.charAt(at - 1) === "\r" && text.charAt(at) === "\n") || (/[\ud800-\udbff]/.test(text.charAt(at - 1)) && /[\udc00-\udfff]/.test(text.charAt(at))));
  while (start > 0 && (splits(before, start) || splits(after, start))) start--;
  while (end > 0 && (splits(before, before.length - end) || splits(after, after.length - end))) end--;
  const index = new TextIndex(before);
  return { range: { start: index.positionOf(start), end: index.positionOf(before.length - end) }, text: after.slice(start, after.length - end) };
}

export class Editor implements EditorView {
  readonly session: Session;
  readonly folder: string;
  readonly #open = new Map<string, { text: string; version: number }>();
  /** Where the last edit of each open document ended (the cursor after typing), as an offset in its text. */
  readonly #editEnds = new Map<string, number>();

  constructor(session: Session, folder: string) {
    this.session = session;
    this.folder = folder;
  }

  uri(relative: string): string {
    return uriOf(path.join(this.folder, relative));
  }

  pathOf(uri: string): string {
    return fileURLToPath(uri);
  }

  open(uri: string): { readonly text: string; readonly version: number } | undefined {
    return this.#open.get(uri);
  }

  openUris(): string[] {
    return [...this.#open.keys()];
  }

  disk(uri: string): string | undefined {
    const file = this.pathOf(uri);
    return existsSync(file) && statSync(file).isFile() ? decode(readFileSync(file)) : undefined;
  }

  /** Opens a file from disk, or with the given text. */
  async openDocument(uri: string, text = this.disk(uri) ?? ""): Promise<void> {
    this.#open.set(uri, { text, version: 1 });
    this.#editEnds.delete(uri);
    await this.session.client.open(uri, text);
  }

  /** Changes an open document to `text` by its smallest differing range; answers the new version. */
  async edit(uri: string, text: string): Promise<number> {
    const document = this.#open.get(uri);
    if (!document) throw new Error(`${uri} is not open`);
    const change = smallestChange(document.text, text);
    this.#noteEditEnd(uri, document.text, text);
    const version = await this.session.client.change(uri, change.text, change.range);
    this.#open.set(uri, { text, version });
    return version;
  }

  /** Sends the change without waiting for it to be written, for races: the returned promise is the write. */
  editNow(uri: string, text: string): Promise<number> {
    const document = this.#open.get(uri);
    if (!document) throw new Error(`${uri} is not open`);
    const change = smallestChange(document.text, text);
    this.#noteEditEnd(uri, document.text, text);
    this.#open.set(uri, { text, version: document.version + 1 });
    return this.session.client.change(uri, change.text, change.range);
  }

  /** The offset in an open document's text where its last edit ended; undefined before any edit. */
  editEnd(uri: string): number | undefined {
    return this.#editEnds.get(uri);
  }

  #noteEditEnd(uri: string, before: string, after: string): void {
    if (before === after) return void this.#editEnds.delete(uri);
    let start = 0;
    while (start < before.length && start < after.length && before.charCodeAt(start) === after.charCodeAt(start)) start++;
    let end = 0;
    while (end < before.length - start && end < after.length - start && before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)) end++;
    this.#editEnds.set(uri, after.length - end);
  }

  async close(uri: string): Promise<void> {
    this.#open.delete(uri);
    this.#editEnds.delete(uri);
    await this.session.client.close(uri);
  }

  async save(uri: string): Promise<void> {
    const document = this.#open.get(uri);
    if (!document) throw new Error(`${uri} is not open`);
    await this.writeDisk(uri, document.text);
  }

  async notify(changes: FileEvent[]): Promise<void> {
    if (changes.length > 0) await this.session.client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes });
  }

  async writeDisk(uri: string, text: string): Promise<void> {
    const file = this.pathOf(uri);
    const existed = existsSync(file);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    await this.notify([{ uri, type: existed ? FileChangeType.Changed : FileChangeType.Created }]);
  }

  async deleteDisk(uri: string): Promise<void> {
    rmSync(this.pathOf(uri), { force: true });
    await this.notify([{ uri, type: FileChangeType.Deleted }]);
  }

  /** Moves a file on disk, as a shell would: an open document stays open under its old name. */
  async moveDisk(oldUri: string, newUri: string): Promise<void> {
    mkdirSync(path.dirname(this.pathOf(newUri)), { recursive: true });
    renameSync(this.pathOf(oldUri), this.pathOf(newUri));
    await this.notify([
      { uri: oldUri, type: FileChangeType.Deleted },
      { uri: newUri, type: FileChangeType.Created },
    ]);
  }

  /** Moves a file as the editor does: the file on disk, and an open document with it (closed, reopened under the new name). */
  async moveWithEditor(oldUri: string, newUri: string): Promise<void> {
    const document = this.#open.get(oldUri);
    if (existsSync(this.pathOf(oldUri))) {
      mkdirSync(path.dirname(this.pathOf(newUri)), { recursive: true });
      renameSync(this.pathOf(oldUri), this.pathOf(newUri));
    }
    if (document) {
      await this.close(oldUri);
      await this.openDocument(newUri, document.text);
    }
    await this.notify([
      { uri: oldUri, type: FileChangeType.Deleted },
      { uri: newUri, type: FileChangeType.Created },
    ]);
  }

  /**
   * Applies a workspace edit as an editor does: all of it, or none of it when any part is stale. Like VS Code,
   * it asks the server's willRenameFiles before each move and sends didRenameFiles after; what willRenameFiles
   * answers comes back as `followUps` (for a rename the server planned itself, it must answer nothing).
   */
  async apply(edit: WorkspaceEdit): Promise<{ readonly applied: true; readonly followUps: readonly WorkspaceEdit[] } | { readonly refused: string }> {
    const plan = planWorkspaceEdit(edit, this);
    if ("refused" in plan) return plan;
    const followUps: WorkspaceEdit[] = [];
    for (const effect of plan.effects) {
      if (effect.kind === "move") {
        const files = [{ oldUri: effect.oldUri, newUri: effect.newUri }];
        const { result } = await this.session.request<WorkspaceEdit | null>("workspace/willRenameFiles", { files });
        if (result) followUps.push(result);
        await this.moveWithEditor(effect.oldUri, effect.newUri);
        await this.session.client.connection.sendNotification(DidRenameFilesNotification.type, { files });
        continue;
      }
      if (effect.kind === "text") {
        if (effect.open) await this.edit(effect.uri, effect.text);
        else await this.writeDisk(effect.uri, effect.text);
      } else if (effect.kind === "create") await this.writeDisk(effect.uri, "");
      else await this.deleteDisk(effect.uri);
    }
    return { applied: true, followUps };
  }
}
