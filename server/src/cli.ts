import * as path from "node:path";
import { BUILTIN_SKILLS, Namespace, composeSystemPrompt, siblingSkillUri, tokenSize, type CoreDiagnostic } from "./core/index.js";
import { BUNDLE_USAGE, runBundleCli } from "./bundleCli.js";
import { GRAPH_USAGE, runGraphCli } from "./graphCli.js";
import { loadFolders, pathFromUri, uriFromPath } from "./node/workspaceFiles.js";
import { PLAN_USAGE, runPlanCli } from "./planner/cli.js";
import { ROUTING_USAGE, runRoutingCli } from "./planner/routingCli.js";

const USAGE = () => `Usage: skill-lsp <command> [options]

Commands:
  check [folder…]              Print every diagnostic as file:line:col severity code message.
                               Exits 1 when there is an error. Default folder: the current one.
  expand [--folder F] @handle…  Print the toolset the handles bind, one tool name per line.
  menu [--folder F]            Print the planner's system prompt and its size.
${BUNDLE_USAGE}
${GRAPH_USAGE}
  ${PLAN_USAGE}
  ${ROUTING_USAGE}
  --stdio                      Start the language server on standard input and output.

With no skill in the folders, expand and menu use the three built-in skills.`;

class UsageError extends Error {}

interface Options {
  readonly folders: string[];
  readonly rest: string[];
}

function parseOptions(args: readonly string[], positionalFolders: boolean): Options {
  const folders: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--folder") {
      const value = args[++i];
      if (value === undefined) throw new UsageError("--folder needs a folder.");
      folders.push(value);
    } else if (arg.startsWith("--")) {
      throw new UsageError(`Unknown option ${arg}.`);
    } else if (positionalFolders) {
      folders.push(arg);
    } else {
      rest.push(arg);
    }
  }
  return { folders: folders.length > 0 ? folders : ["."], rest };
}

async function loadNamespace(folders: readonly string[], withBuiltins: boolean): Promise<Namespace> {
  const namespace = new Namespace();
  for (const folder of folders) {
    const stat = await import("node:fs/promises").then((fs) => fs.stat(folder)).catch(() => undefined);
    if (!stat?.isDirectory()) throw new UsageError(`${folder} is not a folder.`);
  }
  await loadFolders(namespace, folders.map((folder) => path.resolve(folder)));
  if (withBuiltins && namespace.skillCount === 0) {
    const home = uriFromPath(path.resolve("builtin.skill.md"));
    for (const skill of BUILTIN_SKILLS) namespace.setSkill(siblingSkillUri(home, skill.handle), skill.text);
  }
  return namespace;
}

function formatDiagnostic(uri: string, diagnostic: CoreDiagnostic): string {
  const file = path.relative(process.cwd(), pathFromUri(uri)) || pathFromUri(uri);
  const { line, character } = diagnostic.range.start;
  return `${file}:${line + 1}:${character + 1} ${diagnostic.severity} ${diagnostic.code} ${diagnostic.message}`;
}

async function check(args: readonly string[], out: (line: string) => void): Promise<number> {
  const { folders } = parseOptions(args, true);
  const namespace = await loadNamespace(folders, false);
  let errors = 0;
  const uris = [...[...namespace.skills()].map((skill) => skill.uri), ...namespace.configs().map((config) => config.uri)].sort();
  for (const uri of uris) {
    for (const diagnostic of namespace.diagnose(uri)) {
      if (diagnostic.severity === "error") errors++;
      out(formatDiagnostic(uri, diagnostic));
    }
  }
  return errors > 0 ? 1 : 0;
}

async function expand(args: readonly string[], out: (line: string) => void, err: (line: string) => void): Promise<number> {
  const { folders, rest } = parseOptions(args, false);
  if (rest.length === 0) throw new UsageError("expand needs at least one @handle.");
  const namespace = await loadNamespace(folders, true);
  const expansion = namespace.expand(rest.map((handle) => handle.replace(/^@/, "")));
  for (const tool of expansion.tools) out(tool.name);
  for (const slug of expansion.unresolved) err(`@${slug} — unknown: binds nothing`);
  for (const slug of expansion.disabled) err(`@${slug} is disabled: binds nothing`);
  return expansion.unresolved.length > 0 ? 1 : 0;
}

async function menu(args: readonly string[], out: (line: string) => void): Promise<number> {
  const { folders, rest } = parseOptions(args, false);
  if (rest.length > 0) throw new UsageError(`menu takes no argument; got ${rest.join(" ")}.`);
  const prompt = composeSystemPrompt(await loadNamespace(folders, true));
  out(prompt.text.trimEnd());
  out("");
  out(`— ${tokenSize(prompt.text).label}, ${prompt.text.length} characters; planning ${prompt.planning ? `on (${prompt.menuSkills.length} skills on the menu)` : "off (no skill on the menu: direct path)"}`);
  return 0;
}

/** Runs the command line; answers the exit code. */
export async function runCli(args: readonly string[], out = (line: string) => console.log(line), err = (line: string) => console.error(line)): Promise<number> {
  const [command, ...rest] = args;
  try {
    switch (command) {
      case "check":
        return await check(rest, out);
      case "expand":
        return await expand(rest, out, err);
      case "menu":
        return await menu(rest, out);
      case "export":
      case "import":
        return await runBundleCli(args, out, err);
      case "graph":
        return await runGraphCli(rest, out, err);
      case "plan":
        return await runPlanCli(rest);
      case "test-routing":
        return await runRoutingCli(rest, { out, err });
      case "--help":
      case "-h":
      case "help":
        out(USAGE());
        return 0;
      default:
        throw new UsageError(command === undefined ? "No command given." : `Unknown command "${command}".`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      err(`skill-lsp: ${error.message}\n\n${USAGE()}`);
      return 2;
    }
    throw error;
  }
}
