/**
 * Runs the SKILL.md frontmatter checker over every `SKILL.md` under the given folders (a clone of a skill
 * library, say) and prints how many files are clean and each problem found, counted by code and severity.
 *
 *     node --import tsx scripts/scan-agent-skills.ts [--list] folder…
 */
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { agentsReadingSkill } from "../server/src/core/agentSkills/agents.js";
import { checkAgentSkillFrontmatter } from "../server/src/core/agentSkills/check.js";
import { readFrontmatter } from "../server/src/core/agentSkills/frontmatter.js";
import { LineMap, type CoreDiagnostic } from "../server/src/core/index.js";

const SKIPPED = new Set(["node_modules", ".git", "dist", "build"]);

function skillFiles(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const at = path.join(folder, entry.name);
    if (entry.isDirectory() && !SKIPPED.has(entry.name)) found.push(...skillFiles(at));
    else if (entry.isFile() && entry.name === "SKILL.md") found.push(at);
  }
  return found.sort();
}

/** The problems of one SKILL.md's frontmatter; a file without one has a single made-up "no frontmatter" problem. */
function problemsOf(file: string): CoreDiagnostic[] | "no frontmatter" {
  const text = readFileSync(file, "utf8");
  const lines = new LineMap(text);
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const open = /^---[ \t]*\r?\n/.exec(text.slice(start));
  if (!open) return "no frontmatter";
  const base = start + open[0].length;
  const close = /^(?:---|\.\.\.)[ \t]*$/m.exec(text.slice(base));
  if (!close) return "no frontmatter";
  const read = readFrontmatter(text.slice(base, base + close.index), base, lines);
  const readers = agentsReadingSkill(pathToFileURL(file).href);
  const checked = read.entries ? checkAgentSkillFrontmatter(read.entries, { headerRange: lines.rangeOf(start, start + 3), ...(readers ? { readers } : {}) }) : [];
  return [...read.problems, ...checked];
}

const args = process.argv.slice(2);
const list = args.includes("--list");
const folders = args.filter((arg) => arg !== "--list");
if (folders.length === 0) {
  console.error("Usage: node --import tsx scripts/scan-agent-skills.ts [--list] folder…");
  process.exit(2);
}

const counts = new Map<string, number>();
let files = 0;
let clean = 0;
for (const folder of folders) {
  for (const file of skillFiles(path.resolve(folder))) {
    files++;
    const problems = problemsOf(file);
    const found = problems === "no frontmatter" ? [{ key: "no frontmatter", line: 1, character: 1, message: "" }] : problems.map((p) => ({ key: `${p.code} ${p.severity}`, line: p.range.start.line + 1, character: p.range.start.character + 1, message: p.message }));
    if (found.length === 0) clean++;
    for (const problem of found) {
      counts.set(problem.key, (counts.get(problem.key) ?? 0) + 1);
      if (list) console.log(`${path.relative(process.cwd(), file)}:${problem.line}:${problem.character} ${problem.key} ${problem.message}`);
    }
  }
}
console.log(`${files} SKILL.md files, ${clean} without a problem`);
for (const [key, count] of [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) console.log(`${String(count).padStart(6)}  ${key}`);
