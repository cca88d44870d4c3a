/**
 * The namespace as a graph: skills and tools as nodes, mentions as edges, cycles (strongly connected
 * components of what expansion follows), dangling mentions as ghost nodes, and the token price of every
 * planner-menu entry. Plain JSON data: the server sends it to the graph panel as it is, and the command line
 * prints it as DOT, Mermaid or JSON.
 *
 * `closure` walks the data exactly as `Namespace.expand` walks the namespace, so a focused skill shows the
 * toolset its expansion binds. It needs nothing but the data, so the panel runs it too, without a round trip.
 */
import { composeSystemPrompt, tokenSize } from "./alignment.js";
import type { Namespace } from "./namespace.js";
import type { SkillFile } from "./skillFile.js";

export type GraphNodeKind = "skill" | "tool" | "ghost";

/** What an entry on the planner's menu costs. */
export interface MenuPrice {
  readonly tokens: number;
  /** True when counted with the loaded model's tokenizer; false for the `~` characters / 4 estimate. */
  readonly exact: boolean;
  /** "23 tokens" or "~23 tokens". */
  readonly label: string;
  /** The entry's share of the whole system prompt, 0 to 1. */
  readonly share: number;
}

export interface GraphNode {
  /**
   * `tool:<slug>`, `skill:<slug>` (the skill a mention resolves to), `skill:<slug>~2`, `~3`… (further files
   * claiming a taken handle: they never resolve), `ghost:<slug>` (a mention that resolves to nothing).
   */
  readonly id: string;
  readonly kind: GraphNodeKind;
  readonly slug: string;
  readonly title: string;
  /** The skill's file; a declared tool's `skills.json`; a ghost's first mentioner. Built-in tools have none. */
  readonly uri?: string;
  /** A tool's bound name: what the executor binds. */
  readonly toolName?: string;
  /** A skill's summary (its menu entry) or a tool's blurb. */
  readonly summary?: string;
  /** A disabled skill is inert; tools are always enabled, ghosts never. */
  readonly enabled: boolean;
  /** A skill's `advertised`, a tool's `advertiseInMenu`. */
  readonly advertised: boolean;
  readonly builtin: boolean;
  /** Set when the node is on the planner's menu: the price of its entry. */
  readonly menu?: MenuPrice;
  /** True for the node a mention of the slug resolves to: every tool, and the skill that owns its handle. */
  readonly resolves: boolean;
  /** A skill whose handle another skill also claims (an error on every claimant), or that a tool holds. */
  readonly problem?: "duplicate" | "tool-collision";
  /** Index into `GraphData.cycles` when the node is on a cycle. */
  readonly cycle?: number;
}

export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  /** A body mention binds; a summary mention is a reference only. */
  readonly place: "body" | "summary";
  /** Expansion follows this edge: a body mention of an enabled skill that owns its handle. */
  readonly follows: boolean;
  /** Both ends lie on one cycle of followed edges. */
  readonly cycle: boolean;
}

export interface GraphMenu {
  /** The whole system prompt's size. */
  readonly tokens: number;
  readonly exact: boolean;
  readonly label: string;
  readonly planning: boolean;
  readonly entries: number;
}

export interface GraphData {
  /** Tools (namespace order), then skills (by slug), then ghosts (by slug). */
  readonly nodes: readonly GraphNode[];
  /** Per source node, in the order its file mentions them (body first, then summary-only mentions). */
  readonly edges: readonly GraphEdge[];
  /** Node ids of each cycle (a strongly connected component of followed edges with a loop), sorted. */
  readonly cycles: readonly (readonly string[])[];
  readonly menu: GraphMenu;
}

/** What focusing a node shows: its expansion, walked on the graph. */
export interface Closure {
  readonly root: string;
  /** Every node the expansion visits, the root first. */
  readonly nodes: readonly string[];
  /** Indexes into `GraphData.edges` that the expansion follows. */
  readonly edges: readonly number[];
  /** The enabled skills followed, first appearance first (the root included). */
  readonly skills: readonly string[];
  /** The tool nodes bound, deduplicated by bound name, first appearance first. */
  readonly tools: readonly string[];
  /** Their bound names: exactly `Namespace.expand([slug]).tools`. */
  readonly toolNames: readonly string[];
  readonly disabled: readonly string[];
  readonly unresolved: readonly string[];
}

export interface GraphOptions {
  /** The loaded model's tokenizer; without it menu prices are `~` estimates. */
  readonly countTokens?: (text: string) => number;
}

const toolId = (slug: string) => `tool:${slug}`;
const skillId = (slug: string) => `skill:${slug}`;
const ghostId = (slug: string) => `ghost:${slug}`;

/** The price of each menu entry, by node id, and the whole prompt's size. */
export function menuPrices(namespace: Namespace, countTokens?: (text: string) => number): { readonly prices: ReadonlyMap<string, MenuPrice>; readonly menu: GraphMenu } {
  const prompt = composeSystemPrompt(namespace);
  const whole = tokenSize(prompt.text, countTokens);
  const prices = new Map<string, MenuPrice>();
  for (const entry of prompt.entries) {
    const size = tokenSize(entry.text, countTokens);
    prices.set(entry.kind === "tool" ? toolId(entry.handle) : skillId(entry.handle), { tokens: size.tokens, exact: size.exact, label: size.label, share: size.tokens / Math.max(whole.tokens, 1) });
  }
  return { prices, menu: { tokens: whole.tokens, exact: whole.exact, label: whole.label, planning: prompt.planning, entries: prompt.entries.length } };
}

const priceCache = new WeakMap<Namespace, { readonly menuGeneration: number; readonly countTokens: ((text: string) => number) | undefined; readonly value: ReturnType<typeof menuPrices> }>();

/** `menuPrices`, kept until the menu can have changed (`Namespace.menuGeneration`) or the tokenizer does. */
export function cachedMenuPrices(namespace: Namespace, countTokens?: (text: string) => number): ReturnType<typeof menuPrices> {
  const cached = priceCache.get(namespace);
  if (cached && cached.menuGeneration === namespace.menuGeneration && cached.countTokens === countTokens) return cached.value;
  const value = menuPrices(namespace, countTokens);
  priceCache.set(namespace, { menuGeneration: namespace.menuGeneration, countTokens, value });
  return value;
}

/** Why a skill is not on the planner's menu (whose entries `prices` holds), in a few words; undefined when it is. */
export function offMenuReason(namespace: Namespace, skill: SkillFile, prices: ReadonlyMap<string, MenuPrice>): string | undefined {
  if (!skill.validHandle) return "its file name is not a valid handle";
  if (!skill.enabled) return "disabled";
  if (!skill.advertised) return "not advertised";
  if (namespace.tool(skill.slug)) return "a tool holds its handle";
  if (namespace.claimants(skill.slug)[0] !== skill) return "another skill holds its handle";
  if (!prices.has(skillId(skill.slug))) return "left out of alignment.menu in skills.json";
  return undefined;
}

/**
 * The graph of a namespace. Files whose name is not a valid handle are left out: nothing can mention them.
 * Linear in files and mentions, plus sorting.
 */
export function buildGraph(namespace: Namespace, options: GraphOptions = {}): GraphData {
  const { prices, menu } = menuPrices(namespace, options.countTokens);
  const nodes: GraphNode[] = [];
  const index = new Map<string, number>();
  const add = (node: GraphNode) => {
    index.set(node.id, nodes.length);
    nodes.push(node);
  };

  for (const tool of namespace.tools()) {
    const id = toolId(tool.slug);
    if (index.has(id)) continue;
    add({
      id,
      kind: "tool",
      slug: tool.slug,
      title: tool.title,
      uri: tool.origin.kind === "config" ? tool.origin.uri : undefined,
      toolName: tool.name,
      summary: tool.blurb,
      enabled: true,
      advertised: tool.advertiseInMenu,
      builtin: tool.origin.kind === "builtin",
      menu: prices.get(id),
      resolves: true,
    });
  }

  // Each skill file gets a node. Claimants of one handle come in URI order (the namespace's order), so the
  // first one, the skill a mention resolves to unless a tool holds the handle, is `skill:<slug>`.
  const byUri = (a: SkillFile, b: SkillFile) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0);
  const skills = [...namespace.skills()].filter((skill) => skill.validHandle).sort((a, b) => a.slug.localeCompare(b.slug) || byUri(a, b));
  let previous = "";
  let ordinal = 0;
  for (const skill of skills) {
    ordinal = skill.slug === previous ? ordinal + 1 : 1;
    previous = skill.slug;
    const taken = namespace.tool(skill.slug) !== undefined;
    const owns = ordinal === 1 && !taken;
    add({
      id: ordinal === 1 ? skillId(skill.slug) : `${skillId(skill.slug)}~${ordinal}`,
      kind: "skill",
      slug: skill.slug,
      title: skill.title,
      uri: skill.uri,
      summary: skill.summary,
      enabled: skill.enabled,
      advertised: skill.advertised,
      builtin: false,
      menu: owns ? prices.get(skillId(skill.slug)) : undefined,
      resolves: owns,
      problem: taken ? "tool-collision" : namespace.claimants(skill.slug).length > 1 ? "duplicate" : undefined,
    });
  }

  const edges: GraphEdge[] = [];
  const ghosts = new Map<string, string>();
  const targetOf = (slug: string, mentioner: string): string => {
    const target = namespace.resolve(slug);
    if (target?.kind === "tool") return toolId(target.tool.slug);
    if (target?.kind === "skill") return skillId(target.skill.slug);
    const first = ghosts.get(slug);
    if (first === undefined || mentioner < first) ghosts.set(slug, mentioner);
    return ghostId(slug);
  };
  for (const node of nodes) {
    if (node.kind !== "skill" || !node.uri) continue;
    const skill = namespace.skill(node.uri);
    if (!skill) continue;
    const follows = node.resolves && skill.enabled;
    const bodySlugs = new Set(skill.requirements);
    const dangling = (slug: string) => skill.codeOnly.includes(slug) && !namespace.resolve(slug);
    for (const slug of skill.requirements) if (!dangling(slug)) edges.push({ from: node.id, to: targetOf(slug, skill.uri), place: "body", follows, cycle: false });
    const summaryOnly = new Set<string>();
    for (const mention of skill.mentions) if (mention.place === "summary" && !bodySlugs.has(mention.slug)) summaryOnly.add(mention.slug);
    for (const slug of summaryOnly) if (!dangling(slug)) edges.push({ from: node.id, to: targetOf(slug, skill.uri), place: "summary", follows: false, cycle: false });
  }
  for (const [slug, uri] of [...ghosts].sort((a, b) => a[0].localeCompare(b[0]))) {
    add({ id: ghostId(slug), kind: "ghost", slug, title: `@${slug}`, uri, enabled: false, advertised: false, builtin: false, resolves: false });
  }

  const cycles = findCycles(nodes, edges);
  const cycleOf = new Map<string, number>();
  cycles.forEach((cycle, i) => cycle.forEach((id) => cycleOf.set(id, i)));
  const finalNodes = nodes.map((node) => (cycleOf.has(node.id) ? { ...node, cycle: cycleOf.get(node.id) } : node));
  const finalEdges = edges.map((edge) => (edge.follows && cycleOf.has(edge.from) && cycleOf.get(edge.from) === cycleOf.get(edge.to) ? { ...edge, cycle: true } : edge));
  return { nodes: finalNodes, edges: finalEdges, cycles, menu };
}

/**
 * Strongly connected components of the followed edges (Tarjan's, with an explicit stack so that a chain of
 * 10,000 skills does not overflow the call stack). A component is a cycle when it has two nodes or more, or
 * one node that mentions itself. Each cycle's ids are sorted; the cycles are sorted by their first id.
 */
export function findCycles(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): string[][] {
  const adjacency = new Map<string, string[]>();
  const selfLoops = new Set<string>();
  for (const edge of edges) {
    if (!edge.follows) continue;
    if (edge.from === edge.to) selfLoops.add(edge.from);
    const list = adjacency.get(edge.from);
    if (list) list.push(edge.to);
    else adjacency.set(edge.from, [edge.to]);
  }
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let counter = 0;
  for (const node of nodes) {
    if (order.has(node.id) || !adjacency.has(node.id)) continue;
    const work: { readonly id: string; next: number }[] = [{ id: node.id, next: 0 }];
    order.set(node.id, counter);
    low.set(node.id, counter++);
    stack.push(node.id);
    onStack.add(node.id);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (!frame) break;
      const targets = adjacency.get(frame.id) ?? [];
      if (frame.next < targets.length) {
        const target = targets[frame.next++] ?? "";
        if (!order.has(target)) {
          order.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ id: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.id, Math.min(low.get(frame.id) ?? 0, order.get(target) ?? 0));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id) ?? 0, low.get(frame.id) ?? 0));
      if (low.get(frame.id) === order.get(frame.id)) {
        const component: string[] = [];
        for (;;) {
          const id = stack.pop();
          if (id === undefined) break;
          onStack.delete(id);
          component.push(id);
          if (id === frame.id) break;
        }
        if (component.length > 1 || selfLoops.has(frame.id)) cycles.push(component.sort());
      }
    }
  }
  return cycles.sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? ""));
}

/**
 * The expansion of one node, walked on the graph the way `Namespace.expand` walks the namespace: a tool is
 * bound; an enabled skill that owns its handle is followed once, its body's mentions in order, depth first;
 * a disabled skill or a ghost binds nothing. `toolNames` equals `namespace.expand([slug]).tools` by name.
 */
export function closure(graph: GraphData, rootId: string): Closure {
  const nodes = new Map(graph.nodes.map((node) => [node.id, node]));
  const outgoing = new Map<string, number[]>();
  graph.edges.forEach((edge, i) => {
    if (!edge.follows) return;
    const list = outgoing.get(edge.from);
    if (list) list.push(i);
    else outgoing.set(edge.from, [i]);
  });
  const visited: string[] = [];
  const visitedSet = new Set<string>();
  const visit = (id: string) => {
    if (!visitedSet.has(id)) {
      visitedSet.add(id);
      visited.push(id);
    }
  };
  const followedEdges: number[] = [];
  const skills: string[] = [];
  const followed = new Set<string>();
  const tools: string[] = [];
  const toolNames: string[] = [];
  const disabled: string[] = [];
  const unresolved: string[] = [];
  const stack: { readonly targets: readonly string[]; readonly edges: readonly (number | undefined)[]; next: number }[] = [{ targets: [rootId], edges: [undefined], next: 0 }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (!frame || frame.next >= frame.targets.length) {
      stack.pop();
      continue;
    }
    const edge = frame.edges[frame.next];
    const id = frame.targets[frame.next++] ?? "";
    if (edge !== undefined) followedEdges.push(edge);
    const node = nodes.get(id);
    visit(id);
    if (!node || node.kind === "ghost") {
      if (!unresolved.includes(id)) unresolved.push(id);
    } else if (node.kind === "tool") {
      const name = node.toolName ?? node.slug;
      if (!toolNames.includes(name)) {
        toolNames.push(name);
        tools.push(id);
      }
    } else if (!node.enabled) {
      if (!disabled.includes(id)) disabled.push(id);
    } else if (node.resolves && !followed.has(id)) {
      followed.add(id);
      skills.push(id);
      const out = outgoing.get(id) ?? [];
      stack.push({ targets: out.map((i) => graph.edges[i]?.to ?? ""), edges: out, next: 0 });
    }
  }
  return { root: rootId, nodes: visited, edges: [...new Set(followedEdges)], skills, tools, toolNames, disabled, unresolved };
}

/** The part of a graph that a closure covers: its nodes and the edges it follows, cycles kept. */
export function subgraph(graph: GraphData, focus: Closure): GraphData {
  const keep = new Set(focus.nodes);
  const edgeSet = new Set(focus.edges);
  return {
    nodes: graph.nodes.filter((node) => keep.has(node.id)),
    edges: graph.edges.filter((_, i) => edgeSet.has(i)),
    cycles: graph.cycles.filter((cycle) => cycle.some((id) => keep.has(id))),
    menu: graph.menu,
  };
}

/** The id of the node a handle names: the tool, the skill that owns it, or its ghost. */
export function nodeIdOf(graph: GraphData, handle: string): string | undefined {
  const slug = handle.replace(/^@/, "").toLowerCase();
  for (const id of [toolId(slug), skillId(slug), ghostId(slug)]) if (graph.nodes.some((node) => node.id === id)) return id;
  return undefined;
}

// ---- Text formats, for documentation and CI ----

/** The seed's colours: skills orange, tools blue; dangling mentions red. */
export const GRAPH_COLOURS = { skill: "#E8912D", tool: "#3794FF", ghost: "#F14C4C", cycle: "#C586C0", disabled: "#8C8C8C" } as const;

function quoteDot(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\r?\n/g, "\\n")}"`;
}

function nodeCaption(node: GraphNode): string {
  const name = node.kind === "tool" && node.toolName ? `\n${node.toolName}` : "";
  const price = node.menu ? `\nmenu ${node.menu.label}` : "";
  return `@${node.slug}${name}${price}`;
}

function statusWords(node: GraphNode): string[] {
  const words: string[] = [];
  if (node.kind === "skill" && !node.enabled) words.push("disabled");
  if (node.kind === "skill" && node.enabled && !node.advertised) words.push("not advertised");
  if (node.problem === "duplicate") words.push("duplicate handle");
  if (node.problem === "tool-collision") words.push("named like a tool");
  if (node.kind === "ghost") words.push("unknown");
  return words;
}

/** Graphviz DOT: `dot -Tsvg` draws it. */
export function graphToDot(graph: GraphData): string {
  const lines = ["digraph skills {", "  rankdir=LR;", '  node [fontname="Helvetica", fontsize=11, style="rounded,filled", shape=box];', '  edge [color="#888888", arrowsize=0.7];'];
  for (const node of graph.nodes) {
    const colour = node.kind === "ghost" ? GRAPH_COLOURS.ghost : node.kind === "tool" ? GRAPH_COLOURS.tool : !node.enabled ? GRAPH_COLOURS.disabled : GRAPH_COLOURS.skill;
    const styles = ["rounded"];
    if (node.kind === "ghost" || (node.kind === "skill" && (!node.enabled || !node.advertised))) styles.push("dashed");
    else styles.push("filled");
    const attributes = [
      `label=${quoteDot(nodeCaption(node) + (statusWords(node).length > 0 ? `\n(${statusWords(node).join(", ")})` : ""))}`,
      `shape=${node.kind === "tool" ? "ellipse" : "box"}`,
      `style=${quoteDot(styles.join(","))}`,
      `color=${quoteDot(node.cycle !== undefined ? GRAPH_COLOURS.cycle : colour)}`,
      `fillcolor=${quoteDot(`${colour}33`)}`,
      `fontcolor=${quoteDot(node.kind === "ghost" ? GRAPH_COLOURS.ghost : "#222222")}`,
    ];
    if (node.cycle !== undefined) attributes.push("penwidth=2");
    lines.push(`  ${quoteDot(node.id)} [${attributes.join(", ")}];`);
  }
  for (const edge of graph.edges) {
    const attributes: string[] = [];
    if (edge.cycle) attributes.push(`color=${quoteDot(GRAPH_COLOURS.cycle)}`, "penwidth=2");
    if (!edge.follows) attributes.push(`style=${edge.place === "summary" ? "dotted" : "dashed"}`);
    lines.push(`  ${quoteDot(edge.from)} -> ${quoteDot(edge.to)}${attributes.length > 0 ? ` [${attributes.join(", ")}]` : ""};`);
  }
  lines.push("}");
  return lines.join("\n");
}

function mermaidId(id: string): string {
  return id.replace(/[^a-zA-Z0-9]/g, (char) => (char === ":" ? "__" : char === "-" ? "_" : `_${char.charCodeAt(0).toString(16)}_`));
}

function mermaidText(text: string): string {
  return text.replace(/"/g, "#quot;").replace(/\r?\n/g, "<br/>");
}

/** A Mermaid flowchart: GitHub and most Markdown viewers draw it. */
export function graphToMermaid(graph: GraphData): string {
  const lines = ["flowchart LR"];
  for (const node of graph.nodes) {
    const caption = mermaidText(nodeCaption(node) + (statusWords(node).length > 0 ? `\n(${statusWords(node).join(", ")})` : ""));
    const id = mermaidId(node.id);
    lines.push(node.kind === "tool" ? `  ${id}(["${caption}"])` : `  ${id}["${caption}"]`);
  }
  const cycleLinks: number[] = [];
  const inertLinks: number[] = [];
  graph.edges.forEach((edge, i) => {
    lines.push(`  ${mermaidId(edge.from)} ${edge.follows ? "-->" : "-.->"} ${mermaidId(edge.to)}`);
    if (edge.cycle) cycleLinks.push(i);
    if (!edge.follows) inertLinks.push(i);
  });
  lines.push(
    `  classDef skill fill:${GRAPH_COLOURS.skill}33,stroke:${GRAPH_COLOURS.skill}`,
    `  classDef unadvertised fill:#ffffff00,stroke:${GRAPH_COLOURS.skill},stroke-dasharray:4 3`,
    `  classDef disabled fill:#ffffff00,stroke:${GRAPH_COLOURS.disabled},stroke-dasharray:4 3,color:${GRAPH_COLOURS.disabled}`,
    `  classDef tool fill:${GRAPH_COLOURS.tool}33,stroke:${GRAPH_COLOURS.tool}`,
    `  classDef ghost fill:#ffffff00,stroke:${GRAPH_COLOURS.ghost},stroke-dasharray:4 3,color:${GRAPH_COLOURS.ghost}`,
    `  classDef cycle stroke:${GRAPH_COLOURS.cycle},stroke-width:3px`,
  );
  const classes = new Map<string, string[]>();
  const addClass = (name: string, id: string) => {
    const list = classes.get(name);
    if (list) list.push(id);
    else classes.set(name, [id]);
  };
  for (const node of graph.nodes) {
    const id = mermaidId(node.id);
    addClass(node.kind === "skill" ? (!node.enabled ? "disabled" : !node.advertised ? "unadvertised" : "skill") : node.kind, id);
    if (node.cycle !== undefined) addClass("cycle", id);
  }
  for (const [name, ids] of classes) lines.push(`  class ${ids.join(",")} ${name}`);
  if (cycleLinks.length > 0) lines.push(`  linkStyle ${cycleLinks.join(",")} stroke:${GRAPH_COLOURS.cycle},stroke-width:2px`);
  return lines.join("\n");
}
