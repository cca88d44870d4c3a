import type { Worker } from "node:worker_threads";
import { decodePartsBatch } from "../core/partsBatch.js";
import type { PostedDocument } from "../core/agentSkills/document.js";
import type { ReleasedParts } from "../core/skillFile.js";
import { startBundledWorker } from "./bundledWorker.js";
import { filesOfBatch, readFileBatchSync, type FileBatch, type ReadRequest, type ReadResponse } from "./fileBytes.js";
import { listChunkSync, listFolderEntriesSync, listNextSharedChunk, sharedChunkSize, treesRequested, type FolderEntries, type FolderTrees, type ListRequest, type ListResponse, type SharedChunks } from "./folderEntries.js";

/** How a listing is made on the calling thread by itself ({@link BackgroundReader.listTogether}). */
export interface AloneListing {
  /** Lets others by between slices: a turn of the event loop, or more while they come. */
  readonly turn: () => Promise<void>;
  /** The time the rest of the listing must be likely to take for the reading thread to be started for it. */
  readonly threadWorthMs: number;
  /** How long a slice goes on (ALONE_SLICE_MS unless said). */
  readonly sliceMs?: number;
}

/** The entries of folders `from` to `to` (not included) of a listing shared by two threads. */
export interface ListedChunk {
  readonly from: number;
  readonly to: number;
  readonly entries: FolderEntries;
}

/** One batch as {@link BackgroundReader.readParsed} hands it out: each file's bytes, and what the thread parsed of them. */
export interface ReadBatch {
  readonly files: readonly (Uint8Array | undefined)[];
  /** Each file's skill as the thread parsed it (undefined, or no list: parse it from its bytes). */
  readonly parts: readonly (ReleasedParts | undefined)[] | undefined;
  /** Each file's agent document as the thread parsed it (null, or no list: parse it from its bytes). */
  readonly documents?: readonly (PostedDocument | null)[] | undefined;
}

/** The thread's young generation, small: the skills it parses are posted and dropped (12 and 24 MB were no faster at 50,000 skills). */
const YOUNG_GENERATION_MB = 6;

/** Files per message: one round trip costs about what reading two small files does. */
const BATCH_FILES = 128;
/** Batches asked for ahead of the one being parsed: the reader never waits, and at most several hundred files' bytes wait in memory. */
const BATCHES_AHEAD = 6;
/** Of those, how many the thread may be asked to parse as well. */
const PARSING_AHEAD = 3;
/**
 * Turns of the event loop this thread lets by after each chunk of a listing it shares: a connection takes one
 * message a turn, and the editors' messages (their texts, their requests) come before the listing's rest.
 */
const TURNS_PER_SHARED_CHUNK = 8;
/**
 * A listing made on this thread alone goes on for this long between turns: long enough that the turns cost
 * little beside it, short enough that a message coming meanwhile waits no longer.
 */
const ALONE_SLICE_MS = 4;

function startWorker(): Worker | undefined {
  return startBundledWorker("reader-worker.js", "readerWorker.ts", { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB });
}

/**
 * Reads files on a thread of its own, a batch at a time and a few batches ahead, so that the main thread parses
 * one batch while the next is read: on two cores the first index no longer waits for the disk's system calls.
 * Without a thread (no script, or it fails) each batch is read on the calling thread, with the same answers.
 * `SKILL_LSP_READER=main` reads on the calling thread always.
 */
export class BackgroundReader {
  readonly #limit: number;
  #worker: Worker | undefined;
  readonly #waiting = new Map<number, (answer: ReadResponse | ListResponse | undefined) => void>();
  #nextId = 0;

  /** The thread is still to be started, on first use. */
  #pending: boolean;
  /** The thread runs its script: until then (a worker takes about 50 ms to boot) batches are read on the calling thread. */
  #online = false;
  /** Settled once the thread is online, or is not to be. */
  #settled: (() => void) | undefined;
  readonly #whenOnline = new Promise<void>((resolve) => (this.#settled = resolve));
  /** Settled once the thread is started, by whoever used it first, or is found not to be. */
  #started: (() => void) | undefined;
  readonly #whenStarted = new Promise<void>((resolve) => (this.#started = resolve));

  /**
   * `limit`: the most bytes a file gives (one more says it is too large). The thread starts when first used: a
   * server lists its folders at `initialize`, and a thread booting then takes a core from the open editors' answers.
   */
  constructor(limit: number) {
    this.#limit = limit;
    this.#pending = process.env.SKILL_LSP_READER !== "main";
  }

  #thread(): Worker | undefined {
    if (!this.#pending) return this.#worker;
    this.#pending = false;
    this.#started?.();
    try {
      const worker = startWorker();
      if (!worker) {
        this.#settled?.();
        return undefined;
      }
      // A reader must never keep a process alive: the command line exits when its work is done.
      worker.unref();
      worker.once("online", () => {
        this.#online = true;
        this.#settled?.();
      });
      worker.on("message", (response: ReadResponse | ListResponse) => {
        const answer = this.#waiting.get(response.id);
        this.#waiting.delete(response.id);
        answer?.(response);
      });
      const lost = () => {
        this.#worker = undefined;
        this.#online = false;
        this.#settled?.();
        // Whatever was asked and not answered is read on this thread instead.
        for (const answer of this.#waiting.values()) answer(undefined);
        this.#waiting.clear();
      };
      worker.on("error", lost);
      worker.on("exit", lost);
      this.#worker = worker;
    } catch {
      this.#worker = undefined;
      this.#settled?.();
    }
    return this.#worker;
  }

  /** True once the thread runs its script: batches asked from then on are read there. */
  get online(): boolean {
    return this.#online;
  }

  /** Settles once the thread is online, or lost, or not to be (then at once); starts it if it was still to be. */
  get whenOnline(): Promise<void> {
    if (this.#thread() === undefined) this.#settled?.();
    return this.#whenOnline;
  }

  /** Settles once someone starts the thread (at once when it is not to be); does not start it. */
  get whenStarted(): Promise<void> {
    if (!this.#pending) this.#started?.();
    return this.#whenStarted;
  }

  /** Starts the thread now rather than at its first use, where nothing else waits for the core its boot takes. */
  start(): void {
    this.#thread();
  }

  /** True while the reading thread runs, started now if it was still to be (false: every batch is read on the calling thread). */
  get threaded(): boolean {
    return this.#thread() !== undefined;
  }

  /**
   * The bytes of each file (undefined when it cannot be read or is not a regular file), batch by batch in the
   * order given; a batch's bytes are good until the next batch is asked for (its buffer is read into again). Bytes are read when asked for, a few batches ahead of the one handed out: a file changed on disk
   * before its batch was read gives its new bytes; one changed after is the caller's to apply (its file event).
   */
  async *read(paths: readonly string[]): AsyncGenerator<readonly (Uint8Array | undefined)[]> {
    for await (const batch of this.readParsed(paths, 0)) yield batch.files;
  }

  /**
   * {@link read}, with the thread asked to parse the skills of one batch in `parseEvery` (0: none) of those it
   * reads: on two cores the main thread then parses only the others. With `whileAhead`, only while the thread
   * keeps ahead of the caller, with at most a few such batches asked at once.
   */
  async *readParsed(paths: readonly string[], parseEvery: number, whileAhead = true): AsyncGenerator<ReadBatch> {
    // Each batch asked of the thread, or not yet (undefined): read here when its turn comes, if still not asked.
    const asked: { readonly paths: readonly string[]; batch: Promise<ReadResponse | undefined> | undefined; answered: boolean }[] = [];
    // The thread parses only while it keeps ahead: when this thread had to wait for the last batch taken from
    // it (a thread just booted runs its code cold), it is asked to read alone until it is ahead again.
    let threadAhead = false;
    let turn = 0;
    let parsing = 0;
    // Buffers of batches handed out and done with: read into again, so the bytes cost no garbage.
    const spares: ArrayBuffer[] = [];
    let next = 0;
    while (next < paths.length || asked.length > 0) {
      while (asked.length < BATCHES_AHEAD && next < paths.length) {
        const batch = paths.slice(next, next + BATCH_FILES);
        next += batch.length;
        asked.push({ paths: batch, batch: undefined, answered: false });
      }
      // The thread is asked for every batch after the one due now, once it is up: while it boots, this thread
      // reads rather than waits.
      if (this.#thread() !== undefined && this.#online) {
        for (let at = 1; at < asked.length; at++) {
          const entry = asked[at];
          if (entry && !entry.batch) {
            // A few batches to parse at a time: the thread is never more than a few parses behind.
            const parse = parseEvery > 0 && (!whileAhead || (threadAhead && parsing < PARSING_AHEAD)) && ++turn % parseEvery === 0;
            if (parse) parsing++;
            entry.batch = this.#ask(entry.paths, parse, spares.pop());
            void entry.batch.then(() => {
              entry.answered = true;
              if (parse) parsing--;
            });
          }
        }
      }
      const first = asked.shift();
      if (!first) break;
      if (first.batch) threadAhead = first.answered;
      const answer = first.batch ? await first.batch : undefined;
      const batch = answer?.batch ?? readFileBatchSync(first.paths, this.#limit, spares.pop());
      yield { files: filesOfBatch(batch), parts: answer?.parts ? [...decodePartsBatch(answer.parts)] : undefined, documents: answer?.documents };
      // The caller asked for the next batch: it is done with this one's bytes.
      spares.push(batch.bytes.buffer as ArrayBuffer);
    }
  }

  /**
   * The entries of each folder ({@link listFolderEntriesSync}), listed on the thread between the batches of
   * files asked before and after: whoever lists many folders asks a few hundred at a time. With `trees`, the
   * folders below them too.
   */
  async list(folders: readonly string[], trees?: FolderTrees): Promise<FolderEntries> {
    const worker = folders.length === 0 ? this.#worker : this.#thread();
    if (!worker || folders.length === 0) return listFolderEntriesSync(folders, trees);
    const answer = await this.#askList(worker, folders, trees);
    return answer?.entries ?? listFolderEntriesSync(folders, trees);
  }

  /**
   * The entries of the folders as {@link list} answers them, in chunks ({@link sharedChunkSize}) in order,
   * listed by this thread and the reading thread at once, each taking the next chunk whenever it is free (a
   * thread still booting takes none). This thread lets other work in after each chunk: the open editors at
   * start, who wait for the whole listing, have their own messages to be taken in meanwhile.
   *
   * With `alone`, this thread lists by itself, a slice at a time with `alone.turn` between slices, unless the
   * reading thread is online already: the thread is started to share the rest only once the rest is likely to
   * take longer than `alone.threadWorthMs` at the pace so far (a folder's tree may hold thousands).
   */
  async listTogether(folders: readonly string[], trees?: FolderTrees, alone?: AloneListing): Promise<ListedChunk[]> {
    const next = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
    const size = sharedChunkSize(folders.length);
    const chunkCount = Math.ceil(folders.length / size);
    let worker = alone === undefined ? this.#thread() : this.#online ? this.#worker : undefined;
    let theirs = worker ? this.#askList(worker, folders, trees, { next, chunk: size }) : undefined;
    const mine: SharedChunks = new Map();
    let sliceStart = performance.now();
    let listingMs = 0;
    while (listNextSharedChunk(folders, next, size, mine, trees)) {
      if (worker || !alone) {
        for (let turn = 0; turn < TURNS_PER_SHARED_CHUNK; turn++) await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      const now = performance.now();
      if (now - sliceStart < (alone.sliceMs ?? ALONE_SLICE_MS)) continue;
      listingMs += now - sliceStart;
      if (((chunkCount - mine.size) * listingMs) / mine.size > alone.threadWorthMs) {
        worker = this.#thread();
        theirs = worker ? this.#askList(worker, folders, trees, { next, chunk: size }) : undefined;
      }
      await alone.turn();
      sliceStart = performance.now();
    }
    // The thread took a chunk: its answer comes once every chunk is taken. A thread lost meanwhile answers nothing.
    const answer = mine.size < chunkCount ? await theirs : undefined;
    const chunks: ListedChunk[] = [];
    for (let from = 0; from < folders.length; from += size) {
      // Listed here after all when the thread was lost with the chunk.
      const entries = mine.get(from) ?? answer?.chunks?.get(from) ?? listChunkSync(folders, from, size, trees);
      chunks.push({ from, to: Math.min(from + size, folders.length), entries });
    }
    return chunks;
  }

  #askList(worker: Worker, folders: readonly string[], trees?: FolderTrees, shared?: { readonly next: Int32Array; readonly chunk: number }): Promise<ListResponse | undefined> {
    const id = this.#nextId++;
    const request: ListRequest = { id, list: folders.join("\0"), ...shared, ...(trees ? { trees: treesRequested(trees) } : {}) };
    return new Promise<ListResponse | undefined>((resolve) => {
      this.#waiting.set(id, (answer) => resolve(answer === undefined || "batch" in answer ? undefined : answer));
      worker.postMessage(request);
    });
  }

  /** Stops the thread; batches still asked for are read on this thread if anyone waits for them. */
  close(): void {
    this.#pending = false;
    const worker = this.#worker;
    this.#worker = undefined;
    void worker?.terminate();
  }

  #ask(paths: readonly string[], parse: boolean, spare: ArrayBuffer | undefined): Promise<ReadResponse | undefined> {
    const worker = this.#thread();
    if (!worker) return Promise.resolve(undefined);
    const id = this.#nextId++;
    const request: ReadRequest = { id, paths: paths.join("\0"), limit: this.#limit, ...(spare ? { spare } : {}), ...(parse ? { parse } : {}) };
    return new Promise<ReadResponse | undefined>((resolve) => {
      this.#waiting.set(id, (answer) => resolve(answer !== undefined && "batch" in answer ? answer : undefined));
      worker.postMessage(request, spare ? [spare] : []);
    });
  }
}
