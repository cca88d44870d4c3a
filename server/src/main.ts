/** One entry point: the language server (`--stdio`, `--node-ipc`, `--socket=N`) or the command line over the core. */
import { setFlagsFromString } from "node:v8";

const transports = ["--stdio", "--node-ipc", "--socket", "--pipe", "--clientProcessId"];
const args = process.argv.slice(2);

// Each side is loaded only when it runs: a language server that also set up every command's modules would
// answer `initialize` later.
if (args.some((arg) => transports.some((flag) => arg === flag || arg.startsWith(`${flag}=`)))) {
  // A long-lived server's old generation grows by at most 40% a collection, not by V8's factor of up to 4: its
  // first index and the comparison after it make garbage faster than a factor tuned for throughput collects
  // it (alternating cold starts at 100,000 skills: 305 MB resident after the whole index against 396, and no
  // slower). A one-shot command keeps V8's factor: `check` on 100,000 skills spent 1.8 s collecting with the
  // cap against 1.3 s without.
  setFlagsFromString("--heap-growing-percent=40");
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
