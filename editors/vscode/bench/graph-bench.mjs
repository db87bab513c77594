// Latency of what the editor draws from a settled check: inlay hints
// (`textDocument/inlayHint` over the whole file) and execution graphs
// (`litmus/executionGraph` request → SVG), on SB and the fenced 4-entry
// Dekker harness (shared/bench/harnesses/dekker_f_k4). Both draw from the
// stored report, so neither runs a second exploration.
import fs from "node:fs";
import path from "node:path";
import { Client, examples, fileUri, percentile, root } from "../lib/lsp-client.mjs";

const files = [
  ["sb.litmus", path.join(examples, "sb.litmus")],
  ["dekker_f_k4.litmus", path.join(root, "../shared/bench/harnesses/dekker_f_k4.litmus")],
];
const c = await Client.start({ options: { debounceMs: 0 } });
for (const [name, file] of files) {
  const uri = fileUri(name);
  c.open(uri, fs.readFileSync(file, "utf8"));
  await c.settled(uri, 1);
  const lines = fs.readFileSync(file, "utf8").split("\n").length;
  const hintTimes = [];
  let hints = 0;
  for (let i = 0; i < 200; i++) {
    const t = process.hrtime.bigint();
    const h = await c.request("textDocument/inlayHint", {
      textDocument: { uri },
      range: { start: { line: 0, character: 0 }, end: { line: lines, character: 0 } },
    });
    hintTimes.push(Number(process.hrtime.bigint() - t) / 1e6);
    hints = h.length;
  }
  console.log(
    `${name}: ${hints} inlay hints, request→hints p50 ${percentile(hintTimes, 50).toFixed(2)} ms, p95 ${percentile(hintTimes, 95).toFixed(2)} ms, max ${Math.max(...hintTimes).toFixed(2)} ms`,
  );
  const times = [];
  let bytes = 0;
  let count = 0;
  for (let i = 0; i < 200; i++) {
    const t = process.hrtime.bigint();
    const g = await c.request("litmus/executionGraph", { textDocument: { uri }, violation: 1 + (i % 2) });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    bytes = g.svg.length;
    count = g.violations;
  }
  console.log(
    `${name}: ${count} violations, svg ${bytes} bytes, request→svg p50 ${percentile(times, 50).toFixed(2)} ms, p95 ${percentile(times, 95).toFixed(2)} ms, max ${Math.max(...times).toFixed(2)} ms`,
  );
}
await c.stop();
