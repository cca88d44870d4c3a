import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import type { WorkspaceEdit } from "vscode-languageserver-protocol";

/** Applies a server-made edit as one undoable step; answers false (and says why) when VS Code refuses it. */
export async function applyServerEdit(client: LanguageClient, edit: WorkspaceEdit, what: string, saveNewFiles = false): Promise<boolean> {
  const converted = await client.protocol2CodeConverter.asWorkspaceEdit(edit);
  const applied = await vscode.workspace.applyEdit(converted);
  if (!applied) void vscode.window.showErrorMessage(`${what} was not applied: a file changed meanwhile or the edit conflicts. Nothing was changed; try again.`);
  else if (saveNewFiles) await saveEdited(converted);
  return applied;
}

/** Saves the documents an edit touched, so files it created are on disk at once. */
export async function saveEdited(edit: vscode.WorkspaceEdit): Promise<void> {
  for (const [uri] of edit.entries()) {
    const document = vscode.workspace.textDocuments.find((open) => open.uri.toString() === uri.toString()) ?? (await vscode.workspace.openTextDocument(uri));
    if (document.isDirty) await document.save();
  }
}
