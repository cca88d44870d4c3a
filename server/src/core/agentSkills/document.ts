import { DiagnosticCodes, type CoreDiagnostic } from "../diagnostics.js";
import { unreadableReason } from "../skillFile.js";
import { LineMap, type LineMapParts } from "../text.js";
import { agentDocumentRole, commandNameOf, type AgentDocumentRole } from "./paths.js";
import { postedReference, referenceFromPosted, scanReferences, type PostedReference, type Reference } from "./references.js";

/**
 * A Markdown file of an Agent Skills workspace that is not a skill: CLAUDE.md, AGENTS.md, the agents'
 * folders' Markdown (a user's command file among them). Its references count like a skill's; it claims no handle.
 */
export interface AgentDocument {
  readonly uri: string;
  readonly role: AgentDocumentRole;
  /** The command a user's command file defines (`.claude/commands/deploy.md` → `deploy`). */
  readonly command: string | undefined;
  /**
   * Undefined once released: a document no editor has open keeps what its diagnostics, references and rename
   * need (line starts, references with their offsets) and lets its text go, as a skill does.
   */
  readonly text: string | undefined;
  readonly lines: LineMap;
  readonly mentions: readonly Reference[];
  readonly problems: readonly CoreDiagnostic[];
}

/** True when the core reads a URI as an agent document. */
export function isAgentDocumentUri(uri: string): boolean {
  return agentDocumentRole(uri) !== undefined;
}

/** Parses an agent document. Never throws. */
export function parseAgentDocument(uri: string, text: string): AgentDocument {
  const lines = new LineMap(text);
  const role = agentDocumentRole(uri) ?? "prose";
  const problems: CoreDiagnostic[] = [];
  const head = lines.rangeOf(0, 0);
  if (role === "misplaced-skill") {
    problems.push({ range: head, severity: "information", code: DiagnosticCodes.misplacedSkill, message: "This SKILL.md is not read as a skill: agents look for skills in a folder named skills (skills/<name>/SKILL.md)." });
  } else if (role === "lower-case-skill") {
    problems.push({ range: head, severity: "hint", code: DiagnosticCodes.lowerCaseSkillFile, message: "This file is not read as a skill: agents look for SKILL.md in capitals. Rename it to SKILL.md." });
  }
  const unreadable = unreadableReason(text);
  if (unreadable) problems.push({ range: head, severity: "error", code: unreadable.code, message: unreadable.message });
  const mentions = unreadable ? [] : scanReferences(uri, text, lines, 0, text.length, "body");
  return { uri, role, command: commandNameOf(uri), text, lines, mentions, problems };
}

/** The document without its text (see {@link AgentDocument.text}); its references and problems hold no slice of it. */
export function releasedDocument(document: AgentDocument): AgentDocument {
  return document.text === undefined ? document : { ...document, text: undefined };
}

/**
 * A document parsed on another thread, as plain values it can post: what a released document keeps. The reading
 * thread parses a real library's Markdown (references beside each SKILL.md) while the namespace's thread takes
 * in the skills: on two cores the first index was bound by that thread alone.
 */
export interface PostedDocument {
  readonly role: AgentDocumentRole;
  readonly command: string | undefined;
  readonly lines: LineMapParts;
  readonly mentions: readonly PostedReference[];
  readonly problems: readonly CoreDiagnostic[];
}

/** The document of `text`, parsed and made ready to post ({@link documentFromPosted} takes it in). */
export function postedDocumentOf(uri: string, text: string): PostedDocument {
  const { role, command, lines, mentions, problems } = parseAgentDocument(uri, text);
  return { role, command, lines: lines.parts, mentions: mentions.map(postedReference), problems };
}

/** The released document a {@link PostedDocument} stands for. */
export function documentFromPosted(uri: string, posted: PostedDocument): AgentDocument {
  const lines = new LineMap(posted.lines);
  return { uri, role: posted.role, command: posted.command, text: undefined, lines, mentions: posted.mentions.map((mention) => referenceFromPosted(mention, lines)), problems: posted.problems };
}
