/**
 * The thread that reads the workspace's files for the first index (dist/reader-worker.js): the main thread
 * parses one batch while this one reads the next, and lists the Agent Skills' folders meanwhile. Asked to, it
 * parses a batch's skills and agent documents as well and answers what the namespace keeps of each; what is
 * kept is decided where the namespace is.
 */
import { parentPort } from "node:worker_threads";
import { parsedDocumentParts, parsedSkillParts } from "../core/skillFormats.js";
import type { PostedDocument } from "../core/agentSkills/document.js";
import { encodePartsBatch, type PartsBatch } from "../core/partsBatch.js";
import { FILE_DECODER, filesOfBatch, readFileBatchSync, type FileBatch, type ReadRequest, type ReadResponse } from "./fileBytes.js";
import { uriFromPath } from "./fileUris.js";
import { listFolderEntriesSync, listNextSharedChunk, treesOf, type ListRequest, type ListResponse, type SharedChunks } from "./folderEntries.js";

/**
 * Each file's skill parsed, packed, and each agent document parsed; a file the main thread is to parse
 * (unreadable, neither, or a parse that failed or cannot travel) is left out.
 */
function parsedBatch(paths: readonly string[], batch: FileBatch): { parts: PartsBatch; documents: (PostedDocument | null)[] | undefined } {
  let documents: (PostedDocument | null)[] | undefined;
  const parts = filesOfBatch(batch).map((bytes, i) => {
    if (bytes === undefined) return undefined;
    try {
      const uri = uriFromPath(paths[i] ?? "");
      const text = FILE_DECODER.decode(bytes);
      const skill = parsedSkillParts(uri, text);
      if (skill !== undefined) return skill;
      const document = parsedDocumentParts(uri, text);
      if (document !== undefined) (documents ??= new Array<PostedDocument | null>(paths.length).fill(null))[i] = document;
      return undefined;
    } catch {
      // The main thread parses it again and reports what went wrong there.
      return undefined;
    }
  });
  return { parts: encodePartsBatch(parts), documents };
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
  const response: ReadResponse = { id: request.id, batch, ...(request.parse ? parsedBatch(paths, batch) : {}) };
  port.postMessage(response, response.parts ? [batch.bytes.buffer as ArrayBuffer, response.parts.numbers.buffer as ArrayBuffer] : [batch.bytes.buffer as ArrayBuffer]);
});
