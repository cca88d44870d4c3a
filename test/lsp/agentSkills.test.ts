import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import {
  CodeActionRequest,
  CompletionRequest,
  CompletionResolveRequest,
  DefinitionRequest,
  DocumentDiagnosticRequest,
  HoverRequest,
  PrepareRenameRequest,
  ReferencesRequest,
  RenameRequest,
  WillRenameFilesRequest,
  type CodeAction,
  type CompletionItem,
  type CompletionList,
  type Diagnostic,
  type DocumentDiagnosticReport,
  type Hover,
  type Location,
  type Range,
  type TextDocumentEdit,
  type WorkspaceEdit,
} from "vscode-languageserver-protocol";
import { REPO, TestClient, copyWorkspace, removeWorkspace, uriOf } from "./harness.js";

/**
 * The Agent Skills fixture (test/fixtures/agent-skills): skills in several agents' folders, CLAUDE.md,
 * AGENTS.md, a nested `skills/` folder, a skill linked in from outside the workspace, a name mismatch, a
 * skill without a name, built-in and user commands, fenced code, links, ignored and skipped folders.
 * Every location below is a needle in a fixture file: the `nth` occurrence of `text`, narrowed to `part`.
 */
interface Spot {
  readonly file: string;
  readonly text: string;
  readonly nth?: number;
  /** The part of `text` the range covers (the whole needle when absent). */
  readonly part?: string;
}

const FIXTURE = path.join(REPO, "test/fixtures/agent-skills");

describe("Agent Skills workspace over stdio", () => {
  let folder: string;
  let outside: string;
  let client: TestClient;
  const file = (relative: string) => path.join(folder, relative);
  const uri = (relative: string) => uriOf(file(relative));
  const textOf = (relative: string) => readFileSync(file(relative), "utf8");

  const rangeOf = (spot: Spot): Range => {
    const text = textOf(spot.file);
    let offset = -1;
    for (let i = 0; i <= (spot.nth ?? 0); i++) offset = text.indexOf(spot.text, offset + 1);
    assert.ok(offset >= 0, `${spot.text} not in ${spot.file}`);
    const start = offset + (spot.part ? spot.text.indexOf(spot.part) : 0);
    const end = start + (spot.part ?? spot.text).length;
    const position = (at: number) => {
      const before = text.slice(0, at);
      return { line: before.split("\n").length - 1, character: at - before.lastIndexOf("\n") - 1 };
    };
    return { start: position(start), end: position(end) };
  };
  const location = (spot: Spot): Location => ({ uri: uri(spot.file), range: rangeOf(spot) });
  const sortLocations = (locations: readonly Location[]) => [...locations].sort((a, b) => a.uri.localeCompare(b.uri) || a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);

  before(async () => {
    folder = copyWorkspace(FIXTURE);
    // Not committed: node_modules is ignored by git too. A skill there is never read.
    mkdirSync(file("node_modules/pkg/skills/vendored"), { recursive: true });
    writeFileSync(file("node_modules/pkg/skills/vendored/SKILL.md"), "---\nname: vendored\ndescription: Never read.\n---\n");
    // A skill kept outside the workspace and linked into an agent's folder.
    outside = mkdtempSync(path.join(tmpdir(), "skill-lsp-shared-"));
    mkdirSync(path.join(outside, "shared-style"));
    writeFileSync(path.join(outside, "shared-style/SKILL.md"), "---\nname: shared-style\ndescription: House style for prose, shared between agents.\n---\nShort sentences.\n");
    symlinkSync(path.join(outside, "shared-style"), file(".agents/skills/shared-style"), "dir");
    client = await TestClient.start({ folders: [folder], pull: true });
  });
  after(async () => {
    await client.stop();
    removeWorkspace(folder);
    rmSync(outside, { recursive: true, force: true });
  });

  const markdownOf = (hover: Hover | null) => (hover && typeof hover.contents === "object" && "value" in hover.contents ? hover.contents.value : "");

  async function diagnosticsOf(relative: string): Promise<Diagnostic[]> {
    const report = (await client.connection.sendRequest(DocumentDiagnosticRequest.type, { textDocument: { uri: uri(relative) } })) as DocumentDiagnosticReport;
    return report.kind === "full" ? report.items : [];
  }

  it("serves every skill folder, the .skill.md beside them, and nothing ignored or skipped", () => {
    // pdf, docx, xlsx, review-pr, brand, notes, deploy-site, kept, shared-style and planner.skill.md;
    // not drafts/old (.skillignore), build/, node_modules/, template/SKILL.md or skills/legacy/skill.md.
    assert.equal(client.status?.skills, 10);
  });

  const expectedDiagnostics: readonly { spot: Spot; code: string; severity: number }[] = [
    { spot: { file: "skills/brand/SKILL.md", text: "name: brand-guide", part: "brand-guide" }, code: "name-mismatch", severity: 1 },
    { spot: { file: "skills/notes/SKILL.md", text: "---" }, code: "missing-name", severity: 2 },
    { spot: { file: ".github/skills/review-pr/SKILL.md", text: "/pdff" }, code: "unknown-reference", severity: 2 },
    { spot: { file: "CLAUDE.md", text: "/pdff" }, code: "unknown-reference", severity: 2 },
    { spot: { file: "CLAUDE.md", text: "/frobnicate" }, code: "unknown-reference", severity: 3 },
    { spot: { file: "CLAUDE.md", text: "skills/brand-old/SKILL.md" }, code: "broken-link", severity: 2 },
    { spot: { file: "template/SKILL.md", text: "" }, code: "misplaced-skill", severity: 3 },
    { spot: { file: "skills/legacy/skill.md", text: "" }, code: "lower-case-skill-file", severity: 4 },
  ];
  const quietFiles = [".claude/skills/pdf/SKILL.md", ".claude/skills/docx/SKILL.md", ".agents/skills/xlsx/SKILL.md", "AGENTS.md", ".claude/commands/deploy.md", ".codex/prompts/ship.md", "planner.skill.md", "packages/web/skills/deploy-site/SKILL.md", "drafts/keep/skills/kept/SKILL.md"];

  it("diagnoses exactly the problems of the fixture: no path, variable, command or fenced text is a reference", async () => {
    const files = [...new Set(expectedDiagnostics.map((expected) => expected.spot.file)), ...quietFiles];
    for (const relative of files) {
      const got = (await diagnosticsOf(relative)).map((diagnostic) => ({ range: diagnostic.range, code: String(diagnostic.code), severity: diagnostic.severity }));
      const want = expectedDiagnostics.filter((expected) => expected.spot.file === relative).map((expected) => ({
        range: expected.spot.text === "" ? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } : rangeOf(expected.spot),
        code: expected.code,
        severity: expected.severity,
      }));
      assert.deepEqual(got, want, relative);
    }
  });

  it("hovers an agent's built-in command as a command, and a SKILL.md key with its source", async () => {
    const at = rangeOf({ file: "CLAUDE.md", text: "/compact" }).start;
    const command = (await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri: uri("CLAUDE.md") }, position: { line: at.line, character: at.character + 2 } })) as Hover;
    assert.match(markdownOf(command), /\/compact. is a built-in command of Claude Code/);
    const key = rangeOf({ file: ".claude/skills/pdf/SKILL.md", text: "license" }).start;
    const license = (await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri: uri(".claude/skills/pdf/SKILL.md") }, position: { line: key.line, character: key.character + 2 } })) as Hover;
    assert.match(markdownOf(license), /Agent Skills specification/);
  });

  it("completes a SKILL.md's frontmatter keys and a finite value set", async () => {
    const xlsx = uri(".agents/skills/xlsx/SKILL.md");
    const text = textOf(".agents/skills/xlsx/SKILL.md");
    await client.open(xlsx, text.replace("disable-model-invocation: true", "disable-model-invocation: "));
    const valueAt = rangeOf({ file: ".agents/skills/xlsx/SKILL.md", text: "disable-model-invocation: " }).end;
    const values = (await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: xlsx }, position: valueAt })) as CompletionList;
    assert.deepEqual(values.items.map((item) => item.label), ["true", "false"]);
    await client.change(xlsx, text.replace("disable-model-invocation: true\n", "disable-model-invocation: true\nal\n"));
    const keyAt = { line: valueAt.line + 1, character: 2 };
    const keys = (await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: xlsx }, position: keyAt })) as CompletionList;
    const labels = keys.items.map((item) => item.label);
    assert.ok(labels.includes("allowed-tools") && labels.includes("license"), labels.join(" "));
    assert.ok(!labels.includes("name") && !labels.includes("description"), "keys already written are not offered");
    await client.close(xlsx);
  });

  it("offers both fixes for a name unlike its folder: set the name, or rename the folder", async () => {
    const brand = uri("skills/brand/SKILL.md");
    const range = rangeOf({ file: "skills/brand/SKILL.md", text: "name: brand-guide", part: "brand-guide" });
    const diagnostics = (await diagnosticsOf("skills/brand/SKILL.md")).filter((diagnostic) => diagnostic.code === "name-mismatch");
    const actions = (await client.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri: brand }, range, context: { diagnostics } })) as CodeAction[];
    assert.deepEqual(actions.map((action) => action.title), ["Set the name to brand (the folder's name)", "Rename the folder to brand-guide"]);
    assert.deepEqual(actions[0]?.edit?.documentChanges, [{ textDocument: { uri: brand, version: null }, edits: [{ range, newText: "brand" }] }]);
    const moves = actions[1]?.edit?.documentChanges ?? [];
    assert.deepEqual(moves.at(-1), { kind: "rename", oldUri: uri("skills/brand"), newUri: uri("skills/brand-guide"), options: { overwrite: false, ignoreIfExists: false } });
  });

  it("names the near miss and the broken link's fix", async () => {
    const [nearMiss] = await diagnosticsOf(".github/skills/review-pr/SKILL.md");
    assert.match(nearMiss?.message ?? "", /did you mean \/pdf\?/);
    const broken = (await diagnosticsOf("CLAUDE.md")).find((diagnostic) => diagnostic.code === "broken-link");
    assert.match(broken?.message ?? "", /does not exist/);
  });

  /** Every reference to @pdf in the fixture, whatever its sigil, and its declaration. */
  const pdfReferences: readonly Spot[] = [
    { file: ".claude/skills/docx/SKILL.md", text: "/pdf" },
    { file: "AGENTS.md", text: "$pdf" },
    { file: "AGENTS.md", text: "@pdf" },
    { file: "CLAUDE.md", text: "/pdf" },
    { file: "planner.skill.md", text: "@pdf" },
    { file: "skills/brand/SKILL.md", text: "/pdf" },
  ];
  const pdfDeclaration: Spot = { file: ".claude/skills/pdf/SKILL.md", text: "name: pdf", part: "pdf" };
  const docxReferences: readonly Spot[] = [
    { file: ".claude/skills/pdf/SKILL.md", text: "/docx" },
    { file: ".claude/skills/pdf/SKILL.md", text: "@docx" },
    { file: ".claude/skills/pdf/SKILL.md", text: "../docx/SKILL.md", part: "docx" },
    { file: "AGENTS.md", text: "$docx" },
    { file: "CLAUDE.md", text: "/docx" },
    { file: "CLAUDE.md", text: ".claude/skills/docx/SKILL.md", part: "docx" },
    { file: "planner.skill.md", text: "@docx" },
    { file: "skills/brand/SKILL.md", text: "/docx" },
  ];
  const docxDeclaration: Spot = { file: ".claude/skills/docx/SKILL.md", text: "name: docx", part: "docx" };

  for (const [name, spots, declaration] of [["pdf", pdfReferences, pdfDeclaration], ["docx", docxReferences, docxDeclaration]] as const) {
    it(`finds every reference to ${name}, from each of them and from its name`, async () => {
      const want = sortLocations([location(declaration), ...spots.map(location)]);
      for (const start of [declaration, ...spots]) {
        const at = rangeOf(start).start;
        const got = (await client.connection.sendRequest(ReferencesRequest.type, { textDocument: { uri: uri(start.file) }, position: { line: at.line, character: at.character + 1 }, context: { includeDeclaration: true } })) as Location[];
        assert.deepEqual(sortLocations(got), want, `from ${start.file} ${start.text}`);
      }
    });
  }

  it("goes to the name: value of a skill from a reference, a link included", async () => {
    for (const spot of [{ file: "CLAUDE.md", text: "/docx" }, { file: "CLAUDE.md", text: ".claude/skills/docx/SKILL.md", part: "docx" }, { file: "planner.skill.md", text: "@docx" }]) {
      const at = rangeOf(spot).start;
      const got = await client.connection.sendRequest(DefinitionRequest.type, { textDocument: { uri: uri(spot.file) }, position: { line: at.line, character: at.character + 1 } });
      assert.deepEqual(got, [location(docxDeclaration)], spot.text);
    }
  });

  it("hovers a reference with the skill's description", async () => {
    const at = rangeOf({ file: "CLAUDE.md", text: "$xlsx" }).start;
    const hover = (await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri: uri("CLAUDE.md") }, position: { line: at.line, character: at.character + 2 } })) as Hover;
    const value = typeof hover.contents === "object" && "value" in hover.contents ? hover.contents.value : "";
    assert.match(value, /Build spreadsheets with formulas and charts\./);
    assert.match(value, /not advertised/);
  });

  it("completes skills after / and $ with their descriptions, and nothing in code or after a path", async () => {
    const claude = uri("CLAUDE.md");
    const text = textOf("CLAUDE.md");
    const lines = text.split("\n");
    const typed = `${text}Next: /d`;
    await client.open(claude, typed);
    const end = { line: lines.length - 1, character: "Next: /d".length };
    const list = (await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: claude }, position: end })) as CompletionList;
    const labels = list.items.map((item) => item.label);
    assert.ok(labels.includes("/docx") && labels.includes("/deploy-site"), labels.join(" "));
    assert.ok(!labels.some((label) => !label.startsWith("/")), "only skills, written with the typed sigil");
    const resolved = (await client.connection.sendRequest(CompletionResolveRequest.type, list.items.find((item) => item.label === "/docx") as CompletionItem)) as CompletionItem;
    assert.match(typeof resolved.documentation === "object" ? resolved.documentation.value : "", /Create and edit Word documents/);

    await client.change(claude, `${text}Codex: $x`);
    const dollar = (await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: claude }, position: { line: lines.length - 1, character: "Codex: $x".length } })) as CompletionList;
    assert.deepEqual(dollar.items.map((item) => item.label).filter((label) => label === "$xlsx"), ["$xlsx"]);

    for (const tail of ["see docs/", "```\n/"]) {
      await client.change(claude, `${text}${tail}`);
      const tailLines = `${text}${tail}`.split("\n");
      const position = { line: tailLines.length - 1, character: (tailLines.at(-1) ?? "").length };
      assert.equal(await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: claude }, position }), null, tail);
    }
    await client.close(claude);
  });

  /** The rename of pdf to portable-pdf, as the server must answer it from anywhere. */
  const expectedPdfRename = (newName = "portable-pdf"): WorkspaceEdit => {
    const edits = new Map<string, { range: Range; newText: string }[]>();
    const add = (spot: Spot, newText: string) => {
      const key = uri(spot.file);
      edits.set(key, [...(edits.get(key) ?? []), { range: rangeOf(spot), newText }]);
    };
    add(pdfDeclaration, newName);
    for (const spot of pdfReferences) add(spot, `${spot.text.charAt(0)}${newName}`);
    // The folder's own SKILL.md is edited after the move, under its new URI.
    const own = uri(".claude/skills/pdf/SKILL.md");
    const sorted = [...edits].sort(([a], [b]) => (a < b ? -1 : 1));
    return {
      documentChanges: [
        ...sorted.filter(([key]) => key !== own).map(([key, list]) => ({ textDocument: { uri: key, version: null }, edits: list })),
        { kind: "rename", oldUri: uri(".claude/skills/pdf"), newUri: uri(`.claude/skills/${newName}`), options: { overwrite: false, ignoreIfExists: false } },
        { textDocument: { uri: uri(`.claude/skills/${newName}/SKILL.md`), version: null }, edits: edits.get(own) ?? [] },
      ],
    };
  };

  it("renames from any reference or from the name: value with one edit: every sigil, the name, then the folder", async () => {
    const want = expectedPdfRename();
    for (const start of [pdfDeclaration, ...pdfReferences]) {
      const at = rangeOf(start).start;
      const position = { line: at.line, character: at.character + 1 };
      const prepared = (await client.connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri: uri(start.file) }, position })) as { range: Range; placeholder: string };
      assert.equal(prepared.placeholder, "pdf");
      const edit = await client.connection.sendRequest(RenameRequest.type, { textDocument: { uri: uri(start.file) }, position, newName: "portable-pdf" });
      assert.deepEqual(edit, want, `from ${start.file} ${start.text}`);
    }
  });

  it("a renamed link keeps its path: the folder's name is the only part rewritten", async () => {
    const at = rangeOf({ file: "CLAUDE.md", text: "/docx" }).start;
    const edit = (await client.connection.sendRequest(RenameRequest.type, { textDocument: { uri: uri("CLAUDE.md") }, position: { line: at.line, character: at.character + 1 }, newName: "word" })) as WorkspaceEdit;
    const texts = (edit.documentChanges ?? []).flatMap((change) => ("edits" in change ? change.edits.map((one) => one.newText) : []));
    assert.deepEqual(texts.sort(), ["$word", "/word", "/word", "/word", "@word", "@word", "word", "word", "word"]);
    assert.deepEqual(edit.documentChanges?.at(-2), { kind: "rename", oldUri: uri(".claude/skills/docx"), newUri: uri(".claude/skills/word"), options: { overwrite: false, ignoreIfExists: false } });
  });

  it("refuses a rename to a taken or invalid name, saying why", async () => {
    const at = rangeOf({ file: "AGENTS.md", text: "$pdf" }).start;
    const position = { line: at.line, character: at.character + 1 };
    await assert.rejects(client.connection.sendRequest(RenameRequest.type, { textDocument: { uri: uri("AGENTS.md") }, position, newName: "docx" }), /taken by the skill/);
    await assert.rejects(client.connection.sendRequest(RenameRequest.type, { textDocument: { uri: uri("AGENTS.md") }, position, newName: "data_sync" }), /not a valid handle/);
  });

  it("cascades a skill folder renamed in the explorer: the same text edits, no move of its own", async () => {
    // The folder move the rename above answered comes back from the client once, and is not cascaded twice.
    const expected = await client.connection.sendRequest(WillRenameFilesRequest.type, { files: [{ oldUri: uri(".claude/skills/pdf"), newUri: uri(".claude/skills/portable-pdf") }] });
    assert.equal(expected, null);
    const edit = (await client.connection.sendRequest(WillRenameFilesRequest.type, { files: [{ oldUri: uri(".claude/skills/pdf"), newUri: uri(".claude/skills/pdf-tools") }] })) as WorkspaceEdit;
    // Before the client moves the folder: every edit under the old URIs, and no move.
    const want = expectedPdfRename("pdf-tools").documentChanges ?? [];
    const own = want.at(-1) as TextDocumentEdit;
    const before = [...want.slice(0, -2), { textDocument: { uri: uri(".claude/skills/pdf/SKILL.md"), version: null }, edits: own.edits }] as TextDocumentEdit[];
    assert.deepEqual(edit, { documentChanges: before.sort((a, b) => (a.textDocument.uri < b.textDocument.uri ? -1 : 1)) });
  });
});

describe("Agent Skills workspace in an editor that validates SKILL.md itself", () => {
  let folder: string;
  let client: TestClient;
  const uri = (relative: string) => uriOf(path.join(folder, relative));

  before(async () => {
    folder = copyWorkspace(FIXTURE);
    client = await TestClient.start({ folders: [folder], pull: true, editorValidatesSkillFiles: true });
  });
  after(async () => {
    await client.stop();
    removeWorkspace(folder);
  });

  it("leaves the editor's own SKILL.md problems to it, and still offers their fixes", async () => {
    const codesOf = async (relative: string) => {
      const report = (await client.connection.sendRequest(DocumentDiagnosticRequest.type, { textDocument: { uri: uri(relative) } })) as DocumentDiagnosticReport;
      return report.kind === "full" ? report.items.map((item) => String(item.code)) : [];
    };
    assert.deepEqual(await codesOf("skills/brand/SKILL.md"), []);
    assert.deepEqual(await codesOf("skills/notes/SKILL.md"), []);
    assert.deepEqual(await codesOf(".github/skills/review-pr/SKILL.md"), ["unknown-reference"]);
    const range = { start: { line: 1, character: 6 }, end: { line: 1, character: 6 } };
    const actions = (await client.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri: uri("skills/brand/SKILL.md") }, range, context: { diagnostics: [] } })) as CodeAction[];
    assert.deepEqual(actions.map((action) => action.title), ["Set the name to brand (the folder's name)", "Rename the folder to brand-guide"]);
  });
});
