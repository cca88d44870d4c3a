/**
 * The graph panel's layout and focus card, run in Node on the code the page runs: the layered layout's
 * invariants (no overlapping boxes, edges from box to box, long edges straight through a layer's band), the
 * shape chosen for the panel (rows for a narrow panel, columns for a wide one, captions legible when fitted),
 * and the card's wording for a focused skill.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as fc from "fast-check";
import { buildGraph, closure, type GraphData } from "../../server/src/core/graph.js";
import { Namespace } from "../../server/src/core/index.js";
import { expansionRows } from "../../media/graph/src/card.js";
import { layered, type LayeredLayout, type Point } from "../../media/graph/src/layered.js";
import { arrange, fitScale, nodeBoxes, panelChanged, READABLE_SCALE, restoreLayout, storeLayout, type Panel } from "../../media/graph/src/layout.js";
import { generatedNamespace } from "../fixtures/skillGraph.js";
import { loadExamples, workspace } from "./helpers.js";

/** About what a 12 px sans-serif measures: the layout needs widths, not exact ones. */
const measure = (text: string, bold: boolean) => text.length * (bold ? 7.4 : 6.6);
const examples = buildGraph(workspace(loadExamples()));

/** The checks below need only nodes and edges: the graph's data or any generated graph. */
type Shape = { readonly nodes: readonly { readonly id: string }[]; readonly edges: readonly { readonly from: string; readonly to: string }[] };

function assertWellFormed(graph: GraphData | Shape, layout: LayeredLayout): void {
  assert.equal(layout.nodes.size, graph.nodes.length, "every node placed");
  const boxes = [...layout.nodes.values()];
  for (const box of boxes) {
    assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= layout.width + 0.5 && box.y + box.height <= layout.height + 0.5, `${box.id} inside the drawing`);
  }
  // No two boxes overlap (sorted sweep on x keeps it near-linear).
  const sorted = [...boxes].sort((a, b) => a.x - b.x);
  for (let i = 0; i < sorted.length; i++) {
    const a = sorted[i]!;
    for (let j = i + 1; j < sorted.length && sorted[j]!.x < a.x + a.width; j++) {
      const b = sorted[j]!;
      const overlap = a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5 && a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5;
      assert.ok(!overlap, `${a.id} and ${b.id} overlap`);
    }
  }
  const onBoundary = (point: Point, id: string) => {
    const box = layout.nodes.get(id)!;
    const inside = point.x >= box.x - 0.5 && point.x <= box.x + box.width + 0.5 && point.y >= box.y - 0.5 && point.y <= box.y + box.height + 0.5;
    const edge = Math.min(Math.abs(point.x - box.x), Math.abs(point.x - box.x - box.width), Math.abs(point.y - box.y), Math.abs(point.y - box.y - box.height));
    return inside && edge < 0.5;
  };
  assert.equal(layout.edges.length, graph.edges.length, "every edge routed");
  for (const routed of layout.edges) {
    const edge = graph.edges[routed.index]!;
    const first = routed.points[0]!;
    const last = routed.points[routed.points.length - 1]!;
    assert.ok(onBoundary(first, edge.from), `${edge.from} → ${edge.to} starts on its source's side`);
    assert.ok(onBoundary(last, edge.to), `${edge.from} → ${edge.to} ends on its target's side (the arrow points at the target)`);
    if (routed.shape === "loop") {
      assert.equal(edge.from, edge.to);
      continue;
    }
    // Along the direction the points only advance (or only go back, for an edge that closes a cycle).
    const along = routed.points.map((point) => (layout.direction === "DOWN" ? point.y : point.x));
    const forward = along.every((value, i) => i === 0 || value >= along[i - 1]! - 0.01);
    const backward = along.every((value, i) => i === 0 || value <= along[i - 1]! + 0.01);
    assert.ok(forward || backward, `${edge.from} → ${edge.to} runs one way`);
  }
}

describe("the layered layout", () => {
  test("examples/, in both directions: nothing overlaps, every edge runs from its source's box to its target's", () => {
    const boxes = nodeBoxes(examples, measure);
    const edges = examples.edges.map((edge) => ({ from: edge.from, to: edge.to }));
    for (const direction of ["RIGHT", "DOWN"] as const) {
      for (const maxBreadth of [200, 400, 900, 5000]) {
        for (const sinksLast of [true, false]) assertWellFormed(examples, layered(boxes, edges, { direction, maxBreadth, sinksLast }));
      }
    }
  });

  test("every tool in the last layer; a cycle and a self-mention are drawn", () => {
    const boxes = nodeBoxes(examples, measure);
    const layout = layered(boxes, examples.edges, { direction: "RIGHT", maxBreadth: 5000 });
    const tools = examples.nodes.filter((node) => node.kind === "tool").map((node) => layout.nodes.get(node.id)!);
    const skills = examples.nodes.filter((node) => node.kind === "skill").map((node) => layout.nodes.get(node.id)!);
    const toolColumn = Math.min(...tools.map((box) => box.x));
    assert.ok(skills.every((box) => box.x + box.width < toolColumn), "the tools stand right of every skill");
    const loops = layout.edges.filter((edge) => edge.shape === "loop").map((edge) => examples.edges[edge.index]!.from);
    assert.deepEqual(loops, ["skill:retry-search"]);
  });

  test("a layer wider than the allowed breadth wraps, so the drawing keeps near it", () => {
    const boxes = nodeBoxes(examples, measure);
    const wide = layered(boxes, examples.edges, { direction: "DOWN", maxBreadth: 5000 });
    const narrow = layered(boxes, examples.edges, { direction: "DOWN", maxBreadth: 420 });
    assert.ok(wide.width > 700, `unwrapped: ${wide.width}`);
    // Boxes keep to it; the trunks passing a layer may push it a little further.
    assert.ok(narrow.width - 2 * 16 <= 420 * 1.1, `wrapped: ${narrow.width}`);
    const tight = layered(boxes, examples.edges, { direction: "DOWN", maxBreadth: 150 });
    const widest = Math.max(...boxes.map((box) => box.width));
    assert.ok(tight.width - 2 * 16 <= widest * 1.1, `one box a layer keeps near the widest box: ${tight.width}`);
    assert.ok(narrow.layers > wide.layers);
  });

  test("the same graph gives the same drawing", () => {
    const panel = { width: 800, height: 600 };
    const a = arrange(examples, measure, panel);
    const b = arrange(examples, measure, panel);
    assert.deepEqual([...a.nodes.values()], [...b.nodes.values()]);
    assert.deepEqual(a.edges, b.edges);
  });

  test("a draft (extent only, as the panel compares shapes) has the extent and crossings of the whole layout", () => {
    for (const [count, seed] of [[17, 5], [100, 6], [300, 7]] as const) {
      const graph = buildGraph(generatedNamespace(count, seed));
      const boxes = nodeBoxes(graph, measure);
      for (const direction of ["DOWN", "RIGHT"] as const) {
        for (const options of [{ direction, maxBreadth: 400 }, { direction, maxBreadth: 1400, sweeps: 2, placementPasses: 2, sinksLast: false }]) {
          const whole = layered(boxes, graph.edges, options);
          const draft = layered(boxes, graph.edges, { ...options, extentOnly: true });
          assert.deepEqual({ ...draft, nodes: undefined, edges: undefined }, { ...whole, nodes: undefined, edges: undefined });
          assert.equal(draft.nodes.size, 0);
          assertWellFormed(graph, whole);
        }
      }
    }
  });

  test("generated namespaces of 20 to 400 skills stay well formed", () => {
    for (const [count, seed] of [[20, 1], [60, 2], [150, 3], [400, 4]] as const) {
      const graph = buildGraph(generatedNamespace(count, seed));
      for (const panel of [{ width: 420, height: 900 }, { width: 1400, height: 800 }]) assertWellFormed(graph, arrange(graph, measure, panel));
    }
  });

  test("long edges to one target share one trunk: one dummy a layer, not one an edge", () => {
    // Ten skills in the first layer, a chain of two below them, and one tool under all: every skill mentions it.
    const nodes = [...Array.from({ length: 10 }, (_, i) => ({ id: `s${i}`, width: 80, height: 38 })), { id: "a", width: 80, height: 38 }, { id: "b", width: 80, height: 38 }, { id: "tool", width: 80, height: 38 }];
    const edges = [...Array.from({ length: 10 }, (_, i) => ({ from: `s${i}`, to: "tool" })), { from: "s0", to: "a" }, { from: "a", to: "b" }, { from: "b", to: "tool" }];
    const layout = layered(nodes, edges, { direction: "DOWN", maxBreadth: 5000 });
    assert.equal(layout.layers, 4);
    assert.equal(layout.dummies, 2, "one trunk through the two middle layers");
    const ends = new Set(layout.edges.filter((edge) => edge.points.length > 2).map((edge) => JSON.stringify(edge.points.slice(-3))));
    assert.equal(ends.size, 1, "the ten long edges arrive along one line");
  });

  test("any graph (cycles, self-mentions, repeated edges, boxes of any size), any direction and breadth: well formed", () => {
    const graphs = fc
      .integer({ min: 1, max: 24 })
      .chain((count) =>
        fc.record({
          sizes: fc.array(fc.record({ width: fc.integer({ min: 20, max: 260 }), height: fc.integer({ min: 20, max: 60 }) }), { minLength: count, maxLength: count }),
          links: fc.array(fc.tuple(fc.nat(count - 1), fc.nat(count - 1)), { maxLength: count * 3 }),
          direction: fc.constantFrom("RIGHT" as const, "DOWN" as const),
          maxBreadth: fc.integer({ min: 50, max: 3000 }),
          sinksLast: fc.boolean(),
        }),
      );
    fc.assert(
      fc.property(graphs, ({ sizes, links, direction, maxBreadth, sinksLast }) => {
        const nodes = sizes.map((size, i) => ({ id: `n${i}`, ...size }));
        const edges = links.map(([from, to]) => ({ from: `n${from}`, to: `n${to}` }));
        assertWellFormed({ nodes, edges }, layered(nodes, edges, { direction, maxBreadth, sinksLast }));
      }),
      { numRuns: 300, seed: 20261203 },
    );
  });

  test("a graph with an edge to a node it does not have, or none at all, still lays out", () => {
    const empty = layered([], [], { direction: "RIGHT", maxBreadth: 500 });
    assert.equal(empty.nodes.size, 0);
    const one = layered([{ id: "a", width: 80, height: 38 }], [{ from: "a", to: "missing" }, { from: "a", to: "a" }], { direction: "DOWN", maxBreadth: 500 });
    assert.equal(one.nodes.size, 1);
    assert.equal(one.edges.length, 1, "the self-mention only");
  });
});

describe("the shape of the panel", () => {
  const cases: readonly { readonly name: string; readonly panel: Panel; readonly direction?: "RIGHT" | "DOWN" }[] = [
    { name: "a side panel beside the editor", panel: { width: 460, height: 760 }, direction: "DOWN" },
    { name: "a narrow side panel", panel: { width: 360, height: 800 }, direction: "DOWN" },
    { name: "the editor area", panel: { width: 1400, height: 760 } },
    { name: "a short, wide panel", panel: { width: 1200, height: 420 } },
    { name: "a wide panel of middle height", panel: { width: 800, height: 420 }, direction: "RIGHT" },
  ];
  for (const { name, panel, direction } of cases) {
    test(`examples/ in ${name} (${panel.width}×${panel.height}): ${direction === "DOWN" ? "rows, " : direction === "RIGHT" ? "columns, " : ""}whole and legible`, () => {
      const layout = arrange(examples, measure, panel);
      if (direction) assert.equal(layout.direction, direction);
      const scale = fitScale(layout, panel);
      assert.ok(scale >= READABLE_SCALE, `fitted at ${scale.toFixed(2)}: captions of ${(12 * scale).toFixed(1)} px`);
      assertWellFormed(examples, layout);
    });
  }
});

test("examples/ in a very narrow panel (240×600): too long to fit legibly, so it fits across and is read top to bottom", () => {
  const panel = { width: 240, height: 600 };
  const layout = arrange(examples, measure, panel);
  assert.equal(layout.direction, "DOWN");
  assert.ok(fitScale(layout, panel) < READABLE_SCALE, "the whole graph does not fit legibly");
  assert.ok(layout.width * READABLE_SCALE <= panel.width, `legible, it is ${Math.round(layout.width * READABLE_SCALE)} px wide`);
});

describe("the focus card", () => {
  const rows = (handle: string) => {
    const focus = closure(examples, `skill:${handle}`);
    return Object.fromEntries(expansionRows(examples, focus).map((row) => [row.label, row.values.length > 0 ? row.values.map((value) => value.text).join(", ") : row.empty]));
  };

  test("@search-info binds its four tools and goes through @fetch-file, never through itself", () => {
    assert.deepEqual(rows("search-info"), { Binds: "check_notebook, list_devices, find_file, grep_memory", Through: "@fetch-file" });
  });

  test("a skill that mentions only tools goes through no other skill", () => {
    assert.deepEqual(rows("check-schedule"), { Binds: "current_date, queryCalendar", Through: "no other skill" });
  });

  test("a skill on a cycle lists the others on its way, not itself; a self-mention adds nothing", () => {
    assert.deepEqual(rows("follow-up"), { Binds: "current_date, check_notebook, grep_memory", Through: "@triage-inbox" });
    assert.deepEqual(rows("retry-search"), { Binds: "grep_memory", Through: "no other skill" });
  });

  test("a focused tool binds itself and has no Through row", () => {
    const focus = closure(examples, "tool:calendar");
    assert.deepEqual(expansionRows(examples, focus).map((row) => [row.label, row.values.map((value) => value.text)]), [["Binds", ["queryCalendar"]]]);
  });

  test("disabled skills and unknown mentions get rows of their own", () => {
    const namespace = new Namespace();
    namespace.setSkill("file:///ws/top.skill.md", "Use @off then @nowhere and @calendar.");
    namespace.setSkill("file:///ws/off.skill.md", "---\nenabled: false\n---\nUse @find-file.");
    const graph = buildGraph(namespace);
    const card = expansionRows(graph, closure(graph, "skill:top")).map((row) => [row.label, row.values.map((value) => `${value.text} (${value.kind})`)]);
    assert.deepEqual(card, [
      ["Binds", ["queryCalendar (tool)"]],
      ["Through", []],
      ["Disabled", ["@off (disabled)"]],
      ["Unknown", ["@nowhere (ghost)"]],
    ]);
  });
});

describe("the layout the extension keeps for a panel opened again", () => {
  test("survives JSON unchanged: every box, every edge's points, the panel it was made for", () => {
    const graph = buildGraph(generatedNamespace(100));
    const layout = arrange(graph, measure, { width: 421, height: 800 });
    const restored = restoreLayout(JSON.parse(JSON.stringify(storeLayout(layout))));
    assert.deepEqual([...restored.nodes.entries()], [...layout.nodes.entries()]);
    assert.deepEqual(restored.edges, layout.edges);
    assert.deepEqual({ ...restored, nodes: undefined }, { ...layout, nodes: undefined });
    assertWellFormed(graph, restored);
    // It is used only for a panel of about the same shape.
    assert.equal(panelChanged(restored, { width: 430, height: 790 }), false);
    assert.equal(panelChanged(restored, { width: 1182, height: 800 }), true);
  });
});

