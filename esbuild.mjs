// Bundles the extension client and the language server. node-llama-cpp stays external: it is ESM with
// native binaries, loaded at run time with import().
import { existsSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import * as esbuild from "esbuild";

const watch = process.argv.includes("--watch");
const production = process.argv.includes("--production");

/** @type {import("esbuild").BuildOptions} */
const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  sourcemap: !production,
  minify: production,
  logLevel: "warning",
  external: ["vscode", "node-llama-cpp"],
  // jsonc-parser's UMD build hides its requires from the bundler; its ES module build does not.
  mainFields: ["module", "main"],
};

/**
 * `crypto` in the server bundle loads Node's crypto module on first use, not at start: the language server's
 * libraries require it at load time for a random pipe name and the bundle's own hashes, and loading it costs
 * a fresh server about 10 ms before it can answer `initialize`.
 */
const lazyCrypto = {
  name: "lazy-crypto",
  setup(build) {
    build.onResolve({ filter: /^(node:)?crypto$/ }, (args) => (args.namespace === "lazy-crypto" ? { path: "node:crypto", external: true } : { path: "crypto", namespace: "lazy-crypto" }));
    build.onLoad({ filter: /.*/, namespace: "lazy-crypto" }, () => ({
      contents: [
        "let loadedCrypto;",
        'const nodeCrypto = () => (loadedCrypto ??= require("node:crypto"));',
        "export const createHash = (...args) => nodeCrypto().createHash(...args);",
        "export const randomBytes = (...args) => nodeCrypto().randomBytes(...args);",
      ].join("\n"),
      loader: "js",
    }));
  },
};

/**
 * `net` and `child_process` in the server bundle load on first use, not at start: the language server's
 * libraries require them at load time for transports and a lookup the server never uses over stdio (pipes and
 * sockets, the global module folders), and loading them costs a fresh server about 5 ms before it can answer
 * `initialize`. Those libraries read them as `require(...)` and reach each function through it when called, so a
 * stand-in that forwards every property to the real module on first use is enough.
 */
const lazyLibraryBuiltins = {
  name: "lazy-library-builtins",
  setup(build) {
    build.onResolve({ filter: /^(node:)?(net|child_process)$/ }, (args) =>
      args.namespace === "lazy-library-builtins" ? { path: args.path, external: true } : { path: args.path.replace(/^node:/, ""), namespace: "lazy-library-builtins" },
    );
    build.onLoad({ filter: /.*/, namespace: "lazy-library-builtins" }, (args) => ({
      contents: [
        "let loaded;",
        `const real = () => (loaded ??= require("node:${args.path}"));`,
        "module.exports = new Proxy({}, { get: (_, name) => real()[name], has: (_, name) => name in real(), ownKeys: () => Reflect.ownKeys(real()), getOwnPropertyDescriptor: (_, name) => Object.getOwnPropertyDescriptor(real(), name) });",
      ].join("\n"),
      loader: "js",
    }));
  },
};

/**
 * `worker_threads` in the server bundle loads when the first thread starts (the first index's reader, the
 * menu-similar join), after the open editors' answers, not at start: about 8 ms. Only `Worker` is taken from it;
 * a module that imports another name fails the build here rather than at run time.
 */
const lazyWorkerThreads = {
  name: "lazy-worker-threads",
  setup(build) {
    build.onResolve({ filter: /^(node:)?worker_threads$/ }, (args) => (args.namespace === "lazy-worker-threads" ? { path: "node:worker_threads", external: true } : { path: "worker_threads", namespace: "lazy-worker-threads" }));
    build.onLoad({ filter: /.*/, namespace: "lazy-worker-threads" }, () => ({
      contents: [
        "let loadedThreads;",
        'const threads = () => (loadedThreads ??= require("node:worker_threads"));',
        "export function Worker(...args) { return new (threads().Worker)(...args); }",
      ].join("\n"),
      loader: "js",
    }));
  },
};

const builds = [
  { ...common, entryPoints: ["client/src/extension.ts"], outfile: "dist/client.js" },
  { ...common, entryPoints: ["server/src/main.ts"], outfile: "dist/server-bundle.js", plugins: [lazyCrypto, lazyLibraryBuiltins, lazyWorkerThreads] },
  // What `node dist/server.js` runs: a few lines that run the bundle above from V8's code cache.
  { ...common, entryPoints: ["server/src/start.ts"], outfile: "dist/server.js", sourcemap: false },
  // The thread that reads the workspace's files for the first index, beside the bundle that starts it.
  { ...common, entryPoints: ["server/src/node/readerWorker.ts"], outfile: "dist/reader-worker.js", sourcemap: false },
  // Its parsers, which it loads when first asked to parse.
  { ...common, entryPoints: ["server/src/node/readerParse.ts"], outfile: "dist/reader-parse.js", sourcemap: false },
  // The threads that find the menu-similar pairs, beside it too.
  { ...common, entryPoints: ["server/src/node/joinWorker.ts"], outfile: "dist/join-worker.js", sourcemap: false },
];

// The graph panel's page, bundled for the browser: it runs in the webview.
const browser = { bundle: true, platform: "browser", target: "es2022", format: "iife", logLevel: "warning" };
builds.push({ ...browser, entryPoints: ["media/graph/src/main.ts"], outfile: "media/graph/graph.js", sourcemap: !production, minify: production });

// The VS Code test suites, bundled for the extension host; mocha is loaded from node_modules at run time.
if (process.argv.includes("--tests")) {
  builds.push({ ...common, entryPoints: ["test/e2e/suite/index.ts", "test/e2e/suite/extension.test.ts", "test/e2e/suite/agentSkills.test.ts"], outdir: "out/e2e", external: [...common.external, "mocha"] });
}

if (watch) {
  for (const options of builds) await (await esbuild.context(options)).watch();
} else {
  // `--metafile DIR`: what each bundle is made of, for the packaged extension's third-party notices.
  const metafileIndex = process.argv.indexOf("--metafile");
  const metafileDir = metafileIndex > 0 ? process.argv[metafileIndex + 1] : undefined;
  await Promise.all(
    builds
      .filter((options) => options.entryPoints.every((entry) => existsSync(entry)))
      .map(async (options, index) => {
        const result = await esbuild.build({ ...options, metafile: metafileDir !== undefined });
        if (metafileDir) writeFileSync(path.join(metafileDir, `${index}.meta.json`), JSON.stringify(result.metafile));
      }),
  );
}
