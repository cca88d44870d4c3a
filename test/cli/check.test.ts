import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";

const REPO = path.resolve(__dirname, "../..");
const SERVER = path.join(REPO, "dist/server.js");

/** Runs the built command line, as a user would. */
function cli(args: readonly string[], cwd = REPO) {
  const result = spawnSync(process.execPath, [SERVER, ...args], { cwd, encoding: "utf8" });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

describe("the command line", () => {
  it("check examples prints nothing and exits 0", () => {
    assert.deepEqual(cli(["check", "examples"]), { code: 0, out: "", err: "" });
  });

  it("check prints a dangling mention as file:line:col severity code message and exits 1", () => {
    const folder = mkdtempSync(path.join(tmpdir(), "skill-cli-"));
    cpSync(path.join(REPO, "examples"), folder, { recursive: true });
    writeFileSync(path.join(folder, "skills/home/plan-trip.skill.md"), "---\nsummary: Plan a trip.\n---\nFirst use @flights.\n");
    const result = cli(["check", folder], folder);
    assert.equal(result.code, 1);
    assert.equal(result.out, "skills/home/plan-trip.skill.md:4:11 error unknown-mention @flights — unknown: no skill or tool has this handle.\n");
    rmSync(folder, { recursive: true, force: true });
  });

  it("check writes a report longer than its 64 KB writes whole, line by line, with each multi-byte character intact", () => {
    const folder = mkdtempSync(path.join(tmpdir(), "skill-cli-"));
    const count = 1500;
    const expected: string[] = [];
    for (let i = 0; i < count; i++) {
      const handle = `step-${String(i).padStart(4, "0")}`;
      writeFileSync(path.join(folder, `${handle}.skill.md`), `---\nsummary: Walk w${i}a, w${i}b and w${i}c.\n---\nThen ask @nowhere-${i}.\n`);
      expected.push(`${handle}.skill.md:4:10 error unknown-mention @nowhere-${i} — unknown: no skill or tool has this handle.`);
    }
    const result = cli(["check", folder], folder);
    assert.equal(result.code, 1);
    assert.ok(Buffer.byteLength(result.out) > 2 * 65_536, String(Buffer.byteLength(result.out)));
    assert.equal(result.out, `${expected.join("\n")}\n`);
    rmSync(folder, { recursive: true, force: true });
  });

  it("check piped into a reader that stops after the first line (`| head -1`) ends quietly, with status 141", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "skill-cli-"));
    for (let i = 0; i < 3000; i++) writeFileSync(path.join(folder, `step-${i}.skill.md`), `---\nsummary: Walk w${i}a and w${i}b.\n---\nThen ask @nowhere-${i}.\n`);
    const child = spawn(process.execPath, [SERVER, "check", folder], { cwd: folder, stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    // The first chunk read, the pipe is closed, as `head` closes it after its lines.
    const first = await new Promise<string>((resolve) => child.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString())));
    child.stdout.destroy();
    const status = await new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
    assert.match(first, /^step-\d+\.skill\.md:4:10 error unknown-mention @nowhere-\d+ /);
    assert.equal(err, "");
    assert.equal(status, 141);
    rmSync(folder, { recursive: true, force: true });
  });

  it("expand @search-info prints the four tools, one per line", () => {
    const empty = mkdtempSync(path.join(tmpdir(), "skill-cli-"));
    assert.deepEqual(cli(["expand", "@search-info"], empty), { code: 0, out: "check_notebook\nlist_devices\nfind_file\ngrep_memory\n", err: "" });
    assert.equal(cli(["expand", "--folder", path.join(REPO, "examples"), "@meeting-prep"]).out.split("\n").filter(Boolean).length, 6);
    rmSync(empty, { recursive: true, force: true });
  });

  it("menu prints the planner's system prompt in the seed's form and its size", () => {
    const result = cli(["menu", "--folder", "examples"]);
    assert.equal(result.code, 0);
    assert.match(result.out, /\nYour skills:\n- @search-info: The skill to use whenever/);
    assert.match(result.out, /\nYour tools:\n- @current-date: /);
    assert.match(result.out, /— ~[\d,]+ tokens, [\d,]+ characters; planning on \(7 skills on the menu\)/);
  });

  it("answers a usage mistake with one line on standard error, a pointer to the help, and exit 2", () => {
    const cases: [string[], RegExp][] = [
      [[], /^skill-lsp: No command given\. See 'skill-lsp --help'\.\n$/],
      [["frobnicate"], /^skill-lsp: Unknown command "frobnicate"\. See 'skill-lsp --help'\.\n$/],
      [["expand"], /^skill-lsp expand: needs at least one @handle\. See 'skill-lsp expand --help'\.\n$/],
      [["check", "--nope"], /^skill-lsp check: Unknown option --nope\. See 'skill-lsp check --help'\.\n$/],
      [["check", "/no/such/folder"], /^skill-lsp check: \/no\/such\/folder is not a folder\. See 'skill-lsp check --help'\.\n$/],
      [["plan", "--model", "m.gguf"], /^skill-lsp plan: needs a request, in quotes: .* See 'skill-lsp plan --help'\.\n$/],
      [["test-routing", "examples"], /^skill-lsp test-routing: needs --model: .* See 'skill-lsp test-routing --help'\.\n$/],
      [["graph", "--format", "svg"], /^skill-lsp graph: --format is one of dot, mermaid, json; got svg\. See 'skill-lsp graph --help'\.\n$/],
      [["export", "@a", "--bogus"], /^skill-lsp export: Unknown option --bogus\. See 'skill-lsp export --help'\.\n$/],
      [["help", "nothing"], /^skill-lsp: Unknown command "nothing"\. See 'skill-lsp --help'\.\n$/],
    ];
    for (const [args, message] of cases) {
      const result = cli(args);
      assert.equal(result.code, 2, args.join(" "));
      assert.equal(result.out, "", args.join(" "));
      assert.match(result.err, message, args.join(" "));
    }
  });

  it("--version prints the package's version", () => {
    const { version } = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { version: string };
    assert.deepEqual(cli(["--version"]), { code: 0, out: `skill-lsp ${version}\n`, err: "" });
  });

  it("--help lists every verb; each verb has its own --help, on standard output with exit 0", () => {
    const overview = cli(["--help"]);
    assert.equal(overview.code, 0);
    const verbs = ["check", "expand", "menu", "export", "import", "graph", "plan", "test-routing"];
    for (const verb of verbs) {
      assert.match(overview.out, new RegExp(`^  ${verb} `, "m"), verb);
      for (const args of [[verb, "--help"], ["help", verb], [verb, "-h"]]) {
        const help = cli(args);
        assert.equal(help.code, 0, args.join(" "));
        assert.equal(help.err, "");
        assert.match(help.out, new RegExp(`^Usage: skill-lsp ${verb}\\b`), args.join(" "));
        assert.ok(help.out.split("\n").length < overview.out.split("\n").length, `${args.join(" ")} prints its own help, not the overview`);
      }
    }
  });

  it("plan reports a file that is not a model on standard error, in words, with exit 1", () => {
    const folder = mkdtempSync(path.join(tmpdir(), "skill-cli-"));
    const config = path.join(folder, "config.json");
    writeFileSync(config, '{\n  "architectures": ["LlamaForCausalLM"]\n}\n');
    const result = cli(["plan", "hi", "--model", config, "--folder", folder, "--gpu", "off"]);
    assert.equal(result.code, 1);
    assert.doesNotMatch(result.out, /GGUF/);
    assert.match(result.err, /^error +.*config\.json is not a GGUF model file: it is JSON text, not a model/m);
    assert.doesNotMatch(result.err, /starts with "/);
    rmSync(folder, { recursive: true, force: true });
  });

  it("check at the root of this repository: examples/ is checked with its own skills.json", () => {
    const result = cli(["check", "."]);
    assert.doesNotMatch(result.out, /^examples\//m, "examples/skills.json declares @send-message for the skills below it");
    assert.deepEqual(cli(["check", "examples"]), { code: 0, out: "", err: "" });
  });

  it("a skills.json applies to its folder and below; a nested one starts a library of its own", () => {
    const root = mkdtempSync(path.join(tmpdir(), "skill-cli-"));
    mkdirSync(path.join(root, "team/skills"), { recursive: true });
    mkdirSync(path.join(root, "mine"), { recursive: true });
    writeFileSync(path.join(root, "skills.json"), JSON.stringify({ tools: [{ slug: "post-note", name: "post_note", blurb: "Posts a note." }] }));
    writeFileSync(path.join(root, "team/skills.json"), JSON.stringify({ tools: [{ slug: "send-message", name: "send_message", blurb: "Sends a message." }] }));
    writeFileSync(path.join(root, "mine/notes.skill.md"), "---\nsummary: Notes.\n---\nUse @post-note.\n");
    writeFileSync(path.join(root, "team/skills/tell.skill.md"), "---\nsummary: Tell.\n---\nUse @send-message.\n");
    assert.deepEqual(cli(["check", "."], root), { code: 0, out: "", err: "" });
    // The team's skills do not see the outer library's tools, nor the outer skills the team's.
    writeFileSync(path.join(root, "team/skills/tell.skill.md"), "---\nsummary: Tell.\n---\nUse @send-message and @post-note.\n");
    writeFileSync(path.join(root, "mine/notes.skill.md"), "---\nsummary: Notes.\n---\nUse @post-note, not @send-message.\n");
    const result = cli(["check", "."], root);
    assert.equal(result.code, 1);
    assert.deepEqual(result.out.trim().split("\n").map((line) => line.split(" ").slice(0, 3).join(" ")), [
      "mine/notes.skill.md:4:21 error unknown-mention",
      "team/skills/tell.skill.md:4:23 error unknown-mention",
    ]);
    rmSync(root, { recursive: true, force: true });
  });
});
