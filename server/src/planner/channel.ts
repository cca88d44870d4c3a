/**
 * Routing by likelihood ("noisy channel" classification): each menu entry, and "none", is a candidate; the
 * model scores how likely the user's request is as a request for that candidate, and the most likely one wins.
 * Nothing is generated, so a small model that does not follow a routing instruction still ranks the menu.
 */
import type { SystemPrompt } from "../core/index.js";
import { NONE_HANDLE } from "./prompts.js";

/** One thing the request can route to: a menu entry, or "none". */
export interface ChannelCandidate {
  readonly kind: "skill" | "tool" | "none";
  readonly handle: string;
  /** The entry's one-line summary (the tool's blurb), as the menu shows it. */
  readonly summary: string;
}

/** What "none" stands for, scored like a menu entry. */
export const NONE_SUMMARY = "No skill or tool: answer directly from general knowledge, for writing, arithmetic, definitions and facts about the world.";

/** The menu's entries in menu order, then "none". */
export function channelCandidates(prompt: SystemPrompt): ChannelCandidate[] {
  const candidates: ChannelCandidate[] = prompt.entries.map((entry) => ({
    kind: entry.kind,
    handle: entry.handle,
    summary: entry.text.replace(/^- @[^:]+:\s*/, "").replace(/\s*\n\s*/g, " ").trim(),
  }));
  candidates.push({ kind: "none", handle: NONE_HANDLE, summary: NONE_SUMMARY });
  return candidates;
}

/** The text a candidate's score is conditioned on; it ends where the request begins. */
export function channelPrefix(candidate: ChannelCandidate): string {
  if (candidate.kind === "none") return `${candidate.summary}\nA request answered this way: "`;
  const noun = candidate.kind === "skill" ? "Skill" : "Tool";
  return `${noun} @${candidate.handle}: ${candidate.summary}\nA request for @${candidate.handle}: "`;
}

/** The scored text: the request and the quote that closes it. */
export function channelContinuation(request: string): string {
  return `${request.trim().replace(/\s+/g, " ")}"`;
}
