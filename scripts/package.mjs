// `npm run package`: a VSIX per platform node-llama-cpp ships binaries for, and a universal one without the
// planner's native part. `--target T` (repeatable) builds only those; `--no-readme` leaves the README's size table alone; see scripts/lib/vsix.mjs for the list.
// The client and the server are bundled by esbuild; a platform's VSIX carries node-llama-cpp, its runtime
// dependencies and that platform's binary package only, without llama.cpp's sources (needed only to build
// from source, which the extension never does). Binary packages for other platforms than the installed one
// come from the npm registry once, cached in .cache/node-llama-cpp/. Each VSIX's contents are checked after it
// is built: a missing or foreign binary fails the build.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { TARGETS, listZip, vsixProblems } from "./lib/vsix.mjs";
import { bundledPackages, noticesFor } from "./lib/notices.mjs";

const root = path.resolve(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const llamaVersion = manifest.dependencies["node-llama-cpp"];
const stageRoot = path.join(root, ".package");
const cache = path.join(root, ".cache/node-llama-cpp");
const repository = manifest.repository.url.replace(/\.git$/, "");

const wanted = process.argv.flatMap((arg, index) => (process.argv[index - 1] === "--target" ? [arg] : []));
for (const target of wanted) if (!(target in TARGETS)) fail(`Unknown target ${target}. Targets: ${Object.keys(TARGETS).join(", ")}.`);
const targets = wanted.length > 0 ? wanted : Object.keys(TARGETS);

function fail(message) {
  console.error(`package: ${message}`);
  process.exit(1);
}

function run(command, args, cwd = root) {
  const result = spawnSync(command, args, { cwd, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (${result.status ?? result.signal})`);
}

/** The runtime dependency closure of a package, resolved the way Node resolves it from `from`: directory → name. */
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

/** A node-llama-cpp binary package's folder: the installed one, else unpacked from the registry's tarball (cached). */
function nativePackage(name) {
  const installed = path.join(root, "node_modules/@node-llama-cpp", name);
  if (existsSync(path.join(installed, "package.json")) && JSON.parse(readFileSync(path.join(installed, "package.json"), "utf8")).version === llamaVersion) return installed;
  const unpacked = path.join(cache, `${name}-${llamaVersion}`);
  if (existsSync(path.join(unpacked, "package.json"))) return unpacked;
  mkdirSync(cache, { recursive: true });
  const tarball = path.join(cache, `node-llama-cpp-${name}-${llamaVersion}.tgz`);
  if (!existsSync(tarball)) {
    const packed = spawnSync("npm", ["pack", `@node-llama-cpp/${name}@${llamaVersion}`, "--pack-destination", cache, "--silent"], { cwd: root, encoding: "utf8" });
    if (packed.status !== 0 || !existsSync(tarball)) fail(`could not fetch @node-llama-cpp/${name}@${llamaVersion} from the npm registry (offline?): ${packed.stderr.trim()}`);
  }
  const partial = `${unpacked}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  run("tar", ["-xzf", tarball, "-C", partial, "--strip-components=1"]);
  cpSync(partial, unpacked, { recursive: true });
  rmSync(partial, { recursive: true, force: true });
  return unpacked;
}

rmSync(stageRoot, { recursive: true, force: true });
const metafiles = path.join(stageRoot, "meta");
mkdirSync(metafiles, { recursive: true });
run(process.execPath, ["esbuild.mjs", "--production", "--metafile", metafiles]);
const bundled = bundledPackages(readdirSync(metafiles).map((file) => JSON.parse(readFileSync(path.join(metafiles, file), "utf8"))), root);

const sizes = [];
for (const target of targets) {
  const stage = path.join(stageRoot, target);
  mkdirSync(stage, { recursive: true });
  for (const entry of ["dist/client.js", "dist/server.js", "dist/server-bundle.js", "dist/reader-worker.js", "dist/reader-parse.js", "dist/join-worker.js", "media", "syntaxes", "schemas", "language-configuration.json", "README.md", "CHANGELOG.md", "LICENSE"]) {
    cpSync(path.join(root, entry), path.join(stage, entry), { recursive: true });
  }
  rmSync(path.join(stage, "media/icon.svg"), { force: true });
  rmSync(path.join(stage, "media/graph/src"), { recursive: true, force: true });
  rmSync(path.join(stage, "media/graph/tsconfig.json"), { force: true });

  const natives = TARGETS[target];
  const modules = new Map(natives.length > 0 ? closure("node-llama-cpp", root) : []);
  for (const source of modules.keys()) {
    // Where it lies under the repository: a nested copy (another version of a shared dependency) stays nested.
    cpSync(source, path.join(stage, path.relative(root, source)), {
      recursive: true,
      filter: (file) => !file.includes(`${path.sep}llama${path.sep}gitRelease.bundle`) && !file.endsWith(".map") && !file.endsWith(".d.ts"),
    });
  }
  for (const name of natives) {
    const source = nativePackage(name);
    cpSync(source, path.join(stage, "node_modules/@node-llama-cpp", name), { recursive: true });
    modules.set(source, `@node-llama-cpp/${name}`);
  }
  writeFileSync(path.join(stage, "THIRD-PARTY-NOTICES.md"), noticesFor(bundled, [...modules.keys()]));

  const { devDependencies, scripts, private: _private, bin, ...published } = manifest;
  published.dependencies = Object.fromEntries(natives.length > 0 ? [["node-llama-cpp", llamaVersion], ...natives.map((name) => [`@node-llama-cpp/${name}`, llamaVersion])] : []);
  published.main = "./dist/client.js";
  writeFileSync(path.join(stage, "package.json"), `${JSON.stringify(published, null, 2)}\n`);
  writeFileSync(path.join(stage, ".vscodeignore"), ["**/*.map", "node_modules/**/*.md", "!node_modules/**/LICENSE*.md", "node_modules/**/*.ts", "node_modules/**/test/**", "node_modules/**/docs/**"].join("\n") + "\n");

  const out = path.join(root, target === "universal" ? `skill-lsp-${manifest.version}.vsix` : `skill-lsp-${target}-${manifest.version}.vsix`);
  const vsce = path.join(root, "node_modules/@vscode/vsce/vsce");
  const platform = target === "universal" ? [] : ["--target", target];
  run(process.execPath, [vsce, "package", ...platform, "--baseContentUrl", `${repository}/blob/main/`, "--baseImagesUrl", `${repository}/raw/main/`, "--out", out], stage);
  const problems = vsixProblems(listZip(out), target);
  if (problems.length > 0) fail(`${path.basename(out)}:\n  ${problems.join("\n  ")}`);
  sizes.push({ target, file: path.relative(root, out), bytes: statSync(out).size });
  console.log(`${path.relative(root, out)}: ${(statSync(out).size / 1024 / 1024).toFixed(1)} MB, contents checked`);
}
writeFileSync(path.join(stageRoot, "sizes.json"), `${JSON.stringify(sizes, null, 2)}\n`);
// The README states each VSIX's size: write the figures this build measured (tests pass --no-readme: a test
// leaves the working tree as it found it).
if (!process.argv.includes("--no-readme")) run(process.execPath, [path.join(root, "scripts/readme.mjs"), ...sizes.flatMap((size) => ["--vsix", path.join(root, size.file)])]);
console.log(`\n${sizes.map((size) => `${size.target.padEnd(12)} ${(size.bytes / 1024 / 1024).toFixed(1).padStart(5)} MB  ${size.file}`).join("\n")}`);
