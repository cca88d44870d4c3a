// What a VSIX (a zip) holds, and whether a platform's VSIX holds the right native binaries and no others.
import { readFileSync } from "node:fs";

/** The VS Code targets the extension is built for, each with the node-llama-cpp binary packages it carries. */
export const TARGETS = {
  "linux-x64": ["linux-x64"],
  "linux-arm64": ["linux-arm64"],
  "darwin-x64": ["mac-x64"],
  "darwin-arm64": ["mac-arm64-metal"],
  "win32-x64": ["win-x64"],
  "win32-arm64": ["win-arm64"],
  // Every other platform: the editing features, without the planner's native part.
  universal: [],
};

/** Every entry of a zip file (name, uncompressed size), read from its central directory. */
export function listZip(file) {
  const zip = readFileSync(file);
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error(`${file} is not a zip file (no end of central directory).`);
  const count = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  const entries = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(offset) !== 0x02014b50) throw new Error(`${file}: a broken central directory at entry ${i}.`);
    const size = zip.readUInt32LE(offset + 24);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    entries.push({ name: zip.toString("utf8", offset + 46, offset + 46 + nameLength), size });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

const NATIVE = /\.(node|so(\.\d+)*|dylib|dll|exe|metallib)$/;

/**
 * The problems of a VSIX built for `target`: a missing or foreign @node-llama-cpp package, a native binary
 * outside the target's own package, a file a user does not need (sources, maps, tests, llama.cpp's sources).
 */
export function vsixProblems(entries, target) {
  const expected = TARGETS[target];
  if (!expected) return [`unknown target ${target}`];
  const problems = [];
  const names = entries.map((entry) => entry.name);
  const natives = new Set(names.flatMap((name) => /^extension\/node_modules\/@node-llama-cpp\/([^/]+)\//.exec(name)?.[1] ?? []));
  for (const want of expected) if (!natives.has(want)) problems.push(`@node-llama-cpp/${want} is missing`);
  for (const found of natives) if (!expected.includes(found)) problems.push(`@node-llama-cpp/${found} does not belong in the ${target} VSIX`);
  for (const name of names) {
    const own = expected.some((want) => name.startsWith(`extension/node_modules/@node-llama-cpp/${want}/`));
    if (NATIVE.test(name) && !own) problems.push(`a native binary outside ${expected.length > 0 ? `@node-llama-cpp/${expected.join(", ")}` : "any package (universal)"}: ${name}`);
    if (/\.map$|\.tsx?$|(^|\/)test\/|(^|\/)\.vscode-test\/|gitRelease\.bundle$/.test(name) && !/\.d\.ts$/.test(name)) problems.push(`not needed by a user: ${name}`);
    if (/^extension\/(server|client|shared|scripts|test|bench|examples|docs)\//.test(name)) problems.push(`a source or development folder: ${name}`);
  }
  if (expected.length === 0 && names.some((name) => name.startsWith("extension/node_modules/node-llama-cpp/"))) problems.push("node-llama-cpp in the universal VSIX, which has no binaries for it");
  for (const required of ["extension/package.json", "extension/dist/client.js", "extension/dist/server.js", "extension/dist/server-bundle.js", "extension/dist/reader-worker.js", "extension/dist/reader-parse.js", "extension/dist/join-worker.js", "extension/readme.md", "extension/LICENSE.txt", "extension/THIRD-PARTY-NOTICES.md", "extension/media/icon.png"]) {
    if (!names.includes(required)) problems.push(`${required} is missing`);
  }
  return problems;
}
