/**
 * The Agent Skills format in the core: where its files stand, the references its prose holds, the ignore
 * rules of discovery, and (property) a rename that gives the same edit from whichever reference it starts.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as fc from "fast-check";
import {
  agentDocumentRole,
  applyEdits,
  commandNameOf,
  IgnoreRules,
  isAgentSkillUri,
  isRefusal,
  LineMap,
  Namespace,
  parseAgentDocument,
  parseAgentSkill,
  sigilOf,
  type RenamePlan,
} from "../../server/src/core/index.js";
import { uri } from "./helpers.js";

describe("where Agent Skills files stand", () => {
  const cases: readonly [string, string][] = [
    [".claude/skills/pdf/SKILL.md", "skill"],
    ["a/b/skills/pdf/SKILL.md", "skill"],
    ["skills/pdf/skill.md", "lower-case-skill"],
    ["template/SKILL.md", "misplaced-skill"],
    ["skills/SKILL.md", "misplaced-skill"],
    ["CLAUDE.md", "prose"],
    ["pkg/AGENTS.md", "prose"],
    [".claude/commands/deploy.md", "prose"],
    ["skills/pdf/reference.md", "prose"],
    [".codex/prompts/ship.md", "prose"],
    ["docs/guide.md", "none"],
    ["README.md", "none"],
    ["skills/x.skill.md", "none"],
  ];
  for (const [path, role] of cases) {
    test(`${path} is ${role}`, () => {
      assert.equal(isAgentSkillUri(uri(path)) ? "skill" : (agentDocumentRole(uri(path)) ?? "none"), role);
    });
  }

  test("a user's command file names a command", () => {
    assert.equal(commandNameOf(uri(".claude/commands/Deploy.md")), "deploy");
    assert.equal(commandNameOf(uri(".claude/commands/frontend/component.md")), "component");
    assert.equal(commandNameOf(uri(".codex/prompts/ship.md")), "ship");
    assert.equal(commandNameOf(uri("docs/commands/ship.md")), undefined);
  });

  test("a file's role and command are what its decoded path segments say, on any path", () => {
    // The definition, read off the whole decoded path: the server answers it without splitting every path.
    const segmentsOf = (target: string) =>
      target.replace(/[?#].*$/, "").replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "").split("/").filter((segment) => segment !== "").map((segment) => {
        try {
          return decodeURIComponent(segment);
        } catch {
          return segment;
        }
      });
    const expectedRole = (target: string) => {
      const segments = segmentsOf(target);
      const name = segments[segments.length - 1] ?? "";
      const lower = name.toLowerCase();
      if (!lower.endsWith(".md") || lower.endsWith(".skill.md")) return undefined;
      if (name === "SKILL.md") return isAgentSkillUri(target) ? undefined : "misplaced-skill";
      if (lower === "skill.md") return "lower-case-skill";
      if (name === "CLAUDE.md" || name === "AGENTS.md") return "prose";
      return segments.slice(0, -1).some((segment) => [".claude", ".agents", ".codex", "skills"].includes(segment)) ? "prose" : undefined;
    };
    const expectedCommand = (target: string) => {
      const segments = segmentsOf(target);
      const name = segments[segments.length - 1] ?? "";
      if (!name.toLowerCase().endsWith(".md")) return undefined;
      for (let i = segments.length - 2; i >= 1; i--) {
        if ((segments[i - 1] === ".claude" && segments[i] === "commands") || (segments[i - 1] === ".codex" && segments[i] === "prompts")) return name.slice(0, -3).toLowerCase();
      }
      return undefined;
    };
    const segment = fc.constantFrom("skills", ".claude", ".agents", ".codex", "commands", "prompts", "sk%69lls", "%2Eclaude", "comm%61nds", "%2Ecodex", "skills%2Fx", "docs", "a", "%", "SKILL.md", "skill.md", "CLAUDE.md", "x.md", "X.MD", "y.skill.md", "notes", "");
    const target = fc.tuple(fc.constantFrom("file://", "file://host", "vscode-vfs://github/"), fc.array(segment, { maxLength: 6 }), fc.constantFrom("", "/", "?q=1", "#top"));
    fc.assert(
      fc.property(target, ([scheme, segments, tail]) => {
        const written = `${scheme}/${segments.join("/")}${tail}`;
        assert.equal(agentDocumentRole(written), expectedRole(written), written);
        assert.equal(commandNameOf(written), expectedCommand(written), written);
      }),
      { numRuns: 3000 },
    );
  });
});

describe("references in Agent Skills prose", () => {
  /** Each text, and the references in it as sigil + name (a link's as `link:name`). */
  const cases: readonly [string, string[]][] = [
    ["Use /pdf then $docx and @xlsx.", ["/pdf", "$docx", "@xlsx"]],
    ["(/pdf), [/pdf], \"/pdf\", `/pdf`, /pdf.", ["/pdf", "/pdf", "/pdf", "/pdf", "/pdf"]],
    ["/usr/bin and docs/pdf and ~/pdf and a/pdf", []],
    // Seen in a real library: scores, a rate after a placeholder, folders at the root written bare.
    ["Score: /10 | /5 | $[amount]/year | f(x)/pdf | written to /tmp, never mount /etc or /usr", []],
    ["run /tmp-cleaner, /etc-hosts and /2fa", ["/tmp-cleaner", "/etc-hosts", "/2fa"]],
    ["$PATH ${name} $x.y </pdf> <pdf/> $$x", []],
    ["https://example.com/pdf and http://x/y?z=/pdf", []],
    ["/frontend:component and /pdf-", []],
    ["@docs/setup.md @README.md @Pdf x@pdf", []],
    ["```\n/pdf $pdf @pdf\n```\nafter /pdf", ["/pdf"]],
    ["~~~md\n/pdf\n~~~", []],
    ["See [the skill](../pdf/SKILL.md) and [folder](skills/docx/) and [file](skills/docx/forms.md).", ["link:pdf", "link:docx"]],
    ["[x](/abs/skills/pdf/SKILL.md) [y](https://x/skills/pdf/SKILL.md) [z](./SKILL.md)", []],
  ];
  for (const [text, expected] of cases) {
    test(JSON.stringify(text), () => {
      const document = parseAgentDocument(uri("skills/here/notes.md"), text);
      assert.deepEqual(document.mentions.map((mention) => (sigilOf(mention) === "" ? `link:${mention.slug}` : `${sigilOf(mention)}${mention.slug}`)), expected);
    });
  }

  test("a SKILL.md reads its handle from the folder and its summary from description", () => {
    const skill = parseAgentSkill(uri(".claude/skills/pdf/SKILL.md"), "---\nname: pdf\ndescription: Read PDFs. Use /docx for Word.\ndisable-model-invocation: true\n---\nBody with $xlsx.\n");
    assert.equal(skill.slug, "pdf");
    assert.equal(skill.summary, "Read PDFs. Use /docx for Word.");
    assert.equal(skill.advertised, false);
    assert.deepEqual(skill.mentions.map((mention) => `${mention.place}:${sigilOf(mention)}${mention.slug}`), ["summary:/docx", "body:$xlsx"]);
    assert.deepEqual(skill.problems, []);
  });

  const limits: readonly [string, string, string[]][] = [
    ["data_sync", "---\nname: data_sync\ndescription: d\n---\n", ["invalid-handle", "invalid-handle"]],
    ["pdf", "---\nname: Bad Name\ndescription: d\n---\n", ["invalid-handle"]],
    ["pdf", `---\nname: ${"a".repeat(65)}\ndescription: d\n---\n`, ["invalid-handle"]],
    ["pdf", "---\nname: pdf\n---\n", ["missing-summary"]],
    ["pdf", "---\nname: pdf\ndescription: \"\"\n---\n", ["missing-summary"]],
    ["pdf", `---\nname: pdf\ndescription: ${"d".repeat(1025)}\n---\n`, ["frontmatter-limit"]],
    ["pdf", "---\nname: docx\ndescription: d\n---\n", ["name-mismatch"]],
    ["pdf", "---\ndescription: d\n---\n", ["missing-name"]],
    ["pdf", "---\nname: pdf\ndescription: d\nwhen_to_use: w\nargument-hint: \"[file]\"\nuser-invocable: false\n---\n", []],
  ];
  for (const [folder, text, codes] of limits) {
    test(`limits: ${JSON.stringify(text.slice(4, 40))}`, () => {
      assert.deepEqual(parseAgentSkill(uri(`skills/${folder}/SKILL.md`), text).problems.map((problem) => problem.code).sort(), codes);
    });
  }
});

describe("a near miss in Agent Skills prose", () => {
  test("names each handle once, however many files claim it", () => {
    const namespace = new Namespace();
    // Two libraries gathered in one, each with its own `seo` skill: the handle is claimed twice.
    for (const library of ["first", "second"]) namespace.set(uri(`${library}/skills/seo/SKILL.md`), "---\nname: seo\ndescription: Audits a page.\n---\nBody.\n");
    namespace.set(uri("first/skills/seq/SKILL.md"), "---\nname: seq\ndescription: Orders steps.\n---\nBody.\n");
    namespace.set(uri("CLAUDE.md"), "Run /sek on the page.\n");
    const messages = namespace.diagnose(uri("CLAUDE.md")).map((diagnostic) => diagnostic.message);
    assert.deepEqual(messages, ["/sek is not a skill: did you mean /seo, /seq?"]);
  });

  test("a name in inline code that names nothing is code; one that names a skill is still its reference", () => {
    const namespace = new Namespace();
    namespace.set(uri("skills/seo/SKILL.md"), "---\nname: seo\ndescription: Audits a page.\n---\nBody.\n");
    // Seen in a real library's CHANGELOG.md: "eliminates external `/svg` dependency" drew "did you mean /seo?".
    namespace.set(uri("CLAUDE.md"), "Drops the external `/svg` dependency and `$sek`; run `/seo` first.\n\nThen /sek the page.\n");
    const messages = namespace.diagnose(uri("CLAUDE.md")).map((diagnostic) => diagnostic.message);
    assert.deepEqual(messages, ["/sek is not a skill: did you mean /seo?"]);
    assert.deepEqual(namespace.mentioners("seo"), [uri("CLAUDE.md")]);
  });
});

/** One test per path: whether the rules leave it out (as a folder when its second value is true). */
function ignoreCases(label: string, rules: IgnoreRules, cases: readonly (readonly [string, boolean, boolean])[]): void {
  for (const [path, directory, ignored] of cases) {
    test(`${label}${path}${directory ? "/" : ""} ${ignored ? "is" : "is not"} ignored`, () => assert.equal(rules.ignores(path, directory), ignored));
  }
}

describe("ignore rules (.skillignore, gitignore syntax)", () => {
  const rules = new IgnoreRules("# drafts\ndrafts/*\n!drafts/keep\n*.tmp.md\n/top.md\nlogs/\n");
  const cases: readonly [string, boolean, boolean][] = [
    ["node_modules", true, true],
    ["a/node_modules", true, true],
    ["dist", true, true],
    ["build", true, true],
    ["a/.git", true, true],
    ["drafts", true, false],
    ["drafts/old", true, true],
    ["drafts/keep", true, false],
    ["x.tmp.md", false, true],
    ["a/b/x.tmp.md", false, true],
    ["top.md", false, true],
    ["a/top.md", false, false],
    ["logs", true, true],
    ["logs", false, false],
    ["a/logs/x.md", false, true],
    ["skills/pdf/SKILL.md", false, false],
  ];
  ignoreCases("", rules, cases);
  test("a negation re-includes a default folder", () => assert.equal(new IgnoreRules("!build/").ignores("build", true), false));
  // Rules for folders alone leave every file at the root in; the files inside a matched folder stay out.
  const foldersOnly = new IgnoreRules("drafts/\n");
  const folderCases: readonly [string, boolean, boolean][] = [
    ["plan.skill.md", false, false],
    ["drafts", false, false],
    ["drafts", true, true],
    ["drafts/plan.skill.md", false, true],
    ["a/dist/plan.skill.md", false, true],
    ["a/plan.skill.md", false, false],
  ];
  ignoreCases("with folder rules only: ", foldersOnly, folderCases);
  test("a file rule still reaches a file at the root", () => assert.equal(new IgnoreRules("*.draft.skill.md\n").ignores("plan.draft.skill.md", false), true));
  // A walk asks nothing of the files of a folder it kept when no rule can match a file: they are kept with it.
  test("with folder rules alone, a file is left out exactly when its folder is", () => {
    const names = ["a", "b", "drafts", "keep", "x-y"];
    let seed = 7;
    const pick = <T>(from: readonly T[]): T => from[(seed = (seed * 48271) % 2147483647) % from.length] as T;
    for (let round = 0; round < 300; round++) {
      const lines = Array.from({ length: 1 + (round % 4) }, () => `${pick(["", "", "!", "/"])}${pick(names)}${pick(["", "/*", "/" + pick(names), "*"])}/`);
      const rules = new IgnoreRules(lines.join("\n"));
      assert.equal(rules.matchesFiles, false, lines.join(" "));
      const folder = Array.from({ length: 1 + (round % 3) }, () => pick(names)).join("/");
      assert.equal(rules.ignores(`${folder}/SKILL.md`, false), rules.ignores(folder, true), `${lines.join(" ")} on ${folder}`);
    }
    assert.equal(new IgnoreRules("*.tmp.md\n").matchesFiles, true);
  });
  // Each rule is tried only on paths holding its longest plain run: the wildcards around that run still match.
  const wildcards = new IgnoreRules("**/cache\na/**/b\nold-?.md\n*-draft*\n[xy]z/\n\\#notes\n");
  const wildcardCases: readonly [string, boolean, boolean][] = [
    ["cache", true, true],
    ["deep/er/cache", false, true],
    ["cachex", true, false],
    ["a/b", true, true],
    ["a/q/r/b", true, true],
    ["ab", true, false],
    ["old-1.md", false, true],
    ["old-12.md", false, false],
    ["s/plan-draft.skill.md", false, true],
    ["xz", true, true],
    ["yz/plan.skill.md", false, true],
    ["#notes", false, true],
  ];
  ignoreCases("with wildcards: ", wildcards, wildcardCases);
});

/** Applies a rename plan as an editor would: the text edits, then the folder (or file) move. */
function applyRename(files: Readonly<Record<string, string>>, plan: RenamePlan): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [fileUri, text] of Object.entries(files)) {
    const lines = new LineMap(text);
    const edits = (plan.edits.get(fileUri) ?? []).map((edit) => ({ start: lines.offsetAt(edit.range.start), end: lines.offsetAt(edit.range.end), newText: edit.newText }));
    const { oldUri, newUri } = plan.fileRename;
    const moved = fileUri === oldUri ? newUri : fileUri.startsWith(`${oldUri}/`) ? newUri + fileUri.slice(oldUri.length) : fileUri;
    result[moved] = applyEdits(text, edits);
  }
  return result;
}

describe("properties of an Agent Skills rename", () => {
  const pieces = ["/pdf", "$pdf", "@pdf", "/pdf-x", "/pdfs", "$PDF", "/usr/pdf", "docs/pdf", "[p](../pdf/SKILL.md)", "[p](../pdf-x/)", "```\n/pdf\n```\n", " ", "\n", ".", "(", ")", "word", "/docx", "@docx"];
  const prose = fc.array(fc.constantFrom(...pieces), { maxLength: 25 }).map((parts) => parts.join(""));
  const files = fc.record({ claude: prose, agents: prose, docx: prose, pdf: prose, skillFile: prose });

  test("the same rename from any reference, any sigil, or the name: one edit, no reference to the old name left", () => {
    fc.assert(
      fc.property(files, (texts) => {
        const workspace: Record<string, string> = {
          [uri("CLAUDE.md")]: texts.claude,
          [uri(".codex/AGENTS.md")]: texts.agents,
          [uri(".claude/skills/docx/SKILL.md")]: `---\nname: docx\ndescription: d\n---\n${texts.docx}`,
          [uri(".claude/skills/pdf/SKILL.md")]: `---\nname: pdf\ndescription: p\n---\n${texts.pdf}`,
          [uri(".claude/skills/pdf-x/SKILL.md")]: "---\nname: pdf-x\ndescription: x\n---\n",
          [uri("plan.skill.md")]: `---\nsummary: s\n---\n${texts.skillFile.replace(/[/$]pdf/g, "@pdf")}`,
        };
        const namespace = new Namespace();
        for (const [key, text] of Object.entries(workspace)) namespace.set(key, text);
        const pdf = namespace.skill(uri(".claude/skills/pdf/SKILL.md"));
        assert.ok(pdf);
        const starts: string[] = [pdf.slug];
        for (const key of Object.keys(workspace)) {
          const mentions = namespace.skill(key)?.mentions ?? namespace.document(key)?.mentions ?? [];
          for (const mention of namespace.referencesTo(pdf, mentions)) starts.push(mention.slug);
        }
        const plans = starts.map((slug) => namespace.planRename(slug, "portable-pdf"));
        const first = plans[0];
        if (!first || isRefusal(first)) throw new Error("refused");
        for (const plan of plans) assert.deepEqual(plan, first);
        const before = [...first.edits.values()].reduce((sum, edits) => sum + edits.length, 0);

        const after = applyRename(workspace, first);
        const renamed = new Namespace();
        for (const [key, text] of Object.entries(after)) renamed.set(key, text);
        const moved = renamed.skill(uri(".claude/skills/portable-pdf/SKILL.md"));
        assert.ok(moved, "the folder moved");
        assert.deepEqual(renamed.claimants("pdf"), []);
        assert.equal(renamed.mentioners("pdf").length, 0, "no reference to the old name is left");
        let count = 0;
        for (const key of Object.keys(after)) count += renamed.referencesTo(moved, renamed.skill(key)?.mentions ?? renamed.document(key)?.mentions ?? []).length;
        // Every edit but the name: value is a reference, and each now reaches the renamed skill.
        assert.equal(count, before - 1);
        assert.equal(renamed.skill(uri(".claude/skills/pdf-x/SKILL.md"))?.slug, "pdf-x");
      }),
      { numRuns: 300 },
    );
  });
});
