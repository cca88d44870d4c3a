import { rangeContains, type AgentDocument, type ConfigFile, type ConfigMention, type Mention, type Namespace, type Position, type SkillFile } from "../core/index.js";

export type WorkspaceFile =
  | { readonly kind: "skill"; readonly file: SkillFile }
  | { readonly kind: "config"; readonly file: ConfigFile }
  | { readonly kind: "document"; readonly file: AgentDocument };

/** The parsed file behind a URI: a skill, a `skills.json`, or an agent document (CLAUDE.md, AGENTS.md, …). */
export function fileOf(namespace: Namespace, uri: string): WorkspaceFile | undefined {
  const skill = namespace.skill(uri);
  if (skill) return { kind: "skill", file: skill };
  const config = namespace.config(uri);
  if (config) return { kind: "config", file: config };
  const document = namespace.document(uri);
  return document ? { kind: "document", file: document } : undefined;
}

/** True when a position stands on a skill's declared name (a SKILL.md's `name:` value). */
export function onDeclaration(file: WorkspaceFile, position: Position): boolean {
  if (file.kind !== "skill") return false;
  const { declaration } = file.file;
  const empty = declaration.start.line === declaration.end.line && declaration.start.character === declaration.end.character;
  return !empty && rangeContains(declaration, position);
}

export function mentionsOf(file: WorkspaceFile): readonly (Mention | ConfigMention)[] {
  return file.file.mentions;
}

/** The mention under a position, both ends included (a cursor right after `@slug` is on it). */
export function mentionAt(file: WorkspaceFile, position: Position): Mention | ConfigMention | undefined {
  const offset = file.file.lines.offsetAt(position);
  const mentions = mentionsOf(file);
  let low = 0;
  let high = mentions.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const mention = mentions[mid];
    if (!mention) break;
    if (offset < mention.start) high = mid - 1;
    else if (offset > mention.end) low = mid + 1;
    else return mention;
  }
  return undefined;
}

/** The slug a request at a position is about: the mention under it, or in a skill file, the skill itself. */
export function subjectAt(file: WorkspaceFile, position: Position): { slug: string; mention: Mention | ConfigMention | undefined } | undefined {
  const mention = mentionAt(file, position);
  if (mention) return { slug: mention.slug, mention };
  if (file.kind === "skill" && file.file.validHandle) return { slug: file.file.slug, mention: undefined };
  return undefined;
}
