import * as vscode from "vscode";

/** A fresh value for a webview's script nonce: the content security policy runs only the script that carries it. */
export function nonce(): string {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  return Buffer.from(bytes).toString("base64").replace(/[^A-Za-z0-9]/g, "");
}

/** A panel beside the editor whose page runs scripts from `media/<folder>` only, and keeps its state when hidden. */
export function createMediaPanel(context: vscode.ExtensionContext, viewType: string, title: string, folder: string): { readonly panel: vscode.WebviewPanel; readonly media: vscode.Uri } {
  const media = vscode.Uri.joinPath(context.extensionUri, "media", folder);
  const panel = vscode.window.createWebviewPanel(viewType, title, vscode.ViewColumn.Beside, { enableScripts: true, localResourceRoots: [media], retainContextWhenHidden: true });
  return { panel, media };
}
