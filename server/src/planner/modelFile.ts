import { open, stat } from "node:fs/promises";
import { ModelError } from "./model.js";
import { groupedDigits } from "../../../shared/words.js";

/** How a person points the planner at a model, for messages that tell them what to change. */
export const MODEL_SETTING_HINT = "the skill.model.path setting (--model on the command line)";

/** An example `hf:` URI for messages and docs: a small instruction model that calls tools well. */
export const EXAMPLE_MODEL_URI = "hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF:Q4_K_M";

/** True for a model address that is downloaded rather than read from disk. */
export function isModelUri(source: string): boolean {
  return /^(hf:|huggingface:|https?:\/\/)/i.test(source);
}

/** Bytes per block and elements per block of the GGML tensor types whose sizes are certain; others are skipped. */
const TYPE_SIZES: ReadonlyMap<number, { readonly block: number; readonly bytes: number }> = new Map([
  [0, { block: 1, bytes: 4 }], // F32
  [1, { block: 1, bytes: 2 }], // F16
  [2, { block: 32, bytes: 18 }], // Q4_0
  [3, { block: 32, bytes: 20 }], // Q4_1
  [6, { block: 32, bytes: 22 }], // Q5_0
  [7, { block: 32, bytes: 24 }], // Q5_1
  [8, { block: 32, bytes: 34 }], // Q8_0
  [10, { block: 256, bytes: 84 }], // Q2_K
  [11, { block: 256, bytes: 110 }], // Q3_K
  [12, { block: 256, bytes: 144 }], // Q4_K
  [13, { block: 256, bytes: 176 }], // Q5_K
  [14, { block: 256, bytes: 210 }], // Q6_K
  [24, { block: 1, bytes: 1 }], // I8
  [25, { block: 1, bytes: 2 }], // I16
  [26, { block: 1, bytes: 4 }], // I32
  [27, { block: 1, bytes: 8 }], // I64
  [28, { block: 1, bytes: 8 }], // F64
  [30, { block: 1, bytes: 2 }], // BF16
]);

interface TensorLike {
  readonly dimensions: readonly (number | bigint)[];
  readonly ggmlType: number;
  readonly fileOffset: number | bigint;
  readonly filePart: number;
}

/** The smallest size the first file of a model must have for all of its tensors' data to be inside it. */
export function requiredFileSize(tensors: readonly TensorLike[]): number {
  let end = 0;
  for (const tensor of tensors) {
    if (tensor.filePart > 1) continue;
    const start = Number(tensor.fileOffset);
    const type = TYPE_SIZES.get(tensor.ggmlType);
    let bytes = 1;
    if (type) {
      const elements = tensor.dimensions.reduce<number>((product, n) => product * Number(n), 1);
      bytes = Math.ceil(elements / type.block) * type.bytes;
    }
    end = Math.max(end, start + bytes);
  }
  return end;
}

/** What a file that is not GGUF seems to be, from its first bytes, in words a person recognises. */
export function describeContent(start: Uint8Array): string {
  const bytes = Buffer.from(start);
  if (bytes.length === 0) return "it is empty";
  const has = (signature: readonly number[]) => signature.every((byte, index) => bytes[index] === byte);
  if (has([0x50, 0x4b, 0x03, 0x04])) return "it is a ZIP archive; unpack the .gguf file from it";
  if (has([0x1f, 0x8b])) return "it is gzip-compressed; unpack the .gguf file from it";
  if (has([0x80, 0x02]) || has([0x80, 0x04]) || has([0x80, 0x05])) return "it is a PyTorch or pickle file, not a llama.cpp model; get the model's GGUF build";
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes, { stream: true }).replace(/^\uFEFF/, "");
  const printable = [...text].filter((character) => character === "\uFFFD" || /[\p{L}\p{N}\p{P}\p{S}\s]/u.test(character)).length;
  const isText = !text.includes("\uFFFD") && printable === [...text].length;
  if (!isText) return `it starts with the bytes ${[...bytes.subarray(0, 4)].map((byte) => byte.toString(16).padStart(2, "0")).join(" ")}, where a GGUF file starts with "GGUF"`;
  const trimmed = text.trimStart();
  if (/^<(!doctype|html|\?xml)/i.test(trimmed)) return "it is a web page or XML, not a model (a download link that answered with a page?)";
  if (/^[{[]/.test(trimmed)) return "it is JSON text, not a model (a model's config or an index file?)";
  const firstLine = trimmed.split(/\r?\n/)[0] ?? "";
  return `it is text, starting ${JSON.stringify(firstLine.length > 40 ? `${firstLine.slice(0, 39)}…` : firstLine)}`;
}

/**
 * Checks a local model file before llama.cpp sees it, so a wrong path, a file that is no model, a damaged
 * header or a cut-short download each give a {@link ModelError} that says which file, what is wrong and what
 * to do, rather than a bare "Failed to load model" (or, for some damage, an abort of the whole process).
 */
export async function checkModelFile(path: string, nlc: typeof import("node-llama-cpp")): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (!info) {
    throw new ModelError(
      "missing",
      path,
      `Model file not found: ${path}. Check ${MODEL_SETTING_HINT}: give a local .gguf file, or an hf: URI such as ${EXAMPLE_MODEL_URI} to download one.`,
    );
  }
  if (!info.isFile()) {
    throw new ModelError("not-a-file", path, `${path} is ${info.isDirectory() ? "a folder" : "not a regular file"}, not a model file. Point ${MODEL_SETTING_HINT} at a .gguf file.`);
  }
  const start = await readStart(path, 64);
  if (start.subarray(0, 4).toString("latin1") !== "GGUF") {
    throw new ModelError("corrupt", path, `${path} is not a GGUF model file: ${describeContent(start)}. Choose a .gguf model, or download it again if this one was damaged.`);
  }
  // node-llama-cpp's reader can hang on a header that is cut short or nonsense: check the fixed part first.
  const header = await readFixedHeader(path);
  if (header.bytes < 24) {
    throw new ModelError("truncated", path, `${path} is incomplete: it ends inside the GGUF header (${header.bytes} bytes). Download it again.`);
  }
  if (header.version < 2 || header.version > 3 || header.tensors > 1_000_000n || header.keys > 1_000_000n) {
    throw new ModelError("corrupt", path, `${path} is damaged: its GGUF header is not valid (version ${header.version}, ${header.tensors} tensors, ${header.keys} keys). Download the model again.`);
  }
  let fileInfo: Awaited<ReturnType<typeof nlc.readGgufFileInfo>>;
  try {
    fileInfo = await nlc.readGgufFileInfo(path, { readTensorInfo: true, sourceType: "filesystem", spliceSplitFiles: false, logWarnings: false });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const truncated = /out of bounds|end of (file|buffer)|beyond/i.test(reason);
    throw new ModelError(
      truncated ? "truncated" : "corrupt",
      path,
      truncated
        ? `${path} is incomplete: its header ends before it should (${reason}). The download or copy was probably cut short: download it again.`
        : `${path} is damaged: its GGUF header cannot be read (${reason}). Download the model again.`,
      { cause: error },
    );
  }
  const required = requiredFileSize(fileInfo.tensorInfo ?? []);
  if (info.size < required) {
    throw new ModelError(
      "truncated",
      path,
      `${path} is incomplete: it holds ${groupedDigits(info.size)} bytes but its tensors need at least ${groupedDigits(required)}. The download or copy was probably cut short: delete the file and download it again.`,
    );
  }
  // llama.cpp aborts the whole process on a vocabulary with duplicate entries.
  const tokens: unknown = fileInfo.metadata.tokenizer?.ggml?.tokens;
  if (Array.isArray(tokens) && new Set(tokens).size !== tokens.length) {
    throw new ModelError("corrupt", path, `${path} is damaged: its vocabulary lists a token twice, which llama.cpp cannot load. Download the model again.`);
  }
}

/** GGUF's fixed header: magic, u32 version, u64 tensor count, u64 key-value count. */
async function readFixedHeader(path: string): Promise<{ bytes: number; version: number; tensors: bigint; keys: bigint }> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(24);
    const { bytesRead } = await handle.read(buffer, 0, 24, 0);
    if (bytesRead < 24) return { bytes: bytesRead, version: 0, tensors: 0n, keys: 0n };
    return { bytes: bytesRead, version: buffer.readUInt32LE(4), tensors: buffer.readBigUInt64LE(8), keys: buffer.readBigUInt64LE(16) };
  } finally {
    await handle.close();
  }
}

async function readStart(path: string, length: number): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
