import { promises as fs } from "node:fs";
import * as path from "node:path";
import { isAbortError, LlamaPlannerModel, ModelError, routingSuite, runRouting, type RoutingCase, type RoutingReport, type RoutingResult, type RoutingStatus } from "../planner/index.js";
import { gpuOption, loadNamespace, parseArgs, positiveNumber, relativeUri, UsageError, type CliIo, type Verb } from "./common.js";

const ROUTING_USAGE = `test-routing [folder…] --model M [--junit FILE] [--min-passed N] [options]
                               Give every skill's examples and near misses to the planner and check where
                               each is routed. Exits 1 when one fails.
    --model M                  A .gguf file, or an hf: URI downloaded once.
    --junit FILE               Also write the results as JUnit XML, for CI.
    --min-passed N             A regression gate: exit 1 only when fewer than N cases pass.
    --threads N, --context N, --gpu auto|off
                               As for plan.`;

interface RoutingOptions {
  readonly folders: readonly string[];
  readonly model: string;
  readonly junit: string | undefined;
  readonly minPassed: number | undefined;
  readonly threads: number | undefined;
  readonly contextSize: number | undefined;
  readonly gpu: "auto" | false;
}

function parseRoutingArgs(args: readonly string[]): RoutingOptions {
  const { folders, values } = parseArgs(args, { valued: ["--model", "--junit", "--min-passed", "--threads", "--context", "--gpu"], positionalFolders: true });
  const model = values.get("--model");
  if (!model) throw new UsageError("test-routing needs --model: a .gguf file or an hf: URI.");
  return {
    folders,
    model,
    junit: values.get("--junit"),
    minPassed: positiveNumber("--min-passed", values.get("--min-passed")),
    threads: positiveNumber("--threads", values.get("--threads")),
    contextSize: positiveNumber("--context", values.get("--context")),
    gpu: gpuOption(values.get("--gpu")),
  };
}

const relative = relativeUri;

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

const LABELS: Readonly<Record<RoutingStatus, string>> = { passed: "pass ", failed: "FAIL ", errored: "ERROR", skipped: "skip " };

/** The report a person reads: each skill, each case with its verdict, then the totals. */
export function formatRoutingReport(report: RoutingReport): string[] {
  const lines: string[] = [];
  let current = "";
  for (const { case: routingCase, result } of report.outcomes) {
    if (routingCase.uri !== current) {
      current = routingCase.uri;
      if (lines.length > 0) lines.push("");
      lines.push(`@${routingCase.skill}  ${relative(routingCase.uri)}`);
    }
    const kind = routingCase.kind === "example" ? "example  " : "near miss";
    lines.push(`  ${LABELS[result.status]} ${kind}  ${JSON.stringify(routingCase.text)}  (line ${routingCase.range.start.line + 1}${result.ms > 0 ? `, ${Math.round(result.ms)} ms` : ""})`);
    lines.push(`         ${result.message}`);
  }
  const { passed, failed, errored, skipped } = report.counts;
  if (lines.length > 0) lines.push("");
  lines.push(`${report.outcomes.length} routing tests: ${passed} passed, ${failed} failed, ${errored} errored, ${skipped} skipped in ${(report.ms / 1000).toFixed(1)} s.`);
  return lines;
}

/** Text made safe for XML: markup characters escaped, characters XML forbids dropped. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/**
 * The results as JUnit XML, the format CI systems read: one `<testsuite>` per skill, one `<testcase>` per
 * example or near miss (with its file and line), a `<failure>` naming what was chosen and why, an `<error>`
 * for a plan the model garbled, `<skipped>` for a near miss of a skill off the menu.
 */
export function junitXml(report: RoutingReport): string {
  const bySkill = new Map<string, { case: RoutingCase; result: RoutingResult }[]>();
  for (const outcome of report.outcomes) {
    const list = bySkill.get(outcome.case.uri) ?? [];
    list.push(outcome);
    bySkill.set(outcome.case.uri, list);
  }
  const count = (list: readonly { result: RoutingResult }[], status: RoutingStatus) => list.filter((outcome) => outcome.result.status === status).length;
  const time = (list: readonly { result: RoutingResult }[]) => seconds(list.reduce((sum, outcome) => sum + outcome.result.ms, 0));
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="skill-lsp routing" tests="${report.outcomes.length}" failures="${report.counts.failed}" errors="${report.counts.errored}" skipped="${report.counts.skipped}" time="${seconds(report.ms)}">`,
  ];
  for (const [uri, list] of bySkill) {
    const skill = list[0]?.case.skill ?? "";
    const file = xml(relative(uri));
    lines.push(`  <testsuite name="@${xml(skill)}" tests="${list.length}" failures="${count(list, "failed")}" errors="${count(list, "errored")}" skipped="${count(list, "skipped")}" time="${time(list)}" file="${file}">`);
    for (const { case: routingCase, result } of list) {
      const kind = routingCase.kind === "example" ? "example" : "near miss";
      const open = `    <testcase classname="routing.${xml(skill)}" name="${kind}: ${xml(routingCase.text)}" file="${file}" line="${routingCase.range.start.line + 1}" time="${seconds(result.ms)}"`;
      const detail = `chosen: ${result.chosen.length > 0 ? result.chosen.map((handle) => `@${handle}`).join(", ") : "none"}${result.reason === "" ? "" : `\nreason: ${result.reason}`}`;
      if (result.status === "passed") lines.push(`${open}/>`);
      else if (result.status === "failed") lines.push(`${open}>`, `      <failure message="${xml(result.message)}" type="misrouted">${xml(detail)}</failure>`, "    </testcase>");
      else if (result.status === "errored") lines.push(`${open}>`, `      <error message="${xml(result.message)}" type="plan"/>`, "    </testcase>");
      else lines.push(`${open}>`, `      <skipped message="${xml(result.message)}"/>`, "    </testcase>");
    }
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>", "");
  return lines.join("\n");
}

/**
 * The `test-routing` verb: loads the folders' skills, runs every routing case on the model, prints the report
 * and (with --junit) writes JUnit XML. Answers the exit code: 0 all passed (or, with --min-passed, at least that
 * many), 1 a case failed or errored (fewer passed), 2 usage
 * or a model that cannot run, 130 interrupted.
 */
async function runTestRouting(args: readonly string[], io: CliIo): Promise<number> {
  const options = parseRoutingArgs(args);
  const namespace = await loadNamespace(options.folders);
  const suite = routingSuite(namespace);
  if (suite.skills.length === 0) {
    io.out(`No skill in ${options.folders.join(", ")} lists examples or near-misses: nothing to test.`);
    return 0;
  }
  io.out(`Routing ${suite.skills.reduce((sum, skill) => sum + skill.cases.length, 0)} requests on ${options.model}; the menu: ${suite.menu.map((handle) => `@${handle}`).join(" ") || "empty (planning is off)"}`);
  io.out("");
  const model = new LlamaPlannerModel({ model: options.model, threads: options.threads, contextSize: options.contextSize, gpu: options.gpu, idleUnloadMs: 0 });
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.once("SIGINT", interrupt);
  try {
    const report = await runRouting({ model, namespace, signal: controller.signal });
    for (const line of formatRoutingReport(report)) io.out(line);
    if (options.junit) {
      await fs.mkdir(path.dirname(path.resolve(options.junit)), { recursive: true });
      await fs.writeFile(options.junit, junitXml(report));
      io.out(`JUnit XML written to ${options.junit}.`);
    }
    if (options.minPassed !== undefined) {
      const { passed } = report.counts;
      io.out(passed >= options.minPassed ? `Gate passed: ${passed} cases passed, at least ${options.minPassed} required.` : `Gate FAILED: ${passed} cases passed, fewer than the ${options.minPassed} required.`);
      return passed >= options.minPassed ? 0 : 1;
    }
    return report.counts.failed + report.counts.errored > 0 ? 1 : 0;
  } catch (error) {
    if (isAbortError(error)) {
      io.err("skill-lsp test-routing: interrupted.");
      return 130;
    }
    if (error instanceof ModelError) {
      io.err(`skill-lsp test-routing: ${error.message}`);
      return 2;
    }
    throw error;
  } finally {
    process.off("SIGINT", interrupt);
    await model.dispose();
  }
}

export const testRoutingVerb: Verb = { name: "test-routing", usage: ROUTING_USAGE, run: runTestRouting };
