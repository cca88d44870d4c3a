import * as path from "node:path";
import { buildGraph, closure, graphToDot, graphToMermaid, nodeIdOf, subgraph, type GraphData } from "../core/graph.js";
import { pathFromUri } from "../node/workspaceFiles.js";
import { loadNamespace, UsageError, type Verb } from "./common.js";

const GRAPH_USAGE = `graph [folder…] [--format dot|mermaid|json] [--focus @handle]
                               Print the namespace as a graph: skills and tools, mentions as edges, cycles,
                               unknown mentions as ghosts, menu prices (default format: dot). --focus keeps
                               the skill's expansion only: the skills it follows and the tools it binds.`;

export const GRAPH_FORMATS = ["dot", "mermaid", "json"] as const;
export type GraphFormat = (typeof GRAPH_FORMATS)[number];

interface GraphArgs {
  readonly folders: string[];
  readonly format: GraphFormat;
  readonly focus: string | undefined;
}

function parseGraphArgs(args: readonly string[]): GraphArgs {
  const folders: string[] = [];
  let format: GraphFormat = "dot";
  let focus: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    const value = () => {
      const next = args[++i];
      if (next === undefined || next.startsWith("--")) throw new UsageError(`${arg} needs a value.`);
      return next;
    };
    if (arg === "--format") {
      const chosen = value();
      if (!(GRAPH_FORMATS as readonly string[]).includes(chosen)) throw new UsageError(`--format is one of ${GRAPH_FORMATS.join(", ")}; got ${chosen}.`);
      format = chosen as GraphFormat;
    } else if (arg === "--focus") {
      focus = value();
    } else if (arg === "--folder") {
      folders.push(value());
    } else if (arg.startsWith("--")) {
      throw new UsageError(`Unknown option ${arg}.`);
    } else {
      folders.push(arg);
    }
  }
  return { folders: folders.length > 0 ? folders : ["."], format, focus };
}

/** The graph with file URIs turned into paths relative to the current folder: stable output for docs and CI. */
function withPaths(graph: GraphData): unknown {
  const relative = (uri: string | undefined) => (uri === undefined ? undefined : path.relative(process.cwd(), pathFromUri(uri)).split(path.sep).join("/"));
  return {
    nodes: graph.nodes.map(({ uri, ...node }) => ({ ...node, ...(uri === undefined ? {} : { path: relative(uri) }) })),
    edges: graph.edges,
    cycles: graph.cycles,
    menu: graph.menu,
  };
}

/** Renders a graph in one of the formats. */
export function formatGraph(graph: GraphData, format: GraphFormat): string {
  switch (format) {
    case "dot":
      return graphToDot(graph);
    case "mermaid":
      return graphToMermaid(graph);
    case "json":
      return JSON.stringify(withPaths(graph), null, 2);
  }
}

/** `graph [folder…]`: the namespace as a graph. Exit 1 for an unknown --focus handle. */
export const graphVerb: Verb = {
  name: "graph",
  usage: GRAPH_USAGE,
  async run(args, io) {
    const parsed = parseGraphArgs(args);
    const namespace = await loadNamespace(parsed.folders);
    let graph = buildGraph(namespace);
    if (parsed.focus !== undefined) {
      const id = nodeIdOf(graph, parsed.focus);
      if (id === undefined || id.startsWith("ghost:")) {
        io.err(`skill-lsp: ${parsed.focus.startsWith("@") ? parsed.focus : `@${parsed.focus}`} — unknown: no skill or tool has this handle.`);
        return 1;
      }
      graph = subgraph(graph, closure(graph, id));
    }
    io.out(formatGraph(graph, parsed.format));
    return 0;
  },
};
