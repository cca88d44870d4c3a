// `node bench/replayServer.mjs --stdio`: a language server that computes nothing. The bench teaches it an answer
// per method (the request `bench/answer`, { method, answer }, with the answer our server gave) and it answers each
// request of that method with it, any other with null, over the connection library the server itself answers
// through. The bench times the same request of it and of the server: what is left to the server is its
// computing, the rest is the protocol's and the machine's (bench/README.md).
import { createConnection, ProposedFeatures } from "vscode-languageserver/node.js";

const answers = new Map();
const connection = createConnection(ProposedFeatures.all);
connection.onInitialize(() => ({ capabilities: {} }));
connection.onRequest("bench/answer", ({ method, answer }) => void answers.set(method, answer));
connection.onRequest((method) => answers.get(method) ?? null);
connection.listen();
