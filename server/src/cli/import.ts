import * as path from "node:path";
import { planImport, reviewLines } from "../core/bundle.js";
import { isRefusal } from "../core/index.js";
import { applyImportPlan, readImportSource, WriteRolledBack } from "../node/bundleFiles.js";
import { pathFromUri, uriFromPath } from "../node/workspaceFiles.js";
import { loadNamespace, parseArgs, relativePath, UsageError, type Verb } from "./common.js";

/** `import SOURCE`: reviews a bundle or Agent Skills folder(s); writes with --yes. Exit 1 when refused. */
export const importVerb: Verb = {
  name: "import",
  usage: `import SOURCE [--folder F] [--yes]
                               Review importing a bundle or Agent Skills folder(s) into F (default: the
                               current folder). Nothing is written without --yes.`,
  async run(args, io) {
    const { positional, folders, flags } = parseArgs(args, { flags: ["--yes"] });
    if (positional.length !== 1) throw new UsageError("import needs exactly one bundle file or Agent Skills folder.");
    const source = await readImportSource(positional[0] ?? "");
    if (isRefusal(source)) {
      io.err(`skill-lsp: ${source.refused}`);
      return 1;
    }
    const namespace = await loadNamespace(folders, { mustExist: false });
    const target = path.resolve(folders[0] ?? ".");
    const plan = planImport(namespace, source.bundle, `${uriFromPath(target)}/`);
    if (isRefusal(plan)) {
      io.err(`skill-lsp: ${plan.refused}`);
      return 1;
    }
    for (const line of reviewLines(plan.review, (uri) => relativePath(pathFromUri(uri)))) io.out(line);
    if (source.dropped.length > 0) io.out(`Not imported (no place for them in a .skill.md): ${source.dropped.join(", ")}.`);
    if (!flags.has("--yes")) {
      io.out(plan.files.length === 0 ? "Nothing to write: every skill is already here." : `Nothing was written. Run again with --yes to create ${plan.files.length} file${plan.files.length === 1 ? "" : "s"}.`);
      return 0;
    }
    if (plan.files.length === 0) {
      io.out("Nothing to write: every skill is already here.");
      return 0;
    }
    try {
      const written = await applyImportPlan(plan);
      io.out(`Created ${written.length} file${written.length === 1 ? "" : "s"}: ${written.map(relativePath).join(", ")}.`);
      return 0;
    } catch (error) {
      if (error instanceof WriteRolledBack) {
        io.err(`skill-lsp: ${error.message}`);
        return 1;
      }
      throw error;
    }
  },
};
