/**
 * A layered ("Sugiyama") drawing of a directed graph, written for the skill graph: cycles broken by a depth-first
 * search, layers by longest path to a sink (tools end up side by side), layers wider than the panel wrapped into
 * several, long edges split by dummy vertices, crossings reduced by barycentre sweeps (the best order kept), and
 * positions along each layer placed by weighted isotonic regression (as close to the neighbours as the spacing
 * allows, long edges kept straight). Linear-ish: every phase is O((V + D) log V) per sweep for V vertices and D
 * dummies. No DOM: the page and the benchmark run the same code.
 *
 * `layeredSteps` is a generator that yields between phases and sweeps, so the page can lay out a large graph in
 * slices between frames; `layered` runs it to the end.
 */

export type Direction = "RIGHT" | "DOWN";

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
  /** Index into the input's edges. */
  readonly index: number;
  /**
   * `layered`: a chain of points, drawn as curves that leave and enter along the layout's direction;
   * `loop`: a self-mention, the four control points of one cubic Bézier.
   */
  readonly shape: "layered" | "loop";
  readonly points: readonly Point[];
}

export interface LayeredNode {
  readonly id: string;
  readonly width: number;
  readonly height: number;
}

export interface LayeredEdge {
  readonly from: string;
  readonly to: string;
}

export interface LayeredOptions {
  /** RIGHT: layers are columns, read left to right; DOWN: layers are rows, read top to bottom. */
  readonly direction: Direction;
  /** The most a layer may take across the direction, in pixels: a wider layer wraps into several. */
  readonly maxBreadth: number;
  readonly nodeSpacing?: number;
  readonly layerSpacing?: number;
  readonly padding?: number;
  /** Barycentre sweeps (each one down or up); more than 2 per 10,000 vertices costs more than it gives. */
  readonly sweeps?: number;
  /** Passes of the placement across the layers (default 8; 4 above 3,000 nodes). */
  readonly placementPasses?: number;
  /** True (the default): every sink (a tool) in the last layer; false: each sink just below its lowest mentioner. */
  readonly sinksLast?: boolean;
  /** A draft: only its extent and crossings are wanted, so no node is placed and no edge routed (default false). */
  readonly extentOnly?: boolean;
}

export interface LayeredLayout {
  readonly direction: Direction;
  readonly nodes: ReadonlyMap<string, PlacedNode>;
  readonly edges: readonly RoutedEdge[];
  readonly width: number;
  readonly height: number;
  /** Layers after wrapping, and the dummy vertices long edges needed: for the benchmark and the tests. */
  readonly layers: number;
  readonly dummies: number;
  readonly crossings: number;
}

/** Extra breadth of a node that mentions itself: its loop is drawn beside it. */
const LOOP_ROOM = 18;

interface DagEdge {
  readonly u: number;
  readonly v: number;
  readonly reversed: boolean;
  /** The vertices the edge passes, u first and v last (dummies between). */
  chain: number[];
}

function isDummyVertex(x: number, n: number): boolean {
  return x >= n;
}

/** Lays out the whole graph at once. */
export function layered(nodes: readonly LayeredNode[], edges: readonly LayeredEdge[], options: LayeredOptions): LayeredLayout {
  const steps = layeredSteps(nodes, edges, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * Orders a layer's vertices by `key`, ties by `position` (distinct within a layer, so any sort gives one order):
 * in place one by one for a layer of a few dozen, which after the first sweeps is nearly in order already.
 */
function sortByKey(members: number[], key: Float64Array, position: Float64Array): void {
  const before = (a: number, b: number) => (key[a] as number) - (key[b] as number) || (position[a] as number) - (position[b] as number);
  if (members.length > 48) {
    members.sort(before);
    return;
  }
  for (let i = 1; i < members.length; i++) {
    const x = members[i] as number;
    let at = i;
    for (; at > 0 && before(members[at - 1] as number, x) > 0; at--) members[at] = members[at - 1] as number;
    members[at] = x;
  }
}

/** True when every vertex has the same place in both. */
function sameOrder(a: Float64Array, b: Float64Array): boolean {
  for (let x = 0; x < a.length; x++) if (a[x] !== b[x]) return false;
  return true;
}

/** The layout in steps: it yields between phases and sweeps, and returns the layout. */
export function* layeredSteps(nodes: readonly LayeredNode[], edges: readonly LayeredEdge[], options: LayeredOptions): Generator<void, LayeredLayout> {
  const down = options.direction === "DOWN";
  const nodeSpacing = options.nodeSpacing ?? 14;
  const layerSpacing = options.layerSpacing ?? (down ? 46 : 56);
  const padding = options.padding ?? 16;
  const n = nodes.length;
  const sweeps = options.sweeps ?? (n > 3000 ? 4 : n > 300 ? 8 : 16);
  const index = new Map<string, number>();
  nodes.forEach((node, i) => index.set(node.id, i));

  // ---- The graph: unique edges, self-loops apart ----
  const succ: number[][] = Array.from({ length: n }, () => []);
  const hasIncoming = new Uint8Array(n);
  const loops = new Uint8Array(n);
  const pairs = new Map<string, number[]>();
  edges.forEach((edge, i) => {
    const u = index.get(edge.from);
    const v = index.get(edge.to);
    if (u === undefined || v === undefined) return;
    if (u === v) {
      loops[u] = 1;
      return;
    }
    const key = `${u},${v}`;
    const list = pairs.get(key);
    if (list) list.push(i);
    else {
      pairs.set(key, [i]);
      succ[u]?.push(v);
      hasIncoming[v] = 1;
    }
  });

  // ---- Cycles: a depth-first search from the sources reverses the edges that close a cycle ----
  const state = new Uint8Array(n); // 0 unseen, 1 on the stack, 2 done
  const reversed = new Set<string>();
  const roots = [...Array(n).keys()].sort((a, b) => (hasIncoming[a] ?? 0) - (hasIncoming[b] ?? 0) || a - b);
  for (const root of roots) {
    if (state[root] !== 0) continue;
    const stack: { readonly u: number; next: number }[] = [{ u: root, next: 0 }];
    state[root] = 1;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as { readonly u: number; next: number };
      const targets = succ[frame.u] ?? [];
      if (frame.next < targets.length) {
        const v = targets[frame.next++] as number;
        if (state[v] === 1) reversed.add(`${frame.u},${v}`);
        else if (state[v] === 0) {
          state[v] = 1;
          stack.push({ u: v, next: 0 });
        }
        continue;
      }
      state[frame.u] = 2;
      stack.pop();
    }
  }
  const dag: DagEdge[] = [];
  const dagOf = new Map<string, DagEdge>();
  for (const [key] of pairs) {
    const [a, b] = key.split(",").map(Number) as [number, number];
    const flip = reversed.has(key);
    const edge: DagEdge = { u: flip ? b : a, v: flip ? a : b, reversed: flip, chain: [] };
    dag.push(edge);
    dagOf.set(key, edge);
  }
  const out: number[][] = Array.from({ length: n }, () => []);
  const inn: number[][] = Array.from({ length: n }, () => []);
  for (const edge of dag) {
    out[edge.u]?.push(edge.v);
    inn[edge.v]?.push(edge.u);
  }
  yield;

  // ---- Layers: the longest path to a sink, so every tool (a sink) sits in the last layer ----
  const height = new Int32Array(n);
  {
    const remaining = new Int32Array(n);
    const queue: number[] = [];
    for (let u = 0; u < n; u++) {
      remaining[u] = out[u]?.length ?? 0;
      if (remaining[u] === 0) queue.push(u);
    }
    for (let head = 0; head < queue.length; head++) {
      const v = queue[head] as number;
      for (const u of inn[v] ?? []) {
        height[u] = Math.max(height[u] ?? 0, (height[v] ?? 0) + 1);
        if (--(remaining[u] as number) === 0) queue.push(u);
      }
    }
  }
  let top = 0;
  for (let u = 0; u < n; u++) top = Math.max(top, height[u] ?? 0);
  const rank = new Int32Array(n);
  for (let u = 0; u < n; u++) rank[u] = top - (height[u] ?? 0);
  if (options.sinksLast === false) {
    // Each sink just below its lowest mentioner: shorter edges, and a last layer that is not every tool at once.
    for (let u = 0; u < n; u++) {
      if ((out[u]?.length ?? 0) > 0 || (inn[u]?.length ?? 0) === 0) continue;
      let lowest = 0;
      for (const p of inn[u] ?? []) lowest = Math.max(lowest, (rank[p] ?? 0) + 1);
      rank[u] = lowest;
    }
  }
  // A skill mentioned from far above but mentioning little moves up towards its mentioners: the median of its
  // neighbours' layers, within what its edges allow. Sinks stay in the last layer.
  for (let pass = 0; pass < 2; pass++) {
    for (let u = 0; u < n; u++) {
      const successors = out[u] ?? [];
      const predecessors = inn[u] ?? [];
      if (successors.length === 0 || predecessors.length <= successors.length) continue;
      let low = -Infinity;
      for (const p of predecessors) low = Math.max(low, (rank[p] ?? 0) + 1);
      let high = Infinity;
      for (const s of successors) high = Math.min(high, (rank[s] ?? 0) - 1);
      const ranks = [...predecessors, ...successors].map((w) => rank[w] ?? 0).sort((a, b) => a - b);
      const median = ranks[Math.floor((ranks.length - 1) / 2)] ?? 0;
      rank[u] = Math.max(low, Math.min(high, median));
    }
  }
  yield;

  // ---- Wrapping: a layer wider than the panel becomes several consecutive layers ----
  const breadthOfNode = (u: number) => {
    const node = nodes[u] as LayeredNode;
    return (down ? node.width : node.height) + (loops[u] ? LOOP_ROOM : 0);
  };
  const depthOfNode = (u: number) => {
    const node = nodes[u] as LayeredNode;
    return down ? node.height : node.width;
  };
  const byRank: number[][] = Array.from({ length: top + 1 }, () => []);
  for (let u = 0; u < n; u++) byRank[rank[u] ?? 0]?.push(u);
  const layerOf = new Int32Array(n);
  const place = new Float64Array(n); // a node's relative place in its layer, 0 to 1, for the next layer's order
  const realLayers: number[][] = [];
  for (const members of byRank) {
    if (members.length === 0) continue;
    const weight = (u: number) => {
      const predecessors = inn[u] ?? [];
      if (predecessors.length === 0) return u / Math.max(n, 1);
      let sum = 0;
      for (const p of predecessors) sum += place[p] ?? 0;
      return sum / predecessors.length;
    };
    const keyed = members.map((u) => ({ u, key: weight(u) })).sort((a, b) => a.key - b.key || a.u - b.u);
    let total = 0;
    for (const { u } of keyed) total += breadthOfNode(u) + nodeSpacing;
    const parts = Math.max(1, Math.ceil(total / Math.max(options.maxBreadth, 1)));
    const share = total / parts;
    let filled = 0;
    let part: number[] = [];
    const chunks: number[][] = [];
    for (const { u } of keyed) {
      const size = breadthOfNode(u) + nodeSpacing;
      if (part.length > 0 && filled + size / 2 > share * (chunks.length + 1) && chunks.length < parts - 1) {
        chunks.push(part);
        part = [];
      }
      part.push(u);
      filled += size;
    }
    chunks.push(part);
    for (const chunk of chunks) {
      chunk.forEach((u, i) => {
        layerOf[u] = realLayers.length;
        place[u] = chunk.length > 1 ? i / (chunk.length - 1) : 0.5;
      });
      realLayers.push(chunk);
    }
  }
  yield;

  // ---- Dummies: an edge that spans several layers passes one vertex per layer. Edges to one target share
  // them (a trunk per target and layer): they join after their sources' layers and run to it as one line, so
  // a tool that 300 skills mention gets one trunk instead of 300 parallel lines. ----
  const vertexLayer: number[] = Array.from(layerOf);
  const layers: number[][] = realLayers.map((layer) => [...layer]);
  let vertices = n;
  const trunks = new Map<number, number>(); // target * (layers + 1) + layer → dummy
  const width = layers.length + 1;
  for (const edge of dag) {
    const from = vertexLayer[edge.u] as number;
    const to = vertexLayer[edge.v] as number;
    const chain = [edge.u];
    for (let layer = from + 1; layer < to; layer++) {
      const key = edge.v * width + layer;
      let dummy = trunks.get(key);
      if (dummy === undefined) {
        dummy = vertices++;
        trunks.set(key, dummy);
        vertexLayer.push(layer);
        layers[layer]?.push(dummy);
      }
      chain.push(dummy);
    }
    chain.push(edge.v);
    edge.chain = chain;
  }
  const dummies = vertices - n;
  const upper: number[][] = Array.from({ length: vertices }, () => []);
  const lower: number[][] = Array.from({ length: vertices }, () => []);
  const segments = new Set<number>();
  for (const edge of dag) {
    for (let i = 0; i + 1 < edge.chain.length; i++) {
      const a = edge.chain[i] as number;
      const b = edge.chain[i + 1] as number;
      // A trunk's segment counts once; two edges between the same two nodes (a cycle of two) count twice.
      if (isDummyVertex(a, n) || isDummyVertex(b, n)) {
        const key = a * (vertices + 1) + b;
        if (segments.has(key)) continue;
        segments.add(key);
      }
      lower[a]?.push(b);
      upper[b]?.push(a);
    }
  }
  const isDummy = (x: number) => x >= n;
  yield;

  // ---- Crossings: barycentre sweeps, down and up, keeping the best order seen ----
  const position = new Float64Array(vertices);
  const setPositions = (layer: readonly number[]) => layer.forEach((x, i) => (position[x] = i));
  // A first order: dummies follow the vertex above them, so a long edge starts straight.
  for (let layer = 0; layer < layers.length; layer++) {
    const members = layers[layer] as number[];
    if (layer > 0) {
      const key = new Float64Array(vertices);
      members.forEach((x, i) => {
        const above = upper[x] ?? [];
        key[x] = above.length > 0 ? above.reduce((sum, a) => sum + (position[a] ?? 0), 0) / above.length : (i * (layers[layer - 1]?.length ?? 1)) / Math.max(members.length, 1);
      });
      members.sort((a, b) => (key[a] ?? 0) - (key[b] ?? 0) || a - b);
    }
    setPositions(members);
  }
  // The counting's arrays, made once: it runs after every sweep, and a page runs it cold (each array made per
  // layer and per vertex was most of a cold layout's collecting).
  let segmentCount = 0;
  let widest = 0;
  for (let x = 0; x < vertices; x++) segmentCount += (lower[x] as number[]).length;
  for (const members of layers) widest = Math.max(widest, members.length);
  const targets = new Int32Array(segmentCount);
  const tree = new Int32Array(widest + 1);
  const countCrossings = (): number => {
    let crossings = 0;
    for (let layer = 0; layer + 1 < layers.length; layer++) {
      const members = layers[layer] as number[];
      const below = (layers[layer + 1] as number[]).length;
      // Each source's targets in ascending order (a vertex has a few: each put in place as it comes).
      let count = 0;
      for (const x of members) {
        const from = count;
        for (const b of lower[x] as number[]) {
          const value = position[b] as number;
          let at = count++;
          for (; at > from && (targets[at - 1] as number) > value; at--) targets[at] = targets[at - 1] as number;
          targets[at] = value;
        }
      }
      // Inversions among the targets, read in the sources' order: a Fenwick tree over the layer below.
      tree.fill(0, 0, below + 1);
      for (let i = count - 1; i >= 0; i--) {
        const target = (targets[i] as number) + 1;
        for (let j = target - 1; j > 0; j -= j & -j) crossings += tree[j] as number;
        for (let j = target; j <= below; j += j & -j) tree[j] = (tree[j] as number) + 1;
      }
    }
    return crossings;
  };
  let best = layers.map((layer) => [...layer]);
  let bestCrossings = countCrossings();
  const key = new Float64Array(vertices);
  // The orders after the last two sweeps. A sweep's order depends on the order before it and on its direction
  // alone, and directions alternate: once an order comes back two sweeps later, the sweeps only repeat those two
  // orders, and no later one crosses fewer edges than the best seen. Of the 16 sweeps of a full layout, the bench's
  // graph of 17 skills needs 5 to 7 in its three panels, and of 100 skills 10 to 14.
  let twoBack = new Float64Array(vertices);
  let oneBack = new Float64Array(vertices);
  for (let sweep = 0; sweep < sweeps && bestCrossings > 0; sweep++) {
    const downward = sweep % 2 === 0;
    for (let step = 1; step < layers.length; step++) {
      const layer = downward ? step : layers.length - 1 - step;
      const members = layers[layer] as number[];
      for (const x of members) {
        const neighbours = (downward ? upper[x] : lower[x]) ?? [];
        let sum = 0;
        for (const w of neighbours) sum += position[w] ?? 0;
        // Without neighbours on that side a vertex keeps its place.
        key[x] = neighbours.length > 0 ? sum / neighbours.length : (position[x] ?? 0);
      }
      sortByKey(members, key, position);
      setPositions(members);
    }
    const crossings = countCrossings();
    if (crossings < bestCrossings) {
      bestCrossings = crossings;
      best = layers.map((layer) => [...layer]);
    }
    if (sweep >= 2 && sameOrder(position, twoBack)) break;
    [twoBack, oneBack] = [oneBack, twoBack];
    oneBack.set(position);
    yield;
  }
  for (let layer = 0; layer < layers.length; layer++) {
    layers[layer] = best[layer] as number[];
    setPositions(layers[layer] as number[]);
  }
  // Then neighbours swap where that crosses fewer edges on both sides: for a full layout of a small graph, not
  // for drafts (each pass is quadratic in a vertex's degree).
  // Edges of a crossing edges of b with a left of b, less those crossing with b left of a (layers above and below).
  const swapGain = (a: number, b: number): number => {
    let gain = 0;
    for (const x of upper[a] as number[]) for (const y of upper[b] as number[]) gain += Math.sign((position[x] as number) - (position[y] as number));
    for (const x of lower[a] as number[]) for (const y of lower[b] as number[]) gain += Math.sign((position[x] as number) - (position[y] as number));
    return gain;
  };
  if (sweeps > 2 && vertices <= 2000 && bestCrossings > 0) {
    for (let pass = 0, improved = true; pass < 6 && improved; pass++) {
      improved = false;
      for (const members of layers) {
        for (let i = 0; i + 1 < members.length; i++) {
          const a = members[i] as number;
          const b = members[i + 1] as number;
          if (swapGain(a, b) > 0) {
            members[i] = b;
            members[i + 1] = a;
            position[a] = i + 1;
            position[b] = i;
            improved = true;
          }
        }
      }
    }
    bestCrossings = countCrossings();
  }
  yield;

  // ---- Positions across the layers: each vertex near its neighbours, spacing kept (isotonic regression) ----
  const breadth = new Float64Array(vertices);
  for (let x = 0; x < vertices; x++) breadth[x] = isDummy(x) ? 0 : breadthOfNode(x);
  const gap = (a: number, b: number) => ((breadth[a] ?? 0) + (breadth[b] ?? 0)) / 2 + (isDummy(a) && isDummy(b) ? 4 : isDummy(a) || isDummy(b) ? 7 : nodeSpacing);
  const centre = new Float64Array(vertices);
  for (const members of layers) {
    let at = 0;
    members.forEach((x, i) => {
      if (i > 0) at += gap(members[i - 1] as number, x);
      centre[x] = at;
    });
    // Centred on 0, so that layers of different widths start aligned.
    const middle = at / 2;
    for (const x of members) centre[x] = (centre[x] ?? 0) - middle;
  }
  // A segment between two dummies pulls hardest: long edges stay straight.
  const pull = (a: number, b: number) => (isDummy(a) && isDummy(b) ? 8 : isDummy(a) || isDummy(b) ? 2 : 1);
  const passes = options.placementPasses ?? (n > 3000 ? 4 : 8);
  const blockSum = new Float64Array(vertices);
  const blockWeight = new Float64Array(vertices);
  const blockStart = new Int32Array(vertices);
  for (let pass = 0; pass < passes; pass++) {
    const downward = pass % 2 === 0;
    for (let step = 0; step < layers.length; step++) {
      const members = layers[downward ? step : layers.length - 1 - step] as number[];
      // Targets in the shifted variables y = centre - offset, so that "y never decreases" is the spacing rule.
      let offset = 0;
      let blocks = 0;
      for (let i = 0; i < members.length; i++) {
        const x = members[i] as number;
        if (i > 0) offset += gap(members[i - 1] as number, x);
        let sum = 0;
        let weight = 0;
        for (const w of upper[x] ?? []) {
          const k = pull(w, x);
          sum += k * (centre[w] ?? 0);
          weight += k;
        }
        for (const w of lower[x] ?? []) {
          const k = pull(x, w);
          sum += k * (centre[w] ?? 0);
          weight += k;
        }
        const target = weight > 0 ? sum / weight : (centre[x] ?? 0);
        const w = weight > 0 ? weight : 0.25;
        // Pool adjacent violators: merge blocks while the one before lies right of this one.
        blockSum[blocks] = w * (target - offset);
        blockWeight[blocks] = w;
        blockStart[blocks] = i;
        blocks++;
        while (blocks > 1 && (blockSum[blocks - 2] ?? 0) / (blockWeight[blocks - 2] ?? 1) > (blockSum[blocks - 1] ?? 0) / (blockWeight[blocks - 1] ?? 1)) {
          blockSum[blocks - 2] = (blockSum[blocks - 2] ?? 0) + (blockSum[blocks - 1] ?? 0);
          blockWeight[blocks - 2] = (blockWeight[blocks - 2] ?? 0) + (blockWeight[blocks - 1] ?? 0);
          blocks--;
        }
      }
      // Within the layer's allowed breadth: clipping the regression to bounds shared by every y is optimal.
      const firstHalf = (breadth[members[0] as number] ?? 0) / 2;
      const lastHalf = (breadth[members[members.length - 1] as number] ?? 0) / 2;
      const span = Math.max(options.maxBreadth, offset + firstHalf + lastHalf);
      const lowest = -span / 2 + firstHalf;
      const highest = span / 2 - offset - lastHalf;
      offset = 0;
      let block = 0;
      for (let i = 0; i < members.length; i++) {
        const x = members[i] as number;
        if (i > 0) offset += gap(members[i - 1] as number, x);
        while (block + 1 < blocks && (blockStart[block + 1] ?? Infinity) <= i) block++;
        centre[x] = Math.min(highest, Math.max(lowest, (blockSum[block] ?? 0) / (blockWeight[block] ?? 1))) + offset;
      }
    }
    if (pass % 2 === 1) yield;
  }

  // ---- Depth: each layer as thick as its thickest node ----
  const thickness = layers.map((members) => members.reduce((most, x) => Math.max(most, isDummy(x) ? 0 : depthOfNode(x)), 0));
  const layerStart: number[] = [];
  let depth = 0;
  for (let layer = 0; layer < layers.length; layer++) {
    layerStart.push(depth);
    depth += (thickness[layer] ?? 0) + layerSpacing;
  }
  let minBreadth = Infinity;
  let maxBreadth = -Infinity;
  for (let x = 0; x < vertices; x++) {
    minBreadth = Math.min(minBreadth, (centre[x] ?? 0) - (breadth[x] ?? 0) / 2);
    maxBreadth = Math.max(maxBreadth, (centre[x] ?? 0) + (breadth[x] ?? 0) / 2);
  }
  if (vertices === 0) minBreadth = maxBreadth = 0;
  const extentAcross = maxBreadth - minBreadth + 2 * padding;
  const extentAlong = Math.max(0, depth - layerSpacing) + 2 * padding;
  const extent = { direction: options.direction, width: down ? extentAcross : extentAlong, height: down ? extentAlong : extentAcross, layers: layers.length, dummies, crossings: bestCrossings };
  if (options.extentOnly) return { ...extent, nodes: new Map(), edges: [] };
  const shift = padding - minBreadth;
  const point = (across: number, along: number): Point => (down ? { x: across + shift, y: along + padding } : { x: along + padding, y: across + shift });

  const placed = new Map<string, PlacedNode>();
  const nodeCentre = (u: number) => (centre[u] ?? 0) - (loops[u] ? LOOP_ROOM / 2 : 0);
  for (let u = 0; u < n; u++) {
    const node = nodes[u] as LayeredNode;
    const layer = layerOf[u] ?? 0;
    const along = (layerStart[layer] ?? 0) + (thickness[layer] ?? 0) / 2;
    const corner = point(nodeCentre(u), along);
    placed.set(node.id, { id: node.id, x: corner.x - node.width / 2, y: corner.y - node.height / 2, width: node.width, height: node.height });
  }

  // ---- Edges: ports spread along a node's side in the order of where their edges go ----
  const exitPort = new Map<DagEdge, number>();
  const entryPort = new Map<DagEdge, number>();
  const leaving: DagEdge[][] = Array.from({ length: n }, () => []);
  const entering: DagEdge[][] = Array.from({ length: n }, () => []);
  for (const edge of dag) {
    leaving[edge.u]?.push(edge);
    entering[edge.v]?.push(edge);
  }
  // Edges that arrive by one trunk share its port; two edges between the same two nodes get one port each.
  const spread = (u: number, list: DagEdge[], next: (edge: DagEdge) => number, into: Map<DagEdge, number>) => {
    if (list.length === 0) return;
    list.sort((a, b) => (centre[next(a)] ?? 0) - (centre[next(b)] ?? 0));
    const ports: DagEdge[][] = [];
    for (const edge of list) {
      const last = ports[ports.length - 1];
      const shared = last && isDummyVertex(next(edge), n) && next(last[0] as DagEdge) === next(edge);
      if (shared) last.push(edge);
      else ports.push([edge]);
    }
    const side = breadthOfNode(u) - (loops[u] ? LOOP_ROOM : 0) - 16;
    const step = ports.length > 1 ? Math.min(8, Math.max(0, side) / (ports.length - 1)) : 0;
    ports.forEach((group, i) => {
      for (const edge of group) into.set(edge, (i - (ports.length - 1) / 2) * step);
    });
  };
  for (let u = 0; u < n; u++) {
    spread(u, leaving[u] ?? [], (edge) => edge.chain[1] ?? edge.v, exitPort);
    spread(u, entering[u] ?? [], (edge) => edge.chain[edge.chain.length - 2] ?? edge.u, entryPort);
  }
  const routed: RoutedEdge[] = [];
  edges.forEach((edge, i) => {
    const u = index.get(edge.from);
    const v = index.get(edge.to);
    if (u === undefined || v === undefined) return;
    if (u === v) {
      const box = placed.get(edge.from) as PlacedNode;
      // Out of the far side and back in, beside the node.
      const points = down
        ? [{ x: box.x + box.width, y: box.y + box.height * 0.3 }, { x: box.x + box.width + LOOP_ROOM * 1.6, y: box.y - 4 }, { x: box.x + box.width + LOOP_ROOM * 1.6, y: box.y + box.height + 4 }, { x: box.x + box.width, y: box.y + box.height * 0.7 }]
        : [{ x: box.x + box.width * 0.7, y: box.y + box.height }, { x: box.x + box.width + 4, y: box.y + box.height + LOOP_ROOM * 1.6 }, { x: box.x - 4, y: box.y + box.height + LOOP_ROOM * 1.6 }, { x: box.x + box.width * 0.3, y: box.y + box.height }];
      routed.push({ index: i, shape: "loop", points });
      return;
    }
    const dagEdge = dagOf.get(`${u},${v}`);
    if (!dagEdge) return;
    const points: Point[] = [];
    const { chain } = dagEdge;
    chain.forEach((x, k) => {
      const layer = vertexLayer[x] ?? 0;
      const start = layerStart[layer] ?? 0;
      const end = start + (thickness[layer] ?? 0);
      if (k === 0) {
        const half = depthOfNode(x) / 2;
        points.push(point(nodeCentre(x) + (exitPort.get(dagEdge) ?? 0), start + (thickness[layer] ?? 0) / 2 + half));
      } else if (k === chain.length - 1) {
        const half = depthOfNode(x) / 2;
        points.push(point(nodeCentre(x) + (entryPort.get(dagEdge) ?? 0), start + (thickness[layer] ?? 0) / 2 - half));
      } else {
        // Straight through the layer's band, where the boxes are.
        points.push(point(centre[x] ?? 0, start), point(centre[x] ?? 0, end));
      }
    });
    if (dagEdge.reversed) points.reverse();
    routed.push({ index: i, shape: "layered", points });
  });

  return { ...extent, nodes: placed, edges: routed };
}
