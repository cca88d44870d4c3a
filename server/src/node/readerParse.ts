/**
 * The parsing half of the reading thread (dist/reader-parse.js): loaded there when first asked to parse, so that
 * a thread just started lists and reads without compiling the parsers first.
 */
import { parsedDocumentParts, parsedSkillParts } from "../core/skillFormats.js";
import type { PostedDocument } from "../core/agentSkills/document.js";
import { encodePartsBatch, type PartsBatch } from "../core/partsBatch.js";
import { FILE_DECODER, filesOfBatch, type FileBatch } from "./fileBytes.js";
import { uriFromPath } from "./fileUris.js";

/**
 * Each file's skill parsed, packed, and each agent document parsed; a file the main thread is to parse
 * (unreadable, neither, or a parse that failed or cannot travel) is left out.
 */
export function parsedBatch(paths: readonly string[], batch: FileBatch): { parts: PartsBatch; documents: (PostedDocument | null)[] | undefined } {
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
