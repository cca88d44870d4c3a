/**
 * The thread that reads the workspace's files for the first index (dist/reader-worker.js): the main thread
 * parses one batch while this one reads the next, and lists the Agent Skills' folders meanwhile. It only reads;
 * what is kept is decided where the namespace is.
 */
import { parentPort } from "node:worker_threads";
import { readFileBatchSync, type ReadRequest, type ReadResponse } from "./fileBytes.js";
import { listFolderEntriesSync, type ListRequest, type ListResponse } from "./folderEntries.js";

const port = parentPort;
port?.on("message", (request: ReadRequest | ListRequest) => {
  if ("list" in request) {
    const response: ListResponse = { id: request.id, entries: listFolderEntriesSync(request.list.split("\0")) };
    port.postMessage(response, [response.entries.counts.buffer as ArrayBuffer, response.entries.kinds.buffer as ArrayBuffer]);
    return;
  }
  const response: ReadResponse = { id: request.id, batch: readFileBatchSync(request.paths.split("\0"), request.limit, request.spare) };
  port.postMessage(response, [response.batch.bytes.buffer as ArrayBuffer]);
});
