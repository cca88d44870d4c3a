// `npm run package`: builds a VSIX for linux-x64 (the default; `--target` picks another platform whose
// node-llama-cpp binaries are installed). The client and the server are bundled by esbuild; the VSIX carries
// node-llama-cpp and its runtime dependencies only, without llama.cpp's sources, which are needed to build
// from source and never at run time.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const targetIndex = process.argv.indexOf("--target");
const target = targetIndex > 0 ? process.argv[targetIndex + 1] : "linux-x64";
const stage = path.join(root, ".package");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const nativePackage = `@node-llama-cpp/${target}`;

function run(command, args, cwd = root) {
  const result = spawnSync(command, args, { cwd, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (${result.status ?? result.signal})`);
}

/** The runtime dependency closure of a package, resolved the way Node resolves it from `from`. */
function closure(name, from, seen = new Map()) {
  let dir = from;
  let found;
  for (;;) {
    const candidate = path.join(dir, "node_modules", name);
    if (existsSync(path.join(candidate, "package.json"))) {
      found = candidate;
      break;
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`${name} is not installed (needed from ${from}); run npm install.`);
    dir = up;
  }
  if (seen.has(found)) return seen;
  seen.set(found, name);
  const pkg = JSON.parse(readFileSync(path.join(found, "package.json"), "utf8"));
  for (const dependency of Object.keys(pkg.dependencies ?? {})) closure(dependency, found, seen);
  return seen;
}

rmSync(stage, { recursive: true, force: true });
mkdirSync(stage);
run(process.execPath, ["esbuild.mjs", "--production"]);

for (const entry of ["dist/client.js", "dist/server.js", "media", "syntaxes", "schemas", "language-configuration.json", "README.md", "CHANGELOG.md", "LICENSE"]) {
  cpSync(path.join(root, entry), path.join(stage, entry), { recursive: true });
}
rmSync(path.join(stage, "media/icon.svg"), { force: true });

const modules = new Map([...closure("node-llama-cpp", root), ...closure(nativePackage, root)]);
for (const source of modules.keys()) {
  const relative = path.relative(root, source);
  cpSync(source, path.join(stage, relative), {
    recursive: true,
    filter: (file) => !file.includes(`${path.sep}llama${path.sep}gitRelease.bundle`) && !file.endsWith(".map") && !file.endsWith(".d.ts"),
  });
}

const { devDependencies, scripts, ...published } = manifest;
published.dependencies = { "node-llama-cpp": manifest.dependencies["node-llama-cpp"], [nativePackage]: manifest.dependencies["node-llama-cpp"] };
published.main = "./dist/client.js";
writeFileSync(path.join(stage, "package.json"), `${JSON.stringify(published, null, 2)}\n`);
writeFileSync(path.join(stage, ".vscodeignore"), ["**/*.map", "node_modules/**/*.md", "node_modules/**/*.ts", "node_modules/**/test/**", "node_modules/**/docs/**"].join("\n") + "\n");

const out = path.join(root, `skill-lsp-${target}-${manifest.version}.vsix`);
run(process.execPath, [path.join(root, "node_modules/@vscode/vsce/vsce"), "package", "--target", target, "--allow-missing-repository", "--skip-license", "--out", out], stage);
const megabytes = (statSync(out).size / 1024 / 1024).toFixed(1);
// The README states the VSIX's size: write the figure this build measured.
run(process.execPath, [path.join(root, "scripts/readme.mjs"), "--vsix", out]);
console.log(`\n${path.relative(root, out)}: ${megabytes} MB (${modules.size} runtime packages for node-llama-cpp)`);
