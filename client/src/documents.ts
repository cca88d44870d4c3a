import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { AlignmentRequest, ToolDescriptionRequest } from "../../shared/protocol.js";
import { countOf, groupedDigits } from "../../shared/words.js";

/** Read-only pages describing built-in tools: the target of "Go to Definition" on a tool mention. */
export class ToolDocuments implements vscode.TextDocumentContentProvider {
  readonly #client: LanguageClient;

  constructor(client: LanguageClient) {
    this.#client = client;
  }

  provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Thenable<string> {
    const slug = uri.path.replace(/^\//, "").replace(/\.md$/, "");
    return this.#client.sendRequest(ToolDescriptionRequest, { slug }, token);
  }
}

/** The planner's whole system prompt as a read-only document, headed by its size. */
export class AlignmentDocuments implements vscode.TextDocumentContentProvider {
  static readonly scheme = "skill-alignment";
  static readonly uri = vscode.Uri.parse(`${AlignmentDocuments.scheme}:/Alignment.md`);
  readonly #client: LanguageClient;
  readonly #changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.#changed.event;

  constructor(client: LanguageClient) {
    this.#client = client;
  }

  refresh(): void {
    this.#changed.fire(AlignmentDocuments.uri);
  }

  async provideTextDocumentContent(_uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const alignment = await this.#client.sendRequest(AlignmentRequest, token);
    const shares = alignment.entries
      .map((entry) => `<!--   @${entry.handle} (${entry.kind}): ${entry.tokens} tokens, ${Math.round((100 * entry.tokens) / Math.max(alignment.tokens, 1))}% -->`)
      .join("\n");
    const header = [
      `<!-- The planner's system prompt: ${alignment.label}${alignment.exact ? " (the loaded model's tokenizer)" : " (estimated: characters / 4)"}. -->`,
      alignment.planning
        ? `<!-- Planning is on: ${countOf(alignment.menuSkills.length, "skill")} and ${countOf(alignment.menuTools.length, "tool")} on the menu. -->`
        : "<!-- Planning is off: no skill is on the menu, so requests go straight to the model. -->",
      ...(alignment.planning
        ? [
            alignment.fit.sentence
              ? `<!-- ${alignment.fit.sentence} -->`
              : `<!-- It fits the model's context of ${groupedDigits(alignment.fit.contextSize)} tokens, which leaves ${groupedDigits(alignment.fit.budget)} for the menu once the request and the plan have their room. -->`,
          ]
        : []),
      ...(shares ? ["<!-- Each menu entry's share: -->", shares] : []),
      "",
    ].join("\n");
    return `${header}\n${alignment.text}`;
  }
}
