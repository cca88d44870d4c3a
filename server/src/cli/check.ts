import * as path from "node:path";
import { ThreadedPairFinder } from "../node/threadedJoin.js";
import { pathFromUri, relativePath, uriFromPath } from "../node/workspaceFiles.js";
import { HOMEPAGE, VERSION } from "../version.js";
import { loadLibraryNamespaces, parseArgs, UsageError, type Verb } from "./common.js";
import { CHECK_FORMATS, jsonReport, sarifReport, textReport, type CheckFormat, type FileDiagnostic } from "./report.js";

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
    const namespaces = await loadLibraryNamespaces(folders);
    // The menu-similar pairs are found on other threads while this one diagnoses everything else.
    const finder = new ThreadedPairFinder();
    const comparing = namespaces.filter((namespace) => {
      namespace.deferMenuSimilarity();
      namespace.startMenuSimilarity(finder);
      return namespace.advanceMenuSimilarity(Number.MAX_SAFE_INTEGER) === undefined;
    });
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
    const found: FileDiagnostic[] = [];
    const cwd = process.cwd();
    files.forEach(({ uri, namespace }, index) => {
      const filePath = pathFromUri(uri);
      const relative = relativePath(cwd, filePath) || filePath;
      const file = path.sep === "/" ? relative : relative.split(path.sep).join("/");
      for (const diagnostic of diagnosed[index] ?? []) found.push({ file, diagnostic });
      // Warnings that came with the pairs: last in a skill's list, as diagnosing it again would put them.
      if (warned.has(uri)) for (const diagnostic of namespace.menuSimilarDiagnostics(uri)) found.push({ file, diagnostic });
    });
    write(format as CheckFormat, files.length, found, io.out);
    return found.some(({ diagnostic }) => diagnostic.severity === "error") ? 1 : 0;
  },
};

/** Characters of text output gathered into one write. */
const OUTPUT_CHUNK = 65_536;

function write(format: CheckFormat, files: number, found: readonly FileDiagnostic[], out: (line: string) => void): void {
  if (format === "text") {
    // Lines go out joined, about 64 KB at a time: one write a line was 0.7 s of 146,000 lines' check.
    let chunk: string[] = [];
    let size = 0;
    for (const line of textReport(found)) {
      chunk.push(line);
      size += line.length + 1;
      if (size >= OUTPUT_CHUNK) {
        out(chunk.join("\n"));
        chunk = [];
        size = 0;
      }
    }
    if (chunk.length > 0) out(chunk.join("\n"));
  }
  else if (format === "json") out(JSON.stringify(jsonReport(TOOL, files, found), null, 2));
  else out(JSON.stringify(sarifReport(TOOL, uriFromPath(process.cwd()), found), null, 2));
}
