import * as path from "node:path";
import { BUNDLE_SUFFIX, exportAgentSkills, exportBundle, skillClosure, type BundleFile, type LeftOut } from "../core/bundle.js";
import { isRefusal } from "../core/index.js";
import { filesOfSkill, writeAgentSkills, writeBundleFile } from "../node/bundleFiles.js";
import { loadNamespace, parseArgs, relativePath, UsageError, type CliIo, type Verb } from "./common.js";

function leftOutLines(io: CliIo, leftOut: ReadonlyMap<string, readonly LeftOut[]>): void {
  for (const [handle, items] of leftOut) for (const item of items) io.out(`Left out of @${handle}: ${item.path} (${item.reason}).`);
}

/** `export @handle`: the skill and its closure to one bundle, or to Agent Skills folders. Exit 1 when refused. */
export const exportVerb: Verb = {
  name: "export",
  usage: `export @handle [--folder F] [--out FILE${BUNDLE_SUFFIX}] [--agent-skills DIR]
                               Write the skill and every skill it mentions, transitively, with the files of
                               their folders, to one bundle (default ./<handle>${BUNDLE_SUFFIX}), or to Agent
                               Skills folders DIR/<name>/SKILL.md.`,
  async run(args, io) {
    const { positional, folders, values } = parseArgs(args, { valued: ["--out", "--agent-skills"] });
    if (positional.length !== 1) throw new UsageError("export needs exactly one @handle.");
    const handle = (positional[0] ?? "").replace(/^@/, "").toLowerCase();
    const namespace = await loadNamespace(folders);
    try {
      const closure = skillClosure(namespace, handle);
      if (isRefusal(closure)) {
        io.err(`skill-lsp: ${closure.refused}`);
        return 1;
      }
      const agentDir = values.get("--agent-skills");
      const outFile = values.get("--out") ?? (agentDir === undefined ? `${closure[0]?.slug ?? handle}${BUNDLE_SUFFIX}` : undefined);
      const skills = closure.map((skill) => `@${skill.slug}`).join(", ");
      if (agentDir !== undefined) {
        const agentFolders = exportAgentSkills(namespace, handle);
        if (isRefusal(agentFolders)) {
          io.err(`skill-lsp: ${agentFolders.refused}`);
          return 1;
        }
        const written = await writeAgentSkills(agentDir, agentFolders);
        if (isRefusal(written)) {
          io.err(`skill-lsp: ${written.refused}`);
          return 1;
        }
        for (const folder of agentFolders) for (const note of folder.notes) io.out(`Note: ${note}`);
        leftOutLines(io, written.leftOut);
        const same = written.fileCount - written.written.length;
        io.out(`Wrote ${agentFolders.length} Agent Skills folder${agentFolders.length === 1 ? "" : "s"} under ${relativePath(path.resolve(agentDir))}, ${written.written.length} file${written.written.length === 1 ? "" : "s"}${same > 0 ? ` (${same} already there with the same bytes)` : ""}: ${skills}.`);
      }
      if (outFile !== undefined) {
        const carried = new Map<string, readonly BundleFile[]>();
        const leftOut = new Map<string, readonly LeftOut[]>();
        for (const skill of closure) {
          const files = await filesOfSkill(skill.uri);
          carried.set(skill.uri, files.files);
          leftOut.set(skill.slug, files.leftOut);
        }
        const bundle = exportBundle(namespace, handle, (skill) => carried.get(skill.uri) ?? []);
        if (isRefusal(bundle)) {
          io.err(`skill-lsp: ${bundle.refused}`);
          return 1;
        }
        await writeBundleFile(outFile, bundle);
        leftOutLines(io, leftOut);
        const fileCount = bundle.skills.reduce((sum, skill) => sum + (skill.files?.length ?? 0), 0);
        io.out(`Wrote ${relativePath(path.resolve(outFile))}: ${skills} (${bundle.skills.length} skill${bundle.skills.length === 1 ? "" : "s"}${fileCount > 0 ? `, ${fileCount} file${fileCount === 1 ? "" : "s"} of their folders` : ""}).`);
        const tools = bundle.tools.map((tool) => `@${tool.slug} (${tool.name})`).join(", ");
        if (tools !== "") io.out(`Tools not shipped, needed on the other side: ${tools}.`);
      }
      return 0;
    } catch (error) {
      // A disk that refuses (permissions, a full disk): one line, never a stack trace.
      io.err(`skill-lsp: Nothing was exported: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
  },
};
