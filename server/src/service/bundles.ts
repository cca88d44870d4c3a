import type { WorkspaceEdit } from "vscode-languageserver-types";
import type { ExportBundleResult, PlanImportResult } from "../../../shared/protocol.js";
import { bundleText, exportBundle, parseBundle, planImport, reviewLines, type BundleFile } from "../core/bundle.js";
import { isRefusal, type Namespace, type Refusal, type SkillFile } from "../core/index.js";

/** The bundle of the skill a file defines: the skill and every skill it mentions, transitively. */
export function exportSkillBundle(namespace: Namespace, uri: string, filesOf: (skill: SkillFile) => readonly BundleFile[] = () => []): ExportBundleResult | Refusal {
  const skill = namespace.skill(uri);
  if (!skill) return { refused: "This file is not a skill." };
  const bundle = exportBundle(namespace, skill.slug, filesOf);
  if (isRefusal(bundle)) return bundle;
  return { handle: skill.slug, text: bundleText(bundle), skills: bundle.skills.map((one) => one.handle), tools: bundle.tools.map((tool) => tool.name) };
}

/** The review of importing a bundle into a folder, and the one edit that accepting it applies. */
export function planSkillImport(namespace: Namespace, text: string, folderUri: string): PlanImportResult | Refusal {
  const bundle = parseBundle(text);
  if (isRefusal(bundle)) return bundle;
  const plan = planImport(namespace, bundle, folderUri);
  if (isRefusal(plan)) return plan;
  // A workspace edit carries text only: bytes and an executable bit would be lost, so such a bundle is refused.
  const carried = plan.files.filter((file) => file.bytes !== undefined).length;
  if (carried > 0) return { refused: `This bundle carries ${carried} file${carried === 1 ? "" : "s"} of its skills' folders (scripts, assets), which an editor edit cannot write byte for byte: run skill-lsp import on it instead.` };
  const documentChanges: NonNullable<WorkspaceEdit["documentChanges"]> = [];
  for (const file of plan.files) {
    documentChanges.push({ kind: "create", uri: file.uri, options: { overwrite: false, ignoreIfExists: false } });
    documentChanges.push({ textDocument: { uri: file.uri, version: null }, edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: file.text }] });
  }
  return {
    review: reviewLines(plan.review),
    created: plan.review.skills.filter((skill) => skill.action === "create").map((skill) => skill.handle),
    reused: plan.review.skills.filter((skill) => skill.action === "reuse").map((skill) => skill.handle),
    edit: { documentChanges },
  };
}
