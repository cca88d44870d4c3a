import { composeSystemPrompt, tokenSize } from "../core/index.js";
import { loadNamespace, parseArgs, UsageError, type Verb } from "./common.js";

/** `menu`: the planner's system prompt and its price. */
export const menuVerb: Verb = {
  name: "menu",
  usage: `menu [--folder F]            Print the planner's system prompt and its size.`,
  async run(args, io) {
    const { folders, positional } = parseArgs(args);
    if (positional.length > 0) throw new UsageError(`menu takes no argument; got ${positional.join(" ")}.`);
    const prompt = composeSystemPrompt(await loadNamespace(folders, { builtins: true }));
    io.out(prompt.text.trimEnd());
    io.out("");
    io.out(`— ${tokenSize(prompt.text).label}, ${prompt.text.length} characters; planning ${prompt.planning ? `on (${prompt.menuSkills.length} skills on the menu)` : "off (no skill on the menu: direct path)"}`);
    return 0;
  },
};
