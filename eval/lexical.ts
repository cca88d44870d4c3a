/** The lexical baseline: the menu entry whose summary shares most content words with the request, else none. */
import type { SystemPrompt } from "../server/src/core/index.js";
import { channelCandidates } from "../server/src/planner/channel.js";

const STOP_WORDS = new Set(
  "a an the and or but of to in on for at by with from about as is are was were be been am do does did i me my mine you your it its this that these those what which who whom when where why how can could would should will shall may might must have has had not no any all some one ones their them they he she his her our we us there here into over under up down out off than then so if just also very too let lets get got".split(" "),
);

/** Lower-case content words, with a crude plural/verb ending removed so "meetings" meets "meeting". */
export function contentWords(text: string): Set<string> {
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return new Set(words.filter((word) => !STOP_WORDS.has(word) && word.length > 1).map((word) => word.replace(/(ies|es|s|ing|ed)$/, "")));
}

export function lexicalChoice(prompt: SystemPrompt, request: string): readonly string[] {
  const wanted = contentWords(request);
  let best: string | undefined;
  let bestOverlap = 0;
  for (const candidate of channelCandidates(prompt)) {
    if (candidate.kind === "none") continue;
    const words = contentWords(`${candidate.handle.replace(/-/g, " ")} ${candidate.summary}`);
    const overlap = [...wanted].filter((word) => words.has(word)).length;
    if (overlap > bestOverlap) {
      bestOverlap = overlap;
      best = candidate.handle;
    }
  }
  return best ? [best] : [];
}
