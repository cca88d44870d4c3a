// `npm test`: every test the project has, cheapest first. Stops at the first failing stage.
//   node scripts/test.mjs [stage…]   stages: typecheck unit cli lsp reliability bench neovim planner package e2e
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import * as path from "node:path";

const root = path.resolve(import.meta.dirname, "..");

function testFiles(folder) {
  const dir = path.join(root, folder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith(".test.ts"))
    .sort()
    .map((file) => path.join(folder, file));
}

function nodeTests(folder) {
  return () => {
    const files = testFiles(folder);
    if (files.length === 0) return 0;
    return run(process.execPath, ["--import", "tsx", "--test", "--test-reporter=spec", "--test-concurrency=1", ...files]);
  };
}

function run(command, args) {
  console.log(`\n$ ${[path.basename(command), ...args].join(" ")}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  return result.status ?? 1;
}

const stages = {
  // The graph panel's page is typed for the browser (DOM), apart from the rest.
  typecheck: () => run(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", "."]) || run(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", "media/graph/tsconfig.json"]),
  build: () => run(process.execPath, ["esbuild.mjs"]),
  unit: nodeTests("test/unit"),
  cli: nodeTests("test/cli"),
  lsp: nodeTests("test/lsp"),
  reliability: nodeTests("test/reliability"),
  bench: nodeTests("test/bench"),
  neovim: nodeTests("test/neovim"),
  planner: nodeTests("test/planner"),
  package: nodeTests("test/package"),
  e2e: () => (existsSync(path.join(root, "test/e2e/run-all.mjs")) ? run(process.execPath, ["test/e2e/run-all.mjs"]) : 0),
};

const wanted = process.argv.slice(2);
const order = ["typecheck", "build", ...(wanted.length > 0 ? wanted.filter((stage) => stage !== "build" && stage !== "typecheck") : ["unit", "cli", "lsp", "reliability", "bench", "neovim", "planner", "package", "e2e"])];
for (const stage of order) {
  const run = stages[stage];
  if (!run) {
    console.error(`Unknown stage "${stage}". Stages: ${Object.keys(stages).join(", ")}`);
    process.exit(2);
  }
  const started = Date.now();
  const code = run();
  console.log(`— ${stage}: ${code === 0 ? "passed" : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (code !== 0) process.exit(code);
}
