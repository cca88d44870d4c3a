/**
 * Every feature reads mentions through one scanner, so on random Markdown with fences, URLs, paths and package
 * scopes they agree: diagnostics, semantic tokens, references, completion, rename, expansion, the graph and
 * bundles see the same mentions, none of them in fenced code (checked against markdown-it) or in a URL.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as fc from "fast-check";
import markdownIt from "markdown-it";
import { exportBundle, isInUrlOrPath, isRefusal, LineMap, Namespace, planImport, DiagnosticCodes, type SkillFile } from "../../server/src/core/index.js";
import { buildGraph } from "../../server/src/core/graph.js";
import { complete } from "../../server/src/service/completion.js";
import { references } from "../../server/src/service/navigation.js";
import { semanticTokens } from "../../server/src/service/semanticTokens.js";
import { applyPlan, skillUri } from "./helpers.js";

const RUNS = 200;
const md = markdownIt("commonmark");

// Lines as real pages have them: list items and quotes around fences, commands, links, addresses and mentions.
const prefix = fc.constantFrom("", "", "", "> ", "- ", "1. ", "   ", "  - ");
const content = fc.constantFrom(
  "```", "```sh", "~~~", "````", "Use @x then @calendar.", "npm i -D @types/node", "npx @x/inspector", "see https://medium.com/@x/post",
  "~/@x/notes and ./@x", "`@x` in code", "@app.route('/')", "mail x@x.com or \\@x", "@nobody here", "@x", "", "a ``` b", "[x](docs/@x.md) @x,",
);
const bodyArb = fc.tuple(fc.array(fc.tuple(prefix, content).map(([p, c]) => (c === "" ? c : p + c)), { maxLength: 16 }), fc.constantFrom("\n", "\r\n")).map(([lines, end]) => lines.join(end));
const FRONT = "---\nsummary: Mentions @x in a summary.\n---\n";

/** The zero-based lines of `text` that markdown-it puts in a fenced block, counted from the body's first line. */
function fencedLines(text: string, firstLine: number): Set<number> {
  const out = new Set<number>();
  for (const token of md.parse(text, {})) if (token.type === "fence" && token.map) for (let i = token.map[0]; i < token.map[1]; i++) out.add(i + firstLine);
  return out;
}

function setup(body: string) {
  const namespace = new Namespace();
  const a = skillUri("a");
  namespace.set(a, `${FRONT}${body}`);
  namespace.set(skillUri("x"), "---\nsummary: The skill x.\n---\nNothing.\n");
  const file = namespace.skill(a) as SkillFile;
  return { namespace, a, file };
}

const key = (range: { start: { line: number; character: number }; end: { line: number; character: number } }) => `${range.start.line}:${range.start.character}-${range.end.line}:${range.end.character}`;

describe("every feature sees the same mentions", () => {
  test("none in fenced code or in a URL or path; diagnostics, tokens and references agree", () => {
    fc.assert(
      fc.property(bodyArb, (body) => {
        const { namespace, a, file } = setup(body);
        const bodyLine = file.lines.positionAt(file.bodyStart).line;
        const fenced = fencedLines(body, bodyLine);
        const mentions = file.mentions.map((mention) => key(mention.range));
        for (const mention of file.mentions) {
          assert.ok(!fenced.has(mention.range.start.line), `a mention in a fence at ${key(mention.range)}`);
          assert.ok(!isInUrlOrPath(file.text, file.lines.offsetAt(mention.range.start)), `a mention in a URL at ${key(mention.range)}`);
        }
        // Diagnostics: an unknown-mention for each mention of @nobody, nothing for the rest.
        const unknown = namespace.diagnose(a).filter((d) => d.code === DiagnosticCodes.unknownMention).map((d) => key(d.range));
        assert.deepEqual(unknown, file.mentions.filter((m) => m.slug === "nobody").map((m) => key(m.range)));
        // Semantic tokens: one per mention, at its place.
        const data = semanticTokens(namespace, { kind: "skill", file });
        const tokens: string[] = [];
        let line = 0;
        let character = 0;
        for (let i = 0; i < data.length; i += 5) {
          line += data[i] ?? 0;
          character = (data[i] ?? 0) === 0 ? character + (data[i + 1] ?? 0) : (data[i + 1] ?? 0);
          tokens.push(`${line}:${character}-${line}:${character + (data[i + 2] ?? 0)}`);
        }
        assert.deepEqual(tokens, mentions);
        // References to @x from x's own file: exactly the mentions of x in a.
        const x = namespace.skill(skillUri("x")) as SkillFile;
        const found = (references(namespace, { kind: "skill", file: x }, { line: 0, character: 0 }, false) ?? []).filter((loc) => loc.uri === a).map((loc) => key(loc.range));
        assert.deepEqual(found.sort(), file.mentions.filter((m) => m.slug === "x").map((m) => key(m.range)).sort());
      }),
      { numRuns: RUNS },
    );
  });

  test("completion offers nothing in fenced code or in a URL, and offers at every mention", () => {
    fc.assert(
      fc.property(bodyArb, (body) => {
        const { namespace, file } = setup(body);
        const mentionEnds = new Set(file.mentions.map((m) => file.lines.offsetAt(m.range.end)));
        for (let at = file.text.indexOf("@", file.bodyStart); at !== -1; at = file.text.indexOf("@", at + 1)) {
          const position = file.lines.positionAt(at + 1);
          const list = complete(namespace, { kind: "skill", file }, position);
          const offered = list !== null && list.items.length > 0;
          const fenced = fencedLines(body, file.lines.positionAt(file.bodyStart).line).has(position.line);
          if (fenced || isInUrlOrPath(file.text, at)) assert.equal(offered, false, `completion at ${position.line}:${position.character}`);
          const end = at + 1 + (/^[a-z]+/.exec(file.text.slice(at + 1))?.[0].length ?? 0);
          if (mentionEnds.has(end)) assert.equal(offered, true, `no completion at the mention ending ${end}`);
        }
      }),
      { numRuns: RUNS },
    );
  });

  test("a rename edits exactly the mentions and never a fenced line; expansion and the graph follow the same mentions", () => {
    fc.assert(
      fc.property(bodyArb, (body) => {
        const { namespace, a, file } = setup(body);
        const plan = namespace.planRename("x", "renamed");
        if (isRefusal(plan)) throw new Error(plan.refused);
        assert.deepEqual((plan.edits.get(a) ?? []).map((edit) => key(edit.range)).sort(), file.mentions.filter((m) => m.slug === "x").map((m) => key(m.range)).sort());
        const after = applyPlan({ [a]: file.text }, { ...plan, edits: new Map([[a, plan.edits.get(a) ?? []]]) })[a] ?? "";
        const before = file.text.split(/\r\n|\n/);
        const rows = after.split(/\r\n|\n/);
        const bodyLine = file.lines.positionAt(file.bodyStart).line;
        for (const row of fencedLines(body, bodyLine)) assert.equal(rows[row], before[row], `fenced line ${row} changed`);

        const expansion = namespace.expand(["a"]);
        const bodyMentions = new Set(file.mentions.filter((m) => m.place === "body").map((m) => m.slug));
        assert.equal(expansion.tools.some((tool) => tool.slug === "calendar"), bodyMentions.has("calendar"));
        assert.deepEqual(expansion.unresolved, bodyMentions.has("nobody") ? ["nobody"] : []);
        const graph = buildGraph(namespace);
        const targets = new Set(graph.edges.filter((edge) => edge.from === "skill:a").map((edge) => edge.to));
        assert.equal(targets.has("skill:x"), file.mentions.some((m) => m.slug === "x"));
        assert.equal(targets.has("ghost:nobody"), file.mentions.some((m) => m.slug === "nobody"));
      }),
      { numRuns: RUNS },
    );
  });

  test("a bundle's import escapes only the mentions that name nothing, and nothing in code", () => {
    fc.assert(
      fc.property(bodyArb, (body) => {
        const { namespace, file } = setup(body.replace(/@nobody/g, "@x"));
        const bundle = exportBundle(namespace, "a");
        if (isRefusal(bundle)) throw new Error(bundle.refused);
        // Into a workspace that has no x: the bundle ships x, so nothing is escaped and the text arrives as it was.
        const plan = planImport(new Namespace(), bundle, "file:///elsewhere/");
        if (isRefusal(plan)) throw new Error(plan.refused);
        const incoming = plan.files.find((f) => f.uri.endsWith("/a.skill.md"));
        assert.equal(incoming?.text, file.text);
        // A bundle of a alone, whose mentions of x then name nothing: only those are escaped, at their places.
        const alone = { ...bundle, skills: bundle.skills.filter((skill) => skill.handle === "a") };
        const lonePlan = planImport(new Namespace(), alone, "file:///elsewhere/");
        if (isRefusal(lonePlan)) throw new Error(lonePlan.refused);
        const review = lonePlan.review.skills.find((skill) => skill.incoming === "a");
        const lines = new LineMap(file.text);
        assert.deepEqual(
          review?.rewrites.map((rewrite) => lines.offsetAt(rewrite.position)),
          file.mentions.filter((m) => m.slug === "x" && !m.inCode).map((m) => lines.offsetAt(m.range.start)),
        );
      }),
      { numRuns: RUNS },
    );
  });

  test("a whole inline code span that names nothing is code: no diagnostic, token, requirement, ghost or refusal", () => {
    const namespace = new Namespace();
    const a = skillUri("a");
    namespace.set(a, "---\nsummary: Knows `@anthropic-ai` and `@x`.\n---\nUse `@nobody`, `@x` and @x.\n");
    namespace.set(skillUri("x"), "---\nsummary: x\n---\n");
    const file = namespace.skill(a) as SkillFile;
    assert.deepEqual(file.mentions.map((m) => [m.slug, m.inCode]), [["anthropic-ai", true], ["x", true], ["nobody", true], ["x", true], ["x", false]]);
    assert.deepEqual(namespace.diagnose(a).filter((d) => d.code === DiagnosticCodes.unknownMention), []);
    assert.equal(semanticTokens(namespace, { kind: "skill", file }).length / 5, 3, "the three mentions of x only");
    assert.deepEqual(namespace.expand(["a"]).unresolved, []);
    assert.deepEqual(buildGraph(namespace).nodes.filter((node) => node.kind === "ghost"), []);
    const bundle = exportBundle(namespace, "a");
    assert.ok(!isRefusal(bundle), isRefusal(bundle) ? bundle.refused : "");
    assert.deepEqual(bundle.skills.map((skill) => skill.handle), ["a", "x"]);
  });
});
