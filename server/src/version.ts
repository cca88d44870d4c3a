/** The release, as package.json says it (a unit test keeps the two equal). */
export const VERSION = "0.1.0";

/** Where the project lives, for reports that link to it. */
export const HOMEPAGE = "https://github.com/skill-lsp/skill-lsp";
