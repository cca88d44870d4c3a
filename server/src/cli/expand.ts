import { loadNamespace, parseArgs, UsageError, type Verb } from "./common.js";

/** `expand @handle…`: the toolset the handles bind; exit 1 when one is unknown. */
export const expandVerb: Verb = {
  name: "expand",
  usage: `expand [--folder F] @handle…  Print the toolset the handles bind, one tool name per line.`,
  async run(args, io) {
    const { folders, positional } = parseArgs(args);
    if (positional.length === 0) throw new UsageError("expand needs at least one @handle.");
    const namespace = await loadNamespace(folders, { builtins: true });
    const expansion = namespace.expand(positional.map((handle) => handle.replace(/^@/, "")));
    for (const tool of expansion.tools) io.out(tool.name);
    for (const slug of expansion.unresolved) io.err(`@${slug} — unknown: binds nothing`);
    for (const slug of expansion.disabled) io.err(`@${slug} is disabled: binds nothing`);
    return expansion.unresolved.length > 0 ? 1 : 0;
  },
};
