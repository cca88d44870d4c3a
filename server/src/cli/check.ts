import type { CoreDiagnostic } from "../core/index.js";
import { loadNamespace, parseArgs, relativeUri, type Verb } from "./common.js";

function formatDiagnostic(uri: string, diagnostic: CoreDiagnostic): string {
  const { line, character } = diagnostic.range.start;
  return `${relativeUri(uri)}:${line + 1}:${character + 1} ${diagnostic.severity} ${diagnostic.code} ${diagnostic.message}`;
}

/** `check [folder…]`: every diagnostic of the folders' skills and configs; exit 1 when one is an error. */
export const checkVerb: Verb = {
  name: "check",
  usage: `check [folder…]              Print every diagnostic as file:line:col severity code message.
                               Exits 1 when there is an error. Default folder: the current one.`,
  async run(args, io) {
    const { folders } = parseArgs(args, { positionalFolders: true });
    const namespace = await loadNamespace(folders);
    let errors = 0;
    const uris = [...[...namespace.skills()].map((skill) => skill.uri), ...namespace.configs().map((config) => config.uri)].sort();
    for (const uri of uris) {
      for (const diagnostic of namespace.diagnose(uri)) {
        if (diagnostic.severity === "error") errors++;
        io.out(formatDiagnostic(uri, diagnostic));
      }
    }
    return errors > 0 ? 1 : 0;
  },
};
