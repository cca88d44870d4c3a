// @ts-check
"use strict";
// Entry point VS Code loads as extensionTestsPath: runs the mocha files next to it
// inside the extension host and settles with the failure count.
const path = require("node:path");
const fs = require("node:fs");
const Mocha = require("mocha");

function run() {
  const mocha = new Mocha({ ui: "tdd", color: false, timeout: 20_000 });
  for (const file of fs.readdirSync(__dirname).sort()) {
    if (file.endsWith(".test.js")) mocha.addFile(path.join(__dirname, file));
  }
  return new Promise((resolve, reject) => {
    mocha.run((failures) => {
      if (failures > 0) reject(new Error(`${failures} test(s) failed`));
      else resolve(undefined);
    });
  });
}

module.exports = { run };
