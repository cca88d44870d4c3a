// The Run Plan page. Every text arrives as data and is shown with textContent: nothing is parsed as HTML.
(function () {
  const vscode = acquireVsCodeApi();
  const log = document.getElementById("log");
  const cancel = document.getElementById("cancel");
  const pick = document.getElementById("pick");
  let answer = null;
  let loading = null;
  const errorsShown = new Set();

  cancel.addEventListener("click", () => vscode.postMessage({ kind: "cancel" }));
  pick.addEventListener("click", () => vscode.postMessage({ kind: "pick" }));

  function step(label, className) {
    const div = document.createElement("div");
    div.className = "step" + (className ? " " + className : "");
    const span = document.createElement("span");
    span.className = "label";
    span.textContent = label;
    div.appendChild(span);
    log.appendChild(div);
    div.scrollIntoView({ block: "end" });
    return div;
  }
  function text(parent, value, className) {
    const span = document.createElement("span");
    if (className) span.className = className;
    span.textContent = value;
    parent.appendChild(span);
    return span;
  }
  function pre(parent, value) {
    const block = document.createElement("pre");
    block.textContent = value;
    parent.appendChild(block);
    return block;
  }
  function json(value) {
    try { return JSON.stringify(value, null, 2); } catch { return String(value); }
  }

  function onEvent(event) {
    switch (event.type) {
      case "model":
        if (event.stage === "download") text(step("Downloading"), event.uri + " — " + Math.round((100 * event.downloadedBytes) / Math.max(event.totalBytes, 1)) + "%");
        else if (event.stage === "load") {
          loading = step("Loading");
          text(loading, event.path, "muted");
        } else {
          // The model is ready: the loading row has done its job.
          if (loading) loading.remove();
          loading = null;
          const div = step("Model");
          text(div, event.info.path + " on " + event.info.device + ", " + event.info.threads + " threads", "muted");
          if (event.info.contextClamped) text(div, " · context " + event.info.contextClamped.trained + " (asked " + event.info.contextClamped.requested + ", more than the model was trained on)", "muted");
        }
        break;
      case "systemPrompt": {
        const div = step("System prompt");
        text(div, event.label + " · " + (event.path === "plan" ? "planning over " + event.menu.length + " menu entries" : "direct path: no skill on the menu"));
        break;
      }
      case "plan": {
        const div = step("Plan");
        pre(div, event.text || "Nothing on the menu fits.");
        break;
      }
      case "bound": {
        const div = step("Bound");
        if (event.tools.length === 0) text(div, "no tool", "muted");
        event.tools.forEach((tool, index) => text(div, (index ? ", " : "") + tool.name, "handle tool"));
        break;
      }
      case "executionPrompt":
        text(step("Execution prompt"), event.tokens + " tokens with the chosen skills' steps", "muted");
        break;
      case "toolCall": {
        const div = step("Call");
        text(div, event.name, "handle tool");
        pre(div, json(event.args));
        break;
      }
      case "toolResult": {
        const div = step(event.refused ? "Refused" : event.ok ? "Result" : "Tool error", event.refused ? "refused" : event.ok ? "" : "error");
        pre(div, event.ok ? json(event.result) : event.error || "");
        break;
      }
      case "text":
        if (event.phase === "answer") {
          if (!answer) answer = pre(step("Answer"), "");
          answer.textContent += event.text;
        }
        break;
      case "answer":
        if (!answer) answer = pre(step("Answer"), "");
        answer.textContent = event.text;
        break;
      case "error":
        errorsShown.add(event.message);
        pre(step("Error", "error"), event.message);
        break;
      case "cancelled":
        text(step("Cancelled", "error"), "Generation stopped.");
        break;
      case "done":
        text(step("Done"), (event.ms / 1000).toFixed(1) + " s", "muted");
        break;
    }
  }

  window.addEventListener("message", (message) => {
    const data = message.data;
    if (data.kind === "start") {
      log.textContent = "";
      answer = null;
      loading = null;
      errorsShown.clear();
      pick.hidden = true;
      cancel.disabled = false;
      text(step("Request"), data.request);
    } else if (data.kind === "event") {
      onEvent(data.event);
    } else if (data.kind === "failed") {
      // The run's own error event may already have said it: say it once.
      if (!errorsShown.has(data.message)) pre(step("Error", "error"), data.message);
      pick.hidden = !data.noModel;
    } else if (data.kind === "modelChosen") {
      pick.hidden = true;
      text(step("Model chosen"), data.path + (data.rerun ? " — running the request again" : ""), "muted");
    } else if (data.kind === "finished") {
      cancel.disabled = true;
    }
  });
  vscode.postMessage({ kind: "ready" });
})();
