/**
 * `skill-lsp graph` on examples/: DOT, Mermaid and JSON, a focused closure, and the refusals. Run from the
 * repository's root so that the paths in the JSON are `examples/…`.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { capture, type Run } from "./capture.js";

const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

function run(...args: string[]): Promise<Run> {
  return capture(["graph", ...args]);
}

interface JsonGraph {
  nodes: { id: string; kind: string; path?: string; enabled: boolean; advertised: boolean; menu?: { label: string }; cycle?: number }[];
  edges: { from: string; to: string; follows: boolean; cycle: boolean }[];
  cycles: string[][];
  menu: { label: string; planning: boolean; entries: number };
}

describe("skill-lsp graph on examples/", () => {
  before(() => process.chdir(REPO));

  test("--format json: the whole namespace, with paths relative to the current folder", async () => {
    const { code, out, err } = await run("examples", "--format", "json");
    assert.equal(code, 0, err);
    const graph = JSON.parse(out) as JsonGraph;
    assert.equal(graph.nodes.filter((node) => node.kind === "tool").length, 7);
    assert.equal(graph.nodes.filter((node) => node.kind === "skill").length, 10);
    assert.equal(graph.nodes.filter((node) => node.kind === "ghost").length, 0);
    const searchInfo = graph.nodes.find((node) => node.id === "skill:search-info");
    assert.equal(searchInfo?.path, "examples/skills/builtin/search-info.skill.md");
    assert.match(searchInfo?.menu?.label ?? "", /^~\d+ tokens$/);
    assert.equal(graph.nodes.find((node) => node.id === "tool:send-message")?.path, "examples/skills.json");
    assert.equal(graph.nodes.find((node) => node.id === "tool:calendar")?.path, undefined);
    assert.deepEqual(graph.cycles, [["skill:follow-up", "skill:triage-inbox"], ["skill:retry-search"]]);
    assert.equal(graph.edges.length, 23);
    assert.deepEqual(
      graph.edges.filter((edge) => edge.cycle).map((edge) => `${edge.from} -> ${edge.to}`),
      ["skill:follow-up -> skill:triage-inbox", "skill:retry-search -> skill:retry-search", "skill:triage-inbox -> skill:follow-up"],
    );
    assert.equal(graph.menu.planning, true);
    assert.equal(graph.menu.entries, 8);
  });

  test("--format dot (the default): one node statement per node, one edge statement per mention", async () => {
    const { code, out } = await run("examples");
    assert.equal(code, 0);
    assert.match(out, /^digraph skills \{/);
    assert.equal(out.match(/^ {2}"[^"]+" \[label=/gm)?.length, 17);
    assert.equal(out.match(/^ {2}"[^"]+" -> "[^"]+"/gm)?.length, 23);
    assert.match(out, /"skill:draft-reply" \[label="@draft-reply\\n\(disabled\)", shape=box, style="rounded,dashed", color="#8C8C8C"/);
    assert.match(out, /"skill:fetch-file" \[label="@fetch-file\\n\(not advertised\)", shape=box, style="rounded,dashed", color="#E8912D"/);
  });

  test("--format mermaid: a flowchart of the same nodes and edges", async () => {
    const { code, out } = await run("--format", "mermaid", "--folder", "examples");
    assert.equal(code, 0);
    assert.match(out, /^flowchart LR\n/);
    assert.equal(out.match(/^ {2}\S+ (-->|-\.->) \S+$/gm)?.length, 23);
    assert.match(out, /\n {2}class skill__follow_up,skill__retry_search,skill__triage_inbox cycle/);
  });

  test("--focus @plan-trip keeps its expansion: the skills it follows and the tools it binds", async () => {
    const { code, out } = await run("examples", "--format", "json", "--focus", "@plan-trip");
    assert.equal(code, 0);
    const graph = JSON.parse(out) as JsonGraph;
    assert.deepEqual(
      graph.nodes.map((node) => node.id),
      ["tool:check-notebook", "tool:find-file", "tool:list-devices", "tool:grep-memory", "tool:current-date", "tool:calendar", "skill:check-schedule", "skill:fetch-file", "skill:plan-trip", "skill:search-info"],
    );
    assert.ok(graph.edges.every((edge) => edge.follows));
    assert.deepEqual(graph.cycles, []);
  });

  test("an unknown --focus, an unknown format, a missing folder", async () => {
    const unknown = await run("examples", "--focus", "@nothing");
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /@nothing — unknown/);
    const format = await run("examples", "--format", "svg");
    assert.equal(format.code, 2);
    assert.match(format.err, /--format is one of dot, mermaid, json; got svg/);
    const missing = await run("no-such-folder");
    assert.equal(missing.code, 2);
    assert.match(missing.err, /no-such-folder is not a folder/);
  });
});
