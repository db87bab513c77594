// What a "Show execution" lens may ask for (src/which.ts, bundled with
// esbuild and run in Node): the server's lenses send a violation's number,
// "condition" (a final condition SC breaks) or "failure:N"; the command
// takes each as it is and refuses anything else.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { buildSync } from "esbuild";

const here = path.dirname(new URL(import.meta.url).pathname);
let W;

before(async () => {
  const out = buildSync({ entryPoints: [path.join(here, "..", "src", "which.ts")], bundle: true, format: "esm", platform: "node", write: false });
  W = await import("data:text/javascript;base64," + Buffer.from(out.outputFiles[0].text).toString("base64"));
});

test("a lens's argument: a violation number, the condition, a failing statement", () => {
  assert.equal(W.asWhich(2), 2);
  assert.equal(W.asWhich("3"), 3);
  assert.equal(W.asWhich("condition"), "condition");
  assert.equal(W.asWhich("failure:12"), "failure:12");
  for (const bad of [0, -1, 1.5, NaN, "", "0", "cond", "failure:", "failure:x", null, undefined, {}, [1]]) {
    assert.equal(W.asWhich(bad), undefined, JSON.stringify(bad));
  }
});

test("each in words, for the outdated picture's note", () => {
  assert.equal(W.describeWhich(2), "violation 2");
  assert.equal(W.describeWhich("condition"), "the final condition's failure");
  assert.equal(W.describeWhich("failure:7"), "the failure of statement 7");
});
