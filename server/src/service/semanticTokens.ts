import { TOKEN_MODIFIERS, TOKEN_TYPES, type TokenModifier, type TokenType } from "../../../shared/protocol.js";
import { sigilOf, type Namespace, type Range } from "../core/index.js";
import { mentionsOf, type WorkspaceFile } from "./lookup.js";

const TYPE_INDEX = new Map<TokenType, number>(TOKEN_TYPES.map((type, index) => [type, index]));
const MODIFIER_BIT = new Map<TokenModifier, number>(TOKEN_MODIFIERS.map((modifier, index) => [modifier, 1 << index]));

/**
 * The semantic tokens of a file, LSP-encoded (relative line, relative start, length, type, modifiers): one
 * token per mention, typed by what it resolves to. Only mentions inside `range` when one is given.
 */
export function semanticTokens(namespace: Namespace, file: WorkspaceFile, range?: Range): number[] {
  const data: number[] = [];
  const self = file.kind === "skill" && file.file.validHandle ? file.file.slug : undefined;
  const quiet = file.kind === "document" || (file.kind === "skill" && file.file.format.quietReferences);
  let previousLine = 0;
  let previousCharacter = 0;
  for (const mention of mentionsOf(file)) {
    // A link is coloured by the Markdown grammar; its target is a path, not a handle.
    if ("target" in mention && mention.target !== undefined) continue;
    const { start, end } = mention.range;
    if (range && (end.line < range.start.line || start.line > range.end.line)) continue;
    // Mentions never span lines, so the token is one run on the start line.
    const target = namespace.resolve(mention.slug);
    // Inline code that names nothing is code: not coloured as a dangling mention.
    if (!target && mention.inCode) continue;
    // In Agent Skills prose an unknown `/x` or `$x` is a command, a variable or at most a near miss (which has
    // its warning): not coloured as a dangling reference.
    if (!target && quiet && sigilOf(mention) !== "@") continue;
    const type: TokenType = !target ? "unresolvedMention" : target.kind === "tool" ? "toolMention" : "skillMention";
    let modifiers = 0;
    if (target?.kind === "skill" && !target.skill.enabled) modifiers |= MODIFIER_BIT.get("disabled") ?? 0;
    if (mention.slug === self) modifiers |= MODIFIER_BIT.get("selfMention") ?? 0;
    const deltaLine = start.line - previousLine;
    data.push(deltaLine, deltaLine === 0 ? start.character - previousCharacter : start.character, end.character - start.character, TYPE_INDEX.get(type) ?? 0, modifiers);
    previousLine = start.line;
    previousCharacter = start.character;
  }
  return data;
}
