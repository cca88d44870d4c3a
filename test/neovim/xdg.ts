import { mkdirSync } from "node:fs";
import * as path from "node:path";

/** Neovim's state (LSP log, shada, swap) in folders under `work`, never the user's home: the XDG variables to set. */
export function isolatedXdg(work: string): Record<string, string> {
  const xdg: Record<string, string> = {};
  for (const name of ["CONFIG", "DATA", "STATE", "CACHE"]) {
    const dir = path.join(work, "xdg", name.toLowerCase());
    mkdirSync(dir, { recursive: true });
    xdg[`XDG_${name}_HOME`] = dir;
  }
  return xdg;
}
