import {
  DiagnosticTag,
  MarkupKind,
  TextDocumentSyncKind,
  type ClientCapabilities,
  type CodeAction,
  type CompletionItem,
  type CompletionList,
  type Diagnostic,
  type DocumentSymbol,
  type Hover,
  type ServerCapabilities,
  type SymbolInformation,
  type TextDocumentEdit,
  type TextEdit,
  type WorkspaceEdit,
} from "vscode-languageserver/node.js";
import type { Refusal } from "../core/index.js";
import { UPDATE_MOVED_MENTIONS_KIND } from "../service/moves.js";
import { markdownToPlainText } from "../service/plainText.js";

/** A file operation a workspace edit may carry, as LSP names them. */
export type ResourceOperation = "create" | "rename" | "delete";

/**
 * What the client announced at `initialize`, read once. Every answer and every message the server sends is
 * fitted to it: a client that did not announce a capability is never sent it.
 */
export interface ClientProfile {
  readonly hoverMarkdown: boolean;
  readonly completionDocsMarkdown: boolean;
  readonly snippets: boolean;
  readonly labelDetails: boolean;
  /** The completion list may carry a shared `itemDefaults.editRange`. */
  readonly defaultEditRange: boolean;
  readonly prepareRename: boolean;
  /** Workspace edits may use `documentChanges` (versioned edits); else only the unversioned `changes` map. */
  readonly documentChanges: boolean;
  readonly resourceOperations: ReadonlySet<ResourceOperation>;
  readonly codeActionLiterals: boolean;
  readonly hierarchicalSymbols: boolean;
  /** Pull diagnostics (`textDocument/diagnostic`); push (`publishDiagnostics`) otherwise. */
  readonly pullDiagnostics: boolean;
  readonly diagnosticRefresh: boolean;
  readonly semanticTokens: boolean;
  readonly semanticRefresh: boolean;
  readonly codeLensRefresh: boolean;
  readonly configuration: boolean;
  readonly workspaceFolders: boolean;
  /** The server may register `workspace/didChangeWatchedFiles` itself. */
  readonly watchRegistration: boolean;
  readonly workDoneProgress: boolean;
  readonly fileOperations: { readonly willRename: boolean; readonly didRename: boolean; readonly didCreate: boolean; readonly didDelete: boolean };
  /** What a diagnostic may carry: `data` (fix data the client echoes back), related information, tags, a version on push. */
  readonly diagnosticData: boolean;
  readonly relatedInformation: boolean;
  readonly diagnosticTags: ReadonlySet<DiagnosticTag>;
  readonly publishVersion: boolean;
}

/** Reads the client's capabilities into one profile. */
export function readClientProfile(capabilities: ClientCapabilities): ClientProfile {
  const text = capabilities.textDocument;
  const workspace = capabilities.workspace;
  const completion = text?.completion;
  const publish = text?.publishDiagnostics;
  const edit = workspace?.workspaceEdit;
  const operations = workspace?.fileOperations;
  // Resource operations exist only inside `documentChanges`: a client that lists them (Neovim 0.7 does, without
  // `documentChanges`) takes `documentChanges`.
  const documentChanges = edit?.documentChanges === true || (edit?.resourceOperations?.length ?? 0) > 0;
  const kinds = new Set<ResourceOperation>();
  if (documentChanges) for (const kind of edit?.resourceOperations ?? []) if (kind === "create" || kind === "rename" || kind === "delete") kinds.add(kind);
  return {
    hoverMarkdown: text?.hover?.contentFormat?.includes(MarkupKind.Markdown) === true,
    completionDocsMarkdown: completion?.completionItem?.documentationFormat?.includes(MarkupKind.Markdown) === true,
    snippets: completion?.completionItem?.snippetSupport === true,
    labelDetails: completion?.completionItem?.labelDetailsSupport === true,
    defaultEditRange: completion?.completionList?.itemDefaults?.includes("editRange") === true,
    prepareRename: text?.rename?.prepareSupport === true,
    documentChanges,
    resourceOperations: kinds,
    codeActionLiterals: text?.codeAction?.codeActionLiteralSupport !== undefined,
    hierarchicalSymbols: text?.documentSymbol?.hierarchicalDocumentSymbolSupport === true,
    pullDiagnostics: text?.diagnostic !== undefined,
    diagnosticRefresh: workspace?.diagnostics?.refreshSupport === true,
    semanticTokens: text?.semanticTokens !== undefined,
    semanticRefresh: workspace?.semanticTokens?.refreshSupport === true,
    codeLensRefresh: workspace?.codeLens?.refreshSupport === true,
    configuration: workspace?.configuration === true,
    workspaceFolders: workspace?.workspaceFolders === true,
    watchRegistration: workspace?.didChangeWatchedFiles?.dynamicRegistration === true,
    workDoneProgress: capabilities.window?.workDoneProgress === true,
    fileOperations: {
      willRename: operations?.willRename === true,
      didRename: operations?.didRename === true,
      didCreate: operations?.didCreate === true,
      didDelete: operations?.didDelete === true,
    },
    diagnosticData: publish?.dataSupport === true,
    relatedInformation: publish?.relatedInformation === true,
    diagnosticTags: new Set(publish?.tagSupport?.valueSet ?? []),
    publishVersion: publish?.versionSupport === true,
  };
}

/** The providers this server announces to a client with this profile. */
export function serverCapabilities(profile: ClientProfile, tokenLegend: { readonly tokenTypes: readonly string[]; readonly tokenModifiers: readonly string[] }): ServerCapabilities {
  // Skill files, Agent Skills' SKILL.md, and their folders (a folder renamed in the explorer renames its skill).
  const skillFiles = {
    filters: [
      { scheme: "file", pattern: { glob: "**/*.skill.md", options: { ignoreCase: true } } },
      { scheme: "file", pattern: { glob: "**/skills/*/SKILL.md" } },
      { scheme: "file", pattern: { glob: "**/skills/*", matches: "folder" as const } },
    ],
  };
  const operations = profile.fileOperations;
  const fileOperations = {
    ...(operations.willRename ? { willRename: skillFiles } : {}),
    ...(operations.didRename ? { didRename: skillFiles } : {}),
    ...(operations.didCreate ? { didCreate: skillFiles } : {}),
    ...(operations.didDelete ? { didDelete: skillFiles } : {}),
  };
  const workspace: NonNullable<ServerCapabilities["workspace"]> = {
    ...(profile.workspaceFolders ? { workspaceFolders: { supported: true, changeNotifications: true } } : {}),
    ...(Object.keys(fileOperations).length > 0 ? { fileOperations } : {}),
  };
  return {
    textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
    completionProvider: { triggerCharacters: ["@", "/", "$"], resolveProvider: true },
    hoverProvider: true,
    definitionProvider: true,
    referencesProvider: true,
    documentSymbolProvider: true,
    workspaceSymbolProvider: true,
    codeLensProvider: { resolveProvider: false },
    codeActionProvider: profile.codeActionLiterals ? { codeActionKinds: ["quickfix", UPDATE_MOVED_MENTIONS_KIND] } : true,
    renameProvider: profile.prepareRename ? { prepareProvider: true } : true,
    ...(profile.semanticTokens ? { semanticTokensProvider: { legend: { tokenTypes: [...tokenLegend.tokenTypes], tokenModifiers: [...tokenLegend.tokenModifiers] }, full: true, range: true } } : {}),
    ...(profile.pullDiagnostics ? { diagnosticProvider: { identifier: "skill", interFileDependencies: true, workspaceDiagnostics: true } } : {}),
    ...(Object.keys(workspace).length > 0 ? { workspace } : {}),
  };
}

/**
 * A workspace edit in the form this client applies: resource operations only when announced (else the edit is
 * refused as a whole, never applied in part), `documentChanges` or, without them, the `changes` map, which
 * carries no document versions (an edit on a document that changed meanwhile is not caught by the client).
 */
export function fitEdit(edit: WorkspaceEdit, profile: ClientProfile): WorkspaceEdit | Refusal {
  const changes = edit.documentChanges ?? [];
  const missing = new Set<ResourceOperation>();
  for (const change of changes) if ("kind" in change && !profile.resourceOperations.has(change.kind)) missing.add(change.kind);
  if (missing.size > 0) return { refused: `This editor cannot ${[...missing].map((kind) => `${kind} files`).join(" or ")} through the language server, so the change is not made.` };
  if (profile.documentChanges || changes.length === 0) return edit;
  const byUri: Record<string, TextEdit[]> = { ...edit.changes };
  for (const change of changes as TextDocumentEdit[]) {
    const list = (byUri[change.textDocument.uri] ??= []);
    for (const one of change.edits) list.push({ range: one.range, newText: one.newText });
  }
  return { changes: byUri };
}

/** Markdown hovers as plain text for a client that reads only plain text. */
export function fitHover(hover: Hover | null, profile: ClientProfile): Hover | null {
  if (!hover || profile.hoverMarkdown) return hover;
  const contents = hover.contents;
  if (typeof contents === "object" && "kind" in contents && contents.kind === MarkupKind.Markdown) return { ...hover, contents: { kind: MarkupKind.PlainText, value: markdownToPlainText(contents.value) } };
  return hover;
}

/** A completion list without what the client did not announce: label details folded into `detail`. */
export function fitCompletionList(list: CompletionList | null, profile: ClientProfile): CompletionList | null {
  if (!list || profile.labelDetails) return list;
  return { ...list, items: list.items.map((item) => fitCompletionItem(item, profile)) };
}

export function fitCompletionItem(item: CompletionItem, profile: ClientProfile): CompletionItem {
  let fitted = item;
  if (!profile.labelDetails && fitted.labelDetails) {
    const { labelDetails, ...rest } = fitted;
    const words = [labelDetails.detail?.trim(), labelDetails.description].filter((word) => word);
    fitted = { ...rest, ...(rest.detail === undefined && words.length > 0 ? { detail: words.join(": ") } : {}) };
  }
  const docs = fitted.documentation;
  if (!profile.completionDocsMarkdown && typeof docs === "object" && docs.kind === MarkupKind.Markdown) fitted = { ...fitted, documentation: { kind: MarkupKind.PlainText, value: markdownToPlainText(docs.value) } };
  return fitted;
}

/** Code actions this client can take: literals only when announced, each edit fitted, those that cannot be dropped. */
export function fitCodeActions(actions: readonly CodeAction[], profile: ClientProfile): CodeAction[] {
  if (!profile.codeActionLiterals) return [];
  const fitted: CodeAction[] = [];
  for (const action of actions) {
    if (!action.edit) {
      fitted.push(action);
      continue;
    }
    const edit = fitEdit(action.edit, profile);
    if (!("refused" in edit)) fitted.push({ ...action, edit });
  }
  return fitted;
}

/** Document symbols as the flat list a client without hierarchical support reads. */
export function fitDocumentSymbols(uri: string, symbols: DocumentSymbol[] | null, profile: ClientProfile): DocumentSymbol[] | SymbolInformation[] | null {
  if (!symbols || profile.hierarchicalSymbols) return symbols;
  const flat: SymbolInformation[] = [];
  const visit = (symbol: DocumentSymbol, container: string | undefined) => {
    flat.push({ name: symbol.name, kind: symbol.kind, location: { uri, range: symbol.range }, ...(container ? { containerName: container } : {}) });
    for (const child of symbol.children ?? []) visit(child, symbol.name);
  };
  for (const symbol of symbols) visit(symbol, undefined);
  return flat;
}

/** Diagnostics without the fields the client did not announce. */
export function fitDiagnostics(diagnostics: Diagnostic[], profile: ClientProfile): Diagnostic[] {
  if (profile.diagnosticData && profile.relatedInformation && profile.diagnosticTags.has(DiagnosticTag.Unnecessary)) return diagnostics;
  return diagnostics.map((diagnostic) => {
    const { data, relatedInformation, tags, ...rest } = diagnostic;
    const kept = tags?.filter((tag) => profile.diagnosticTags.has(tag));
    return {
      ...rest,
      ...(profile.diagnosticData && data !== undefined ? { data: data as unknown } : {}),
      ...(profile.relatedInformation && relatedInformation ? { relatedInformation } : {}),
      ...(kept && kept.length > 0 ? { tags: kept } : {}),
    };
  });
}

/**
 * The fix data of diagnostics a client sent back without it (it announced no `dataSupport`): taken from the
 * server's current diagnostics of the file with the same code, range and message.
 */
export function withFixData(sent: readonly Diagnostic[], current: readonly Diagnostic[]): Diagnostic[] {
  const key = (diagnostic: Diagnostic) => `${String(diagnostic.code)} ${diagnostic.range.start.line}:${diagnostic.range.start.character}-${diagnostic.range.end.line}:${diagnostic.range.end.character} ${diagnostic.message}`;
  const byKey = new Map(current.map((diagnostic) => [key(diagnostic), diagnostic]));
  return sent.map((diagnostic) => (diagnostic.data !== undefined ? diagnostic : { ...diagnostic, data: byKey.get(key(diagnostic))?.data, source: diagnostic.source ?? byKey.get(key(diagnostic))?.source }));
}
