/**
 * A model-based fuzz test of the real server over stdio. Random sequences of open, edit, close, save, create,
 * write, delete and move (on disk, announced as watched-file events), renames through the rename request (the
 * edit applied by the test's editor) and renames in the "explorer" (willRenameFiles, then the move) run
 * against the server and against the reference model of test/reliability/model.ts. After every step the
 * diagnostic codes of every file (pulled) and the references of some slugs must match the model, and after
 * every rename every text must be what the model says.
 *
 *   SKILL_FUZZ_RUNS=5000 node --import tsx --test test/reliability/fuzz.test.ts   a long run (default 200)
 *   SKILL_FUZZ_SEED=123 SKILL_FUZZ_RUNS=1 …                                       replays one sequence
 *   SKILL_FUZZ_STEPS=40 …  steps per sequence (default 20);  SKILL_FUZZ_WORKERS=3 …  servers side by side (default 2)
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import {
  DidChangeWorkspaceFoldersNotification,
  DidRenameFilesNotification,
  LSPErrorCodes,
  type Location,
  type WorkspaceDiagnosticReport,
  type WorkspaceEdit,
} from "vscode-languageserver-protocol";
import { uriOf } from "../lsp/harness.js";
import { Editor } from "./editor.js";
import { Model, type ModelMention } from "./model.js";
import { Session, TextIndex, random } from "./support.js";

const RUNS = Number(process.env.SKILL_FUZZ_RUNS ?? 200);
const STEPS = Number(process.env.SKILL_FUZZ_STEPS ?? 20);
const WORKERS = Math.max(1, Math.min(RUNS, Number(process.env.SKILL_FUZZ_WORKERS ?? 2)));
const BASE_SEED = Number(process.env.SKILL_FUZZ_SEED ?? (Date.now() % 1_000_000) * 1000);

const DIRECTORIES = ["", "a/", "b/"];
/** File names: valid handles, tools' slugs (a collision), and invalid handles. */
const NAMES = ["alpha", "beta", "gamma", "al", "alpha-beta", "delta", "calendar", "find-file", "Alpha", "x-", "my skill"];
/** What mentions mention: the names above, rename targets, tools, and nothing. */
const SLUGS = ["alpha", "beta", "gamma", "al", "alpha-beta", "delta", "epsilon", "find-file", "calendar", "grep-memory", "nowhere"];
/** New names for renames: free, taken by a skill or a tool, invalid, unchanged. */
const NEW_NAMES = ["delta", "epsilon", "zeta", "alpha", "find-file", "Bad Name", "al", "alpha-beta-2", "@eta", "x-"];

const outcomes = new Map<string, number>();
const count = (what: string) => outcomes.set(what, (outcomes.get(what) ?? 0) + 1);

/** Texts in the grammar the model reads: prose with mentions and near-mentions, an optional frontmatter. */
class Texts {
  readonly #next: () => number;
  #nonce = 0;

  constructor(next: () => number) {
    this.#next = next;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#next() * items.length)] as T;
  }

  chance(p: number): boolean {
    return this.#next() < p;
  }

  /** A word no other summary has, so no two summaries read alike (menu-similar is not what this test is about). */
  nonce(): string {
    return `zq${(this.#nonce++).toString(36)}${this.pick(["k", "v", "x", "j"])}`;
  }

  token(slug = this.pick(SLUGS)): string {
    const roll = this.#next();
    if (roll < 0.3) return this.pick(["use", "then", "and", "check", "words", "x_y", "e.g."]);
    if (roll < 0.58) return `@${slug}`;
    if (roll < 0.63) return `@${slug.charAt(0).toUpperCase()}${slug.slice(1)}`;
    if (roll < 0.68) return `@${slug}${this.pick([".", ",", ")", ";"])}`;
    if (roll < 0.72) return `\\@${slug}`;
    if (roll < 0.76) return `bob@${slug}`;
    if (roll < 0.8) return `@${slug}-`;
    if (roll < 0.83) return `@-${slug}`;
    if (roll < 0.86) return `@${slug}_x`;
    if (roll < 0.88) return "@";
    if (roll < 0.9) return `@@${slug}`;
    return `(@${slug})`;
  }

  prose(eol: string, tokens: number): string {
    const parts: string[] = [];
    for (let i = 0; i < tokens; i++) parts.push(this.token(), this.chance(0.2) ? eol : " ");
    return parts.join("");
  }

  skill(): string {
    const eol = this.chance(0.25) ? "\r\n" : "\n";
    const lines: string[] = [];
    // Eight words of its own: see NONCE in model.ts for why that makes menu-similar predictable.
    if (this.chance(0.8)) lines.push(`summary: ${Array.from({ length: 8 }, () => this.nonce()).join(" ")}${this.chance(0.4) ? ` ${this.token()}` : ""}`);
    if (this.chance(0.2)) lines.push(`enabled: ${this.chance(0.3)}`);
    if (this.chance(0.2)) lines.push(`advertised: ${this.chance(0.3)}`);
    const frontmatter = lines.length > 0 || this.chance(0.3) ? `---${eol}${lines.map((line) => line + eol).join("")}---${eol}` : "";
    const bom = this.chance(0.05) ? "\uFEFF" : "";
    return `${bom}${frontmatter}${this.prose(eol, Math.floor(this.#next() * 8))}${this.chance(0.7) ? eol : ""}`;
  }

  /** A line more at the end: the edit a person makes most. */
  append(text: string): string {
    const eol = text.includes("\r\n") ? "\r\n" : "\n";
    return `${text}${text.endsWith("\n") || text === "" ? "" : eol}${this.prose(eol, 1 + Math.floor(this.#next() * 3))}${eol}`;
  }

  config(): string {
    const entries = Array.from({ length: Math.floor(this.#next() * 4) }, () => `"${this.chance(0.85) ? `@${this.pick(SLUGS)}` : this.pick(["@x-", "@alpha.", "plain"])}"`);
    const instructions = Array.from({ length: Math.floor(this.#next() * 4) }, () => this.token()).filter((token) => !token.includes("\\")).join(" ");
    return `{\n  "alignment": {\n    "menu": [${entries.join(", ")}],\n    "instructions": "${instructions}"\n  }\n}\n`;
  }
}

/** One sequence: its own workspace folder in a server shared with other sequences, a model, a log of steps. */
class Sequence {
  readonly seed: number;
  readonly editor: Editor;
  readonly folder: string;
  readonly log: string[] = [];
  readonly #texts: Texts;
  readonly #next: () => number;
  /** Files the server has held in this sequence, to check that the gone ones are gone. */
  readonly #seen = new Set<string>();

  constructor(session: Session, seed: number) {
    this.seed = seed;
    this.#next = random(seed);
    this.#texts = new Texts(this.#next);
    this.folder = mkdtempSync(path.join(tmpdir(), "skill-fuzz-"));
    this.editor = new Editor(session, this.folder);
  }

  get session(): Session {
    return this.editor.session;
  }

  /** Every skill file on disk (anywhere) and the root skills.json, plus the open documents. */
  #files(): Map<string, string> {
    const texts = new Map<string, string>();
    const walk = (directory: string) => {
      for (const name of readdirSync(directory)) {
        const full = path.join(directory, name);
        if (statSync(full).isDirectory()) walk(full);
        else if (name.toLowerCase().endsWith(".skill.md") || (name === "skills.json" && directory === this.folder)) {
          const uri = uriOf(full);
          texts.set(uri, this.editor.disk(uri) ?? "");
        }
      }
    };
    walk(this.folder);
    for (const uri of this.editor.openUris()) texts.set(uri, this.editor.open(uri)?.text ?? "");
    return texts;
  }

  model(): Model {
    return new Model(this.#files());
  }

  #diskFiles(): string[] {
    return [...this.#files().keys()].filter((uri) => existsSync(this.editor.pathOf(uri)));
  }

  /** A few files on disk before the folder joins the workspace, then the folder. */
  async start(): Promise<void> {
    for (let i = Math.floor(this.#next() * 5); i > 0; i--) {
      const relative = this.#texts.chance(0.15) ? "skills.json" : `${this.#texts.pick(DIRECTORIES)}${this.#texts.pick(NAMES)}.skill.md`;
      const file = path.join(this.folder, relative);
      if (existsSync(file)) continue;
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, relative === "skills.json" ? this.#texts.config() : this.#texts.skill());
    }
    await this.session.client.connection.sendNotification(DidChangeWorkspaceFoldersNotification.type, { event: { added: [{ uri: uriOf(this.folder), name: path.basename(this.folder) }], removed: [] } });
  }

  async finish(): Promise<void> {
    for (const uri of this.editor.openUris()) await this.editor.close(uri);
    await this.session.client.connection.sendNotification(DidChangeWorkspaceFoldersNotification.type, { event: { added: [], removed: [{ uri: uriOf(this.folder), name: path.basename(this.folder) }] } });
    rmSync(this.folder, { recursive: true, force: true });
  }

  /** A random step; answers what it did, for the log. */
  async step(): Promise<string> {
    const t = this.#texts;
    const editor = this.editor;
    const disk = this.#diskFiles();
    const open = editor.openUris();
    const closedOnDisk = disk.filter((uri) => !editor.open(uri));
    const newUri = () => {
      const relative = t.chance(0.1) ? "skills.json" : `${t.pick(DIRECTORIES)}${t.pick(NAMES)}.skill.md`;
      return editor.uri(relative);
    };
    const roll = this.#next();
    if (roll < 0.2 || disk.length === 0) {
      const uri = newUri();
      if (existsSync(editor.pathOf(uri))) return "create: skipped, exists";
      mkdirSync(path.dirname(editor.pathOf(uri)), { recursive: true });
      await editor.writeDisk(uri, uri.endsWith("/skills.json") ? t.config() : t.skill());
      return `create ${uri}`;
    }
    if (roll < 0.28) {
      const uri = t.pick(disk);
      await editor.writeDisk(uri, uri.endsWith("/skills.json") ? t.config() : t.chance(0.5) ? t.skill() : t.append(editor.disk(uri) ?? ""));
      return `write ${uri}`;
    }
    if (roll < 0.33) {
      const uri = t.pick(disk);
      await editor.deleteDisk(uri);
      return `delete ${uri}`;
    }
    if (roll < 0.38) {
      const from = t.pick(disk);
      const to = from.endsWith("/skills.json") ? from : newUri();
      if (to.endsWith("/skills.json") || existsSync(editor.pathOf(to))) return "move: skipped";
      await editor.moveDisk(from, to);
      return `move ${from} -> ${to}`;
    }
    if (roll < 0.5 && closedOnDisk.length > 0) {
      const uri = t.pick(closedOnDisk);
      await editor.openDocument(uri);
      return `open ${uri}`;
    }
    if (roll < 0.66 && open.length > 0) {
      const uri = t.pick(open);
      const current = editor.open(uri)?.text ?? "";
      await editor.edit(uri, uri.endsWith("/skills.json") ? t.config() : t.chance(0.5) ? t.skill() : t.append(current));
      return `edit ${uri}`;
    }
    if (roll < 0.72 && open.length > 0) {
      const uri = t.pick(open);
      if (t.chance(0.3)) {
        await editor.save(uri);
        return `save ${uri}`;
      }
      await editor.close(uri);
      return `close ${uri}`;
    }
    if (roll < 0.9) return this.#rename();
    return this.#explorerRename();
  }

  /** A rename request on a random mention, checked against the model, applied by the editor when accepted. */
  async #rename(): Promise<string> {
    const model = this.model();
    const all = [...model.files.values()].flatMap((file) => file.mentions.map((mention) => ({ file, mention })));
    // Mostly on a mention of a skill, which is where a rename can go through; sometimes anywhere.
    const ofSkills = all.filter(({ mention }) => model.resolve(mention.slug)?.kind === "skill");
    const mentions = ofSkills.length > 0 && this.#texts.chance(0.8) ? ofSkills : all;
    if (mentions.length === 0) return "rename: no mention";
    const { file, mention } = this.#texts.pick(mentions);
    const newName = this.#texts.pick(NEW_NAMES);
    const position = new TextIndex(file.text).positionOf(mention.start + 1);
    const expected = model.rename(mention.slug, newName);
    const answer = await this.session.request<WorkspaceEdit>("textDocument/rename", { textDocument: { uri: file.uri }, position, newName });
    const what = `rename @${mention.slug} (in ${file.uri} at ${position.line}:${position.character}) to ${JSON.stringify(newName)}`;
    if ("refused" in expected) {
      assert.ok(answer.refused !== undefined, `${what}: the model refuses (${expected.refused}), the server answered an edit`);
      count(`rename refused: ${expected.refused}`);
      return `${what}: refused (${expected.refused})`;
    }
    assert.ok(answer.result, `${what}: the model renames, the server refused: ${answer.refused}`);
    await this.#applyAndCompare(answer.result, expected, what);
    count("rename applied");
    return `${what}: applied`;
  }

  /** A skill file renamed in the explorer: willRenameFiles, its edit applied, then the move and didRenameFiles. */
  async #explorerRename(): Promise<string> {
    const editor = this.editor;
    const skills = this.#diskFiles().filter((uri) => uri.endsWith(".skill.md"));
    if (skills.length === 0) return "explorer rename: no skill";
    const from = this.#texts.pick(skills);
    const to = editor.uri(`${this.#texts.pick(DIRECTORIES)}${this.#texts.pick([...NAMES, "zeta", "epsilon"])}.skill.md`);
    if (existsSync(editor.pathOf(to))) return "explorer rename: skipped, exists";
    const model = this.model();
    const skill = model.files.get(from);
    const newHandle = decodeURIComponent(to.slice(to.lastIndexOf("/") + 1)).slice(0, -".skill.md".length);
    const cascades = skill?.kind === "skill" && skill.valid && newHandle !== skill.slug;
    const expected = cascades ? model.rename(skill.slug, newHandle) : undefined;
    const answer = await this.session.request<WorkspaceEdit | null>("workspace/willRenameFiles", { files: [{ oldUri: from, newUri: to }] });
    const what = `explorer rename ${from} -> ${to}`;
    // The explorer moves the file itself: the server answers only text edits, and nothing when no file mentions the skill.
    if (expected && "texts" in expected && expected.texts.size > 0) {
      assert.ok(answer.result, `${what}: the model cascades, the server answered ${JSON.stringify(answer)}`);
      await this.#applyAndCompare(answer.result, { texts: expected.texts, from, to: from }, what);
      count("explorer rename cascaded");
    } else {
      assert.equal(answer.result ?? null, null, `${what}: the model does not cascade (${expected && "refused" in expected ? expected.refused : "no skill"})`);
      count("explorer rename without cascade");
    }
    await editor.moveWithEditor(from, to);
    await this.session.client.connection.sendNotification(DidRenameFilesNotification.type, { files: [{ oldUri: from, newUri: to }] });
    return what;
  }

  async #applyAndCompare(edit: WorkspaceEdit, expected: { texts: Map<string, string>; from: string; to: string }, what: string): Promise<void> {
    const before = this.#files();
    const outcome = await this.editor.apply(edit);
    assert.ok("applied" in outcome, `${what}: the editor refused the server's edit: ${"refused" in outcome ? outcome.refused : ""}`);
    assert.deepEqual(outcome.followUps, [], `${what}: willRenameFiles cascades a rename the server planned itself`);
    const after = this.#files();
    const want = new Map(before);
    for (const [uri, text] of expected.texts) want.set(uri, text);
    if (expected.from !== expected.to) {
      want.set(expected.to, want.get(expected.from) ?? "");
      want.delete(expected.from);
    }
    assert.deepEqual(new Map([...after].sort()), new Map([...want].sort()), `${what}: the texts after the rename differ from the model's`);
  }

  /** The server agrees with the model: every file's codes (one workspace pull and a few document pulls), some references. */
  async check(context: string): Promise<void> {
    const model = this.model();
    for (const uri of model.files.keys()) this.#seen.add(uri);
    const { result: report } = await this.session.request<WorkspaceDiagnosticReport>("workspace/diagnostic", { previousResultIds: [] });
    assert.ok(report);
    const actual = new Map<string, string[]>();
    for (const item of report.items) if (item.kind === "full") actual.set(item.uri, item.items.map((diagnostic) => String(diagnostic.code)).sort());
    // An unknown mention under the cursor of the last edit is held back until the typing pause ends: either is right.
    const acceptable = (uri: string, codes: readonly string[] | undefined) => {
      const held = model.codes(uri, this.editor.editEnd(uri));
      return codes !== undefined && JSON.stringify(codes) === JSON.stringify(held) ? held : model.codes(uri);
    };
    // A report holds the files with problems; a clean entry clears a file (one whose problems were shown, or
    // one for a client that holds no result), and is right whatever the file.
    const expected = new Map([...model.files.keys()].map((uri): [string, string[]] => [uri, acceptable(uri, actual.get(uri) ?? [])]).filter(([, codes]) => codes.length > 0));
    const withProblems = new Map([...actual].filter(([, codes]) => codes.length > 0));
    assert.deepEqual(new Map([...withProblems].sort()), new Map([...expected].sort()), `${context}: workspace diagnostics (file set and codes)`);
    for (const uri of [...this.#seen].filter(() => this.#next() < 0.3)) {
      const { result } = await this.session.request<{ kind: string; items: { code: string }[] }>("textDocument/diagnostic", { textDocument: { uri } });
      const pulled = result?.items.map((item) => String(item.code)).sort();
      assert.deepEqual(pulled, acceptable(uri, pulled), `${context}: pulled diagnostics of ${uri}`);
    }
    const mentions: { uri: string; text: string; mention: ModelMention }[] = [...model.files.values()].flatMap((file) => file.mentions.map((mention) => ({ uri: file.uri, text: file.text, mention })));
    for (let i = 0; i < 2 && mentions.length > 0; i++) {
      const { uri, text, mention } = this.#texts.pick(mentions);
      const includeDeclaration = this.#texts.chance(0.5);
      const position = new TextIndex(text).positionOf(mention.start + 1 + Math.floor(this.#next() * (mention.end - mention.start - 1)));
      const { result, code } = await this.session.request<Location[] | null>("textDocument/references", { textDocument: { uri }, position, context: { includeDeclaration } });
      assert.notEqual(code, LSPErrorCodes.ContentModified, `${context}: nothing changed while the request waited`);
      const locations = (result ?? []).map((location) => `${location.uri} ${location.range.start.line}:${location.range.start.character}-${location.range.end.line}:${location.range.end.character}`).sort();
      assert.deepEqual(locations, model.references(mention.slug, includeDeclaration), `${context}: references of @${mention.slug} from ${uri} ${position.line}:${position.character}`);
    }
  }
}

describe("model-based fuzz of the server", { concurrency: WORKERS }, () => {
  const started = performance.now();
  after(() => {
    const summary = [...outcomes].sort().map(([what, n]) => `${what}: ${n}`).join(", ");
    console.log(`fuzz: ${RUNS} sequences of ${STEPS} steps on ${WORKERS} servers in ${Math.round(performance.now() - started)} ms (seeds ${BASE_SEED}…${BASE_SEED + RUNS - 1}); ${summary}`);
  });

  for (let worker = 0; worker < WORKERS; worker++) {
    it(`worker ${worker}: sequences ${worker}, ${worker + WORKERS}, … against one server`, async () => {
      const home = mkdtempSync(path.join(tmpdir(), "skill-fuzz-home-"));
      const session = await Session.start([home]);
      try {
        for (let run = worker; run < RUNS; run += WORKERS) {
          const sequence = new Sequence(session, BASE_SEED + run);
          try {
            await sequence.start();
            await sequence.check("at the start");
            for (let step = 0; step < STEPS; step++) {
              sequence.log.push(await sequence.step());
              await sequence.check(`after step ${step + 1}`);
            }
            await sequence.finish();
          } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            throw new Error(`${message}\n\nReplay: SKILL_FUZZ_SEED=${sequence.seed} SKILL_FUZZ_RUNS=1 SKILL_FUZZ_STEPS=${STEPS}\nSteps:\n${sequence.log.map((line, i) => `  ${i + 1}. ${line}`).join("\n")}`, { cause: error });
          } finally {
            rmSync(sequence.folder, { recursive: true, force: true });
          }
        }
        session.assertHealthy(`fuzz worker ${worker}`);
        await session.stop();
      } finally {
        session.kill();
        rmSync(home, { recursive: true, force: true });
      }
    });
  }
});
