import { promises as fs } from "node:fs";
import * as path from "node:path";
import { ToolArgumentError } from "./types.js";
import { isoDay } from "./dates.js";
import { devicesOf, matchCount, queryWords, walkFiles } from "./workspace.js";

/** What `list_devices` answers. */
export interface DeviceList {
  readonly devices: readonly { readonly id: string; readonly name: string }[];
}

/** One file `find_file` found. */
export interface FoundFile {
  readonly device: string;
  readonly path: string;
  readonly bytes: number;
  readonly modified: string;
}

/** What `find_file` answers. */
export interface FileAnswer {
  readonly files: readonly FoundFile[];
  readonly searched: readonly string[];
  readonly note?: string;
}

const MAX_FOUND = 10;

/** The user's devices: one per workspace folder. */
export function listDevices(folders: readonly string[]): DeviceList {
  return { devices: devicesOf(folders).map(({ id, name }) => ({ id, name })) };
}

/**
 * Finds files whose path holds the description's words (a word in the file name counts twice), on one device
 * or all of them; the best ten, best first.
 */
export async function findFile(args: { readonly description: string; readonly device?: string }, folders: readonly string[], signal?: AbortSignal): Promise<FileAnswer> {
  const devices = devicesOf(folders);
  const wanted = args.device?.trim() ?? "";
  const chosen = wanted === "" ? devices : devices.filter((device) => device.id === wanted.toLowerCase() || device.name === wanted);
  if (chosen.length === 0) {
    throw new ToolArgumentError(`There is no device "${args.device}". The devices are: ${devices.map((device) => device.id).join(", ") || "none"} (see list_devices).`);
  }
  const words = queryWords(args.description);
  if (words.length === 0) throw new ToolArgumentError(`The description ${JSON.stringify(args.description)} has no words to look for: name the file, its type or words from its path.`);
  const scored: { readonly device: string; readonly file: string; readonly relative: string; readonly score: number }[] = [];
  for (const device of chosen) {
    for (const file of await walkFiles(device.folder, signal)) {
      const name = path.posix.basename(file.relative);
      const score = matchCount(words, file.relative) + matchCount(words, name);
      if (score > 0) scored.push({ device: device.id, file: file.path, relative: file.relative, score });
    }
  }
  scored.sort((a, b) => b.score - a.score || a.relative.length - b.relative.length || a.relative.localeCompare(b.relative));
  const files: FoundFile[] = [];
  for (const hit of scored.slice(0, MAX_FOUND)) {
    const stat = await fs.stat(hit.file).catch(() => undefined);
    files.push({ device: hit.device, path: hit.relative, bytes: stat?.size ?? 0, modified: stat ? isoDay(stat.mtime) : "" });
  }
  const searched = chosen.map((device) => device.id);
  return files.length > 0 ? { files, searched } : { files, searched, note: `No file on ${searched.join(", ")} has ${words.map((word) => `"${word}"`).join(" or ")} in its name or path.` };
}
