import { isConfigUri } from "./config.js";
import { isAgentDocumentUri, postedDocumentOf, type PostedDocument } from "./agentSkills/document.js";
import { isAgentSkillUri } from "./agentSkills/paths.js";
import { AGENT_SKILL_FORMAT, agentSkillFromPath, parseAgentSkill } from "./agentSkills/skillFolder.js";
import { parseSkillFile, postableParts, releasedFromParts, SKILL_FILE_FORMAT, type ReleasedParts, type SkillFile, type SkillFormat, type TextLoader } from "./skillFile.js";

/**
 * Which format reads a file: a `skills/<name>/SKILL.md` is an Agent Skill, any other skill a `.skill.md`. The one
 * place that picks a format by URI; the rest of the core asks the skill's own format.
 */
export function skillFormatOf(uri: string): SkillFormat {
  return isAgentSkillUri(uri) ? AGENT_SKILL_FORMAT : SKILL_FILE_FORMAT;
}

/** Parses a skill's text in the format its URI names. */
export function parseSkill(uri: string, text: string): SkillFile {
  return isAgentSkillUri(uri) ? parseAgentSkill(uri, text) : parseSkillFile(uri, text);
}

/**
 * True where a skill's path alone decides what a mention of it depends on: an Agent Skill's folder names it, and
 * it is always enabled. A `.skill.md`'s `enabled:` is in its text.
 */
export function claimedByPath(uri: string): boolean {
  return isAgentSkillUri(uri);
}

/** A skill as its path alone describes it, where {@link claimedByPath}; undefined elsewhere. */
export function skillFromPath(uri: string): SkillFile | undefined {
  return claimedByPath(uri) ? agentSkillFromPath(uri) : undefined;
}

/** True when the namespace takes the file as a skill: not a `skills.json`, and not an agent document (CLAUDE.md, AGENTS.md, …) outside a skill folder. */
export function isSkillText(uri: string): boolean {
  return !isConfigUri(uri) && (isAgentSkillUri(uri) || !isAgentDocumentUri(uri));
}

/**
 * A skill parsed and released on a thread other than the namespace's, as values it can post; undefined for a
 * file that is no skill ({@link isSkillText}) or whose parse cannot travel (the namespace parses it instead).
 */
export function parsedSkillParts(uri: string, text: string): ReleasedParts | undefined {
  return isSkillText(uri) ? postableParts(parseSkill(uri, text)) : undefined;
}

/** The released skill those parts stand for, on the namespace's thread. */
export function skillFromParts(uri: string, parts: ReleasedParts, load: TextLoader): SkillFile {
  return releasedFromParts(uri, skillFormatOf(uri), parts, load);
}

/** An agent document parsed on a thread other than the namespace's, as values it can post; undefined for a skill or a `skills.json`. */
export function parsedDocumentParts(uri: string, text: string): PostedDocument | undefined {
  return isSkillText(uri) || isConfigUri(uri) ? undefined : postedDocumentOf(uri, text);
}
