// `npm run package:server`: the language server and command line as the npm package `skill-lsp`
// (`npx skill-lsp --stdio`, `npx skill-lsp check`): the bundled server (dist/server.js runs dist/server-bundle.js), its README, LICENSE and
// third-party notices, and nothing else. Writes skill-lsp-<version>.tgz at the repository root.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { bundledPackages, noticesFor } from "./lib/notices.mjs";

const root = path.resolve(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const stage = path.join(root, ".package-npm");

function run(command, args, cwd = root) {
  const result = spawnSync(command, args, { cwd, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (${result.status ?? result.signal})`);
}

rmSync(stage, { recursive: true, force: true });
const metafiles = path.join(stage, ".meta");
mkdirSync(metafiles, { recursive: true });
run(process.execPath, ["esbuild.mjs", "--production", "--metafile", metafiles]);
// The server's bundle alone: the build writes one metafile per bundle, the server's is the one whose output is dist/server-bundle.js.
const server = readdirSync(metafiles)
  .map((file) => JSON.parse(readFileSync(path.join(metafiles, file), "utf8")))
  .filter((metafile) => Object.keys(metafile.outputs).some((output) => output.endsWith("dist/server-bundle.js")));
rmSync(metafiles, { recursive: true, force: true });

for (const file of ["dist/server.js", "dist/server-bundle.js", "dist/reader-worker.js", "dist/reader-parse.js", "dist/join-worker.js"]) cpSync(path.join(root, file), path.join(stage, file));
cpSync(path.join(root, "server/README.md"), path.join(stage, "README.md"));
cpSync(path.join(root, "LICENSE"), path.join(stage, "LICENSE"));
writeFileSync(path.join(stage, "THIRD-PARTY-NOTICES.md"), noticesFor(bundledPackages(server, root)));
const published = {
  name: "skill-lsp",
  version: manifest.version,
  description: "Language server and linter for agent skills (.skill.md): @-mention completion, diagnostics, rename; SARIF and JSON reports for CI.",
  keywords: ["agent", "skills", "language-server", "lsp", "linter", "sarif"],
  homepage: manifest.homepage,
  bugs: manifest.bugs,
  repository: manifest.repository,
  license: manifest.license,
  bin: { "skill-lsp": "dist/server.js" },
  files: ["dist/server.js", "dist/server-bundle.js", "dist/reader-worker.js", "dist/reader-parse.js", "dist/join-worker.js", "THIRD-PARTY-NOTICES.md"],
  engines: { node: manifest.engines.node },
  peerDependencies: { "node-llama-cpp": manifest.dependencies["node-llama-cpp"] },
  peerDependenciesMeta: { "node-llama-cpp": { optional: true } },
};
writeFileSync(path.join(stage, "package.json"), `${JSON.stringify(published, null, 2)}\n`);
run("npm", ["pack", "--pack-destination", root], stage);
console.log(`skill-lsp-${manifest.version}.tgz`);
