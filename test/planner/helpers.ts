import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { Namespace } from "../../server/src/core/index.js";
import { loadFolders } from "../../server/src/node/workspaceFiles.js";
import type { PlannerEvent } from "../../server/src/planner/events.js";
import type { GenerateRequest, GenerateResult, ModelInfo, ModelProgress, PlannerModel } from "../../server/src/planner/model.js";
import { createWorkspaceTools, type WorkspaceTools } from "../../server/src/tools/index.js";

export const ROOT = path.resolve(__dirname, "../..");
export const EXAMPLES = path.join(ROOT, "examples");
export const DATA = path.join(ROOT, "test/fixtures/workspace-data");
export const DATA_FOLDERS = [path.join(DATA, "home"), path.join(DATA, "laptop")];

/** Wednesday 2 December 2026, 10:00 local time: the day the fixtures are written around. */
export const FIXTURE_NOW = (): Date => new Date(2026, 11, 2, 10, 0);

/** A temp folder for one test file, removed by the returned cleanup. */
export async function tempDir(prefix: string): Promise<{ readonly dir: string; readonly cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** The `examples/` workspace, read from disk. */
export async function examplesNamespace(): Promise<Namespace> {
  const namespace = new Namespace();
  await loadFolders(namespace, [EXAMPLES]);
  return namespace;
}

/** A namespace from in-memory files: `{ "/ws/a.skill.md": "…", "/ws/skills.json": "…" }`. */
export function namespaceOf(files: Readonly<Record<string, string>>): Namespace {
  const namespace = new Namespace();
  for (const [file, text] of Object.entries(files)) namespace.set(`file://${file}`, text);
  return namespace;
}

/** The built-in tools over the fixture data, with the fixture clock. */
export function fixtureTools(): WorkspaceTools {
  return createWorkspaceTools({ folders: DATA_FOLDERS, now: FIXTURE_NOW });
}

/** Collects a run's events. */
export function recorder(): { readonly events: PlannerEvent[]; readonly onEvent: (event: PlannerEvent) => void; of<T extends PlannerEvent["type"]>(type: T): Extract<PlannerEvent, { type: T }>[] } {
  const events: PlannerEvent[] = [];
  return {
    events,
    onEvent: (event) => events.push(event),
    of: <T extends PlannerEvent["type"]>(type: T) => events.filter((event): event is Extract<PlannerEvent, { type: T }> => event.type === type),
  };
}

/**
 * A model double for the planner's own logic: answers each request with `respond`, and keeps the requests so a
 * test can see exactly what the planner offered the model.
 */
export class FakeModel implements PlannerModel {
  readonly requests: GenerateRequest[] = [];
  readonly #respond: (request: GenerateRequest) => Promise<string> | string;

  constructor(respond: (request: GenerateRequest) => Promise<string> | string) {
    this.#respond = respond;
  }

  prepare(options: { readonly onProgress?: (progress: ModelProgress) => void } = {}): Promise<ModelInfo> {
    const info: ModelInfo = { path: "fake.gguf", contextSize: 4096, threads: 1, device: "cpu", loadMs: 0 };
    options.onProgress?.({ stage: "ready", info });
    return Promise.resolve(info);
  }

  countTokens(text: string): Promise<number> {
    return Promise.resolve(text.split(/\s+/).filter(Boolean).length);
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    this.requests.push(request);
    const text = await this.#respond(request);
    request.onText?.(text);
    return { text, stopReason: "end", evaluatedInputTokens: 0, outputTokens: text.length, durationMs: 0 };
  }

  unload(): Promise<void> {
    return Promise.resolve();
  }

  dispose(): Promise<void> {
    return Promise.resolve();
  }
}
