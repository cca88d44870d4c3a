import { CodeActionKind, type CodeAction, type Diagnostic, type WorkspaceEdit } from "vscode-languageserver-types";
import { nearest, siblingSkillUri, skillTemplate, titleFromHandle, type FixData, type Namespace } from "../core/index.js";
import type { WorkspaceFile } from "./lookup.js";
import type { VersionOf } from "./rename.js";

/** Quick fixes for the diagnostics in a code-action request, from the fix data each carries. */
export function quickFixes(namespace: Namespace, file: WorkspaceFile, diagnostics: readonly Diagnostic[], versionOf: VersionOf): CodeAction[] {
  const actions: CodeAction[] = [];
  const uri = file.file.uri;
  const replace = (diagnostic: Diagnostic, newText: string): WorkspaceEdit => ({
    documentChanges: [{ textDocument: { uri, version: versionOf(uri) }, edits: [{ range: diagnostic.range, newText }] }],
  });
  for (const diagnostic of diagnostics) {
    const fix = diagnostic.data as FixData | undefined;
    if (diagnostic.source !== "skill" || !fix) continue;
    if (fix.kind === "unknown-mention") {
      const candidates = new Set<string>();
      for (const skill of namespace.skills()) if (skill.validHandle && skill.enabled) candidates.add(skill.slug);
      for (const tool of namespace.tools()) candidates.add(tool.slug);
      nearest(fix.slug, candidates).forEach((slug, index) =>
        actions.push({ title: `Change to @${slug}`, kind: CodeActionKind.QuickFix, diagnostics: [diagnostic], isPreferred: index === 0, edit: replace(diagnostic, `@${slug}`) }),
      );
      const newUri = siblingSkillUri(uri, fix.slug);
      if (!namespace.has(newUri)) {
        actions.push({
          title: `Create skill @${fix.slug}`,
          kind: CodeActionKind.QuickFix,
          diagnostics: [diagnostic],
          edit: {
            documentChanges: [
              { kind: "create", uri: newUri, options: { overwrite: false, ignoreIfExists: true } },
              { textDocument: { uri: newUri, version: null }, edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: skillTemplate(titleFromHandle(fix.slug)) }] },
            ],
          },
        });
      }
    } else if (fix.kind === "normalise-case") {
      actions.push({ title: `Write @${fix.slug}`, kind: CodeActionKind.QuickFix, diagnostics: [diagnostic], isPreferred: true, edit: replace(diagnostic, `@${fix.slug}`) });
    } else if (fix.kind === "rename-skill" && file.kind === "skill") {
      const skill = file.file;
      const handle = namespace.mint(skill.title);
      const newUri = siblingSkillUri(uri, handle);
      actions.push({
        title: fix.reason === "invalid" ? `Rename the file to ${handle}.skill.md` : `Rename this skill to @${handle}`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnostic],
        isPreferred: true,
        edit: { documentChanges: [{ kind: "rename", oldUri: uri, newUri, options: { overwrite: false, ignoreIfExists: false } }] },
      });
    }
  }
  return actions;
}
