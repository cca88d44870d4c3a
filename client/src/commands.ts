import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { ClientCommands, CreateBuiltinsRequest, MintRequest, NewSkillRequest, PrepareModelRequest, RenameSkillRequest, SkillAtRequest } from "../../shared/protocol.js";
import { AlignmentDocuments } from "./documents.js";
import { applyServerEdit } from "./edits.js";

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function pickFolder(resource: vscode.Uri | undefined): Promise<vscode.Uri | undefined> {
  if (resource) {
    const stat = await vscode.workspace.fs.stat(resource).then(undefined, () => undefined);
    if (stat && stat.type & vscode.FileType.Directory) return resource;
    return vscode.Uri.joinPath(resource, "..");
  }
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active?.scheme === "file" && vscode.workspace.getWorkspaceFolder(active)) return vscode.Uri.joinPath(active, "..");
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length <= 1) return folders[0]?.uri;
  return (await vscode.window.showWorkspaceFolderPick({ placeHolder: "Where should the skill go?" }))?.uri;
}

type SkillFormatChoice = "skill-file" | "agent-skill";

/** True for a folder named `skills`: an Agent Skill goes in it as `<name>/SKILL.md`. */
function isSkillsFolder(folder: vscode.Uri): boolean {
  return folder.path.replace(/\/+$/, "").endsWith("/skills");
}

/** Which format the new skill takes; a `skills` folder takes an Agent Skill without asking. */
async function askFormat(folder: vscode.Uri): Promise<SkillFormatChoice | undefined> {
  if (isSkillsFolder(folder)) return "agent-skill";
  const choice = await vscode.window.showQuickPick(
    [
      { label: "Skill file", description: "<handle>.skill.md", detail: "This extension's format: a title, a summary, @mentions of tools and skills.", format: "skill-file" as const },
      { label: "Agent Skill", description: "skills/<name>/SKILL.md", detail: "The public Agent Skills format that Claude Code, Copilot and Codex read.", format: "agent-skill" as const },
    ],
    { title: "New Skill", placeHolder: "Which format?" },
  );
  return choice?.format;
}

/** The `skills` folder for a new Agent Skill: the one chosen, or one of the agents' folders at the workspace folder's root. */
async function pickSkillsFolder(folder: vscode.Uri): Promise<vscode.Uri | undefined> {
  if (isSkillsFolder(folder)) return folder;
  const root = vscode.workspace.getWorkspaceFolder(folder)?.uri ?? folder;
  const candidates = [".claude/skills", ".github/skills", ".agents/skills", "skills"].map((relative) => vscode.Uri.joinPath(root, relative));
  const present = await Promise.all(candidates.map((uri) => vscode.workspace.fs.stat(uri).then(() => true, () => false)));
  const items = candidates.map((uri, index) => ({ label: vscode.workspace.asRelativePath(uri, false), description: present[index] ? "exists" : "", uri, present: present[index] === true }));
  items.sort((a, b) => Number(b.present) - Number(a.present));
  return (await vscode.window.showQuickPick(items, { title: "New Agent Skill", placeHolder: "Which skills folder? (.claude: Claude Code and Copilot; .github: Copilot; .agents: Codex and Copilot)" }))?.uri;
}

/** Asks for a title and shows, as the user types, the handle the skill will get. */
async function askTitle(client: LanguageClient, prompt: string, value: string, currentUri?: string): Promise<string | undefined> {
  return vscode.window.showInputBox({
    title: prompt,
    prompt: "A title; the handle is minted from it (lower-case, hyphens, a number when the name is taken).",
    value,
    validateInput: async (title) => {
      if (title.trim() === "") return { message: "Type a title, like Meeting Prep.", severity: vscode.InputBoxValidationSeverity.Error };
      const minted = await client.sendRequest(MintRequest, { title, currentUri });
      return {
        message: `The agent references this skill as @${minted.handle}${minted.suffixed ? " (the plain name is taken, so a number was added)" : ""}`,
        severity: vscode.InputBoxValidationSeverity.Info,
      };
    },
  });
}

export function registerCommands(context: vscode.ExtensionContext, client: LanguageClient, output: vscode.OutputChannel): void {
  const alignmentDocuments = new AlignmentDocuments(client);
  const register = (command: string, callback: (...args: never[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(command, callback));

  register("skill.newSkill", async (resource?: vscode.Uri, givenTitle?: string, givenFormat?: SkillFormatChoice) => {
    const picked = await pickFolder(resource);
    if (!picked) return void vscode.window.showWarningMessage("Open a folder first: a skill is a file in your workspace.");
    const format = givenFormat ?? (await askFormat(picked));
    if (format === undefined) return undefined;
    const folder = format === "agent-skill" ? await pickSkillsFolder(picked) : picked;
    if (!folder) return undefined;
    const title = givenTitle ?? (await askTitle(client, "New Skill", ""));
    if (title === undefined) return undefined;
    try {
      const created = await client.sendRequest(NewSkillRequest, { title, folderUri: folder.toString(), format });
      if (!(await applyServerEdit(client, created.edit, "The new skill"))) return undefined;
      const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(created.uri));
      await document.save();
      await vscode.window.showTextDocument(document);
      return created.uri;
    } catch (error) {
      void vscode.window.showErrorMessage(`Could not create the skill: ${errorMessage(error)}`);
      return undefined;
    }
  });

  register("skill.renameSkill", async (resource?: vscode.Uri, newName?: string) => {
    const uri = resource ?? vscode.window.activeTextEditor?.document.uri;
    if (!uri) return void vscode.window.showWarningMessage("Open a skill file to rename its skill.");
    const skill = await client.sendRequest(SkillAtRequest, { uri: uri.toString() });
    if (!skill) return void vscode.window.showWarningMessage("This file is not a skill (a skill is a <handle>.skill.md file).");
    const name =
      newName ??
      (await vscode.window.showInputBox({
        title: `Rename @${skill.handle}`,
        prompt: "The new handle; every @mention in the workspace follows.",
        value: skill.handle,
        validateInput: async (value) => {
          const minted = await client.sendRequest(MintRequest, { title: value, currentUri: uri.toString() });
          return minted.handle === value.replace(/^@/, "") ? undefined : { message: `Not free or not valid as typed; @${minted.handle} would be.`, severity: vscode.InputBoxValidationSeverity.Warning };
        },
      }));
    if (name === undefined) return false;
    try {
      const edit = await client.sendRequest(RenameSkillRequest, { uri: uri.toString(), newName: name });
      return await applyServerEdit(client, edit, `The rename of @${skill.handle}`);
    } catch (error) {
      void vscode.window.showErrorMessage(`Cannot rename @${skill.handle}: ${errorMessage(error)}`);
      return false;
    }
  });

  register("skill.createBuiltins", async (resource?: vscode.Uri) => {
    const folder = resource ?? (await pickFolder(undefined));
    if (!folder) return void vscode.window.showWarningMessage("Open a folder first: the built-in skills are written into it.");
    const result = await client.sendRequest(CreateBuiltinsRequest, { folderUri: folder.toString() });
    if (result.created.length === 0) {
      void vscode.window.showInformationMessage(`This workspace already has ${result.skipped.map((handle) => `@${handle}`).join(", ")}.`);
      return result;
    }
    if (await applyServerEdit(client, result.edit, "The built-in skills", true)) {
      void vscode.window.showInformationMessage(`Created ${result.created.map((handle) => `@${handle}`).join(", ")}${result.skipped.length > 0 ? `; kept the existing ${result.skipped.map((handle) => `@${handle}`).join(", ")}` : ""}.`);
    }
    return result;
  });

  register("skill.showAlignment", async () => {
    alignmentDocuments.refresh();
    const document = await vscode.workspace.openTextDocument(AlignmentDocuments.uri);
    await vscode.languages.setTextDocumentLanguage(document, "markdown");
    await vscode.window.showTextDocument(document, { preview: true });
    return document.getText();
  });
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(AlignmentDocuments.scheme, alignmentDocuments));

  register("skill.loadModel", async () => {
    try {
      const loaded = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: "Loading the planner's model…", cancellable: true }, (_progress, token) =>
        client.sendRequest(PrepareModelRequest, token),
      );
      void vscode.window.showInformationMessage(`Model ${loaded.description}: token counts are now exact.`);
      return loaded.description;
    } catch (error) {
      void vscode.window.showErrorMessage(`Could not load the model: ${errorMessage(error)}`, "Choose Model File…").then((choice) => choice && vscode.commands.executeCommand("skill.chooseModel"));
      return undefined;
    }
  });
  register("skill.restartServer", async () => {
    await client.restart();
  });
  register("skill.showOutput", () => output.show());
  register(ClientCommands.showReferences, async (uri: string, position: { line: number; character: number }) => {
    await vscode.commands.executeCommand("editor.action.findReferences", vscode.Uri.parse(uri), new vscode.Position(position.line, position.character));
  });
}
