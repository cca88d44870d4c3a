import * as path from "node:path";
import { BUNDLE_SUFFIX, exportAgentSkills, exportBundle } from "../core/bundle.js";
import { isRefusal } from "../core/index.js";
import { writeAgentSkills, writeBundleFile } from "../node/bundleFiles.js";
import { loadNamespace, parseArgs, relativePath, UsageError, type Verb } from "./common.js";

/** `export @handle`: the skill and its closure to one bundle, or to Agent Skills folders. Exit 1 when refused. */
export const exportVerb: Verb = {
  name: "export",
  usage: `export @handle [--folder F] [--out FILE${BUNDLE_SUFFIX}] [--agent-skills DIR]
                               Write the skill and every skill it mentions, transitively, to one bundle
                               (default ./<handle>${BUNDLE_SUFFIX}), or to Agent Skills folders DIR/<name>/SKILL.md.`,
  async run(args, io) {
    const { positional, folders, values } = parseArgs(args, { valued: ["--out", "--agent-skills"] });
    if (positional.length !== 1) throw new UsageError("export needs exactly one @handle.");
    const handle = (positional[0] ?? "").replace(/^@/, "").toLowerCase();
    const namespace = await loadNamespace(folders);
    const bundle = exportBundle(namespace, handle);
    if (isRefusal(bundle)) {
      io.err(`skill-lsp: ${bundle.refused}`);
      return 1;
    }
    const skills = bundle.skills.map((skill) => `@${skill.handle}`).join(", ");
    const tools = bundle.tools.map((tool) => `@${tool.slug} (${tool.name})`).join(", ");
    const agentDir = values.get("--agent-skills");
    if (agentDir !== undefined) {
      const folders = exportAgentSkills(namespace, handle);
      if (isRefusal(folders)) {
        io.err(`skill-lsp: ${folders.refused}`);
        return 1;
      }
      const written = await writeAgentSkills(agentDir, folders);
      if (isRefusal(written)) {
        io.err(`skill-lsp: ${written.refused}`);
        return 1;
      }
      io.out(`Wrote ${written.length} Agent Skills folder${written.length === 1 ? "" : "s"} under ${relativePath(path.resolve(agentDir))}${written.length < folders.length ? ` (${folders.length - written.length} already there)` : ""}: ${skills}.`);
    }
    const outFile = values.get("--out") ?? (agentDir === undefined ? `${bundle.root}${BUNDLE_SUFFIX}` : undefined);
    if (outFile !== undefined) {
      await writeBundleFile(outFile, bundle);
      io.out(`Wrote ${relativePath(path.resolve(outFile))}: ${skills} (${bundle.skills.length} skill${bundle.skills.length === 1 ? "" : "s"}).`);
    }
    if (tools !== "") io.out(`Tools not shipped, needed on the other side: ${tools}.`);
    return 0;
  },
};
