/** Where dist/server.js leaves its own `import()` for the bundle (see server/src/start.ts). */
export const LAUNCHER_IMPORT = Symbol.for("skill-lsp.import");

/**
 * `import(specifier)` that also works when the bundle runs from V8's code cache: Node 20 gives a script
 * compiled from cached data no loader for its own `import()`, so the launcher's is used when it left one.
 */
export function importModule<T>(specifier: string): Promise<T> {
  const launcher = (globalThis as Record<symbol, unknown>)[LAUNCHER_IMPORT];
  if (typeof launcher === "function") return (launcher as (specifier: string) => Promise<T>)(specifier);
  return import(specifier) as Promise<T>;
}
