// The extension-host entry point (extensionTestsPath): runs the mocha suites bundled next to it and
// settles with the failure count, the same way under @vscode/test-electron and under the VS Code server.
import * as fs from "node:fs";
import * as path from "node:path";
import Mocha from "mocha";

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: "tdd", color: false, timeout: 30_000, slow: 2_000 });
  const only = process.env.SKILL_E2E_GREP;
  if (only) mocha.grep(only);
  for (const file of fs.readdirSync(__dirname).sort()) if (file.endsWith(".test.js")) mocha.addFile(path.join(__dirname, file));
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} test(s) failed`)) : resolve()));
  });
}
