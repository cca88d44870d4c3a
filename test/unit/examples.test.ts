import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BUILTIN_SKILLS, CONFIG_FILE_NAME } from "../../server/src/core/index.js";
import { loadExamples, skillUri, uri, workspace } from "./helpers.js";

describe("examples/", () => {
  const files = loadExamples();
  const ns = workspace(files);

  test("holds skills and a skills.json", () => {
    assert.ok(ns.skillCount >= 3, `${ns.skillCount} skills`);
    assert.deepEqual(ns.configs().map((config) => config.uri), [uri(CONFIG_FILE_NAME)]);
  });

  test("has no error diagnostics at all", () => {
    const errors = Object.keys(files).flatMap((fileUri) =>
      ns.diagnose(fileUri).filter((d) => d.severity === "error").map((d) => `${fileUri}: ${d.code} ${d.message}`),
    );
    assert.deepEqual(errors, []);
  });

  test("every mention resolves, and every advertised, enabled skill has a summary", () => {
    for (const skill of ns.skills()) {
      for (const mention of skill.mentions) assert.ok(ns.resolve(mention.slug), `${skill.uri}: @${mention.slug}`);
      if (skill.enabled && skill.advertised) assert.ok(skill.summary, `${skill.uri} has a summary`);
    }
  });

  test("the three built-in files equal BUILTIN_SKILLS", () => {
    assert.deepEqual(BUILTIN_SKILLS.map((skill) => skill.handle), ["fetch-file", "check-schedule", "search-info"]);
    for (const { handle, text } of BUILTIN_SKILLS) assert.equal(files[skillUri(handle, "skills/builtin")], text, handle);
  });

  test("the built-ins as the spec has them", () => {
    const skill = (handle: string) => ns.claimants(handle)[0];
    assert.deepEqual([skill("fetch-file")?.enabled, skill("fetch-file")?.advertised], [true, false]);
    assert.deepEqual(skill("fetch-file")?.requirements, ["list-devices", "find-file"]);
    assert.deepEqual(skill("check-schedule")?.requirements, ["current-date", "calendar"]);
    assert.deepEqual(skill("search-info")?.requirements, ["check-notebook", "fetch-file", "grep-memory"]);
  });

  test("@search-info → check_notebook, list_devices, find_file, grep_memory", () => {
    assert.deepEqual(
      ns.expand(["search-info"]).tools.map((tool) => tool.name),
      ["check_notebook", "list_devices", "find_file", "grep_memory"],
    );
  });

  test("the wider skills expand through the built-ins, each tool once", () => {
    const expansion = ns.expand(["meeting-prep"]);
    assert.deepEqual(expansion.tools.map((tool) => tool.name), ["current_date", "queryCalendar", "check_notebook", "list_devices", "find_file", "grep_memory"]);
    assert.deepEqual(expansion.unresolved, []);
  });
});
