import type { ClientCapabilities, Message } from "vscode-languageserver-protocol";
import { NOT_IN_MODEL, type MetaModel } from "./metaModel.js";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every object inside a value, depth first, with its path. */
function* objects(value: unknown, at: string): Generator<[Json, string]> {
  if (Array.isArray(value)) {
    for (const [index, element] of value.entries()) yield* objects(element, `${at}[${index}]`);
  } else if (isObject(value)) {
    yield [value, at];
    for (const [key, element] of Object.entries(value)) yield* objects(element, `${at}.${key}`);
  }
}

/** What a workspace edit inside any answer may use, under these capabilities. */
function editProblems(capabilities: ClientCapabilities, edit: unknown, at: string): string[] {
  if (!isObject(edit)) return [];
  const problems: string[] = [];
  const workspaceEdit = capabilities.workspace?.workspaceEdit;
  const takesDocumentChanges = workspaceEdit?.documentChanges === true || (workspaceEdit?.resourceOperations?.length ?? 0) > 0;
  if (edit.documentChanges !== undefined && !takesDocumentChanges) problems.push(`${at}: documentChanges sent to a client without documentChanges`);
  const operations = new Set<string>(workspaceEdit?.resourceOperations ?? []);
  for (const change of Array.isArray(edit.documentChanges) ? edit.documentChanges : []) {
    if (isObject(change) && typeof change.kind === "string" && !operations.has(change.kind)) problems.push(`${at}: a "${change.kind}" file operation sent to a client without that resource operation`);
  }
  return problems;
}

function markdownProblems(allowed: readonly string[] | undefined, content: unknown, at: string): string[] {
  return isObject(content) && content.kind === "markdown" && !(allowed ?? []).includes("markdown") ? [`${at}: Markdown sent to a client that reads ${allowed?.join(", ") || "plain text"} only`] : [];
}

function completionItemProblems(capabilities: ClientCapabilities, item: unknown, at: string): string[] {
  if (!isObject(item)) return [];
  const announced = capabilities.textDocument?.completion?.completionItem;
  const problems = markdownProblems(announced?.documentationFormat, item.documentation, `${at}.documentation`);
  if (item.insertTextFormat === 2 && announced?.snippetSupport !== true) problems.push(`${at}: a snippet sent to a client without snippetSupport`);
  if (item.labelDetails !== undefined && announced?.labelDetailsSupport !== true) problems.push(`${at}: labelDetails sent to a client without labelDetailsSupport`);
  return problems;
}

/**
 * The problems of one message the server sent, for a client with these capabilities: not valid by the meta
 * model, or using something the client did not announce. `method` is the request a response answers.
 */
export function messageProblems(model: MetaModel, capabilities: ClientCapabilities, message: Message, method: string | undefined): string[] {
  const raw = message as unknown as Json;
  const text = capabilities.textDocument;
  const workspace = capabilities.workspace;
  if (typeof raw.method === "string") {
    const name = raw.method;
    const problems: string[] = [];
    const valid = model.validateParams(name, raw.params);
    if (valid === NOT_IN_MODEL) {
      if (!name.startsWith("skill/")) problems.push(`${name}: not an LSP 3.17 method and not one of the server's own`);
    } else problems.push(...valid);
    const direction = model.request(name)?.messageDirection ?? model.notification(name)?.messageDirection;
    if (direction === "clientToServer") problems.push(`${name}: sent by the server, but only a client may send it`);
    const params = isObject(raw.params) ? raw.params : {};
    const refresh: Record<string, boolean | undefined> = {
      "workspace/diagnostic/refresh": workspace?.diagnostics?.refreshSupport,
      "workspace/semanticTokens/refresh": workspace?.semanticTokens?.refreshSupport,
      "workspace/codeLens/refresh": workspace?.codeLens?.refreshSupport,
      "workspace/inlayHint/refresh": workspace?.inlayHint?.refreshSupport,
      "workspace/configuration": workspace?.configuration,
      "window/workDoneProgress/create": capabilities.window?.workDoneProgress,
      "workspace/workspaceFolders": workspace?.workspaceFolders,
      "workspace/applyEdit": workspace?.applyEdit,
      "window/showDocument": capabilities.window?.showDocument?.support,
    };
    if (name in refresh && refresh[name] !== true) problems.push(`${name}: sent to a client that did not announce it`);
    if (name === "client/registerCapability") {
      for (const registration of Array.isArray(params.registrations) ? params.registrations : []) {
        const registered = isObject(registration) ? String(registration.method) : "";
        if (registered === "workspace/didChangeWatchedFiles" && workspace?.didChangeWatchedFiles?.dynamicRegistration !== true) problems.push(`${name}: watched files registered with a client without dynamic registration`);
      }
    }
    if (name === "textDocument/publishDiagnostics") {
      const publish = text?.publishDiagnostics;
      if (text?.diagnostic !== undefined) problems.push(`${name}: pushed to a client that pulls diagnostics`);
      if (params.version !== undefined && publish?.versionSupport !== true) problems.push(`${name}: a version sent to a client without versionSupport`);
      for (const [diagnostic, at] of objects(params.diagnostics, "diagnostics")) {
        if (!("message" in diagnostic)) continue;
        if (diagnostic.data !== undefined && publish?.dataSupport !== true) problems.push(`${name} ${at}: data sent to a client without dataSupport`);
        if (diagnostic.relatedInformation !== undefined && publish?.relatedInformation !== true) problems.push(`${name} ${at}: relatedInformation sent to a client without it`);
        for (const tag of Array.isArray(diagnostic.tags) ? diagnostic.tags : []) if (!(publish?.tagSupport?.valueSet ?? []).includes(tag as 1 | 2)) problems.push(`${name} ${at}: tag ${String(tag)} not announced`);
      }
    }
    if (name === "workspace/applyEdit") problems.push(...editProblems(capabilities, params.edit, name));
    return problems;
  }

  if (method === undefined) return [`a response to a request the client never sent (id ${String(raw.id)})`];
  if (isObject(raw.error)) {
    const error = raw.error;
    return Number.isInteger(error.code) && typeof error.message === "string" && error.message.length > 0 ? [] : [`${method}: a malformed error ${JSON.stringify(error)}`];
  }
  const result = raw.result;
  const problems: string[] = [];
  const valid = model.validateResult(method, result);
  if (valid !== NOT_IN_MODEL) problems.push(...valid);
  else if (!method.startsWith("skill/")) problems.push(`${method}: not an LSP 3.17 request`);

  if (method === "initialize" && isObject(result) && isObject(result.capabilities)) {
    const server = result.capabilities;
    if (isObject(server.renameProvider) && server.renameProvider.prepareProvider === true && text?.rename?.prepareSupport !== true) problems.push("initialize: prepareProvider announced to a client without prepareSupport");
    if (server.diagnosticProvider !== undefined && text?.diagnostic === undefined) problems.push("initialize: a diagnostic provider announced to a client that does not pull");
    if (server.semanticTokensProvider !== undefined && text?.semanticTokens === undefined) problems.push("initialize: semantic tokens announced to a client without them");
    const folders = isObject(server.workspace) ? server.workspace : {};
    if (folders.workspaceFolders !== undefined && workspace?.workspaceFolders !== true) problems.push("initialize: workspace folders announced to a client without them");
    const operations = isObject(folders.fileOperations) ? folders.fileOperations : {};
    for (const key of Object.keys(operations)) if ((workspace?.fileOperations as Record<string, unknown> | undefined)?.[key] !== true) problems.push(`initialize: fileOperations.${key} announced to a client without it`);
  }
  if (method === "textDocument/hover" && isObject(result)) problems.push(...markdownProblems(text?.hover?.contentFormat, result.contents, "hover"));
  if (method === "textDocument/completion" && isObject(result)) {
    const items = Array.isArray(result.items) ? result.items : [];
    items.forEach((item, index) => problems.push(...completionItemProblems(capabilities, item, `completion.items[${index}]`)));
    const defaults = isObject(result.itemDefaults) ? Object.keys(result.itemDefaults) : [];
    const allowed = text?.completion?.completionList?.itemDefaults ?? [];
    for (const key of defaults) if (!allowed.includes(key)) problems.push(`completion: itemDefaults.${key} sent to a client that did not list it`);
  }
  if (method === "completionItem/resolve") problems.push(...completionItemProblems(capabilities, result, "resolved item"));
  if (method === "textDocument/documentSymbol" && Array.isArray(result) && result.some((symbol) => isObject(symbol) && "selectionRange" in symbol) && text?.documentSymbol?.hierarchicalDocumentSymbolSupport !== true) {
    problems.push("documentSymbol: hierarchical symbols sent to a client without hierarchicalDocumentSymbolSupport");
  }
  if (method === "textDocument/codeAction" && Array.isArray(result)) {
    result.forEach((action, index) => {
      if (!isObject(action)) return;
      if (typeof action.command !== "string" && text?.codeAction?.codeActionLiteralSupport === undefined) problems.push(`codeAction[${index}]: a code action literal sent to a client without codeActionLiteralSupport`);
      problems.push(...editProblems(capabilities, action.edit, `codeAction[${index}].edit`));
    });
  }
  if (method === "textDocument/rename" || method === "workspace/willRenameFiles" || method === "skill/renameSkill") problems.push(...editProblems(capabilities, result, method));
  return problems;
}
