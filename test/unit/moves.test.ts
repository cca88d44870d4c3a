import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MoveDetector, type Namespace } from "../../server/src/core/index.js";
import { markdownToPlainText } from "../../server/src/service/plainText.js";
import { moveActions, moveEdit } from "../../server/src/service/moves.js";
import { fileOf } from "../../server/src/service/lookup.js";
import { loadExamples, skillUri, uri, workspace } from "./helpers.js";

/** Moves a file in the namespace as the server sees a rename on disk: the old one gone, the new one there. */
function moveFile(namespace: Namespace, detector: MoveDetector, from: string, to: string, order: "deleteFirst" | "createFirst" = "deleteFirst"): void {
  const skill = namespace.skill(from);
  assert.ok(skill);
  const remove = () => {
    detector.vanished(skill);
    namespace.remove(from);
  };
  const add = () => {
    namespace.set(to, skill.text);
    const added = namespace.skill(to);
    assert.ok(added);
    detector.appeared(added);
  };
  if (order === "deleteFirst") [remove, add].forEach((step) => step());
  else [add, remove].forEach((step) => step());
}

const SEARCH = uri("skills/builtin/search-info.skill.md");
const FIND = uri("skills/builtin/find-info.skill.md");

describe("MoveDetector", () => {
  for (const order of ["deleteFirst", "createFirst"] as const) {
    test(`a skill file renamed on disk (${order === "deleteFirst" ? "deleted, then created" : "created, then deleted"}) is one move while its old mentions dangle`, () => {
      const namespace = workspace(loadExamples());
      const detector = new MoveDetector();
      moveFile(namespace, detector, SEARCH, FIND, order);
      assert.deepEqual(detector.moves(namespace), [{ oldSlug: "search-info", newSlug: "find-info", oldUri: SEARCH, newUri: FIND }]);
      const { edit, mentions, files } = moveEdit(namespace, detector.moves(namespace)[0]!, () => null);
      assert.deepEqual([files, mentions], [3, 3]);
      assert.deepEqual(edit.documentChanges?.map((change) => ("textDocument" in change ? change.textDocument.uri : "")), [uri("skills.json"), uri("skills/home/plan-trip.skill.md"), uri("skills/work/meeting-prep.skill.md")]);
    });
  }

  test("a move is forgotten once nothing mentions the old handle, or the old handle is back", () => {
    const files = { [skillUri("a")]: "---\nsummary: A.\n---\nDo the a thing.\n", [skillUri("user")]: "---\nsummary: U.\n---\nUse @a.\n" };
    const namespace = workspace(files);
    const detector = new MoveDetector();
    moveFile(namespace, detector, skillUri("a"), skillUri("b"));
    assert.equal(detector.moves(namespace).length, 1);
    namespace.set(skillUri("user"), "---\nsummary: U.\n---\nUse @b.\n");
    assert.deepEqual(detector.moves(namespace), []);

    const again = workspace(files);
    const detector2 = new MoveDetector();
    moveFile(again, detector2, skillUri("a"), skillUri("b"));
    again.set(skillUri("a"), "---\nsummary: Another A.\n---\nSomething else.\n");
    assert.deepEqual(detector2.moves(again), [], "@a resolves again: nothing dangles");
  });

  test("no move from an empty body, or when two vanished files share the body", () => {
    const namespace = workspace({ [skillUri("a")]: "---\nsummary: A.\n---\n", [skillUri("c")]: "Same.\n", [skillUri("d")]: "Same.\n", [skillUri("user")]: "Use @a, @c and @d.\n" });
    const detector = new MoveDetector();
    moveFile(namespace, detector, skillUri("a"), skillUri("b"));
    for (const slug of ["c", "d"]) {
      detector.vanished(namespace.skill(skillUri(slug))!);
      namespace.remove(skillUri(slug));
    }
    namespace.set(skillUri("e"), "Same.\n");
    detector.appeared(namespace.skill(skillUri("e"))!);
    assert.deepEqual(detector.moves(namespace), []);
  });

  test("code actions: a quick fix on the dangling mention and one workspace action, counted", () => {
    const namespace = workspace(loadExamples());
    const detector = new MoveDetector();
    moveFile(namespace, detector, SEARCH, FIND);
    const prep = uri("skills/work/meeting-prep.skill.md");
    const file = fileOf(namespace, prep)!;
    const diagnostic = namespace.diagnose(prep).find((one) => one.code === "unknown-mention")!;
    const lsp = { range: diagnostic.range, message: diagnostic.message, code: diagnostic.code, source: "skill", data: diagnostic.fix };
    const actions = moveActions(namespace, detector.moves(namespace), file, [lsp], () => 7, undefined);
    assert.deepEqual(actions.map((action) => [action.kind, action.title]), [
      ["quickfix", "Change to @find-info (the skill was renamed from @search-info)"],
      ["source.updateRenamedSkill", "@search-info was renamed to @find-info: update 3 mentions in 3 files"],
    ]);
    assert.deepEqual(moveActions(namespace, detector.moves(namespace), file, [lsp], () => 7, ["source"]).length, 1);
    assert.deepEqual(moveActions(namespace, detector.moves(namespace), file, [lsp], () => 7, ["refactor"]), []);
  });
});

describe("markdownToPlainText", () => {
  test("drops the marks, keeps code as written and the lines", () => {
    assert.equal(markdownToPlainText("**Meeting Prep** · skill `@meeting-prep`\n\n_No summary._"), "Meeting Prep · skill @meeting-prep\n\nNo summary.");
    assert.equal(markdownToPlainText("# Title\n- `a*b*c`: see [the docs](https://x.test) and *this*"), "Title\n- a*b*c: see the docs (https://x.test) and this");
    assert.equal(markdownToPlainText("Binds `check_notebook`, `find_file`"), "Binds check_notebook, find_file");
  });
});
