import { runCli, type CliIo } from "../../server/src/cli/index.js";

/** What a command-line verb wrote and answered, for the tests. */
export interface Run {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs the command line with writers that collect what it says (without the last line break). */
export async function capture(args: readonly string[]): Promise<Run> {
  let out = "";
  let err = "";
  const io: CliIo = {
    out: (line) => void (out += `${line}\n`),
    err: (line) => void (err += `${line}\n`),
    write: (text) => void (out += text),
    writeBytes: (bytes) => void (out += new TextDecoder().decode(bytes)),
  };
  const code = await runCli(args, io);
  return { code, out: out.replace(/\n$/, ""), err: err.replace(/\n$/, "") };
}
