import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, test } from "node:test";
import * as fc from "fast-check";
import { bodyFingerprint, everyMentionAsSlug, holdsText, LineMap, mentionSlugs, mentionsWithSlug, Namespace, parseAgentSkill, parseSkillFile, releaseText, skillBodyFingerprint, type Mention, type SkillFile } from "../../server/src/core/index.js";
import { skillAnswers } from "./helpers.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Every skill file of the examples and of the fixtures copied from public skill libraries. */
function skillFiles(): { uri: string; text: string }[] {
  const found: { uri: string; text: string }[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".skill.md") || name === "SKILL.md") found.push({ uri: pathToFileURL(path).href, text: readFileSync(path, "utf8") });
    }
  };
  for (const folder of ["examples", "test/fixtures/agent-skills", "test/fixtures/skill-library", "test/fixtures/bad-input"]) walk(join(ROOT, folder));
  return found;
}

const parse = (uri: string, text: string): SkillFile => (uri.endsWith("/SKILL.md") ? parseAgentSkill(uri, text) : parseSkillFile(uri, text));


describe("a skill that let its text go", () => {
  const files = skillFiles();

  test("answers everything as the parsed skill does, on every example and fixture skill", () => {
    assert.ok(files.length >= 20, `only ${files.length} skill files found`);
    for (const { uri, text } of files) {
      const parsed = parse(uri, text);
      const released = releaseText(parse(uri, text), () => text);
      assert.deepEqual(skillAnswers(released), skillAnswers(parsed), relative(ROOT, fileURLToPath(uri)));
      assert.equal(released.text, text);
      assert.equal(released.body, parsed.body);
      assert.equal(skillBodyFingerprint(released), skillBodyFingerprint(parsed));
    }
  });

  test("answers each mention's slug, a slug's mentions, and whether every mention is written as a slug that passes, as the parsed skill does", () => {
    const asData = (mentions: readonly Mention[]) => mentions.map((mention) => ({ written: mention.written, slug: mention.slug, start: mention.start, place: mention.place, inCode: mention.inCode, range: mention.range }));
    const check = (uri: string, text: string) => {
      const parsed = parse(uri, text);
      const released = releaseText(parse(uri, text), () => text);
      const slugs = [...new Set(parsed.mentions.map((mention) => mention.slug)), "no-such-skill"];
      for (const slug of slugs) assert.deepEqual(asData(mentionsWithSlug(released, slug)), asData(parsed.mentions.filter((mention) => mention.slug === slug)), `${uri} @${slug}`);
      assert.deepEqual(mentionSlugs(released), parsed.mentions.map((mention) => mention.slug), `${uri}: each mention's slug`);
      assert.deepEqual(mentionSlugs(parsed), parsed.mentions.map((mention) => mention.slug), uri);
      // Every slug passes, none does, and only the first one does.
      for (const passes of [() => true, () => false, (slug: string) => slug === slugs[0]]) {
        const expected = parsed.mentions.every((mention) => mention.written === mention.slug && passes(mention.slug));
        assert.equal(everyMentionAsSlug(released, passes), expected, uri);
        assert.equal(everyMentionAsSlug(parsed, passes), expected, uri);
      }
    };
    for (const { uri, text } of files) check(uri, text);
    // Mentions in any capitals, in the summary, the body and code spans.
    const word = fc.constantFrom("plan", "Plan", "PLAN", "trip", "find-file", "Find-File", "x");
    const piece = fc.oneof(word.map((w) => `@${w}`), word.map((w) => `\`@${w}\``), fc.constantFrom(" ", "\n", "text ", "é ", "🎉"));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }).map((parts) => parts.join("")), fc.array(piece, { maxLength: 20 }).map((parts) => parts.join("")), (summary, body) => {
        check("file:///w/skills/some-skill.skill.md", `---\nsummary: ${summary.replace(/\n/g, " ")}\n---\n${body}\n`);
      }),
    );
  });

  test("reads its text through the loader, every time: what the disk holds now", () => {
    const { uri, text } = files[0] ?? { uri: "", text: "" };
    let disk: string | undefined = text;
    const released = releaseText(parse(uri, text), () => disk);
    assert.equal(released.text, text);
    disk = `${text}\nMore.`;
    assert.equal(released.text, disk);
    disk = undefined;
    assert.equal(released.text, "", "a file gone from the disk reads as empty");
    assert.equal(skillBodyFingerprint(released), skillBodyFingerprint(parse(uri, text)), "the move detector still knows its body");
  });

  test("the namespace keeps the text of open files only, and lets it go when the file closes", () => {
    const open = new Set<string>();
    const disk = new Map<string, string>();
    const namespace = new Namespace({ isOpen: (uri) => open.has(uri), load: (uri) => disk.get(uri) });
    const a = "file:///ws/a.skill.md";
    const b = "file:///ws/b.skill.md";
    disk.set(a, "---\nsummary: Mentions @b.\n---\nUse @b.\n");
    disk.set(b, "---\nsummary: Plain.\n---\nBody.\n");
    open.add(a);
    namespace.set(a, "---\nsummary: Mentions @b.\n---\nUse @b, edited.\n");
    namespace.set(b, disk.get(b) ?? "");
    assert.equal(namespace.skill(a)?.text, "---\nsummary: Mentions @b.\n---\nUse @b, edited.\n", "an open file holds the editor's text");
    assert.equal(namespace.skill(b)?.text, disk.get(b));
    disk.set(b, "changed on disk");
    assert.equal(namespace.skill(b)?.text, "changed on disk", "a released file reads the disk again");
    open.delete(a);
    // What the server does when an editor closes: the disk's text is set again.
    namespace.set(a, disk.get(a) ?? "");
    assert.equal(namespace.skill(a)?.text, disk.get(a), "closed: the disk's text");
    assert.deepEqual(namespace.diagnose(a), [], "and its references still resolve");
    assert.deepEqual(namespace.mentioners("b"), [a]);
    // Closed unchanged: the disk's text equals the editor's, and the skill still lets it go.
    const c = "file:///ws/c.skill.md";
    disk.set(c, "---\nsummary: Unchanged.\n---\nBody.\n");
    open.add(c);
    namespace.set(c, disk.get(c) ?? "");
    assert.ok(holdsText(namespace.skill(c) as SkillFile), "open: held");
    open.delete(c);
    assert.deepEqual([...namespace.set(c, disk.get(c) ?? "")], [], "the same text changes nothing");
    assert.ok(!holdsText(namespace.skill(c) as SkillFile), "closed: released");
  });

  test("a closed file's problems are computed when asked, not held; an open file's are held", () => {
    const open = new Set<string>();
    const namespace = new Namespace({ isOpen: (uri) => open.has(uri), load: () => undefined });
    const closed = "file:///ws/closed.skill.md";
    const edited = "file:///ws/edited.skill.md";
    open.add(edited);
    namespace.set(closed, "---\nsummary: Uses a missing skill.\n---\nUse @nowhere.\n");
    namespace.set(edited, "---\nsummary: Also uses it.\n---\nUse @nowhere.\n");
    const first = namespace.diagnose(closed);
    assert.equal(first.length, 1);
    assert.notEqual(namespace.diagnose(closed), first, "computed again");
    assert.deepEqual(namespace.diagnose(closed), first, "to the same answer");
    assert.equal(namespace.diagnose(edited), namespace.diagnose(edited), "held while open");
  });

  test("a body's fingerprint ignores line endings and trailing blanks, and nothing else", () => {
    assert.equal(bodyFingerprint("a\r\nb\rc  \n\n"), bodyFingerprint("a\nb\nc"));
    assert.notEqual(bodyFingerprint("a\nb"), bodyFingerprint("a\nc"));
    assert.notEqual(bodyFingerprint("ab"), bodyFingerprint("ba"));
    // Lone surrogates, which UTF-8 cannot hold, stay apart from each other and from their escapes written out.
    assert.notEqual(bodyFingerprint("a\uD800"), bodyFingerprint("a\uDC00"));
    assert.notEqual(bodyFingerprint("a\uD800"), bodyFingerprint("a\uFFFD"));
    assert.notEqual(bodyFingerprint("\uDC00"), bodyFingerprint(JSON.stringify("\uDC00")));
    assert.notEqual(bodyFingerprint("é"), bodyFingerprint("\u00c3\u00a9"));
    // Bodies longer than the first scratch buffer holds, of every length modulo four, and after them a short one again.
    for (const length of [30_001, 30_002, 30_003, 30_004, 200_001]) {
      const long = "é@x ".repeat(length).slice(0, length);
      assert.equal(bodyFingerprint(long), bodyFingerprint(`${long}\r\n  `), `${length} characters`);
      assert.notEqual(bodyFingerprint(long), bodyFingerprint(`${long.slice(0, -1)}y`), `${length} characters`);
    }
    assert.equal(bodyFingerprint("a\r\nb"), bodyFingerprint("a\nb"));
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string({ unit: "binary" }), (x, y) => (x.replace(/\r\n?/g, "\n").trimEnd() === y.replace(/\r\n?/g, "\n").trimEnd()) === (bodyFingerprint(x) === bodyFingerprint(y))),
      { numRuns: 2000 },
    );
  });
});

describe("an agent document that let its text go", () => {
  /** Every file of the Agent Skills fixtures and of the library copied from public skills: documents among skills and configs. */
  function fixtureFiles(): Map<string, string> {
    const found = new Map<string, string>();
    const walk = (folder: string) => {
      for (const name of readdirSync(folder)) {
        const path = join(folder, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith(".md") || name === "skills.json") found.set(pathToFileURL(path).href, readFileSync(path, "utf8"));
      }
    };
    for (const folder of ["test/fixtures/agent-skills", "test/fixtures/skill-library"]) walk(join(ROOT, folder));
    return found;
  }

  test("answers its diagnostics and references as a document that holds its text, and holds it again only while open", () => {
    const texts = fixtureFiles();
    const open = new Set<string>();
    const held = new Namespace();
    const released = new Namespace({ isOpen: (uri) => open.has(uri), load: (uri) => texts.get(uri) });
    for (const [uri, text] of texts) {
      held.set(uri, text);
      released.set(uri, text);
    }
    const documents = [...held.documents()].map((document) => document.uri);
    assert.ok(documents.length >= 5, `only ${documents.length} agent documents found`);
    const asData = (uri: string, namespace: Namespace) => ({
      diagnostics: namespace.diagnose(uri),
      mentions: namespace.document(uri)?.mentions.map((mention) => ({ slug: mention.slug, start: mention.start, end: mention.end, range: mention.range })),
      lines: namespace.document(uri)?.lines.parts,
    });
    for (const uri of documents) {
      const name = relative(ROOT, fileURLToPath(uri));
      assert.equal(released.document(uri)?.text, undefined, `${name}: released`);
      assert.equal(held.document(uri)?.text, texts.get(uri), `${name}: held`);
      assert.deepEqual(asData(uri, released), asData(uri, held), name);
      for (const slug of new Set(held.document(uri)?.mentions.map((mention) => mention.slug))) assert.deepEqual(released.mentioners(slug), held.mentioners(slug), `${name}: who mentions ${slug}`);
    }
    // Opened: the editor's text is held; closed unchanged: the disk's text changes nothing, and is let go.
    const document = documents[0] ?? "";
    const text = texts.get(document) ?? "";
    open.add(document);
    released.set(document, text);
    assert.equal(released.document(document)?.text, text, "open: held");
    open.delete(document);
    assert.deepEqual([...released.set(document, text)], [], "the same text changes nothing");
    assert.equal(released.document(document)?.text, undefined, "closed: released");
    assert.deepEqual(asData(document, released), asData(document, held));
  });
});

describe("LineMap without its text", () => {
  /** The rule as it reads the text: past a line's end, or inside its CRLF, is the line's end. */
  function referenceOffsetAt(text: string, line: number, character: number): number {
    const starts = [0];
    for (let i = 0; i < text.length; i++) {
      if (text[i] === "\r" && text[i + 1] === "\n") i++;
      if (text[i] === "\r" || text[i] === "\n") starts.push(i + 1);
    }
    if (line < 0) return 0;
    if (line >= starts.length) return text.length;
    const start = starts[line] ?? 0;
    let offset = Math.min(start + Math.max(0, character), starts[line + 1] ?? text.length);
    while (offset > start && (text[offset - 1] === "\n" || text[offset - 1] === "\r")) offset--;
    return offset;
  }

  test("offsetAt and positionAt agree with the rule read off the text", () => {
    const texts = fc.array(fc.constantFrom("a", "é", "\n", "\r", "\r\n", "🎉", " "), { maxLength: 40 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(texts, fc.integer({ min: -2, max: 12 }), fc.integer({ min: -2, max: 50 }), (text, line, character) => {
        const lines = new LineMap(text);
        const offset = lines.offsetAt({ line, character });
        assert.equal(offset, referenceOffsetAt(text, line, character));
        assert.equal(lines.offsetAt(lines.positionAt(offset)), offset);
        assert.equal(lines.length, text.length);
      }),
      { numRuns: 3000 },
    );
  });

  test("the same past 16 KB, where the line starts no longer fit in 16 bits", () => {
    const texts = fc.array(fc.constantFrom("a", "\n", "\r", "\r\n", "🎉"), { maxLength: 40 }).map((parts) => `${"x".repeat(17_000)}\n${parts.join("")}`);
    fc.assert(
      fc.property(texts, fc.integer({ min: 0, max: 12 }), fc.integer({ min: -2, max: 17_050 }), (text, line, character) => {
        const lines = new LineMap(text);
        const offset = lines.offsetAt({ line, character });
        assert.equal(offset, referenceOffsetAt(text, line, character));
        assert.equal(lines.offsetAt(lines.positionAt(offset)), offset);
      }),
      { numRuns: 200 },
    );
  });
});
