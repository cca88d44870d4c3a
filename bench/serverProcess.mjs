// The built server started over stdio as the launchers start it, for the bench's scripts (cold.mjs, afterIndex.mjs,
// open.mjs), and the command-line options they share.
import { spawn } from "node:child_process";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import * as rpc from "vscode-jsonrpc/node.js";

/**
 * Spawns `server` with the flags and environment every launcher gives (SERVER_NODE_FLAGS and serverEnvironment in
 * shared/protocol.ts), and `nodeFlags` before them; the server's requests to the client are answered with null.
 */
export function startServer(server, nodeFlags = []) {
  const env = { ...process.env, MALLOC_ARENA_MAX: "2" };
  delete env.NODE_EXTRA_CA_CERTS;
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, ["--max-semi-space-size=8", "--v8-pool-size=1", ...nodeFlags, server, "--stdio"], { stdio: ["pipe", "pipe", "ignore"], env });
  const connection = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  for (const method of ["window/workDoneProgress/create", "client/registerCapability", "workspace/diagnostic/refresh", "workspace/semanticTokens/refresh", "workspace/codeLens/refresh"]) {
    connection.onRequest(method, () => null);
  }
  return { child, connection, spawnedAt };
}

/** `initialize` on one workspace folder with these client capabilities, then `initialized`. */
export async function initializeOn(connection, folder, capabilities) {
  await connection.sendRequest("initialize", {
    processId: process.pid,
    rootUri: null,
    workspaceFolders: [{ uri: pathToFileURL(folder).href, name: path.basename(folder) }],
    capabilities,
  });
  connection.sendNotification("initialized", {});
}

/** The builds named with `--server` on a bench script's command line, resolved; the repository's own when none is. */
export function serversOf(args) {
  const servers = args.flatMap((arg, i) => (args[i - 1] === "--server" ? [path.resolve(arg)] : []));
  return servers.length > 0 ? servers : [path.resolve(import.meta.dirname, "../dist/server.js")];
}

/** The number after `name` on the command line, or `fallback` when it is not there or not a number (or 0). */
export function numberOption(args, name, fallback) {
  return args.includes(name) ? Number(args[args.indexOf(name) + 1]) || fallback : fallback;
}
