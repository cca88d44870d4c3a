// @ts-check
"use strict";
const vscode = require("vscode");

/** @param {vscode.ExtensionContext} context */
function activate(context) {
  const channel = vscode.window.createOutputChannel("E2E Smoke");
  channel.appendLine("e2e smoke extension activated");
  context.subscriptions.push(
    channel,
    vscode.commands.registerCommand("e2eSmoke.hello", (name = "world") => `hello ${name}`),
  );
}

function deactivate() {}

module.exports = { activate, deactivate };
