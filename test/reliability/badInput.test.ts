/**
 * The corpus of bad input against the real server over stdio. For every case: the server indexes the
 * workspace, answers every request on every file within the bound (REQUEST_BOUND_MS), reports the expected
 * diagnostic codes, keeps every range inside its text, re-reads every path when told it changed, takes the
 * same text from an editor, and writes nothing: the workspace is the same, byte for byte, before and after.
 *
 *   SKILL_BAD_INPUT_CASE=crlf node --import tsx --test test/reliability/badInput.test.ts   one case, with its timings
 */
import assert from "node:assert/strict";
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import {
  DidChangeWatchedFilesNotification,
  FileChangeType,
  type CodeLens,
  type CompletionList,
  type Diagnostic,
  type DocumentDiagnosticReport,
  type DocumentSymbol,
  type Hover,
  type Location,
  type SemanticTokens,
  type TextDocumentEdit,
  type WorkspaceEdit,
} from "vscode-languageserver-protocol";
import { AlignmentRequest, ExpandRequest, MintRequest, TOKEN_TYPES, type ExpandResult, type MintResult } from "../../shared/protocol.js";
import { uriOf } from "../lsp/harness.js";
import { planWorkspaceEdit, type Effect } from "./applier.js";
import { FIXTURES, RUNNING_AS_ROOT, committedCases, generatedCases, type BadInputCase } from "./corpus.js";
import { findMentions } from "./mentions.js";
import { Session, TextIndex, assertUnchanged, decode, snapshot, type Position } from "./support.js";

const cases = [...committedCases(), ...generatedCases()];
const only = process.env.SKILL_BAD_INPUT_CASE;
const timings: string[] = [];

/** What the server holds for each file: the editor's text when open, else the file as read from disk. */
class Texts {
  readonly #open = new Map<string, { index: TextIndex; version: number }>();
  readonly #disk = new Map<string, TextIndex | undefined>();

  setOpen(uri: string, text: string | undefined, version = 0): void {
    if (text === undefined) this.#open.delete(uri);
    else this.#open.set(uri, { index: new TextIndex(text), version });
  }

  open(uri: string): { text: string; version: number } | undefined {
    const open = this.#open.get(uri);
    return open && { text: open.index.text, version: open.version };
  }

  disk(uri: string): string | undefined {
    return this.#open.has(uri) ? undefined : this.get(uri)?.text;
  }

  get(uri: string): TextIndex | undefined {
    const open = this.#open.get(uri);
    if (open) return open.index;
    if (!this.#disk.has(uri)) {
      let index: TextIndex | undefined;
      try {
        const file = new URL(uri);
        const stat = statSync(file);
        if (stat.isFile()) index = new TextIndex(decode(readFileSync(file)));
      } catch {
        index = undefined;
      }
      this.#disk.set(uri, index);
    }
    return this.#disk.get(uri);
  }
}

/** The characters a span spells: in skills.json, after JSON's escapes (`\u0040x` is `@x`). */
function spelled(uri: string, text: string): string {
  if (!uri.endsWith("/skills.json")) return text;
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return text;
  }
}

function codes(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((diagnostic) => String(diagnostic.code)).sort();
}

async function pull(session: Session, uri: string): Promise<Diagnostic[]> {
  const { result } = await session.request<DocumentDiagnosticReport>("textDocument/diagnostic", { textDocument: { uri } });
  assert.ok(result, "diagnostics are never refused");
  assert.equal(result.kind, "full");
  return result.kind === "full" ? result.items : [];
}

/** The positions worth asking about: the edges, past the end, and on and inside a few `@`s (fewer when `brief`). */
function positionsOf(index: TextIndex, brief: boolean): Position[] {
  const at: number[] = [];
  for (let i = index.text.indexOf("@"); i !== -1 && at.length < 200; i = index.text.indexOf("@", i + 1)) at.push(i);
  // In a huge file each request on a mention answers 100,000 locations: one such position is enough.
  const huge = brief || index.text.length > 200_000;
  const picked = huge ? [at[0]] : [...at.slice(0, 3), ...at.slice(-2)];
  const positions: Position[] = huge ? [index.end] : [{ line: 0, character: 0 }, index.end, { line: index.lineCount + 3, character: 2 }, { line: 0, character: 100_000 }];
  for (const offset of picked) if (offset !== undefined) positions.push(index.positionOf(offset), index.positionOf(offset + 2));
  return positions;
}

/** Every request a client makes on a file; every answer checked against the text it is about. */
async function exercise(session: Session, uri: string, texts: Texts, context: string, brief = false): Promise<void> {
  const index = texts.get(uri);
  assert.ok(index, `${context}: no text for ${uri}`);
  const document = { textDocument: { uri } };
  const where = (what: string) => `${context} ${what}`;
  const isMention = (text: string, at = uri) => /^@[A-Za-z0-9-]+$/.test(spelled(at, text));

  const tokens = (await session.request<SemanticTokens>("textDocument/semanticTokens/full", document)).result;
  const data = tokens?.data ?? [];
  assert.equal(data.length % 5, 0);
  let line = 0;
  let character = 0;
  for (let i = 0; i < data.length; i += 5) {
    const [deltaLine = 0, deltaStart = 0, length = 0, type = 0] = data.slice(i, i + 5);
    line += deltaLine;
    character = deltaLine === 0 ? character + deltaStart : deltaStart;
    assert.ok(type < TOKEN_TYPES.length);
    const text = index.slice({ start: { line, character }, end: { line, character: character + length } }, where("semantic token"));
    assert.ok(isMention(text), where(`a semantic token covers ${JSON.stringify(text)}, not a mention`));
  }
  await session.request("textDocument/semanticTokens/range", { ...document, range: { start: { line: 0, character: 0 }, end: index.end } });

  const diagnostics = await pull(session, uri);
  for (const diagnostic of diagnostics) {
    index.assertInside(diagnostic.range, where(`diagnostic ${diagnostic.code}`));
    assert.ok(diagnostic.message.length > 0);
  }
  await session.request("textDocument/codeAction", { ...document, range: { start: { line: 0, character: 0 }, end: index.end }, context: { diagnostics: diagnostics.slice(0, 50) } });
  const symbols = (await session.request<DocumentSymbol[]>("textDocument/documentSymbol", document)).result ?? [];
  for (const symbol of symbols) index.assertInside(symbol.range, where("symbol"));
  const lenses = (await session.request<CodeLens[]>("textDocument/codeLens", document)).result ?? [];
  for (const lens of lenses) index.assertInside(lens.range, where("code lens"));

  for (const position of positionsOf(index, brief)) {
    const at = { ...document, position };
    const list = (await session.request<CompletionList | null>("textDocument/completion", at)).result;
    for (const item of list?.items.slice(0, 20) ?? []) {
      if (item.textEdit && "range" in item.textEdit) index.assertInside(item.textEdit.range, where("completion"));
    }
    if (list?.items[0]) await session.request("completionItem/resolve", list.items[0]);
    const hover = (await session.request<Hover | null>("textDocument/hover", at)).result;
    if (hover?.range) assert.ok(isMention(index.slice(hover.range, where("hover"))));
    await session.request("textDocument/definition", at);
    const references = (await session.request<Location[] | null>("textDocument/references", { ...at, context: { includeDeclaration: true } })).result ?? [];
    for (const location of references) {
      const other = texts.get(location.uri);
      assert.ok(other, where(`a reference into ${location.uri}, which the server cannot have read`));
      const text = other.slice(location.range, where("reference"));
      assert.ok(text === "" || isMention(text, location.uri), where(`a reference covers ${JSON.stringify(text)}`));
    }
    const prepared = await session.request<{ placeholder: string } | null>("textDocument/prepareRename", at);
    const renamed = await session.request<WorkspaceEdit | null>("textDocument/rename", { ...at, newName: "renamed-by-test" });
    if (prepared.result && renamed.result) checkRename(renamed.result, prepared.result.placeholder, texts, where("rename"));
  }
}

/** A rename's edit is well formed: it rewrites whole mentions of the old slug only, keeps every line, and is all-or-nothing applicable. */
function checkRename(edit: WorkspaceEdit, oldSlug: string, texts: Texts, context: string): void {
  const changes = edit.documentChanges ?? [];
  const plan = planWorkspaceEdit(edit, texts);
  assert.ok("effects" in plan, `${context}: ${"refused" in plan ? plan.refused : ""}`);
  for (const change of changes) {
    if (!("textDocument" in change)) continue;
    const index = texts.get(change.textDocument.uri);
    assert.ok(index, context);
    for (const one of change.edits) assert.equal(spelled(change.textDocument.uri, index.slice(one.range, context)).toLowerCase(), `@${oldSlug}`, `${context}: an edit rewrites something other than @${oldSlug}`);
    const result: Effect | undefined = plan.effects.find((effect) => effect.kind === "text" && effect.uri === change.textDocument.uri);
    if (result?.kind === "text") {
      assert.equal(new TextIndex(result.text).lineCount, index.lineCount, `${context}: the rename changed the number of lines`);
      // In skill files the scan of the whole text is close enough (no fixture has an @ in its title); skills.json is left to the fuzz model.
      if (change.textDocument.uri.endsWith(".skill.md")) assert.ok(!findMentions(result.text).mentions.some((mention) => mention.slug === oldSlug), `${context}: @${oldSlug} is left in ${change.textDocument.uri}`);
    }
  }
  assert.ok(changes.some((change) => "kind" in change && change.kind === "rename"), `${context}: the file itself is renamed`);
}

/** Every path in the workspace, except inside node_modules and .git, without following links. */
function entries(folder: string): string[] {
  const found: string[] = [];
  const walk = (directory: string, depth: number) => {
    for (const name of readdirSync(directory)) {
      const full = path.join(directory, name);
      found.push(full);
      if (depth < 300 && lstatSync(full).isDirectory() && name !== "node_modules" && name !== ".git") walk(full, depth + 1);
    }
  };
  walk(folder, 0);
  return found;
}

async function extraChecks(kase: BadInputCase, session: Session, uri: (relative: string) => string, t: { diagnostic(message: string): void }): Promise<void> {
  const status = session.client.status;
  switch (kase.check) {
    case "hundred-thousand": {
      const other = uri("other.skill.md");
      const references = (await session.request<Location[]>("textDocument/references", { textDocument: { uri: other }, position: { line: 3, character: 6 }, context: { includeDeclaration: false } })).result ?? [];
      assert.equal(references.length, 100_001);
      const edit = (await session.request<WorkspaceEdit>("textDocument/rename", { textDocument: { uri: other }, position: { line: 3, character: 6 }, newName: "y" })).result;
      const edits = (edit?.documentChanges ?? []).flatMap((change) => ("textDocument" in change ? change.edits : []));
      assert.equal(edits.length, 100_001);
      break;
    }
    case "chain": {
      const expansion = (await session.request<ExpandResult>(ExpandRequest.method, { handles: ["@s0"] })).result;
      assert.deepEqual(expansion?.tools.map((tool) => tool.name), ["queryCalendar"]);
      assert.equal(expansion?.skills.length, 10_000);
      const lenses = (await session.request<CodeLens[]>("textDocument/codeLens", { textDocument: { uri: uri("chain/s0.skill.md") } })).result ?? [];
      assert.match(lenses[0]?.command?.title ?? "", /binds queryCalendar/);
      assert.equal(status?.skills, 10_000);
      break;
    }
    case "cycle": {
      const expansion = (await session.request<ExpandResult>(ExpandRequest.method, { handles: ["@c500"] })).result;
      assert.deepEqual(expansion?.tools.map((tool) => tool.name), ["find_file"]);
      assert.equal(expansion?.skills.length, 1000);
      assert.equal(expansion?.skills[0], "c500");
      break;
    }
    case "symlink-loops":
      // Links to the folder itself, its parent and / are loops, not more workspace: only the one real skill is indexed.
      assert.equal(status?.skills, 1, `indexed ${status?.skills} skills`);
      break;
    case "unreadable":
      if (RUNNING_AS_ROOT) t.diagnostic("running as root: chmod 000 does not stop a read, so the unreadable-file assertion (the skill is skipped and @secret dangles) is not tested; the case still checks that nothing hangs or changes");
      break;
    case "emoji-and-cjk": {
      for (const [title, handle] of [
        ["🚀🚀🚀", "skill"],
        ["会议准备", "skill"],
        ["🚀 Launch 🚀", "launch-2"],
        ["Café 会议 Prep", "cafe-prep"],
      ] as const) {
        const minted = (await session.request<MintResult>(MintRequest.method, { title })).result;
        assert.equal(minted?.handle, handle, title);
      }
      break;
    }
    case "upper-case-names": {
      const plan = uri("plan.skill.md");
      const refused = await session.request("textDocument/rename", { textDocument: { uri: uri("SHOUT.SKILL.MD") }, position: { line: 3, character: 6 }, newName: "shout" });
      assert.match(refused.refused ?? "", /would overwrite the file .*SHOUT\.SKILL\.MD/);
      const prepared = await session.request<{ placeholder: string }>("textDocument/prepareRename", { textDocument: { uri: uri("SHOUT.SKILL.MD") }, position: { line: 3, character: 6 } });
      assert.equal(prepared.result?.placeholder, "plan");
      assert.ok(existsSync(new URL(plan)));
      break;
    }
  }
}

/** One case, start to end: build, index, ask, re-read, open, edit, close, compare the workspace. */
async function runCase(kase: BadInputCase, t: { diagnostic(message: string): void }): Promise<void> {
  const started = performance.now();
  const folder = mkdtempSync(path.join(tmpdir(), "skill-bad-"));
  const uri = (relative: string) => uriOf(path.join(folder, relative));
  let session: Session | undefined;
  try {
    kase.build(folder);
    if (kase.name === "crlf") assert.ok(readFileSync(path.join(folder, "windows.skill.md"), "latin1").includes("\r\n"), "git kept the CRLF line endings (.gitattributes)");
    const before = snapshot(folder);
    const live = await Session.start([folder]);
    session = live;
    if (kase.bound) live.bound = kase.bound;
    const texts = new Texts();
    const expected = Object.entries(kase.expect);
    const checkCodes = async (view: string) => {
      for (const [relative, want] of expected) assert.deepEqual(codes(await pull(live, uri(relative))), [...want].sort(), `${kase.name} (${view}): ${relative}`);
    };

    await checkCodes("indexed from disk");
    const exercised = kase.exercise ?? expected.map(([relative]) => relative);
    const readable = exercised.filter((relative) => texts.get(uri(relative)) !== undefined);
    for (const relative of readable) if (statSync(path.join(folder, relative)).isFile()) await exercise(session, uri(relative), texts, `${kase.name} ${relative} (disk)`);
    await session.request(AlignmentRequest.method, undefined);
    await session.request("workspace/symbol", { query: "a" });
    await session.request("workspace/diagnostic", { previousResultIds: [] });
    await extraChecks(kase, session, uri, t);

    // Told that every path changed on disk, the server reads each again: links, pipes, folders and all.
    const changes = entries(folder).map((file) => ({ uri: uriOf(file), type: FileChangeType.Changed }));
    for (let i = 0; i < changes.length; i += 1000) await session.client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: changes.slice(i, i + 1000) });
    await checkCodes("read again after file events");

    // The same texts from an editor, then an edit, then closed: the disk's text wins again.
    for (const relative of readable) {
      const target = uri(relative);
      const disk = texts.get(target);
      if (!disk || !statSync(path.join(folder, relative)).isFile()) continue;
      const override = kase.editorTexts?.[relative];
      const text = override?.text ?? disk.text;
      texts.setOpen(target, text, 1);
      await session.client.open(target, text);
      assert.deepEqual(codes(await pull(session, target)), [...(override?.codes ?? kase.expect[relative] ?? [])].sort(), `${kase.name} (open in the editor): ${relative}`);
      await exercise(session, target, texts, `${kase.name} ${relative} (editor)`, true);
      const insert = "\nAlso @find-file, @nowhere-else and \\@not.\n";
      // At the start of the middle line: never inside a CRLF or a surrogate pair.
      const lines = new TextIndex(text);
      const middle = { line: Math.floor(lines.lineCount / 2), character: 0 };
      const at = lines.offsetOf(middle) ?? 0;
      const version = await session.client.change(target, insert, { start: middle, end: middle });
      const edited = text.slice(0, at) + insert + text.slice(at);
      texts.setOpen(target, edited, version);
      // The huge cases answer 100,000 entries per request: the disk and editor rounds cover them.
      if (kase.bound) await pull(session, target);
      else await exercise(session, target, texts, `${kase.name} ${relative} (edited)`, true);
      await session.client.close(target);
      texts.setOpen(target, undefined);
    }
    await checkCodes("closed again");

    session.assertHealthy(kase.name);
    await session.stop();
    assertUnchanged(before, snapshot(folder), kase.name);
    const slowest = [...session.slowest].sort((a, b) => b[1] - a[1]).slice(0, process.env.SKILL_BAD_INPUT_CASE ? 20 : 1);
    timings.push(`${kase.name}: ${Math.round(performance.now() - started)} ms, slowest ${slowest.map(([method, ms]) => `${method} ${Math.round(ms)} ms`).join(", ")}`);
  } finally {
    session?.kill();
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The cases whose answers run to megabytes: alone, their timings are the server's, not a busy test process's. */
const heavy = (kase: BadInputCase) => kase.bound !== undefined || kase.name.startsWith("ten-megabyte");

describe("bad input: every request answered, the right diagnostics, nothing written", () => {
  after(() => {
    if (timings.length > 0) console.log(`bad-input timings (case: total ms, slowest request):\n${timings.join("\n")}`);
  });

  it("has at least 30 cases, and a manifest entry for every committed folder", () => {
    assert.ok(cases.length >= 30, `${cases.length} cases`);
    const folders = readdirSync(FIXTURES, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
    assert.deepEqual(folders, committedCases().map((kase) => kase.name).sort());
  });

  const selected = cases.filter((kase) => !only || kase.name === only);
  describe("ordinary cases, three at a time", { concurrency: 3 }, () => {
    for (const kase of selected.filter((one) => !heavy(one))) it(`${kase.name}: ${kase.what}`, (t) => runCase(kase, t));
  });
  describe("heavy cases, one at a time", () => {
    for (const kase of selected.filter(heavy)) it(`${kase.name}: ${kase.what}`, (t) => runCase(kase, t));
  });
});
