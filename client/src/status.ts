import * as vscode from "vscode";
import type { NamespaceStatus } from "../../shared/protocol.js";
import { countOf } from "../../shared/words.js";

/** The status bar item: the server's state, the skill count and the planner menu's size. */
export class StatusItem implements vscode.Disposable {
  readonly #item = vscode.window.createStatusBarItem("skill.status", vscode.StatusBarAlignment.Right, 100);
  #state: "starting" | "running" | "stopped" = "starting";
  #namespace: NamespaceStatus | undefined;

  constructor() {
    this.#item.name = "Skill Language Server";
    this.#item.command = "skill.showAlignment";
    this.#render();
    this.#item.show();
  }

  setState(state: "starting" | "running" | "stopped"): void {
    this.#state = state;
    this.#render();
  }

  setNamespace(namespace: NamespaceStatus): void {
    this.#namespace = namespace;
    this.#render();
  }

  #render(): void {
    const namespace = this.#namespace;
    if (this.#state !== "running" || !namespace) {
      this.#item.text = this.#state === "stopped" ? "$(error) Skills: stopped" : "$(sync~spin) Skills";
      this.#item.tooltip = this.#state === "stopped" ? "The skill language server is not running." : "The skill language server is starting.";
      this.#item.backgroundColor = this.#state === "stopped" ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
      return;
    }
    this.#item.backgroundColor = undefined;
    this.#item.text = namespace.indexing ? "$(sync~spin) Skills: indexing" : `$(symbol-namespace) ${countOf(namespace.skills, "skill")} · menu ${namespace.menuLabel}`;
    const tooltip = new vscode.MarkdownString(
      `**Skill language server**: running\n\n${countOf(namespace.skills, "skill")}, ${countOf(namespace.tools, "tool")}\n\n` +
        (namespace.planning ? `Planner menu: ${countOf(namespace.menuSkills, "skill")}, ${namespace.menuLabel}` : "No skill on the menu: requests take the direct path") +
        "\n\nClick to show the alignment.",
    );
    this.#item.tooltip = tooltip;
  }

  dispose(): void {
    this.#item.dispose();
  }
}
