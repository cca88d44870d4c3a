import { CodeActionKind, type CodeAction, type Diagnostic, type WorkspaceEdit } from "vscode-languageserver-types";
import { isRefusal, nameOf, nearest, siblingSkillUri, skillTemplate, titleFromHandle, type FixData, type Namespace, type SkillFile } from "../core/index.js";
import { toLspDiagnostic } from "./diagnostics.js";
import type { WorkspaceFile } from "./lookup.js";
import { renameEdit, type VersionOf } from "./rename.js";

/** The edit that makes a SKILL.md's `name:` say `name`: its value replaced, or a line added at the frontmatter's top (a frontmatter made when there is none). */
function setNameEdit(skill: SkillFile, name: string): { range: Diagnostic["range"]; newText: string } {
  const declared = nameOf(skill);
  if (declared) return { range: declared.range, newText: name };
  const top = { line: skill.frontmatterRange ? skill.frontmatterRange.start.line + 1 : 0, character: 0 };
  return { range: { start: top, end: top }, newText: skill.frontmatterRange ? `name: ${name}\n` : `---\nname: ${name}\n---\n` };
}

/** True when two ranges share a position (an empty range at a range's edge counts). */
function touches(a: Diagnostic["range"], b: Diagnostic["range"]): boolean {
  const before = (x: Diagnostic["range"]["start"], y: Diagnostic["range"]["start"]) => x.line < y.line || (x.line === y.line && x.character < y.character);
  return !before(a.end, b.start) && !before(b.end, a.start);
}

/**
 * Quick fixes for the diagnostics in a code-action request, from the fix data each carries. In a SKILL.md the
 * name fixes are offered for the range too, when the editor reported the problem itself and the server did not.
 */
export function quickFixes(namespace: Namespace, file: WorkspaceFile, given: readonly Diagnostic[], versionOf: VersionOf, range?: Diagnostic["range"]): CodeAction[] {
  const diagnostics = [...given];
  if (range && file.kind === "skill") {
    for (const problem of file.file.problems) {
      if ((problem.fix?.kind !== "name-mismatch" && problem.fix?.kind !== "set-name") || !touches(problem.range, range)) continue;
      if (!given.some((diagnostic) => diagnostic.source === "skill" && diagnostic.code === problem.code)) diagnostics.push(toLspDiagnostic(problem));
    }
  }
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
    } else if (fix.kind === "near-miss") {
      fix.names.forEach((name, index) =>
        actions.push({ title: `Change to ${fix.sigil}${name}`, kind: CodeActionKind.QuickFix, diagnostics: [diagnostic], isPreferred: index === 0, edit: replace(diagnostic, `${fix.sigil}${name}`) }),
      );
    } else if (fix.kind === "relink") {
      actions.push({ title: `Link to ${fix.newTarget}`, kind: CodeActionKind.QuickFix, diagnostics: [diagnostic], isPreferred: true, edit: replace(diagnostic, fix.newTarget) });
    } else if ((fix.kind === "set-name" || fix.kind === "name-mismatch") && file.kind === "skill") {
      const skill = file.file;
      const folder = fix.kind === "set-name" ? fix.name : fix.folder;
      const edit = setNameEdit(skill, folder);
      actions.push({
        title: `Set the name to ${folder} (the folder's name)`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnostic],
        isPreferred: true,
        edit: { documentChanges: [{ textDocument: { uri, version: versionOf(uri) }, edits: [edit] }] },
      });
      if (fix.kind === "name-mismatch") {
        // The other way round: the folder takes the name, with every reference to the old one rewritten.
        const plan = namespace.planRename(skill.slug, fix.name);
        if (!isRefusal(plan)) {
          const edits = new Map(plan.edits);
          edits.set(uri, [...(edits.get(uri) ?? []).filter((one) => one.range.start.line !== edit.range.start.line || one.range.start.character !== edit.range.start.character)]);
          if ((edits.get(uri) ?? []).length === 0) edits.delete(uri);
          actions.push({ title: `Rename the folder to ${fix.name}`, kind: CodeActionKind.QuickFix, diagnostics: [diagnostic], edit: renameEdit({ ...plan, edits }, versionOf) });
        }
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
