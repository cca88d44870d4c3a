import * as path from "node:path";
import { ThreadedPairFinder } from "../node/threadedJoin.js";
import { pathFromUri, relativePath, uriFromPath } from "../node/workspaceFiles.js";
import { HOMEPAGE, VERSION } from "../version.js";
import { loadLibraryNamespaces, parseArgs, UsageError, type Verb } from "./common.js";
import type { CoreDiagnostic } from "../core/diagnostics.js";
import { CHECK_FORMATS, jsonReport, sarifReport, textLine, type FileDiagnostic } from "./report.js";

const TOOL = { name: "skill-lsp", version: VERSION, informationUri: HOMEPAGE };

/** `check [folder…] [--format text|json|sarif]`: every diagnostic of the folders' skills and configs. */
export const checkVerb: Verb = {
  name: "check",
  usage: `check [folder…] [--format F]  Print every diagnostic. Default folder: the current one. A subfolder
                               with its own skills.json is checked as a library of its own.
                               --format text (default): file:line:col severity code message, one a line;
                               json: a summary and every diagnostic; sarif: SARIF 2.1.0 for code scanning.
                               Exit 0: no error; 1: at least one error; 2: bad arguments or a failure.`,
  async run(args, io) {
    const { folders, values } = parseArgs(args, { positionalFolders: true, valued: ["--format"] });
    const format = values.get("--format") ?? "text";
    if (!(CHECK_FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format takes ${CHECK_FORMATS.join(", ")}; got ${format}.`);
    // The menu-similar pairs are found on other threads while this one diagnoses everything else: one builds the
    // index while the other starts, then both probe (two builders each enumerate every key to keep their half).
    const finder = new ThreadedPairFinder({ threads: 1, probers: 1 });
    // Started before the files are read: each summary is read as its skill comes, while the next files are read.
    const namespaces = await loadLibraryNamespaces(folders, (namespace) => {
      namespace.deferMenuSimilarity();
      namespace.startMenuSimilarity(finder, true);
    });
    const comparing = namespaces.filter((namespace) => namespace.advanceMenuSimilarity(Number.MAX_SAFE_INTEGER) === undefined);
    const files = namespaces
      .flatMap((namespace) => namespace.uris().map((uri) => ({ uri, namespace })))
      .sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
    const diagnosed = files.map(({ uri, namespace }) => namespace.diagnose(uri));
    const warned = new Set<string>();
    for (const namespace of comparing) {
      let done: Set<string> | undefined;
      while ((done = namespace.advanceMenuSimilarity(Number.MAX_SAFE_INTEGER)) === undefined) await namespace.menuSimilarityWaiting;
      for (const uri of done) warned.add(uri);
    }
    // The text report is written as it is made, file by file; the JSON and SARIF reports are one document.
    const text = format === "text" ? new ChunkedLines(io.writeBytes) : undefined;
    const found: FileDiagnostic[] = [];
    let errors = false;
    const shown = shownPaths(process.cwd());
    files.forEach(({ uri, namespace }, index) => {
      const file = shown(pathFromUri(uri));
      const report = (diagnostic: CoreDiagnostic) => {
        errors ||= diagnostic.severity === "error";
        if (text) text.add(textLine(file, diagnostic));
        else found.push({ file, diagnostic });
      };
      (diagnosed[index] ?? []).forEach(report);
      // Warnings that came with the pairs: last in a skill's list, as diagnosing it again would put them.
      if (warned.has(uri)) namespace.menuSimilarDiagnostics(uri).forEach(report);
    });
    if (text) text.end();
    else if (format === "json") io.out(JSON.stringify(jsonReport(TOOL, files.length, found), null, 2));
    else io.out(JSON.stringify(sarifReport(TOOL, uriFromPath(process.cwd()), found), null, 2));
    return errors ? 1 : 0;
  },
};

/**
 * How the report names a file: its path from `cwd` with forward slashes. Each folder's is found once, where
 * `path.relative` for each of 100,000 files outside the current folder (the bench's) took 70 ms.
 */
function shownPaths(cwd: string): (filePath: string) => string {
  const folders = new Map<string, string>();
  return (filePath) => {
    const folder = path.dirname(filePath);
    let shown = folders.get(folder);
    if (shown === undefined) {
      const relative = relativePath(cwd, folder);
      shown = relative === "" ? "" : `${path.sep === "/" ? relative : relative.split(path.sep).join("/")}/`;
      folders.set(folder, shown);
    }
    return shown + path.basename(filePath);
  };
}

/** Bytes of text output gathered into one write. */
const OUTPUT_CHUNK = 65_536;

/**
 * Lines encoded straight into a buffer and written about 64 KB at a time: one write a line was 0.7 s of
 * 146,000 lines' check, all of them made before the first was written held every diagnostic and its line at
 * once, and joining them into strings first took 0.36 to 0.49 s of those 57 MB where encoding them takes about
 * 0.1 s.
 */
class ChunkedLines {
  readonly #write: (bytes: Uint8Array) => void;
  #buffer = Buffer.allocUnsafe(2 * OUTPUT_CHUNK);
  #used = 0;

  constructor(write: (bytes: Uint8Array) => void) {
    this.#write = write;
  }

  add(line: string): void {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8; one more for the line break.
    const room = 3 * line.length + 1;
    if (this.#used + room > this.#buffer.length) {
      this.#flush();
      if (room > this.#buffer.length) this.#buffer = Buffer.allocUnsafe(room);
    }
    this.#used += this.#buffer.write(line, this.#used);
    this.#buffer[this.#used++] = 0x0a;
    if (this.#used >= OUTPUT_CHUNK) this.#flush();
  }

  end(): void {
    if (this.#used > 0) this.#flush();
  }

  #flush(): void {
    this.#write(this.#buffer.subarray(0, this.#used));
    // A new buffer each time: a stream may still hold the one written (pipes are asynchronous on some systems).
    this.#buffer = Buffer.allocUnsafe(2 * OUTPUT_CHUNK);
    this.#used = 0;
  }
}
