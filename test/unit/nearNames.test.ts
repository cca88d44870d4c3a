/** The "did you mean" candidates' index: every near miss of the same first letter found, each handle once, whatever the order of adds and asks. */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as fc from "fast-check";
import { NearNames } from "../../server/src/core/nearNames.js";
import { nearest } from "../../server/src/core/skillFile.js";

// Few letters, so that handles are often near one another (a digit and a hyphen as handles have them), and
// handles of a small set, so that one is often added again or asked after a neighbour came.
const handle = fc.oneof({ arbitrary: fc.stringMatching(/^[abc][abc1-]{0,9}$/), weight: 1 }, { arbitrary: fc.constantFrom("abcabc", "abcabd", "abcacb", "abcabca", "ab", "b-1"), weight: 3 });
const step = fc.oneof(fc.record({ add: handle }), fc.record({ ask: fc.oneof(handle, fc.constant("")) }));

test("NearNames: its candidates give the near misses all handles of the same first letter give, each handle once", () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
      const names = new NearNames();
      const added: string[] = [];
      for (const next of steps) {
        if ("add" in next) {
          names.add(next.add);
          added.push(next.add);
          continue;
        }
        const candidates = names.candidates(next.ask);
        assert.equal(new Set(candidates).size, candidates.length, `a handle twice among ${candidates.join(", ")}`);
        const sameFirstLetter = [...new Set(added)].filter((slug) => slug.charAt(0) === next.ask.charAt(0));
        assert.deepEqual(nearest(next.ask, candidates, 10), nearest(next.ask, sameFirstLetter, 10), `${next.ask} among ${added.join(", ")}`);
      }
    }),
    { numRuns: 500 },
  );
});

test("NearNames: a handle added after its length and letter were asked about is a candidate at the next ask", () => {
  const names = new NearNames();
  names.add("abcabc");
  assert.deepEqual(names.candidates("abcabd"), ["abcabc"]);
  names.add("abcacb");
  names.add("abcabc");
  assert.deepEqual(names.candidates("abcabd").sort(), ["abcabc", "abcacb"]);
});
