/** What a command-line verb wrote and answered, for the tests. */
export interface Run {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs a verb with line writers that collect what it says. */
export async function capture(invoke: (out: (line: string) => void, err: (line: string) => void) => Promise<number>): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await invoke((line) => out.push(line), (line) => err.push(line));
  return { code, out: out.join("\n"), err: err.join("\n") };
}
