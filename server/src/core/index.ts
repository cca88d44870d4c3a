/** The pure core: the namespace of skills and tools, with no editor, connection, file system or model in it. */
export * from "./alignment.js";
export * from "./config.js";
export * from "./diagnostics.js";
export * from "./mentions.js";
export * from "./namespace.js";
export * from "./similarity.js";
export * from "./skillFile.js";
export * from "./slug.js";
export * from "./text.js";
export * from "./tools.js";
export * from "./builtins.js";
export * from "./bundle.js";
export * from "./agentSkills/paths.js";
export * from "./agentSkills/references.js";
export * from "./agentSkills/skillFolder.js";
export * from "./agentSkills/document.js";
export * from "./ignore.js";
