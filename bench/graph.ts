/**
 * The skill graph's layout engines, side by side on the same graphs in Node: the panel's own layered layout
 * (media/graph/src/layout.ts, the code the page runs), ELK's layered algorithm with the options the panel used
 * before and with its defaults, and dagre when one is given. For each: the time (median of the rounds, after a
 * warm-up), and how legible the whole drawing is when fitted into a side panel (460 × 800) and into the editor
 * area (1400 × 800): the caption size on screen at that zoom, 12 px captions being drawn at 12 px at zoom 1.
 *
 *     node --import tsx bench/graph.ts [--sizes 17,100,1000] [--rounds 5] [--elk-max 1000] [--dagre DIR] [--json]
 *
 * 17 is examples/; any other size is a generated namespace (test/fixtures/skillGraph.ts). `--dagre` names a
 * folder that holds the `@dagrejs/dagre` package (it is not a dependency of this project), e.g. after
 * `npm i --prefix /tmp/dagre @dagrejs/dagre@3.1.3`: `--dagre /tmp/dagre/node_modules/@dagrejs/dagre`.
 * `npm run bench` runs this after the server's figures (`--no-graph` skips it, `--graph` runs it alone).
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import ELK from "elkjs/lib/elk.bundled.js";
import type { ElkExtendedEdge, ElkNode, LayoutOptions } from "elkjs/lib/elk-api.js";
import { buildGraph, type GraphData } from "../server/src/core/graph.js";
import { arrange, nodeBoxes, type Panel } from "../media/graph/src/layout.js";
import { generatedNamespace } from "../test/fixtures/skillGraph.js";
import { loadExamples, workspace } from "../test/unit/helpers.js";

/** About what 12 px sans-serif measures (there is no canvas in Node); every engine gets the same boxes. */
const measure = (text: string, bold: boolean) => text.length * (bold ? 7.4 : 6.6);
const SIDE: Panel = { width: 460, height: 800 };
const EDITOR: Panel = { width: 1400, height: 800 };
const FONT = 12;

export interface GraphBenchRow {
  readonly engine: string;
  readonly size: string;
  readonly nodes: number;
  readonly edges: number;
  /** Median over the rounds, in milliseconds; undefined when the engine was not run at this size. */
  readonly ms: number | undefined;
  /** Caption height on screen when the whole drawing is fitted (at most 1.25×), side panel and editor area. */
  readonly sidePx: number | undefined;
  readonly editorPx: number | undefined;
  readonly note?: string;
}

interface Engine {
  readonly name: string;
  /** Lays the graph out for a panel; returns the drawing's size. */
  layout(graph: GraphData, panel: Panel): Promise<{ readonly width: number; readonly height: number }>;
  readonly limit: number;
}

function captionPixels(drawing: { readonly width: number; readonly height: number }, panel: Panel): number {
  const scale = Math.min(1.25, Math.min(panel.width / Math.max(drawing.width, 1), panel.height / Math.max(drawing.height, 1)) * 0.95);
  return Math.round(FONT * scale * 10) / 10;
}

/** The ELK options the panel used up to this change: the full pipeline to 200 nodes, linear-time choices above. */
function elkPanelOptions(nodes: number): LayoutOptions {
  const base: LayoutOptions = {
    "elk.algorithm": "layered",
    "elk.direction": "RIGHT",
    "elk.spacing.nodeNode": "14",
    "elk.layered.spacing.nodeNodeBetweenLayers": "56",
    "elk.padding": "[top=16,left=16,bottom=16,right=16]",
  };
  if (nodes <= 200) return { ...base, "elk.edgeRouting": "ORTHOGONAL", "elk.layered.nodePlacement.strategy": "NETWORK_SIMPLEX" };
  return {
    ...base,
    "elk.edgeRouting": "POLYLINE",
    "elk.layered.layering.strategy": "STRETCH_WIDTH",
    "elk.layered.nodePlacement.strategy": "SIMPLE",
    "elk.layered.thoroughness": "1",
    "elk.layered.crossingMinimization.greedySwitch.type": "OFF",
    "elk.separateConnectedComponents": "false",
  };
}

function elkEngine(name: string, options: (nodes: number) => LayoutOptions, limit: number): Engine {
  const elk = new ELK();
  return {
    name,
    limit,
    async layout(graph) {
      const children: ElkNode[] = nodeBoxes(graph, measure).map((box) => ({ id: box.id, width: box.width, height: box.height }));
      const edges: ElkExtendedEdge[] = graph.edges.map((edge, i) => ({ id: `e${i}`, sources: [edge.from], targets: [edge.to] }));
      const result: ElkNode = await elk.layout({ id: "root", layoutOptions: options(graph.nodes.length), children, edges });
      return { width: result.width ?? 0, height: result.height ?? 0 };
    },
  };
}

interface DagreGraph {
  setGraph(label: object): void;
  setDefaultEdgeLabel(label: () => object): void;
  setNode(id: string, label: object): void;
  setEdge(from: string, to: string): void;
  graph(): { width?: number; height?: number };
}
interface Dagre {
  graphlib: { Graph: new (options?: object) => DagreGraph };
  layout(graph: DagreGraph): void;
}

function dagreEngine(folder: string, ranker: string, limit: number): Engine {
  const dagre = createRequire(path.join(path.resolve(folder), "package.json"))(path.resolve(folder)) as Dagre;
  return {
    name: `dagre (${ranker})`,
    limit,
    async layout(graph) {
      const g = new dagre.graphlib.Graph({ multigraph: false });
      g.setGraph({ rankdir: "LR", nodesep: 14, ranksep: 56, ranker, marginx: 16, marginy: 16 });
      g.setDefaultEdgeLabel(() => ({}));
      for (const box of nodeBoxes(graph, measure)) g.setNode(box.id, { width: box.width, height: box.height });
      for (const edge of graph.edges) g.setEdge(edge.from, edge.to);
      dagre.layout(g);
      return { width: g.graph().width ?? 0, height: g.graph().height ?? 0 };
    },
  };
}

const ours: Engine = {
  name: "layered, this project's (the panel's)",
  limit: Infinity,
  // Shaped for the panel it is fitted into, as the page does.
  async layout(graph, panel) {
    return arrange(graph, measure, panel);
  },
};

function graphOf(size: number): { readonly label: string; readonly graph: GraphData } {
  if (size === 17) return { label: "examples/", graph: buildGraph(workspace(loadExamples())) };
  return { label: `${size.toLocaleString("en-US")} skills`, graph: buildGraph(generatedNamespace(size)) };
}

async function timeEngine(engine: Engine, graph: GraphData, rounds: number): Promise<{ ms: number; sidePx: number; editorPx: number }> {
  // The time is for the editor area; the side panel's layout is laid out once more for its legibility.
  await engine.layout(graph, EDITOR);
  const times: number[] = [];
  let drawing = { width: 0, height: 0 };
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    drawing = await engine.layout(graph, EDITOR);
    times.push(performance.now() - started);
  }
  const side = await engine.layout(graph, SIDE);
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)] ?? 0, sidePx: captionPixels(side, SIDE), editorPx: captionPixels(drawing, EDITOR) };
}

export interface GraphBenchOptions {
  readonly sizes: readonly number[];
  readonly rounds: number;
  /** ELK and dagre run up to this many skills (they take seconds to minutes beyond). */
  readonly otherMax: number;
  readonly dagre: string | undefined;
}

export async function runGraphBench(options: GraphBenchOptions, log: (line: string) => void = () => undefined): Promise<GraphBenchRow[]> {
  const engines: Engine[] = [ours, elkEngine("ELK layered, the panel's former options", elkPanelOptions, options.otherMax), elkEngine("ELK layered, its defaults", () => ({ "elk.algorithm": "layered", "elk.direction": "RIGHT" }), Math.min(options.otherMax, 1000))];
  if (options.dagre) engines.push(dagreEngine(options.dagre, "longest-path", options.otherMax), dagreEngine(options.dagre, "network-simplex", Math.min(options.otherMax, 100)));
  const rows: GraphBenchRow[] = [];
  for (const size of options.sizes) {
    const { label, graph } = graphOf(size);
    for (const engine of engines) {
      const base = { engine: engine.name, size: label, nodes: graph.nodes.length, edges: graph.edges.length };
      if (size > engine.limit) {
        rows.push({ ...base, ms: undefined, sidePx: undefined, editorPx: undefined, note: `not run above ${engine.limit.toLocaleString("en-US")} skills` });
        continue;
      }
      log(`graph: ${label}, ${engine.name}…`);
      // Seconds per layout at scale: fewer rounds there.
      const rounds = size >= 1000 && engine !== ours ? 1 : options.rounds;
      rows.push({ ...base, ...(await timeEngine(engine, graph, rounds)) });
    }
  }
  return rows;
}

export function formatGraphBench(rows: readonly GraphBenchRow[]): string[] {
  const out = ["== the skill graph's layout in Node (median ms; caption px on screen when the whole drawing is fitted: side panel 460×800 / editor 1400×800) =="];
  const ms = (value: number | undefined) => (value === undefined ? "—" : value < 10 ? `${value.toFixed(1)} ms` : value < 10_000 ? `${Math.round(value).toLocaleString("en-US")} ms` : `${(value / 1000).toFixed(1)} s`);
  out.push(`${"graph (nodes)".padEnd(22)}${"engine".padEnd(42)}${"time".padStart(12)}${"side px".padStart(10)}${"editor px".padStart(11)}`);
  for (const row of rows) {
    out.push(`${`${row.size} (${row.nodes.toLocaleString("en-US")})`.padEnd(22)}${row.engine.padEnd(42)}${ms(row.ms).padStart(12)}${(row.sidePx?.toFixed(1) ?? "—").padStart(10)}${(row.editorPx?.toFixed(1) ?? "—").padStart(11)}${row.note ? `   ${row.note}` : ""}`);
  }
  const target = (nodes: number, limit: number) => {
    const row = rows.find((candidate) => candidate.engine === ours.name && Math.abs(candidate.nodes - nodes) / nodes < 0.1);
    return row?.ms === undefined ? "not measured" : `${ms(row.ms)}: ${row.ms < limit ? "holds" : "MISSED"}`;
  };
  out.push(`target: 100 skills < 300 ms: ${target(106, 300)}; 1,000 skills < 3 s: ${target(1006, 3000)} (in Node; the page's own figures: test/e2e/ui/graph-layout-bench.mjs)`);
  return out;
}

function parse(argv: readonly string[]): GraphBenchOptions & { readonly json: boolean } {
  let sizes = [17, 100, 1000];
  let rounds = 5;
  let otherMax = 1000;
  let dagre: string | undefined;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--sizes") sizes = (argv[++i] ?? "").split(",").map(Number);
    else if (arg === "--rounds") rounds = Number(argv[++i]);
    else if (arg === "--elk-max") otherMax = Number(argv[++i]);
    else if (arg === "--dagre") dagre = argv[++i];
    else if (arg === "--json") json = true;
    else throw new Error(`Unknown argument ${arg}. Options: --sizes 17,100,1000 --rounds N --elk-max N --dagre DIR --json`);
  }
  if (sizes.some((size) => !Number.isInteger(size) || size < 1)) throw new Error("--sizes wants whole numbers, comma-separated (17 is examples/).");
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds wants a whole number of at least 1.");
  return { sizes, rounds, otherMax, dagre, json };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) {
  (async () => {
    const options = parse(process.argv.slice(2));
    const rows = await runGraphBench(options, (line) => process.stderr.write(`${line}\n`));
    console.log(options.json ? JSON.stringify(rows, null, 2) : formatGraphBench(rows).join("\n"));
  })().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 2;
  });
}
