/**
 * The graph panel's page carries the graph the extension had when it made the page, as a JSON block: text from
 * the workspace in it (a summary, a handle) must neither end the block nor start anything else in the page.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildGraph } from "../../server/src/core/graph.js";
import { Namespace } from "../../server/src/core/index.js";
import { inPageText, jsonBlock } from "../../shared/pageData.js";

const HOSTILE = ["</script><script>document.body.dataset.pwned = 'script'</script>", "<!-- <script>", "</SCRIPT >", "<img src=x onerror=alert(1)>", "a\u2028b"];

test("a JSON block holds any text as it was, and has one end tag: its own", () => {
  const value = { kind: "graph", texts: HOSTILE, nested: { summary: HOSTILE.join(" ") } };
  const block = jsonBlock("graph-data", value);
  assert.ok(block.startsWith('<script type="application/json" id="graph-data">') && block.endsWith("</script>"));
  // What an HTML parser looks for to end a script element, or to start a comment, appears only at the end.
  assert.equal(block.toLowerCase().indexOf("</script"), block.length - "</script>".length);
  assert.equal(block.indexOf("<!--"), -1);
  assert.equal([...block.matchAll(/</g)].length, 2, "the two tags' own");
  const inner = block.slice(block.indexOf(">") + 1, -"</script>".length);
  assert.deepEqual(JSON.parse(inner), value);
});

test("a graph whose summaries hold markup comes back from the block unchanged", () => {
  const namespace = new Namespace();
  namespace.setSkill("file:///ws/odd.skill.md", `---\nsummary: ${JSON.stringify(HOSTILE.join(" "))}\n---\nUse @find-file.`);
  const graph = buildGraph(namespace);
  assert.ok(JSON.stringify(graph).includes("</script>"), "the graph carries the markup as text");
  const block = jsonBlock("graph-data", { kind: "graph", graph });
  assert.equal(block.toLowerCase().indexOf("</script"), block.length - "</script>".length);
  assert.deepEqual(JSON.parse(block.slice(block.indexOf(">") + 1, -"</script>".length)).graph, JSON.parse(JSON.stringify(graph)));
});

test("a page's own script written into it: no `</` left to end its element, the source map's line dropped", () => {
  const script = 'const html = "</script><p>";\nconsole.log(html);\n//# sourceMappingURL=graph.js.map\n';
  const text = inPageText(script);
  assert.equal(text.indexOf("</"), -1);
  assert.ok(!text.includes("sourceMappingURL"));
  // The same program: `<\/` in a string is `</`.
  assert.equal(new Function(`${text}; return html;`.replace("console.log(html);", ""))(), "</script><p>");
});
