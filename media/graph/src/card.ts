/**
 * What the focus card says about a focused skill's expansion, as plain rows (the page turns them into elements
 * with textContent). No DOM here, so the unit tests read the very rows the panel shows.
 */
import type { Closure, GraphData } from "../../../server/src/core/graph.js";

export interface CardValue {
  readonly text: string;
  /** The CSS class of its colour: skill, tool, disabled or ghost. */
  readonly kind: "skill" | "tool" | "disabled" | "ghost";
}

export interface CardRow {
  readonly label: string;
  readonly values: readonly CardValue[];
  /** Shown when `values` is empty. */
  readonly empty: string;
}

/**
 * The rows for a focused node: the tools its expansion binds, in order; the other skills it goes through to
 * get them (never the focused skill itself, which the card is about); and the disabled skills and unknown
 * mentions it meets, which bind nothing.
 */
export function expansionRows(graph: GraphData, focus: Closure): CardRow[] {
  const slugOf = new Map(graph.nodes.map((node) => [node.id, node.slug]));
  const handle = (id: string) => `@${slugOf.get(id) ?? id}`;
  const rows: CardRow[] = [{ label: "Binds", values: focus.toolNames.map((name) => ({ text: name, kind: "tool" })), empty: "no tool" }];
  // A tool binds itself and goes through nothing: only a skill gets the row.
  const root = graph.nodes.find((node) => node.id === focus.root);
  if (root?.kind === "skill") rows.push({ label: "Through", values: focus.skills.filter((id) => id !== focus.root).map((id) => ({ text: handle(id), kind: "skill" })), empty: "no other skill" });
  if (focus.disabled.length > 0) rows.push({ label: "Disabled", values: focus.disabled.map((id) => ({ text: handle(id), kind: "disabled" })), empty: "" });
  if (focus.unresolved.length > 0) rows.push({ label: "Unknown", values: focus.unresolved.map((id) => ({ text: handle(id), kind: "ghost" })), empty: "" });
  return rows;
}
