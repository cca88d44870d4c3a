/**
 * The listed workspace reads what an open editor's diagnostics depend on: the files it mentions, by the URIs
 * the rest of the server uses for them (whatever their names hold), each up to the end of its frontmatter, and
 * leaves them to the whole read.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { Namespace } from "../../server/src/core/index.js";
import { ListedWorkspace, skillFileHandle } from "../../server/src/node/listedWorkspace.js";
import { uriFromPath } from "../../server/src/node/workspaceFiles.js";

test("the files an open editor mentions are read by their own URIs, for their claim alone", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-lsp-listed-"));
  try {
    const handles = ["plain-one", "Capital-Two", "with space", "per%cent", "hash#tag", "ünïcode", "tilde~x", "dots.in.name", "off"];
    const files = handles.map((handle) => path.join(folder, `${handle}.skill.md`));
    handles.forEach((handle, k) => writeFileSync(files[k] ?? "", `---\nsummary: The skill ${handle}\n${handle === "off" ? "enabled: false\n" : ""}---\n# Body\n\nAsk @nowhere-${k}.\n`));
    const open = path.join(folder, "open.skill.md");
    const openText = `---\nsummary: Open\n---\n${["plain-one", "capital-two", "off", "missing-one"].map((slug) => `@${slug}`).join(" ")}\n`;
    const namespace = new Namespace();
    const openUri = uriFromPath(open);
    namespace.set(openUri, openText);
    const listed = new ListedWorkspace([...files, open]);
    listed.readFor(namespace, openUri, (uri) => uri === openUri);

    const read = new Set(namespace.uris());
    for (const handle of ["plain-one", "Capital-Two", "off"]) assert.ok(read.has(uriFromPath(path.join(folder, `${handle}.skill.md`))), handle);
    assert.equal(read.size, 4, "only the mentioned files and the open one");
    for (const uri of read) {
      if (uri === openUri) continue;
      assert.deepEqual(namespace.skill(uri)?.mentions, [], "a mentioned file is parsed up to the end of its frontmatter");
      assert.equal(listed.wasRead(uri), false, "and read whole with the rest");
    }
    // The same diagnosis as with every file read whole.
    const whole = new Namespace();
    whole.set(openUri, openText);
    for (const file of files) whole.set(uriFromPath(file), readFileSync(file, "utf8"));
    assert.deepEqual(namespace.diagnose(openUri), whole.diagnose(openUri));
    assert.ok(namespace.diagnose(openUri).some((diagnostic) => diagnostic.code === "disabled-mention"));

    // Every name, plain or escaped, gets the URI the rest of the server gives it.
    const everyone = new Namespace();
    const all = path.join(folder, "all.skill.md");
    const allUri = uriFromPath(all);
    everyone.set(allUri, `---\nsummary: All\n---\n${handles.map((handle) => `@${handle.toLowerCase().replace(/[^a-z0-9-]/g, "")}`).join(" ")}\n`);
    const named = new ListedWorkspace(files, (file) => path.basename(file, ".skill.md").toLowerCase().replace(/[^a-z0-9-]/g, ""));
    named.readFor(everyone, allUri, () => false);
    assert.deepEqual(new Set(everyone.uris()), new Set([allUri, ...files.map((file) => uriFromPath(file))]));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("an Agent Skill an open editor mentions is held by its path, unread; a skills.json reads it, and a folder without SKILL.md claims nothing", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "skill-lsp-listed-agent-"));
  try {
    const write = (relative: string, text: string) => {
      mkdirSync(path.dirname(path.join(folder, relative)), { recursive: true });
      writeFileSync(path.join(folder, relative), text);
    };
    write("skills/pdf/SKILL.md", "---\nname: pdf\ndescription: Fills PDF forms\n---\nThen /nowhere.\n");
    write("skills/quiet/SKILL.md", "---\nname: quiet\ndescription: Runs only when asked\ndisable-model-invocation: true\n---\nBody.\n");
    // Named unreadable bytes still claim the folder's handle, as the whole read has it.
    write("skills/binary/SKILL.md", "\u0000\u0001");
    write("skills/helpers/README.md", "Not a skill.\n");
    write("plain.skill.md", "---\nsummary: Plain\nenabled: false\n---\nBody.\n");
    const open = path.join(folder, "skills", "open", "SKILL.md");
    const openText = "---\nname: open\ndescription: Open\n---\nUse /pdf, /quiet, /binary, /helpers and @plain.\n";
    write("skills/open/SKILL.md", openText);
    const config = path.join(folder, "skills.json");
    const configText = JSON.stringify({ alignment: { menu: ["@pdf", "@quiet"] } });
    write("skills.json", configText);
    const listedFiles = [...["pdf", "quiet", "binary", "helpers"].map((name) => path.join(folder, "skills", name, "SKILL.md")), path.join(folder, "plain.skill.md"), open];
    const openUri = uriFromPath(open);
    const configUri = uriFromPath(config);
    const uriOf = (name: string) => uriFromPath(path.join(folder, "skills", name, "SKILL.md"));
    const whole = new Namespace();
    for (const file of [...listedFiles.filter((file) => !file.includes("helpers")), config]) whole.set(uriFromPath(file), readFileSync(file, "utf8"));

    const namespace = new Namespace();
    namespace.set(openUri, openText);
    const listed = new ListedWorkspace(listedFiles);
    listed.readFor(namespace, openUri, (uri) => uri === openUri);
    for (const name of ["pdf", "quiet", "binary"]) {
      assert.equal(namespace.skill(uriOf(name))?.summary, undefined, `${name} is held by its path, its description unread`);
      assert.equal(listed.wasRead(uriOf(name)), false, `${name} is read whole with the rest`);
    }
    assert.equal(namespace.has(uriOf("helpers")), false, "a folder without SKILL.md claims nothing");
    assert.equal(namespace.skill(uriFromPath(path.join(folder, "plain.skill.md")))?.enabled, false, "a .skill.md's claim is read from its text");
    assert.deepEqual(namespace.diagnose(openUri), whole.diagnose(openUri), "the open editor's diagnosis is the whole workspace's");

    namespace.set(configUri, configText);
    listed.readFor(namespace, configUri, (uri) => uri === openUri);
    assert.equal(namespace.skill(uriOf("quiet"))?.advertised, false, "a skills.json reads whether a skill is advertised");
    assert.deepEqual(namespace.diagnose(configUri), whole.diagnose(configUri));
    assert.ok(namespace.diagnose(configUri).some((diagnostic) => diagnostic.message.includes("not advertised")));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("a listed path's handle: a skill file's name in any case, an Agent Skill's folder, nothing for other names", () => {
  const root = path.join(path.sep, "work", "space");
  const cases: [string, string | undefined][] = [
    [path.join(root, "plan-trip.skill.md"), "plan-trip"],
    [path.join(root, "Plan-Trip.Skill.MD"), "Plan-Trip"],
    [path.join(root, "deep", "x.SKILL.md"), "x"],
    [path.join(root, ".skill.md"), ""],
    [path.join(root, "skills", "pdf", "SKILL.md"), "pdf"],
    [path.join(root, "pdf", "SKILL.md"), undefined],
    [path.join(root, "skills", "SKILL.md"), undefined],
    [path.join(root, "my-skills", "pdf", "SKILL.md"), undefined],
    [path.join(root, "skills", "pdf", "scripts", "SKILL.md"), undefined],
    [path.join(root, "skills", "pdf", "skills", "forms", "SKILL.md"), "forms"],
    [path.join(path.sep, "skills", "pdf", "SKILL.md"), "pdf"],
    [path.join(root, "notes.md"), undefined],
    [path.join(root, "a.skill.md", "b.md"), undefined],
    [path.join(root, "skill.md"), undefined],
  ];
  for (const [file, handle] of cases) assert.equal(skillFileHandle(file), handle, file);
});
