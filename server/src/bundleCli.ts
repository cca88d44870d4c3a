import { promises as fs } from "node:fs";
import * as path from "node:path";
import { BUNDLE_SUFFIX, exportAgentSkills, exportBundle, planImport, reviewLines } from "./core/bundle.js";
import { isRefusal, Namespace } from "./core/index.js";
import { applyImportPlan, readImportSource, writeAgentSkills, writeBundleFile, WriteRolledBack } from "./node/bundleFiles.js";
import { loadFolders, pathFromUri, uriFromPath } from "./node/workspaceFiles.js";

/** The bundle verbs' help, for the command line's usage text. */
export const BUNDLE_USAGE = `  export @handle [--folder F] [--out FILE${BUNDLE_SUFFIX}] [--agent-skills DIR]
                               Write the skill and every skill it mentions, transitively, to one bundle
                               (default ./<handle>${BUNDLE_SUFFIX}), or to Agent Skills folders DIR/<name>/SKILL.md.
  import SOURCE [--folder F] [--yes]
                               Review importing a bundle or Agent Skills folder(s) into F (default: the
                               current folder). Nothing is written without --yes.`;

class UsageError extends Error {}

interface Parsed {
  readonly positional: string[];
  readonly folders: string[];
  readonly values: Map<string, string>;
  readonly flags: Set<string>;
}

function parseArgs(args: readonly string[], valued: readonly string[], flags: readonly string[]): Parsed {
  const parsed: Parsed = { positional: [], folders: [], values: new Map(), flags: new Set() };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--folder" || valued.includes(arg)) {
      const value = args[++i];
      if (value === undefined || value.startsWith("--")) throw new UsageError(`${arg} needs a value.`);
      if (arg === "--folder") parsed.folders.push(value);
      else if (parsed.values.has(arg)) throw new UsageError(`${arg} is given twice.`);
      else parsed.values.set(arg, value);
    } else if (flags.includes(arg)) {
      parsed.flags.add(arg);
    } else if (arg.startsWith("--")) {
      throw new UsageError(`Unknown option ${arg}.`);
    } else {
      parsed.positional.push(arg);
    }
  }
  if (parsed.folders.length === 0) parsed.folders.push(".");
  return parsed;
}

async function loadNamespace(folders: readonly string[], mustExist: boolean): Promise<Namespace> {
  for (const folder of folders) {
    const stat = await fs.stat(folder).catch(() => undefined);
    if (stat ? !stat.isDirectory() : mustExist) throw new UsageError(`${folder} is not a folder.`);
  }
  const namespace = new Namespace();
  await loadFolders(namespace, folders.map((folder) => path.resolve(folder)));
  return namespace;
}

function relative(filePath: string): string {
  return path.relative(process.cwd(), filePath) || filePath;
}

async function exportVerb(args: readonly string[], out: (line: string) => void, err: (line: string) => void): Promise<number> {
  const { positional, folders, values } = parseArgs(args, ["--out", "--agent-skills"], []);
  if (positional.length !== 1) throw new UsageError("export needs exactly one @handle.");
  const handle = (positional[0] ?? "").replace(/^@/, "").toLowerCase();
  const namespace = await loadNamespace(folders, true);
  const bundle = exportBundle(namespace, handle);
  if (isRefusal(bundle)) {
    err(`skill-lsp: ${bundle.refused}`);
    return 1;
  }
  const skills = bundle.skills.map((skill) => `@${skill.handle}`).join(", ");
  const tools = bundle.tools.map((tool) => `@${tool.slug} (${tool.name})`).join(", ");
  const agentDir = values.get("--agent-skills");
  if (agentDir !== undefined) {
    const folders = exportAgentSkills(namespace, handle);
    if (isRefusal(folders)) {
      err(`skill-lsp: ${folders.refused}`);
      return 1;
    }
    const written = await writeAgentSkills(agentDir, folders);
    if (isRefusal(written)) {
      err(`skill-lsp: ${written.refused}`);
      return 1;
    }
    out(`Wrote ${written.length} Agent Skills folder${written.length === 1 ? "" : "s"} under ${relative(path.resolve(agentDir))}${written.length < folders.length ? ` (${folders.length - written.length} already there)` : ""}: ${skills}.`);
  }
  const outFile = values.get("--out") ?? (agentDir === undefined ? `${bundle.root}${BUNDLE_SUFFIX}` : undefined);
  if (outFile !== undefined) {
    await writeBundleFile(outFile, bundle);
    out(`Wrote ${relative(path.resolve(outFile))}: ${skills} (${bundle.skills.length} skill${bundle.skills.length === 1 ? "" : "s"}).`);
  }
  if (tools !== "") out(`Tools not shipped, needed on the other side: ${tools}.`);
  return 0;
}

async function importVerb(args: readonly string[], out: (line: string) => void, err: (line: string) => void): Promise<number> {
  const { positional, folders, flags } = parseArgs(args, [], ["--yes"]);
  if (positional.length !== 1) throw new UsageError("import needs exactly one bundle file or Agent Skills folder.");
  const source = await readImportSource(positional[0] ?? "");
  if (isRefusal(source)) {
    err(`skill-lsp: ${source.refused}`);
    return 1;
  }
  const namespace = await loadNamespace(folders, false);
  const target = path.resolve(folders[0] ?? ".");
  const plan = planImport(namespace, source.bundle, `${uriFromPath(target)}/`);
  if (isRefusal(plan)) {
    err(`skill-lsp: ${plan.refused}`);
    return 1;
  }
  for (const line of reviewLines(plan.review, (uri) => relative(pathFromUri(uri)))) out(line);
  if (source.dropped.length > 0) out(`Not imported (no place for them in a .skill.md): ${source.dropped.join(", ")}.`);
  if (!flags.has("--yes")) {
    out(plan.files.length === 0 ? "Nothing to write: every skill is already here." : `Nothing was written. Run again with --yes to create ${plan.files.length} file${plan.files.length === 1 ? "" : "s"}.`);
    return 0;
  }
  if (plan.files.length === 0) {
    out("Nothing to write: every skill is already here.");
    return 0;
  }
  try {
    const written = await applyImportPlan(plan);
    out(`Created ${written.length} file${written.length === 1 ? "" : "s"}: ${written.map(relative).join(", ")}.`);
    return 0;
  } catch (error) {
    if (error instanceof WriteRolledBack) {
      err(`skill-lsp: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

/**
 * Runs a bundle verb: `export @handle …` or `import SOURCE …` (the first argument is the verb). Answers the exit
 * code: 0 done (or reviewed), 1 refused, 2 a usage error.
 */
export async function runBundleCli(args: readonly string[], out: (line: string) => void, err: (line: string) => void): Promise<number> {
  const [verb, ...rest] = args;
  try {
    if (verb === "export") return await exportVerb(rest, out, err);
    if (verb === "import") return await importVerb(rest, out, err);
    throw new UsageError(verb === undefined ? "No bundle verb given." : `Unknown bundle verb "${verb}".`);
  } catch (error) {
    if (error instanceof UsageError) {
      err(`skill-lsp: ${error.message}\n\n${BUNDLE_USAGE}`);
      return 2;
    }
    throw error;
  }
}
