/** The command line: one verb per file in this folder, dispatched here. */
import { checkVerb } from "./check.js";
import { processIo, UsageError, type CliIo, type Verb } from "./common.js";
import { expandVerb } from "./expand.js";
import { exportVerb } from "./export.js";
import { graphVerb } from "./graph.js";
import { importVerb } from "./import.js";
import { menuVerb } from "./menu.js";
import { planVerb } from "./plan.js";
import { testRoutingVerb } from "./testRouting.js";

export type { CliIo, Verb } from "./common.js";

/** Every verb, in the order the help lists them. */
export const VERBS: readonly Verb[] = [checkVerb, expandVerb, menuVerb, exportVerb, importVerb, graphVerb, planVerb, testRoutingVerb];

const indent = (usage: string) => usage.split("\n").map((line) => (line.startsWith(" ") ? line : `  ${line}`)).join("\n");

const USAGE = () => `Usage: skill-lsp <command> [options]

Commands:
${VERBS.map((verb) => indent(verb.usage)).join("\n")}
  --stdio                      Start the language server on standard input and output.

With no skill in the folders, expand and menu use the three built-in skills.`;

/** Runs the command line; answers the exit code. */
export async function runCli(args: readonly string[], io: CliIo = processIo): Promise<number> {
  const [command, ...rest] = args;
  try {
    if (command === "--help" || command === "-h" || command === "help") {
      io.out(USAGE());
      return 0;
    }
    const verb = VERBS.find((candidate) => candidate.name === command);
    if (verb === undefined) throw new UsageError(command === undefined ? "No command given." : `Unknown command "${command}".`);
    return await verb.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`skill-lsp: ${error.message}\n\n${USAGE()}`);
      return 2;
    }
    throw error;
  }
}
