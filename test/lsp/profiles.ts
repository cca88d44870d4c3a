import type { ClientCapabilities } from "vscode-languageserver-protocol";

/**
 * The two client profiles the protocol tests run under. FULL is what VS Code announces through
 * vscode-languageclient 9 (the fields this server reads, as that client fills them); MINIMAL is the plainest
 * client the server must still serve whole: no resource operations, no snippets, plain text only, push
 * diagnostics without data, no file watching, no progress, flat symbols.
 */
export const FULL_CLIENT: ClientCapabilities = {
  workspace: {
    applyEdit: true,
    workspaceEdit: { documentChanges: true, resourceOperations: ["create", "rename", "delete"], failureHandling: "textOnlyTransactional", normalizesLineEndings: true, changeAnnotationSupport: { groupsOnLabel: true } },
    didChangeConfiguration: { dynamicRegistration: true },
    didChangeWatchedFiles: { dynamicRegistration: true, relativePatternSupport: true },
    symbol: { dynamicRegistration: true },
    executeCommand: { dynamicRegistration: true },
    configuration: false,
    workspaceFolders: true,
    semanticTokens: { refreshSupport: true },
    codeLens: { refreshSupport: true },
    diagnostics: { refreshSupport: true },
    fileOperations: { dynamicRegistration: true, didCreate: true, willCreate: true, didRename: true, willRename: true, didDelete: true, willDelete: true },
  },
  textDocument: {
    synchronization: { dynamicRegistration: true, willSave: true, willSaveWaitUntil: true, didSave: true },
    completion: {
      dynamicRegistration: true,
      contextSupport: true,
      completionItem: {
        snippetSupport: true,
        commitCharactersSupport: true,
        documentationFormat: ["markdown", "plaintext"],
        deprecatedSupport: true,
        preselectSupport: true,
        tagSupport: { valueSet: [1] },
        insertReplaceSupport: true,
        resolveSupport: { properties: ["documentation", "detail", "additionalTextEdits"] },
        insertTextModeSupport: { valueSet: [1, 2] },
        labelDetailsSupport: true,
      },
      insertTextMode: 2,
      completionList: { itemDefaults: ["commitCharacters", "editRange", "insertTextFormat", "insertTextMode", "data"] },
    },
    hover: { dynamicRegistration: true, contentFormat: ["markdown", "plaintext"] },
    definition: { dynamicRegistration: true, linkSupport: true },
    references: { dynamicRegistration: true },
    documentSymbol: { dynamicRegistration: true, hierarchicalDocumentSymbolSupport: true, labelSupport: true, tagSupport: { valueSet: [1] } },
    codeAction: {
      dynamicRegistration: true,
      isPreferredSupport: true,
      disabledSupport: true,
      dataSupport: true,
      resolveSupport: { properties: ["edit"] },
      codeActionLiteralSupport: { codeActionKind: { valueSet: ["", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source", "source.organizeImports"] } },
      honorsChangeAnnotations: true,
    },
    codeLens: { dynamicRegistration: true },
    rename: { dynamicRegistration: true, prepareSupport: true, prepareSupportDefaultBehavior: 1, honorsChangeAnnotations: true },
    publishDiagnostics: { relatedInformation: true, versionSupport: false, tagSupport: { valueSet: [1, 2] }, codeDescriptionSupport: true, dataSupport: true },
    semanticTokens: {
      dynamicRegistration: true,
      tokenTypes: ["namespace", "type", "class", "function", "variable", "property"],
      tokenModifiers: ["declaration", "deprecated"],
      formats: ["relative"],
      requests: { range: true, full: { delta: true } },
      multilineTokenSupport: false,
      overlappingTokenSupport: false,
      serverCancelSupport: true,
      augmentsSyntaxTokens: true,
    },
    diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false },
  },
  window: { workDoneProgress: true, showMessage: { messageActionItem: { additionalPropertiesSupport: true } }, showDocument: { support: true } },
  general: { positionEncodings: ["utf-16"] },
};

export const MINIMAL_CLIENT: ClientCapabilities = {
  workspace: { applyEdit: true, workspaceEdit: { documentChanges: true }, workspaceFolders: false, configuration: false },
  textDocument: {
    synchronization: { didSave: true },
    completion: { completionItem: { snippetSupport: false, documentationFormat: ["plaintext"] } },
    hover: { contentFormat: ["plaintext"] },
    rename: { prepareSupport: false },
    codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ["quickfix", "source"] } } },
    publishDiagnostics: { relatedInformation: false },
  },
};
