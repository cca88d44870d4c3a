// `node bench/replayServer.mjs <answers.json> --stdio`: a language server that computes nothing. It answers each
// request whose method the file names with the answer stored there, and any other with null, over the connection
// library the server itself answers through. The bench times the same request of it and of the server: what is
// left to the server is its computing, the rest is the protocol's and the machine's (bench/README.md).
import { readFileSync } from "node:fs";
import { createConnection, ProposedFeatures } from "vscode-languageserver/node.js";

const answers = JSON.parse(readFileSync(process.argv[2] ?? "", "utf8"));
const connection = createConnection(ProposedFeatures.all);
connection.onInitialize(() => ({ capabilities: {} }));
connection.onRequest((method) => answers[method] ?? null);
connection.listen();
