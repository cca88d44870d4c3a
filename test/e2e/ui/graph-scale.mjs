#!/usr/bin/env node
// The Skill Graph panel in the real VS Code workbench on a generated workspace of N skills
// (test/fixtures/skillGraph.ts), for the layout's time in the webview itself:
//   node --import tsx test/e2e/ui/graph-scale.mjs 100 1000
// For each N it writes the workspace into a temp folder, runs this file as the UI module of test/e2e/run.mjs
// (the panel beside the editor, then with the window), and prints what the page says it took.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, pickQuickItem, runCommand, webviewContent } from "./workbench.mjs";

const REPO = path.resolve(import.meta.dirname, "../../..");

/**
 * @param {import('playwright-core').Page} page
 * @param {{ artifactsDir: string, workspace: string }} context
 */
export async function run(page, { artifactsDir }) {
  const count = Number(process.env.GRAPH_SCALE_SKILLS);
  // A skill open in the editor, so that the panel opens beside it.
  await page.keyboard.press("Control+P");
  await pickQuickItem(page, "skill-0.skill.md");
  await page.locator(".editor-instance .monaco-editor").first().waitFor();
  await runCommand(page, "Skill: Show Skill Graph");
  // Enter has been pressed on the command: from here on the user waits.
  const opened = Date.now();
  const panel = webviewContent(page);
  // The page's clock: the first frame with the graph on screen, as wall-clock time and since the page began loading.
  const canvas = panel.locator("#canvas");
  await canvas.and(panel.locator("[data-painted-at]")).waitFor({ timeout: 180_000 });
  const paintedAt = Number(await canvas.getAttribute("data-painted-at"));
  console.log(`graph-scale: ${count} skills, Enter on the command → the graph on screen ${paintedAt - opened} ms (the page's own load → on screen ${await canvas.getAttribute("data-shown-ms")} ms; phases ${await canvas.getAttribute("data-phases")})`);
  // Until the server has read every file: the panel follows as the graph grows.
  await panel.locator("#stats").filter({ hasText: new RegExp(`^${count.toLocaleString("en-US")} skills`) }).waitFor({ timeout: 180_000 });
  const status = panel.locator("#status");
  for (const where of ["beside the editor", "with the window"]) {
    if (where === "with the window") {
      await runCommand(page, "View: Single Column Editor Layout");
      await page.locator('[aria-label^="Toggle Primary Side Bar"]').first().click({ timeout: 5_000 }).catch(() => undefined);
      await page.waitForTimeout(1500);
    }
    await status.filter({ hasText: /laid out in/ }).waitFor({ timeout: 180_000 });
    await page.waitForTimeout(500);
    const text = (await status.textContent()) ?? "";
    expect(/laid out in/.test(text), text);
    const width = Math.round((await panel.locator("#canvas").boundingBox())?.width ?? 0);
    console.log(`graph-scale: ${count} skills, ${where} (${width} px): ${text}`);
    await page.screenshot({ path: path.join(artifactsDir, `graph-${count}-${where.replace(/ /g, "-")}.png`) });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { generatedSkills } = await import("../../fixtures/skillGraph.ts");
  const counts = process.argv.slice(2).map(Number);
  if (counts.length === 0 || counts.some((count) => !Number.isInteger(count) || count < 1)) {
    console.error("usage: node --import tsx test/e2e/ui/graph-scale.mjs N… (whole numbers of skills)");
    process.exit(2);
  }
  let failed = 0;
  for (const count of counts) {
    const folder = mkdtempSync(path.join(tmpdir(), `skill-graph-${count}-`));
    try {
      mkdirSync(path.join(folder, "skills"));
      mkdirSync(path.join(folder, ".vscode"));
      writeFileSync(path.join(folder, ".vscode/settings.json"), JSON.stringify({ "files.autoSave": "off" }));
      for (const [handle, text] of generatedSkills(count)) writeFileSync(path.join(folder, "skills", `${handle}.skill.md`), text);
      const result = spawnSync(process.execPath, ["test/e2e/run.mjs", "--ui", fileURLToPath(import.meta.url), "--extension", REPO, "--workspace", folder, "--env", `GRAPH_SCALE_SKILLS=${count}`, "--artifacts", path.join(REPO, "test-artifacts", `graph-scale-${count}`)], { cwd: REPO, stdio: "inherit", env: { ...process.env, GRAPH_SCALE_SKILLS: String(count) } });
      if (result.status !== 0) failed++;
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }
  process.exit(failed > 0 ? 1 : 0);
}
