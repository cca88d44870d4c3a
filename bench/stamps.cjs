// Preloaded into the server by `bench/cold.mjs --split` (`node --require`): stamps when each completion request
// arrives on the server's stdin and when its answer is written to stdout, in milliseconds since the epoch, and
// writes them at exit to the file SKILL_LSP_STAMPS names, one "in ID MS" or "out ID MS" a line; and each pause of
// the collector, "gc MS DURATION KIND" (the kind as perf_hooks numbers it: 1 a scavenge, 4 a full collection).
// The main thread only: the server's own threads read no messages.
const { isMainThread } = require("node:worker_threads");
const { PerformanceObserver } = require("node:perf_hooks");
const { writeFileSync } = require("node:fs");

const file = process.env.SKILL_LSP_STAMPS;
if (isMainThread && file) {
  const stamps = [];
  const asked = new Set();
  const now = () => (performance.timeOrigin + performance.now()).toFixed(2);
  process.stdin.on("data", (chunk) => {
    const text = chunk.toString("latin1");
    for (const match of text.matchAll(/"id":(\d+),"method":"textDocument\/completion"|"method":"textDocument\/completion"[^{]*?"id":(\d+)/g)) {
      const id = match[1] ?? match[2];
      asked.add(id);
      stamps.push(`in ${id} ${now()}`);
    }
  });
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => {
    if (asked.size > 0) {
      // An answer's id comes first in its body: the server's own requests carry ids of their own, and a method.
      const text = typeof chunk === "string" ? chunk.slice(0, 128) : Buffer.from(chunk.buffer, chunk.byteOffset, Math.min(chunk.length, 128)).toString("latin1");
      const id = /"id":(\d+),"(?:result|error)"/.exec(text)?.[1];
      if (id !== undefined && asked.delete(id)) stamps.push(`out ${id} ${now()}`);
    }
    return write(chunk, ...rest);
  };
  new PerformanceObserver((list) => {
    for (const pause of list.getEntries()) stamps.push(`gc ${(performance.timeOrigin + pause.startTime).toFixed(2)} ${pause.duration.toFixed(2)} ${pause.detail?.kind}`);
  }).observe({ entryTypes: ["gc"] });
  process.on("exit", () => writeFileSync(file, stamps.join("\n")));
}
