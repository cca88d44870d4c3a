/**
 * From graph data to ELK's layered layout and back: node boxes sized from their captions, options chosen by
 * the graph's size, and the result as plain positions and polylines. No DOM here, so the benchmark runs the
 * very same code in Node.
 */
import type { ELK, ElkExtendedEdge, ElkNode, LayoutOptions } from "elkjs/lib/elk-api.js";
import type { GraphData, GraphNode } from "../../../server/src/core/graph.js";

export const NODE_HEIGHT = 38;
const PADDING_X = 12;
const MIN_WIDTH = 72;

/** Above this many nodes the layout trades some polish for time: ELK's layered defaults are superlinear. */
export const LARGE_GRAPH = 200;
/** Above this many nodes the layering is the fastest ELK has (longest path), whatever the drawing's shape. */
export const HUGE_GRAPH = 3000;

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface PlacedNode {
  readonly id: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface RoutedEdge {
  /** Index into the graph's edges. */
  readonly index: number;
  readonly points: readonly Point[];
}

export interface Layout {
  readonly nodes: ReadonlyMap<string, PlacedNode>;
  readonly edges: readonly RoutedEdge[];
  readonly width: number;
  readonly height: number;
  readonly milliseconds: number;
}

/** A node's two lines: `@handle`, then what it is (tool name, menu price, state). */
export function captionOf(node: GraphNode): readonly [string, string] {
  const price = node.menu ? `menu ${node.menu.label.replace(" tokens", " tok")}` : "";
  if (node.kind === "tool") return [`@${node.slug}`, [node.toolName ?? "", price].filter(Boolean).join(" · ")];
  if (node.kind === "ghost") return [`@${node.slug}`, "unknown"];
  const state = node.problem === "duplicate" ? "duplicate handle" : node.problem === "tool-collision" ? "named like a tool" : !node.enabled ? "disabled" : !node.advertised ? "not advertised" : "";
  return [`@${node.slug}`, price || state || "off the menu"];
}

/** ELK's options for a graph of this size: the full layered pipeline when small, its linear-time choices when large. */
export function layoutOptions(nodeCount: number): LayoutOptions {
  const base: LayoutOptions = {
    "elk.algorithm": "layered",
    "elk.direction": "RIGHT",
    "elk.spacing.nodeNode": "14",
    "elk.layered.spacing.nodeNodeBetweenLayers": "56",
    "elk.spacing.edgeNode": "10",
    "elk.layered.spacing.edgeNodeBetweenLayers": "14",
    "elk.spacing.componentComponent": "28",
    "elk.padding": "[top=16,left=16,bottom=16,right=16]",
  };
  if (nodeCount <= LARGE_GRAPH) return { ...base, "elk.edgeRouting": "ORTHOGONAL", "elk.layered.nodePlacement.strategy": "NETWORK_SIMPLEX" };
  return {
    ...base,
    "elk.edgeRouting": "POLYLINE",
    // Stretch-width layering spreads a thousand skills that only mention tools over several layers instead of
    // one column 30,000 pixels tall; above a few thousand nodes longest-path layering is the faster one.
    "elk.layered.layering.strategy": nodeCount <= HUGE_GRAPH ? "STRETCH_WIDTH" : "LONGEST_PATH",
    "elk.layered.nodePlacement.strategy": "SIMPLE",
    "elk.layered.thoroughness": "1",
    "elk.layered.crossingMinimization.greedySwitch.type": "OFF",
    "elk.separateConnectedComponents": "false",
  };
}

/** The ELK graph: one child per node, sized by `measure` (the caption's width in pixels). */
export function toElk(graph: GraphData, measure: (text: string, bold: boolean) => number): ElkNode {
  const children: ElkNode[] = graph.nodes.map((node) => {
    const [first, second] = captionOf(node);
    const width = Math.max(MIN_WIDTH, Math.ceil(Math.max(measure(first, true), measure(second, false))) + 2 * PADDING_X + (node.kind === "tool" ? 12 : 0));
    return { id: node.id, width, height: NODE_HEIGHT };
  });
  const known = new Set(graph.nodes.map((node) => node.id));
  const edges: ElkExtendedEdge[] = [];
  graph.edges.forEach((edge, index) => {
    if (known.has(edge.from) && known.has(edge.to)) edges.push({ id: `e${index}`, sources: [edge.from], targets: [edge.to] });
  });
  return { id: "root", layoutOptions: layoutOptions(graph.nodes.length), children, edges };
}

/** Runs ELK and reads its answer back as positions and polylines. */
export async function layoutGraph(elk: ELK, graph: GraphData, measure: (text: string, bold: boolean) => number): Promise<Layout> {
  const started = performance.now();
  const result = await elk.layout(toElk(graph, measure));
  const milliseconds = performance.now() - started;
  const nodes = new Map<string, PlacedNode>();
  for (const child of result.children ?? []) nodes.set(child.id, { id: child.id, x: child.x ?? 0, y: child.y ?? 0, width: child.width ?? 0, height: child.height ?? 0 });
  const edges: RoutedEdge[] = [];
  for (const edge of (result.edges ?? []) as ElkExtendedEdge[]) {
    const points: Point[] = [];
    for (const section of edge.sections ?? []) {
      points.push(section.startPoint, ...(section.bendPoints ?? []), section.endPoint);
    }
    edges.push({ index: Number(edge.id.slice(1)), points });
  }
  return { nodes, edges, width: result.width ?? 0, height: result.height ?? 0, milliseconds };
}

/**
 * A rough drawing in linear time, shown at once while ELK works on a large graph: each node in the column of
 * its longest path to a tool (back edges of cycles ignored), tall columns wrapped, edges straight. It is
 * replaced by ELK's layout when that arrives.
 */
export function previewLayout(graph: GraphData, measure: (text: string, bold: boolean) => number): Layout {
  const started = performance.now();
  const sizes = new Map((toElk(graph, measure).children ?? []).map((child) => [child.id, child.width ?? MIN_WIDTH]));
  const outgoing = new Map<string, string[]>();
  for (const edge of graph.edges) if (edge.from !== edge.to) outgoing.set(edge.from, [...(outgoing.get(edge.from) ?? []), edge.to]);
  // Depth: the longest path to a node without successors, by an iterative depth-first search.
  const depth = new Map<string, number>();
  const onStack = new Set<string>();
  for (const node of graph.nodes) {
    if (depth.has(node.id)) continue;
    const stack: { readonly id: string; next: number }[] = [{ id: node.id, next: 0 }];
    onStack.add(node.id);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as { readonly id: string; next: number };
      const targets = outgoing.get(frame.id) ?? [];
      if (frame.next < targets.length) {
        const target = targets[frame.next++] as string;
        if (!depth.has(target) && !onStack.has(target)) {
          onStack.add(target);
          stack.push({ id: target, next: 0 });
        }
        continue;
      }
      stack.pop();
      onStack.delete(frame.id);
      let deepest = -1;
      for (const target of targets) deepest = Math.max(deepest, depth.get(target) ?? -1);
      depth.set(frame.id, deepest + 1);
    }
  }
  const maxDepth = Math.max(0, ...depth.values());
  const columns: string[][] = Array.from({ length: maxDepth + 1 }, () => []);
  for (const node of graph.nodes) columns[maxDepth - (depth.get(node.id) ?? 0)]?.push(node.id);
  const cap = Math.max(24, Math.ceil(Math.sqrt(graph.nodes.length) * 1.5));
  const nodes = new Map<string, PlacedNode>();
  let x = 16;
  let height = 0;
  const placed: { readonly ids: string[]; readonly x: number }[] = [];
  for (const column of columns) {
    for (let start = 0; start < column.length; start += cap) {
      const ids = column.slice(start, start + cap);
      const width = Math.max(...ids.map((id) => sizes.get(id) ?? MIN_WIDTH));
      placed.push({ ids, x });
      height = Math.max(height, ids.length * (NODE_HEIGHT + 14));
      x += width + 24;
    }
    x += 56;
  }
  for (const { ids, x: left } of placed) {
    const top = 16 + (height - ids.length * (NODE_HEIGHT + 14)) / 2;
    ids.forEach((id, i) => nodes.set(id, { id, x: left, y: top + i * (NODE_HEIGHT + 14), width: sizes.get(id) ?? MIN_WIDTH, height: NODE_HEIGHT }));
  }
  const edges: RoutedEdge[] = [];
  graph.edges.forEach((edge, index) => {
    const from = nodes.get(edge.from);
    const to = nodes.get(edge.to);
    if (from && to) edges.push({ index, points: [{ x: from.x + from.width, y: from.y + from.height / 2 }, { x: to.x, y: to.y + to.height / 2 }] });
  });
  return { nodes, edges, width: x, height: height + 32, milliseconds: performance.now() - started };
}
