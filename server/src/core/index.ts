/** The pure core: the namespace of skills and tools, with no editor, connection, file system or model in it. */
export * from "./alignment.js";
export * from "./config.js";
export * from "./diagnostics.js";
export * from "./mentions.js";
export * from "./moves.js";
export * from "./namespace.js";
export * from "./prose.js";
export * from "./similarity.js";
export * from "./skillFile.js";
export * from "./slug.js";
export * from "./text.js";
export * from "./tools.js";
export * from "./builtins.js";
export * from "./bundle.js";
