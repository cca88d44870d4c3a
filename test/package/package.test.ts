import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";

const REPO = path.resolve(__dirname, "../..");
const manifest = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { version: string };

interface ZipEntry {
  readonly name: string;
  readonly size: number;
}
interface VsixLib {
  listZip(file: string): ZipEntry[];
  vsixProblems(entries: readonly ZipEntry[], target: string): string[];
  TARGETS: Record<string, string[]>;
}

function run(command: string, args: readonly string[], cwd = REPO) {
  const result = spawnSync(command, args, { cwd, encoding: "utf8" });
  assert.equal(result.status, 0, `${command} ${args.join(" ")}\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** The notices file inside a VSIX, read with the system's unzip. */
function unzipText(vsix: string, entry: string): string {
  return run("unzip", ["-p", vsix, entry]);
}

// CI builds the two VSIXes whose parts are installed here (linux-x64, universal); `npm run package` builds
// and checks every platform's with the same function.
describe("the VSIXes", () => {
  let lib: VsixLib;
  const linux = path.join(REPO, `skill-lsp-linux-x64-${manifest.version}.vsix`);
  const universal = path.join(REPO, `skill-lsp-${manifest.version}.vsix`);

  before(async () => {
    lib = (await import(path.join(REPO, "scripts/lib/vsix.mjs"))) as VsixLib;
    run(process.execPath, ["scripts/package.mjs", "--target", "linux-x64", "--target", "universal", "--no-readme"]);
  });

  it("linux-x64 carries node-llama-cpp and its own binary package, and no other", () => {
    const entries = lib.listZip(linux);
    assert.deepEqual(lib.vsixProblems(entries, "linux-x64"), []);
    const names = entries.map((entry) => entry.name);
    assert.ok(names.includes("extension/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/llama-addon.node"));
    assert.ok(names.includes("extension/node_modules/node-llama-cpp/package.json"));
    assert.deepEqual([...new Set(names.flatMap((name) => /@node-llama-cpp\/([^/]+)\//.exec(name)?.[1] ?? []))], ["linux-x64"]);
    assert.ok(!names.some((name) => name.includes("gitRelease.bundle") || name.endsWith(".map")));
    // The same VSIX judged as another platform's is wrong twice over: a binary missing, a foreign one present.
    assert.deepEqual(lib.vsixProblems(entries, "darwin-arm64").filter((problem) => problem.includes("@node-llama-cpp/")).length >= 2, true);
  });

  it("universal has the editing features and no native part at all", () => {
    const entries = lib.listZip(universal);
    assert.deepEqual(lib.vsixProblems(entries, "universal"), []);
    assert.ok(!entries.some((entry) => entry.name.startsWith("extension/node_modules/")));
    const published = JSON.parse(unzipText(universal, "extension/package.json")) as { dependencies: Record<string, string> };
    assert.deepEqual(published.dependencies, {});
    assert.deepEqual(lib.vsixProblems(lib.listZip(linux), "universal").some((problem) => problem.includes("native binary")), true);
  });

  it("the marketplace metadata is there, and the notices cover every bundled and copied package", () => {
    const published = JSON.parse(unzipText(linux, "extension/package.json")) as Record<string, unknown>;
    for (const key of ["publisher", "repository", "bugs", "homepage", "license", "icon", "categories", "keywords", "galleryBanner"]) assert.ok(published[key], key);
    assert.equal(published.private, undefined);
    const notices = unzipText(linux, "extension/THIRD-PARTY-NOTICES.md");
    // The graph panel lays out with its own code: ELK (EPL-2.0) is a benchmark's dev dependency, never shipped.
    assert.doesNotMatch(notices, /^## elkjs /m);
    assert.ok(!lib.listZip(linux).some((entry) => /elk/i.test(entry.name)), "no ELK file in the VSIX");
    for (const bundled of ["vscode-languageclient", "vscode-languageserver", "yaml", "jsonc-parser", "ical.js", "vscode-uri"]) assert.match(notices, new RegExp(`^## ${bundled.replace(".", "\\.")} `, "m"), bundled);
    const copied = new Set(lib.listZip(linux).flatMap((entry) => /^extension\/(?:node_modules\/(?:[^/]+\/node_modules\/)*)?node_modules\/((?:@[^/]+\/)?[^/]+)\/package\.json$/.exec(entry.name)?.[1] ?? []));
    assert.ok(copied.size > 20, `${copied.size} packages copied`);
    for (const name of copied) assert.match(notices, new RegExp(`^## ${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} `, "m"), name);
    // The README's relative images point at the repository, so they render on the Marketplace.
    const readme = unzipText(linux, "extension/readme.md");
    assert.match(readme, /!\[[^\]]*\]\(https:\/\/github\.com\/skill-lsp\/skill-lsp\/raw\/main\/docs\/screenshots\/completion\.png\)/);
  });
});

describe("the npm package", () => {
  let folder: string;
  const tarball = path.join(REPO, `skill-lsp-${manifest.version}.tgz`);
  before(() => {
    run(process.execPath, ["scripts/pack-server.mjs"]);
    folder = mkdtempSync(path.join(tmpdir(), "skill-npm-"));
    writeFileSync(path.join(folder, "package.json"), "{}\n");
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  it("holds the server, its README, LICENSE and notices, and nothing else", () => {
    const files = run("tar", ["-tzf", tarball]).trim().split("\n").sort();
    assert.deepEqual(files, ["package/LICENSE", "package/README.md", "package/THIRD-PARTY-NOTICES.md", "package/dist/join-worker.js", "package/dist/reader-parse.js", "package/dist/reader-worker.js", "package/dist/server-bundle.js", "package/dist/server.js", "package/package.json"]);
    const published = JSON.parse(run("tar", ["-xzOf", tarball, "package/package.json"])) as { bin: Record<string, string>; dependencies?: unknown };
    assert.deepEqual(published.bin, { "skill-lsp": "dist/server.js" });
    assert.equal(published.dependencies, undefined);
  });

  it("installs offline, and npx skill-lsp checks and serves LSP over stdio", async () => {
    run("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball], folder);
    assert.equal(run("npx", ["--no-install", "skill-lsp", "--version"], folder).trim(), `skill-lsp ${manifest.version}`);
    const checked = spawnSync("npx", ["--no-install", "skill-lsp", "check", "--format", "json", path.join(REPO, "examples")], { cwd: folder, encoding: "utf8" });
    assert.equal(checked.status, 0, checked.stderr);
    assert.equal((JSON.parse(checked.stdout) as { summary: { errors: number } }).summary.errors, 0);

    const server = spawn(path.join(folder, "node_modules/.bin/skill-lsp"), ["--stdio"], { cwd: folder });
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { processId: null, rootUri: null, capabilities: {} } });
    server.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    const answer = await new Promise<string>((resolve, reject) => {
      let seen = "";
      server.stdout.on("data", (chunk: Buffer) => {
        seen += chunk.toString("utf8");
        if (/"id":1/.test(seen)) resolve(seen);
      });
      server.once("exit", (code) => reject(new Error(`the server exited (${code}) before it answered`)));
    });
    server.kill();
    assert.match(answer, /"serverInfo":\{"name":"skill-lsp","version":"[\d.]+"\}/);
    // A client with no capabilities is offered none of the optional ones.
    assert.match(answer, /"renameProvider":true/);
    assert.doesNotMatch(answer, /diagnosticProvider|semanticTokensProvider|fileOperations/);
  });
});
