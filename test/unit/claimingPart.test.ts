/**
 * A skill's claiming part (the text up to the end of its frontmatter) claims what the whole text claims: the
 * open editors' diagnostics at start parse only that part of the files they mention. Checked on every skill
 * file of the repository's examples and fixtures (Agent Skills among them), on generated texts, and on the
 * texts where the part must be the whole (unreadable, unclosed, no frontmatter).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import fc from "fast-check";
import { claimingPart, isAgentSkillUri, MAX_SKILL_CHARS, parseAgentSkill, parseSkillFile, type SkillFile } from "../../server/src/core/index.js";
import { uriFromPath } from "../../server/src/node/workspaceFiles.js";
import { REPO_ROOT } from "./helpers.js";

const ROOT = REPO_ROOT;

function skillFilesBelow(folder: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(folder)) {
    const full = path.join(folder, name);
    if (statSync(full).isDirectory()) found.push(...skillFilesBelow(full));
    else if (name.toLowerCase().endsWith(".skill.md") || name === "SKILL.md") found.push(full);
  }
  return found;
}

const parse = (uri: string, text: string): SkillFile => (isAgentSkillUri(uri) ? parseAgentSkill(uri, text) : parseSkillFile(uri, text));
const claim = (skill: SkillFile) => ({ slug: skill.slug, validHandle: skill.validHandle, enabled: skill.enabled, advertised: skill.advertised, head: skill.lines.rangeOf(0, 0) });

describe("a skill's claiming part", () => {
  it("claims what the whole file claims, for every skill file of the examples and fixtures", () => {
    const files = [...skillFilesBelow(path.join(ROOT, "examples")), ...skillFilesBelow(path.join(ROOT, "test", "fixtures"))];
    assert.ok(files.length > 20, `only ${files.length} skill files found`);
    let shorter = 0;
    for (const file of files) {
      const uri = uriFromPath(file);
      const text = readFileSync(file, "utf8");
      const part = claimingPart(text);
      assert.ok(text.startsWith(part), file);
      if (part.length < text.length) shorter++;
      assert.deepEqual(claim(parse(uri, part)), claim(parse(uri, text)), file);
    }
    assert.ok(shorter > files.length / 2, `the part was shorter for only ${shorter} of ${files.length} files`);
  });

  it("claims what the whole text claims, for generated skills of both formats", () => {
    const value = fc.constantFrom("true", "false", "yes", "", "'false'", "[1, 2]", "Plan the week", "\"x: y\"");
    const key = fc.constantFrom("title", "summary", "enabled", "advertised", "name", "description", "disable-model-invocation", "# note");
    const fence = fc.constantFrom("---", "...", "--- ", "----");
    const body = fc.constantFrom("", "Ask @plan-week.\n", "---\nenabled: false\n---\n", "\u0000", "@a @b\n```\n@c\n```\n");
    const newline = fc.constantFrom("\n", "\r\n", "\r");
    fc.assert(
      fc.property(fc.array(fc.tuple(key, value), { maxLength: 4 }), fence, body, newline, fc.boolean(), fc.boolean(), (entries, closing, rest, eol, agentSkill, bom) => {
        const text = `${bom ? "\ufeff" : ""}---${eol}${entries.map(([k, v]) => `${k}: ${v}`).join(eol)}${eol}${closing}${eol}${rest}`;
        const uri = agentSkill ? "file:///w/skills/plan-week/SKILL.md" : "file:///w/plan-week.skill.md";
        assert.deepEqual(claim(parse(uri, claimingPart(text))), claim(parse(uri, text)), JSON.stringify(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("is the whole text when the text is unreadable or has no closed frontmatter", () => {
    const tooLarge = `---\nenabled: false\n---\n${"x".repeat(MAX_SKILL_CHARS)}`;
    for (const text of [tooLarge, "---\nenabled: false\n---\nbinary \u0000 here", "---\nenabled: false\nno closing fence\n", "# No frontmatter\n\nAsk @x.\n", ""]) {
      assert.equal(claimingPart(text), text);
    }
    assert.equal(claimingPart("---\nsummary: S\n---\r\n# Body\n@x\n"), "---\nsummary: S\n---\r\n");
  });
});
