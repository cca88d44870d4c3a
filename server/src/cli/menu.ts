import { groupedDigits } from "../../../shared/words.js";
import { composeSystemPrompt, menuFit, tokenSize } from "../core/index.js";
import { configuredContextSize, LlamaPlannerModel } from "../planner/index.js";
import { gpuOption, loadNamespace, parseArgs, positiveNumber, UsageError, type Verb } from "./common.js";

const MENU_USAGE = `menu [--folder F] [--context N] [--model M]
                               Print the planner's system prompt, its size, and whether it fits the
                               model's context (exit 1 when it does not).
    --context N                Context size in tokens (default 4096), as skill.model.contextSize.
    --model M                  Count with this .gguf file's tokenizer (and clamp the context to its
                               trained size) instead of estimating 4 characters a token.
    --threads N, --gpu auto|off
                               How to run the model for --model (default all cores, off).`;

/** `menu`: the planner's system prompt, its price, and whether the model's context holds it. */
export const menuVerb: Verb = {
  name: "menu",
  usage: MENU_USAGE,
  async run(args, io) {
    const { folders, positional, values } = parseArgs(args, { valued: ["--context", "--model", "--gpu", "--threads"] });
    if (positional.length > 0) throw new UsageError(`menu takes no argument; got ${positional.join(" ")}.`);
    const contextSetting = positiveNumber("--context", values.get("--context"));
    const prompt = composeSystemPrompt(await loadNamespace(folders, { builtins: true }));
    const modelPath = values.get("--model");
    const model = modelPath
      ? new LlamaPlannerModel({ model: modelPath, contextSize: contextSetting, gpu: gpuOption(values.get("--gpu") ?? "off"), threads: positiveNumber("--threads", values.get("--threads")), idleUnloadMs: 0 })
      : undefined;
    try {
      await model?.prepare();
      const countTokens = model?.tokenCounter();
      const fit = menuFit(prompt, model?.contextSize() ?? configuredContextSize(contextSetting), countTokens);
      io.out(prompt.text.trimEnd());
      io.out("");
      io.out(`— ${tokenSize(prompt.text, countTokens).label}, ${groupedDigits(prompt.text.length)} characters; planning ${prompt.planning ? `on (${groupedDigits(prompt.menuSkills.length)} skills on the menu)` : "off (no skill on the menu: direct path)"}`);
      if (!prompt.planning) return 0;
      if (fit.sentence !== undefined) {
        io.err(fit.sentence);
        return 1;
      }
      io.out(`— fits a context of ${groupedDigits(fit.contextSize)} tokens: ${groupedDigits(fit.budget)} for the menu once ${groupedDigits(fit.contextSize - fit.budget)} are kept for the request and the plan`);
      return 0;
    } finally {
      await model?.dispose();
    }
  },
};
