// The labelled routing set is honest: large enough, labelled only with handles on its workspace's menu, and
// free of the skills' own examples and near misses (those are what few-shot variants and routing tests use).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { composeSystemPrompt } from "../../server/src/core/index.js";
import { menuHandles } from "../../server/src/planner/prompts.js";
import { isRight, labelledSets, workspaceNamespace } from "../../scripts/eval-planner.js";

describe("labelled routing set", () => {
  test("at least 80 requests over two workspaces, the second with at least 20 skills and the narrow-skill trap", async () => {
    const sets = labelledSets();
    assert.ok(sets.reduce((sum, set) => sum + set.requests.length, 0) >= 80);
    const trap = sets.find((set) => set.workspace === "eval/workspace");
    assert.ok(trap);
    const namespace = await workspaceNamespace(trap.workspace);
    assert.ok([...namespace.skills()].length >= 20);
    const menu = menuHandles(composeSystemPrompt(namespace));
    for (const handle of ["search-info", "fetch-file", "search-notes"]) assert.ok(menu.includes(handle), handle);
    assert.ok(trap.requests.filter((request) => request.category === "trap-broad").length >= 5);
  });

  test("every label is on its workspace's menu, and no request is a skill's own example or near miss", async () => {
    for (const set of labelledSets()) {
      const namespace = await workspaceNamespace(set.workspace);
      const menu = new Set(menuHandles(composeSystemPrompt(namespace)));
      const own = new Set([...namespace.skills()].flatMap((skill) => [...skill.examples, ...skill.nearMisses].map((entry) => entry.text.toLowerCase())));
      for (const request of set.requests) {
        for (const handles of [request.expected, ...(request.alsoAccepted ?? [])]) for (const handle of handles) assert.ok(menu.has(handle), `${set.workspace}: @${handle} (${request.text})`);
        assert.ok(!own.has(request.text.toLowerCase()), `${request.text} is a skill's own example`);
      }
    }
  });

  test("a plan is right when it is the label or an equally right plan, in any order", () => {
    const request = { text: "x", expected: ["a", "b"], alsoAccepted: [["c"]], category: "skill" as const };
    assert.equal(isRight(request, ["b", "a"]), true);
    assert.equal(isRight(request, ["c"]), true);
    assert.equal(isRight(request, ["a"]), false);
    assert.equal(isRight({ ...request, expected: [], alsoAccepted: [] }, []), true);
  });
});
