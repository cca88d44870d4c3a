import { availableParallelism, homedir } from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { importModule } from "../node/importModule.js";
import { checkModelFile, EXAMPLE_MODEL_URI, isModelUri, MODEL_SETTING_HINT } from "./modelFile.js";
import {
  abortError,
  ModelError,
  type GenerateRequest,
  type GenerateResult,
  type ModelInfo,
  type ModelProgress,
  type ModelSlot,
  type PlannerModel,
  type ScoreRequest,
  type ScoreResult,
  type StopReason,
} from "./model.js";

type NodeLlamaCpp = typeof import("node-llama-cpp");
type Llama = Awaited<ReturnType<NodeLlamaCpp["getLlama"]>>;
type LlamaModel = Awaited<ReturnType<Llama["loadModel"]>>;
type LlamaContext = Awaited<ReturnType<LlamaModel["createContext"]>>;
type LlamaContextSequence = ReturnType<LlamaContext["getSequence"]>;
type LlamaChatSession = InstanceType<NodeLlamaCpp["LlamaChatSession"]>;
type LlamaGrammar = InstanceType<NodeLlamaCpp["LlamaGrammar"]>;
type ChatHistoryItem = import("node-llama-cpp").ChatHistoryItem;
type ChatSessionModelFunctions = import("node-llama-cpp").ChatSessionModelFunctions;

/** Settings of the node-llama-cpp model (the extension's `skill.model.*`). */
export interface LlamaModelSettings {
  /** A local `.gguf` file (`~` expands), or an `hf:` URI or `https:` URL downloaded once into {@link modelsDirectory}. */
  readonly model: string;
  /** Where downloads go. Default: node-llama-cpp's models folder (`~/.node-llama-cpp/models`). */
  readonly modelsDirectory?: string;
  /** `"auto"` tries a GPU and falls back to the CPU; `false` runs on the CPU. Default `"auto"`. */
  readonly gpu?: "auto" | false;
  /**
   * CPU threads. Default (and 0): `os.availableParallelism()`. node-llama-cpp's own default is max(cores, 4),
   * which on a 2-core machine oversubscribes it and made generation about 200 times slower.
   */
  readonly threads?: number;
  /** Context size in tokens per sequence, at most the model's training size. Default 4096. */
  readonly contextSize?: number;
  /** Unload after this long without a request; 0 keeps the model loaded. Default 300 000 ms. */
  readonly idleUnloadMs?: number;
  /**
   * Keep each slot's evaluated system prompt between requests (default true). False clears the sequence before
   * every request, so the whole prompt is evaluated again: only for measuring what reuse saves.
   */
  readonly reusePrefix?: boolean;
  /** Sampling temperature; default 0, greedy: a plan should not change from one run to the next. */
  readonly temperature?: number;
  /**
   * With a temperature, the first request's sampling seed; each later request takes the next one, so repeated
   * requests differ while a run stays reproducible. Without it sampling is seeded at random.
   */
  readonly seed?: number;
  /** Download an `hf:` URI that is not on disk yet. Default true. */
  readonly allowDownload?: boolean;
  /** llama.cpp's warnings and errors; by default they are kept for error messages and not printed. */
  readonly onLog?: (level: string, message: string) => void;
}

const DEFAULT_CONTEXT_SIZE = 4096;
/** The smallest context a model is given. */
const MIN_CONTEXT_SIZE = 256;

/**
 * The context a model gets for this setting before it is loaded: the setting (default 4096), at least 256. A
 * load may clamp it further to the model's trained context, which only the loaded file tells.
 */
export function configuredContextSize(setting: number | undefined): number {
  return Math.max(MIN_CONTEXT_SIZE, setting ?? DEFAULT_CONTEXT_SIZE);
}
/** Said at the end of an answer that ran into the end of the context. */
export const CONTEXT_FULL_NOTE = "the answer was cut: the context is full";
const DEFAULT_IDLE_UNLOAD_MS = 300_000;
const SLOTS: readonly ModelSlot[] = ["plan", "execute"];
const RECENT_LOG_LINES = 20;

interface Slot {
  readonly sequence: LlamaContextSequence;
  readonly session: LlamaChatSession;
}

interface Loaded {
  readonly nlc: NodeLlamaCpp;
  readonly llama: Llama;
  readonly model: LlamaModel;
  readonly context: LlamaContext;
  readonly slots: ReadonlyMap<ModelSlot, Slot>;
  readonly grammars: Map<string, Promise<LlamaGrammar>>;
  readonly info: ModelInfo;
  /** The context asked for, clamped to the trained one: llama.cpp may round the real context up. */
  readonly contextLimit: number;
  /** Made on the first score request: one sequence per candidate, each keeping its evaluated prefix. */
  scoring?: Scoring;
}

type Token = ReturnType<LlamaModel["tokenize"]>[number];

interface Scoring {
  readonly context: LlamaContext;
  readonly sequences: readonly LlamaContextSequence[];
  /** The prefix each sequence holds, as text. */
  readonly held: (string | undefined)[];
}

/** Sequences of the scoring context: a larger menu is scored in rounds, re-evaluating prefixes. */
const MAX_SCORING_SEQUENCES = 32;
/** Tokens of one candidate's prefix plus the request; a longer request is scored on its first tokens. */
const SCORING_TOKENS_PER_SEQUENCE = 384;
/** The continuation's tokens scored at most: enough for a request's gist. */
const MAX_SCORED_TOKENS = 96;
/**
 * The likeliest tokens kept at each position. They carry nearly all the probability mass, and asking for the
 * whole vocabulary costs three times as much; a token outside them counts as {@link UNLIKELY}.
 */
const SCORING_TOP_K = 500;
const UNLIKELY = 1e-6;

interface SharedLlama {
  readonly llama: Llama;
  readonly recentLogs: string[];
  onLog: ((level: string, message: string) => void) | undefined;
}

/** One llama.cpp binding per GPU choice and thread count in a process: `getLlama` takes seconds. */
const sharedLlamas = new Map<string, Promise<SharedLlama>>();

/** node-llama-cpp, or a clear error where it is not installed (the universal VSIX, the npm package without it). */
async function importNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  try {
    return await importModule<NodeLlamaCpp>("node-llama-cpp");
  } catch (error) {
    const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
    if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") throw error;
    throw new Error("The planner needs node-llama-cpp, which this installation does not include: install the extension's build for your platform, or `npm i node-llama-cpp@3.21.1` beside the command line.");
  }
}

async function sharedLlama(nlc: NodeLlamaCpp, gpu: "auto" | false, threads: number): Promise<SharedLlama> {
  const key = `${String(gpu)}:${threads}`;
  let entry = sharedLlamas.get(key);
  if (!entry) {
    entry = (async () => {
      // The logger exists before the binding does, so it writes to this holder that becomes the entry.
      const logs: Omit<SharedLlama, "llama"> = { recentLogs: [], onLog: undefined };
      const logger = (level: import("node-llama-cpp").LlamaLogLevel, message: string) => {
        const line = message.trim();
        if (line === "") return;
        logs.recentLogs.push(line);
        if (logs.recentLogs.length > RECENT_LOG_LINES) logs.recentLogs.shift();
        logs.onLog?.(String(level), line);
      };
      const options = { build: "never", maxThreads: threads, logLevel: nlc.LlamaLogLevel.warn, logger, progressLogs: false } as const;
      let llama: Llama;
      try {
        llama = await nlc.getLlama({ ...options, gpu });
      } catch (error) {
        // A GPU binding that will not load (no driver, no device) must not stop the planner: use the CPU.
        if (gpu === false) throw error;
        llama = await nlc.getLlama({ ...options, gpu: false });
      }
      return Object.assign(logs, { llama });
    })();
    sharedLlamas.set(key, entry);
    entry.catch(() => sharedLlamas.delete(key));
  }
  return entry;
}

/**
 * The process-wide llama.cpp binding that planner models with these settings use (made once: it takes seconds).
 * For callers that need the binding itself, such as a test loading the same file to compare tokenizers.
 */
export async function llamaBinding(options: { readonly gpu?: "auto" | false; readonly threads?: number } = {}): Promise<Llama> {
  const nlc = await importNodeLlamaCpp();
  const threads = options.threads && options.threads > 0 ? Math.floor(options.threads) : availableParallelism();
  return (await sharedLlama(nlc, options.gpu ?? "auto", threads)).llama;
}

/** `~/x` → the home folder; a relative path → absolute from the working folder. */
function resolveLocalPath(source: string): string {
  const expanded = source === "~" || source.startsWith("~/") ? path.join(homedir(), source.slice(1)) : source;
  return path.resolve(expanded);
}

/**
 * The planner's model on node-llama-cpp: loaded on first use, reused, unloaded after an idle timeout. Requests
 * run one at a time. Each slot keeps one chat session on its own context sequence, and every request sets the
 * session's history to [system prompt, messages…]: node-llama-cpp keeps the sequence's evaluated tokens and
 * evaluates only from the first token that differs, so an unchanged system prompt costs nothing the second time.
 */
export class LlamaPlannerModel implements PlannerModel {
  readonly #settings: LlamaModelSettings;
  readonly #threads: number;
  #loading: Promise<Loaded> | undefined;
  #loaded: Loaded | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #active = 0;
  #idleTimer: NodeJS.Timeout | undefined;
  #disposed = false;
  #requests = 0;

  constructor(settings: LlamaModelSettings) {
    this.#settings = settings;
    this.#threads = settings.threads && settings.threads > 0 ? Math.floor(settings.threads) : availableParallelism();
  }

  /** True while the weights are in memory. */
  get loaded(): boolean {
    return this.#loaded !== undefined;
  }

  /** What is loaded, or undefined. */
  get info(): ModelInfo | undefined {
    return this.#loaded?.info;
  }

  /** A synchronous token counter while the model is loaded (for `tokenSize`); undefined otherwise. */
  tokenCounter(): ((text: string) => number) | undefined {
    const model = this.#loaded?.model;
    return model && !model.disposed ? (text) => model.tokenize(text).length : undefined;
  }

  /**
   * The context size a request may count on: the setting clamped to the loaded model's trained context, else the
   * setting (see {@link configuredContextSize}). Not llama.cpp's rounded-up size: the user's figure is the limit.
   */
  contextSize(): number {
    return this.#loaded?.contextLimit ?? configuredContextSize(this.#settings.contextSize);
  }

  async prepare(options: { readonly signal?: AbortSignal; readonly onProgress?: (progress: ModelProgress) => void } = {}): Promise<ModelInfo> {
    const loaded = await this.#ensureLoaded(options.signal, options.onProgress);
    options.onProgress?.({ stage: "ready", info: loaded.info });
    this.#scheduleIdleUnload();
    return loaded.info;
  }

  async countTokens(text: string): Promise<number> {
    for (;;) {
      const loaded = await this.#ensureLoaded();
      // An idle unload may have freed it between the load and now: load again.
      if (!loaded.model.disposed) {
        this.#scheduleIdleUnload();
        return loaded.model.tokenize(text).length;
      }
    }
  }

  generate(request: GenerateRequest): Promise<GenerateResult> {
    return this.#exclusive(request.signal, async () => {
      const loaded = await this.#ensureLoaded(request.signal);
      return this.#generate(loaded, request);
    });
  }

  score(request: ScoreRequest): Promise<ScoreResult> {
    return this.#exclusive(request.signal, async () => {
      const loaded = await this.#ensureLoaded(request.signal);
      return this.#score(loaded, request);
    });
  }

  unload(): Promise<void> {
    return this.#exclusive(undefined, () => this.#unloadNow());
  }

  async #score(loaded: Loaded, request: ScoreRequest): Promise<ScoreResult> {
    const started = performance.now();
    const scoring = await this.#scoring(loaded, request.prefixes.length);
    if (this.#settings.reusePrefix === false) scoring.held.fill(undefined);
    const continuation = loaded.model.tokenize(request.continuation, false).slice(0, MAX_SCORED_TOKENS);
    const before = scoring.sequences.reduce((sum, sequence) => sum + sequence.tokenMeter.usedInputTokens, 0);
    const scores: number[] = [];
    for (let first = 0; first < request.prefixes.length; first += scoring.sequences.length) {
      const round = request.prefixes.slice(first, first + scoring.sequences.length);
      // The round's candidates at once: node-llama-cpp evaluates their sequences together in one batch.
      const roundScores = await Promise.all(round.map((prefix, index) => this.#logLikelihood(loaded, scoring, index, prefix, continuation)));
      if (request.signal?.aborted) throw abortError(request.signal);
      scores.push(...roundScores);
    }
    const after = scoring.sequences.reduce((sum, sequence) => sum + sequence.tokenMeter.usedInputTokens, 0);
    return { scores, evaluatedInputTokens: after - before, durationMs: performance.now() - started };
  }

  async #scoring(loaded: Loaded, candidates: number): Promise<Scoring> {
    const wanted = Math.min(MAX_SCORING_SEQUENCES, Math.max(8, candidates));
    if (loaded.scoring && loaded.scoring.sequences.length >= wanted) return loaded.scoring;
    await loaded.scoring?.context.dispose();
    const context = await loaded.model.createContext({ contextSize: SCORING_TOKENS_PER_SEQUENCE * wanted, sequences: wanted, threads: this.#threads });
    const sequences = Array.from({ length: wanted }, () => context.getSequence());
    loaded.scoring = { context, sequences, held: sequences.map(() => undefined) };
    return loaded.scoring;
  }

  /** Sum of the log-probabilities of the continuation's tokens after `prefix`, on sequence `index`. */
  async #logLikelihood(loaded: Loaded, scoring: Scoring, index: number, prefix: string, continuation: readonly Token[]): Promise<number> {
    const sequence = scoring.sequences[index];
    if (!sequence) throw new Error(`No scoring sequence ${index}.`);
    const prefixTokens = loaded.model.tokenize(prefix, true).slice(0, SCORING_TOKENS_PER_SEQUENCE - MAX_SCORED_TOKENS - 1);
    const last = prefixTokens.at(-1);
    if (last === undefined || continuation.length === 0) return 0;
    if (scoring.held[index] !== prefix) {
      await sequence.clearHistory();
      await sequence.evaluateWithoutGeneratingNewTokens(prefixTokens.slice(0, -1));
      scoring.held[index] = prefix;
    }
    // The prefix's last token is evaluated with the continuation, so its next-token distribution comes back too.
    const start = sequence.nextTokenIndex;
    const next = { generateNext: { probabilities: true, options: { temperature: 1, topK: SCORING_TOP_K, topP: 1, minP: 0 } } } as const;
    const input = [last, ...continuation.slice(0, -1)].map((token): [Token, typeof next] => [token, next]);
    try {
      const output = await sequence.controlledEvaluate(input);
      let sum = 0;
      continuation.forEach((token, position) => {
        sum += Math.log(Math.max(output[position]?.next.probabilities?.get(token) ?? 0, UNLIKELY));
      });
      return sum;
    } finally {
      await sequence.eraseContextTokenRanges([{ start, end: sequence.nextTokenIndex }]);
    }
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    await this.unload();
  }

  async #generate(loaded: Loaded, request: GenerateRequest): Promise<GenerateResult> {
    const { nlc } = loaded;
    const slot = loaded.slots.get(request.slot);
    const last = request.messages.at(-1);
    if (!slot) throw new Error(`Unknown model slot ${request.slot}.`);
    if (!last || last.role !== "user") throw new Error("A request's last message must be the user's.");
    const history: ChatHistoryItem[] = [{ type: "system", text: request.systemPrompt }];
    for (const message of request.messages.slice(0, -1)) {
      history.push(message.role === "user" ? { type: "user", text: message.text } : { type: "model", response: [message.text] });
    }
    slot.session.setChatHistory(history);
    if (this.#settings.reusePrefix === false) await slot.sequence.clearHistory();
    if (request.signal?.aborted) throw abortError(request.signal);

    const before = slot.sequence.tokenMeter.getState();
    const started = performance.now();
    const seed = this.#settings.seed === undefined ? undefined : this.#settings.seed + this.#requests;
    this.#requests++;
    const common = {
      temperature: this.#settings.temperature ?? 0,
      ...(seed === undefined ? {} : { seed }),
      maxTokens: request.maxTokens,
      signal: request.signal,
      stopOnAbortSignal: false,
      onTextChunk: request.onText as ((text: string) => void) | undefined,
    };
    let text: string;
    let stopReason: StopReason;
    let streamed = "";
    const onTextChunk = request.onText;
    common.onTextChunk = (chunk: string) => {
      streamed += chunk;
      onTextChunk?.(chunk);
    };
    try {
      if (request.jsonSchema) {
        const grammar = await this.#grammar(loaded, request.jsonSchema);
        const meta = await slot.session.promptWithMeta(last.text, { ...common, grammar });
        text = meta.responseText;
        stopReason = stopReasonOf(meta.stopReason);
      } else {
        const functions = request.functions && request.functions.length > 0 ? chatFunctions(nlc, request.functions) : undefined;
        const meta = await slot.session.promptWithMeta(last.text, { ...common, functions, maxParallelFunctionCalls: 1 });
        text = meta.responseText;
        stopReason = stopReasonOf(meta.stopReason);
      }
    } catch (error) {
      if (request.signal?.aborted) throw abortError(request.signal);
      const reason = error instanceof Error ? error.message : String(error);
      if (/context (shift|size)|fit the context/i.test(reason)) {
        const systemTokens = loaded.model.tokenize(request.systemPrompt).length;
        const promptTokens = systemTokens + loaded.model.tokenize(last.text).length;
        if (request.slot === "execute" && promptTokens < loaded.info.contextSize) {
          // The prompt fitted; the answer (with its tool calls and results) filled the rest: keep what was said.
          const used = nlc.TokenMeter.diff(slot.sequence.tokenMeter, before);
          return {
            text: `${streamed.trimEnd()}${streamed.trim() === "" ? "" : "\n\n"}(${CONTEXT_FULL_NOTE})`,
            stopReason: "contextFull",
            evaluatedInputTokens: used.usedInputTokens,
            outputTokens: used.usedOutputTokens,
            durationMs: performance.now() - started,
          };
        }
        throw new ModelError(
          "context",
          loaded.info.path,
          `The prompt does not fit the model's context of ${loaded.info.contextSize} tokens (the system prompt alone is ${systemTokens}${request.functions ? ", and offering tools adds several hundred more" : ""}). Raise skill.model.contextSize, or put fewer skills on the menu.`,
          { cause: error },
        );
      }
      throw error;
    }
    const used = nlc.TokenMeter.diff(slot.sequence.tokenMeter, before);
    return {
      text,
      stopReason,
      evaluatedInputTokens: used.usedInputTokens,
      outputTokens: used.usedOutputTokens,
      durationMs: performance.now() - started,
    };
  }

  #grammar(loaded: Loaded, schema: GenerateRequest["jsonSchema"]): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema);
    let grammar = loaded.grammars.get(key);
    if (!grammar) {
      // The schema is plain data from the planner; node-llama-cpp's generic signature wants it typed at compile time.
      const create = loaded.llama.createGrammarForJsonSchema.bind(loaded.llama) as (schema: unknown) => Promise<LlamaGrammar>;
      grammar = create(schema);
      loaded.grammars.set(key, grammar);
      // Grammars are small, but a menu edited all day must not grow the cache without bound.
      if (loaded.grammars.size > 32) loaded.grammars.delete(loaded.grammars.keys().next().value ?? key);
      grammar.catch(() => loaded.grammars.delete(key));
    }
    return grammar;
  }

  /** Runs one piece of work at a time; work still waiting when its signal aborts never starts. */
  #exclusive<T>(signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
    this.#active++;
    this.#clearIdleTimer();
    const run = this.#queue.then(() => {
      if (signal?.aborted) throw abortError(signal);
      return work();
    });
    this.#queue = run.catch(() => undefined);
    return run.finally(() => {
      this.#active--;
      this.#scheduleIdleUnload();
    });
  }

  #ensureLoaded(signal?: AbortSignal, onProgress?: (progress: ModelProgress) => void): Promise<Loaded> {
    if (this.#disposed) return Promise.reject(new ModelError("disposed", this.#settings.model, "The planner's model was shut down; start the planner again."));
    if (this.#loaded && !this.#loaded.model.disposed) return Promise.resolve(this.#loaded);
    if (!this.#loading) {
      const loading = this.#load(signal, onProgress);
      this.#loading = loading;
      loading.then(
        (loaded) => {
          this.#loaded = loaded;
          this.#loading = undefined;
        },
        () => {
          // A failed load is retried next time: the file may have been fixed meanwhile.
          this.#loading = undefined;
        },
      );
    }
    return this.#loading;
  }

  async #load(signal: AbortSignal | undefined, onProgress: ((progress: ModelProgress) => void) | undefined): Promise<Loaded> {
    const nlc = await importNodeLlamaCpp();
    const source = this.#settings.model.trim();
    if (source === "") {
      throw new ModelError("missing", "", `No model is set. Set ${MODEL_SETTING_HINT} to a local .gguf file or an hf: URI such as ${EXAMPLE_MODEL_URI}.`);
    }
    const modelPath = isModelUri(source) ? await this.#download(nlc, source, signal, onProgress) : resolveLocalPath(source);
    if (signal?.aborted) throw abortError(signal);
    await checkModelFile(modelPath, nlc);
    onProgress?.({ stage: "load", path: modelPath });

    const started = performance.now();
    const shared = await sharedLlama(nlc, this.#settings.gpu ?? "auto", this.#threads);
    shared.onLog = this.#settings.onLog;
    const logsBefore = shared.recentLogs.length;
    let model: LlamaModel;
    try {
      model = await shared.llama.loadModel({ modelPath, loadSignal: signal });
    } catch (error) {
      if (signal?.aborted) throw abortError(signal);
      const detail = shared.recentLogs.slice(logsBefore).find((line) => /error|fail|corrupt|invalid/i.test(line)) ?? (error instanceof Error ? error.message : String(error));
      throw new ModelError("load", modelPath, `llama.cpp could not load ${modelPath}: ${detail}. The file may be damaged or made for a newer llama.cpp: download it again, or choose another model.`, { cause: error });
    }
    try {
      const trained = model.trainContextSize;
      const contextSize = Math.max(MIN_CONTEXT_SIZE, Math.min(this.#settings.contextSize ?? DEFAULT_CONTEXT_SIZE, trained > 0 ? trained : Number.MAX_SAFE_INTEGER));
      const context = await model.createContext({ contextSize, sequences: SLOTS.length, threads: this.#threads });
      const slots = new Map<ModelSlot, Slot>();
      for (const name of SLOTS) {
        const sequence = context.getSequence();
        slots.set(name, { sequence, session: new nlc.LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: false }) });
      }
      const requested = this.#settings.contextSize ?? DEFAULT_CONTEXT_SIZE;
      const info: ModelInfo = {
        path: modelPath,
        contextSize: context.contextSize,
        ...(trained > 0 && requested > trained ? { contextClamped: { requested, trained } } : {}),
        threads: this.#threads,
        device: shared.llama.gpu === false ? "cpu" : shared.llama.gpu,
        loadMs: performance.now() - started,
      };
      return { nlc, llama: shared.llama, model, context, slots, grammars: new Map(), info, contextLimit: Math.min(contextSize, context.contextSize) };
    } catch (error) {
      await model.dispose();
      const reason = error instanceof Error ? error.message : String(error);
      throw new ModelError("load", modelPath, `Loaded ${modelPath} but could not make room for its context (${reason}). Lower skill.model.contextSize, or choose a smaller model.`, { cause: error });
    }
  }

  async #download(nlc: NodeLlamaCpp, uri: string, signal: AbortSignal | undefined, onProgress: ((progress: ModelProgress) => void) | undefined): Promise<string> {
    try {
      // Resolves to the file already downloaded when there is one: a model is downloaded once.
      return await nlc.resolveModelFile(uri, {
        directory: this.#settings.modelsDirectory,
        download: this.#settings.allowDownload === false ? false : "auto",
        cli: false,
        signal,
        onProgress: ({ totalSize, downloadedSize }) => onProgress?.({ stage: "download", uri, downloadedBytes: downloadedSize, totalBytes: totalSize }),
      });
    } catch (error) {
      if (signal?.aborted) throw abortError(signal);
      const reason = error instanceof Error ? error.message : String(error);
      throw new ModelError(
        "download",
        uri,
        this.#settings.allowDownload === false
          ? `${uri} is not downloaded yet, and downloads are off (${reason}). Allow the download, or point ${MODEL_SETTING_HINT} at a local .gguf file.`
          : `Could not download ${uri}: ${reason}. Check the URI (hf:<user>/<repository>:<quantization>, for example ${EXAMPLE_MODEL_URI}) and the network; the download resumes next time.`,
        { cause: error },
      );
    }
  }

  async #unloadNow(): Promise<void> {
    this.#clearIdleTimer();
    const loaded = this.#loaded ?? (await this.#loading?.catch(() => undefined));
    this.#loaded = undefined;
    if (!loaded) return;
    for (const slot of loaded.slots.values()) slot.session.dispose({ disposeSequence: true });
    await loaded.scoring?.context.dispose();
    await loaded.context.dispose();
    await loaded.model.dispose();
  }

  #scheduleIdleUnload(): void {
    this.#clearIdleTimer();
    const idle = this.#settings.idleUnloadMs ?? DEFAULT_IDLE_UNLOAD_MS;
    if (idle <= 0 || this.#active > 0 || !this.#loaded) return;
    this.#idleTimer = setTimeout(() => {
      if (this.#active === 0) void this.unload().catch(() => undefined);
    }, idle);
    // A pending unload must not keep a command-line run alive.
    this.#idleTimer.unref();
  }

  #clearIdleTimer(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }
}

function stopReasonOf(reason: string): StopReason {
  switch (reason) {
    case "eogToken":
    case "stopGenerationTrigger":
    case "customStopTrigger":
      return "end";
    case "maxTokens":
      return "maxTokens";
    case "abort":
      return "abort";
    default:
      return "other";
  }
}

function chatFunctions(nlc: NodeLlamaCpp, functions: NonNullable<GenerateRequest["functions"]>): ChatSessionModelFunctions {
  type Define = (definition: { description: string; params: unknown; handler: (params: unknown) => Promise<unknown> }) => ChatSessionModelFunctions[string];
  const define = nlc.defineChatSessionFunction as Define;
  const result: Record<string, ChatSessionModelFunctions[string]> = {};
  for (const fn of functions) {
    result[fn.name] = define({ description: fn.description, params: fn.parameters, handler: (params) => fn.handler(params) });
  }
  return result;
}
