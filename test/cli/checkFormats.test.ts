import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { VERSION } from "../../server/src/version.js";

const REPO = path.resolve(__dirname, "../..");
const SERVER = path.join(REPO, "dist/server.js");

function cli(args: readonly string[], cwd: string) {
  const result = spawnSync(process.execPath, [SERVER, ...args], { cwd, encoding: "utf8" });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

interface SarifLog {
  version: string;
  runs: {
    tool: { driver: { name: string; version: string; rules: { id: string; shortDescription: { text: string } }[] } };
    originalUriBaseIds: Record<string, { uri: string }>;
    results: {
      ruleId: string;
      ruleIndex: number;
      level: string;
      message: { text: string };
      locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId: string }; region: { startLine: number; startColumn: number; endLine: number; endColumn: number } } }[];
    }[];
  }[];
}

describe("check --format", () => {
  let folder: string;
  before(() => {
    folder = mkdtempSync(path.join(tmpdir(), "skill-check-"));
    cpSync(path.join(REPO, "examples"), folder, { recursive: true });
    // One error (a dangling mention) and one warning (a key the format does not know), in two files.
    writeFileSync(path.join(folder, "skills/home/plan-trip.skill.md"), "---\nsummary: Plan a trip.\n---\nFirst use @flights.\n");
    const triage = path.join(folder, "skills/work/triage-inbox.skill.md");
    writeFileSync(triage, readFileSync(triage, "utf8").replace("---\n", "---\ncolour: blue\n"));
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  it("text is the default, one line per diagnostic, exit 1 on an error", () => {
    const result = cli(["check"], folder);
    assert.equal(result.code, 1);
    const lines = result.out.trim().split("\n");
    assert.equal(lines.length, 2);
    assert.equal(lines[0], "skills/home/plan-trip.skill.md:4:11 error unknown-mention @flights — unknown: no skill or tool has this handle.");
    assert.match(lines[1] ?? "", /^skills\/work\/triage-inbox\.skill\.md:2:1 warning frontmatter-unknown-key .*colour/);
  });

  it("json: a summary and each diagnostic with its place, counted from 1", () => {
    const result = cli(["check", "--format", "json"], folder);
    assert.equal(result.code, 1);
    const report = JSON.parse(result.out) as { version: number; tool: { name: string; version: string }; summary: Record<string, number>; diagnostics: Record<string, unknown>[] };
    assert.equal(report.version, 1);
    assert.deepEqual(report.tool, { name: "skill-lsp", version: VERSION });
    assert.deepEqual(report.summary, { files: 11, errors: 1, warnings: 1, information: 0, hints: 0 });
    assert.deepEqual(report.diagnostics[0], { file: "skills/home/plan-trip.skill.md", startLine: 4, startColumn: 11, endLine: 4, endColumn: 19, severity: "error", code: "unknown-mention", message: "@flights — unknown: no skill or tool has this handle." });
    assert.equal(report.diagnostics[1]?.code, "frontmatter-unknown-key");
    assert.match(String(report.diagnostics[1]?.message), /colour/);
  });

  it("sarif: a SARIF 2.1.0 log as code scanning reads it", () => {
    const result = cli(["check", "--format", "sarif"], folder);
    assert.equal(result.code, 1);
    const log = JSON.parse(result.out) as SarifLog;
    assert.equal(log.version, "2.1.0");
    assert.equal(log.runs.length, 1);
    const [run] = log.runs;
    assert.ok(run);
    assert.equal(run.tool.driver.name, "skill-lsp");
    assert.deepEqual(run.tool.driver.rules.map((rule) => rule.id), ["frontmatter-unknown-key", "unknown-mention"]);
    assert.ok(run.tool.driver.rules.every((rule) => rule.shortDescription.text.length > 0));
    assert.equal(new URL(run.originalUriBaseIds.SRCROOT?.uri ?? "").pathname, `${folder}/`);
    for (const entry of run.results) {
      assert.equal(run.tool.driver.rules[entry.ruleIndex]?.id, entry.ruleId, "ruleIndex points at its rule");
      assert.ok(["error", "warning", "note"].includes(entry.level));
      const location = entry.locations[0]?.physicalLocation;
      assert.equal(location?.artifactLocation.uriBaseId, "SRCROOT");
      assert.ok(readFileSync(path.join(folder, location?.artifactLocation.uri ?? ""), "utf8").length > 0, "the artifact is a real file under SRCROOT");
      assert.ok((location?.region.startLine ?? 0) >= 1 && (location?.region.startColumn ?? 0) >= 1);
    }
    assert.deepEqual(run.results.map((entry) => [entry.ruleId, entry.level, entry.locations[0]?.physicalLocation.artifactLocation.uri]), [
      ["unknown-mention", "error", "skills/home/plan-trip.skill.md"],
      ["frontmatter-unknown-key", "warning", "skills/work/triage-inbox.skill.md"],
    ]);
  });

  it("exit codes: 0 with warnings only, 0 and an empty result on a clean folder, 2 on a bad format", () => {
    writeFileSync(path.join(folder, "skills/home/plan-trip.skill.md"), readFileSync(path.join(REPO, "examples/skills/home/plan-trip.skill.md"), "utf8"));
    assert.equal(cli(["check", "--format", "sarif"], folder).code, 0);
    const clean = cli(["check", "--format", "sarif", path.join(REPO, "examples")], folder);
    assert.equal(clean.code, 0);
    assert.deepEqual((JSON.parse(clean.out) as SarifLog).runs[0]?.results, []);
    const bad = cli(["check", "--format", "xml"], folder);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /^skill-lsp check: --format takes text, json, sarif; got xml\./);
  });

  it("the version constant is package.json's version", () => {
    const manifest = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { version: string };
    assert.equal(VERSION, manifest.version);
  });
});
