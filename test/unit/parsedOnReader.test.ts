/**
 * Skills parsed on the first index's reading thread and posted to the namespace's: each answers as the same
 * file parsed from its text does, on every example and fixture (real skill libraries among them) and on
 * generated texts, through the real thread.
 */
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import * as fc from "fast-check";
import { decodePartsBatch, encodePartsBatch, Namespace, parsedDocumentParts, parsedSkillParts, parseSkill, skillFromParts } from "../../server/src/core/index.js";
import { BackgroundReader } from "../../server/src/node/backgroundReader.js";
import { loadFolders, uriFromPath } from "../../server/src/node/workspaceFiles.js";
import { skillAnswers } from "./helpers.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MATERIAL = ["examples", "test/fixtures/agent-skills", "test/fixtures/skill-library", "test/fixtures/bad-input"];

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const file = path.join(folder, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}


/**
 * Every example and fixture file read into one namespace from its text here, and into another through the real
 * reading thread, each batch parsed there (whether it keeps ahead or not): what the thread parsed is taken as
 * posted, the rest parsed here. Counts the skills and the agent documents taken as posted.
 */
async function readThroughTheThread(): Promise<{ texts: Map<string, string>; fromText: Namespace; posted: Namespace; skillsThere: number; documentsThere: number }> {
  const material = MATERIAL.flatMap((folder) => filesUnder(path.join(ROOT, folder)));
  // The batch due first is read on this thread while the reading one boots: a first batch of nothing.
  const paths = [...Array.from({ length: 128 }, (_, i) => path.join(ROOT, `no-such-file-${i}.skill.md`)), ...material];
  const texts = new Map(material.map((file) => [uriFromPath(file), readFileSync(file, "utf8")]));
  const fromText = new Namespace({ isOpen: () => false, load: (uri) => texts.get(uri) });
  for (const [uri, text] of texts) fromText.load(uri, text);
  const posted = new Namespace({ isOpen: () => false, load: (uri) => texts.get(uri) });
  const reader = new BackgroundReader(4_000_000);
  let skillsThere = 0;
  let documentsThere = 0;
  try {
    assert.equal(reader.threaded, true, "the thread started");
    while (!reader.online) await new Promise((resolve) => setTimeout(resolve, 5));
    let at = 0;
    for await (const batch of reader.readParsed(paths, 1, false)) {
      for (const [i, bytes] of batch.files.entries()) {
        const uri = uriFromPath(paths[at++] ?? "");
        const parts = batch.parts?.[i];
        const document = batch.documents?.[i];
        if (parts && posted.loadParts(uri, parts)) skillsThere++;
        else if (document && posted.loadDocument(uri, document)) documentsThere++;
        else if (bytes) posted.load(uri, Buffer.from(bytes).toString("utf8"));
      }
    }
  } finally {
    reader.close();
  }
  return { texts, fromText, posted, skillsThere, documentsThere };
}

test("every example and fixture skill parsed on the reading thread answers as its text parsed here does", async () => {
  const { fromText, posted, skillsThere: parsedThere } = await readThroughTheThread();
  const skills = [...fromText.skills()];
  assert.ok(skills.length >= 40, `${skills.length} skills`);
  // Every skill file travels; a SKILL.md does unless it links to a skill's folder (a link carries its target, not a number).
  const links = (skill: (typeof skills)[number]) => skill.mentions.filter((mention) => "target" in mention && mention.target !== undefined).length;
  const travelling = skills.filter((skill) => skill.format.label === "skill file" || links(skill) === 0);
  assert.ok(travelling.some((skill) => skill.format.label !== "skill file" && skill.mentions.length > 0), "a SKILL.md with references travels");
  assert.ok(skills.some((skill) => links(skill) > 0), "a SKILL.md links to a skill's folder");
  assert.ok(travelling.length >= 40, `${travelling.length} skills`);
  assert.equal(parsedThere, travelling.length, "every skill that can travel was parsed on the thread");
  posted.indexMentions(Number.MAX_SAFE_INTEGER);
  fromText.indexMentions(Number.MAX_SAFE_INTEGER);
  for (const skill of skills) {
    const label = path.relative(ROOT, fileURLToPath(skill.uri));
    assert.deepEqual(skillAnswers(posted.skill(skill.uri)), skillAnswers(skill), label);
    assert.deepEqual(posted.diagnose(skill.uri), fromText.diagnose(skill.uri), label);
    assert.equal(posted.skill(skill.uri)?.text, skill.text, label);
  }
});

test("a packed batch gives back each skill as it was parsed, on generated texts too", () => {
  const word = fc.constantFrom("plan", "Plan", "trip", "find-file", "x", "é", "🎉", "\n", "\r\n", " ", "`@plan`", "@Find-File", "@plan", "@a--b", " /plan", " $plan", "/plan/x", "[p](../plan/SKILL.md)", "  - item\n");
  const text = fc.array(word, { maxLength: 30 }).map((parts) => parts.join(""));
  const frontmatter = fc.tuple(text, text, fc.boolean()).map(([summary, body, agent]) => ({
    uri: agent ? "file:///w/skills/some-skill/SKILL.md" : "file:///w/skills/Some-Skill.skill.md",
    text: agent ? `---\nname: some-skill\ndescription: ${summary.replace(/\s+/g, " ")}\n---\n${body}` : `---\nsummary: ${summary.replace(/\s+/g, " ")}\nexamples:\n  - ${summary.replace(/\s+/g, " ") || "x"}\n---\n${body}`,
  }));
  fc.assert(
    fc.property(fc.array(fc.oneof(frontmatter, text.map((body) => ({ uri: "file:///w/x.skill.md", text: body }))), { minLength: 1, maxLength: 6 }), (files) => {
      const batch = structuredClone(encodePartsBatch(files.map(({ uri, text }) => parsedSkillParts(uri, text))));
      const back = [...decodePartsBatch(batch)];
      assert.equal(back.length, files.length);
      files.forEach(({ uri, text }, i) => {
        const parts = back[i];
        // A SKILL.md that references anything does not travel (its references are of the Agent Skills' kind).
        if (!parts) return assert.ok(uri.endsWith("/SKILL.md") && parseSkill(uri, text).mentions.length > 0, uri);
        assert.deepEqual(skillAnswers(skillFromParts(uri, parts, () => text)), skillAnswers(parseSkill(uri, text)));
      });
    }),
    { numRuns: 300 },
  );
});

test("the first index gives the same namespace whether its skills are parsed on the reading thread or here", async () => {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-parsed-"));
  try {
    for (const source of MATERIAL) cpSync(path.join(ROOT, source), path.join(folder, source.replace(/\//g, "-")), { recursive: true });
    // Enough skills that the reading thread gets batches to parse once it is up.
    for (let i = 0; i < 2000; i++) writeFileSync(path.join(folder, `generated-${i}.skill.md`), `---\nsummary: Check the calendar for @generated-${(i * 7) % 2000} and @missing-${i % 3}.\n---\nUse @find-file, then \`@generated-${i % 5}\`.\n`);
    const texts = new Map(filesUnder(folder).map((file) => [uriFromPath(file), readFileSync(file, "utf8")]));
    const loaded = new Namespace({ isOpen: () => false, load: (uri) => texts.get(uri) });
    await loadFolders(loaded, [folder], { parseOnReader: true });
    const expected = new Namespace({ isOpen: () => false, load: (uri) => texts.get(uri) });
    for (const uri of loaded.uris()) expected.load(uri, texts.get(uri) ?? "");
    const uris = [...loaded.uris()];
    assert.ok(uris.length > 2000, `${uris.length} files`);
    for (const uri of uris) {
      assert.deepEqual(skillAnswers(loaded.skill(uri)), skillAnswers(expected.skill(uri)), uri);
      assert.deepEqual(loaded.diagnose(uri), expected.diagnose(uri), uri);
    }
    assert.deepEqual(loaded.mentioners("find-file").sort(), expected.mentioners("find-file").sort());
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

/** What a held agent document answers: its role, command, lines, references (with their ranges and targets) and problems. */
function documentAnswers(namespace: Namespace, uri: string): unknown {
  const document = namespace.document(uri);
  if (!document) return undefined;
  const mentions = document.mentions.map((mention) => ({
    written: mention.written,
    slug: mention.slug,
    start: mention.start,
    end: mention.end,
    place: mention.place,
    inCode: mention.inCode,
    sigil: mention.sigil,
    range: mention.range,
    target: mention.target,
    link: mention.link,
  }));
  const lines = Array.from({ length: document.lines.lineCount + 1 }, (_, line) => document.lines.offsetAt({ line, character: 0 }));
  return { role: document.role, command: document.command, text: document.text, lines, length: document.lines.length, mentions, problems: document.problems };
}

test("every example and fixture agent document parsed on the reading thread answers as its text parsed here does", async () => {
  const { texts, fromText, posted, documentsThere: parsedThere } = await readThroughTheThread();
  const documents = [...texts.keys()].filter((uri) => fromText.document(uri) !== undefined);
  assert.ok(documents.length >= 8, `${documents.length} documents`);
  assert.equal(parsedThere, documents.length, "every agent document was parsed on the thread");
  assert.ok(documents.some((uri) => (fromText.document(uri)?.mentions.length ?? 0) > 0), "a document with references");
  assert.ok(documents.some((uri) => fromText.document(uri)?.command !== undefined), "a command file");
  posted.indexMentions(Number.MAX_SAFE_INTEGER);
  fromText.indexMentions(Number.MAX_SAFE_INTEGER);
  for (const uri of documents) {
    const label = path.relative(ROOT, fileURLToPath(uri));
    assert.deepEqual(documentAnswers(posted, uri), documentAnswers(fromText, uri), label);
    assert.deepEqual(posted.diagnose(uri), fromText.diagnose(uri), label);
  }
  for (const uri of texts.keys()) assert.deepEqual(posted.diagnose(uri), fromText.diagnose(uri), path.relative(ROOT, fileURLToPath(uri)));
});

test("a posted agent document gives back the document as it was parsed, on generated texts too", () => {
  const word = fc.constantFrom("plan", "x", "é", "🎉", "\n", "\r\n", "\r", " ", "`@plan`", "@Find-File", "@plan", " /plan", " $plan", "/plan/x", "[p](skills/plan/SKILL.md)", "[q](../plan/)", "[r](skills/other)", "```\n@fenced\n```\n", "\u0000", "  - item\n");
  const text = fc.array(word, { maxLength: 40 }).map((parts) => parts.join(""));
  const uri = fc.constantFrom("file:///w/CLAUDE.md", "file:///w/skills/pdf/reference.md", "file:///w/skills/pdf/skill.md", "file:///w/.claude/commands/deploy.md", "file:///w/notes/SKILL.md");
  fc.assert(
    fc.property(uri, text, (file, content) => {
      const held = new Namespace({ isOpen: () => false, load: () => content });
      held.load(file, content);
      const posted = new Namespace({ isOpen: () => false, load: () => content });
      const document = parsedDocumentParts(file, content);
      assert.ok(document, file);
      // Through structured cloning, as a thread's message carries it.
      assert.equal(posted.loadDocument(file, structuredClone(document)), true);
      assert.deepEqual(documentAnswers(posted, file), documentAnswers(held, file), JSON.stringify(content));
      assert.deepEqual(posted.diagnose(file), held.diagnose(file), JSON.stringify(content));
    }),
    { numRuns: 500 },
  );
});
