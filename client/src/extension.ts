import * as vscode from "vscode";
import { LanguageClient, State, TransportKind, CloseAction, ErrorAction, type LanguageClientOptions, type ServerOptions } from "vscode-languageclient/node";
import { LANGUAGE_ID, NamespaceStatusNotification, SERVER_NODE_FLAGS, serverEnvironment, TOOL_SCHEME } from "../../shared/protocol.js";
import { registerCommands } from "./commands.js";
import { registerBundleCommands } from "./bundles.js";
import { registerGraphCommands } from "./graphPanel.js";
import { registerPlanCommands } from "./planPanel.js";
import { registerRoutingTests } from "./routingTests.js";
import { ToolDocuments } from "./documents.js";
import { StatusItem } from "./status.js";

/** VS Code's own language for Agent Skills' SKILL.md (built in since 1.10x, with a validator of its own). */
const VSCODE_SKILL_LANGUAGE = "skill";

/** The files of an Agent Skills workspace that the server reads besides `.skill.md`. */
const AGENT_SKILLS_PATTERNS = ["**/SKILL.md", "**/skill.md", "**/CLAUDE.md", "**/AGENTS.md", "**/{.claude,.agents,.codex,skills}/**/*.md"];

/** Restarts within this window count toward the limit; past it the server stays down and says so. */
const RESTART_WINDOW_MS = 3 * 60 * 1000;
const MAX_RESTARTS = 5;

let client: LanguageClient | undefined;

/** The extension's API, for tests and for other extensions. */
export interface SkillExtensionApi {
  readonly client: LanguageClient;
}

export async function activate(context: vscode.ExtensionContext): Promise<SkillExtensionApi> {
  const output = vscode.window.createOutputChannel("Skill Language Server", { log: true });
  const serverModule = context.asAbsolutePath("dist/server.js");
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: [...SERVER_NODE_FLAGS], env: serverEnvironment(process.env) } },
    debug: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: [...SERVER_NODE_FLAGS, "--nolazy", "--inspect=6019"], env: serverEnvironment(process.env) } },
  };
  const status = new StatusItem();
  const restarts: number[] = [];
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: LANGUAGE_ID },
      { scheme: "untitled", language: LANGUAGE_ID },
      { scheme: "file", pattern: "**/skills.json" },
      // Agent Skills: SKILL.md (VS Code's own `skill` language) and the Markdown the agents read.
      ...AGENT_SKILLS_PATTERNS.map((pattern) => ({ scheme: "file", pattern })),
    ],
    initializationOptions: { editorValidatesSkillFiles: (await vscode.languages.getLanguages()).includes(VSCODE_SKILL_LANGUAGE) },
    synchronize: {
      configurationSection: "skill",
      fileEvents: ["**/*.skill.md", "**/skills.json", "**/.skillignore", ...AGENT_SKILLS_PATTERNS].map((glob) => vscode.workspace.createFileSystemWatcher(glob)),
    },
    outputChannel: output,
    traceOutputChannel: output,
    middleware: {
      // VS Code turns a refused rename into an information message that slips into the notification centre.
      // A refusal ("not a valid handle", "taken by the built-in tool") is an error the user must see at once:
      // show it as one, and answer an empty edit so VS Code adds no second message.
      provideRenameEdits: async (document, position, newName, token, next) => {
        try {
          return await next(document, position, newName, token);
        } catch (error) {
          if (token.isCancellationRequested || error instanceof vscode.CancellationError) throw error;
          void vscode.window.showErrorMessage(`Cannot rename to "${newName}": ${error instanceof Error ? error.message : String(error)}`);
          return new vscode.WorkspaceEdit();
        }
      },
    },
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue }),
      closed: () => {
        const now = Date.now();
        while (restarts.length > 0 && now - (restarts[0] ?? now) > RESTART_WINDOW_MS) restarts.shift();
        restarts.push(now);
        if (restarts.length > MAX_RESTARTS) {
          void vscode.window.showErrorMessage(`The skill language server stopped ${MAX_RESTARTS} times in three minutes and will not be restarted. See the output for why; run "Skill: Restart Language Server" to try again.`, "Show Output").then((choice) => choice && output.show());
          return { action: CloseAction.DoNotRestart, handled: true };
        }
        void vscode.window.showWarningMessage("The skill language server stopped unexpectedly; it has been restarted.");
        return { action: CloseAction.Restart, handled: true };
      },
    },
  };
  client = new LanguageClient("skill", "Skill Language Server", serverOptions, clientOptions);
  const running = client;
  context.subscriptions.push(
    output,
    status,
    running.onDidChangeState((event) => status.setState(event.newState === State.Running ? "running" : event.newState === State.Starting ? "starting" : "stopped")),
    running.onNotification(NamespaceStatusNotification, (namespace) => status.setNamespace(namespace)),
    vscode.workspace.registerTextDocumentContentProvider(TOOL_SCHEME, new ToolDocuments(running)),
  );
  registerCommands(context, running, output);
  registerPlanCommands(context, running);
  registerRoutingTests(context, running);
  registerGraphCommands(context, running);
  registerBundleCommands(context, running);
  await running.start();
  return { client: running };
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
