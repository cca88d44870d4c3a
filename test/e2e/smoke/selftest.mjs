#!/usr/bin/env node
// The e2e infrastructure's self-test: a passing suite exits 0, a failing one exits non-zero, and the UI
// mode can read an output channel and type into an editor.
//   node test/e2e/smoke/selftest.mjs [--artifacts <dir>]   (default test-artifacts/e2e-smoke)
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../..", "..");
const i = process.argv.indexOf("--artifacts");
const artifacts = path.resolve(i > 0 ? process.argv[i + 1] : path.join(repo, "test-artifacts", "e2e-smoke"));
const common = ["--extension", here, "--workspace", path.join(here, "workspace")];
const suite = ["--suite", path.join(here, "suite", "index.js")];

const checks = [
  { name: "passing suite", expect: 0, args: [...common, ...suite, "--artifacts", path.join(artifacts, "pass")] },
  {
    name: "failing suite",
    expect: 1,
    args: [...common, ...suite, "--env", "E2E_SMOKE_FAIL=1", "--artifacts", path.join(artifacts, "fail")],
  },
  { name: "UI", expect: 0, args: [...common, "--ui", path.join(here, "ui.mjs"), "--artifacts", path.join(artifacts, "ui")] },
];

let failed = 0;
for (const check of checks) {
  const started = Date.now();
  const result = spawnSync(process.execPath, [path.join(repo, "test/e2e/run.mjs"), ...check.args], { stdio: "inherit" });
  const ok = result.status === check.expect;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`-- e2e self-test, ${check.name}: exit ${result.status} (expected ${check.expect}) ${ok ? "ok" : "WRONG"} in ${seconds} s`);
  if (!ok) failed++;
}
process.exit(failed ? 1 : 0);
