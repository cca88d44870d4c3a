/**
 * The thread that reads the workspace's files for the first index (dist/reader-worker.js): the main thread
 * parses one batch while this one reads the next, and lists the Agent Skills' folders meanwhile. Asked to, it
 * parses a batch's skills and agent documents as well and answers what the namespace keeps of each; what is
 * kept is decided where the namespace is.
 */
import { parentPort } from "node:worker_threads";
import { bundledModulePath } from "./bundledWorker.js";
import { readFileBatchSync, type ReadRequest, type ReadResponse } from "./fileBytes.js";
import { listFolderEntriesSync, listNextSharedChunk, treesOf, type ListRequest, type ListResponse, type SharedChunks } from "./folderEntries.js";

type Parser = typeof import("./readerParse.js");
/** Null once its file was found missing. */
let parser: Parser | null | undefined;

/**
 * The parsers, loaded on the first batch to parse: a thread started for a listing answers it sooner without
 * them. Undefined when their file is missing: the main thread then parses every batch.
 */
function loadedParser(): Parser | undefined {
  if (parser === undefined) {
    const module = bundledModulePath("reader-parse.js", "readerParse.ts");
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    parser = module === undefined ? null : (require(module) as Parser);
  }
  return parser ?? undefined;
}

const port = parentPort;
port?.on("message", (request: ReadRequest | ListRequest) => {
  if ("list" in request) {
    const folders = request.list.split("\0");
    const trees = treesOf(request);
    if (request.next) {
      const chunks: SharedChunks = new Map();
      while (listNextSharedChunk(folders, request.next, request.chunk ?? 1, chunks, trees));
      port.postMessage({ id: request.id, chunks } satisfies ListResponse);
      return;
    }
    const entries = listFolderEntriesSync(folders, trees);
    port.postMessage({ id: request.id, entries } satisfies ListResponse, [entries.counts.buffer as ArrayBuffer, entries.kinds.buffer as ArrayBuffer]);
    return;
  }
  const paths = request.paths.split("\0");
  const batch = readFileBatchSync(paths, request.limit, request.spare);
  const response: ReadResponse = { id: request.id, batch, ...(request.parse ? loadedParser()?.parsedBatch(paths, batch) : {}) };
  port.postMessage(response, response.parts ? [batch.bytes.buffer as ArrayBuffer, response.parts.numbers.buffer as ArrayBuffer] : [batch.bytes.buffer as ArrayBuffer]);
});
