import { TextDocuments } from "vscode-languageserver/node.js";
import { TextDocument } from "vscode-languageserver-textdocument";
import { canonicalUri } from "../node/fileUris.js";

/**
 * The editor's open documents, found by any spelling of their URI. A client may write a file URI otherwise than
 * VS Code does (Neovim leaves a `+`, an `@` or a `=` of a path as it is, where VS Code writes `%2B`), and
 * the server names every file by its canonical URI ({@link canonicalUri}): asked by that name, a document opened
 * under another is found too. Without it the first index took such an editor's file for a closed one and read the
 * disk's text over the editor's.
 */
export class OpenDocuments extends TextDocuments<TextDocument> {
  /** Canonical URI → the URI the client opened it under, where the two differ. */
  readonly #spellings = new Map<string, string>();

  constructor() {
    super(TextDocument);
    // Registered first, so the name is known before any other listener hears of the document.
    this.onDidOpen((event) => {
      const uri = event.document.uri;
      const canonical = canonicalUri(uri);
      if (canonical !== uri) this.#spellings.set(canonical, uri);
    });
    this.onDidClose((event) => this.#spellings.delete(canonicalUri(event.document.uri)));
  }

  override get(uri: string): TextDocument | undefined {
    const document = super.get(uri);
    if (document !== undefined || this.#spellings.size === 0) return document;
    const written = this.#spellings.get(uri);
    return written === undefined ? undefined : super.get(written);
  }
}
