/** One entry point: the language server (`--stdio`, `--node-ipc`, `--socket=N`) or the command line over the core. */
import { capOldGenerationGrowth, runsAsServer } from "./node/serverRuntime.js";

const args = process.argv.slice(2);

// Each side is loaded only when it runs: a language server that also set up every command's modules would
// answer `initialize` later.
if (runsAsServer(args)) {
  // The launcher (dist/server.js) has set it already, before compiling; the bundle may also run on its own.
  capOldGenerationGrowth();
  void import("./lsp/server.js").then((server) => server.startServer());
} else {
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
