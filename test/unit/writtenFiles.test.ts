/**
 * Every file a command or a quick fix writes lints clean the moment it exists: New Skill (for awkward titles),
 * the "Create skill @x" quick fix, Create Built-in Skills, and the skills an import or an Agent Skills export
 * writes. A file that opens with an error is the first thing a new user sees.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { TextDocumentEdit, WorkspaceEdit } from "vscode-languageserver-types";
import { exportAgentSkills, exportBundle, fromAgentSkill, planImport } from "../../server/src/core/bundle.js";
import { isRefusal, Namespace, skillTemplate, yamlString } from "../../server/src/core/index.js";
import { quickFixes } from "../../server/src/service/codeActions.js";
import { toLspDiagnostics } from "../../server/src/service/diagnostics.js";
import { fileOf } from "../../server/src/service/lookup.js";
import { createBuiltins, newSkill } from "../../server/src/service/requests.js";
import { parseDocument } from "yaml";
import { skillUri, uri, WS } from "./helpers.js";

/** Titles a person really types: accents, punctuation, quotes, colons, YAML's own words, and a long one. */
const AWKWARD_TITLES = [
  "Café Crème Order!",
  'Say "hello" to Ana',
  "It's O'Brien's turn",
  "Reminder: call mum",
  "a: b: c",
  "Step 1 # not a comment",
  "- starts with a dash",
  "[bracketed] {braced}",
  "yes",
  "null",
  "100",
  "@mention in a title",
  "tab\tand\nnewline",
  "A title that goes on and on well past sixty-four characters, because people do write those",
  "東京 trip ✈️",
];

/** The text every created file gets in a workspace edit. */
function createdFiles(edit: WorkspaceEdit): Map<string, string> {
  const files = new Map<string, string>();
  for (const change of edit.documentChanges ?? []) {
    if (!("textDocument" in change)) continue;
    const documentEdit = change as TextDocumentEdit;
    files.set(documentEdit.textDocument.uri, documentEdit.edits.map((edit) => ("newText" in edit ? edit.newText : "")).join(""));
  }
  return files;
}

/** Every diagnostic of a file once it is written into the namespace, as "severity code message". */
function problems(namespace: Namespace, fileUri: string, text: string): string[] {
  namespace.set(fileUri, text);
  return namespace.diagnose(fileUri).map((diagnostic) => `${diagnostic.severity} ${diagnostic.code} ${diagnostic.message}`);
}

describe("files the commands and quick fixes write lint clean", () => {
  test("New Skill, for every awkward title: no diagnostic, and the title reads back as typed", () => {
    for (const title of AWKWARD_TITLES) {
      const namespace = new Namespace();
      const result = newSkill(namespace, title, WS);
      const files = createdFiles(result.edit);
      assert.equal(files.size, 1, title);
      const text = files.get(result.uri) ?? "";
      assert.deepEqual(problems(namespace, result.uri, text), [], `${JSON.stringify(title)}:\n${text}`);
      assert.equal(namespace.skill(result.uri)?.title, title.replace(/\s+/g, " ").trim(), title);
      assert.ok(result.handle.length <= 64, title);
    }
  });

  test("two new skills in a row: neither is 'too alike' the other before its author writes a summary", () => {
    const namespace = new Namespace();
    const first = newSkill(namespace, "Order coffee", WS);
    namespace.set(first.uri, createdFiles(first.edit).get(first.uri) ?? "");
    const second = newSkill(namespace, "Book a table", WS);
    assert.deepEqual(problems(namespace, second.uri, createdFiles(second.edit).get(second.uri) ?? ""), []);
    assert.deepEqual(namespace.diagnose(first.uri), []);
    assert.match(skillTemplate("Plain"), /^# The summary: when to use this skill, in one line\. The planner's menu shows it\.\nsummary: Plain$/m);
  });

  test('"Create skill @x" for awkward handles: the new file has no diagnostic', () => {
    for (const slug of ["serch-info", "yes", "null", "true", "2fa-codes", "x", "a".repeat(64), "on-off", "no"]) {
      const source = skillUri("source");
      const namespace = new Namespace();
      namespace.set(source, `---\nsummary: Uses another.\n---\nUse @${slug}.\n`);
      const diagnostics = toLspDiagnostics(namespace.diagnose(source)).filter((diagnostic) => diagnostic.code === "unknown-mention");
      assert.equal(diagnostics.length, 1, slug);
      const file = fileOf(namespace, source);
      assert.ok(file);
      const create = quickFixes(namespace, file, diagnostics, () => null).find((action) => action.title === `Create skill @${slug}`);
      assert.ok(create?.edit, slug);
      const [[created, text] = ["", ""]] = [...createdFiles(create.edit)];
      assert.equal(created, skillUri(slug));
      assert.deepEqual(problems(namespace, created, text), [], `${slug}:\n${text}`);
      assert.deepEqual(namespace.diagnose(source), [], `${slug}: the mention resolves now`);
    }
  });

  test("Create Built-in Skills: the three files have no diagnostic", () => {
    const namespace = new Namespace();
    const files = createdFiles(createBuiltins(namespace, WS).edit);
    assert.equal(files.size, 3);
    for (const [fileUri, text] of files) namespace.set(fileUri, text);
    for (const fileUri of files.keys()) assert.deepEqual(namespace.diagnose(fileUri).map((diagnostic) => diagnostic.message), [], fileUri);
  });

  test("import of a bundle with awkward titles, its handles taken here: the re-slugged files have no diagnostic", () => {
    const from = new Namespace();
    for (const [index, title] of AWKWARD_TITLES.entries()) {
      const next = index + 1 < AWKWARD_TITLES.length ? ` Then @step-${index + 1}.` : "";
      from.set(uri(`from/step-${index}.skill.md`), `${skillTemplate(title).replace(/Describe the steps[^\n]*/, `Do it.${next}`)}`);
    }
    const bundle = exportBundle(from, "step-0");
    assert.ok(!isRefusal(bundle), isRefusal(bundle) ? bundle.refused : "");
    const here = new Namespace();
    here.set(skillUri("step-0"), "---\nsummary: Already here.\n---\nMine.\n");
    here.set(skillUri("step-3"), "---\nsummary: Already here too.\n---\nMine.\n");
    const plan = planImport(here, bundle, uri("in/"));
    assert.ok(!isRefusal(plan));
    assert.equal(plan.files.length, AWKWARD_TITLES.length);
    for (const file of plan.files) here.set(file.uri, file.text);
    for (const file of plan.files) assert.deepEqual(here.diagnose(file.uri).map((diagnostic) => diagnostic.message), [], `${file.uri}:\n${file.text}`);
  });

  test("an Agent Skills export of awkward titles reads back as skills with no diagnostic", () => {
    const from = new Namespace();
    for (const [index, title] of AWKWARD_TITLES.entries()) from.set(uri(`step-${index}.skill.md`), skillTemplate(title).replace(/Describe the steps[^\n]*/, index + 1 < AWKWARD_TITLES.length ? `Then @step-${index + 1}.` : "Done."));
    const folders = exportAgentSkills(from, "step-0");
    assert.ok(!isRefusal(folders), isRefusal(folders) ? folders.refused : "");
    const back = new Namespace();
    for (const folder of folders) {
      const skill = fromAgentSkill(folder.folder, folder.text);
      assert.ok(!isRefusal(skill), folder.folder);
      back.set(uri(`back/${skill.handle}.skill.md`), skill.text);
    }
    for (const folder of folders) assert.deepEqual(back.diagnose(uri(`back/${folder.folder}.skill.md`)).map((diagnostic) => diagnostic.message), [], folder.folder);
  });

  test("yamlString keeps a plain value plain and quotes what YAML would read as something else", () => {
    assert.equal(yamlString("Plan a trip"), "Plan a trip");
    for (const value of ["Key: value", "yes", "100", "null", "#1", "- x", "'q'", '"q"', " padded", "", "{a}", "a #b", "a: b"]) {
      const written = yamlString(value);
      assert.equal(parseDocument(`key: ${written}\n`).get("key"), value, written);
    }
  });
});
