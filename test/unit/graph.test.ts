/**
 * The namespace's graph: nodes, edges, cycles (strongly connected components), ghosts for dangling mentions,
 * menu prices, and a focused closure that equals `namespace.expand([slug]).tools`, on examples/ and on random
 * namespaces. Everything in memory.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as fc from "fast-check";
import { buildGraph, closure, findCycles, graphToDot, graphToMermaid, nodeIdOf, subgraph, type GraphData, type GraphNode } from "../../server/src/core/graph.js";
import { Namespace, type Expansion } from "../../server/src/core/index.js";
import { fileOf } from "../../server/src/service/lookup.js";
import { codeLenses } from "../../server/src/service/navigation.js";
import { loadExamples, skillText, skillUri, uri, workspace } from "./helpers.js";

const node = (graph: GraphData, id: string): GraphNode => {
  const found = graph.nodes.find((candidate) => candidate.id === id);
  assert.ok(found, `no node ${id}`);
  return found;
};
const edgesFrom = (graph: GraphData, id: string) => graph.edges.filter((edge) => edge.from === id).map((edge) => `${edge.to}${edge.place === "summary" ? " (summary)" : ""}${edge.follows ? "" : " inert"}${edge.cycle ? " cycle" : ""}`);
const names = (expansion: Expansion) => expansion.tools.map((tool) => tool.name);

/** For every skill and tool: the closure walked on the graph binds exactly what the namespace's expansion binds. */
function assertClosuresMatchExpand(namespace: Namespace, graph: GraphData): void {
  for (const graphNode of graph.nodes) {
    if (graphNode.kind === "ghost" || !graphNode.resolves) continue;
    const focus = closure(graph, graphNode.id);
    const expansion = namespace.expand([graphNode.slug]);
    assert.deepEqual(focus.toolNames, names(expansion), `@${graphNode.slug}`);
    assert.deepEqual(focus.skills.map((id) => node(graph, id).slug), expansion.skills.map((skill) => skill.slug), `@${graphNode.slug} skills`);
    assert.deepEqual(focus.disabled.map((id) => node(graph, id).slug), expansion.disabled, `@${graphNode.slug} disabled`);
    assert.deepEqual(focus.unresolved.map((id) => node(graph, id).slug), expansion.unresolved, `@${graphNode.slug} unresolved`);
  }
}

describe("the graph of examples/", () => {
  const namespace = workspace(loadExamples());
  const graph = buildGraph(namespace);

  test("tools (the six built-ins, then send_message from skills.json), then skills by slug; no ghost", () => {
    assert.deepEqual(
      graph.nodes.map((n) => n.id),
      [
        "tool:check-notebook",
        "tool:find-file",
        "tool:list-devices",
        "tool:grep-memory",
        "tool:current-date",
        "tool:calendar",
        "tool:send-message",
        "skill:check-schedule",
        "skill:draft-reply",
        "skill:fetch-file",
        "skill:follow-up",
        "skill:meeting-prep",
        "skill:plan-trip",
        "skill:resolve-dates",
        "skill:retry-search",
        "skill:search-info",
        "skill:triage-inbox",
      ],
    );
    assert.equal(node(graph, "tool:calendar").toolName, "queryCalendar");
    assert.equal(node(graph, "tool:send-message").builtin, false);
    assert.equal(node(graph, "tool:send-message").uri, uri("skills.json"));
    assert.equal(node(graph, "skill:search-info").uri, uri("skills/builtin/search-info.skill.md"));
  });

  test("mentions are edges, in the order the body has them; a disabled skill's edges are inert", () => {
    assert.deepEqual(edgesFrom(graph, "skill:search-info"), ["tool:check-notebook", "skill:fetch-file", "tool:grep-memory"]);
    assert.deepEqual(edgesFrom(graph, "skill:fetch-file"), ["tool:list-devices", "tool:find-file"]);
    assert.deepEqual(edgesFrom(graph, "skill:draft-reply"), ["tool:check-notebook inert", "tool:send-message inert"]);
    assert.equal(node(graph, "skill:draft-reply").enabled, false);
  });

  test("unadvertised skills are told apart, and only menu entries carry a price", () => {
    assert.equal(node(graph, "skill:fetch-file").advertised, false);
    assert.equal(node(graph, "skill:resolve-dates").advertised, false);
    assert.equal(node(graph, "skill:fetch-file").menu, undefined);
    assert.equal(node(graph, "skill:draft-reply").menu, undefined);
    const menu = graph.nodes.filter((n) => n.menu).map((n) => n.id);
    assert.deepEqual(menu.sort(), ["skill:check-schedule", "skill:follow-up", "skill:meeting-prep", "skill:plan-trip", "skill:retry-search", "skill:search-info", "skill:triage-inbox", "tool:current-date"]);
    const price = node(graph, "skill:search-info").menu;
    assert.ok(price);
    assert.equal(price.exact, false);
    assert.match(price.label, /^~\d+ tokens$/);
    assert.ok(price.share > 0 && price.share < 1);
    assert.equal(graph.menu.planning, true);
    assert.equal(graph.menu.entries, 8);
  });

  test("cycles: @retry-search mentions itself; @follow-up and @triage-inbox mention each other", () => {
    assert.deepEqual(graph.cycles, [["skill:follow-up", "skill:triage-inbox"], ["skill:retry-search"]]);
    assert.equal(node(graph, "skill:retry-search").cycle, 1);
    assert.equal(node(graph, "skill:follow-up").cycle, 0);
    assert.equal(node(graph, "skill:search-info").cycle, undefined);
    assert.deepEqual(edgesFrom(graph, "skill:retry-search"), ["tool:grep-memory", "skill:retry-search cycle"]);
    assert.deepEqual(edgesFrom(graph, "skill:triage-inbox"), ["tool:grep-memory", "skill:follow-up cycle"]);
  });

  test("a focused closure is exactly the toolset the expansion binds, for every node", () => {
    assertClosuresMatchExpand(namespace, graph);
    const focus = closure(graph, "skill:plan-trip");
    assert.deepEqual(focus.toolNames, ["current_date", "queryCalendar", "check_notebook", "list_devices", "find_file", "grep_memory"]);
    assert.deepEqual(focus.skills, ["skill:plan-trip", "skill:check-schedule", "skill:search-info", "skill:fetch-file"]);
    const part = subgraph(graph, focus);
    assert.deepEqual(part.nodes.map((n) => n.id).sort(), [...focus.nodes].sort());
    assert.ok(part.edges.every((edge) => edge.follows));
    assert.equal(part.edges.length, 10);
  });

  test("a handle finds its node", () => {
    assert.equal(nodeIdOf(graph, "@Search-Info"), "skill:search-info");
    assert.equal(nodeIdOf(graph, "calendar"), "tool:calendar");
    assert.equal(nodeIdOf(graph, "@nothing"), undefined);
  });
});

describe("graph edge cases", () => {
  test("a dangling mention is a ghost node, from the body or the summary; its first mentioner is its place", () => {
    const namespace = workspace({
      [skillUri("b")]: skillText("Use @nowhere and @calendar.", { summary: "Mentions @elsewhere." }),
      [skillUri("a")]: skillText("Also @nowhere."),
    });
    const graph = buildGraph(namespace);
    assert.deepEqual(graph.nodes.filter((n) => n.kind === "ghost").map((n) => [n.id, n.uri]), [
      ["ghost:elsewhere", skillUri("b")],
      ["ghost:nowhere", skillUri("a")],
    ]);
    assert.deepEqual(edgesFrom(graph, "skill:b"), ["ghost:nowhere", "tool:calendar", "ghost:elsewhere (summary) inert"]);
    const focus = closure(graph, "skill:b");
    assert.deepEqual(focus.unresolved, ["ghost:nowhere"]);
    assert.deepEqual(focus.toolNames, ["queryCalendar"]);
    assertClosuresMatchExpand(namespace, graph);
  });

  test("two files with one handle: the first by URI resolves, the second is skill:x~2; both are flagged", () => {
    const namespace = workspace({
      [skillUri("x", "b")]: skillText("Second: @calendar."),
      [skillUri("x", "a")]: skillText("First: @current-date."),
      [skillUri("user")]: skillText("Use @x."),
    });
    const graph = buildGraph(namespace);
    assert.equal(node(graph, "skill:x").uri, skillUri("x", "a"));
    assert.equal(node(graph, "skill:x~2").uri, skillUri("x", "b"));
    assert.equal(node(graph, "skill:x").problem, "duplicate");
    assert.equal(node(graph, "skill:x~2").resolves, false);
    assert.deepEqual(edgesFrom(graph, "skill:x~2"), ["tool:calendar inert"]);
    assert.deepEqual(closure(graph, "skill:user").toolNames, ["current_date"]);
    assertClosuresMatchExpand(namespace, graph);
  });

  test("a skill named like a tool: mentions go to the tool; the skill is flagged and binds nothing", () => {
    const graph = buildGraph(workspace({ [skillUri("calendar")]: skillText("Use @current-date."), [skillUri("user")]: skillText("Use @calendar.") }));
    assert.equal(node(graph, "skill:calendar").problem, "tool-collision");
    assert.equal(node(graph, "skill:calendar").resolves, false);
    assert.deepEqual(edgesFrom(graph, "skill:user"), ["tool:calendar"]);
    assert.deepEqual(edgesFrom(graph, "skill:calendar"), ["tool:current-date inert"]);
  });

  test("a loop through a disabled skill is no cycle: expansion stops there", () => {
    const graph = buildGraph(
      workspace({
        [skillUri("a")]: skillText("Use @b."),
        [skillUri("b")]: skillText("Use @a.", { summary: "Off.", enabled: false }),
      }),
    );
    assert.deepEqual(graph.cycles, []);
    assert.deepEqual(closure(graph, "skill:a").disabled, ["skill:b"]);
  });

  test("the menu's prices are exact with a tokenizer", () => {
    const namespace = workspace({ [skillUri("a")]: skillText("Use @calendar.", { summary: "Ask the calendar." }) });
    const graph = buildGraph(namespace, { countTokens: (text) => text.split(/\s+/).length });
    const price = node(graph, "skill:a").menu;
    assert.deepEqual(price && { tokens: price.tokens, exact: price.exact, label: price.label }, { tokens: 5, exact: true, label: "5 tokens" });
    assert.equal(graph.menu.exact, true);
  });

  test("a chain of 10,000 skills and a ring of 10,000: no stack overflow, one cycle of 10,000", () => {
    const files: Record<string, string> = {};
    const count = 10_000;
    for (let i = 0; i < count; i++) files[skillUri(`s${i}`)] = skillText(`Use @s${(i + 1) % count}.`);
    const ring = buildGraph(workspace(files));
    assert.equal(ring.cycles.length, 1);
    assert.equal(ring.cycles[0]?.length, count);
    files[skillUri(`s${count - 1}`)] = skillText("Use @calendar.");
    const namespace = workspace(files);
    const chain = buildGraph(namespace);
    assert.deepEqual(chain.cycles, []);
    assert.deepEqual(closure(chain, "skill:s0").toolNames, ["queryCalendar"]);
    assert.equal(closure(chain, "skill:s0").skills.length, count);
  });
});

describe("graph properties", () => {
  const handles = ["a", "b", "c", "d", "e"];
  const targets = [...handles, "calendar", "find-file", "current-date", "ghost"];
  const skillArbitrary = fc.record({
    mentions: fc.array(fc.constantFrom(...targets), { maxLength: 5 }),
    summaryMention: fc.option(fc.constantFrom(...targets), { nil: undefined }),
    enabled: fc.boolean(),
    advertised: fc.boolean(),
    folder: fc.constantFrom("", "x"),
  });
  const namespaceArbitrary = fc.dictionary(fc.constantFrom(...handles, "calendar"), fc.array(skillArbitrary, { minLength: 1, maxLength: 2 }));

  function build(spec: Record<string, { mentions: string[]; summaryMention: string | undefined; enabled: boolean; advertised: boolean; folder: string }[]>): Namespace {
    const files: Record<string, string> = {};
    for (const [handle, copies] of Object.entries(spec)) {
      copies.forEach((copy, i) => {
        const fields = { summary: copy.summaryMention ? `See @${copy.summaryMention}.` : "A skill.", enabled: copy.enabled, advertised: copy.advertised };
        files[skillUri(handle, `${copy.folder}${i}`)] = skillText(copy.mentions.map((slug) => `Use @${slug}.`).join(" "), fields);
      });
    }
    return workspace(files);
  }

  test("closure on the graph = namespace.expand, for every node of random namespaces", () => {
    fc.assert(
      fc.property(namespaceArbitrary, (spec) => {
        const namespace = build(spec);
        assertClosuresMatchExpand(namespace, buildGraph(namespace));
      }),
      { numRuns: 500 },
    );
  });

  test("cycles are exactly the nodes that reach themselves over followed edges", () => {
    fc.assert(
      fc.property(namespaceArbitrary, (spec) => {
        const graph = buildGraph(build(spec));
        const next = new Map<string, string[]>();
        for (const edge of graph.edges) if (edge.follows) next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
        const reaches = (from: string, to: string): boolean => {
          const seen = new Set<string>();
          const stack = [...(next.get(from) ?? [])];
          while (stack.length > 0) {
            const id = stack.pop() ?? "";
            if (id === to) return true;
            if (seen.has(id)) continue;
            seen.add(id);
            stack.push(...(next.get(id) ?? []));
          }
          return false;
        };
        const onCycle = new Set(graph.cycles.flat());
        for (const n of graph.nodes) assert.equal(onCycle.has(n.id), reaches(n.id, n.id), n.id);
        for (const cycle of graph.cycles) for (const a of cycle) for (const b of cycle) assert.ok(a === b || reaches(a, b), `${a} reaches ${b}`);
        assert.deepEqual(findCycles(graph.nodes, graph.edges), graph.cycles);
      }),
      { numRuns: 500 },
    );
  });
});

describe("the menu price on each skill's summary (code lens)", () => {
  const namespace = workspace(loadExamples());
  const lensOf = (path: string, countTokens?: (text: string) => number) => {
    const file = fileOf(namespace, uri(path));
    assert.ok(file);
    const lens = codeLenses(namespace, file, countTokens).find((candidate) => candidate.command?.command === "skill.showAlignment");
    assert.ok(lens?.command);
    return { title: lens.command.title, line: lens.range.start.line };
  };

  test("a menu entry: its price and share, on the summary's line; exact with a tokenizer", () => {
    const estimated = lensOf("skills/builtin/search-info.skill.md");
    assert.match(estimated.title, /^menu entry: ~\d+ tokens · \d+% of the planner's prompt$/);
    assert.equal(estimated.line, 2);
    assert.match(lensOf("skills/builtin/search-info.skill.md", (text) => text.length).title, /^menu entry: \d+ tokens · /);
  });

  test("off the menu: the lens says why", () => {
    assert.equal(lensOf("skills/builtin/fetch-file.skill.md").title, "not on the planner's menu: not advertised");
    assert.equal(lensOf("skills/home/draft-reply.skill.md").title, "not on the planner's menu: disabled");
    const deselected = workspace({ ...loadExamples(), [uri("skills.json")]: JSON.stringify({ alignment: { menu: ["@search-info"] } }) });
    const file = fileOf(deselected, uri("skills/home/plan-trip.skill.md"));
    assert.ok(file);
    assert.equal(codeLenses(deselected, file)[1]?.command?.title, "not on the planner's menu: left out of alignment.menu in skills.json");
  });
});

describe("text formats", () => {
  const graph = buildGraph(workspace({ ...loadExamples(), [skillUri("odd")]: skillText('Use @nowhere. "Quoted"', { summary: 'A "quoted" summary.' }) }));

  test("DOT: a digraph with the seed's colours; cycles and inert edges styled apart", () => {
    const dot = graphToDot(graph);
    assert.match(dot, /^digraph skills \{\n  rankdir=LR;/);
    assert.match(dot, /"skill:search-info" \[label="@search-info\\nmenu ~\d+ tokens", shape=box, style="rounded,filled", color="#E8912D"/);
    assert.match(dot, /"tool:calendar" \[label="@calendar\\nqueryCalendar", shape=ellipse, style="rounded,filled", color="#3794FF"/);
    assert.match(dot, /"ghost:nowhere" \[label="@nowhere\\n\(unknown\)", shape=box, style="rounded,dashed", color="#F14C4C"/);
    assert.match(dot, /"skill:retry-search" -> "skill:retry-search" \[color="#C586C0", penwidth=2\];/);
    assert.match(dot, /"skill:draft-reply" -> "tool:send-message" \[style=dashed\];/);
    assert.match(dot, /\n\}$/);
  });

  test("Mermaid: a flowchart with a class per kind and the cycle links styled", () => {
    const mermaid = graphToMermaid(graph);
    assert.match(mermaid, /^flowchart LR\n/);
    assert.match(mermaid, /\n {2}tool__calendar\(\["@calendar<br\/>queryCalendar"\]\)\n/);
    assert.match(mermaid, /\n {2}skill__search_info\["@search-info<br\/>menu ~\d+ tokens"\]\n/);
    assert.match(mermaid, /\n {2}skill__draft_reply -.-> tool__send_message\n/);
    assert.match(mermaid, /\n {2}class [a-z_,]*ghost__nowhere[a-z_,]* ghost\n/);
    assert.match(mermaid, /\n {2}class skill__follow_up,skill__retry_search,skill__triage_inbox cycle\n/);
    assert.match(mermaid, /\n {2}linkStyle \d+(,\d+)* stroke:#C586C0/);
    assert.doesNotMatch(mermaid, /"[^"\n]*"[^\]\)\n]*"/, "no raw quote inside a caption");
  });
});
