/**
 * The corpus of bad input: the small cases are folders under test/fixtures/bad-input/ (each one a workspace),
 * the big, binary and file-system ones are generated here at test time. Each case names the diagnostic codes
 * every file must get; test/fixtures/bad-input/cases.json holds them for the committed folders.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { REPO } from "../lsp/harness.js";

export const FIXTURES = path.join(REPO, "test/fixtures/bad-input");

export interface BadInputCase {
  readonly name: string;
  /** What is bad about it, in a few words. */
  readonly what: string;
  /** Writes the case's files into an empty workspace folder. */
  readonly build: (folder: string) => void;
  /** Sorted diagnostic codes by file (relative path, `/`-separated): every file listed is checked, over the wire. */
  readonly expect: Readonly<Record<string, readonly string[]>>;
  /** The files to run every request on (default: every file in `expect`); a sample for the huge cases. */
  readonly exercise?: readonly string[];
  /** Texts an editor may hold but no file on disk can (lone surrogates), by relative path, with their codes. */
  readonly editorTexts?: Readonly<Record<string, { readonly text: string; readonly codes: readonly string[] }>>;
  /** A larger bound per request, in milliseconds, for the cases whose answers hold 100,000 entries. */
  readonly bound?: number;
  /** Extra checks over the wire, after the common ones. */
  readonly check?: string;
}

interface CommittedCase {
  readonly what: string;
  readonly expect: Record<string, string[]>;
}

/** The committed cases: one folder each, with the expected codes in cases.json. */
export function committedCases(): BadInputCase[] {
  const manifest = JSON.parse(readFileSync(path.join(FIXTURES, "cases.json"), "utf8")) as Record<string, CommittedCase>;
  return Object.entries(manifest).map(([name, entry]) => ({
    name,
    what: entry.what,
    expect: entry.expect,
    build: (folder: string) => cpSync(path.join(FIXTURES, name), folder, { recursive: true }),
  }));
}

const write = (folder: string, relative: string, content: string | Uint8Array) => {
  const file = path.join(folder, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
};

const skill = (summary: string, body: string) => `---\nsummary: ${summary}\n---\n${body}`;

/** The bound for answers of 100,000 entries (references, symbols, rename edits): several megabytes of JSON each. */
export const HUGE_BOUND_MS = Number(process.env.SKILL_HUGE_BOUND_MS ?? 15_000);

/** Tests run as root in CI containers, where chmod 000 does not stop a read. */
export const RUNNING_AS_ROOT = process.getuid?.() === 0;

/** The cases made at test time: too big, binary, or made of links, pipes and permissions that git cannot hold. */
export function generatedCases(): BadInputCase[] {
  const chain = 10_000;
  const cycle = 1_000;
  return [
    {
      name: "ten-megabytes",
      what: "a 10 MB skill file",
      build: (folder) => write(folder, "big.skill.md", skill("Big.", "Use @find-file and @nowhere. ".repeat(Math.ceil(10_000_000 / 29)))),
      expect: { "big.skill.md": ["file-too-large"] },
    },
    {
      name: "ten-megabyte-config",
      what: "a 10 MB skills.json",
      build: (folder) => write(folder, "skills.json", JSON.stringify({ alignment: { instructions: "Use @nowhere. ".repeat(Math.ceil(10_000_000 / 14)) } })),
      expect: { "skills.json": ["file-too-large"] },
    },
    {
      name: "hundred-thousand-mentions",
      what: "100,000 mentions in one file",
      build: (folder) => {
        write(folder, "x.skill.md", skill("Repeats its own handle endlessly.", "@x ".repeat(100_000)));
        write(folder, "other.skill.md", skill("Points at the repetitive one.", "Use @x.\n"));
      },
      expect: { "x.skill.md": [], "other.skill.md": [] },
      exercise: ["x.skill.md"],
      bound: HUGE_BOUND_MS,
      check: "hundred-thousand",
    },
    {
      name: "hundred-thousand-unknown-mentions",
      what: "100,000 mentions of nothing in one file",
      build: (folder) => write(folder, "dangling.skill.md", skill("Dangles.", "@nowhere\n".repeat(100_000))),
      // 999 of them are sent, and one more that says 99,001 are not shown.
      expect: { "dangling.skill.md": [...Array<string>(999).fill("unknown-mention"), "more-problems"] },
      bound: HUGE_BOUND_MS,
    },
    {
      name: "binary",
      what: "binary content (a PNG header, random bytes, NULs)",
      build: (folder) => {
        const bytes = new Uint8Array(64 * 1024);
        let state = 7;
        for (let i = 0; i < bytes.length; i++) bytes[i] = (state = (state * 1103515245 + 12345) >>> 0) >>> 24;
        bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x40, 0x78], 0);
        write(folder, "image.skill.md", bytes);
        write(folder, "user.skill.md", skill("Mentions the binary one.", "Use @image.\n"));
      },
      // The binary file still claims its handle, so the mention resolves.
      expect: { "image.skill.md": ["binary-file"], "user.skill.md": [] },
    },
    {
      name: "invalid-utf8",
      what: "invalid UTF-8: stray continuation bytes, an overlong form, an encoded surrogate, 0xFF",
      build: (folder) =>
        write(
          folder,
          "garbled.skill.md",
          Buffer.concat([
            Buffer.from("---\nsummary: Garbled \xff bytes.\n---\n", "latin1"),
            Buffer.from([0xc3, 0x28, 0x40]),
            Buffer.from("find-file "),
            Buffer.from([0xed, 0xa0, 0x80]),
            Buffer.from("@calendar "),
            Buffer.from([0xc0, 0xaf]),
            Buffer.from("@nowhere\n"),
            Buffer.from([0x80, 0x80, 0xff, 0xfe]),
          ]),
        ),
      // "(@find-file" follows a parenthesis, so it is a mention; U+FFFD is no word character.
      expect: { "garbled.skill.md": ["unknown-mention"] },
    },
    {
      name: "nul-bytes",
      what: "a text file with NUL bytes in it",
      build: (folder) => write(folder, "nul.skill.md", skill("Has a NUL.", "Use @find-file\u0000 and @nowhere.\n")),
      expect: { "nul.skill.md": ["binary-file"] },
    },
    {
      name: "chain-10000",
      what: "a chain of 10,000 skills, each mentioning the next",
      build: (folder) => {
        // Not advertised: 10,000 menu entries "Link n." would all be alike (menu-similar), which is not this case's point.
        const link = (i: number) => `---\nsummary: Link ${i}.\nadvertised: false\n---\n`;
        for (let i = 0; i < chain; i++) write(folder, `chain/s${i}.skill.md`, link(i) + (i + 1 < chain ? `Then @s${i + 1}.\n` : "Finally @calendar.\n"));
      },
      expect: { "chain/s0.skill.md": [], "chain/s5000.skill.md": [], [`chain/s${chain - 1}.skill.md`]: [] },
      check: "chain",
      // Told that all 10,000 files changed, the server reads them again before it answers the next request.
      bound: HUGE_BOUND_MS,
    },
    {
      name: "cycle-1000",
      what: "a cycle of 1,000 skills",
      build: (folder) => {
        for (let i = 0; i < cycle; i++) write(folder, `c${i}.skill.md`, `---\nsummary: Cycle ${i}.\nadvertised: false\n---\nThen @c${(i + 1) % cycle} and @find-file.\n`);
      },
      expect: { "c0.skill.md": [], "c999.skill.md": [] },
      check: "cycle",
    },
    {
      name: "symlink-loops",
      what: "symbolic-link loops: a folder linked to itself, to its parent and to /, two files linked to each other",
      build: (folder) => {
        write(folder, "real/inner.skill.md", skill("Inside.", "Use @find-file.\n"));
        symlinkSync(".", path.join(folder, "real/self"));
        symlinkSync("..", path.join(folder, "real/up"));
        symlinkSync("/", path.join(folder, "root"));
        symlinkSync(path.dirname(folder), path.join(folder, "parent"));
        symlinkSync("b.skill.md", path.join(folder, "a.skill.md"));
        symlinkSync("a.skill.md", path.join(folder, "b.skill.md"));
        symlinkSync("me.skill.md", path.join(folder, "me.skill.md"));
      },
      expect: { "real/inner.skill.md": [] },
      check: "symlink-loops",
    },
    {
      name: "dangling-symlink",
      what: "a skill file that is a link to nothing",
      build: (folder) => {
        symlinkSync("nowhere/gone.skill.md", path.join(folder, "gone.skill.md"));
        write(folder, "user.skill.md", skill("Mentions the dangling one.", "Use @gone.\n"));
      },
      expect: { "user.skill.md": ["unknown-mention"], "gone.skill.md": [] },
    },
    {
      name: "directory-named-like-a-skill",
      what: "a directory named x.skill.md",
      build: (folder) => {
        write(folder, "x.skill.md/inner.skill.md", skill("Inside a folder named like a skill.", "Use @x.\n"));
      },
      expect: { "x.skill.md/inner.skill.md": ["unknown-mention"], "x.skill.md": [] },
    },
    {
      name: "unreadable-file",
      what: "a skill file with mode 000",
      build: (folder) => {
        write(folder, "secret.skill.md", skill("Secret.", "Use @find-file.\n"));
        chmodSync(path.join(folder, "secret.skill.md"), 0o000);
        write(folder, "user.skill.md", skill("Mentions the unreadable one.", "Use @secret.\n"));
      },
      // As root the file is readable and @secret resolves; for anyone else it cannot be read, so it dangles.
      expect: RUNNING_AS_ROOT ? { "user.skill.md": [], "secret.skill.md": [] } : { "user.skill.md": ["unknown-mention"] },
      check: "unreadable",
    },
    {
      name: "named-pipe",
      what: "a FIFO named pipe.skill.md (opening it for reading blocks until a writer comes)",
      build: (folder) => {
        execFileSync("mkfifo", [path.join(folder, "pipe.skill.md")]);
        write(folder, "user.skill.md", skill("Mentions the pipe.", "Use @pipe.\n"));
      },
      expect: { "user.skill.md": ["unknown-mention"], "pipe.skill.md": [] },
    },
    {
      name: "device-links",
      what: "skill files linked to /dev/zero and /dev/urandom",
      build: (folder) => {
        symlinkSync("/dev/zero", path.join(folder, "zero.skill.md"));
        symlinkSync("/dev/urandom", path.join(folder, "random.skill.md"));
        write(folder, "user.skill.md", skill("Mentions the devices.", "Use @zero and @random.\n"));
      },
      expect: { "user.skill.md": ["unknown-mention", "unknown-mention"], "zero.skill.md": [], "random.skill.md": [] },
    },
    {
      name: "deep-yaml",
      what: "frontmatter nested 5,000 levels deep",
      build: (folder) => write(folder, "deep.skill.md", `---\nsummary: ${"[".repeat(5000)}${"]".repeat(5000)}\n---\nUse @find-file.\n`),
      expect: { "deep.skill.md": ["frontmatter-syntax"] },
    },
    {
      name: "deep-json",
      what: "skills.json nested 20,000 levels deep",
      build: (folder) => write(folder, "skills.json", `{"alignment": {"instructions": ${"[".repeat(20_000)}"@x"${"]".repeat(20_000)}}}`),
      expect: { "skills.json": ["config-syntax"] },
    },
    {
      name: "huge-line",
      what: "one line of 900,000 characters with mentions at both ends",
      build: (folder) => write(folder, "line.skill.md", `---\nsummary: Long line.\n---\n@find-file ${"x".repeat(900_000)} @nowhere`),
      expect: { "line.skill.md": ["unknown-mention"] },
    },
    {
      name: "ignored-folders",
      what: "skills inside node_modules and .git, which are not part of the workspace",
      build: (folder) => {
        write(folder, "main.skill.md", skill("Mentions skills that live in ignored folders.", "Use @hidden-module and @hidden-git.\n"));
        write(folder, "node_modules/pkg/hidden-module.skill.md", skill("Hidden.", "Use @find-file.\n"));
        write(folder, ".git/hidden-git.skill.md", skill("Hidden.", "Use @find-file.\n"));
      },
      expect: { "main.skill.md": ["unknown-mention", "unknown-mention"] },
    },
    {
      name: "question-mark-file-name",
      what: "a file name with ? in it (a URI query character)",
      build: (folder) => {
        write(folder, "what?.skill.md", skill("Question mark.", "Use @find-file.\n"));
        write(folder, "who.skill.md", skill("Mentions it.", "Use @what.\n"));
      },
      expect: { "what?.skill.md": ["invalid-handle"], "who.skill.md": ["unknown-mention"] },
    },
    {
      name: "deep-directories",
      what: "a skill 200 directories down",
      build: (folder) => {
        write(folder, `${Array.from({ length: 200 }, (_, i) => `d${i}`).join("/")}/deep.skill.md`, skill("Deep down.", "Use @find-file.\n"));
        write(folder, "top.skill.md", skill("Mentions it.", "Use @deep.\n"));
      },
      expect: { "top.skill.md": [] },
    },
    {
      name: "lone-surrogates-in-the-editor",
      what: "editor text with lone UTF-16 surrogates (no UTF-8 file can hold them)",
      build: (folder) => write(folder, "odd.skill.md", skill("Odd.", "Use @find-file.\n")),
      expect: { "odd.skill.md": [] },
      editorTexts: {
        "odd.skill.md": { text: "---\nsummary: Lone \ud800 surrogate.\n---\n\udc00@find-file\ud83d @nowhere\udfff @calendar\ud800", codes: ["unknown-mention"] },
      },
    },
  ];
}
