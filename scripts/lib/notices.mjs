// THIRD-PARTY-NOTICES.md: every package whose code ships in a VSIX or the npm package, bundled by esbuild or
// copied as is, with its declared license and the full text of its license file.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import * as path from "node:path";

/** The package folders an esbuild metafile's inputs come from (the innermost node_modules/<name>). */
export function bundledPackages(metafiles, root) {
  const folders = new Set();
  for (const metafile of metafiles) {
    for (const input of Object.keys(metafile.inputs)) {
      const normalised = input.split(path.sep).join("/");
      const at = normalised.lastIndexOf("node_modules/");
      if (at < 0) continue;
      const rest = normalised.slice(at + "node_modules/".length).split("/");
      const name = rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
      folders.add(path.resolve(root, normalised.slice(0, at), "node_modules", name));
    }
  }
  return [...folders];
}

function licenseText(folder) {
  const file = readdirSync(folder).find((name) => /^(licen[cs]e|copying)(\.|$|-)/i.test(name));
  return file ? readFileSync(path.join(folder, file), "utf8").trim() : undefined;
}

/** The notices for these package folders, one section each, sorted by name; a package without a license file says so. */
export function noticesFor(...groups) {
  const packages = new Map();
  for (const folder of groups.flat()) {
    const manifestFile = path.join(folder, "package.json");
    if (!existsSync(manifestFile)) continue;
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
    const license = typeof manifest.license === "string" ? manifest.license : manifest.license?.type ?? "UNKNOWN";
    packages.set(`${manifest.name}@${manifest.version}`, { name: manifest.name, version: manifest.version, license, text: licenseText(folder), homepage: manifest.homepage ?? manifest.repository?.url ?? manifest.repository });
  }
  const sorted = [...packages.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const sections = sorted.map((pkg) =>
    [
      `## ${pkg.name} ${pkg.version}`,
      "",
      `License: ${pkg.license}${pkg.homepage ? ` · ${typeof pkg.homepage === "string" ? pkg.homepage : ""}` : ""}`,
      "",
      pkg.text ? pkg.text.split("\n").map((line) => (line ? `    ${line}` : "")).join("\n") : "(The package ships no license file; its declared license is above.)",
    ].join("\n"),
  );
  return [
    "# Third-party notices",
    "",
    "skill-lsp is MIT licensed (see LICENSE). It includes the following packages, bundled into dist/ or copied",
    "into node_modules/. Where a package offers a choice of licenses, it is used under the first.",
    "",
    `${sorted.length} packages:`,
    "",
    ...sorted.map((pkg) => `- ${pkg.name} ${pkg.version} (${pkg.license})`),
    "",
    ...sections.flatMap((section) => [section, ""]),
  ].join("\n");
}
