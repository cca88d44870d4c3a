import type { Range } from "./text.js";

/** Every diagnostic the core reports, by its stable code (documented in the README). */
export const DiagnosticCodes = {
  unknownMention: "unknown-mention",
  disabledMention: "disabled-mention",
  mentionCase: "mention-case",
  malformedMention: "malformed-mention",
  duplicateHandle: "duplicate-handle",
  toolCollision: "tool-collision",
  invalidHandle: "invalid-handle",
  frontmatterSyntax: "frontmatter-syntax",
  frontmatterUnclosed: "frontmatter-unclosed",
  frontmatterType: "frontmatter-type",
  frontmatterUnknownKey: "frontmatter-unknown-key",
  /** A SKILL.md key's value outside its finite set (`context: forked`). */
  frontmatterValue: "frontmatter-value",
  /** A SKILL.md value past a limit of the format (a description over 1,024 characters). */
  frontmatterLimit: "frontmatter-limit",
  /** A SKILL.md key that the agents reading the file ignore where it stands: at most a hint. */
  frontmatterIgnored: "frontmatter-ignored",
  missingSummary: "missing-summary",
  longSummary: "long-summary",
  menuSimilar: "menu-similar",
  configSyntax: "config-syntax",
  configInvalid: "config-invalid",
  configUnknownHandle: "config-unknown-handle",
  configUnknownBlurb: "config-unknown-blurb",
  fileTooLarge: "file-too-large",
  binaryFile: "binary-file",
  nameMismatch: "name-mismatch",
  missingName: "missing-name",
  misplacedSkill: "misplaced-skill",
  lowerCaseSkillFile: "lower-case-skill-file",
  unknownReference: "unknown-reference",
  brokenLink: "broken-link",
} as const;

export type DiagnosticCode = (typeof DiagnosticCodes)[keyof typeof DiagnosticCodes];

export type Severity = "error" | "warning" | "information" | "hint";

export interface RelatedInformation {
  readonly uri: string;
  readonly range: Range;
  readonly message: string;
}

/** Data a quick fix needs, carried on the diagnostic so the fix does not recompute it. */
export type FixData =
  | { readonly kind: "unknown-mention"; readonly slug: string }
  | { readonly kind: "normalise-case"; readonly slug: string }
  | { readonly kind: "rename-skill"; readonly reason: "invalid" | "duplicate" | "tool" }
  /** A SKILL.md whose `name:` differs from its folder: set the name, or rename the folder to it. */
  | { readonly kind: "name-mismatch"; readonly name: string; readonly folder: string }
  /** A SKILL.md without a usable `name:`: write the folder's name. */
  | { readonly kind: "set-name"; readonly name: string }
  /** A reference near a real name (`/pdff`): the names to offer, written with the reference's sigil. */
  | { readonly kind: "near-miss"; readonly sigil: string; readonly names: readonly string[] }
  /** A link to a skill folder that is not there, while a skill of that name is: the link that reaches it. */
  | { readonly kind: "relink"; readonly newTarget: string };

export interface CoreDiagnostic {
  readonly range: Range;
  readonly severity: Severity;
  readonly code: DiagnosticCode;
  readonly message: string;
  readonly related?: readonly RelatedInformation[];
  readonly fix?: FixData;
  /** Marks text the editor may fade, like a mention of a disabled skill. */
  readonly unnecessary?: boolean;
}
