/**
 * The graph panel's page: draws the namespace on a canvas in the editor's theme, laid out to the panel's shape
 * (layout.ts, in slices between frames, so a thousand skills never freeze the page), and focuses one skill's
 * expansion. Every text from the workspace is shown with textContent or on the canvas, never parsed as HTML.
 */
import { closure, subgraph, type Closure, type GraphData, type GraphNode } from "../../../server/src/core/graph.js";
import { countOf } from "../../../shared/words.js";
import { expansionRows } from "./card.js";
import { arrangeSteps, restoreLayout, storeLayout, type StoredLayout, CAPTION_SCALE, captionOf, FONT_SIZE, fitScale, panelChanged, READABLE_SCALE, SEARCHED_GRAPH, type Direction, type Layout, type Panel, type PlacedNode, type Point, type RoutedEdge } from "./layout.js";

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

type FocusTarget = { readonly handle: string } | { readonly uri: string } | null;
/** The last overview layout a page made, kept by the extension: valid for the same graph, font and panel shape. */
interface KeptLayout {
  readonly signature: string;
  readonly font: string;
  readonly layout: StoredLayout;
}
type Inbound = { readonly kind: "graph"; readonly graph: GraphData & { readonly signature: string }; readonly kept?: KeptLayout } | { readonly kind: "focus"; readonly target: FocusTarget; readonly request: number };

/** When this script began, in ms since the page began loading (the panel's opening). */
const scriptStarted = performance.now();
const vscode = acquireVsCodeApi();
const canvas = document.getElementById("canvas") as HTMLCanvasElement;
const mainArea = document.querySelector("main") as HTMLElement;
const context = canvas.getContext("2d") as CanvasRenderingContext2D;
const search = document.getElementById("search") as HTMLInputElement;
const handles = document.getElementById("handles") as HTMLDataListElement;
const stats = document.getElementById("stats") as HTMLElement;
const status = document.getElementById("status") as HTMLElement;
const details = document.getElementById("details") as HTMLElement;
const tooltip = document.getElementById("tooltip") as HTMLElement;
const showAll = document.getElementById("all") as HTMLButtonElement;
const fit = document.getElementById("fit") as HTMLButtonElement;

const COLOURS = { skill: "#E8912D", tool: "#3794FF", ghost: "#F14C4C", cycle: "#C586C0" } as const;

// ---- State ----
let graph: (GraphData & { readonly signature: string }) | undefined;
let structure = "";
/** What is on screen: the whole graph, or one node's closure. */
let shown: { readonly data: GraphData; readonly layout: Layout; readonly focus: Closure | undefined } | undefined;
let overview: Layout | undefined;
let overviewStatus = "";
/** True while the overview is the layout kept from when the panel last showed this graph. */
let overviewFromBefore = false;
let focusId: string | undefined;
/** The extension's last focus request, echoed in each report. */
let focusRequest = 0;
let hovered: string | undefined;
let selected: string | undefined;
const view = { x: 0, y: 0, scale: 1 };
/** True until the user pans or zooms: a resized panel then fits the graph again. */
let fitted = true;
let theme = readTheme();

// ---- How long the first drawing took, phase by phase (for the benchmark and the UI tests) ----
/** Milliseconds since the page began loading: the graph's arrival, then the first layout's end; drawn and painted follow. */
const firstDrawing: { received?: number; laidOut?: number; pending: boolean; done: boolean } = { pending: false, done: false };

/** Called after a frame was drawn: the first overview's phases go on the canvas once that frame is on screen. */
function recordFirstDrawing(): void {
  if (!firstDrawing.pending || firstDrawing.done) return;
  firstDrawing.done = true;
  const drawn = performance.now();
  void nextTask().then(() => {
    const painted = performance.now();
    canvas.dataset.phases = JSON.stringify({ script: Math.round(scriptStarted), received: Math.round(firstDrawing.received ?? 0), laidOut: Math.round(firstDrawing.laidOut ?? 0), drawn: Math.round(drawn), painted: Math.round(painted) });
    // The wall-clock time of the first painted graph, comparable with the time a harness opened the panel at.
    canvas.dataset.paintedAt = String(Math.round(performance.timeOrigin + painted));
    canvas.dataset.shownMs = String(Math.round(painted));
  });
}

// ---- Layout, in slices between frames ----
/** How long one slice of layout work may hold the page before it lets a frame through. */
const SLICE_MS = 12;
/**
 * The same before anything is on screen: no drawing is being panned or zoomed, and input is still answered within
 * 50 ms. Each slice let a frame through: at 12 ms a first layout of 100 skills took the page 120-190 ms rather
 * than 70-110 ms unsliced.
 */
const FIRST_SLICE_MS = 48;

/** Resolves on the next turn of the event loop, after rendering and input had their chance (no timer clamping). */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(undefined);
  });
}

/** One layout at a time per purpose (the whole graph; a focused closure): a new run abandons the one before it. */
class LayoutRunner {
  #run = 0;

  async layout(data: GraphData, panel: Panel): Promise<Layout | undefined> {
    const run = ++this.#run;
    const steps = arrangeSteps(data, measure, panel);
    for (;;) {
      const deadline = performance.now() + (shown === undefined ? FIRST_SLICE_MS : SLICE_MS);
      let step = steps.next();
      while (!step.done && performance.now() < deadline) step = steps.next();
      if (step.done) return run === this.#run ? step.value : undefined;
      await nextTask();
      if (run !== this.#run) return undefined;
    }
  }
}

/** The drawing area. */
function panelSize(): Panel {
  return { width: Math.max(canvas.clientWidth, 1), height: Math.max(canvas.clientHeight, 1) };
}

/** What a layout is shaped for: the drawing area with the details beside or under it, so that showing them does not reshape the graph. */
function layoutArea(): Panel {
  return { width: Math.max(mainArea.clientWidth, 1), height: Math.max(mainArea.clientHeight, 1) };
}

const overviewRunner = new LayoutRunner();
const focusRunner = new LayoutRunner();

// ---- Theme and text ----
function readTheme() {
  const style = getComputedStyle(document.body);
  const get = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    background: get("--vscode-editor-background", "#1e1e1e"),
    foreground: get("--vscode-editor-foreground", "#cccccc"),
    muted: get("--vscode-descriptionForeground", "#9d9d9d"),
    focus: get("--vscode-focusBorder", "#007fd4"),
    font: style.fontFamily || "sans-serif",
    dark: !document.body.classList.contains("vscode-light"),
  };
}

function font(bold: boolean): string {
  return `${bold ? "600 " : ""}${FONT_SIZE}px ${theme.font}`;
}

const measured = new Map<string, number>();
/** A context of its own for measuring, so that its font changes only between bold and regular, never mid-frame. */
const measuring = document.createElement("canvas").getContext("2d") as CanvasRenderingContext2D;
let measuringFont = "";
function measure(text: string, bold: boolean): number {
  const key = `${bold ? "b" : "r"}${text}`;
  let width = measured.get(key);
  if (width === undefined) {
    // Setting a font parses it: only when it changes.
    const wanted = font(bold);
    if (wanted !== measuringFont) measuring.font = measuringFont = wanted;
    width = measuring.measureText(text).width;
    measured.set(key, width);
  }
  return width;
}

new MutationObserver(() => {
  theme = readTheme();
  measured.clear();
  requestDraw();
}).observe(document.body, { attributes: true, attributeFilter: ["class", "style"] });

// ---- Showing a graph ----
function structureOf(data: GraphData): string {
  return `${data.nodes.map((node) => `${node.id}|${captionOf(node).join("|")}`).join("\n")}\n--\n${data.edges.map((edge) => `${edge.from}>${edge.to}`).join("\n")}`;
}

function nodesById(): Map<string, GraphNode> {
  return new Map((shown?.data ?? graph ?? { nodes: [] }).nodes.map((node) => [node.id, node]));
}

function seconds(milliseconds: number): string {
  return milliseconds < 1000 ? `${Math.round(milliseconds)} ms` : `${(milliseconds / 1000).toFixed(1)} s`;
}

async function receive(next: GraphData & { readonly signature: string }, kept?: KeptLayout): Promise<void> {
  graph = next;
  const skills = next.nodes.filter((node) => node.kind === "skill").length;
  const tools = next.nodes.filter((node) => node.kind === "tool").length;
  const ghosts = next.nodes.filter((node) => node.kind === "ghost").length;
  stats.textContent = [
    countOf(skills, "skill", "skills"),
    countOf(tools, "tool", "tools"),
    countOf(next.cycles.length, "cycle", "cycles"),
    countOf(ghosts, "unknown mention", "unknown mentions"),
    next.menu.planning ? `menu ${next.menu.label}` : "no menu: direct path",
  ].join(" · ");
  stats.title = next.menu.exact ? "Counted with the loaded model's tokenizer." : "Estimated: characters / 4. Load a model for exact counts.";
  if (document.activeElement === search) fillHandles();
  const nextStructure = structureOf(next);
  if (focusId && !next.nodes.some((node) => node.id === focusId)) focusId = undefined;
  if (nextStructure === structure && overview) {
    // Same boxes and lines: keep the layout, restyle.
    await show(false);
    return;
  }
  structure = nextStructure;
  overview = undefined;
  // The layout this graph had when last shown, if it was made for this font and a panel of this shape.
  if (kept && kept.signature === next.signature && kept.font === font(false)) {
    const layout = restoreLayout(kept.layout);
    if (!panelChanged(layout, layoutArea())) {
      overview = layout;
      overviewFromBefore = true;
    }
  }
  await show(!overview);
}

/** The search box's suggestions, made when it is first focused (a thousand options would delay the first drawing). */
let handlesOf: GraphData | undefined;
function fillHandles(): void {
  if (!graph || handlesOf === graph) return;
  handlesOf = graph;
  handles.replaceChildren(
    ...graph.nodes
      .filter((node) => node.kind !== "ghost")
      .map((node) => {
        const option = document.createElement("option");
        option.value = `@${node.slug}`;
        option.label = node.kind === "tool" ? `tool ${node.toolName ?? ""}` : node.title;
        return option;
      }),
  );
}
search.addEventListener("focus", fillHandles);

function directionWords(layout: Layout): string {
  return layout.direction === "DOWN" ? "rows, top to bottom" : "columns, left to right";
}

/** Shows the overview or the focused closure, laying out what needs it (for the panel's current shape). */
async function show(relayout: boolean): Promise<void> {
  const data = graph;
  if (!data) return;
  showAll.hidden = focusId === undefined;
  if (focusId) {
    const focus = closure(data, focusId);
    const part = subgraph(data, focus);
    status.textContent = `Laying out the expansion of @${data.nodes.find((node) => node.id === focusId)?.slug ?? ""}…`;
    const layout = await focusRunner.layout(part, panelSize());
    if (!layout || focusId !== focus.root || graph !== data) return;
    const previous = shown?.focus?.root;
    shown = { data: part, layout, focus };
    if (previous !== focus.root || fitted) fitView();
    status.textContent = `Focused: ${countOf(part.nodes.length, "node", "nodes")}, laid out in ${seconds(layout.milliseconds)} (${directionWords(layout)}).${legibilityNote()}`;
    renderDetails();
    requestDraw();
    report(layout);
    return;
  }
  const size = `${countOf(data.nodes.length, "node", "nodes")} and ${countOf(data.edges.length, "edge", "edges")}`;
  if (!overview || relayout) {
    status.textContent = `Laying out ${size}…`;
    const layout = await overviewRunner.layout(data, layoutArea());
    if (!layout || graph !== data) return;
    overview = layout;
    overviewFromBefore = false;
    vscode.postMessage({ kind: "layout", kept: { signature: data.signature, font: font(false), layout: storeLayout(layout) } satisfies KeptLayout });
    if (!firstDrawing.done) {
      firstDrawing.laidOut = performance.now();
      firstDrawing.pending = true;
    }
    overviewStatus = `${size}, laid out in ${seconds(layout.milliseconds)} (layered: ${directionWords(layout)}).`;
    if (focusId) return;
    const first = shown === undefined || shown.focus !== undefined || fitted;
    shown = { data, layout, focus: undefined };
    if (first) fitView();
  } else {
    const wasFocused = shown?.focus !== undefined;
    const first = shown === undefined;
    shown = { data, layout: overview, focus: undefined };
    if (overviewFromBefore) {
      overviewStatus = `${size}, laid out in ${seconds(overview.milliseconds)} when last shown (layered: ${directionWords(overview)}).`;
      if (!firstDrawing.done) {
        firstDrawing.laidOut = performance.now();
        firstDrawing.pending = true;
      }
    }
    if (wasFocused || first) fitView();
  }
  status.textContent = `${overviewStatus}${legibilityNote()}`;
  renderDetails();
  requestDraw();
  report(overview);
}

/** Said when the fitted view keeps captions legible instead of showing everything. */
function legibilityNote(): string {
  return clipped ? " Drag or zoom out to see the rest." : "";
}

function report(layout: Layout): void {
  vscode.postMessage({
    kind: "rendered",
    nodes: shown?.data.nodes.length ?? 0,
    edges: shown?.data.edges.length ?? 0,
    cycles: shown?.data.cycles.length ?? 0,
    milliseconds: Math.round(layout.milliseconds),
    direction: layout.direction,
    layers: layout.layers,
    crossings: layout.crossings,
    panel: { width: Math.round(layout.panel.width), height: Math.round(layout.panel.height) },
    captionPixels: Math.round(FONT_SIZE * view.scale * 10) / 10,
    captions: view.scale >= CAPTION_SCALE,
    focus: focusId ?? null,
    binds: shown?.focus?.toolNames ?? null,
    request: focusRequest,
  });
}

function focusOn(id: string | undefined): void {
  if (id === focusId) {
    // Asked again: say again what is shown.
    if (shown) report(shown.layout);
    return;
  }
  focusId = id;
  selected = id;
  vscode.setState({ focus: id });
  search.value = id ? `@${graph?.nodes.find((node) => node.id === id)?.slug ?? ""}` : "";
  void show(false).catch(showError);
}

function showError(error: unknown): void {
  status.textContent = `The layout failed: ${error instanceof Error ? error.message : String(error)}`;
  vscode.postMessage({ kind: "error", message: status.textContent });
}

// ---- Details ----
function line(parent: HTMLElement, label: string, values: readonly { readonly text: string; readonly kind?: string }[], empty = "none"): void {
  const row = document.createElement("div");
  row.className = "row";
  const name = document.createElement("span");
  name.className = "label";
  name.textContent = label;
  row.appendChild(name);
  if (values.length === 0) {
    const none = document.createElement("span");
    none.className = "muted";
    none.textContent = empty;
    row.appendChild(none);
  }
  values.forEach((value, i) => {
    const span = document.createElement("span");
    span.className = `handle ${value.kind ?? ""}`;
    span.textContent = `${i > 0 ? ", " : ""}${value.text}`;
    row.appendChild(span);
  });
  parent.appendChild(row);
}

function button(parent: HTMLElement, text: string, onClick: () => void): void {
  const element = document.createElement("button");
  element.textContent = text;
  element.addEventListener("click", onClick);
  parent.appendChild(element);
}

function describe(node: GraphNode): string {
  if (node.kind === "tool") return `Tool ${node.toolName ?? ""}${node.builtin ? " (built in)" : " (declared in skills.json)"}${node.advertised ? ", advertised on the menu" : ""}`;
  if (node.kind === "ghost") return "Unknown: no skill or tool has this handle. It binds nothing.";
  const state = [node.enabled ? "Enabled" : "Disabled (inert: binds nothing)", node.enabled ? (node.advertised ? "advertised" : "not advertised: reachable only through the skills that mention it") : ""].filter(Boolean).join(", ");
  const problem = node.problem === "duplicate" ? " Another skill claims this handle too." : node.problem === "tool-collision" ? " A tool holds this handle." : "";
  return `Skill “${node.title}”. ${state}.${problem}`;
}

function renderDetails(): void {
  details.replaceChildren();
  const byId = new Map((graph?.nodes ?? []).map((node) => [node.id, node]));
  const id = shown?.focus?.root ?? selected;
  const node = id ? byId.get(id) : undefined;
  details.classList.toggle("empty", !node);
  if (!node) return;
  const title = document.createElement("h2");
  title.className = `handle ${node.kind}`;
  title.textContent = `@${node.slug}`;
  details.appendChild(title);
  const about = document.createElement("p");
  about.textContent = describe(node);
  details.appendChild(about);
  if (node.summary) {
    const summary = document.createElement("p");
    summary.className = "summary";
    summary.textContent = node.summary;
    details.appendChild(summary);
  }
  if (node.menu) line(details, "Menu entry", [{ text: `${node.menu.label} (${Math.max(1, Math.round(node.menu.share * 100))}% of the prompt)` }]);
  else if (node.kind === "skill") line(details, "Menu entry", [], "not on the planner's menu");
  if (node.cycle !== undefined) line(details, "On a cycle", (graph?.cycles[node.cycle] ?? []).map((member) => ({ text: `@${byId.get(member)?.slug ?? member}`, kind: "skill" })));
  const focus = shown?.focus;
  if (focus && focus.root === node.id && graph) for (const row of expansionRows(graph, focus)) line(details, row.label, row.values, row.empty);
  const actions = document.createElement("div");
  actions.className = "actions";
  button(actions, node.kind === "ghost" ? "Open the first mention" : "Open", () => vscode.postMessage({ kind: "open", id: node.id }));
  if (focus?.root === node.id) button(actions, "Show all", () => focusOn(undefined));
  else if (node.kind === "skill") button(actions, "Show its expansion", () => focusOn(node.id));
  details.appendChild(actions);
}

// ---- Drawing ----
let frame = 0;
function requestDraw(): void {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    draw();
  });
}

let reshapeTimer: ReturnType<typeof setTimeout> | undefined;
function resize(): void {
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  canvas.width = Math.max(1, Math.round(width * ratio));
  canvas.height = Math.max(1, Math.round(height * ratio));
  if (fitted) fitView();
  requestDraw();
  // A panel of another shape gets a layout of its own once the resizing rests.
  clearTimeout(reshapeTimer);
  reshapeTimer = setTimeout(() => {
    // A focused expansion always shows its card, so it is shaped for the drawing area itself.
    if (!shown || !panelChanged(shown.layout, shown.focus ? panelSize() : layoutArea())) return;
    if (!shown.focus) overview = undefined;
    // A new shape is fitted anew, wherever the view had been moved to.
    fitted = true;
    void show(!shown.focus).catch(showError);
  }, 200);
}
const resizes = new ResizeObserver(resize);
resizes.observe(canvas);
resizes.observe(mainArea);

/** True when the fitted view holds captions at a legible size and so shows only part of the graph. */
let clipped = false;

/**
 * Fits the graph to the panel. A graph of up to SEARCHED_GRAPH nodes is never shrunk below a legible caption
 * size: what does not fit then starts where reading starts (top, left) and is reached by dragging. A larger one
 * is fitted whole; its captions appear as one zooms in.
 */
function fitView(): void {
  const layout = shown?.layout;
  if (!layout) return;
  const panel = panelSize();
  let scale = fitScale(layout, panel);
  clipped = false;
  if (scale < READABLE_SCALE && (shown?.data.nodes.length ?? 0) <= SEARCHED_GRAPH) {
    scale = READABLE_SCALE;
    // Only the fit's margin may be lost: then nothing is hidden.
    clipped = layout.width * scale > panel.width + 1 || layout.height * scale > panel.height + 1;
  }
  view.scale = scale;
  // Along each axis: centred when it fits, from its start when it does not.
  view.x = layout.width * scale <= panel.width ? layout.width / 2 - panel.width / 2 / scale : 0;
  view.y = layout.height * scale <= panel.height ? layout.height / 2 - panel.height / 2 / scale : 0;
  fitted = true;
  requestDraw();
}

/** Each colour with each alpha, made once: every frame asks it of every edge and box (7 ms of a first 100-skill page). */
const withAlphas = new Map<string, string>();
function withAlpha(colour: string, alpha: number): string {
  const key = `${colour} ${alpha}`;
  let rgba = withAlphas.get(key);
  if (rgba === undefined) {
    const hex = colour.replace("#", "");
    const value = hex.length === 3 ? hex.replace(/./g, (c) => c + c) : hex.slice(0, 6);
    rgba = `rgba(${parseInt(value.slice(0, 2), 16)}, ${parseInt(value.slice(2, 4), 16)}, ${parseInt(value.slice(4, 6), 16)}, ${alpha})`;
    withAlphas.set(key, rgba);
  }
  return rgba;
}

function colourOf(node: GraphNode): string {
  if (node.kind === "ghost") return COLOURS.ghost;
  if (node.kind === "tool") return COLOURS.tool;
  return node.enabled ? COLOURS.skill : theme.muted;
}

function arrow(path: Path2D, from: Point, to: Point, size: number): void {
  const angle = Math.atan2(to.y - from.y, to.x - from.x);
  path.moveTo(to.x, to.y);
  path.lineTo(to.x - size * Math.cos(angle - 0.45), to.y - size * Math.sin(angle - 0.45));
  path.lineTo(to.x - size * Math.cos(angle + 0.45), to.y - size * Math.sin(angle + 0.45));
  path.closePath();
}

/** Adds an edge to a path: layered edges as curves that leave and enter along the direction, loops as one Bézier. */
function trace(path: Path2D, routed: RoutedEdge, direction: Direction): void {
  const points = routed.points;
  const first = points[0] as Point;
  path.moveTo(first.x, first.y);
  if (routed.shape === "loop") {
    const [, c1, c2, end] = points as [Point, Point, Point, Point];
    path.bezierCurveTo(c1.x, c1.y, c2.x, c2.y, end.x, end.y);
    return;
  }
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1] as Point;
    const b = points[i] as Point;
    if (direction === "DOWN" ? a.x === b.x : a.y === b.y) path.lineTo(b.x, b.y);
    else if (direction === "DOWN") {
      const middle = (a.y + b.y) / 2;
      path.bezierCurveTo(a.x, middle, b.x, middle, b.x, b.y);
    } else {
      const middle = (a.x + b.x) / 2;
      path.bezierCurveTo(middle, a.y, middle, b.y, b.x, b.y);
    }
  }
}

function centreX(box: PlacedNode): number {
  return box.x + box.width / 2;
}

function draw(): void {
  const started = performance.now();
  paint();
  // How long a full frame takes, for the benchmark (test/e2e/ui/graph-layout-bench.mjs); what the frame shows,
  // for the UI test (test/e2e/ui/graph.mjs).
  canvas.dataset.drawMs = (performance.now() - started).toFixed(1);
  canvas.dataset.captionPx = (FONT_SIZE * view.scale).toFixed(1);
  canvas.dataset.captions = String(view.scale >= CAPTION_SCALE);
  canvas.dataset.direction = shown?.layout.direction ?? "";
  if (shown && !shown.focus) recordFirstDrawing();
}

function paint(): void {
  const ratio = window.devicePixelRatio || 1;
  context.setTransform(1, 0, 0, 1, 0, 0);
  context.fillStyle = theme.background;
  context.fillRect(0, 0, canvas.width, canvas.height);
  if (!shown) return;
  const { data, layout } = shown;
  const s = view.scale;
  context.setTransform(ratio * s, 0, 0, ratio * s, -view.x * s * ratio, -view.y * s * ratio);
  const left = view.x;
  const top = view.y;
  const right = left + canvas.clientWidth / s;
  const bottom = top + canvas.clientHeight / s;
  const visible = (box: PlacedNode) => box.x + box.width >= left && box.x <= right && box.y + box.height >= top && box.y <= bottom;
  const byId = new Map(data.nodes.map((node) => [node.id, node]));
  const near = hovered ?? selected;

  // Edges, batched by style.
  const groups = new Map<string, { path: Path2D; heads: Path2D; colour: string; width: number; dash: number[] }>();
  const group = (key: string, colour: string, width: number, dash: number[]) => {
    let found = groups.get(key);
    if (!found) {
      found = { path: new Path2D(), heads: new Path2D(), colour, width, dash };
      groups.set(key, found);
    }
    return found;
  };
  const heads = s > 0.3;
  for (const routed of layout.edges) {
    const edge = data.edges[routed.index];
    const points = routed.points;
    if (!edge || points.length < 2) continue;
    let minX = Infinity;
    let maxX = -Infinity;
    let minY = Infinity;
    let maxY = -Infinity;
    for (const point of points) {
      minX = Math.min(minX, point.x);
      maxX = Math.max(maxX, point.x);
      minY = Math.min(minY, point.y);
      maxY = Math.max(maxY, point.y);
    }
    if (maxX < left || minX > right || maxY < top || minY > bottom) continue;
    const lit = near !== undefined && (edge.from === near || edge.to === near);
    const target = byId.get(edge.to);
    const key = `${edge.cycle ? "cycle" : target?.kind === "ghost" ? "ghost" : "plain"}${edge.follows ? "" : "-inert"}${lit ? "-lit" : ""}`;
    const colour = edge.cycle ? COLOURS.cycle : target?.kind === "ghost" ? COLOURS.ghost : lit ? theme.foreground : withAlpha(theme.dark ? "#ffffff" : "#000000", s < 0.25 ? 0.12 : 0.32);
    const entry = group(key, colour, (edge.cycle ? 2 : 1.1) + (lit ? 0.8 : 0), edge.follows || s < CAPTION_SCALE / 2 ? [] : edge.place === "summary" ? [1.5, 3] : [5, 4]);
    trace(entry.path, routed, layout.direction);
    if (heads) {
      const end = points[points.length - 1] as Point;
      const before = points[points.length - 2] as Point;
      // A layered edge ends along the layout's direction; a loop along its last control line.
      const from = routed.shape === "loop" ? before : layout.direction === "DOWN" ? { x: end.x, y: end.y - Math.sign(end.y - before.y || 1) } : { x: end.x - Math.sign(end.x - before.x || 1), y: end.y };
      arrow(entry.heads, from, end, 7);
    }
  }
  for (const entry of [...groups.entries()].sort((a, b) => Number(a[0].endsWith("-lit")) - Number(b[0].endsWith("-lit"))).map(([, value]) => value)) {
    context.strokeStyle = entry.colour;
    context.fillStyle = entry.colour;
    // At a low zoom a line still shows: never thinner than about a pixel on screen.
    context.lineWidth = Math.max(entry.width, 0.9 / s);
    context.setLineDash(entry.dash.map((length) => Math.max(length, length * 0.6 / s)));
    context.stroke(entry.path);
    context.setLineDash([]);
    context.fill(entry.heads);
  }

  // Nodes: boxes batched by style (one fill and one stroke per style), then the rings, then the captions.
  // Captions only where they are legible; further out every box is a solid mark of its colour, never an empty frame.
  const labels = s >= CAPTION_SCALE;
  const styles = new Map<string, { readonly path: Path2D; readonly fill: string; readonly stroke: string; readonly width: number; readonly dash: number[] }>();
  const cycleRings = new Path2D();
  const focusRings = new Path2D();
  const captions: { readonly node: GraphNode; readonly box: PlacedNode; readonly colour: string }[] = [];
  for (const node of data.nodes) {
    const box = layout.nodes.get(node.id);
    if (!box || !visible(box)) continue;
    const colour = colourOf(node);
    const radius = node.kind === "tool" ? box.height / 2 : 6;
    const hollow = node.kind === "ghost" || (node.kind === "skill" && (!node.enabled || !node.advertised));
    const key = `${colour}|${hollow}|${node.problem ?? ""}`;
    let style = styles.get(key);
    if (!style) {
      style = {
        path: new Path2D(),
        fill: labels ? (hollow ? theme.background : withAlpha(colour, theme.dark ? 0.22 : 0.16)) : withAlpha(colour, hollow ? 0.3 : 0.6),
        stroke: node.problem ? COLOURS.ghost : colour,
        width: Math.max(node.problem ? 2.5 : 1.5, 1 / s),
        // Dashes cost much to draw and nothing shows them far out.
        dash: hollow && labels ? [5, 3] : [],
      };
      styles.set(key, style);
    }
    // Far out, a box is a few pixels: a plain rectangle draws the same and costs less.
    if (labels) style.path.roundRect(box.x, box.y, box.width, box.height, radius);
    else style.path.rect(box.x, box.y, box.width, box.height);
    if (node.cycle !== undefined) cycleRings.roundRect(box.x - 4, box.y - 4, box.width + 8, box.height + 8, radius + 4);
    if (node.id === near || node.id === shown.focus?.root) focusRings.roundRect(box.x - 2, box.y - 2, box.width + 4, box.height + 4, radius + 2);
    if (labels) captions.push({ node, box, colour });
  }
  for (const style of styles.values()) {
    context.fillStyle = style.fill;
    context.fill(style.path);
    context.setLineDash(style.dash);
    context.strokeStyle = style.stroke;
    context.lineWidth = style.width;
    context.stroke(style.path);
  }
  context.setLineDash([]);
  context.strokeStyle = COLOURS.cycle;
  context.lineWidth = Math.max(2.5, 1.5 / s);
  context.stroke(cycleRings);
  context.strokeStyle = theme.focus;
  context.lineWidth = Math.max(2, 1.5 / s);
  context.stroke(focusRings);
  context.textAlign = "center";
  context.textBaseline = "middle";
  // Every first line, then every second one: the font is set twice a frame, not twice a box.
  context.font = font(true);
  for (const { node, box } of captions) {
    const [first] = captionOf(node);
    const x = centreX(box);
    context.fillStyle = node.kind === "ghost" ? COLOURS.ghost : node.kind === "skill" && !node.enabled ? theme.muted : theme.foreground;
    context.fillText(first, x, box.y + 13);
    if (node.kind === "skill" && !node.enabled) {
      const width = measure(first, true);
      context.fillRect(x - width / 2, box.y + 13, width, 1);
    }
  }
  context.font = font(false);
  for (const { node, box, colour } of captions) {
    const [, second] = captionOf(node);
    context.fillStyle = node.menu ? colour : theme.muted;
    context.fillText(second, centreX(box), box.y + 27);
  }
  takeSnapshot(data.nodes.length);
}

// ---- Quick frames while panning and zooming a large graph ----
/** Above this many nodes a pan or zoom first moves a picture of the last frame; the full frame follows when the pointer rests. */
const SNAPSHOT_NODES = 1500;
const snapshot = { canvas: document.createElement("canvas"), view: { x: 0, y: 0, scale: 1 }, valid: false };
let settleTimer: ReturnType<typeof setTimeout> | undefined;

function takeSnapshot(nodes: number): void {
  snapshot.valid = nodes > SNAPSHOT_NODES;
  if (!snapshot.valid) return;
  snapshot.canvas.width = canvas.width;
  snapshot.canvas.height = canvas.height;
  snapshot.canvas.getContext("2d")?.drawImage(canvas, 0, 0);
  snapshot.view = { ...view };
}

/** Redraws after a pan or zoom: at once from the snapshot when the graph is large, in full shortly after. */
function requestInteractiveDraw(): void {
  if (!snapshot.valid) return requestDraw();
  clearTimeout(settleTimer);
  settleTimer = setTimeout(requestDraw, 150);
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    const ratio = window.devicePixelRatio || 1;
    const zoom = view.scale / snapshot.view.scale;
    context.setTransform(1, 0, 0, 1, 0, 0);
    context.fillStyle = theme.background;
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.setTransform(zoom, 0, 0, zoom, (snapshot.view.x - view.x) * view.scale * ratio, (snapshot.view.y - view.y) * view.scale * ratio);
    context.drawImage(snapshot.canvas, 0, 0);
    context.setTransform(1, 0, 0, 1, 0, 0);
  });
}

// ---- Pointer and keyboard ----
function worldAt(event: MouseEvent): Point {
  const rect = canvas.getBoundingClientRect();
  return { x: view.x + (event.clientX - rect.left) / view.scale, y: view.y + (event.clientY - rect.top) / view.scale };
}

function nodeAt(point: Point): string | undefined {
  if (!shown) return undefined;
  for (const box of shown.layout.nodes.values()) {
    if (point.x >= box.x && point.x <= box.x + box.width && point.y >= box.y && point.y <= box.y + box.height) return box.id;
  }
  return undefined;
}

let drag: { readonly x: number; readonly y: number; readonly viewX: number; readonly viewY: number; moved: boolean } | undefined;
canvas.addEventListener("mousedown", (event) => {
  drag = { x: event.clientX, y: event.clientY, viewX: view.x, viewY: view.y, moved: false };
});
window.addEventListener("mouseup", () => {
  if (drag?.moved) canvas.classList.remove("dragging");
});
canvas.addEventListener("mousemove", (event) => {
  if (drag && event.buttons === 1) {
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) {
      drag.moved = true;
      canvas.classList.add("dragging");
    }
    fitted = false;
    view.x = drag.viewX - dx / view.scale;
    view.y = drag.viewY - dy / view.scale;
    tooltip.hidden = true;
    requestInteractiveDraw();
    return;
  }
  const id = nodeAt(worldAt(event));
  if (id !== hovered) {
    hovered = id;
    requestDraw();
  }
  canvas.style.cursor = id ? "pointer" : "grab";
  const node = id ? nodesById().get(id) : undefined;
  if (!node) {
    tooltip.hidden = true;
    return;
  }
  tooltip.textContent = `@${node.slug}${node.summary ? ` — ${node.summary}` : ""}\n${describe(node)}${node.menu ? `\nMenu entry: ${node.menu.label}` : ""}`;
  tooltip.hidden = false;
  tooltip.style.left = `${Math.min(event.clientX + 14, window.innerWidth - tooltip.offsetWidth - 8)}px`;
  tooltip.style.top = `${Math.min(event.clientY + 14, window.innerHeight - tooltip.offsetHeight - 8)}px`;
});
canvas.addEventListener("mouseleave", () => {
  hovered = undefined;
  tooltip.hidden = true;
  requestDraw();
});

let clickTimer: ReturnType<typeof setTimeout> | undefined;
canvas.addEventListener("click", (event) => {
  if (drag?.moved) return;
  const id = nodeAt(worldAt(event));
  clearTimeout(clickTimer);
  if (!id) {
    selected = undefined;
    renderDetails();
    requestDraw();
    return;
  }
  selected = id;
  renderDetails();
  requestDraw();
  // Wait for a possible second click: a double-click focuses instead of opening.
  clickTimer = setTimeout(() => vscode.postMessage({ kind: "open", id }), 250);
});
canvas.addEventListener("dblclick", (event) => {
  clearTimeout(clickTimer);
  const id = nodeAt(worldAt(event));
  const node = id ? nodesById().get(id) : undefined;
  if (node?.kind === "skill") focusOn(node.id);
});
canvas.addEventListener(
  "wheel",
  (event) => {
    event.preventDefault();
    fitted = false;
    const before = worldAt(event);
    const factor = Math.exp(-event.deltaY * (event.ctrlKey ? 0.01 : 0.0015));
    view.scale = Math.min(4, Math.max(0.01, view.scale * factor));
    const rect = canvas.getBoundingClientRect();
    view.x = before.x - (event.clientX - rect.left) / view.scale;
    view.y = before.y - (event.clientY - rect.top) / view.scale;
    requestInteractiveDraw();
  },
  { passive: false },
);

search.addEventListener("change", () => {
  const value = search.value.trim().replace(/^@/, "").toLowerCase();
  if (value === "") return focusOn(undefined);
  const node = graph?.nodes.find((candidate) => candidate.slug === value && candidate.kind !== "ghost" && candidate.resolves);
  if (node) focusOn(node.id);
  else status.textContent = `No skill or tool is named @${value}.`;
});
showAll.addEventListener("click", () => focusOn(undefined));
fit.addEventListener("click", fitView);
window.addEventListener("keydown", (event) => {
  if (event.target === search) return;
  if (event.key === "Escape") focusOn(undefined);
  else if (event.key === "/") {
    event.preventDefault();
    search.focus();
  } else if (event.key === "0") fitView();
});

window.addEventListener("message", (event: MessageEvent<Inbound>) => {
  const message = event.data;
  if (message.kind === "graph") {
    firstDrawing.received ??= performance.now();
    void receive(message.graph, message.kept).catch(showError);
  }
  else if (message.kind === "focus") {
    focusRequest = message.request;
    focusOn(focusTargetOf(message.target));
  }
});

/** The node a focus request names: by handle (the node a mention resolves to) or by the skill file's URI. */
function focusTargetOf(target: FocusTarget): string | undefined {
  if (!target || !graph) return undefined;
  if ("uri" in target) return graph.nodes.find((node) => node.kind === "skill" && node.uri === target.uri)?.id;
  const slug = target.handle.replace(/^@/, "").toLowerCase();
  return graph.nodes.find((node) => node.slug === slug && node.resolves)?.id;
}

const saved = vscode.getState() as { focus?: string } | undefined;
focusId = saved?.focus;
resize();
// The graph the extension had when it made the page comes with the page (`graph-data`): no round trip first.
const embedded = document.getElementById("graph-data")?.textContent;
if (embedded) {
  const first = JSON.parse(embedded) as Extract<Inbound, { kind: "graph" }>;
  firstDrawing.received = performance.now();
  void receive(first.graph, first.kept).catch(showError);
}
vscode.postMessage({ kind: "ready" });
