// The first step of the menu-similar comparison alone, in one process: every skill's summary read into a fresh
// similarity index, as the server does once a workspace is indexed (its terms found, equal ones grouped). The
// summaries come from the folder's `.skill.md` files through the skill parser; only the indexing is timed. Prints
// each round and the median. Run it bundled, as the server runs (under tsx the same step took 430 ms against
// 300 ms at 100,000 skills):
//   npx esbuild bench/summaries.ts --bundle --platform=node --outfile=/tmp/summaries.cjs
//   node /tmp/summaries.cjs <skills folder> [--rounds N]
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { parseSkillFile } from "../server/src/core/skillFile.js";
import { SimilarityIndex } from "../server/src/core/similarityIndex.js";
import { detached } from "../server/src/core/text.js";

const args = process.argv.slice(2);
const folder = args[0];
if (!folder || folder.startsWith("--")) {
  console.error("usage: node /tmp/summaries.cjs <skills folder> [--rounds N] (bundled from bench/summaries.ts)");
  process.exit(2);
}
const roundsAt = args.indexOf("--rounds");
const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) || 5 : 5;

const summaries: [string, string][] = [];
for (const name of readdirSync(folder).sort()) {
  if (!name.endsWith(".skill.md")) continue;
  const uri = pathToFileURL(path.join(folder, name)).href;
  const summary = parseSkillFile(uri, readFileSync(path.join(folder, name), "utf8")).summary;
  // Held apart from the file's text, as the server holds a summary once the text is let go.
  if (summary !== undefined) summaries.push([uri, detached(summary)]);
}

const times: number[] = [];
for (let round = 0; round < rounds; round++) {
  const index = new SimilarityIndex();
  const started = performance.now();
  for (const [uri, summary] of summaries) index.setSummary(uri, summary);
  times.push(performance.now() - started);
  console.log(`round ${round + 1}: ${times[round]?.toFixed(0)} ms`);
}
times.sort((a, b) => a - b);
console.log(`${summaries.length} summaries indexed: median ${times[Math.floor(times.length / 2)]?.toFixed(0)} ms of ${rounds} rounds`);
