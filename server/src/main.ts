/** One entry point: the language server (`--stdio`, `--node-ipc`, `--socket=N`) or the command line over the core. */
import { compileInForegroundOnFewCores, growOldGenerationForFirstIndex, runsAsServer } from "./node/serverRuntime.js";

const args = process.argv.slice(2);

/** 128 + SIGPIPE's number: what a shell reports for a command the signal stopped. */
const BROKEN_PIPE_STATUS = 141;

// Each side is loaded only when it runs: a language server that also set up every command's modules would
// answer `initialize` later.
if (runsAsServer(args)) {
  // The launcher (dist/server.js) has set it already, before compiling; the bundle may also run on its own.
  growOldGenerationForFirstIndex();
  void import("./lsp/server.js").then((server) => server.startServer());
} else {
  // The launcher has set it already, before compiling; the bundle may also run on its own.
  compileInForegroundOnFewCores();
  // A reader that stops early (`skill-lsp check | head`) closes the pipe: the rest is unwanted, and the process
  // ends at once, quietly, as a tool stopped by SIGPIPE would (status 141 in a shell).
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(BROKEN_PIPE_STATUS);
  });
  import("./cli/index.js")
    .then((cli) => cli.runCli(args))
    .then(
      (code) => {
        process.exitCode = code;
      },
      (error: unknown) => {
        console.error(error instanceof Error ? error.stack ?? error.message : String(error));
        process.exitCode = 2;
      },
    );
}
