import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { ExportBundleRequest, PlanImportRequest } from "../../shared/protocol.js";
import { applyServerEdit } from "./edits.js";
import { countOf } from "../../shared/words.js";

const BUNDLE_FILTER = { "Skill bundles": ["json"] };

/** Read-only review pages of bundle imports. */
class ReviewDocuments implements vscode.TextDocumentContentProvider {
  static readonly scheme = "skill-import-review";
  readonly #pages = new Map<string, string>();

  show(text: string): vscode.Uri {
    const uri = vscode.Uri.parse(`${ReviewDocuments.scheme}:/Import review ${this.#pages.size + 1}.md`);
    this.#pages.set(uri.toString(), text);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.#pages.get(uri.toString()) ?? "";
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Share Skill (a bundle of the skill and its closure) and Import Skill Bundle (a review first; nothing is
 * written until the user accepts, then one workspace edit creates the files).
 */
export function registerBundleCommands(context: vscode.ExtensionContext, client: LanguageClient): void {
  const reviews = new ReviewDocuments();
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(ReviewDocuments.scheme, reviews),
    vscode.commands.registerCommand("skill.shareSkill", async (resource?: vscode.Uri, target?: vscode.Uri) => {
      const uri = resource ?? vscode.window.activeTextEditor?.document.uri;
      if (!uri) return void vscode.window.showWarningMessage("Open a skill file, or pick one in the explorer, to share it.");
      try {
        const bundle = await client.sendRequest(ExportBundleRequest, { uri: uri.toString() });
        const file =
          target ??
          (await vscode.window.showSaveDialog({
            title: `Share @${bundle.handle} and ${countOf(bundle.skills.length - 1, "skill")} it mentions`,
            defaultUri: vscode.Uri.joinPath(uri, "..", `${bundle.handle}.skillbundle.json`),
            filters: BUNDLE_FILTER,
          }));
        if (!file) return undefined;
        await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(bundle.text));
        void vscode.window.showInformationMessage(
          `Saved @${bundle.handle} with ${countOf(bundle.skills.length, "skill")}${bundle.tools.length > 0 ? `; it needs the tools ${bundle.tools.join(", ")}` : ""}.`,
        );
        return file.toString();
      } catch (error) {
        void vscode.window.showErrorMessage(`Cannot share this skill: ${message(error)}`);
        return undefined;
      }
    }),
    vscode.commands.registerCommand("skill.importBundle", async (file?: vscode.Uri, options?: { folder?: vscode.Uri; accept?: boolean }) => {
      const source = file ?? (await vscode.window.showOpenDialog({ title: "Import a skill bundle", canSelectMany: false, filters: BUNDLE_FILTER }))?.[0];
      if (!source) return undefined;
      const folder = options?.folder ?? vscode.workspace.getWorkspaceFolder(source)?.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
      if (!folder) return void vscode.window.showWarningMessage("Open a folder first: imported skills are written into it.");
      try {
        const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(source));
        const plan = await client.sendRequest(PlanImportRequest, { text, folderUri: folder.toString() });
        const review = reviews.show(`# Import review: ${source.path.split("/").pop() ?? ""}\n\n${plan.review.join("\n")}\n`);
        const document = await vscode.workspace.openTextDocument(review);
        await vscode.languages.setTextDocumentLanguage(document, "markdown");
        await vscode.window.showTextDocument(document, { preview: true });
        if (plan.created.length === 0) {
          void vscode.window.showInformationMessage(`Nothing to import: ${plan.reused.map((handle) => `@${handle}`).join(", ")} already here.`);
          return { review: plan.review, applied: false };
        }
        const accepted =
          options?.accept ??
          (await vscode.window.showInformationMessage(`Import ${countOf(plan.created.length, "skill")} (${plan.created.map((handle) => `@${handle}`).join(", ")})? See the review.`, { modal: true }, "Import")) === "Import";
        if (!accepted) return { review: plan.review, applied: false };
        const applied = await applyServerEdit(client, plan.edit, "The import", true);
        return { review: plan.review, applied };
      } catch (error) {
        void vscode.window.showErrorMessage(`Cannot import ${source.path.split("/").pop() ?? "this file"}: ${message(error)}`);
        return undefined;
      }
    }),
  );
}
