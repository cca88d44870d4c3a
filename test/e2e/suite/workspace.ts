import * as assert from "node:assert/strict";
import * as vscode from "vscode";

/** What the VS Code suites share: the workspace folder they run on, its files, and polling for async results. */

export function folder(): vscode.Uri {
  const first = vscode.workspace.workspaceFolders?.[0];
  assert.ok(first, "the suite runs on a workspace folder");
  return first.uri;
}

export function fileUri(relative: string): vscode.Uri {
  return vscode.Uri.joinPath(folder(), relative);
}

export async function read(relative: string): Promise<string> {
  return new TextDecoder().decode(await vscode.workspace.fs.readFile(fileUri(relative)));
}

export async function exists(relative: string): Promise<boolean> {
  return vscode.workspace.fs.stat(fileUri(relative)).then(
    () => true,
    () => false,
  );
}

/** Polls until the check passes: the server answers diagnostics and refreshes asynchronously. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
