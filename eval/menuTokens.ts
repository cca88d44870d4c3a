/**
 * How far the menu's token estimate (characters / 4, used while no model is loaded) is from the real tokenizers
 * of the cached models, on examples/, eval/workspace and generated menus of 3,000 skills. Prints one table.
 *   node --import tsx eval/menuTokens.ts
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { generateWorkspaces, type WorkspaceShape } from "../bench/workspace.js";
import { approximateTokenSize, composeSystemPrompt, Namespace, type SystemPrompt } from "../server/src/core/index.js";
import { loadFolders } from "../server/src/node/workspaceFiles.js";
import { llamaBinding } from "../server/src/planner/llamaModel.js";
import { cachedModelPath, GEMMA3_270M, SMOLLM2 } from "../server/src/planner/modelCatalog.js";

const ROOT = path.resolve(__dirname, "..");

async function menuOf(folders: readonly string[]): Promise<SystemPrompt> {
  const namespace = new Namespace();
  await loadFolders(namespace, folders);
  return composeSystemPrompt(namespace);
}

async function main(): Promise<void> {
  const scratch = await mkdtemp(path.join(tmpdir(), "menu-tokens-"));
  try {
    const menus: { readonly name: string; readonly prompt: SystemPrompt }[] = [
      { name: "examples/", prompt: await menuOf([path.join(ROOT, "examples")]) },
      { name: "eval/workspace", prompt: await menuOf([path.join(ROOT, "eval/workspace")]) },
    ];
    for (const shape of ["distinct", "realistic", "worst"] satisfies WorkspaceShape[]) {
      const generated = await generateWorkspaces(path.join(scratch, shape), 3000, 20261203, shape);
      menus.push({ name: `generated 3,000 (${shape})`, prompt: await menuOf([generated.skills]) });
    }
    const llama = await llamaBinding({ gpu: false, threads: 2 });
    console.log("| menu | skills | characters | estimate | model | tokens | estimate's error | characters per token | entries' error, worst |");
    console.log("|---|---|---|---|---|---|---|---|---|");
    for (const catalogModel of [SMOLLM2, GEMMA3_270M]) {
      const file = cachedModelPath(catalogModel);
      if (!existsSync(file)) {
        console.log(`(${catalogModel.title} is not cached at ${file}: run npm run models)`);
        continue;
      }
      const model = await llama.loadModel({ modelPath: file });
      try {
        for (const { name, prompt } of menus) {
          const tokens = model.tokenize(prompt.text).length;
          const estimate = approximateTokenSize(prompt.text.length).tokens;
          let worst = 0;
          for (const entry of prompt.entries) {
            const real = model.tokenize(entry.text).length;
            const error = (approximateTokenSize(entry.text.length).tokens - real) / real;
            if (Math.abs(error) > Math.abs(worst)) worst = error;
          }
          const percent = (value: number) => `${value >= 0 ? "+" : ""}${(100 * value).toFixed(1)}%`;
          console.log(
            `| ${name} | ${prompt.menuSkills.length.toLocaleString("en")} | ${prompt.text.length.toLocaleString("en")} | ${estimate.toLocaleString("en")} | ${catalogModel.title} | ${tokens.toLocaleString("en")} | ${percent((estimate - tokens) / tokens)} | ${(prompt.text.length / tokens).toFixed(2)} | ${percent(worst)} |`,
          );
        }
      } finally {
        await model.dispose();
      }
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
