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
import { VERSION } from "../version.js";

export type { CliIo, Verb } from "./common.js";

/** Every verb, in the order the help lists them. */
export const VERBS: readonly Verb[] = [checkVerb, expandVerb, menuVerb, exportVerb, importVerb, graphVerb, planVerb, testRoutingVerb];

const indent = (usage: string) => usage.split("\n").map((line) => (line.startsWith(" ") ? line : `  ${line}`)).join("\n");

const USAGE = () => `Usage: skill-lsp <command> [options]

Commands:
${VERBS.map((verb) => indent(verb.usage)).join("\n")}
  --stdio                      Start the language server on standard input and output.
  --version                    Print the version.

With no skill in the folders, expand and menu use the three built-in skills.
Run skill-lsp <command> --help for one command. Exit codes: 0 done, 1 findings or refused, 2 usage.`;

const HELP_FLAGS = new Set(["--help", "-h"]);

/**
 * Runs the command line; answers the exit code: 0 done, 1 findings (an error diagnostic, an unknown handle, a
 * failed routing case) or a refusal, 2 a usage error. A usage error is one line on standard error with a
 * pointer to the help, never the whole help.
 */
export async function runCli(args: readonly string[], io: CliIo = processIo): Promise<number> {
  const [command, ...rest] = args;
  if (command === "--version" || command === "-V") {
    io.out(`skill-lsp ${VERSION}`);
    return 0;
  }
  if (command === undefined || HELP_FLAGS.has(command) || command === "help") {
    const topic = command === "help" ? rest[0] : undefined;
    const verb = VERBS.find((candidate) => candidate.name === topic);
    if (topic !== undefined && verb === undefined) return usageError(io, `Unknown command "${topic}".`);
    if (command === undefined) return usageError(io, "No command given.");
    io.out(verb ? verbHelp(verb) : USAGE());
    return 0;
  }
  const verb = VERBS.find((candidate) => candidate.name === command);
  if (verb === undefined) return usageError(io, `Unknown command "${command}".`);
  if (rest.some((arg) => HELP_FLAGS.has(arg))) {
    io.out(verbHelp(verb));
    return 0;
  }
  try {
    return await verb.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) return usageError(io, error.message, verb);
    throw error;
  }
}

function usageError(io: CliIo, message: string, verb?: Verb): number {
  const help = verb ? `skill-lsp ${verb.name} --help` : "skill-lsp --help";
  // "expand needs …" reads "skill-lsp expand: needs …" once the verb leads the line.
  const text = verb && message.startsWith(`${verb.name} `) ? message.slice(verb.name.length + 1) : message;
  io.err(`skill-lsp${verb ? ` ${verb.name}` : ""}: ${text}${/[.?!]$/.test(text) ? "" : "."} See '${help}'.`);
  return 2;
}

/** One verb's help: the synopsis, what it does, then its options (the overview's columns, moved left). */
export function verbHelp(verb: Verb): string {
  const [first = "", ...rest] = verb.usage.split("\n");
  const split = /^(.*?\S)\s{2,}(\S.*)$/.exec(first);
  const indentOf = (line: string) => line.length - line.trimStart().length;
  const deep = (line: string) => indentOf(line) > 8;
  const optionsFrom = rest.findIndex((line) => !deep(line));
  const described = optionsFrom === -1 ? rest : rest.slice(0, optionsFrom);
  const options = optionsFrom === -1 ? [] : rest.slice(optionsFrom);
  const description = [...(split?.[2] ? [split[2]] : []), ...described.map((line) => line.trim())];
  const shift = Math.min(...options.map(indentOf));
  return [`Usage: skill-lsp ${split?.[1] ?? first}`, "", ...description.map((line) => `  ${line}`), ...(options.length > 0 ? ["", ...options.map((line) => `  ${line.slice(shift)}`)] : [])].join("\n");
}
