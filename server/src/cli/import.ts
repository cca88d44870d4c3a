import * as path from "node:path";
import { planImport, reviewLines } from "../core/bundle.js";
import { isRefusal } from "../core/index.js";
import { applyImportPlan, filesToCreate, readImportSource } from "../node/bundleFiles.js";
import { pathFromUri, uriFromPath } from "../node/workspaceFiles.js";
import { loadNamespace, parseArgs, relativePath, UsageError, type Verb } from "./common.js";

/** `import SOURCE`: reviews a bundle or Agent Skills folder(s); writes with --yes. Exit 1 when refused. */
export const importVerb: Verb = {
  name: "import",
  usage: `import SOURCE [--folder F] [--yes] [--skip-invalid]
                               Review importing a bundle or Agent Skills folder(s), with every file of their
                               folders, into F (default: the current folder). Nothing is written without
                               --yes. A folder of skills with bad ones is refused, all of them named, unless
                               --skip-invalid imports the others.`,
  async run(args, io) {
    const { positional, folders, flags } = parseArgs(args, { flags: ["--yes", "--skip-invalid"] });
    if (positional.length !== 1) throw new UsageError("import needs exactly one bundle file or Agent Skills folder.");
    try {
      const source = await readImportSource(positional[0] ?? "", flags.has("--skip-invalid"));
      if (isRefusal(source)) {
        for (const line of source.refused.split("\n")) io.err(line.startsWith("  ") ? line : `skill-lsp: ${line}`);
        return 1;
      }
      const namespace = await loadNamespace(folders, { mustExist: false });
      const target = path.resolve(folders[0] ?? ".");
      const plan = planImport(namespace, source.bundle, `${uriFromPath(target)}/`, source.leftOut);
      if (isRefusal(plan)) {
        io.err(`skill-lsp: ${plan.refused}`);
        return 1;
      }
      for (const line of source.skipped) io.out(`Skipped (--skip-invalid): ${line}`);
      for (const line of reviewLines(plan.review, (uri) => relativePath(pathFromUri(uri)))) io.out(line);
      if (source.dropped.length > 0) io.out(`Not imported (no place for them in a .skill.md): ${source.dropped.join(", ")}.`);
      const pending = await filesToCreate(plan);
      if (pending.length === 0) {
        io.out("Nothing to write: every skill is already here.");
        return 0;
      }
      if (!flags.has("--yes")) {
        io.out(`Nothing was written. Run again with --yes to create ${pending.length} file${pending.length === 1 ? "" : "s"}.`);
        return 0;
      }
      const written = await applyImportPlan(plan);
      io.out(`Created ${written.length} file${written.length === 1 ? "" : "s"}: ${written.map(relativePath).join(", ")}.`);
      return 0;
    } catch (error) {
      // A write that failed was rolled back; any other disk error is one line too, never a stack trace.
      const message = error instanceof Error ? error.message : String(error);
      io.err(`skill-lsp: ${message.startsWith("Nothing was written") ? message : `Nothing was written: ${message}`}`);
      return 1;
    }
  },
};
