/**
 * Shared machinery of the reliability tests: a real server over stdio that must answer every request within a
 * bound and never crash, a byte-for-byte snapshot of a workspace, and LSP positions computed independently of
 * the server's own line map.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import * as path from "node:path";
import { ErrorCodes, ResponseError } from "vscode-languageserver-protocol";
import { TestClient } from "../lsp/harness.js";

/** How long any one request may take before the test calls the server hung (the bound docs/guarantees.md states). */
export const REQUEST_BOUND_MS = Number(process.env.SKILL_REQUEST_BOUND_MS ?? 5000);

/** A started server, with what it wrote to stderr and whether it is still alive. */
export class Session {
  readonly client: TestClient;
  readonly stderr: string[] = [];
  /** The slowest answer per method, in milliseconds. */
  readonly slowest = new Map<string, number>();
  /** The bound of each request; the pathological cases (100,000 mentions in a file) get a larger one. */
  bound = REQUEST_BOUND_MS;
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  private constructor(client: TestClient) {
    this.client = client;
    client.process.stderr.on("data", (chunk: Buffer) => this.stderr.push(chunk.toString("utf8")));
    client.process.once("exit", (code, signal) => {
      this.#exit = { code, signal };
    });
  }

  static async start(folders: readonly string[], pull = true): Promise<Session> {
    return new Session(await TestClient.start({ folders, pull }));
  }

  /** Fails when the server died, logged a handler failure, or wrote anything to stderr. */
  assertHealthy(context: string): void {
    assert.equal(this.#exit, undefined, `${context}: the server exited (${JSON.stringify(this.#exit)}); stderr: ${this.stderr.join("").slice(0, 2000)}`);
    const failures = this.client.messages.filter((message) => /failed with message|failed unexpectedly|Reading the workspace failed|Error:|RangeError|TypeError/.test(message));
    assert.deepEqual(failures, [], `${context}: the server logged failures`);
    assert.equal(this.stderr.join(""), "", `${context}: the server wrote to stderr`);
  }

  /**
   * Sends a request and waits at most `bound` for the answer. A refusal (a ResponseError with a message for
   * the user) is an answer; an internal error or no answer at all fails the test.
   */
  async request<R>(method: string, params: unknown, bound = this.bound): Promise<{ readonly result?: R; readonly refused?: string; readonly code?: number }> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${method} got no answer within ${bound} ms`)), bound);
    });
    try {
      const result = await Promise.race([this.client.connection.sendRequest(method, params) as Promise<R>, timeout]);
      return { result };
    } catch (error) {
      if (error instanceof ResponseError) {
        assert.notEqual(error.code, ErrorCodes.InternalError, `${method} failed inside the server: ${error.message}`);
        assert.doesNotMatch(error.message, /failed with message|failed unexpectedly/, `${method} failed inside the server`);
        assert.ok(error.message.length > 10, `${method} refused without saying why: ${JSON.stringify(error.message)}`);
        return { refused: error.message, code: error.code };
      }
      throw error;
    } finally {
      clearTimeout(timer);
      const took = performance.now() - started;
      this.slowest.set(method, Math.max(this.slowest.get(method) ?? 0, took));
    }
  }

  async stop(): Promise<void> {
    if (this.#exit) return;
    assert.equal(await this.client.stop(), 0, "the server exits cleanly on shutdown and exit");
  }

  kill(): void {
    if (!this.#exit) this.client.process.kill("SIGKILL");
  }
}

/** One entry of a workspace snapshot: enough to tell any write, chmod, create, delete or re-link apart. */
export type SnapshotEntry = string;

/**
 * Every entry below `root`, without following symbolic links: type, mode, size, modification time and a hash
 * of the bytes for files (unreadable ones by metadata only), the target for links.
 */
export function snapshot(root: string): Map<string, SnapshotEntry> {
  const entries = new Map<string, SnapshotEntry>();
  const walk = (directory: string) => {
    for (const name of readdirSync(directory).sort()) {
      const full = path.join(directory, name);
      const relative = path.relative(root, full);
      const stat = lstatSync(full, { bigint: true });
      const meta = `mode=${stat.mode.toString(8)} mtime=${stat.mtimeNs} size=${stat.size}`;
      if (stat.isSymbolicLink()) entries.set(relative, `link -> ${readlinkSync(full)} ${meta}`);
      else if (stat.isDirectory()) {
        entries.set(relative, `dir ${meta}`);
        walk(full);
      } else if (stat.isFile()) {
        let digest = "unreadable";
        try {
          digest = createHash("sha256").update(readFileSync(full)).digest("hex");
        } catch {
          // chmod 000 for a user other than root: its metadata still tells a write apart.
        }
        entries.set(relative, `file ${digest} ${meta}`);
      } else entries.set(relative, `special ${meta}`);
    }
  };
  walk(root);
  return entries;
}

/** Fails with the entries that differ, when the workspace changed. */
export function assertUnchanged(before: Map<string, SnapshotEntry>, after: Map<string, SnapshotEntry>, context: string): void {
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((key) => before.get(key) !== after.get(key));
  assert.deepEqual(
    changed.map((key) => ({ key, before: before.get(key), after: after.get(key) })),
    [],
    `${context}: the server changed the workspace`,
  );
}

export interface Position {
  readonly line: number;
  readonly character: number;
}
export interface Range {
  readonly start: Position;
  readonly end: Position;
}

/** The position of an offset, given the start offset of every line. */
function positionAt(starts: readonly number[], offset: number): Position {
  let line = 0;
  let low = 0;
  let high = starts.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if ((starts[mid] ?? 0) <= offset) {
      line = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  return { line, character: offset - (starts[line] ?? 0) };
}

/** Decodes a file the way an editor and the server both do: UTF-8, bad bytes as U+FFFD, a byte-order mark kept. */
export function decode(bytes: Uint8Array): string {
  return new TextDecoder("utf-8", { fatal: false, ignoreBOM: true }).decode(bytes);
}

/** A seeded pseudo-random generator, so a failing run can be replayed from its seed. */
export { seededRandom as random } from "../fixtures/random.js";

/** A text with its lines indexed once, so that checking 100,000 ranges stays linear. */
export class TextIndex {
  readonly text: string;
  readonly starts: readonly number[];
  /** Offset of each line's end, before its line break. */
  readonly ends: readonly number[];

  constructor(text: string) {
    this.text = text;
    const starts = [0];
    const ends: number[] = [];
    const breaks = /\r\n|\r|\n/g;
    for (let match = breaks.exec(text); match; match = breaks.exec(text)) {
      ends.push(match.index);
      starts.push(match.index + match[0].length);
    }
    ends.push(text.length);
    this.starts = starts;
    this.ends = ends;
  }

  get lineCount(): number {
    return this.starts.length;
  }

  /** The offset of a position, or undefined when it lies outside the text. */
  offsetOf(position: Position): number | undefined {
    const start = this.starts[position.line];
    const end = this.ends[position.line];
    if (start === undefined || end === undefined || position.character < 0 || start + position.character > end) return undefined;
    return start + position.character;
  }

  positionOf(offset: number): Position {
    return positionAt(this.starts, offset);
  }

  /** Fails unless the range lies inside the text, in order; answers its offsets. */
  assertInside(range: Range, context: string): [number, number] {
    const start = this.offsetOf(range.start);
    const end = this.offsetOf(range.end);
    assert.ok(start !== undefined && end !== undefined && start <= end, `${context}: range ${JSON.stringify(range)} is not inside the text (${this.lineCount} lines)`);
    return [start, end];
  }

  slice(range: Range, context: string): string {
    const [start, end] = this.assertInside(range, context);
    return this.text.slice(start, end);
  }

  /** The end of the text, as a position. */
  get end(): Position {
    return { line: this.lineCount - 1, character: this.text.length - (this.starts[this.lineCount - 1] ?? 0) };
  }
}
