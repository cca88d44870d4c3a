/**
 * From graph data to a drawing that fits the panel: node boxes sized from their captions, then the layered
 * layout (layered.ts) in the direction and with the layer width that let the whole graph show at the largest
 * zoom. A narrow, tall panel gets rows read top to bottom, a wide one columns read left to right, and a layer
 * wider than the panel wraps. No DOM here, so the benchmark and the unit tests run the very same code.
 */
import type { GraphData, GraphNode } from "../../../server/src/core/graph.js";
import { layeredSteps, type Direction, type LayeredEdge, type LayeredLayout, type LayeredNode, type PlacedNode } from "./layered.js";

export type { Direction, PlacedNode, Point, RoutedEdge } from "./layered.js";

export const NODE_HEIGHT = 38;
const PADDING_X = 12;
const MIN_WIDTH = 72;
/** Captions are drawn at this size in the layout's own pixels. */
export const FONT_SIZE = 12;
/** Captions show only at a zoom where they are at least 10 px tall on screen; below it boxes turn into solid marks. */
export const READABLE_SCALE = 10 / FONT_SIZE;
/** Below this zoom (9 px captions on screen) the boxes carry no captions. */
export const CAPTION_SCALE = 9 / FONT_SIZE;
/** The largest zoom a fit uses: a small graph in a big panel is not blown up. */
export const LARGEST_FIT = 1.25;
/** Up to this many nodes every direction and several layer widths are tried, and the best fit is kept. */
export const SEARCHED_GRAPH = 200;

export interface Panel {
  readonly width: number;
  readonly height: number;
}

export interface Layout extends LayeredLayout {
  readonly milliseconds: number;
  /** The panel the layout was made for. */
  readonly panel: Panel;
}

/** A node's two lines: `@handle`, then what it is (tool name, menu price, state). */
export function captionOf(node: GraphNode): readonly [string, string] {
  const price = node.menu ? `menu ${node.menu.label.replace(" tokens", " tok")}` : "";
  if (node.kind === "tool") return [`@${node.slug}`, [node.toolName ?? "", price].filter(Boolean).join(" · ")];
  if (node.kind === "ghost") return [`@${node.slug}`, "unknown"];
  const state = node.problem === "duplicate" ? "duplicate handle" : node.problem === "tool-collision" ? "named like a tool" : !node.enabled ? "disabled" : !node.advertised ? "not advertised" : "";
  return [`@${node.slug}`, price || state || "off the menu"];
}

/** Each node's box: as wide as its longer caption line (`measure` gives a text's width in pixels). */
export function nodeBoxes(graph: GraphData, measure: (text: string, bold: boolean) => number): LayeredNode[] {
  return graph.nodes.map((node) => {
    const [first, second] = captionOf(node);
    const width = Math.max(MIN_WIDTH, Math.ceil(Math.max(measure(first, true), measure(second, false))) + 2 * PADDING_X + (node.kind === "tool" ? 12 : 0));
    return { id: node.id, width, height: NODE_HEIGHT };
  });
}

function edgesOf(graph: GraphData): LayeredEdge[] {
  return graph.edges.map((edge) => ({ from: edge.from, to: edge.to }));
}

/** The zoom at which a layout fills the panel (5% margin), at most LARGEST_FIT. */
export function fitScale(layout: { readonly width: number; readonly height: number }, panel: Panel): number {
  return Math.min(LARGEST_FIT, (Math.min(panel.width / Math.max(layout.width, 1), panel.height / Math.max(layout.height, 1)) * 0.95));
}

/**
 * The candidates to try: for a small graph both directions at several layer widths (the panel's breadth at
 * zooms from 2 down to 0.4; up to 40 nodes also with each tool just below its mentioners); for a large one the
 * direction of the panel's longer side, with layers as wide as make the drawing's shape the panel's.
 */
function candidates(boxes: readonly LayeredNode[], panel: Panel): { readonly direction: Direction; readonly maxBreadth: number; readonly sinksLast: boolean }[] {
  const breadthOf = (direction: Direction) => (direction === "DOWN" ? panel.width : panel.height);
  const depthOf = (direction: Direction) => (direction === "DOWN" ? panel.height : panel.width);
  if (boxes.length <= SEARCHED_GRAPH) {
    const list: { direction: Direction; maxBreadth: number; sinksLast: boolean }[] = [];
    // Past 80 nodes no draft fits a panel legibly, and the two middle widths are the ones chosen (bench/graph.ts).
    const zooms = boxes.length <= 40 ? [2, 1.6, 1.25, 1, 0.85, 0.7, 0.55, 0.4] : boxes.length <= 80 ? [1.25, 1, 0.8, 0.5] : [1, 0.8];
    for (const direction of ["RIGHT", "DOWN"] as const) {
      for (const sinksLast of boxes.length <= 40 ? [true, false] : [true]) for (const zoom of zooms) list.push({ direction, sinksLast, maxBreadth: (breadthOf(direction) * 0.95) / zoom });
    }
    return list;
  }
  const direction: Direction = panel.width >= panel.height ? "RIGHT" : "DOWN";
  // A layer's share of the drawing's area: boxes with their spacing, and as much again for the space between layers.
  let area = 0;
  for (const box of boxes) area += (box.width + 14) * (box.height + 14) * 2;
  const aspect = breadthOf(direction) / Math.max(depthOf(direction), 1);
  return [{ direction, sinksLast: true, maxBreadth: Math.max(breadthOf(direction), Math.sqrt(area * aspect)) }];
}

/** Lays the graph out for the panel, in steps (the page runs them between frames); see `candidates`. */
export function* arrangeSteps(graph: GraphData, measure: (text: string, bold: boolean) => number, panel: Panel): Generator<void, Layout> {
  const started = performance.now();
  const boxes = nodeBoxes(graph, measure);
  const edges = edgesOf(graph);
  let best: LayeredLayout | undefined;
  let bestCandidate: ReturnType<typeof candidates>[number] | undefined;
  let bestScore = -Infinity;
  const list = candidates(boxes, panel);
  for (const candidate of list) {
    // Several candidates are compared on drafts (two sweeps, two placement passes, only their extent and
    // crossings); the winner is then laid out in full.
    const layout: LayeredLayout = yield* layeredSteps(boxes, edges, list.length > 1 ? { ...candidate, sweeps: 2, placementPasses: 2, extentOnly: true } : candidate);
    // The largest zoom wins; among layouts that fit at full size, the one with fewer crossings, then tools in one
    // layer, then the one along the panel's longer side. When none fits legibly (the view then holds captions at
    // READABLE_SCALE and the rest is dragged to), one that fits across the panel at that zoom, so that it is
    // dragged one way only, and the fewest panels long.
    const fit = fitScale(layout, panel);
    const down = layout.direction === "DOWN";
    const across = (down ? layout.width : layout.height) * READABLE_SCALE <= (down ? panel.width : panel.height);
    const panels = ((down ? layout.height : layout.width) * READABLE_SCALE) / Math.max(down ? panel.height : panel.width, 1);
    const alongLonger = down === panel.height > panel.width;
    // Dragged, it goes along the panel's longer side unless the other way is three panels shorter.
    const legibility = fit >= READABLE_SCALE ? fit : -1 + (across ? 0.5 : 0) - Math.min(panels, 9) * 0.05 + (alongLonger ? 0.15 : 0);
    const score = legibility - layout.crossings * 0.002 + (candidate.sinksLast ? 0.02 : 0) + (alongLonger ? 0.01 : 0);
    if (score > bestScore) {
      best = layout;
      bestCandidate = candidate;
      bestScore = score;
    }
  }
  if (list.length > 1 && bestCandidate) best = yield* layeredSteps(boxes, edges, bestCandidate);
  const layout = best ?? { direction: "RIGHT", nodes: new Map(), edges: [], width: 0, height: 0, layers: 0, dummies: 0, crossings: 0 };
  return { ...layout, milliseconds: performance.now() - started, panel };
}

/** `arrangeSteps` run to the end. */
export function arrange(graph: GraphData, measure: (text: string, bold: boolean) => number, panel: Panel): Layout {
  const steps = arrangeSteps(graph, measure, panel);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** True when the panel changed enough since the layout was made that another shape would fit it better. */
export function panelChanged(layout: Layout, panel: Panel): boolean {
  const ratio = (a: number, b: number) => Math.max(a, b) / Math.max(Math.min(a, b), 1);
  return ratio(layout.panel.width, panel.width) > 1.15 || ratio(layout.panel.height, panel.height) > 1.15;
}

/** A layout as JSON can carry it (the extension keeps the last one, so that a panel opened again draws at once). */
export interface StoredLayout extends Omit<Layout, "nodes"> {
  readonly nodes: readonly PlacedNode[];
}

export function storeLayout(layout: Layout): StoredLayout {
  return { ...layout, nodes: [...layout.nodes.values()] };
}

export function restoreLayout(stored: StoredLayout): Layout {
  return { ...stored, nodes: new Map(stored.nodes.map((node) => [node.id, node])) };
}
