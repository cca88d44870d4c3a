/** One entry point: the language server (`--stdio`, `--node-ipc`, `--socket=N`) or the command line over the core. */
import { runCli } from "./cli/index.js";

const transports = ["--stdio", "--node-ipc", "--socket", "--pipe", "--clientProcessId"];
const args = process.argv.slice(2);

if (args.some((arg) => transports.some((flag) => arg === flag || arg.startsWith(`${flag}=`)))) {
  void import("./lsp/server.js").then((server) => server.startServer());
} else {
  runCli(args).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.stack ?? error.message : String(error));
      process.exitCode = 2;
    },
  );
}
