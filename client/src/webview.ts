import { readFileSync } from "node:fs";
import * as vscode from "vscode";
import { inPageText } from "../../shared/pageData.js";

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

const pageParts = new Map<string, string>();

/**
 * A page's script or style sheet, read once, to be written into the page itself: a webview fetches each resource
 * through VS Code's resource loader, and in VS Code 1.139 the graph panel's script began 235-595 ms after its page
 * (45-298 ms written in). See {@link inPageText}.
 */
export function pagePart(media: vscode.Uri, name: string): string {
  const file = vscode.Uri.joinPath(media, name).fsPath;
  let text = pageParts.get(file);
  if (text === undefined) {
    text = inPageText(readFileSync(file, "utf8"));
    pageParts.set(file, text);
  }
  return text;
}
