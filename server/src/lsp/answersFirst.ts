/**
 * Background work (the menu comparison's steps, the index of who mentions what, the workspace report, pushed
 * diagnostics) runs in short slices between the client's messages. Each slice is short, but several works each
 * take a slice a turn, and an answer takes several turns (the message is read, dispatched, answered, then
 * written): so a completion asked meanwhile waited behind a few slices of each. Here the works hold back while
 * the client is being answered: from a message's arrival until a moment after the last answer, no slice starts.
 */

/** After a message arrives or an answer is made, background slices wait this long with nothing else coming. */
const QUIET_MS = 1;

/** The longest a slice waits for quiet: a client that never stops asking still lets the background work go on. */
const MAX_WAIT_MS = 8;

export class AnswersFirst {
  #lastActivity = 0;
  readonly #now: () => number;

  /** `now` reads the clock in milliseconds (another clock: a test's, which moves only when it says). */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** A message came from the client (called where the transport reads it, before it is dispatched). */
  noteMessage(): void {
    this.#lastActivity = this.#now();
  }

  /** An answer was made: it is written in the turns that follow. */
  noteAnswer(): void {
    this.#lastActivity = this.#now();
  }

  /** A turn of the event loop, then more until nothing has been asked or answered for a moment (or a while has passed). */
  async turn(): Promise<void> {
    const giveUpAt = this.#now() + MAX_WAIT_MS;
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      const now = this.#now();
      if (now - this.#lastActivity >= QUIET_MS || now >= giveUpAt) return;
    }
  }

  /**
   * Notes every message the process reads on the transport the command line names (`--stdio`, `--node-ipc`);
   * on a socket or pipe only the answers are noted.
   */
  watchTransport(argv: readonly string[] = process.argv): void {
    if (argv.includes("--stdio")) process.stdin.on("data", () => this.noteMessage());
    else if (argv.includes("--node-ipc")) process.on("message", () => this.noteMessage());
  }
}
