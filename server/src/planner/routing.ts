/**
 * Routing tests: a skill's `examples:` are requests that must route to it, its `near-misses:` requests that
 * must not. A routing run gives each one to the real planner's first pass (the model chooses from the menu the
 * workspace composes now) and compares the handles it chose with what the skill expects. See docs/routing.md.
 */
import { createHash } from "node:crypto";
import { performance } from "node:perf_hooks";
import { composeSystemPrompt, effectiveAlignment, menuSkills, type Namespace, type Range, type SkillFile } from "../core/index.js";
import type { ToolRunner } from "../tools/types.js";
import { abortError, isAbortError, ModelError, type PlannerModel } from "./model.js";
import { PlanError, Planner } from "./planner.js";
import { menuHandles, planningSystemPrompt } from "./prompts.js";

/** An example must route to its skill; a near miss must not. */
export type RoutingKind = "example" | "near-miss";

/** One request to route, from a skill's frontmatter. */
export interface RoutingCase {
  /** Stable while the skill's file keeps the same request: `<uri>#<kind>:<text>` (`#2`… for a repeat). */
  readonly id: string;
  readonly uri: string;
  /** The skill's handle. */
  readonly skill: string;
  readonly kind: RoutingKind;
  readonly text: string;
  /** Where the request stands in the frontmatter. */
  readonly range: Range;
}

/** A skill that lists routing cases. */
export interface RoutingSkill {
  readonly uri: string;
  readonly skill: string;
  readonly title: string;
  /** The skill's first line, where a test item for the whole skill goes. */
  readonly range: Range;
  /** Undefined when the skill is on the menu; otherwise why not, in words. */
  readonly offMenu: string | undefined;
  readonly cases: readonly RoutingCase[];
}

/** Every routing case of a workspace, by skill, with the menu they are judged against. */
export interface RoutingSuite {
  /** The menu's handles, skills then tools. */
  readonly menu: readonly string[];
  /** Changes exactly when the planning prompt does: results made under another key are stale. */
  readonly menuKey: string;
  /** Skills with at least one case, by handle. */
  readonly skills: readonly RoutingSkill[];
}

export type RoutingStatus = "passed" | "failed" | "errored" | "skipped";

/** How one case went. */
export interface RoutingResult {
  readonly id: string;
  readonly status: RoutingStatus;
  /** The handles the plan named; empty when it named none (or the model was not asked). */
  readonly chosen: readonly string[];
  /** The reason the model gave for its plan. */
  readonly reason: string;
  /** The verdict in words: what was expected, what was chosen, and the model's reason. */
  readonly message: string;
  readonly ms: number;
}

/** A whole run, in suite order. */
export interface RoutingReport {
  readonly menu: readonly string[];
  readonly menuKey: string;
  readonly outcomes: readonly { readonly case: RoutingCase; readonly result: RoutingResult }[];
  readonly counts: Readonly<Record<RoutingStatus, number>>;
  readonly ms: number;
}

export interface RoutingRunOptions {
  readonly model: PlannerModel;
  readonly namespace: Namespace;
  /** The cases to run, by id; all of them when absent. Unknown ids are ignored. */
  readonly ids?: readonly string[];
  readonly signal?: AbortSignal;
  /** Called before each case that asks the model. */
  readonly onStart?: (routingCase: RoutingCase) => void;
  /** Called as each case ends. */
  readonly onResult?: (routingCase: RoutingCase, result: RoutingResult) => void;
}

/** The planning prompt's fingerprint: two runs under one key saw the same menu. */
export function menuKeyOf(namespace: Namespace): string {
  const prompt = composeSystemPrompt(namespace);
  const text = prompt.planning ? planningSystemPrompt(prompt) : prompt.text;
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** Why a skill is not on the menu, or undefined when it is. */
function offMenuReason(skill: SkillFile, onMenu: ReadonlySet<string>, namespace: Namespace): string | undefined {
  if (onMenu.has(skill.uri)) return undefined;
  const where = `@${skill.slug} is not on the planner's menu`;
  if (!skill.validHandle) return `${where}: its file name is not a valid handle.`;
  if (!skill.enabled) return `${where} (enabled: false), so no request can route to it.`;
  if (!skill.advertised) return `${where} (advertised: false): it is reached only through the skills that mention it.`;
  if (effectiveAlignment(namespace).menu) return `${where}: skills.json's alignment.menu does not select it.`;
  return `${where}: its handle is taken by a tool or claimed by another skill file.`;
}

/** The routing cases of every skill that lists some, by handle, then in frontmatter order. */
export function routingSuite(namespace: Namespace): RoutingSuite {
  const prompt = composeSystemPrompt(namespace);
  const onMenu = new Set(menuSkills(namespace).map((skill) => skill.uri));
  const skills: RoutingSkill[] = [];
  const sorted = [...namespace.skills()].filter((skill) => skill.examples.length + skill.nearMisses.length > 0).sort((a, b) => a.slug.localeCompare(b.slug) || a.uri.localeCompare(b.uri));
  for (const skill of sorted) {
    const cases: RoutingCase[] = [];
    const seen = new Map<string, number>();
    const add = (kind: RoutingKind, text: string, range: Range) => {
      const base = `${skill.uri}#${kind}:${text}`;
      const repeat = (seen.get(base) ?? 0) + 1;
      seen.set(base, repeat);
      cases.push({ id: repeat === 1 ? base : `${base}#${repeat}`, uri: skill.uri, skill: skill.slug, kind, text, range });
    };
    for (const entry of skill.examples) add("example", entry.text, entry.range);
    for (const entry of skill.nearMisses) add("near-miss", entry.text, entry.range);
    skills.push({ uri: skill.uri, skill: skill.slug, title: skill.title, range: skill.lines.rangeOf(0, 0), offMenu: offMenuReason(skill, onMenu, namespace), cases });
  }
  return { menu: menuHandles(prompt), menuKey: menuKeyOf(namespace), skills };
}

const mentionList = (handles: readonly string[]): string => (handles.length === 0 ? "nothing (none)" : handles.map((handle) => `@${handle}`).join(", "));
const quoted = (reason: string): string => (reason === "" ? "" : ` (the model's reason: "${reason}")`);

/** The verdict on one plan: an example must name its skill, a near miss must not. */
export function judge(routingCase: RoutingCase, chosen: readonly string[], reason: string): { readonly status: "passed" | "failed"; readonly message: string } {
  const named = chosen.includes(routingCase.skill);
  const skill = `@${routingCase.skill}`;
  if (routingCase.kind === "example") {
    return named
      ? { status: "passed", message: `Routed to ${mentionList(chosen)}${quoted(reason)}` }
      : { status: "failed", message: `Routed to ${mentionList(chosen)} instead of ${skill}${quoted(reason)}` };
  }
  return named
    ? { status: "failed", message: `Routed to ${mentionList(chosen)}, and this near miss must not reach ${skill}${quoted(reason)}` }
    : { status: "passed", message: `Not routed to ${skill}: chose ${mentionList(chosen)}${quoted(reason)}` };
}

/** The plan pass never binds or runs a tool; this runner says so if it is ever asked. */
const NO_TOOLS: ToolRunner = {
  run: () => Promise.resolve({ ok: false, kind: "refused", error: "A routing run only plans; it runs no tool." }),
};

/**
 * Runs routing cases on the model: each request goes through the planner's first pass alone (the menu, the
 * grammar, the parse), in suite order, one at a time, so the menu's evaluated prompt is reused from one request
 * to the next. A skill off the menu fails its examples and skips its near misses without asking the model.
 * Rejects with an `AbortError` when cancelled and with a `ModelError` when the model cannot run (the results
 * reported so far stand); a plan the model garbles is an errored case, and the run goes on.
 */
export async function runRouting(options: RoutingRunOptions): Promise<RoutingReport> {
  const started = performance.now();
  const suite = routingSuite(options.namespace);
  const wanted = options.ids ? new Set(options.ids) : undefined;
  const planner = new Planner({ model: options.model, tools: NO_TOOLS });
  // Load the model first, so that a model that cannot run fails the run at once and no case's time includes the load.
  const asks = suite.skills.some((skill) => skill.offMenu === undefined && skill.cases.some((routingCase) => !wanted || wanted.has(routingCase.id)));
  if (asks) await options.model.prepare({ signal: options.signal });
  const outcomes: { case: RoutingCase; result: RoutingResult }[] = [];
  const counts: Record<RoutingStatus, number> = { passed: 0, failed: 0, errored: 0, skipped: 0 };
  const finish = (routingCase: RoutingCase, result: RoutingResult) => {
    outcomes.push({ case: routingCase, result });
    counts[result.status]++;
    options.onResult?.(routingCase, result);
  };
  for (const skill of suite.skills) {
    for (const routingCase of skill.cases) {
      if (wanted && !wanted.has(routingCase.id)) continue;
      if (options.signal?.aborted) throw abortError(options.signal);
      if (skill.offMenu !== undefined) {
        finish(routingCase, { id: routingCase.id, status: routingCase.kind === "example" ? "failed" : "skipped", chosen: [], reason: "", message: skill.offMenu, ms: 0 });
        continue;
      }
      options.onStart?.(routingCase);
      const caseStarted = performance.now();
      try {
        const plan = await planner.plan({ text: routingCase.text, namespace: options.namespace, signal: options.signal });
        const chosen = plan.kind === "plan" ? plan.handles : [];
        const reason = plan.kind === "plan" ? plan.reason : "";
        finish(routingCase, { id: routingCase.id, ...judge(routingCase, chosen, reason), chosen, reason, ms: performance.now() - caseStarted });
      } catch (error) {
        if (isAbortError(error) || error instanceof ModelError) throw error;
        const message = error instanceof PlanError ? error.message : `The planner failed: ${error instanceof Error ? error.message : String(error)}`;
        finish(routingCase, { id: routingCase.id, status: "errored", chosen: [], reason: "", message, ms: performance.now() - caseStarted });
      }
    }
  }
  return { menu: suite.menu, menuKey: suite.menuKey, outcomes, counts, ms: performance.now() - started };
}
